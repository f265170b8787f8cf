#!/usr/bin/env bash
# The README's main-job command: install, build, and run the short benchmark
# (nbrcoll against the MPI's own neighbor allgather on the Frontier node model).
#   scripts/main-job.sh                   Open MPI, in build/
#   NBRCOLL_MPI=mpich scripts/main-job.sh MPICH (mpiexec.mpich), in build-mpich/
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
case "${NBRCOLL_MPI:-openmpi}" in
  openmpi)
    scripts/build.sh build
    bench/run_main_job.sh build ;;
  mpich)
    NBRCOLL_MPI=mpich scripts/build.sh build-mpich -DNBRCOLL_BUILD_BENCH=ON
    NBRCOLL_MPI=mpich bench/run_main_job.sh build-mpich ;;
  *) echo "main-job.sh: NBRCOLL_MPI must be openmpi or mpich" >&2; exit 2 ;;
esac
