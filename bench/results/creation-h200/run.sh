#!/usr/bin/env bash
# Graph creation (issue 29 items 2-3) and nonblocking/persistent calls
# (item 5) on one host with 16 cores: the GPU machine's CPUs, through the
# offline kit (scripts/gpu-kit.sh packs nbrcoll-bench with Open MPI).
#   here:            scripts/gpu-kit.sh --build-dir build --no-build --out gpu-kit
#   on that machine: bash bench/results/creation-h200/run.sh gpu-kit OUT
set -uo pipefail
kit="$1"
out="$2"
mkdir -p "$out"
run() {  # name np env... -- bench args
  local name="$1" np="$2"
  shift 2
  local env=()
  while [[ "$1" != "--" ]]; do env+=("$1"); shift; done
  shift
  echo "== $name: np=$np ${env[*]} nbrcoll-bench $*" | tee -a "$out/log.txt"
  env "${env[@]}" timeout 100 bash "$kit/gpu-run.sh" --mpirun "$np" nbrcoll-bench "$@" --csv "$out/$name.csv" \
    > "$out/$name.txt" 2>> "$out/log.txt"
  echo "exit $?" >> "$out/log.txt"
}
# A DOLFINx-like graph: every rank sends to the next 3 and receives from the previous 3.
for np in 8 16; do
  for i in $(seq 0 $((np - 1))); do for d in 1 2 3; do echo "$i $(((i + d) % np))"; done; done > "$out/ring3-$np.txt"
done
common=(--sizes 1K --iters 20 --create-reps 31 --algos linear,auto)
for np in 8 16; do
  run "create-ring3-np$np" "$np" X=1 -- --pattern file --graph "$out/ring3-$np.txt" --op alltoallv "${common[@]}"
  run "create-moore-np$np" "$np" X=1 -- --pattern moore --dims 2 --radius 1 --op alltoallv "${common[@]}"
  run "create-rsg-np$np" "$np" X=1 -- --pattern rsg --density 0.3 --op allgather "${common[@]}"
done
# Two emulated nodes of 8: auto's full set-up (node lists, every planner, the agreement).
run "create-moore-np16-2nodes" 16 NBRCOLL_RANKS_PER_NODE=8 -- --pattern moore --dims 2 --radius 1 --op alltoallv "${common[@]}"
run "create-rsg-np16-2nodes" 16 NBRCOLL_RANKS_PER_NODE=8 -- --pattern rsg --density 0.3 --op allgather "${common[@]}"
# Nonblocking alltoallv, 1-64 KiB, the MPI's own vs linear vs auto (the
# kit's Open MPI 4.1 has no persistent neighbourhood collectives).
for np in 8 16; do
  run "nonblocking-moore-np$np" "$np" X=1 -- --pattern moore --dims 2 --radius 1 --op alltoallv --nonblocking \
    --sizes 1K:64K --iters 200 --warmup 20 --create-reps 1 --algos native,linear,auto
done
