#!/usr/bin/env bash
# Instructions per call of nbrcoll's path, besides the MPI's own completion
# calls: bench/percall/loop.c on NP ranks (emulated nodes of RPN ranks), rank 3
# under callgrind, collecting only inside the entry point (and, for the
# nonblocking kind, inside MPI_Wait). Prints one line per library given:
# instructions a call besides the MPI's completion calls (the MPI's own
# posting varies with timing), those outside the MPI, and those in
# nbrcoll's own functions (these two repeat exactly for the linear plan).
# Plans that forward (leader, aggregated) wait in rounds whose number
# depends on timing: their counts vary from run to run.
#   callgrind.sh LIB [LIB...]     env: KIND (allgather), BYTES (1024), CALLS (500),
#                                 ALGO (linear), NP (16), RPN (8),
#                                 NBRCOLL_PROGRESS (passed on where set)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
kind="${KIND:-allgather}" bytes="${BYTES:-1024}" calls="${CALLS:-500}" algo="${ALGO:-linear}"
np="${NP:-16}" rpn="${RPN:-8}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mpicc -O2 -o "$work/loop" "$here/loop.c"
case "$kind" in
  allgather) entry='MPI_Neighbor_allgather' ;;
  alltoallv) entry='MPI_Neighbor_alltoallv' ;;
  ineighbor_alltoallv) entry='MPI_Ineighbor_alltoallv' ;;
  ineighbor_allgather) entry='MPI_Ineighbor_allgather' ;;
  *) echo "callgrind.sh: unknown KIND $kind" >&2; exit 2 ;;
esac
for lib in "$@"; do
  out="$work/cg.out"
  rm -f "$out"
  mpirun --oversubscribe --allow-run-as-root -np "$np" -x LD_PRELOAD="$lib" -x NBRCOLL_ALGO="$algo" \
    -x NBRCOLL_RANKS_PER_NODE="$rpn" -x NBRCOLL_TOPO=frontier ${NBRCOLL_PROGRESS:+-x NBRCOLL_PROGRESS} \
    bash -c "if [ \"\$OMPI_COMM_WORLD_RANK\" = 3 ]; then exec valgrind -q --tool=callgrind --callgrind-out-file=$out \
      --toggle-collect='$entry' --toggle-collect='MPI_Wait' '$work/loop' $kind $bytes $calls; \
      else exec '$work/loop' $kind $bytes $calls; fi"
  # Inclusive costs, the largest line per function (callgrind_annotate names
  # a function once per source path): the entry point (and MPI_Wait), the
  # MPI's completion calls inside them, and every PMPI_ call inside them.
  callgrind_annotate --inclusive=yes --threshold=100 "$out" 2>/dev/null | awk -v calls="$calls" -v lib="$lib" '
    /^ *[0-9,]+ \([ 0-9.]+%\) / {
      n = $1; gsub(",", "", n); name = $3; sub(/^.*:/, "", name)
      if (!(name in best) || n + 0 > best[name]) best[name] = n + 0
    }
    END {
      total = best["MPI_Neighbor_allgather"] + best["MPI_Neighbor_alltoallv"] + best["MPI_Ineighbor_alltoallv"] + best["MPI_Wait"]
      for (f in best) {
        if (f ~ /^PMPI_(Waitall|Waitsome|Testsome|Testall|Wait|Test|Waitany)$/) done += best[f]
        if (f ~ /^PMPI_/) mpi += best[f]
      }
      printf "%s: %.0f instructions a call besides the completion calls; %.0f of them outside the MPI; ", lib, (total - done) / calls, (total - mpi) / calls
    }'
  # nbrcoll's own code: every function (inlined parts included) of its
  # namespace and its entry points, exclusive.
  callgrind_annotate --auto=no --threshold=100 "$out" 2>/dev/null | grep -v "=>" | grep -E "nbrcoll::|:MPI_" |
    awk -v calls="$calls" '{ gsub(",", "", $1); own += $1 } END { printf "%.0f in nbrcoll'"'"'s own functions\n", own / calls }'
done
