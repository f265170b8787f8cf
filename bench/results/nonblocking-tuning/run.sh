#!/bin/bash
# auto's nonblocking calls with and without their measured choice: two
# builds (OLD: nonblocking calls under auto take the cost model's choice;
# NEW: tuned where a progress thread forwards) on the overlap benchmark's
# exchange (../overlap/common.sh: Moore 2-D r=1 MPI_Ineighbor_allgather at
# 4-64 KiB, 2 emulated nodes x RPN at 1 Gbit/s, native, every plan and auto
# interleaved; auto timed once settled, its trials waited for at once),
# NBRCOLL_PROGRESS=MODE (thread-always; mpi: Open MPI's progress loop,
# where only allgathers' blocks from 64 KiB may forward), an idle wait as
# long as the MPI's own exchange in the overlap table. One run of each
# build a pair, alternating, the order flipped every pair. Writes
# <build>_<pair>.txt and .log in $OUT (default: here, MODE/) and prints
# summary.py's table. Build folders: absolute, or from the repository root.
# MACHINE: a machine file for auto's cost model (default: none, the
# built-in Frontier model).
#   bash bench/results/nonblocking-tuning/run.sh OLD_BUILD NEW_BUILD  [PAIRS=3] [MODE=thread-always] [RPN=2] [ITERS=31] [MACHINE=FILE]
source "$(dirname "$0")/../overlap/common.sh"
mode=${MODE:-thread-always}
O=${OUT:-$here/../nonblocking-tuning/$mode}
mkdir -p "$O"
one_run() {
  echo "== pair $3, $1 build, NBRCOLL_PROGRESS=$mode" >&2
  BUILD=$2 ALGOS=linear,leader,aggregated,auto overlap_2x2 idle NBRCOLL_PROGRESS="$mode" NBRCOLL_DEBUG=info \
    ${MACHINE:+NBRCOLL_MACHINE=$(realpath "$MACHINE")} \
    2>"$O/$1_$3.log" >"$O/$1_$3.txt"
}
alternate_builds "$1" "$2" one_run
/usr/bin/python3 "$(dirname "$0")/summary.py" "$O"
