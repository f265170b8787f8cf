"""Main jobs of two settings side by side (run.sh): per setting, table and
size, auto's paired speed-up over the best of native and every plan, the
median over the setting's jobs and their range; how many cells are within
10% and 5% of the best; and the cost model's error per plan and size
(predicted / measured - 1, median over jobs).

    python3 bench/results/main-job-iters/summary.py DIR   # DIR/{old,new}-run-N/{rsg,moore}.csv
"""
import collections
import csv
import glob
import os
import statistics
import sys

PLANS = ["native", "linear", "leader", "aggregated", "auto"]


def main():
    root = sys.argv[1]
    # (setting, table, size) -> job -> algo -> row
    cells = collections.defaultdict(dict)
    for path in sorted(glob.glob(os.path.join(root, "*-run-*", "*.csv"))):
        job = os.path.basename(os.path.dirname(path))
        setting = job.split("-run-")[0]
        table = os.path.basename(path)[:-4]
        for r in csv.DictReader(open(path)):
            cells[(setting, table, int(r["size_bytes"]))].setdefault(job, {})[r["algo"]] = r
    settings = sorted({k[0] for k in cells})
    for setting in settings:
        print(f"== {setting}: auto / best paired, median [range] over jobs; model error per plan (median over jobs)")
        within = [0, 0, 0]
        for key in sorted(k for k in cells if k[0] == setting):
            jobs = cells[key]
            ratios, errors = [], collections.defaultdict(list)
            for rows in jobs.values():
                best = max([1.0] + [float(rows[a]["paired_vs_native"]) for a in PLANS[1:-1] if a in rows])
                ratios.append(float(rows["auto"]["paired_vs_native"]) / best)
                for a in PLANS:
                    if a in rows and rows[a]["predicted_us"]:
                        errors[a].append(float(rows[a]["predicted_us"]) / float(rows[a]["median_us"]) - 1)
            med = statistics.median(ratios)
            within[0] += 1
            within[1] += med >= 0.90
            within[2] += med >= 0.95
            iters = next(iter(jobs.values()))["auto"]["iters"]
            err = " ".join(f"{a} {statistics.median(v):+.0%}" for a, v in errors.items())
            print(f"  {key[1]:5s} {key[2]:>8d} iters {iters:>2s}: {med:.2f} [{min(ratios):.2f}-{max(ratios):.2f}]  {err}")
        print(f"  within 10%: {within[1]} of {within[0]}; within 5%: {within[2]}")


if __name__ == "__main__":
    main()
