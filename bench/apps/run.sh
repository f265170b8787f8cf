#!/usr/bin/env bash
# Real applications as the yardstick (issue 29 item 4): DOLFINx's mesh and
# function-space set-up and vector scatter (dolfinx_setup.py) and PETSc's SF
# set-up, scatter, MatMult (the scatter overlaps the local product there)
# and VecNorm (an MPI_Allreduce nbrcoll never takes: a control for the
# machine's drift) with -sf_type neighbor (KSP ex2, tests/petsc), each run
# unchanged on the emulated cluster (bench/cluster/run.sh: network
# namespaces, needs root), without and with libnbrcoll preloaded, the two
# alternating run by run so that the machine's drift hits both alike.
# Prints per phase the median and range (min-max) over the runs of each
# mode and the median of the per-run ratios native / nbrcoll (above 1:
# nbrcoll faster). The runs with nbrcoll log at NBRCOLL_DEBUG's level
# (default warn: nothing); one more run per part, untimed, at info says
# which calls nbrcoll took (none fails the script). A part whose software
# is absent (python3-dolfinx, PETSc in the build) is skipped with one line
# saying so.
#
#   bench/apps/run.sh [--build DIR] [--runs R] [--nodes N] [--ranks-per-node K]
#                     [--rate 1gbit] [--cells C] [--only dolfinx|petsc|ex45] [-- EX2 OPTIONS...]
#
# ex45: PETSc's KSP ex45 (a 3-D Laplacian on a DMDA, 33^3, multigrid of 3
# levels: ghost updates on every level, some scatters one-sided), the
# scatter per call and KSPSolve, both with -sf_type neighbor.
#
# Defaults: build/, 5 runs, 2 nodes x 8 ranks, 1gbit, a 16^3 cube, ex2 with
# -m 128 -n 1024 -ksp_max_it 50 (8 KiB halo messages). Logs and per-run
# times: DIR/bench-results/apps/.
set -euo pipefail
cd "$(dirname "$0")/../.."

build=build runs=5 nodes=2 per_node=8 rate=1gbit cells=16 only=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --nodes) nodes=$2; shift 2 ;;
    --ranks-per-node) per_node=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --cells) cells=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "bench/apps/run.sh: unknown option '$1'" >&2; sed -n '18,19p' "$0" >&2; exit 2 ;;
  esac
