#!/usr/bin/env bash
# PETSc's KSP tutorial ex2 (the program tests/petsc builds), unchanged, on the
# emulated cluster: native vs libnbrcoll preloaded, as bench/RESULTS.md's
# earlier sections measured it. Now the PETSc part of bench/apps/run.sh
# (which prints SF set-up, scatter, MatMult and VecNorm per call, medians,
# ranges and paired ratios) with this script's old defaults: 3 runs and
# -m 128 -n 8192 -ksp_max_it 50, rows of 8192 points, so each halo message
# is 64 KiB (above auto's 32K threshold).
#
#   bench/petsc/run.sh [--build DIR] [--runs R] [--nodes N] [--ranks-per-node K]
#                      [--rate 1gbit] [-- EX2 OPTIONS...]
set -euo pipefail
cd "$(dirname "$0")/../.."
for a in "$@"; do [[ $a == -- ]] && exec bench/apps/run.sh --runs 3 --only petsc "$@"; done
exec bench/apps/run.sh --runs 3 --only petsc "$@" -- -m 128 -n 8192 -ksp_max_it 50
