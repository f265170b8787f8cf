"""What the same plans' small calls took in main jobs of different days:
per folder, layout and table, the median over its jobs of each plan's
median time (us) at 1 and 16 KiB (every folder's forced-plan columns
measure the same plan code).

    python3 bench/results/model-hop/sessions.py DIR...   # DIR/new-LAYOUT-run-N/{rsg,moore}.csv
"""
import csv
import glob
import statistics
import sys

PLANS = ["native", "linear", "leader", "aggregated"]


def main():
    print(f"{'folder':45s} {'layout':6s} {'table':5s} " + " ".join(f"{p[:4]:>5s}{s:>4s}" for s in ("1K", "16K")
                                                                for p in PLANS))
    for root in sys.argv[1:]:
        for layout in ("2x8", "4x4"):
            for table in ("rsg", "moore"):
                cells = {}
                for path in sorted(glob.glob(f"{root}/new-{layout}-run-*/{table}.csv")):
                    for r in csv.DictReader(open(path)):
                        if r["algo"] in PLANS and int(r["size_bytes"]) in (1024, 16384):
                            cells.setdefault((int(r["size_bytes"]), r["algo"]), []).append(float(r["median_us"]))
                if cells:
                    print(f"{root.rstrip('/')[-45:]:45s} {layout:6s} {table:5s} " + " ".join(
                        f"{statistics.median(cells[(s, p)]):9.0f}" for s in (1024, 16384) for p in PLANS))


if __name__ == "__main__":
    main()
