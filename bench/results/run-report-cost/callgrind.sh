#!/usr/bin/env bash
# The run report's cost on a call counted in instructions (callgrind), where
# timing cannot resolve it: 1 KiB linear MPI_Neighbor_allgather on 2 ranks
# (rsg density 1: one edge each way), 420 calls a rank, report off and on.
# Per rank it prints the instructions of nbrcoll's own functions a call
# (nbrcoll-bench links libnbrcoll's archive), the whole call's (the MPI's
# polling included, which varies from run to run) and the difference on-off.
#   BUILD=build OUT=dir [ITERS=400] bash bench/results/run-report-cost/callgrind.sh
set -euo pipefail
build="${BUILD:-build}"
out="${OUT:-$PWD/run-report-cost}"
mkdir -p "$out"
rm -f "$out"/cg.*
root=(); [[ $(id -u) -eq 0 ]] && root=(--allow-run-as-root)
for mode in off on; do
  if [[ $mode == on ]]; then report="$out/report.txt"; else report=0; fi
  NBRCOLL_REPORT="$report" mpirun --oversubscribe "${root[@]}" -np 2 valgrind --tool=callgrind \
    --callgrind-out-file="$out/cg.$mode.%p" --toggle-collect=MPI_Neighbor_allgather \
    "$build/bin/nbrcoll-bench" --pattern rsg --density 1 --sizes 1K --algos linear --warmup 20 --iters "${ITERS:-400}" \
    --no-validate > /dev/null 2> "$out/valgrind.$mode.txt"
done
for f in "$out"/cg.*; do
  callgrind_annotate --threshold=100 "$f" 2> /dev/null > "$f.flat"
  callgrind_annotate --inclusive=yes --threshold=100 "$f" 2> /dev/null > "$f.inclusive"
  callgrind_annotate --tree=calling --threshold=100 "$f" 2> /dev/null > "$f.tree"
done
python3 - "$out" << 'PY'
import glob, re, sys
d = sys.argv[1]
def number(line):
    return int(line.split()[0].replace(",", ""))
rows = {}
for f in sorted(glob.glob(f"{d}/cg.*.flat")):
    mode = f.split("/")[-1].split(".")[1]
    own = sum(number(l) for l in open(f) if l.strip() and l.split()[0].replace(",", "").isdigit()
              and "nbrcoll-bench]" in l)
    inclusive = open(f.replace(".flat", ".inclusive")).read().splitlines()
    total = next(number(l) for l in inclusive if "PROGRAM TOTALS" in l)
    # The bench's native calls go straight to PMPI: left out.
    native = sum(number(l) for l in inclusive if re.search(r"\?\?\?:PMPI_Neighbor_allgather ", l))
    tree = open(f.replace(".flat", ".tree")).read()
    count = lambda pattern: sum(int(n.replace(",", "")) for n in re.findall(pattern, tree, re.M))
    entered = count(r"^ *[\d,]+ \(.*\)  > +.*blocking_body<\w+>\(nbrcoll::UserCall const&\) \(([\d,]+)x\)")
    handed = count(r"^ *[\d,]+ \(.*\)  > +\?\?\?:PMPI_Neighbor_allgather \(([\d,]+)x\)")
    rows.setdefault(mode, []).append((own, total - native, entered - handed))
for mode, r in rows.items():
    for own, whole, calls in r:
        print(f"{mode}: {calls} calls; nbrcoll's own {own / calls:.0f} instructions a call, the whole call {whole / calls:.0f}")
added = [(a[0] - b[0]) / a[2] for a, b in zip(rows["on"], rows["off"])]
print("added by the report a call:", [round(a) for a in added])
PY
