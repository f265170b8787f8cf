#!/bin/bash
# Graph creation on one host (one node: auto's graphs are linear-only, set
# up without the agreement) before and after creation's bookkeeping diet
# (world places decoded once, blocking scratches kept for the next handle,
# the tag-window vector only for calls left in flight): the creation A/B of
# bench/results/creation-lazy/ab.sh (old, new, old, new; RSG 0.6 and
# Moore r=1; the benchmark's creation table) on 8 and 16 ranks.
#   onehost-ab.sh OLD_BENCH NEW_BENCH > onehost-ab.txt
WHERE="onehost-8 onehost-16" exec bash "$(dirname "$0")/../creation-lazy/ab.sh" "$@"
