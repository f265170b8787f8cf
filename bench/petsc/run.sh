#!/usr/bin/env bash
# PETSc's KSP tutorial ex2 (the program tests/petsc builds), unchanged, on the
# emulated cluster (bench/cluster/run.sh): native vs libnbrcoll preloaded.
# Prints, median over the runs, the time per ghost-value scatter
# (VecScatterBegin + VecScatterEnd, max over ranks, from -log_view: with
# -sf_type neighbor each is one MPI_Ineighbor_alltoallv and its wait) and per
# MatMult (the scatter overlaps the local product there), and per VecNorm
# (an MPI_Allreduce nbrcoll never takes: a control for the machine's drift).
#
#   bench/petsc/run.sh [--build DIR] [--runs R] [--nodes N] [--ranks-per-node K]
#                      [--rate 1gbit] [-- EX2 OPTIONS...]
#
# Defaults: build/, 3 runs, 2 nodes x 8 ranks, 1gbit, and
# -m 128 -n 8192 -ksp_max_it 50: rows are grid lines of 8192 points, so each
# halo message is 64 KiB (above auto's 32K threshold). NBRCOLL_ALGO (auto) and
# NBRCOLL_TOPO (frontier) are passed to the nbrcoll runs. Needs PETSc
# (scripts/install-deps.sh --petsc) seen by CMake in DIR. Logs go to
# DIR/bench-results/petsc/.
set -euo pipefail
cd "$(dirname "$0")/../.."

build=build runs=3 nodes=2 per_node=8 rate=1gbit
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --nodes) nodes=$2; shift 2 ;;
    --ranks-per-node) per_node=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "bench/petsc/run.sh: unknown option '$1'" >&2; sed -n '10,11p' "$0" >&2; exit 2 ;;
  esac
done
args=("$@")
[[ ${#args[@]} -gt 0 ]] || args=(-m 128 -n 8192 -ksp_max_it 50)
args+=(-sf_type neighbor -log_view)

[[ -f "$build/CMakeCache.txt" ]] || { echo "bench/petsc/run.sh: no build in '$build' (scripts/build.sh)" >&2; exit 2; }
nice -n 10 cmake --build "$build" --target nbrcoll petsc_ksp_ex2 -j2 >/dev/null || {
  echo "bench/petsc/run.sh: cannot build petsc_ksp_ex2: is PETSc installed (scripts/install-deps.sh --petsc)" \
       "and was '$build' configured after that?" >&2
  exit 2
}
ex2=$(realpath "$build/bin/petsc_ksp_ex2")
lib=$(realpath "$build/lib/libnbrcoll.so")
out="$build/bench-results/petsc"
mkdir -p "$out"
rm -f "$out"/native.* "$out"/nbrcoll.*
cluster=(bench/cluster/run.sh --nodes "$nodes" --ranks-per-node "$per_node" --rate "$rate" --)

# One -log_view: "scatter_s matmult_s vecnorm_s" per call, Max column (max over ranks).
per_call() {
  awk '$1 == "VecScatterBegin" && !b { c = $2; b = $4 }
       $1 == "VecScatterEnd" && !e { e = $4 }
       $1 == "MatMult" && !m { mc = $2; m = $4 }
       $1 == "VecNorm" && !n { nc = $2; n = $4 }
       END { if (!c || !mc || !nc) exit 1; printf "%.9f %.9f %.9f\n", (b + e) / c, m / mc, n / nc }' "$1"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for ((r = 1; r <= runs; ++r)); do
  # Alternate the modes so that drift on a shared machine hits both alike.
  for mode in native nbrcoll; do
    log="$out/$mode.$r"
    echo "run $r/$runs: $mode" >&2
    if [[ $mode == native ]]; then
      env -u LD_PRELOAD "${cluster[@]}" "$ex2" "${args[@]}" > "$log.out" 2> "$log.err"
    else
      NBRCOLL_CLUSTER_MPIRUN_ARGS="-x LD_PRELOAD=$lib" NBRCOLL_DEBUG=info \
        NBRCOLL_ALGO="${NBRCOLL_ALGO:-auto}" NBRCOLL_TOPO="${NBRCOLL_TOPO:-frontier}" \
        "${cluster[@]}" "$ex2" "${args[@]}" > "$log.out" 2> "$log.err"
    fi
    per_call "$log.out" > "$log.times" ||
      { echo "bench/petsc/run.sh: no VecScatter/MatMult/VecNorm events in $log.out" >&2; exit 1; }
  done
done

echo "PETSc KSP ex2 ${args[*]}; $nodes nodes x $per_node ranks, $rate; median of $runs runs"
echo "(us per call, max over ranks; 'graphs': nbrcoll plan summaries; 'takes': its 'nbrcoll takes' lines for a neighbor alltoallv)"
# Median over the runs of column $2 of the mode's .times files, in us.
column_us() { for ((r = 1; r <= runs; ++r)); do awk -v k="$2" '{ print $k * 1e6 }' "$out/$1.$r.times"; done | median; }
printf '%-8s %12s %12s %12s %8s %8s\n' mode scatter_us matmult_us vecnorm_us graphs takes
for mode in native nbrcoll; do
  g=$(cat "$out/$mode".*.err | grep -c '\] info: graph: ' || true)
  t=$(cat "$out/$mode".*.err | grep -Ec 'nbrcoll takes MPI_I?[Nn]eighbor_alltoallv' || true)
  printf '%-8s %12.1f %12.1f %12.1f %8s %8s\n' "$mode" "$(column_us $mode 1)" "$(column_us $mode 2)" \
    "$(column_us $mode 3)" "$g" "$t"
done
