#!/usr/bin/env bash
# plot_check.sh PYTHON PLOT_PY WORK_DIR
# bench/plot.py: rows of two MPIs make two lines (never one), a CSV of an
# earlier version (no run columns) still plots, and without matplotlib it
# says so in one clear line.
set -euo pipefail
py=$1 plot=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
head='pattern,params,procs,nodes,size_bytes,algo,median_us,min_us,max_us,speedup_vs_native'
run=',iters,node_kind,topology,mpi,mpi_version,nbrcoll_version'
{
  echo "$head$run"
  for mpi in '"Open MPI","4.1.4"' '"MPICH","4.0.2"'; do
    for size in 1024 2048; do
      echo "\"rsg\",\"density=0.6;seed=1\",16,2,$size,\"native\",100.0,90.0,120.0,1.0000,10,\"real\",\"frontier\",$mpi,\"0.1.0\""
      echo "\"rsg\",\"density=0.6;seed=1\",16,2,$size,\"leader\",50.0,40.0,60.0,2.0000,10,\"real\",\"frontier\",$mpi,\"0.1.0\""
    done
  done
} >"$work/two.csv"
out=$("$py" "$plot" --list --out "$work" "$work/two.csv")
echo "$out"
grep -q 'leader density=0.6 seed=1 \[MPICH 4.0.2, real nodes, frontier\]: 2 points' <<<"$out"
grep -q 'leader density=0.6 seed=1 \[Open MPI 4.1.4, real nodes, frontier\]: 2 points' <<<"$out"
[[ $(grep -c ': 2 points' <<<"$out") == 2 ]]
[[ -s "$work/rsg_speedup.png" ]]

# An earlier version's file: no run columns, unquoted.
{
  echo "$head"
  echo "rsg,density=0.6;seed=1,16,2,1024,native,100.0,90.0,120.0,1.0000"
  echo "rsg,density=0.6;seed=1,16,2,1024,leader,50.0,40.0,60.0,2.0000"
} >"$work/old.csv"
out=$("$py" "$plot" --list --out "$work/old" "$work/old.csv")
grep -q '^rsg: 16 processes: leader density=0.6 seed=1: 1 points$' <<<"$out"

# No matplotlib: one line naming it, non-zero exit.
mkdir -p "$work/nompl/matplotlib"
echo 'raise ImportError("No module named matplotlib (stand-in)")' >"$work/nompl/matplotlib/__init__.py"
if PYTHONPATH="$work/nompl" "$py" "$plot" --out "$work" "$work/two.csv" 2>"$work/err"; then
  echo "FAIL: plot.py succeeded without matplotlib"
  exit 1
fi
cat "$work/err"
[[ $(wc -l <"$work/err") == 1 ]] && grep -q 'plot.py: matplotlib is needed' "$work/err"
echo "plot_check: ok"
