#!/usr/bin/python3
"""Median wall and CPU microseconds of each graph set-up step, from the
`NBRCOLL_DEBUG=trace` lines on stdin ("graph setup (...) in us: node lists
411 (cpu 13), ...")."""
import re
import statistics
import sys

rows = []
for line in sys.stdin:
    if "graph setup (" not in line:
        continue
    steps = re.findall(r"([a-z ]+) ([0-9.]+) \(cpu ([0-9.]+)\)", line.split("in us:")[1])
    rows.append({name.strip(): (float(wall), float(cpu)) for name, wall, cpu in steps})
if not rows:
    sys.exit("no 'graph setup' trace lines on stdin")
print(f"{len(rows)} set-ups; median us: wall, CPU")
for name in rows[0]:
    wall = statistics.median(r[name][0] for r in rows)
    cpu = statistics.median(r[name][1] for r in rows)
    print(f"  {name:14s} {wall:8.0f} {cpu:8.1f}")
