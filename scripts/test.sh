#!/usr/bin/env bash
# The README's test command: install (with Debian's ROCm HIP compiler, so the
# HIP device backend is built too, Debian's MPICH, and PETSc for tests/petsc),
# build, run every test (unit and MPI; tests that need a GPU skip without one)
# under Open MPI, then the MPICH subset (ctest label "mpich") in a second build
# against MPICH.
#   scripts/test.sh                  release build in build/ (Open MPI), then build-mpich/
#   NBRCOLL_MPI=openmpi scripts/test.sh   only the Open MPI pass
#   NBRCOLL_MPI=mpich scripts/test.sh     only the MPICH pass
#   NBRCOLL_SANITIZE=address,undefined scripts/test.sh   sanitized build in build-asan/
#                                    (Open MPI only unless NBRCOLL_MPI says otherwise)
# CTEST_ARGS are passed to the Open MPI pass's ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --hip --petsc
mpi="${NBRCOLL_MPI:-}"
if [[ -z "$mpi" ]]; then
  if [[ -n "${NBRCOLL_SANITIZE:-}" ]]; then mpi=openmpi; else mpi=both; fi
fi
case "$mpi" in openmpi | mpich | both) ;; *) echo "test.sh: NBRCOLL_MPI must be openmpi, mpich or both" >&2; exit 2 ;; esac

if [[ "$mpi" != mpich ]]; then
  if [[ -n "${NBRCOLL_SANITIZE:-}" ]]; then
    dir=build-asan
    scripts/build.sh "$dir" -DNBRCOLL_SANITIZE="$NBRCOLL_SANITIZE" -DCMAKE_BUILD_TYPE=Debug -DNBRCOLL_BUILD_BENCH=OFF
  else
    dir=build
    scripts/build.sh "$dir"
  fi
  ctest --test-dir "$dir" --output-on-failure -j"$(nproc)" ${CTEST_ARGS:-}
fi

if [[ "$mpi" != openmpi ]]; then
  # MPICH by its own names (Open MPI keeps mpicc/mpiexec); no GPU plugins and
  # no unit tests here: they do not depend on the MPI and ran above.
  dir=build-mpich
  sanitize=()
  if [[ -n "${NBRCOLL_SANITIZE:-}" ]]; then
    dir=build-mpich-asan
    sanitize=(-DNBRCOLL_SANITIZE="$NBRCOLL_SANITIZE" -DCMAKE_BUILD_TYPE=Debug)
  fi
  NBRCOLL_MPI=mpich scripts/build.sh "$dir" -DNBRCOLL_WITH_HIP=OFF -DNBRCOLL_WITH_CUDA=OFF \
    -DNBRCOLL_BUILD_BENCH=OFF -DNBRCOLL_TEST_AREAS= "${sanitize[@]}"
  ctest --test-dir "$dir" --output-on-failure -j"$(nproc)" -L mpich
fi