done
ex2_args=("$@")
[[ ${#ex2_args[@]} -gt 0 ]] || ex2_args=(-m 128 -n 1024 -ksp_max_it 50)
lib=$(realpath "$build/lib/libnbrcoll.so")
[[ -f $lib ]] || { echo "bench/apps/run.sh: no $lib (scripts/build.sh)" >&2; exit 2; }
out="$build/bench-results/apps"
mkdir -p "$out"
cluster=(bench/cluster/run.sh --nodes "$nodes" --ranks-per-node "$per_node" --rate "$rate" --)

# alternate NAME EXTRACT CMD...: R runs of CMD per mode; EXTRACT turns a
# run's stdout into "phase seconds" lines (DIR/NAME.MODE.R.times).
alternate() {
  local name=$1 extract=$2
  shift 2
  for ((r = 1; r <= runs; ++r)); do
    for mode in native nbrcoll; do
      local log="$out/$name.$mode.$r"
      echo "$name run $r/$runs: $mode" >&2
      if [[ $mode == native ]]; then
        env -u LD_PRELOAD "${cluster[@]}" "$@" > "$log.out" 2> "$log.err"
      else
        preloaded "${NBRCOLL_DEBUG:-warn}" "$@" > "$log.out" 2> "$log.err"
      fi
      "$extract" "$log.out" > "$log.times" ||
        { echo "bench/apps/run.sh: no times in $log.out (see $log.err)" >&2; exit 1; }
    done
  done
  /usr/bin/python3 bench/apps/summarize.py "$out" "$name" "$runs"
  # One more run, untimed, at NBRCOLL_DEBUG=info: which calls nbrcoll took
  # (the timed runs print nothing, as a user's would: info's line per graph
  # and rank made DOLFINx's function-space set-up about a fifth slower here,
  # measured 2026-11-27, 9114afd).
  preloaded info "$@" > "$out/$name.info.out" 2> "$out/$name.info.err"
  local took
  took=$(sed -n 's/^\[nbrcoll 0\] info: nbrcoll takes \(MPI_[A-Za-z_]*\)$/\1/p' "$out/$name.info.err" | sort -u | tr '\n' ' ')
  [[ -n $took ]] || { echo "bench/apps/run.sh: nbrcoll took no call of $name (see $out/$name.info.err)" >&2; exit 1; }
  echo "nbrcoll took on rank 0: $took"
}

# preloaded LEVEL CMD...: CMD on the cluster with libnbrcoll preloaded.
preloaded() {
  local level=$1
  shift
  NBRCOLL_CLUSTER_MPIRUN_ARGS="-x LD_PRELOAD=$lib" NBRCOLL_ALGO="${NBRCOLL_ALGO:-auto}" \
    NBRCOLL_TOPO="${NBRCOLL_TOPO:-frontier}" NBRCOLL_DEBUG="$level" "${cluster[@]}" "$@"
}

dolfinx_times() { grep -E '^[a-z_0-9]+ [0-9.e+-]+$' "$1"; }
# -log_view, Max column (max over ranks): SFSetUp (once); per call, scatter
# (VecScatterBegin + VecScatterEnd: one MPI_Ineighbor_alltoallv and its
# wait), MatMult and VecNorm.
# ex45 -log_view: scatter per call, KSPSolve (once), MatMult per call.
ex45_times() {
  awk '$1 == "VecScatterBegin" && !b { c = $2; b = $4 }
       $1 == "VecScatterEnd" && !e { e = $4 }
       $1 == "KSPSolve" && !k { k = $4 }
       $1 == "MatMult" && !m { mc = $2; m = $4 }
       END { if (!c || !k || !mc) exit 1
             printf "scatter %.9f\nkspsolve %.9f\nmatmult %.9f\n", (b + e) / c, k, m / mc }' "$1"
}
petsc_times() {
  awk '$1 == "SFSetUp" && !s { s = $4 }
       $1 == "VecScatterBegin" && !b { c = $2; b = $4 }
       $1 == "VecScatterEnd" && !e { e = $4 }
       $1 == "MatMult" && !m { mc = $2; m = $4 }
       $1 == "VecNorm" && !n { nc = $2; n = $4 }
       END { if (!c || !s || !mc || !nc) exit 1
             printf "sf_setup %.9f\nscatter %.9f\nmatmult %.9f\nvecnorm %.9f\n", s, (b + e) / c, m / mc, n / nc }' "$1"
}

echo "# $nodes nodes x $per_node ranks, $rate; $runs runs per mode, alternating"
if [[ -z $only || $only == dolfinx ]]; then
  if /usr/bin/python3 -c 'import dolfinx' 2> /dev/null; then
    echo "## DOLFINx $(/usr/bin/python3 -c 'import dolfinx; print(dolfinx.__version__)'): unit cube ${cells}^3, P1 and P2"
    alternate dolfinx dolfinx_times /usr/bin/python3 "$PWD/bench/apps/dolfinx_setup.py" --cells "$cells"
  else
    echo "## DOLFINx: skipped (python3-dolfinx is not installed: apt-get install python3-dolfinx)"
  fi
fi
if [[ -z $only || $only == petsc ]]; then
  if nice -n 10 cmake --build "$build" --target petsc_ksp_ex2 -j2 > /dev/null 2>&1; then
    echo "## PETSc KSP ex2 ${ex2_args[*]} -sf_type neighbor"
    alternate petsc petsc_times "$(realpath "$build/bin/petsc_ksp_ex2")" "${ex2_args[@]}" -sf_type neighbor -log_view
  else
    echo "## PETSc: skipped (no petsc_ksp_ex2 in $build: scripts/install-deps.sh --petsc, then reconfigure)"
  fi
fi
if [[ -z $only || $only == ex45 ]]; then
  ex45_args=(-da_grid_x 33 -da_grid_y 33 -da_grid_z 33 -pc_type mg -pc_mg_levels 3 -mg_levels_ksp_type richardson
    -mg_levels_pc_type jacobi)
  if nice -n 10 cmake --build "$build" --target petsc_ksp_ex45 -j2 > /dev/null 2>&1; then
    echo "## PETSc KSP ex45 ${ex45_args[*]} -sf_type neighbor"
    alternate ex45 ex45_times "$(realpath "$build/bin/petsc_ksp_ex45")" "${ex45_args[@]}" -sf_type neighbor -log_view
  else
    echo "## PETSc KSP ex45: skipped (no petsc_ksp_ex45 in $build: scripts/install-deps.sh --petsc, then reconfigure)"
  fi
fi
