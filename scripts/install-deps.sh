#!/usr/bin/env bash
# Installs what nbrcoll needs from Debian 12's packages. Idempotent, and fast
# when everything is already there (no apt-get at all then).
#   scripts/install-deps.sh          build + tests + benchmarks (Open MPI, and
#                                    Debian's MPICH for the second test pass)
#   scripts/install-deps.sh --hip    also the ROCm HIP compiler and runtime
#   scripts/install-deps.sh --petsc  also PETSc and its examples (tests/petsc,
#                                    bench/petsc; 85 packages, 59 MB, ~1 min)
# (flags combine: --hip --petsc)
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libopenmpi-dev openmpi-bin
  mpich libmpich-dev
  libhwloc-dev hwloc libucx-dev
  libudev-dev
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  librocm-smi-dev
  iproute2 python3 python3-matplotlib
  clang-tidy
)
for group in "$@"; do
  case "$group" in
    --hip) packages+=(hipcc libamdhip64-dev) ;;
    # Debian's PETSc 3.18 is built on Open MPI; its tutorials' sources.
    --petsc) packages+=(petsc-dev libpetsc3.18-dev-examples) ;;
    *) echo "install-deps: unknown option '$group' (--hip, --petsc)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# Open MPI stays the default MPI (mpicc, mpiexec); MPICH is used by its own
# names (mpicc.mpich, mpiexec.mpich).
for alt in mpi mpirun; do
  if update-alternatives --query "$alt" 2>/dev/null | grep -q openmpi; then
    $sudo update-alternatives --quiet --set "$alt" \
      "$(update-alternatives --list "$alt" | grep openmpi | head -1)"
  fi
done
echo "install-deps: done"
