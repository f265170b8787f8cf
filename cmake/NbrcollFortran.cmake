# nbrcoll_find_mpi_fortran(<why>): enables Fortran and finds the MPI's
# Fortran support for a folder that builds Fortran programs against
# libnbrcoll's Fortran entry points (tests/fortran, bench/stencil). <why> is
# set to the reason there is none (empty when there is): libnbrcoll without
# Fortran entry points, no Fortran compiler, no Fortran compiler wrapper of
# the MPI, or CMake finding no MPI for Fortran. A macro: enable_language and
# find_package(MPI) set the caller's MPI_Fortran_* variables.
include_guard(GLOBAL)
include(CheckLanguage)

macro(nbrcoll_find_mpi_fortran why)
  check_language(Fortran)
  set(${why} "")
  if(NOT NBRCOLL_FORTRAN_BINDINGS)
    set(${why} "libnbrcoll has no Fortran entry points in this build")
  elseif(NOT CMAKE_Fortran_COMPILER)
    set(${why} "no Fortran compiler")
  elseif(NOT NBRCOLL_MPI_FORTRAN_WRAPPER)
    set(${why} "no Fortran compiler wrapper of the MPI")
  endif()
  if(NOT ${why})
    enable_language(Fortran)
    if(NOT MPI_Fortran_COMPILER)
      set(MPI_Fortran_COMPILER ${NBRCOLL_MPI_FORTRAN_WRAPPER} CACHE FILEPATH "The MPI's Fortran wrapper")
    endif()
    find_package(MPI COMPONENTS Fortran)
    if(NOT MPI_Fortran_FOUND)
      set(${why} "CMake found no MPI for Fortran (MPI_Fortran_COMPILER=${MPI_Fortran_COMPILER})")
    endif()
  endif()
endmacro()
