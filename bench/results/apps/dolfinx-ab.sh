#!/bin/bash
# dolfinx-ab.sh RUNS LIB...: DOLFINx's set-up and scatters
# (bench/apps/dolfinx_setup.py, unit cube 16^3, P1 and P2) on emulated
# nodes (NODES x RPN from the environment, default 2 x 8, 1 Gbit/s),
# natively and under each library in turn, alternating run by run; per
# run and phase one line: mode, run, phase, seconds (slowest rank; the
# scatters' median of SCATTERS, default 50). A LIB may carry more mpirun options after its
# path ("LIB -x NBRCOLL_ALGO=aggregated"). summary.py turns the lines into
# paired ratios.
cd "$(dirname "$0")/../../.."
source bench/results/apps/ab_runs.sh
runs=$1
shift
# lines MODE RUN: each "phase seconds" line of the app as "MODE RUN phase seconds".
lines() { awk -v m="$1" -v r="$2" 'NF == 2 && $2 ~ /^[0-9.e+-]+$/ { print m, r, $1, $2 }'; }
ab_runs "$runs" lines /usr/bin/python3 "$PWD/bench/apps/dolfinx_setup.py" --scatters "${SCATTERS:-50}" -- "$@"
