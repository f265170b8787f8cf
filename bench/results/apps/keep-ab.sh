#!/bin/bash
# keep-ab.sh RUNS LIB...: PETSc KSP ex2 (-sf_type neighbor) on 2 x 8 emulated
# nodes (NODES x RPN from the environment), natively and under each library
# in turn, alternating run by run; per run one line: mode, run, scatter ms
# a call (VecScatterBegin + End, max over ranks), VecNorm ms a call (the
# control). Used for the kept (persistent) messages' A/B in README.md and
# the hand-off vote's (../handoff-vote). A LIB may carry more mpirun
# options after its path ("LIB -x NBRCOLL_DISABLE=1").
cd "$(dirname "$0")/../../.."
source bench/results/apps/ab_runs.sh
runs=$1
shift
ex2=$(realpath build/bin/petsc_ksp_ex2)
args=(-m 128 -n 1024 -ksp_max_it 50 -sf_type neighbor -log_view)
# times MODE RUN: one line from ex2's -log_view on stdin.
times() {
  awk -v m="$1" -v r="$2" '$1 == "VecScatterBegin" && !b { c = $2; b = $4 }
    $1 == "VecScatterEnd" && !e { e = $4 }
    $1 == "VecNorm" && !n { nc = $2; n = $4 }
    END { printf "%s %d %.6f %.6f\n", m, r, (b + e) / c * 1e3, n / nc * 1e3 }'
}
ab_runs "$runs" times "$ex2" "${args[@]}" -- "$@"
