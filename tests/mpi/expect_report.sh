#!/usr/bin/env bash
# Runs a command (a launch line) with the run report on and fails unless it
# succeeds and the report has a line matching each pattern (grep -E).
#   expect_report.sh stderr PATTERN... -- COMMAND ARGS...   (NBRCOLL_REPORT=1)
#     the report is on the command's stderr, exactly one block of it (world
#     rank 0's), and nothing of it on stdout (the library writes nothing there)
#   expect_report.sh FILE PATTERN... -- COMMAND ARGS...     (NBRCOLL_REPORT=FILE)
#     FILE, removed first, holds the report
set -uo pipefail
[[ $# -gt 0 ]] || { echo "expect_report.sh stderr|FILE PATTERN... -- COMMAND ARGS..." >&2; exit 2; }
target=$1
shift
patterns=()
while [[ $# -gt 0 && "$1" != "--" ]]; do patterns+=("$1"); shift; done
[[ $# -gt 1 ]] || { echo "expect_report.sh: no command after --" >&2; exit 2; }
shift
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
if [[ "$target" == stderr ]]; then
  "$@" >"$out" 2>"$err"
  rc=$?
  cat "$out"
  cat "$err" >&2
  report=$err
else
  rm -f "$target"
  "$@"
  rc=$?
  report=$target
  [[ -f "$report" ]] && cat "$report"
fi
((rc == 0)) || { echo "FAIL: the command exited $rc"; exit "$rc"; }
[[ -f "$report" ]] || { echo "FAIL: no report in $report"; exit 1; }
failed=0
if [[ "$target" == stderr ]]; then
  if grep -q "nbrcoll report" "$out"; then
    echo "FAIL: the report is on stdout"
    failed=1
  fi
  blocks=$(grep -c "^nbrcoll report: calls run by nbrcoll" "$err")
  if ((blocks != 1)); then
    echo "FAIL: $blocks reports on stderr, not 1"
    failed=1
  fi
fi
((failed == 0)) || exit 1
# The patterns, checked as every EXPECT_LINES test checks its output.
"$(dirname "$0")/expect_lines.sh" "${patterns[@]}" -- cat "$report"
