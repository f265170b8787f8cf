#!/usr/bin/env bash
# Instructions per round of a short-lived graph (round.c: create, two
# 1 KiB MPI_Neighbor_alltoallv, free) on 8 ranks of this host, rank 3 under
# callgrind: natively, then under each library given. Per step, inclusive
# instructions divided by the rounds; the calls include the MPI's polling
# while waiting, which varies from run to run by a few hundred (creation
# too: the MPI's context-id agreement, up to about 1.5K). "own create":
# nbrcoll's part of a creation alone (its wrapper less the MPI's creation
# inside it), which does not vary.
#   run.sh [LIB...]     env: NP (8), ROUNDS (30)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
np="${NP:-8}" rounds="${ROUNDS:-30}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mpicc -O2 -g -w -o "$work/round" "$here/round.c"
printf "%-40s %10s %10s %10s %10s %10s %10s\n" library create "call 1" "call 2" free round "own create"
for lib in native "$@"; do
  preload=()
  [[ $lib == native ]] || preload=(-x LD_PRELOAD="$(realpath "$lib")")
  mpirun --oversubscribe --allow-run-as-root -np "$np" "${preload[@]}" \
    bash -c "if [ \"\$OMPI_COMM_WORLD_RANK\" = 3 ]; then exec valgrind -q --tool=callgrind \
      --callgrind-out-file=$work/cg.out '$work/round' $rounds; else exec '$work/round' $rounds; fi"
  # The four calls main makes, in order, as callgrind_annotate lists them
  # under round.c's source lines ("=> file:function (Nx)").
  callgrind_annotate --inclusive=yes --threshold=100 "$work/cg.out" 2>/dev/null |
    awk -v n="$rounds" -v lib="$lib" '
      function count(x) { gsub(",", "", x); return x / n }
      # The own part of nbrcoll in a creation: its wrapper less the
      # creation of the MPI inside it (which holds its polling, the noisy part).
      /src\/entry\/graph_create.cpp:MPI_Dist_graph_create_adjacent / && !wrapper { wrapper = count($1) }
      /\?\?\?:PMPI_Dist_graph_create_adjacent / && !inner { inner = count($1) }
      /^-- Auto-annotated source:/ { here = index($0, "round.c") > 0 }
      here && /=> .*(MPI_Dist_graph_create_adjacent|MPI_Neighbor_alltoallv|MPI_Comm_free) \(/ && index($0, "(" n "x)") {
        v[k++] = count($1) }
      END { if (k < 4) exit 1
            printf "%-40s %10.0f %10.0f %10.0f %10.0f %10.0f %10.0f\n", lib, v[0], v[1], v[2], v[3], v[0] + v[1] + v[2] + v[3],
                   (wrapper > 0 ? wrapper - inner : 0) }'
done
