#!/usr/bin/env bash
# Runs a command and fails unless it exits with the expected status (0, or
# N with --exit N) and its output (stdout and stderr together, shown as it
# comes) has a line matching each pattern (grep -E). nbrcoll_add_mpi_test's
# EXPECT_LINES; tests of a tool's errors use --exit.
#   expect_lines.sh [--exit N] PATTERN... -- COMMAND ARGS...
set -uo pipefail
want=0
if [[ $# -gt 1 && "$1" == "--exit" ]]; then want=$2; shift 2; fi
patterns=()
while [[ $# -gt 0 && "$1" != "--" ]]; do patterns+=("$1"); shift; done
[[ $# -gt 1 ]] || { echo "expect_lines.sh: [--exit N] PATTERN... -- COMMAND ARGS..." >&2; exit 2; }
shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
if ((want == 0)); then
  ((rc == 0)) || { echo "FAIL: the command exited $rc"; exit "$rc"; }
else
  ((rc == want)) || { echo "FAIL: the command exited $rc, not $want"; exit 1; }
fi
missing=0
for p in "${patterns[@]}"; do
  if ! grep -Eq -- "$p" "$out"; then
    echo "FAIL: no line matches '$p'"
    missing=1
  fi
done
((missing == 0)) || exit 1
echo "ok: all ${#patterns[@]} expected lines seen"
