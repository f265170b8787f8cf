# cmake -DSOURCE_DIR=... -DWORK=... -P flavour_check.cmake
# Runs cmake/NbrcollMpiFlavour.cmake on stand-in MPIs (an mpi.h and an
# mpiexec that prints a version): a launcher of the same MPI is accepted, one
# of the other MPI stops configuration with a message naming both.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/ompi" "${WORK}/mpich")
file(WRITE "${WORK}/ompi/mpi.h" "#define OMPI_MAJOR_VERSION 4\n#define OMPI_MINOR_VERSION 1\n#define OMPI_RELEASE_VERSION 4\n")
file(WRITE "${WORK}/mpich/mpi.h" "#define MPICH_VERSION \"4.0.2\"\n")
file(WRITE "${WORK}/ompi/mpiexec" "#!/bin/sh\necho 'mpiexec (OpenRTE) 4.1.4'\n")
file(WRITE "${WORK}/mpich/mpiexec" "#!/bin/sh\necho 'HYDRA build details:'\necho '    Version: 4.0.2'\n")
file(CHMOD "${WORK}/ompi/mpiexec" "${WORK}/mpich/mpiexec" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)

function(check lib launcher expect_ok pattern)
  execute_process(COMMAND ${CMAKE_COMMAND} -DMPI_C_INCLUDE_DIRS=${WORK}/${lib} -DMPIEXEC_EXECUTABLE=${WORK}/${launcher}/mpiexec
    -DNBRCOLL_BUILD_TESTS=ON -P ${SOURCE_DIR}/cmake/NbrcollMpiFlavour.cmake
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(all "${out}${err}")
  if(expect_ok AND NOT rc EQUAL 0)
    message(FATAL_ERROR "library ${lib}, launcher ${launcher}: expected success, got rc=${rc}:\n${all}")
  endif()
  if(NOT expect_ok AND rc EQUAL 0)
    message(FATAL_ERROR "library ${lib}, launcher ${launcher}: expected a configuration error, got success:\n${all}")
  endif()
  string(REGEX REPLACE "[ \n]+" " " flat "${all}")
  if(NOT flat MATCHES "${pattern}")
    message(FATAL_ERROR "library ${lib}, launcher ${launcher}: output lacks '${pattern}':\n${all}")
  endif()
  message(STATUS "ok: library ${lib}, launcher ${launcher}")
endfunction()

check(ompi ompi TRUE "MPI: openmpi 4.1.4 .*: openmpi")
check(mpich mpich TRUE "MPI: mpich 4.0.2 .*: mpich")
check(mpich ompi FALSE "library is mpich 4.0.2 but the launcher .* is openmpi.*mpiexec.mpich")
check(ompi mpich FALSE "library is openmpi 4.1.4 but the launcher .* is mpich")
