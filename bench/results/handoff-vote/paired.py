#!/usr/bin/python3
"""paired.py FILE [A B]: keep-ab.sh's lines (mode run scatter_ms vecnorm_ms).
Without A B: per library mode, the median (range) over runs of native / mode
for the scatter, and the median for VecNorm (the control). With A B: the
median (range) of A / B per run (above 1: B faster)."""
import statistics as st
import sys

rows = {}
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) != 4 or not p[1].isdigit():
        continue
    rows.setdefault(int(p[1]), {})[p[0]] = (float(p[2]), float(p[3]))


def ratios(a, b, col):
    return [r[a][col] / r[b][col] for r in rows.values() if a in r and b in r]


if len(sys.argv) == 4:
    r = ratios(sys.argv[2], sys.argv[3], 0)
    print("%s/%s scatter paired median %.3f (%.2f-%.2f) n=%d" % (sys.argv[2], sys.argv[3], st.median(r), min(r), max(r), len(r)))
else:
    for m in sorted({m for r in rows.values() for m in r if m != "native"}):
        s, n = ratios("native", m, 0), ratios("native", m, 1)
        print("native/%s scatter paired median %.3f (%.2f-%.2f) n=%d; vecnorm %.3f" % (m, st.median(s), min(s), max(s), len(s), st.median(n)))
