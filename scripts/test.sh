#!/usr/bin/env bash
# The README's test command: install (with Debian's ROCm HIP compiler, so the
# HIP device backend is built too, Debian's MPICH, and PETSc for tests/petsc),
# build, run the tests (unit and MPI; tests that need a GPU skip without one)
# under Open MPI, then the MPICH subset (ctest label "mpich") in a second
# build against MPICH.
#   scripts/test.sh              the full suite: every test but the extended set
#   scripts/test.sh --quick      the quick set (label "quick"), Open MPI only:
#                                an edit-compile-test loop
#   scripts/test.sh --extended   only the extended set (label "extended": the
#                                long runs of 12-16 ranks), both MPIs
#   scripts/test.sh --all        the full suite and the extended set (CI)
#   NBRCOLL_MPI=openmpi|mpich    only that MPI's pass (default: both)
#   NBRCOLL_SANITIZE=address,undefined   sanitized build in build-asan/
#                                (Open MPI only unless NBRCOLL_MPI says otherwise)
# CTEST_ARGS are passed to the Open MPI pass's ctest (a -R regex, say).
# tests/README.md lists the labels and what each set takes.
set -euo pipefail
cd "$(dirname "$0")/.."
tier=full
case "${1:-}" in
  "") ;;
  --quick) tier=quick ;;
  --extended) tier=extended ;;
  --all) tier=all ;;
  -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "test.sh: unknown argument '$1' (--quick, --extended, --all)" >&2; exit 2 ;;
esac
scripts/install-deps.sh --hip --petsc
mpi="${NBRCOLL_MPI:-}"
if [[ -z "$mpi" ]]; then
  if [[ -n "${NBRCOLL_SANITIZE:-}" || "$tier" == quick ]]; then mpi=openmpi; else mpi=both; fi
fi
case "$mpi" in openmpi | mpich | both) ;; *) echo "test.sh: NBRCOLL_MPI must be openmpi, mpich or both" >&2; exit 2 ;; esac
# The tier as ctest's label options.
case "$tier" in
  full) select=(-LE extended) ;;
  quick) select=(-L quick) ;;
  extended) select=(-L extended) ;;
  all) select=() ;;
esac

start=$SECONDS
say_time() { echo "test.sh: $1 took $((SECONDS - ${2})) s"; }
# Debug information of line tables only (-g1): stack traces and sanitizer
# reports keep file and line, and the compiler spends about a quarter less
# time than with -g (the same code: -g changes no instruction).
line_tables=("-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"
  "-DCMAKE_Fortran_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG")
# Unity builds (up to 16 sources of a target compiled as one): headers are
# parsed once a batch; build/ took 142 s instead of 240 s from scratch on 2
# cores (2026-11-29). scripts/build.sh and a plain cmake build still compile
# every source on its own, so no two files of a target may share a name in an
# anonymous namespace, and each includes what it uses.
unity=(-DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16)
if [[ "$mpi" != mpich ]]; then
  if [[ -n "${NBRCOLL_SANITIZE:-}" ]]; then
    dir=build-asan
    # No GPU plugins: the sanitizers see no GPU code, and the plugins' tests
    # skip without a GPU (they ran above); the fake device's run here.
    # Debug (assertions on) at -O1, as AddressSanitizer advises: at -O0 the
    # planner's template code ran 20-50 times slower than unsanitized.
    scripts/build.sh "$dir" "${unity[@]}" -DNBRCOLL_SANITIZE="$NBRCOLL_SANITIZE" -DCMAKE_BUILD_TYPE=Debug \
      "-DCMAKE_CXX_FLAGS_DEBUG=-g1 -O1" "-DCMAKE_C_FLAGS_DEBUG=-g1 -O1" -DNBRCOLL_BUILD_BENCH=OFF \
      -DNBRCOLL_WITH_HIP=OFF -DNBRCOLL_WITH_CUDA=OFF
  else
    dir=build
    scripts/build.sh "$dir" "${unity[@]}" "${line_tables[@]}"
  fi
  t=$SECONDS
  ctest --test-dir "$dir" --output-on-failure -j"$(nproc)" "${select[@]}" ${CTEST_ARGS:-}
  say_time "the Open MPI tests ($tier)" "$t"
fi

if [[ "$mpi" != openmpi ]]; then
  # MPICH by its own names (Open MPI keeps mpicc/mpiexec); no GPU plugins and
  # no unit tests here: they do not depend on the MPI and ran above. The
  # benchmarks are built for nbrcoll-bench --persistent, which needs MPI 4
  # (Open MPI 4.1 is MPI 3.1): its test is in the subset.
  dir=build-mpich
  flags=("${line_tables[@]}")
  if [[ -n "${NBRCOLL_SANITIZE:-}" ]]; then
    dir=build-mpich-asan
    flags=(-DNBRCOLL_SANITIZE="$NBRCOLL_SANITIZE" -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-g1 -O1"
      "-DCMAKE_C_FLAGS_DEBUG=-g1 -O1")
  fi
  NBRCOLL_MPI=mpich scripts/build.sh "$dir" "${unity[@]}" -DNBRCOLL_WITH_HIP=OFF -DNBRCOLL_WITH_CUDA=OFF \
    -DNBRCOLL_BUILD_BENCH=ON -DNBRCOLL_TEST_AREAS=bench "${flags[@]}"
  t=$SECONDS
  ctest --test-dir "$dir" --output-on-failure -j"$(nproc)" -L mpich "${select[@]}"
  say_time "the MPICH tests ($tier)" "$t"
fi
say_time "test.sh $tier" "$start"
