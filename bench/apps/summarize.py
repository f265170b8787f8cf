"""Summary of bench/apps/run.sh: per phase, each mode's median and range
over the runs, and the median of the per-run ratios native / nbrcoll."""
import statistics
import sys


def read(path):
    with open(path) as f:
        return {k: float(v) for k, v in (line.split() for line in f if line.strip())}


def main():
    out, name, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    native = [read(f"{out}/{name}.native.{r}.times") for r in range(1, runs + 1)]
    nbrcoll = [read(f"{out}/{name}.nbrcoll.{r}.times") for r in range(1, runs + 1)]
    print(f"{'phase':<12} {'native ms':>10} {'(min-max)':>17} {'nbrcoll ms':>11} {'(min-max)':>17} {'paired':>7}")
    for phase in native[0]:
        a = [run[phase] * 1e3 for run in native]
        b = [run[phase] * 1e3 for run in nbrcoll]
        paired = statistics.median(x / y for x, y in zip(a, b))
        print(f"{phase:<12} {statistics.median(a):10.3f} {min(a):8.3f}-{max(a):<8.3f} "
              f"{statistics.median(b):11.3f} {min(b):8.3f}-{max(b):<8.3f} {paired:6.2f}x")


if __name__ == "__main__":
    main()
