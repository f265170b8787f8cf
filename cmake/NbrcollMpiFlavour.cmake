# Which MPI CMake found, and which MPI the launcher belongs to. Sets
#   NBRCOLL_MPI_FLAVOUR          openmpi | mpich       (from the mpi.h that is compiled against)
#   NBRCOLL_MPI_VERSION          e.g. 4.1.4 / 4.0.2
#   NBRCOLL_MPIEXEC_FLAVOUR      openmpi | mpich       (from `MPIEXEC_EXECUTABLE --version`)
# and stops configuring when the two differ: tests launched by another MPI's
# mpiexec would each run as a singleton and prove nothing.

set(NBRCOLL_MPI_FLAVOUR "unknown")
set(NBRCOLL_MPI_VERSION "unknown")
foreach(dir ${MPI_C_INCLUDE_DIRS} ${MPI_C_HEADER_DIR})
  if(NOT EXISTS "${dir}/mpi.h")
    continue()
  endif()
  file(STRINGS "${dir}/mpi.h" _defs REGEX "^#define (OMPI_(MAJOR|MINOR|RELEASE)_VERSION|MPICH_VERSION) ")
  if(_defs MATCHES "OMPI_MAJOR_VERSION ([0-9]+)")
    set(_maj ${CMAKE_MATCH_1})
    string(REGEX MATCH "OMPI_MINOR_VERSION ([0-9]+)" _ "${_defs}")
    set(_min ${CMAKE_MATCH_1})
    string(REGEX MATCH "OMPI_RELEASE_VERSION ([0-9]+)" _ "${_defs}")
    set(NBRCOLL_MPI_FLAVOUR openmpi)
    set(NBRCOLL_MPI_VERSION "${_maj}.${_min}.${CMAKE_MATCH_1}")
    break()
  elseif(_defs MATCHES "MPICH_VERSION \"([^\"]+)\"")
    set(NBRCOLL_MPI_FLAVOUR mpich)
    set(NBRCOLL_MPI_VERSION "${CMAKE_MATCH_1}")
    break()
  endif()
endforeach()

set(NBRCOLL_MPIEXEC_FLAVOUR "unknown")
if(MPIEXEC_EXECUTABLE)
  execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _out ERROR_VARIABLE _err
    RESULT_VARIABLE _rc TIMEOUT 30)
  if("${_out}${_err}" MATCHES "Open MPI|OpenRTE|open-mpi")
    set(NBRCOLL_MPIEXEC_FLAVOUR openmpi)
  elseif("${_out}${_err}" MATCHES "HYDRA|MPICH")
    set(NBRCOLL_MPIEXEC_FLAVOUR mpich)
  endif()
endif()

message(STATUS "nbrcoll: MPI: ${NBRCOLL_MPI_FLAVOUR} ${NBRCOLL_MPI_VERSION} (${MPI_C_LIB_NAMES}); "
               "launcher ${MPIEXEC_EXECUTABLE}: ${NBRCOLL_MPIEXEC_FLAVOUR}")
if(NBRCOLL_BUILD_TESTS)
  if(NBRCOLL_MPI_FLAVOUR STREQUAL "unknown")
    message(FATAL_ERROR "nbrcoll: cannot tell which MPI mpi.h belongs to (looked in '${MPI_C_INCLUDE_DIRS}'); "
                        "the MPI tests support Open MPI and MPICH (-DNBRCOLL_BUILD_TESTS=OFF builds without them)")
  endif()
  if(NOT NBRCOLL_MPIEXEC_FLAVOUR STREQUAL NBRCOLL_MPI_FLAVOUR)
    set(_hint "")
    if(NBRCOLL_MPI_FLAVOUR STREQUAL "mpich")
      set(_hint " (for Debian's MPICH: -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich)")
    elseif(NBRCOLL_MPI_FLAVOUR STREQUAL "openmpi")
      set(_hint " (for Debian's Open MPI: -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.openmpi)")
    endif()
    message(FATAL_ERROR "nbrcoll: the MPI library is ${NBRCOLL_MPI_FLAVOUR} ${NBRCOLL_MPI_VERSION} but the launcher "
                        "MPIEXEC_EXECUTABLE=${MPIEXEC_EXECUTABLE} is ${NBRCOLL_MPIEXEC_FLAVOUR}: every test rank "
                        "would run as a singleton. Point MPIEXEC_EXECUTABLE at the same MPI's mpiexec${_hint}.")
  endif()
endif()
