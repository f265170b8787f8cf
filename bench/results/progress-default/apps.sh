#!/usr/bin/env bash
# The applications under NBRCOLL_PROGRESS=calls and mpi (the default since
# 2026-11-30): bench/apps/run.sh --runs 1 for each mode in turn, PAIRS (3)
# pairs, the mode first in a pair alternating; each invocation times the
# MPI's own and nbrcoll once (2 emulated nodes x 8 at 1 Gbit/s unless
# ARGS says otherwise). Per-run times land in OUT (runs/) as
# APP.MODE.PAIR.{native,nbrcoll}.times; summary.py pairs them.
#   APPS="petsc dolfinx" PAIRS=3 bash bench/results/progress-default/apps.sh
set -eu
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here/../../.."
out=${OUT:-$here/runs}
mkdir -p "$out"
# shellcheck disable=SC2206 # words
extra=(${ARGS:-})
for pair in $(seq 1 "${PAIRS:-3}"); do
  modes=(calls mpi)
  ((pair % 2 == 0)) && modes=(mpi calls)
  for app in ${APPS:-petsc dolfinx}; do
    for mode in "${modes[@]}"; do
      NBRCOLL_PROGRESS=$mode bash bench/apps/run.sh --runs 1 --only "$app" "${extra[@]}" >/dev/null
      for side in native nbrcoll; do
        cp "build/bench-results/apps/$app.$side.1.times" "$out/$app.$mode.$pair.$side.times"
      done
      echo "$app $mode pair $pair done" >&2
    done
  done
done
python3 "$here/summary.py" "$out"
