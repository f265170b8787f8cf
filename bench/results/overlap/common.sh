# Sourced by run.sh and progress.sh: the overlap benchmark's exchange (Moore
# 2-D r=1 MPI_Ineighbor_allgather at 4-64 KiB, every plan beside the MPI's
# own, computation as long as the MPI's own exchange between start and
# wait) on 2 emulated nodes x 2 at 1 Gbit/s (bench/cluster/run.sh: network
# namespaces, root). Leaves the shell in the repository root; O: where the
# tables go (OUT, else this folder).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here/../../.."
O=${OUT:-$here}
mkdir -p "$O"
# overlap_2x2 KIND [NBRCOLL_* settings...]: one run's timing and overlap
# tables, without the progress lines, on stdout. BUILD: the build folder
# whose nbrcoll-bench runs (build); RPN: ranks on each of the 2 nodes (2);
# ALGOS: the plans beside native (linear,leader,aggregated).
overlap_2x2() {
  local kind=$1
  shift
  env "$@" NBRCOLL_TOPO=frontier timeout 1200 bench/cluster/run.sh --nodes 2 --ranks-per-node "${RPN:-2}" \
    --rate 1gbit -- "${BUILD:-$PWD/build}/bin/nbrcoll-bench" --pattern moore --dims 2 --radius 1 --nonblocking \
    --sizes 4K,16K,64K --algos "native,${ALGOS:-linear,leader,aggregated}" --compute native --compute-kind "$kind" --warmup 5 \
    --iters "${ITERS:-31}" --create-reps 0 |
    grep -v 'done (' | sed -n '1,/^# Cost model/p' | grep -v '^# Cost model'
}
# alternate_builds OLD NEW FN: FN NAME DIR PAIR for PAIRS pairs (3) of the
# two build folders, one run of each a pair, the order flipped every pair
# (NAME old or new).
alternate_builds() {
  local old new fn=$3 p b dir order
  old=$(cd "$1" && pwd)
  new=$(cd "$2" && pwd)
  for ((p = 0; p < ${PAIRS:-3}; p++)); do
    order=(old new)
    ((p % 2)) && order=(new old)
    for b in "${order[@]}"; do
      dir=$old
      [[ $b == new ]] && dir=$new
      "$fn" "$b" "$dir" "$p"
    done
  done
}
