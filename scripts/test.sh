#!/usr/bin/env bash
# The README's test command: install, build, run every test (unit and MPI).
#   scripts/test.sh                  release build in build/
#   NBRCOLL_SANITIZE=address,undefined scripts/test.sh   sanitized build in build-asan/
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
if [[ -n "${NBRCOLL_SANITIZE:-}" ]]; then
  dir=build-asan
  scripts/build.sh "$dir" -DNBRCOLL_SANITIZE="$NBRCOLL_SANITIZE" -DCMAKE_BUILD_TYPE=Debug -DNBRCOLL_BUILD_BENCH=OFF
else
  dir=build
  scripts/build.sh "$dir"
fi
ctest --test-dir "$dir" --output-on-failure -j"$(nproc)" ${CTEST_ARGS:-}
