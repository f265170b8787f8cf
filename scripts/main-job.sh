#!/usr/bin/env bash
# The README's main-job command: install, build, and run the short benchmark
# (nbrcoll against the MPI's own neighbor allgather on the Frontier node model).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh build
bench/run_main_job.sh build
