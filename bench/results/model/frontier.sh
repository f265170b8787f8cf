#!/usr/bin/env bash
# nbrcoll-model on Frontier (node model frontier, built-in machine frontier)
# at 16, 64, 256 and 1024 nodes x 8 ranks: RSG (16 neighbours per rank),
# Moore 2-D and 3-D radius 1 (halo), the SpMM graph of luxembourg_osm;
# allgather and alltoall; 1K, 16K, 256K, 4M per block. Writes NAME_OP.txt
# and NAME_OP.csv next to this script. Usage: frontier.sh [BUILD_DIR=build]
# luxembourg_osm.mtx (SuiteSparse, DIMACS10) is read from the folder in
# NBRCOLL_MATRICES; without it that case is skipped with a message.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
model="${1:-$root/build}/bin/nbrcoll-model"
matrices="${NBRCOLL_MATRICES:-}"
common=(--node frontier --machine frontier --nodes 16,64,256,1024 --ranks-per-node 8 --sizes 1K,16K,256K,4M)
for op in allgather alltoall; do
  for case in "rsg16:--pattern rsg --degree 16 --seed 1" \
              "moore2d:--pattern moore --dims 2 --radius 1" \
              "moore3d:--pattern moore --dims 3 --radius 1" \
              "luxembourg_osm:--pattern matrix --matrix $matrices/luxembourg_osm.mtx"; do
    name="${case%%:*}"
    if [[ $name == luxembourg_osm && ! -f $matrices/luxembourg_osm.mtx ]]; then
      echo "frontier.sh: skipping luxembourg_osm ($op): set NBRCOLL_MATRICES to a folder with luxembourg_osm.mtx" >&2
      continue
    fi
    read -r -a args <<<"${case#*:}"
    "$model" "${common[@]}" "${args[@]}" --op "$op" --csv "$here/${name}_${op}.csv" >"$here/${name}_${op}.txt"
  done
done
