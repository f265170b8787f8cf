# cmake -DLIB=libnbrcoll.so -DMPI_VERSION=3.1 [-DMPIX=ON] [-DFLAVOUR=openmpi|mpich -DFORTRAN_BINDINGS=mpifh,f08]
#       -P exports.cmake
# libnbrcoll.so exports exactly the MPI entry points it takes and nbrcoll_version:
# the C names, and the Fortran names (src/entry/fortran/calls.tbl): the
# mpif.h / use mpi names in every mangling the MPI's Fortran library has
# (MPI_X, mpi_x, mpi_x_, mpi_x__, and Open MPI's MPI_X_f, MPI_X_f08), and the
# use mpi_f08 ones, mpi_x_f08_ (MPICH: the calls without a choice buffer; its
# others call the C names); under MPI 4 the large-count _c forms, C names only.
# The persistent collectives and MPI_Start(all) where the MPI has them: MPI
# 4's MPI_ names, and with MPIX (Open MPI's extension) the MPIX_ / mpix_ ones.
cmake_minimum_required(VERSION 3.25)
execute_process(COMMAND nm -D --defined-only ${LIB} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm -D ${LIB} failed (rc=${rc}): ${err}")
endif()
string(REGEX MATCHALL "[0-9a-f]+ [TtWwDdBbRrVi] [^\n]+" rows "${out}")
set(names "")
foreach(row ${rows})
  string(REGEX REPLACE "^[0-9a-f]+ . " "" name "${row}")
  string(REGEX REPLACE "@.*" "" name "${name}")
  list(APPEND names "${name}")
endforeach()
list(SORT names)
set(expected MPI_Dist_graph_create MPI_Dist_graph_create_adjacent MPI_Cart_create MPI_Cart_sub MPI_Graph_create
             MPI_Neighbor_allgather MPI_Neighbor_allgatherv MPI_Neighbor_alltoall MPI_Neighbor_alltoallv
             MPI_Ineighbor_allgather MPI_Ineighbor_allgatherv MPI_Ineighbor_alltoall MPI_Ineighbor_alltoallv
             MPI_Wait MPI_Waitall MPI_Waitany MPI_Waitsome MPI_Test MPI_Testall MPI_Testany MPI_Testsome
             MPI_Request_get_status MPI_Request_free MPI_Cancel MPI_Init MPI_Init_thread MPI_Query_thread MPI_Finalize
             nbrcoll_version)
list(APPEND expected MPI_Neighbor_alltoallw MPI_Ineighbor_alltoallw)
set(_inits Neighbor_allgather_init Neighbor_allgatherv_init Neighbor_alltoall_init Neighbor_alltoallv_init
           Neighbor_alltoallw_init)
if(MPI_VERSION VERSION_GREATER_EQUAL 4 OR MPIX)
  list(APPEND expected MPI_Start MPI_Startall)
endif()
foreach(c ${_inits})
  if(MPI_VERSION VERSION_GREATER_EQUAL 4)
    list(APPEND expected MPI_${c})
  endif()
  if(MPIX)
    list(APPEND expected MPIX_${c})
  endif()
endforeach()
string(REPLACE "," ";" _bindings "${FORTRAN_BINDINGS}")
set(_calls ${expected})
list(REMOVE_ITEM _calls nbrcoll_version)
foreach(c ${_calls})
  string(REGEX MATCH "^(MPIX?)_(.*)$" _ "${c}")
  set(P ${CMAKE_MATCH_1})
  string(TOLOWER "${P}" p)
  set(name "${CMAKE_MATCH_2}")
  string(TOLOWER "${name}" lower)
  string(TOUPPER "${name}" upper)
  if("mpifh" IN_LIST _bindings)
    list(APPEND expected ${P}_${upper} ${p}_${lower} ${p}_${lower}_ ${p}_${lower}__)
  endif()
  if(FLAVOUR STREQUAL "openmpi" AND "mpifh" IN_LIST _bindings)
    list(APPEND expected ${c}_f ${c}_f08)
  endif()
  if(FLAVOUR STREQUAL "openmpi" AND "f08" IN_LIST _bindings)
    list(APPEND expected ${p}_${lower}_f08_)
  endif()
  if(FLAVOUR STREQUAL "mpich" AND "f08" IN_LIST _bindings AND NOT name MATCHES "eighbor_")
    list(APPEND expected ${p}_${lower}_f08_)
  endif()
endforeach()
# The large-count forms (MPI 4): C names only.
if(MPI_VERSION VERSION_GREATER_EQUAL 4)
  foreach(c Neighbor_allgather Neighbor_allgatherv Neighbor_alltoall Neighbor_alltoallv Ineighbor_allgather
            Ineighbor_allgatherv Ineighbor_alltoall Ineighbor_alltoallv Neighbor_allgather_init
            Neighbor_allgatherv_init Neighbor_alltoall_init Neighbor_alltoallv_init)
    list(APPEND expected MPI_${c}_c)
  endforeach()
endif()
list(SORT expected)
if(NOT names STREQUAL expected)
  message(FATAL_ERROR "${LIB} exports '${names}', expected '${expected}'")
endif()
message(STATUS "ok: exports ${names}")
