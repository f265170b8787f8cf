#!/usr/bin/env bash
# Counts the bytes each algorithm sends between (emulated) nodes for one
# nbrcoll-bench call, measured by Open MPI's pml monitoring component (not by
# nbrcoll's own counters). Prints MiB sent across nodes and within nodes.
#
#   bench/cluster/internode_bytes.sh BUILD_DIR NP RANKS_PER_NODE [bench args...]
# e.g. bench/cluster/internode_bytes.sh build 16 8 --pattern rsg --density 0.6 --sizes 1M
#
# The counts include the benchmark's own small setup and timing messages,
# the same for every algorithm.
set -euo pipefail
build=$1 np=$2 per_node=$3
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root_flag=()
[[ $(id -u) -eq 0 ]] && root_flag=(--allow-run-as-root)
for algo in linear leader; do
  NBRCOLL_RANKS_PER_NODE=$per_node NBRCOLL_TOPO=${NBRCOLL_TOPO:-frontier} OMPI_MCA_btl=self,vader \
    OMPI_MCA_mpi_yield_when_idle=1 mpirun "${root_flag[@]}" --oversubscribe -np "$np" \
    -x NBRCOLL_RANKS_PER_NODE -x NBRCOLL_TOPO \
    --mca pml_monitoring_enable 1 --mca pml_monitoring_enable_output 3 \
    --mca pml_monitoring_filename "$work/$algo" \
    "$build/bin/nbrcoll-bench" --algos "$algo" --warmup 0 --iters 1 --create-reps 1 --no-validate "$@" >/dev/null
  cat "$work/$algo".*.prof | awk -v algo="$algo" -v k="$per_node" '
    $1 == "E" { if (int($2 / k) != int($3 / k)) inter += $4; else intra += $4 }
    END { printf "%-7s inter-node %8.1f MiB   intra-node %8.1f MiB\n", algo, inter / 1048576, intra / 1048576 }'
done
