#!/bin/bash
# The same A/B as onehost-ab.sh across nodes: 2 emulated nodes x 8 ranks
# at 1 Gbit/s (network namespaces; root) and 16 ranks on one host as 2
# emulated nodes (auto's full set-up: node lists, every planner, the
# agreement).
#   cluster-ab.sh OLD_BENCH NEW_BENCH > cluster-ab.txt
WHERE="cluster onehost-2x8" exec bash "$(dirname "$0")/../creation-lazy/ab.sh" "$@"
