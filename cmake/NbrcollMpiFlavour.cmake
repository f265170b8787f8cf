# Which MPI CMake found, and which MPI the launcher belongs to. Sets
#   NBRCOLL_MPI_FLAVOUR          openmpi | mpich       (from the mpi.h that is compiled against)
#   NBRCOLL_MPI_VERSION          e.g. 4.1.4 / 4.0.2
#   NBRCOLL_MPI_NAME             "Open MPI" | "MPICH" (as MPI_Get_library_version says)
#   NBRCOLL_MPIEXEC_FLAVOUR      openmpi | mpich       (from `MPIEXEC_EXECUTABLE --version`)
#   NBRCOLL_MPIRUN_FLAGS         the launcher's flags for tests (after -n N)
#   NBRCOLL_MPIRUN_ENV           the environment the tests' MPI runs get
#   NBRCOLL_MPIX_PERSISTENT      ON where the MPI has Open MPI's persistent collectives
#                                extension (MPIX_Neighbor_*_init: OMPI_HAVE_MPI_EXT_PCOLLREQ
#                                in the mpi-ext.h beside mpi.h; src/support/persistent_forms.h
#                                reads the same macro)
#   NBRCOLL_PERSISTENT_PREFIX    what a program calls for a persistent neighborhood
#                                collective: MPI (MPI 4), MPIX (the extension alone), or empty
# and stops configuring when the two differ: tests launched by another MPI's
# mpiexec would each run as a singleton and prove nothing.

set(NBRCOLL_MPI_FLAVOUR "unknown")
set(NBRCOLL_MPI_NAME "unknown")
set(NBRCOLL_MPI_VERSION "unknown")
set(NBRCOLL_MPIX_PERSISTENT OFF)
foreach(dir ${MPI_C_INCLUDE_DIRS} ${MPI_C_HEADER_DIR})
  if(NOT EXISTS "${dir}/mpi.h")
    continue()
  endif()
  if(EXISTS "${dir}/mpi-ext.h")
    file(STRINGS "${dir}/mpi-ext.h" _pcollreq REGEX "^#define OMPI_HAVE_MPI_EXT_PCOLLREQ 1")
    if(_pcollreq)
      set(NBRCOLL_MPIX_PERSISTENT ON)
    endif()
  endif()
  file(STRINGS "${dir}/mpi.h" _defs REGEX "^#define (OMPI_(MAJOR|MINOR|RELEASE)_VERSION|MPICH_VERSION) ")
  if(_defs MATCHES "OMPI_MAJOR_VERSION ([0-9]+)")
    set(_maj ${CMAKE_MATCH_1})
    string(REGEX MATCH "OMPI_MINOR_VERSION ([0-9]+)" _ "${_defs}")
    set(_min ${CMAKE_MATCH_1})
    string(REGEX MATCH "OMPI_RELEASE_VERSION ([0-9]+)" _ "${_defs}")
    set(NBRCOLL_MPI_FLAVOUR openmpi)
    set(NBRCOLL_MPI_NAME "Open MPI")
    set(NBRCOLL_MPI_VERSION "${_maj}.${_min}.${CMAKE_MATCH_1}")
    break()
  elseif(_defs MATCHES "MPICH_VERSION \"([^\"]+)\"")
    set(NBRCOLL_MPI_FLAVOUR mpich)
    set(NBRCOLL_MPI_NAME "MPICH")
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

set(NBRCOLL_PERSISTENT_PREFIX "")
set(_persistent "none")
if(MPI_C_VERSION VERSION_GREATER_EQUAL 4)
  set(NBRCOLL_PERSISTENT_PREFIX MPI)
  set(_persistent "MPI_Neighbor_*_init")
endif()
if(NBRCOLL_MPIX_PERSISTENT)
  if(NOT NBRCOLL_PERSISTENT_PREFIX)
    set(NBRCOLL_PERSISTENT_PREFIX MPIX)
    set(_persistent "")
  else()
    string(APPEND _persistent ", ")
  endif()
  string(APPEND _persistent "MPIX_Neighbor_*_init (Open MPI's extension)")
endif()

message(STATUS "nbrcoll: MPI: ${NBRCOLL_MPI_FLAVOUR} ${NBRCOLL_MPI_VERSION} (${MPI_C_LIB_NAMES}); "
               "launcher ${MPIEXEC_EXECUTABLE}: ${NBRCOLL_MPIEXEC_FLAVOUR}; persistent collectives: ${_persistent}")
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

# Installed names that depend on the MPI carry a suffix, so that builds for
# both MPIs can share a prefix: libnbrcoll<S>.so/.a, nbrcoll<S>.pc,
# find_package(nbrcoll<S>), nbrcoll-info<S>, nbrcoll-bench<S>.
if(NBRCOLL_MPI_FLAVOUR STREQUAL "mpich")
  set(_suffix "-mpich")
else()
  set(_suffix "")
endif()
set(NBRCOLL_MPI_SUFFIX "${_suffix}" CACHE STRING
  "Suffix of the MPI-dependent names (library, pkg-config module, CMake package, nbrcoll-info, nbrcoll-bench): empty for Open MPI, -mpich for MPICH")
set(NBRCOLL_PACKAGE "nbrcoll${NBRCOLL_MPI_SUFFIX}")

# The tests' launch line:
#   Open MPI: --oversubscribe (--allow-run-as-root as root), variables passed on by -x,
#             yield when idle, shared-memory transport; its default components otherwise.
#   MPICH (Hydra): ranks inherit the environment; LD_PRELOAD goes by -genv so
#             that the launcher itself is not preloaded.
execute_process(COMMAND id -u OUTPUT_VARIABLE _uid OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NBRCOLL_MPI_FLAVOUR STREQUAL "openmpi")
  set(NBRCOLL_MPIRUN_FLAGS --oversubscribe)
  if(_uid STREQUAL "0")
    list(APPEND NBRCOLL_MPIRUN_FLAGS --allow-run-as-root)
  endif()
  set(NBRCOLL_MPIRUN_ENV OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_btl=self,vader)
else()
  set(NBRCOLL_MPIRUN_FLAGS "")
  # ch4:ucx busy-polls whatever we do; UCX's shared-memory transports need no
  # network device.
  set(NBRCOLL_MPIRUN_ENV UCX_TLS=self,sm UCX_WARN_UNUSED_ENV_VARS=n)
endif()
