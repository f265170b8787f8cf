#!/bin/bash
# Graph creation before and after the planners' allocation diet and the
# cost rows' sharing: the creation A/B of bench/results/creation-lazy/ab.sh
# (old, new, old, new; 2 x 8 emulated nodes at 1 Gbit/s and 16 ranks on one
# host as 2 emulated nodes; RSG 0.6 and Moore r=1; the benchmark's creation
# table, whose row "create+free, new lists" is what a graph seen for the
# first time costs).
#   ab.sh OLD_BENCH NEW_BENCH > ab.txt
exec bash "$(dirname "$0")/../creation-lazy/ab.sh" "$@"
