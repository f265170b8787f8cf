#!/usr/bin/env bash
# Configures and builds nbrcoll into build/ (or $1). Extra arguments go to cmake.
# NBRCOLL_MPI=mpich builds against Debian's MPICH by its own names (Open MPI
# keeps mpicc/mpiexec).
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-build}"
shift || true
mpi=()
if [[ "${NBRCOLL_MPI:-openmpi}" == mpich ]]; then
  mpi=(-DMPI_C_COMPILER=mpicc.mpich -DMPI_CXX_COMPILER=mpicxx.mpich -DMPIEXEC_EXECUTABLE="$(command -v mpiexec.mpich)")
fi
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${mpi[@]}" "$@"
cmake --build "$dir" -j"$(nproc)"
