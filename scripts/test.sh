#!/usr/bin/env bash
# The README's test command: install (with Debian's ROCm HIP compiler, so the
# HIP device backend is built too), build, run every test (unit and MPI;
# tests that need a GPU skip without one).
#   scripts/test.sh                  release build in build/
#   NBRCOLL_SANITIZE=address,undefined scripts/test.sh   sanitized build in build-asan/
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --hip
if [[ -n "${NBRCOLL_SANITIZE:-}" ]]; then
  dir=build-asan
  scripts/build.sh "$dir" -DNBRCOLL_SANITIZE="$NBRCOLL_SANITIZE" -DCMAKE_BUILD_TYPE=Debug -DNBRCOLL_BUILD_BENCH=OFF
else
  dir=build
  scripts/build.sh "$dir"
fi
ctest --test-dir "$dir" --output-on-failure -j"$(nproc)" ${CTEST_ARGS:-}
