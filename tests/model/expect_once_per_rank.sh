#!/usr/bin/env bash
# Runs a command (an MPI launch line) and fails unless it exits 0 and each
# of ranks 0 .. RANKS-1 printed exactly one line "[nbrcoll R] PATTERN..."
# (PATTERN: grep -E, matched right after the prefix): a warning said once
# per process.
#   expect_once_per_rank.sh RANKS PATTERN COMMAND ARGS...
set -uo pipefail
[[ $# -gt 2 ]] || { echo "expect_once_per_rank.sh: RANKS PATTERN COMMAND ARGS..." >&2; exit 2; }
ranks=$1 pattern=$2
shift 2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
((rc == 0)) || { echo "FAIL: the command exited $rc"; exit "$rc"; }
bad=0
for ((r = 0; r < ranks; ++r)); do
  n=$(grep -Ec -- "^\[nbrcoll $r\] $pattern" "$out")
  if ((n != 1)); then
    echo "FAIL: rank $r printed $n lines matching '$pattern', not 1"
    bad=1
  fi
done
((bad == 0)) || exit 1
echo "ok: each of $ranks ranks said it once"
