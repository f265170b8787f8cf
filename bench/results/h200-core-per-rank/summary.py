"""The tables of README.md from data/: the overlap benchmark (medians over
the pairs of each layout, mode, size and algorithm: overlap % and the
paired speed-up of start + computation + wait over the MPI's own) and
PETSc ex2 (medians over runs, and per-run ratios native / nbrcoll).
   summary.py [DATA]   (default: data/ beside this file)"""
import csv
import glob
import os
import re
import statistics
import sys


def overlap_rows(path):
    rows, on = {}, False
    for line in open(path):
        if line.startswith("# Overlap"):
            on = True
            continue
        if on and line.startswith("# Cost model"):
            break
        f = line.split()
        if on and len(f) == 7 and not line.startswith("#"):
            rows[(f[0], f[1])] = (float(f[2]), float(f[5].rstrip("%")), float(f[6].rstrip("x")))
    return rows


MODE_ORDER = ("calls", "mpi", "thread")


def ordered(modes):
    return [m for m in MODE_ORDER if m in modes] + sorted(m for m in modes if m not in MODE_ORDER)


def overlap(data):
    runs = {}
    for path in glob.glob(os.path.join(data, "overlap-*.txt")):
        m = re.search(r"overlap-np(\d+)-rpn(\d+)-(\w+)-(\d+)\.txt$", path)
        runs.setdefault((int(m.group(1)), int(m.group(2))), {}).setdefault(m.group(3), []).append(overlap_rows(path))
    for (np, rpn), modes in sorted(runs.items(), reverse=True):
        names = ordered(modes)
        print(f"\n{np} ranks as 2 x {rpn}, busy work, medians of {len(modes[names[0]])} runs a mode:"
              f" pure us, overlap %, overall vs native ({' / '.join(names)})\n")
        print("| block | algo | pure us | overlap | overall vs native |")
        print("|---|---|---:|---:|---:|")
        keys = list(modes[names[0]][0].keys())
        for key in keys:
            cells = []
            for i, fmt in ((0, "{:.0f}"), (1, "{:.0f}%"), (2, "{:.2f}x")):
                cells.append(" / ".join(fmt.format(statistics.median(r[key][i] for r in modes[m]))
                                        for m in names))
            print(f"| {key[0]} | {key[1]} | " + " | ".join(cells) + " |")


def petsc(data):
    for path in sorted(glob.glob(os.path.join(data, "petsc-*its.csv"))):
        by = {}
        for r in csv.DictReader(open(path)):
            by.setdefault(r["mode"], {})[int(r["run"])] = r
        runs = sorted(by["native"])
        names = ordered(m for m in by if m != "native")
        print(f"\n{os.path.basename(path)}: {len(runs)} runs a mode, {by['native'][runs[0]]['scatters']} scatters a run\n")
        print("| phase | native | " + " | ".join(f"nbrcoll {m}" for m in names) + " | "
              + " | ".join(f"paired {m}" for m in names) + " |")
        print("|---|---:|" + "---:|" * (2 * len(names)))
        for ph in ("scatter_us", "matmult_us", "vecnorm_us", "solve_ms"):
            med = [statistics.median(float(by[m][r][ph]) for r in runs) for m in ["native"] + names]
            paired = []
            for m in names:
                q = [float(by["native"][r][ph]) / float(by[m][r][ph]) for r in runs]
                paired.append(f"{statistics.median(q):.2f} ({min(q):.2f}-{max(q):.2f})")
            print(f"| {ph} | " + " | ".join(f"{x:.1f}" for x in med) + " | " + " | ".join(paired) + " |")


def main():
    data = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
    overlap(data)
    petsc(data)
    for sub in sorted(glob.glob(os.path.join(data, "run*/"))):
        print(f"\n## {os.path.basename(os.path.normpath(sub))}")
        overlap(sub)
        petsc(sub)


if __name__ == "__main__":
    main()
