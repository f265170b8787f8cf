#!/usr/bin/env bash
# An unchanged MPI application, run twice under Open MPI's launcher: plain,
# then with libnbrcoll preloaded at NBRCOLL_DEBUG=info. Fails unless
#   - both runs exit 0 and print the same stdout, which matches --expect,
#   - every rank's nbrcoll set up a graph communicator (its plan summary line),
#   - nbrcoll took at least one neighbor alltoallv call ("nbrcoll takes MPI_...").
# Outputs stay in the working directory (plain.out, nbrcoll.out, nbrcoll.err).
#
#   compare_preload.sh --mpiexec PATH --np N [--flag F]... --lib LIBNBRCOLL
#                      --expect REGEX [--env NAME=VALUE]... -- PROGRAM ARGS...
#   compare_preload.sh --unavailable REASON     (prints SKIP, exits 77)
set -euo pipefail

mpiexec="" np="" lib="" expect=""
flags=() env=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --unavailable) echo "SKIP: $2"; exit 77 ;;
    --mpiexec) mpiexec=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    --flag) flags+=("$2"); shift 2 ;;
    --lib) lib=$2; shift 2 ;;
    --expect) expect=$2; shift 2 ;;
    --env) env+=("$2"); shift 2 ;;
    --) shift; break ;;
    *) echo "compare_preload.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
[[ -n "$mpiexec" && -n "$np" && -n "$lib" && -n "$expect" && $# -gt 0 ]] ||
  { echo "compare_preload.sh: --mpiexec, --np, --lib, --expect and a program are required" >&2; exit 2; }
[[ -f "$lib" ]] || { echo "FAIL: no library at $lib" >&2; exit 1; }

fail() { echo "FAIL: $*" >&2; exit 1; }

echo "plain: $mpiexec -n $np ${flags[*]} $*"
rc=0
"$mpiexec" -n "$np" "${flags[@]}" "$@" > plain.out 2> plain.err || rc=$?
((rc == 0)) || { cat plain.err >&2; fail "the plain run exited $rc"; }

# Open MPI passes variables to the ranks by -x; LD_PRELOAD reaches mpirun too.
xs=(-x LD_PRELOAD -x NBRCOLL_DEBUG)
for kv in "${env[@]}"; do xs+=(-x "${kv%%=*}"); done
echo "nbrcoll: LD_PRELOAD=$lib NBRCOLL_DEBUG=info ${env[*]} $mpiexec -n $np ${flags[*]} ${xs[*]} $*"
env LD_PRELOAD="$lib" NBRCOLL_DEBUG=info "${env[@]}" \
  "$mpiexec" -n "$np" "${flags[@]}" "${xs[@]}" "$@" > nbrcoll.out 2> nbrcoll.err || rc=$?
((rc == 0)) || { cat nbrcoll.err >&2; fail "the run with nbrcoll exited $rc"; }

grep -Eq -- "$expect" plain.out || { cat plain.out; fail "the plain output has no line matching '$expect'"; }
if ! cmp -s plain.out nbrcoll.out; then
  diff plain.out nbrcoll.out | head -40
  fail "stdout differs with nbrcoll preloaded"
fi
echo "stdout identical ($(wc -l < plain.out) lines, $(grep -Ec -- "$expect" plain.out) matching '$expect')"

# The plan summary nbrcoll prints at info level for each graph it sets up.
for ((r = 0; r < np; ++r)); do
  grep -Eq "^\[nbrcoll $r\] info: graph: " nbrcoll.err ||
    { cat nbrcoll.err >&2; fail "rank $r: no 'graph:' plan summary (nbrcoll did not set up a graph communicator)"; }
done
echo "graph set up by nbrcoll on all $np ranks ($(grep -Ec '\] info: graph: ' nbrcoll.err) summaries)"

takes='nbrcoll takes MPI_I?[Nn]eighbor_alltoallv'
grep -Eq "$takes" nbrcoll.err ||
  { grep -E 'nbrcoll takes' nbrcoll.err >&2 || true
    fail "no '$takes' line: the neighbor alltoallv calls went past nbrcoll"; }
grep -Eo "$takes[A-Za-z_]*" nbrcoll.err | sort | uniq -c
echo "PASS"
