#!/usr/bin/env bash
# Runs a self-test command that must fail: its exit status must be RC and its
# output must hold every line pattern given after "--". So a self-test whose
# checks could not fail (or that fails for another reason) fails this test.
#   expect_failure.sh RC PATTERN... -- COMMAND...
set -uo pipefail
want_rc="$1"
shift
patterns=()
while [[ $# -gt 0 && "$1" != "--" ]]; do
  patterns+=("$1")
  shift
done
shift
out="$("$@" 2>&1)"
rc=$?
printf '%s\n' "$out"
if [[ "$rc" != "$want_rc" ]]; then
  echo "expect_failure.sh: exit status $rc, want $want_rc" >&2
  exit 1
fi
for p in "${patterns[@]}"; do
  if ! grep -qE -- "$p" <<<"$out"; then
    echo "expect_failure.sh: no line matches '$p'" >&2
    exit 1
  fi
done
echo "expect_failure.sh: failed as expected"
