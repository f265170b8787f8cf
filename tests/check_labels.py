#!/usr/bin/env python3
"""Every test of a build tree carries a label of its kind and only known labels.

    check_labels.py BUILD_DIR

Kinds: unit (no MPI job), mpi (under mpirun), device (device backends),
bench (nbrcoll-bench and its tools under mpirun). Sets: quick (the
edit-compile-test loop), extended (long runs only CI makes), mpich (the
MPICH pass), asan (the MPI tests of the sanitized pass). A test is never
both quick and extended. Exit 1 naming every test that breaks a rule;
tests/README.md documents the labels.
"""
import json
import subprocess
import sys

KINDS = {"unit", "mpi", "device", "bench"}
SETS = {"quick", "extended", "mpich", "asan"}


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = subprocess.run(["ctest", "--test-dir", sys.argv[1], "--show-only=json-v1"], check=True,
                         capture_output=True, text=True).stdout
    tests = json.loads(out)["tests"]
    bad = []
    for t in tests:
        labels = set()
        for p in t.get("properties", []):
            if p["name"] == "LABELS":
                labels.update(p["value"])
        if not labels & KINDS:
            bad.append(f"{t['name']}: no kind label ({', '.join(sorted(KINDS))}); has {sorted(labels)}")
        if labels - KINDS - SETS:
            bad.append(f"{t['name']}: unknown labels {sorted(labels - KINDS - SETS)}")
        if {"quick", "extended"} <= labels:
            bad.append(f"{t['name']}: both quick and extended")
    for line in bad:
        print(line)
    print(f"{len(tests)} tests, {len(bad)} label problems")
    return 1 if bad or not tests else 0


if __name__ == "__main__":
    sys.exit(main())
