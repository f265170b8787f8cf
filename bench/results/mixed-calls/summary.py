"""run.sh's tables: per model and build, auto's paired speed-up over the
MPI's own and auto against the best of native and every plan per size
(best paired speed-up / auto's), min-max over the runs.
   summary.py DIR"""
import glob
import os
import re
import sys


def rows(path):
    out = {}
    for line in open(path):
        f = line.split()
        if len(f) == 7 and f[0] in ("1K", "4K", "16K") and f[6].endswith("x"):
            out[(f[0], f[1])] = float(f[6].rstrip("x"))
    return out


def main():
    runs = {}
    for path in glob.glob(os.path.join(sys.argv[1], "*-*-*.txt")):
        m = re.search(r"(\w+)-(old|new)-(\d+)\.txt$", path)
        if m:
            runs.setdefault((m.group(1), m.group(2)), []).append(rows(path))
    print("| model | build | size | auto vs native | best plan vs auto |")
    print("|---|---|---|---|---|")
    for (model, build), tables in sorted(runs.items()):
        for size in ("1K", "4K", "16K"):
            auto = [t[(size, "auto")] for t in tables if (size, "auto") in t]
            gap = [max(v for (s, a), v in t.items() if s == size and a != "auto") / t[(size, "auto")]
                   for t in tables if (size, "auto") in t]
            if auto:
                print(f"| {model} | {build} | {size} | {min(auto):.2f}-{max(auto):.2f} ({len(auto)} runs) |"
                      f" {min(gap):.2f}-{max(gap):.2f} |")


if __name__ == "__main__":
    main()
