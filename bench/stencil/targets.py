"""Issue-style figures of bench/stencil/run.sh tables, per run folder:
each table's median paired ratio under auto, the median over the graph
exchanges' smallest-face cells under auto (the 8-cell figure of a 4-node
run: 4 tables x graph-w, graph-v), and how many auto and linear cells read
below 0.95x (and native-again's, the MPI's own against itself, where the
run has that control: what the noise alone puts below 0.95x).
   targets.py DIR [DIR...]   (each DIR: one run's *.txt tables)"""
import glob
import os
import statistics
import sys

EXCHANGES = ("cart-w", "cart-v", "graph-w", "graph-v")


def cells(folder):
    out = {}
    for path in sorted(glob.glob(os.path.join(folder, "*.txt"))):
        table = os.path.basename(path)[:-4]
        for line in open(path):
            f = line.split()
            if len(f) == 11 and f[0] in EXCHANGES and f[5] != "native":
                out[(table, f[0], int(f[1]), f[5])] = float(f[10].rstrip("x"))
    return out


def main():
    for folder in sys.argv[1:]:
        c = cells(folder)
        if not c:
            continue
        tables = sorted({k[0] for k in c})
        auto = {k: v for k, v in c.items() if k[3] == "auto"}
        per_table = [statistics.median(v for k, v in auto.items() if k[0] == t) for t in tables]
        small = []
        for t in tables:
            n0 = min(k[2] for k in c if k[0] == t)
            small += [v for k, v in auto.items() if k[0] == t and k[1].startswith("graph") and k[2] == n0]
        linear = [v for k, v in c.items() if k[3] == "linear"]
        print(f"{folder}: auto per table {' '.join(f'{m:.2f}' for m in per_table)} ({', '.join(tables)}); "
              f"graph smallest faces under auto {statistics.median(small):.2f} ({min(small):.2f}-{max(small):.2f}, "
              f"{len(small)} cells); below 0.95: auto {sum(v < 0.95 for v in auto.values())} of {len(auto)}, "
              f"linear {sum(v < 0.95 for v in linear)} of {len(linear)}" + control(c))


def control(c):
    again = [v for k, v in c.items() if k[3] == "native-again"]
    if not again:
        return ""
    return (f", native-again {sum(v < 0.95 for v in again)} of {len(again)} "
            f"(median {statistics.median(again):.2f}, {min(again):.2f}-{max(again):.2f})")


if __name__ == "__main__":
    main()
