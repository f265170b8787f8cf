# Sourced by keep-ab.sh and dolfinx-ab.sh (from the repository root):
#   ab_runs RUNS EXTRACT CMD... -- LIB...
# runs CMD on emulated nodes (NODES x RPN from the environment, default
# 2 x 8, 1 Gbit/s) natively and then under each LIB preloaded, RUNS rounds
# of that alternation; each run's stdout goes through `EXTRACT MODE RUN`
# (MODE: native, lib1, lib2, ...). A LIB may carry more mpirun options
# after its path ("LIB -x NBRCOLL_ALGO=aggregated").
ab_runs() {
  local runs=$1 extract=$2
  shift 2
  local cmd=()
  while [[ $# -gt 0 && $1 != -- ]]; do
    cmd+=("$1")
    shift
  done
  shift
  local cluster=(bench/cluster/run.sh --nodes "${NODES:-2}" --ranks-per-node "${RPN:-8}" --rate 1gbit --)
  local r i lib
  for ((r = 1; r <= runs; r++)); do
    env -u LD_PRELOAD "${cluster[@]}" "${cmd[@]}" 2> /dev/null | "$extract" native "$r"
    i=0
    for lib in "$@"; do
      i=$((i + 1))
      NBRCOLL_CLUSTER_MPIRUN_ARGS="-x LD_PRELOAD=$lib" NBRCOLL_TOPO=frontier "${cluster[@]}" "${cmd[@]}" \
        2> /dev/null | "$extract" "lib$i" "$r"
    done
  done
}
