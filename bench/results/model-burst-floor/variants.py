"""The cost model with and without the calibration's burst and floor, on the
same measurements: every job of run.sh (old and new builds alike; the plans'
rows measure the same code) against nbrcoll-model's predictions from the
machine file of that round's new job, with its burst and floor kept or set
to 0; and the floor charged once per dependent hop (linear 1, leader 2,
aggregated 3) as a further variant. Per variant: how many (layout, table,
size, plan) cells have a median |error| over the jobs within 20%, the
median of the cells' |error| at 1-16 KiB, and the signed medians per cell.

    python3 bench/results/model-burst-floor/variants.py DIR NBRCOLL_MODEL
"""
import collections
import csv
import glob
import os
import re
import statistics
import subprocess
import sys
import tempfile

TABLES = {"rsg": ["--pattern", "rsg", "--density", "0.6"],
          "moore": ["--pattern", "moore", "--dims", "2", "--radius", "1"]}
PLANS = {"linear": 1, "leader": 2, "aggregated": 3}  # dependent hops
ROW = r"\s+(\d+[KM])\s+(linear|leader|aggregated)\s+([\d.]+)"


def size_of(text):
    return int(text[:-1]) * (1024 if text[-1] == "K" else 1 << 20)


def predict(model, machine, pattern, sizes):
    with tempfile.NamedTemporaryFile("w", suffix=".machine") as f:
        f.write(machine)
        f.flush()
        keys = dict(re.findall(r"^(nodes|ranks-per-node) = (\d+)$", machine, re.M))
        text = subprocess.run([model] + pattern + ["--machine", f.name, "--nodes", keys["nodes"], "--ranks-per-node",
                                                   keys["ranks-per-node"], "--sizes",
                                                   ",".join("%dK" % (s // 1024) for s in sizes)],
                              capture_output=True, text=True, check=True).stdout
    out = {}
    for line in text.splitlines():
        m = re.match(ROW, line)
        if m and (size_of(m.group(1)), m.group(2)) not in out:  # the first table
            out[(size_of(m.group(1)), m.group(2))] = float(m.group(3))
    return out


def with_key(machine, key, value):
    return re.sub(r"^%s = .*$" % key, "%s = %s" % (key, value), machine, flags=re.M)


VARIANTS = {
    "neither": lambda m: with_key(with_key(m, "burst", 0), "floor", 0),
    "burst": lambda m: with_key(m, "floor", 0),
    "floor": lambda m: with_key(m, "burst", 0),
    "both": lambda m: m,
}


def job_tables(root):
    """Every job's tables under root (ROOT/{old,new}-LAYOUT-run-N/{rsg,moore}.csv)
    with the machine file of that round's new job: (layout, machine text,
    table, nbrcoll-model pattern options, {(size, plan): median us})."""
    for job in sorted(glob.glob(os.path.join(root, "*-run-*"))):
        if not os.path.isdir(job):
            continue
        _, layout, _, rnd = os.path.basename(job).split("-")
        machine_path = os.path.join(root, f"new-{layout}-run-{rnd}", "machine")
        if not os.path.exists(machine_path):
            continue
        machine = open(machine_path).read()
        for table, pattern in TABLES.items():
            rows = list(csv.DictReader(open(os.path.join(job, table + ".csv"))))
            yield layout, machine, table, pattern, {(int(r["size_bytes"]), r["algo"]): float(r["median_us"])
                                                    for r in rows}


def main():
    root, model = sys.argv[1], sys.argv[2]
    errors = collections.defaultdict(lambda: collections.defaultdict(list))
    for layout, machine, table, pattern, measured in job_tables(root):
        floor = float(re.search(r"^floor = (\S+)", machine, re.M).group(1))
        sizes = sorted({s for s, _ in measured})
        for name, change in VARIANTS.items():
            pred = predict(model, change(machine), pattern, sizes)
            for s in sizes:
                for plan, hops in PLANS.items():
                    cell = (layout, table, s, plan)
                    errors[name][cell].append(pred[(s, plan)] / measured[(s, plan)] - 1)
                    if name in ("floor", "both"):
                        hopped = pred[(s, plan)] + (hops - 1) * floor
                        errors[name + "+hops"][cell].append(hopped / measured[(s, plan)] - 1)
    for name, cells in errors.items():
        medians = {cell: statistics.median(v) for cell, v in cells.items()}
        within = sum(abs(e) <= 0.20 for e in medians.values())
        small = statistics.median(abs(e) for cell, e in medians.items() if cell[2] <= 16384)
        print(f"{name:11s} cells within 20%: {within} of {len(medians)}; median |error| at 1-16 KiB {small:.0%}")
        for layout in sorted({c[0] for c in medians}):
            print(f"  {layout} " + " ".join(f"{t[0]}{s // 1024}K/{p[:3]} {e:+.0%}" for (l, t, s, p), e in
                                              sorted(medians.items()) if l == layout and s <= 262144))


if __name__ == "__main__":
    main()
