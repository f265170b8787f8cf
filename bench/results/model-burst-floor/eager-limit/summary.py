"""Per table, size and plan: the medians of each run with Open MPI's
shared-memory eager limit at its default and at 32 KiB, their medians, the
ratio eager32k / default, and the model's prediction (the same machine file
for both).

    python3 bench/results/model-burst-floor/eager-limit/summary.py DIR   # DIR/{default,eager32k}-run-N-TABLE.csv
"""
import collections
import csv
import glob
import os
import statistics
import sys

PLANS = ["native", "linear", "leader", "aggregated"]


def main():
    runs = collections.defaultdict(list)  # (table, size, plan, setting) -> median_us per run
    predicted = {}
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "*-run-*-*.csv"))):
        setting, _, _, table = os.path.basename(path)[:-4].split("-")
        for r in csv.DictReader(open(path)):
            if r["algo"] in PLANS:
                key = (table, int(r["size_bytes"]), r["algo"])
                runs[key + (setting,)].append(float(r["median_us"]))
                predicted[key] = float(r["predicted_us"])
    print("table size plan: default runs (us) | eager32k runs | eager32k / default (medians) | model")
    for (table, size, plan), model in sorted(predicted.items(), key=lambda kv: (kv[0][0], kv[0][1], PLANS.index(kv[0][2]))):
        a, b = runs[(table, size, plan, "default")], runs[(table, size, plan, "eager32k")]
        print(f"{table:5} {size // 1024:3}K {plan:10}  {' '.join('%5.0f' % x for x in a)} | "
              f"{' '.join('%5.0f' % x for x in b)} | {statistics.median(b) / statistics.median(a):.2f} | {model:.0f}")


if __name__ == "__main__":
    main()
