#!/usr/bin/env bash
# Runs a command and fails unless it succeeds and its output (stdout and
# stderr together, shown as it comes) has a line matching each pattern
# (grep -E). nbrcoll_add_mpi_test's EXPECT_LINES.
#   expect_lines.sh PATTERN... -- COMMAND ARGS...
set -uo pipefail
patterns=()
while [[ $# -gt 0 && "$1" != "--" ]]; do patterns+=("$1"); shift; done
[[ $# -gt 1 ]] || { echo "expect_lines.sh: PATTERN... -- COMMAND ARGS..." >&2; exit 2; }
shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
((rc == 0)) || { echo "FAIL: the command exited $rc"; exit "$rc"; }
missing=0
for p in "${patterns[@]}"; do
  if ! grep -Eq -- "$p" "$out"; then
    echo "FAIL: no line matches '$p'"
    missing=1
  fi
done
((missing == 0)) || exit 1
echo "ok: all ${#patterns[@]} expected lines seen"
