#!/usr/bin/env python3
"""Summarises run.sh's output (one line per run and library, as pasted by
`paste - - -`, or three lines each): per library and run, the planning
call's (the 9th) time and the slowest of calls 3 to 9 over the median of
calls 2 to 8, and the 12 calls' total over native's of the same run.
    python3 summary.py runs.txt"""
import re
import statistics
import sys

text = open(sys.argv[1]).read()
rows = []  # (run, lib, [us per call], total)
for m in re.finditer(r"run (\d+): (\S+)\s+call [\d ]+total\s+us ([\d ]+)", text):
    nums = [float(x) for x in m.group(3).split()]
    rows.append((int(m.group(1)), m.group(2), nums[:-1], nums[-1]))
native = {r: total for r, lib, _, total in rows if lib == "native"}
for lib in dict.fromkeys(lib for _, lib, _, _ in rows):
    out = []
    for run, l, calls, total in rows:
        if l != lib:
            continue
        base = statistics.median(calls[1:8])
        out.append("run %d: call 9 %.2fx, slowest of 3-9 %.2fx, total %.2fx native"
                   % (run, calls[8] / base, max(calls[2:9]) / base, total / native[run]))
    print(lib + ":\n  " + "\n  ".join(out))
