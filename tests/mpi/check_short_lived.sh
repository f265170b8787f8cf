#!/usr/bin/env bash
# Runs the short_lived test (its launch line as arguments) and checks rank
# 0's graph lines (NBRCOLL_DEBUG=trace) phase by phase, over the graphs of
# every process (the program itself checks every handle's plans against
# the rule, from nbrcoll's state): in phases 1 and 3 (graphs called at most twice) every
# creation is set up linear to plan late and none plans; in phase 2
# (graphs called four times, and two with a duplicate made before their
# third call) every creation plans late and every graph and that
# duplicate plan once. EXPECT "early": one rank sets NBRCOLL_SHORT_GRAPHS=0,
# so every creation plans and no call does; "threads": two threads made
# short-lived graphs in phase 1, none of which plans; "one_node": every
# process on one node, where all but about one creation in 17 go without
# agreement.
#   check_short_lived.sh NP late|early|threads|one_node LAUNCH...
set -uo pipefail
np=$1; expect=$2; shift 2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" 2>&1 | tee "$out" | grep -v "trace:"
rc=${PIPESTATUS[0]}
((rc == 0)) || { echo "FAIL: the test exited $rc"; exit "$rc"; }
# One letter per creation over all processes (L: linear until it plans
# late, P: planned at creation) and per graph handle planning at a call (C).
# Only whole lines count: where ranks write at once the launcher may cut a
# line in two, and a cut creation line must not read as P.
kinds=$(awk -v np="$np" '
  /^short_lived: phase/ { printf "\n%s:", $3; next }
  /^\[nbrcoll 0\] trace: graph setup \(/ && /total [0-9]+ \(cpu [0-9]+\)$/ && index($0, "(" np " ranks,") > 0 {
    printf "%s", (index($0, "linear plans until its blocking call 3") > 0 ? "L" : "P")
  }
  /^\[nbrcoll 0\] trace: graph plans at its blocking call 3 \(/ && /total [0-9]+$/ && index($0, "(" np " ranks,") > 0 {
    printf "C"
  }
  ' "$out")
echo "graphs by phase (L linear until planning late, P planned at creation, C planned at a call):$kinds"
phase() { sed -n "s/^$1://p" <<<"$kinds"; }
count() { local s=${1//[^$2]/}; echo "${#s}"; }
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
  [[ $(phase 1) =~ ^L+$ ]] || { echo "FAIL: a short-lived graph of the two threads planned"; fail=1; }
  ((fail == 0)) && echo "ok: the two threads' short-lived graphs stayed linear"
  exit "$fail"
fi
[[ -n $(phase 1) && -n $(phase 2) && -n $(phase 3) ]] || { echo "FAIL: no creations seen"; fail=1; }
if [[ $expect == early ]]; then
  [[ $kinds != *L* && $kinds != *C* ]] || { echo "FAIL: a graph planned late although one rank asks for planning at creation"; fail=1; }
  ((fail == 0)) && echo "ok: every graph planned at creation"
else
  [[ $(phase 1) =~ ^L+$ ]] || { echo "FAIL: phase 1: a graph called at most twice planned"; fail=1; }
  [[ $(phase 3) =~ ^L+$ ]] || { echo "FAIL: phase 3: a graph called twice planned"; fail=1; }
  p2=$(phase 2)
  [[ $p2 =~ ^[LC]+$ ]] || { echo "FAIL: phase 2: a graph planned at creation"; fail=1; }
  # Each graph plans once, and the two made with a duplicate before their
  # third call plan twice: the program checks that of every handle in
  # nbrcoll's state; here the trace must show them plan at all (the
  # launcher may cut a line where ranks write at once, so no exact count).
  (( $(count "$p2" C) >= $(count "$p2" L) / 2 )) ||
    { echo "FAIL: phase 2: $(count "$p2" L) graphs, $(count "$p2" C) planned at a call"; fail=1; }
  ((fail == 0)) && echo "ok: short-lived graphs stayed linear, long-lived ones planned at their third blocking call"
fi
exit "$fail"
