#!/usr/bin/env python3
"""The cost model's error per plan and size on a main job's own measurements
(bench/run_main_job.sh OUT: OUT/rsg.txt, OUT/moore.txt and the machine file
OUT/machine it calibrated, whose nodes and ranks-per-node give the
layout), predicted by each nbrcoll-model binary given (older and newer
builds side by side). Error = predicted / measured - 1; the median |error|
over the job's sizes.
    python3 errors.py JOB_DIR NBRCOLL_MODEL..."""
import re
import statistics
import subprocess
import sys

TABLES = [("rsg", ["--pattern", "rsg", "--density", "0.6"], "1K,16K,256K,1M,2M,4M"),
          ("moore", ["--pattern", "moore", "--dims", "2", "--radius", "1"], "1K,16K,256K,1M,2M")]
ROW = r"\s+(\d+[KM])\s+(linear|leader|aggregated)\s+([\d.]+)"


def measured(path):
    out = {}
    for line in open(path):
        m = re.match(ROW + r"\s+[\d.]+\s+[\d.]+\s+[\d.]+x", line)
        if m and (m.group(1), m.group(2)) not in out:  # the first table: the timed medians
            out[(m.group(1), m.group(2))] = float(m.group(3))
    return out


def layout(job):
    keys = dict(re.findall(r"^(nodes|ranks-per-node) = (\d+)$", open(job + "/machine").read(), re.M))
    return ["--nodes", keys.get("nodes", "2"), "--ranks-per-node", keys.get("ranks-per-node", "8")]


def predicted(model, job, pattern, sizes):
    text = subprocess.run([model] + pattern + ["--machine", job + "/machine"] + layout(job) + ["--sizes", sizes],
                          capture_output=True, text=True, check=True).stdout
    return {(m.group(1), m.group(2)): float(m.group(3)) for m in map(lambda l: re.match(ROW, l), text.splitlines()) if m}


job = sys.argv[1]
for name, pattern, sizes in TABLES:
    meas = measured(f"{job}/{name}.txt")
    for model in sys.argv[2:]:
        pred = predicted(model, job, pattern, sizes)
        for algo in ("linear", "leader", "aggregated"):
            errs = [pred[(s, algo)] / meas[(s, algo)] - 1 for s in sizes.split(",")]
            print("%-6s %-40s %-10s median |error| %4.0f%%  per size %s" % (
                name, model, algo, 100 * statistics.median(abs(e) for e in errs),
                " ".join("%+.0f%%" % (100 * e) for e in errs)))
