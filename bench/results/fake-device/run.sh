#!/usr/bin/env bash
# Calls in a process with a GPU runtime, before (per-call vote + closing
# allreduce, commit 8dbbcd3) and after (notes, no agreement): nbrcoll-bench on
# one host, 8 ranks as 2 emulated nodes x 4 (Frontier model), RSG 0.6, three
# alternating rounds. The fake device backend (tests/fake_gpu) stands in for
# the GPU runtime: "host" keeps host buffers in a process that has a device
# backend loaded; "device" allocates the buffers through it (left readable so
# that the MPI's own neighbor allgather, 'native', can run on them).
#   OLD=/path/to/old/nbrcoll-bench bench/results/fake-device/run.sh [build]
set -euo pipefail
cd "$(dirname "$0")/../../.."
build=${1:-build}
new=$build/bin/nbrcoll-bench
old=${OLD:?set OLD to an nbrcoll-bench built from the commit to compare with}
fake=$PWD/$build/lib/fake_gpu/libnbrcoll-fake-device.so
root=(); [[ $(id -u) -eq 0 ]] && root=(--allow-run-as-root)
run() {  # BIN [extra bench args]
  local bin=$1; shift
  mpirun "${root[@]}" --oversubscribe -np 8 -x NBRCOLL_RANKS_PER_NODE=4 -x NBRCOLL_TOPO=frontier \
    -x NBRCOLL_DEVICE_BACKEND="$fake" -x NBRCOLL_FAKE_DEVICE_UNPROTECTED=1 \
    "$bin" "$@" --pattern rsg --sizes 1K,16K,256K --algos native,linear,leader --warmup 3 --iters 30 2>&1 |
    grep -E '^  [0-9]+K +(native|linear|leader) '
}
for round in 1 2 3; do
  for v in old new; do
    bin=$old; [[ $v == new ]] && bin=$new
    echo "== host $v round $round"; run "$bin"
    echo "== device $v round $round"; run "$bin" --device "$fake"
  done
done
