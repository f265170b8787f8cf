"""The cost model with and without the calibration's hop, on the same
measurements: every job under DIR (DIR/{old,new}-LAYOUT-run-N, with the
machine file of that round's new job) against nbrcoll-model's predictions
from that machine as measured and with hop = 0. A machine file without a
hop (calibrated before it was measured) takes the value --hop gives its
layout (e.g. --hop 2x8=230,4x4=265: what a calibration of each read). The
model must be built with hop.patch applied (it knows the key). Per variant and layout: how many (table,
size, plan) cells have a median |error| over the jobs within 20% (native
against linear's prediction, as nbrcoll-bench sets them side by side), the
median |error| of the cells at 1-16 KiB and from 256 KiB, and the cells
beyond 20% with their signed medians.

    python3 bench/results/model-hop/hop.py NBRCOLL_MODEL [--hop LAYOUT=US,...] DIR...
"""
import collections
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "model-burst-floor"))
from variants import job_tables, predict, with_key  # noqa: E402

PLANS = ["native", "linear", "leader", "aggregated"]
VARIANTS = {"with the hop": lambda m: m, "hop = 0": lambda m: with_key(m, "hop", 0)}


def main():
    model, roots = sys.argv[1], sys.argv[2:]
    given = {}
    if roots and roots[0] == "--hop":
        given = dict(kv.split("=") for kv in roots[1].split(","))
        roots = roots[2:]

    def with_hop(machine, layout):
        if re.search(r"^hop = ", machine, re.M):
            return machine
        return machine + "hop = %s\n" % given.get(layout, 0)

    for name, change in VARIANTS.items():
        errors = collections.defaultdict(list)
        for root in roots:
            for layout, machine, table, pattern, measured in job_tables(root):
                sizes = sorted({s for s, _ in measured})
                pred = predict(model, change(with_hop(machine, layout)), pattern, sizes)
                for s in sizes:
                    for plan in PLANS:
                        p = pred[(s, "linear" if plan == "native" else plan)]
                        errors[(root, layout, table, s, plan)].append(p / measured[(s, plan)] - 1)
        medians = {cell: statistics.median(v) for cell, v in errors.items()}
        print(f"== {name}")
        for key in sorted({c[:2] for c in medians}):
            cells = {c: e for c, e in medians.items() if c[:2] == key}
            within = sum(abs(e) <= 0.20 for e in cells.values())
            small = statistics.median(abs(e) for c, e in cells.items() if c[3] <= 16384)
            large = statistics.median(abs(e) for c, e in cells.items() if c[3] > 16384)
            print(f"  {key[0]} {key[1]}: {within} of {len(cells)} cells within 20%; median |error| "
                  f"1-16 KiB {small:.0%}, from 256 KiB {large:.0%}")
            print("    beyond 20%: " + ", ".join(f"{c[2]} {c[3] // 1024}K {c[4]} {e:+.0%}"
                                                 for c, e in sorted(cells.items()) if abs(e) > 0.20))


if __name__ == "__main__":
    main()
