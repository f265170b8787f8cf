"""Three forms of the floor against the same measurements: added to every
prediction (the library's reported time), the larger of the prediction and
the calibration's whole 8-byte exchange (the floor as a least call time),
and none. Each job's own calibration (DIR/new-LAYOUT-run-N/machine; the
old-* jobs of a round use that round's new file); burst kept. Per form:
cells (layout, table, size, plan) whose median error over the jobs is
within 20%, the median |error| of the cells at 1-16 KiB, and each cell's
signed median.

    python3 bench/results/model-burst-floor/floor-forms.py DIR NBRCOLL_MODEL
"""
import collections
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from variants import PLANS, job_tables, predict, with_key  # noqa: E402


def main():
    root, model = sys.argv[1], sys.argv[2]
    forms = ("added", "least", "none")
    errs = {f: collections.defaultdict(list) for f in forms}
    for layout, machine, table, pattern, measured in job_tables(root):
        floor = float(re.search(r"^floor = (\S+)", machine, re.M).group(1))
        exchange = float(re.search(r"on the previous one, ([\d.]+) us", machine).group(1))
        sizes = sorted({s for s, _ in measured})
        pred = predict(model, with_key(machine, "floor", 0), pattern, sizes)
        for s in sizes:
            for plan in PLANS:
                if (s, plan) not in measured:
                    continue
                p, m = pred[(s, plan)], measured[(s, plan)]
                for form, t in zip(forms, (p + floor, max(p, exchange), p)):
                    errs[form][(layout, table, s, plan)].append(t / m - 1)
    for form in forms:
        cells = {k: statistics.median(v) for k, v in errs[form].items()}
        within = sum(abs(e) <= 0.20 for e in cells.values())
        small = statistics.median(abs(e) for k, e in cells.items() if k[2] <= 16384)
        print(f"{form:6} cells within 20%: {within} of {len(cells)}; median |error| at 1-16 KiB {small:.0%}")
        for layout in sorted({k[0] for k in cells}):
            print(f"  {layout} " + " ".join(f"{k[1][0]}{k[2] // 1024}K/{k[3][:3]} {e:+.0%}"
                                            for k, e in sorted(cells.items()) if k[0] == layout and k[2] <= 16384))


if __name__ == "__main__":
    main()
