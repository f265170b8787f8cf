#!/usr/bin/env bash
# Two libnbrcoll builds side by side on one machine: loop.c (a Moore graph,
# 8 neighbours) under each library in turn, ROUNDS times, alternating A and
# B within every round, for each kind, algorithm and size. Prints per case
# the median time a call under A and under B (max over ranks, the loop's
# own line) and the median of the per-round ratios A / B (above 1: B faster).
#   ab.sh LIB_A LIB_B
# env: KINDS ("allgather alltoallv ineighbor_alltoallv"), ALGOS ("linear
# leader auto"), BYTES ("1024 65536"), CALLS (2000), ROUNDS (7), NP (16),
# RPN (8: emulated nodes of RPN ranks; 0: one node), KIT (run through
# KIT/gpu-run.sh --mpirun, the offline GPU kit's Open MPI), LOOP (a built
# loop; default: built here with mpicc).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
lib_a="$(realpath "$1")" lib_b="$(realpath "$2")"
kinds="${KINDS:-allgather alltoallv ineighbor_alltoallv}" algos="${ALGOS:-linear leader auto}"
sizes="${BYTES:-1024 65536}" calls="${CALLS:-2000}" rounds="${ROUNDS:-7}" np="${NP:-16}" rpn="${RPN:-8}"
loop="${LOOP:-}"
if [[ -z "$loop" ]]; then
  loop="$(mktemp -d)/loop"
  mpicc -O2 -Wno-stringop-overread -o "$loop" "$here/loop.c"
fi
loop="$(realpath "$loop")"
once() {  # lib kind bytes algo -> us a call
  local out
  if [[ -n "${KIT:-}" ]]; then
    out="$(NBRCOLL_ALGO="$4" NBRCOLL_RANKS_PER_NODE="$rpn" NBRCOLL_TOPO=frontier \
      bash "$KIT/gpu-run.sh" --mpirun "$np" --preload "$1" "$loop" "$2" "$3" "$calls")"
  else
    out="$(mpirun --oversubscribe --allow-run-as-root -np "$np" -x LD_PRELOAD="$1" -x NBRCOLL_ALGO="$4" \
      -x NBRCOLL_RANKS_PER_NODE="$rpn" -x NBRCOLL_TOPO=frontier "$loop" "$2" "$3" "$calls")"
  fi
  sed -n 's/.*B: \([0-9.]*\) us a call.*/\1/p' <<< "$out"
}
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
echo "# A: $lib_a"
echo "# B: $lib_b"
echo "# $np ranks, emulated nodes of $rpn, $calls calls a run, $rounds rounds (A and B alternating)"
printf '# %-20s %-7s %8s %12s %12s %10s\n' kind algo bytes "A us/call" "B us/call" "A/B paired"
for kind in $kinds; do
  for algo in $algos; do
    for bytes in $sizes; do
      as=() bs=() ratios=()
      for ((r = 0; r < rounds; ++r)); do
        if ((r % 2)); then
          b="$(once "$lib_b" "$kind" "$bytes" "$algo")"
          a="$(once "$lib_a" "$kind" "$bytes" "$algo")"
        else
          a="$(once "$lib_a" "$kind" "$bytes" "$algo")"
          b="$(once "$lib_b" "$kind" "$bytes" "$algo")"
        fi
        as+=("$a") bs+=("$b")
        ratios+=("$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.4f", a / b}')")
      done
      printf '  %-20s %-7s %8s %12.2f %12.2f %9.3fx\n' "$kind" "$algo" "$bytes" \
        "$(printf '%s\n' "${as[@]}" | median)" "$(printf '%s\n' "${bs[@]}" | median)" \
        "$(printf '%s\n' "${ratios[@]}" | median)"
    done
  done
done
