#!/usr/bin/env python3
"""Paired ratios (MPI's own / nbrcoll, auto) of the creation table per
experiment mode: min-max over the runs' rounds, `main` from every file's
old rounds. Usage: table.py FILE... (files named MODE-N.txt)."""
import re, sys, collections
cells = collections.defaultdict(list)
for path in sys.argv[1:]:
    mode = re.sub(r'-\d+\.txt$', '', path.split('/')[-1])
    head = None
    for line in open(path):
        m = re.match(r'== (old|new) round \d+ (\S+) (\S+)', line)
        if m:
            head = ('main' if m.group(1) == 'old' else mode, m.group(2), m.group(3)); continue
        m = re.match(r'\s+(.+?)\s+auto \(nbrcoll\).*\s([0-9.]+)x\s*$', line)
        if m and head:
            cells[(head[1], head[2], m.group(1), head[0])].append(float(m.group(2)))
modes = ['main', 'iwait', 'agree', 'plan', 'defer', 'none']
rows = sorted({k[:3] for k in cells}, key=lambda k: (k[0], k[1], ['create+free', 'create+free, new lists', 'create+2 calls+free', 'create+10 calls+free'].index(k[2])))
print('| where | graph | row | ' + ' | '.join(modes) + ' |')
print('|' + '---|' * (3 + len(modes)))
for r in rows:
    out = []
    for mo in modes:
        v = cells.get(r + (mo,), [])
        out.append(f'{min(v):.2f}-{max(v):.2f}' if v else '-')
    print(f'| {r[0]} | {r[1]} | {r[2]} | ' + ' | '.join(out) + ' |')
