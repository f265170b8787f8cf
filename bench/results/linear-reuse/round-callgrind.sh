#!/bin/bash
# Instructions of each step of round.c's rounds (create, first call, second
# call, free) on rank 3 of NP ranks on one host (one node), under
# callgrind: the MPI's own (no library) and each library given (preloaded).
#   round-callgrind.sh [same|new] [LIB...]     env: NP (8), WARM (0), RPN
# WARM=1 counts rounds 2 to 29 only (round.c, warm_rounds): without what
# the first rounds pay once (the MPI's and nbrcoll's first graph, loading).
# RPN=8: the ranks as emulated nodes of 8 (NBRCOLL_RANKS_PER_NODE, Frontier
# topology): auto's full set-up across nodes, on one host.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
lists=${1:-same}; shift || true
np=${NP:-8}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpicc -O2 -g -w -o "$work/round" "$here/round.c"
toggles="--toggle-collect=create --toggle-collect=first_call --toggle-collect=second_call --toggle-collect=destroy"
rounds=30
if [[ ${WARM:-0} == 1 ]]; then toggles="--toggle-collect=warm_rounds"; rounds=28; fi
for lib in none "$@"; do
  preload=(); [[ $lib != none ]] && preload=(-x LD_PRELOAD="$lib")
  [[ -n ${RPN:-} ]] && preload+=(-x NBRCOLL_RANKS_PER_NODE="$RPN" -x NBRCOLL_TOPO=frontier)
  mpirun -np "$np" --oversubscribe --allow-run-as-root "${preload[@]}" bash -c \
    "if [ \"\$OMPI_COMM_WORLD_RANK\" = 3 ]; then exec valgrind -q --tool=callgrind --callgrind-out-file=$work/cg.out \
      $toggles \
      '$work/round' $lists; else exec '$work/round' $lists; fi" >/dev/null 2>&1
  callgrind_annotate --inclusive=yes "$work/cg.out" 2>/dev/null | awk -v lib="$lib" -v rounds="$rounds" '
    /round.c:(create|first_call|second_call|destroy) / && !/=>/ {
      n = $1; gsub(",", "", n); match($0, /round.c:[a-z_]+/); f = substr($0, RSTART + 8, RLENGTH - 8); v[f] = n / rounds
    }
    END { printf "%s: create %.0f, first call %.0f, second call %.0f, free %.0f, round %.0f instructions\n", lib,
          v["create"], v["first_call"], v["second_call"], v["destroy"], v["create"] + v["first_call"] + v["second_call"] + v["destroy"] }'
done
