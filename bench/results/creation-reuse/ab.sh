#!/bin/bash
# Graph creation before and after plan sets are reused by graphs of equal
# planners' input (src/state/plan_set.h): the creation A/B of
# bench/results/creation-lazy/ab.sh (old, new, old, new; 2 x 8 emulated
# nodes at 1 Gbit/s and 16 ranks on one host as 2 emulated nodes; RSG 0.6
# and Moore r=1), whose table now has the row "create+free, new lists"
# (every creation's lists rotated: nothing to reuse) in the new binary.
#   ab.sh OLD_BENCH NEW_BENCH > ab.txt
exec bash "$(dirname "$0")/../creation-lazy/ab.sh" "$@"
