#!/bin/bash
# Instructions of one nonblocking alltoallv + wait (nb.c) on rank 3 of NP
# ranks on one host, under callgrind: the MPI's own (Open MPI's libnbc) and
# each library given, preloaded (auto: linear on one node).
#   nb-callgrind.sh [LIB...]     env: NP (8)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
np=${NP:-8}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpicc -O2 -g -w -o "$work/nb" "$here/nb.c"
for lib in none "$@"; do
  preload=(); [[ $lib != none ]] && preload=(-x LD_PRELOAD="$lib")
  mpirun -np "$np" --oversubscribe --allow-run-as-root "${preload[@]}" bash -c \
    "if [ \"\$OMPI_COMM_WORLD_RANK\" = 3 ]; then exec valgrind -q --tool=callgrind --callgrind-out-file=$work/cg.out \
      --toggle-collect=warm_calls '$work/nb'; else exec '$work/nb'; fi" > /dev/null 2>&1
  callgrind_annotate --inclusive=yes "$work/cg.out" 2>/dev/null | awk -v lib="$lib" '
    /nb.c:warm_calls / && !/=>/ { n = $1; gsub(",", "", n); printf "%s: %.0f instructions a call\n", lib, n / 200 }'
done
