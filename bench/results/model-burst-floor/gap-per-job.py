"""Per job: the calibrated floor against what the job's own 1 KiB calls took
beyond the model without a floor (measured - predicted, linear, leader and
aggregated on both tables: the median and the range of those six). Shows
whether the floor the calibration measures is the wait the job's calls
meet.

    python3 bench/results/model-burst-floor/gap-per-job.py NBRCOLL_MODEL DIR [DIR ...]   # DIR/new-*-run-N
"""
import csv
import glob
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from variants import TABLES, predict, with_key  # noqa: E402


def main():
    model = sys.argv[1]
    for root in sys.argv[2:]:
        for job in sorted(glob.glob(os.path.join(root, "new-*-run-*"))):
            if not os.path.isdir(job):
                continue
            machine = open(os.path.join(job, "machine")).read()
            floor = float(re.search(r"^floor = (\S+)", machine, re.M).group(1))
            gaps = []
            for table, pattern in TABLES.items():
                rows = list(csv.DictReader(open(os.path.join(job, table + ".csv"))))
                measured = {(int(r["size_bytes"]), r["algo"]): float(r["median_us"]) for r in rows}
                pred = predict(model, with_key(machine, "floor", 0), pattern, [1024])
                gaps += [measured[(1024, p)] - pred[(1024, p)] for p in ("linear", "leader", "aggregated")]
            print(f"{os.path.relpath(job, os.path.dirname(root.rstrip('/')) or '.'):32} floor {floor:4.0f} us; "
                  f"1 KiB beyond the model: median {statistics.median(gaps):5.0f} us, range {min(gaps):5.0f} to {max(gaps):5.0f}")


if __name__ == "__main__":
    main()
