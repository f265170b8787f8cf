#!/usr/bin/env bash
# The short benchmark run for a fresh machine (a few minutes on 2 cores):
# RSG (density 0.6) and Moore (d=2, r=1) neighbour allgather on 16 ranks =
# 2 nodes x 8 ranks with NBRCOLL_TOPO=frontier, native vs linear vs leader vs aggregated vs auto.
# The nodes are network namespaces with 1 Gbit/s links (bench/cluster/run.sh)
# where the machine allows it, else emulated nodes on one host
# (NBRCOLL_RANKS_PER_NODE=8, no link cap), and the output says which.
# First it measures that cluster for auto's cost model (nbrcoll-calibrate,
# about 10 s) and runs the benchmark with NBRCOLL_MACHINE set to the file;
# without it auto would plan for a real Frontier node's network, 100 times
# faster than these links. A NBRCOLL_MACHINE already set is kept.
#
#   bench/run_main_job.sh [BUILD_DIR (default: build)] [OUT_DIR (default: BUILD_DIR/bench-results)]
#
# Writes OUT_DIR/{rsg,moore}.csv, .txt (the tables) and *_speedup.png.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${1:-$root/build}
mkdir -p "$build" && build=$(cd "$build" && pwd)
out=${2:-$build/bench-results}
# NBRCOLL_MPI=mpich: an MPICH build (nbrcoll-bench-mpich), run by MPICH's Hydra.
suffix=""
[[ "${NBRCOLL_MPI:-openmpi}" == mpich ]] && suffix=-mpich
bench=$build/bin/nbrcoll-bench$suffix
calibrate=$build/bin/nbrcoll-calibrate$suffix
if [[ ! -x "$bench" || ! -x "$calibrate" ]]; then
  echo "run_main_job: $bench or $calibrate missing, building them" >&2
  if [[ -n "$suffix" && ! -f "$build/CMakeCache.txt" ]]; then
    echo "run_main_job: configure it for MPICH first: NBRCOLL_MPI=mpich scripts/build.sh $build" >&2
    exit 2
  fi
  cmake -S "$root" -B "$build" -DNBRCOLL_BUILD_BENCH=ON >/dev/null
  cmake --build "$build" -j2 --target nbrcoll-bench nbrcoll-calibrate
fi
mkdir -p "$out"
export NBRCOLL_TOPO=${NBRCOLL_TOPO:-frontier}
unset NBRCOLL_RANKS_PER_NODE NBRCOLL_ALGO

# MAIN_JOB_NODES, MAIN_JOB_RANKS_PER_NODE, MAIN_JOB_RATE: another cluster
# shape (2, 8, 1gbit; e.g. 4, 4 or a 10gbit network: a node-internal to
# network bandwidth ratio like a real cluster's, which the calibration
# measures and prints). MAIN_JOB_BURST: the links' token bucket
# (bench/cluster/run.sh --burst, its default unless set).
# MAIN_JOB_ITERS_BELOW: nbrcoll-bench's --iters-below (1M:15: calls up to
# 256 KiB cost milliseconds, and 3 of them left auto's cells 0.58-1.19 of
# the best from job to job at 1-16 KiB and 0.63-1.21 at 256 KiB:
# bench/results/main-job-iters); empty: 3 at every size.
nodes=${MAIN_JOB_NODES:-2} per_node=${MAIN_JOB_RANKS_PER_NODE:-8}
common=(--warmup 1 --iters 3 --create-reps 3)
iters_below=${MAIN_JOB_ITERS_BELOW-1M:15}
[[ -n $iters_below ]] && common+=(--iters-below "$iters_below")
cluster=(--nodes "$nodes" --ranks-per-node "$per_node" --rate "${MAIN_JOB_RATE:-1gbit}")
[[ -n "${MAIN_JOB_BURST:-}" ]] && cluster+=(--burst "$MAIN_JOB_BURST")

# auto's cost model: this cluster's own costs (bench/model/README.md).
if [[ -z "${NBRCOLL_MACHINE:-}" ]]; then
  echo "== calibration: bench/cluster/run.sh ${cluster[*]} -- nbrcoll-calibrate$suffix --out $out/machine"
  if "$here/cluster/run.sh" "${cluster[@]}" -- "$calibrate" --name main-job --out "$out/machine" \
      >"$out/calibrate.txt" 2>&1; then
    export NBRCOLL_MACHINE=$out/machine
    grep -E '^(alpha|rate)\.(same-package|network) ' "$NBRCOLL_MACHINE" | sed 's/^/   /'
    # The shape: a rank's node-internal rate against its share of the node's network.
    awk -v k="$per_node" '/^rate\.same-package /{s=$3} /^nic /{n=$3}
      END{if (n > 0) printf "   node-internal rate / network share per rank (nic / %d): %.1f\n", k, s / (n / k)}' \
      "$NBRCOLL_MACHINE"
  else
    echo "run_main_job: the calibration failed ($out/calibrate.txt); auto keeps the built-in model of" \
      "NBRCOLL_TOPO=$NBRCOLL_TOPO" >&2
  fi
fi
echo "run_main_job: auto's cost model: ${NBRCOLL_MACHINE:-the built-in model of NBRCOLL_TOPO=$NBRCOLL_TOPO}"
run() {  # run NAME ARGS...: one benchmark on the emulated cluster
  local name=$1; shift
  echo "== $name: bench/cluster/run.sh ${cluster[*]} -- nbrcoll-bench $*" | tee "$out/$name.txt"
  "$here/cluster/run.sh" "${cluster[@]}" -- \
    "$bench" "$@" "${common[@]}" --csv "$out/$name.csv" \
    2> >(grep -v 'setpgid' >&2) | tee -a "$out/$name.txt"
}

start=$SECONDS
run rsg --pattern rsg --density 0.6 --sizes 1K,16K,256K,1M,2M,4M --algos native,linear,leader,aggregated,auto
run moore --pattern moore --dims 2 --radius 1 --sizes 1K,16K,256K,1M,2M --algos native,linear,leader,aggregated,auto

py=python3
/usr/bin/python3 -c 'import matplotlib' 2>/dev/null && py=/usr/bin/python3
if "$py" -c 'import matplotlib' 2>/dev/null; then
  "$py" "$here/plot.py" --out "$out" "$out/rsg.csv" "$out/moore.csv"
else
  echo "run_main_job: matplotlib not found (apt-get install python3-matplotlib): no charts" >&2
fi
echo "run_main_job: done in $((SECONDS - start)) s; results in $out"
