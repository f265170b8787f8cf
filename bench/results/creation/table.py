#!/usr/bin/env python3
"""Paired ratios (MPI's own / nbrcoll, auto) of the benchmark's creation
table from ab.sh outputs (this folder): old and new, min-max over every
file's rounds. Usage: table.py FILE..."""
import collections
import re
import sys

ROWS = ['create+free', 'create+free, new lists', 'create+2 calls+free', 'create+10 calls+free']
cells = collections.defaultdict(list)
for path in sys.argv[1:]:
    head = None
    for line in open(path):
        m = re.match(r'== (old|new) round \d+ (\S+) (\S+)', line)
        if m:
            head = (m.group(2), m.group(3), m.group(1))
            continue
        m = re.match(r'\s+(.+?)\s+auto \(nbrcoll\).*\s([0-9.]+)x\s*$', line)
        if m and head:
            cells[(head[0], head[1], m.group(1), head[2])].append(float(m.group(2)))
print('| where | graph | ' + ' | '.join(ROWS) + ' |')
print('|' + '---|' * (2 + len(ROWS)))
for where, graph in sorted({k[:2] for k in cells}):
    out = []
    for row in ROWS:
        o, n = cells.get((where, graph, row, 'old'), []), cells.get((where, graph, row, 'new'), [])
        f = lambda v: f'{min(v):.2f}-{max(v):.2f}' if v else '-'
        out.append(f'{f(o)} -> {f(n)}')
    print(f'| {where} | {graph} | ' + ' | '.join(out) + ' |')
