"""The cost model's |error| (predicted / measured - 1, as each job's CSV
gives them) per setting, plan and size: the median over the setting's jobs
of each table, how many (table, size, plan) cells are within 20%, and the
median |error| of those cells at small (1-16 KiB) and large blocks.

    python3 bench/results/model-burst-floor/errors.py DIR   # DIR/{setting}-run-N/{rsg,moore}.csv
"""
import collections
import csv
import glob
import os
import statistics
import sys

PLANS = ["native", "linear", "leader", "aggregated"]


def main():
    errs = collections.defaultdict(list)  # (setting, table, size, plan) -> |error| per job
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "*-run-*", "*.csv"))):
        setting = os.path.basename(os.path.dirname(path)).split("-run-")[0]
        table = os.path.basename(path)[:-4]
        for r in csv.DictReader(open(path)):
            if r["algo"] in PLANS and r["predicted_us"]:
                e = float(r["predicted_us"]) / float(r["median_us"]) - 1
                errs[(setting, table, int(r["size_bytes"]), r["algo"])].append(e)
    for setting in sorted({k[0] for k in errs}):
        print(f"== {setting}: median over jobs of predicted / measured - 1, per plan ({', '.join(PLANS)})")
        cells = within = 0
        small, large = [], []
        for table in ("rsg", "moore"):
            for size in sorted({k[2] for k in errs if k[0] == setting and k[1] == table}):
                row = []
                for plan in PLANS:
                    v = errs.get((setting, table, size, plan))
                    if not v:
                        continue
                    med = statistics.median(v)
                    cells += 1
                    within += abs(med) <= 0.20
                    (small if size <= 16384 else large).append(abs(med))
                    row.append(f"{med:+5.0%}")
                print(f"  {table:5s} {size:>8d}  " + "  ".join(row))
        print(f"  cells within 20%: {within} of {cells}; median |error| of the cells at 1-16 KiB "
              f"{statistics.median(small):.0%}, from 256 KiB {statistics.median(large):.0%}")


if __name__ == "__main__":
    main()
