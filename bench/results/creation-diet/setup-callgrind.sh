#!/bin/bash
# Instructions of graph set-up on rank 3 of 16 (callgrind, collecting inside
# nbrcoll::setup_graph only): 16 ranks on one host as 2 emulated nodes of 8
# (NBRCOLL_RANKS_PER_NODE), the benchmark's creation table by auto (15
# repetitions a row). A second run without valgrind counts rank 3's
# set-ups and those that planned (NBRCOLL_DEBUG=trace). Prints the count,
# instructions per set-up, and per planning set-up the instructions in
# plan_set_for (planning and cost rows; it also hashes every set-up's
# input, about 4K instructions each) and cost_terms.
#   setup-callgrind.sh BENCH [PATTERN ARGS...]   (default: --pattern rsg --density 0.6)
set -u
bench=$(realpath "$1"); shift
pattern=("$@"); [[ ${#pattern[@]} -eq 0 ]] && pattern=(--pattern rsg --density 0.6)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cat > "$out/wrap.sh" <<WRAP
#!/bin/bash
[[ \$OMPI_COMM_WORLD_RANK == 3 ]] &&
  exec valgrind --tool=callgrind --callgrind-out-file=$out/cg.out --toggle-collect='nbrcoll::setup_graph*' "\$@"
exec "\$@"
WRAP
chmod +x "$out/wrap.sh"
export NBRCOLL_TOPO=frontier NBRCOLL_RANKS_PER_NODE=8
run=(mpirun -np 16 --oversubscribe -x NBRCOLL_TOPO -x NBRCOLL_RANKS_PER_NODE -x NBRCOLL_DEBUG)
[[ $(id -u) -eq 0 ]] && run+=(--allow-run-as-root)
args=("${pattern[@]}" --sizes 1K --algos auto --warmup 0 --iters 1 --create-reps 15)
NBRCOLL_DEBUG=trace timeout 900 "${run[@]}" "$bench" "${args[@]}" 2>&1 >/dev/null |
  grep '^\[nbrcoll 3\] trace: graph setup' > "$out/trace.txt"
NBRCOLL_DEBUG= timeout 900 "${run[@]}" "$out/wrap.sh" "$bench" "${args[@]}" >/dev/null 2>&1
setups=$(wc -l < "$out/trace.txt")
planned=$((setups - $(grep -c 'plans reused' "$out/trace.txt")))
callgrind_annotate --inclusive=yes "$out/cg.out" 2>/dev/null > "$out/annotate.txt"
field() { grep -m1 -E "$1" "$out/annotate.txt" | awk '{gsub(",","",$1); print $1}'; }
total=$(field 'PROGRAM TOTALS')
plans=$(field 'nbrcoll::plan_set_for\(')
costs=$(field 'nbrcoll::cost_terms\(')
echo "set-ups $setups (planned $planned): $((total / setups)) instructions a set-up;" \
  "per planning set-up: plan_set_for $((plans / planned)), of which cost_terms $((costs / planned))"
