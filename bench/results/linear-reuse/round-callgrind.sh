#!/bin/bash
# Instructions of each step of round.c's rounds (create, first call, second
# call, free) on rank 3 of NP ranks on one host (one node), under
# callgrind: the MPI's own (no library) and each library given (preloaded).
#   round-callgrind.sh [same|new] [LIB...]     env: NP (8)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
lists=${1:-same}; shift || true
np=${NP:-8}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpicc -O2 -g -w -o "$work/round" "$here/round.c"
for lib in none "$@"; do
  preload=(); [[ $lib != none ]] && preload=(-x LD_PRELOAD="$lib")
  mpirun -np "$np" --oversubscribe --allow-run-as-root "${preload[@]}" bash -c \
    "if [ \"\$OMPI_COMM_WORLD_RANK\" = 3 ]; then exec valgrind -q --tool=callgrind --callgrind-out-file=$work/cg.out \
      --toggle-collect=create --toggle-collect=first_call --toggle-collect=second_call --toggle-collect=destroy \
      '$work/round' $lists; else exec '$work/round' $lists; fi" >/dev/null 2>&1
  callgrind_annotate --inclusive=yes "$work/cg.out" 2>/dev/null | awk -v lib="$lib" '
    /round.c:(create|first_call|second_call|destroy) / && !/=>/ {
      n = $1; gsub(",", "", n); match($0, /round.c:[a-z_]+/); f = substr($0, RSTART + 8, RLENGTH - 8); v[f] = n / 30
    }
    END { printf "%s: create %.0f, first call %.0f, second call %.0f, free %.0f, round %.0f instructions\n", lib,
          v["create"], v["first_call"], v["second_call"], v["destroy"], v["create"] + v["first_call"] + v["second_call"] + v["destroy"] }'
done
