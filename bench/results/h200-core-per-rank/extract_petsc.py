"""KSP ex2's -log_view outputs (petsc-MODE-RUN.txt in DIR) to one CSV on
stdout: per run and mode, the scatter (VecScatterBegin + VecScatterEnd a
scatter), MatMult and VecNorm a call in us, KSPSolve in ms, and the count of
scatters (Max column: the slowest rank's).
   extract_petsc.py DIR > petsc.csv"""
import glob
import os
import re
import sys

EVENTS = ("VecScatterBegin", "VecScatterEnd", "MatMult", "VecNorm", "KSPSolve")


def times(path):
    seen = {}
    for line in open(path):
        f = line.split()
        if f and f[0] in EVENTS and f[0] not in seen:
            seen[f[0]] = (int(f[1]), float(f[3]))
    calls = seen["VecScatterBegin"][0]
    return (
        (seen["VecScatterBegin"][1] + seen["VecScatterEnd"][1]) / calls * 1e6,
        seen["MatMult"][1] / seen["MatMult"][0] * 1e6,
        seen["VecNorm"][1] / seen["VecNorm"][0] * 1e6,
        seen["KSPSolve"][1] * 1e3,
        calls,
    )


def main():
    print("run,mode,scatter_us,matmult_us,vecnorm_us,solve_ms,scatters")
    rows = []
    for path in glob.glob(os.path.join(sys.argv[1], "petsc-*-*.txt")):
        m = re.search(r"petsc-(\w+)-(\d+)\.txt$", path)
        if m:
            rows.append((int(m.group(2)), m.group(1), times(path)))
    for run, mode, t in sorted(rows):
        print(f"{run},{mode},{t[0]:.2f},{t[1]:.2f},{t[2]:.2f},{t[3]:.3f},{t[4]}")


if __name__ == "__main__":
    main()
