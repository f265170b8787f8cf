#!/usr/bin/env bash
# The pattern runs of bench/RESULTS.md "Patterns and the byte bound" (about
# 15 minutes on 2 cores): RSG at three densities, Moore r=1 and r=2, SpMM, and
# RSG on one host with emulated nodes.
#   bench/results/patterns/reproduce.sh [BUILD_DIR (default: build)]
# Writes bench/results/patterns/*.csv, *.txt and *_speedup.png. The SuiteSparse
# matrices delaunay_n10.mtx and crack.mtx are read from the folder in
# NBRCOLL_MATRICES; without them those SpMM cases are skipped with a message.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
bench=$build/bin/nbrcoll-bench
cluster=$root/bench/cluster/run.sh
export NBRCOLL_TOPO=frontier
unset NBRCOLL_RANKS_PER_NODE NBRCOLL_ALGO
cd "$here"
rm -f cluster_*.csv onehost_*.csv

c() {  # c NAME ARGS: 2 namespace nodes x 8 ranks, 1 Gbit/s links
  local name=$1; shift
  echo "== $name: bench/cluster/run.sh --nodes 2 --ranks-per-node 8 --rate 1gbit -- nbrcoll-bench $*" | tee -a "$name.txt"
  "$cluster" --nodes 2 --ranks-per-node 8 --rate 1gbit -- "$bench" "$@" --csv-append "$name.csv" 2>&1 \
    | grep -v setpgid | tee -a "$name.txt"
}
rm -f ./*.txt
for d in 0.2 0.4 0.6; do
  c cluster_rsg --pattern rsg --density $d --sizes 1K:4M --warmup 1 --iters 5
done
for r in 1 2; do
  c cluster_moore --pattern moore --dims 2 --radius $r --sizes 1K:2M --warmup 1 --iters 3
done
matrices=${NBRCOLL_MATRICES:-}
for m in gen:ccc:6 gen:debruijn:8 "$matrices/delaunay_n10.mtx" "$matrices/crack.mtx"; do
  if [[ $m != gen:* && ! -f $m ]]; then
    echo "reproduce.sh: skipping SpMM on $(basename "$m"): set NBRCOLL_MATRICES to a folder with it" >&2
    continue
  fi
  c cluster_spmm --pattern spmm --matrix "$m" --cols 8,64,512 --warmup 1 --iters 3
done
# The same RSG run on one host, nodes emulated (no network: shared memory only).
echo "== onehost_rsg: NBRCOLL_RANKS_PER_NODE=8 mpirun -np 16 nbrcoll-bench --pattern rsg --density 0.6 --sizes 1K:4M" | tee onehost_rsg.txt
NBRCOLL_RANKS_PER_NODE=8 mpirun --allow-run-as-root --oversubscribe -np 16 -x NBRCOLL_RANKS_PER_NODE -x NBRCOLL_TOPO \
  "$bench" --pattern rsg --density 0.6 --sizes 1K:4M --warmup 1 --iters 5 --csv onehost_rsg.csv | tee -a onehost_rsg.txt
py=python3
/usr/bin/python3 -c 'import matplotlib' 2>/dev/null && py=/usr/bin/python3
mkdir -p onehost
"$py" "$root/bench/plot.py" --out . --title "2 namespace nodes x 8 ranks, 1 Gbit/s links, NBRCOLL_TOPO=frontier" cluster_*.csv
"$py" "$root/bench/plot.py" --out onehost --title "one host, 2 emulated nodes x 8 ranks (shared memory only)" onehost_rsg.csv
