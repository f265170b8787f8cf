#!/usr/bin/env bash
# Runs the short_lived test (its launch line as arguments) and checks rank
# 0's graph set-up lines (NBRCOLL_DEBUG=trace) phase by phase, over the
# graphs of every process: some creations skip their set-up in phase 1
# (graphs called at most twice, then freed), the last three of phase 2
# (graphs called four times) plan, and phase 3 (called twice and kept
# alive) skips again. EXPECT "never": no creation skips (a rank votes
# against every skip); "threads": two threads made short-lived graphs in
# phase 1, some of which skip; "one_node": every process on one node,
# where all but about one creation in 17 go without agreement.
#   check_short_lived.sh NP vote|never|threads|one_node LAUNCH...
set -uo pipefail
np=$1; expect=$2; shift 2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" 2>&1 | tee "$out" | grep -v "trace:"
rc=${PIPESTATUS[0]}
((rc == 0)) || { echo "FAIL: the test exited $rc"; exit "$rc"; }
# One letter per creation over all processes: S skipped, P planned.
kinds=$(awk -v np="$np" '
  /^short_lived: phase/ { printf "\n%s:", $3; next }
  /^\[nbrcoll 0\] trace: graph setup \(/ && index($0, "(" np " ranks,") > 0 {
    printf "%s", (index($0, "short-lived graphs") > 0 ? "S" : "P")
  }' "$out")
echo "creations by phase (S skipped, P planned):$kinds"
phase() { sed -n "s/^$1://p" <<<"$kinds"; }
fail=0
if [[ $expect == one_node ]]; then
  agreed=$(grep -c "^\[nbrcoll 0\] trace: graph setup ($np ranks, 1 nodes, shared communicator, linear" "$out")
  unagreed=$(grep -c "^\[nbrcoll 0\] trace: graph setup ($np ranks, 1 nodes, shared communicator, no agreement" "$out")
  echo "one-node creations of every process: $agreed agreed, $unagreed without agreement"
  ((unagreed >= 8 * agreed && agreed >= 1)) || { echo "FAIL: too few creations went without agreement"; fail=1; }
  ((fail == 0)) && echo "ok: one-node creations went without agreement"
  exit "$fail"
fi
if [[ $expect == threads ]]; then
  [[ $(phase 1) == P*S* ]] || { echo "FAIL: no creation of the two threads skipped"; fail=1; }
  ((fail == 0)) && echo "ok: the two threads' short-lived graphs skipped"
  exit "$fail"
fi
[[ $(phase 1) == P* && $(phase 3) == P* ]] || { echo "FAIL: no creations seen"; fail=1; }
if [[ $expect == never ]]; then
  [[ $kinds != *S* ]] || { echo "FAIL: a creation skipped although one rank votes against"; fail=1; }
  ((fail == 0)) && echo "ok: no creation skipped"
else
  [[ $(phase 1) == *S* ]] || { echo "FAIL: no creation skipped in phase 1"; fail=1; }
  [[ $(phase 2) == *PPP ]] || { echo "FAIL: phase 2 does not end planning"; fail=1; }
  [[ $(phase 3) == *S* ]] || { echo "FAIL: no creation skipped in phase 3"; fail=1; }
  ((fail == 0)) && echo "ok: skipped while short-lived, planning when long-lived"
fi
exit "$fail"
