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
#   check_short_lived.sh NP late|early|threads|one_node|staged LAUNCH...
set -uo pipefail
np=$1; expect=$2; shift 2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" 2>&1 | tee "$out" | grep -v "trace:"
rc=${PIPESTATUS[0]}
((rc == 0)) || { echo "FAIL: the test exited $rc"; exit "$rc"; }
# One letter per creation over all processes (L: linear until it plans
# late, P: planned at creation) and per graph handle planning at a call (C).
# Only rank 0 traces (short_lived.cpp), so no other process's output can cut
# its lines; whole lines only all the same, so that a cut line fails the
# exact counts below rather than reading as P.
kinds=$(awk -v np="$np" '
  /^short_lived: phase/ { printf "\n%s:", $3; next }
  /^\[nbrcoll 0\] trace: graph setup \(/ && /total [0-9]+ \(cpu [0-9]+\)$/ && index($0, "(" np " ranks,") > 0 {
    printf "%s", (index($0, "linear plans until its blocking call 3") > 0 ? "L" : "P")
  }
  /^\[nbrcoll 0\] trace: graph plans at its call 3 \(/ && /total [0-9]+$/ && index($0, "(" np " ranks,") > 0 {
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
# What short_lived.cpp's main makes: phases 1 and 3 14 graphs of every
# process each (the half-process graph is not counted), phase 2 16, each
# planning once at its third blocking call, and the duplicates made before
# the third call of two of them planning at their own: 18 plans at a call.
# With two threads: 20 graphs from each thread in phase 1.
# "staged": graphs of 1 to 11 calls under the default NBRCOLL_SHORT_GRAPHS
# (8); the program checks every handle's plans; here, that some planned.
if [[ $expect == staged ]]; then
  n=$(grep -c "^\[nbrcoll 0\] trace: graph plans at its call 9 (" "$out")
  ((n >= 3)) || { echo "FAIL: $n graphs planned at their ninth call (the three of 9 to 11 calls, and duplicates)"; exit 1; }
  echo "ok: $n graphs planned at their ninth call"
  exit 0
fi
if [[ $expect == threads ]]; then
  [[ $(phase 1) =~ ^L{40}$ ]] || { echo "FAIL: phase 1: not 40 short-lived graphs of the two threads, all linear"; fail=1; }
  ((fail == 0)) && echo "ok: the two threads' short-lived graphs stayed linear"
  exit "$fail"
fi
[[ -n $(phase 1) && -n $(phase 2) && -n $(phase 3) ]] || { echo "FAIL: no creations seen"; fail=1; }
if [[ $expect == early ]]; then
  [[ $(phase 1) =~ ^P{14}$ && $(phase 2) =~ ^P{16}$ && $(phase 3) =~ ^P{14}$ ]] ||
    { echo "FAIL: not 14, 16 and 14 creations planned at creation although one rank asks for it"; fail=1; }
  ((fail == 0)) && echo "ok: every graph planned at creation"
else
  [[ $(phase 1) =~ ^L{14}$ ]] || { echo "FAIL: phase 1: not 14 graphs called at most twice, all linear"; fail=1; }
  [[ $(phase 3) =~ ^L{14}$ ]] || { echo "FAIL: phase 3: not 14 graphs called at most twice, all linear"; fail=1; }
  p2=$(phase 2)
  [[ $p2 =~ ^[LC]+$ ]] || { echo "FAIL: phase 2: a graph planned at creation"; fail=1; }
  (( $(count "$p2" L) == 16 && $(count "$p2" C) == 18 )) ||
    { echo "FAIL: phase 2: $(count "$p2" L) graphs (16), $(count "$p2" C) planned at a call (18)"; fail=1; }
  ((fail == 0)) && echo "ok: short-lived graphs stayed linear, long-lived ones planned at their third blocking call"
fi
exit "$fail"
