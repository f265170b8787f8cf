#!/usr/bin/env bash
# What 2 shared cores cannot show, on the lent GPU machine's 16 cores (a core
# per rank), through the offline kit (scripts/gpu-kit.sh) and, for PETSc, a
# tarball of KSP ex2 and the libraries the kit lacks. One host: the emulated
# nodes (NBRCOLL_RANKS_PER_NODE) share memory and have no network between
# them, so this shows per-call work and progress, not a network's savings.
#
#   here:  scripts/gpu-kit.sh --build-dir build --no-build --out gpu-kit
#          bash bench/results/h200-core-per-rank/pack-petsc.sh build gpu-kit petsc-kit
#   there: tar xJf petsc-kit.tar.xz; bash bench/results/h200-core-per-rank/run.sh gpu-kit OUT petsc-kit
#
# 1. the GPU self-test (gpu-run.sh: 1, 2, 4, 8 ranks);
# 2. the overlap benchmark with busy work, each NBRCOLL_PROGRESS mode of
#    MODES in turn: 16 ranks as 2 x 8 (no core to spare) and 8 ranks as
#    2 x 4 (a core spare per rank);
# 3. PETSc KSP ex2 -sf_type neighbor, 16 ranks as 2 x 8: the MPI's own and
#    nbrcoll under each mode of MODES, in turn;
# 4. the stencil mini-app, 2-D and 3-D, 16 ranks as 2 x 8, each mode of
#    STENCIL_MODES.
# Environment: PARTS (default "selftest overlap petsc stencil") the parts to
# run; MODES (default "calls mpi thread"), STENCIL_MODES (default MODES);
# STENCIL_PAIRS (default 1) rounds of the stencil's modes, the order reversed
# every round, STENCIL_DIMS (default "2 3"), STENCIL_ARGS more options (say
# "--exchanges cart-v,graph-v");
# ITERS, RUNS (PETSc runs a mode, 7); EX2 (ex2's size and iterations,
# default "-m 128 -n 1024 -ksp_max_it 50").
# OUT gets selftest-report.md and all.tar.gz (every log); summary.py here
# makes the tables from all.tar.gz.
set -uo pipefail
kit=$(cd "$1" && pwd -P)
out=$2
petsc=${3:-}
mkdir -p "$out/raw"
raw=$(cd "$out/raw" && pwd -P)
out=$(cd "$out" && pwd -P)
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a "$raw/log.txt"; }
export NBRCOLL_TOPO=frontier
parts=" ${PARTS:-selftest overlap petsc stencil} "
read -ra ex2 <<< "${EX2:--m 128 -n 1024 -ksp_max_it 50}"
part() { [[ $parts == *" $1 "* ]]; }
read -ra modes <<< "${MODES:-calls mpi thread}"
# shellcheck disable=SC2034  # read by in_turn, through its nameref
read -ra stencil_modes <<< "${STENCIL_MODES:-${modes[*]}}"
# the modes in turn, reversed every other round: reversed ARRAY ROUND
in_turn() {
  local -n list=$1
  if (($2 % 2)); then printf '%s\n' "${list[@]}" | tac; else printf '%s\n' "${list[@]}"; fi
}

stamp "$(nproc) CPUs, $(uptime)"
if part selftest; then
  stamp "1. self-test"
  timeout 200 bash "$kit/gpu-run.sh" --time-limit 180 "$raw/selftest" > "$raw/selftest.log" 2>&1
  stamp "self-test exit $?"
  cp "$raw/selftest/report.md" "$out/selftest-report.md" 2> /dev/null
fi

part overlap && stamp "2. overlap, busy work"
part overlap && for pair in 0 1 2; do
  for layout in "16 8" "8 4"; do
    read -r np rpn <<< "$layout"
    for mode in $(in_turn modes "$pair"); do
      f="$raw/overlap-np$np-rpn$rpn-$mode-$pair.txt"
      NBRCOLL_PROGRESS=$mode NBRCOLL_RANKS_PER_NODE=$rpn timeout 60 bash "$kit/gpu-run.sh" --mpirun "$np" nbrcoll-bench --pattern moore --dims 2 --radius 1 \
        --nonblocking --sizes 1K,4K,16K,64K --algos native,linear,leader,aggregated,auto --compute native \
        --compute-kind busy --warmup 5 --iters "${ITERS:-41}" --create-reps 0 > "$f" 2>&1
      stamp "overlap np $np rpn $rpn $mode pair $pair exit $?"
    done
  done
done

if part petsc && [[ -n "$petsc" && -x "$petsc/petsc_ksp_ex2" ]]; then
  stamp "3. PETSc ex2"
  cp -n "$petsc"/lib/* "$kit/lib/"
  for ((run = 1; run <= ${RUNS:-7}; ++run)); do
    # shellcheck disable=SC2034  # read by in_turn, through its nameref
    all=(native "${modes[@]}")
    for mode in $(in_turn all $((run + 1))); do
      pre=(--preload "$kit/lib/libnbrcoll.so.0")
      [[ $mode == native ]] && pre=()
      f="$raw/petsc-$mode-$run.txt"
      NBRCOLL_PROGRESS=${mode/native/calls} NBRCOLL_RANKS_PER_NODE=8 timeout 60 bash "$kit/gpu-run.sh" --mpirun 16 \
        "${pre[@]}" "$petsc/petsc_ksp_ex2" "${ex2[@]}" -sf_type neighbor -log_view > "$f" 2>&1
      stamp "petsc $mode run $run exit $?"
    done
  done
  NBRCOLL_DEBUG=info NBRCOLL_RANKS_PER_NODE=8 timeout 60 bash "$kit/gpu-run.sh" --mpirun 16 \
    --preload "$kit/lib/libnbrcoll.so.0" "$petsc/petsc_ksp_ex2" "${ex2[@]}" -sf_type neighbor \
    > "$raw/petsc-info.txt" 2>&1
  stamp "petsc info run exit $?"
fi

part stencil && stamp "4. stencil"
part stencil && for ((pair = 0; pair < ${STENCIL_PAIRS:-1}; ++pair)); do
  for dims in ${STENCIL_DIMS:-2 3}; do
    for mode in $(in_turn stencil_modes "$pair"); do
      # shellcheck disable=SC2086  # STENCIL_ARGS: options split on purpose
      NBRCOLL_PROGRESS=$mode NBRCOLL_RANKS_PER_NODE=8 timeout 90 bash "$kit/gpu-run.sh" --mpirun 16 nbrcoll-stencil \
        --dims "$dims" --algos native,linear,aggregated,auto --warmup 3 --iters "${ITERS:-21}" ${STENCIL_ARGS:-} \
        > "$raw/stencil-${dims}d-$mode$( ((pair)) && echo "-$pair").txt" 2>&1
      stamp "stencil ${dims}-D $mode pair $pair exit $?"
    done
  done
done

stamp "done"
tar czf "$out/all.tar.gz" -C "$raw" . && rm -rf "$raw"
