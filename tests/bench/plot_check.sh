#!/usr/bin/env bash
# plot_check.sh PYTHON PLOT_PY WORK_DIR
# bench/plot.py: rows of two MPIs make two lines (never one), rows of two
# ops two charts, the layout nbrcoll-bench writes now (with predicted_us and
# paired_vs_native) plots, CSVs of earlier versions (no op column; no run columns) still
# plot, and without matplotlib it says so in one clear line.
set -euo pipefail
py=$1 plot=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
head='pattern,params,procs,nodes,size_bytes,algo,median_us,min_us,max_us,speedup_vs_native'
run=',iters,node_kind,topology,mpi,mpi_version,nbrcoll_version'
# rows MPI_FIELDS ALGO [EXTRA]: native and ALGO (speed-up 2) at 1K and 2K,
# EXTRA appended to each row (the op column).
rows() {
  for size in 1024 2048; do
    for t in native,100.0,90.0,120.0,1.0000 "$2",50.0,40.0,60.0,2.0000; do
      echo "\"rsg\",\"density=0.6;seed=1\",16,2,$size,\"${t%%,*}\",${t#*,},10,\"real\",\"frontier\",$1,\"0.1.0\"${3:-}"
    done
  done
}
{
  echo "$head$run"
  for mpi in '"Open MPI","4.1.4"' '"MPICH","4.0.2"'; do rows "$mpi" leader; done
} >"$work/two.csv"
out=$("$py" "$plot" --list --out "$work" "$work/two.csv")
echo "$out"
grep -q 'leader density=0.6 seed=1 \[MPICH 4.0.2, real nodes, frontier\]: 2 points' <<<"$out"
grep -q 'leader density=0.6 seed=1 \[Open MPI 4.1.4, real nodes, frontier\]: 2 points' <<<"$out"
[[ $(grep -c ': 2 points' <<<"$out") == 2 ]]
[[ -s "$work/rsg_speedup.png" ]]

# The op column: each op a chart of its own, the pattern's own op keeps the old name.
{
  echo "$head$run,op"
  for op in neighbor_allgather ineighbor_alltoallv; do rows '"MPICH","4.0.2"' linear ",\"$op\""; done
} >"$work/ops.csv"
out=$("$py" "$plot" --list --out "$work/ops" "$work/ops.csv")
echo "$out"
grep -q '^rsg: 16 processes: linear density=0.6 seed=1 \[MPICH 4.0.2, real nodes, frontier\]: 2 points$' <<<"$out"
grep -q '^rsg_ineighbor_alltoallv: 16 processes: linear density=0.6 seed=1 \[MPICH 4.0.2, real nodes, frontier\]: 2 points$' <<<"$out"
[[ -s "$work/ops/rsg_speedup.png" && -s "$work/ops/rsg_ineighbor_alltoallv_speedup.png" ]]

# The cost model's prediction after the op, read and not plotted; then the
# paired speed-up, read and not plotted either; then the layout
# nbrcoll-bench writes now (tests/bench/csv_check.cmake), with the overlap
# columns last (empty on rows without a computation).
{
  echo "$head$run,op,predicted_us"
  rows '"Open MPI","4.1.4"' auto ',"neighbor_allgather",55.5'
} >"$work/predicted.csv"
{
  echo "$head$run,op,predicted_us,paired_vs_native"
  rows '"Open MPI","4.1.4"' auto ',"neighbor_allgather",55.5,1.9500'
} >"$work/paired.csv"
{
  echo "$head$run,op,predicted_us,paired_vs_native,compute_us,overlap_pct"
  rows '"Open MPI","4.1.4"' auto ',"neighbor_allgather",55.5,1.9500,,'
} >"$work/overlap.csv"
for f in predicted paired overlap; do
  out=$("$py" "$plot" --list --out "$work/$f" "$work/$f.csv")
  echo "$out"
  grep -q '^rsg: 16 processes: auto density=0.6 seed=1 \[Open MPI 4.1.4, real nodes, frontier\]: 2 points$' <<<"$out"
done

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
