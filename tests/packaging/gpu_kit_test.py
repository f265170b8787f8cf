#!/usr/bin/env python3
"""The GPU kit end to end on the fake device (ctest packaging.gpu_kit).

    gpu_kit_test.py SOURCE_DIR BUILD_DIR WORK_DIR

1. scripts/gpu-kit.sh packs BUILD_DIR's programs (--no-build) with Debian's
   Open MPI runtime; it fails when the kit and the tracked tree pass 64 MiB.
2. The kit is copied into an empty folder and its gpu-run.sh runs there with
   a clean environment (env -i) on the fake device at 1, 2 and 4 ranks
   (--quick). It must exit 0, every run must pass, the report folder must
   hold at most 8 files, and each run's MPI library must be the kit's.
3. Nothing of the system's MPI may be touched: with LD_DEBUG=libs every
   process the kit's loader started must have initialised only the kit's
   libraries (and the kit's libmpi, so that the check sees something), and
   no process may have loaded an MPI, PMIx, hwloc or libevent library from
   elsewhere. Where strace is installed, no process may even have tried to
   open a file of those or of /etc/openmpi outside the kit.
Exit status: 0 passed, 1 failed, 77 skipped (no apt-get or dpkg-deb here).
"""
import glob
import os
import re
import shutil
import subprocess
import sys

MPI_FILES = re.compile(r"openmpi|/pmix|libpmix|libmpi\.|libopen-(pal|rte)|libhwloc|libevent|mca_")
# Where a system keeps an installed MPI (a run's own session files in /tmp and
# /dev/shm are the kit's MPI at work).
SYSTEM = ("/usr/", "/lib", "/etc/", "/opt/", "/var/", "/sbin/", "/bin/")


def fail(msg):
    print("gpu_kit_test: FAIL: " + msg)
    sys.exit(1)


def ld_debug_check(ld_dir, kit):
    """Every process that ran through the kit's loader initialised only kit files."""
    kit_processes = 0
    saw_kit_mpi = False
    for path in glob.glob(os.path.join(ld_dir, "ld.*")):
        with open(path, errors="replace") as f:
            text = f.read()
        inits = re.findall(r"calling init: (\S+)", text)
        foreign_mpi = [p for p in inits if MPI_FILES.search(p) and not p.startswith(kit)]
        if foreign_mpi:
            fail("%s: a process loaded %s" % (os.path.basename(path), foreign_mpi[0]))
        if not any(p.startswith(kit) for p in inits):
            continue  # a tool of the system (bash, tee, date): its own libc
        kit_processes += 1
        outside = [p for p in inits if not p.startswith(kit)]
        if outside:
            fail("a process of the kit initialised %s (%s)" % (outside[0], os.path.basename(path)))
        saw_kit_mpi = saw_kit_mpi or any(p.startswith(kit) and "/libmpi.so" in p for p in inits)
    if kit_processes == 0 or not saw_kit_mpi:
        fail("the loader's debug output shows no process of the kit with the kit's libmpi")
    return kit_processes


def strace_check(trace_prefix, kit):
    """No process tried to open a file of an MPI outside the kit."""
    calls = 0
    for path in glob.glob(trace_prefix + ".*"):
        with open(path, errors="replace") as f:
            for line in f:
                m = re.search(r'(?:open|openat|execve|stat|newfstatat|access)\((?:AT_FDCWD, )?"([^"]*)"', line)
                if not m:
                    continue
                calls += 1
                target = m.group(1)
                if target.startswith(kit) or not target.startswith(SYSTEM):
                    continue
                if MPI_FILES.search(target):
                    fail("pid %s: %s" % (path.rsplit(".", 1)[1], line.strip()[:200]))
    if calls == 0:
        fail("strace recorded no file access")
    return calls


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    src, build, work = (os.path.abspath(a) for a in sys.argv[1:])
    if not shutil.which("apt-get") or not shutil.which("dpkg-deb"):
        print("gpu_kit_test: skipped: the kit is packed from Debian packages (apt-get, dpkg-deb)")
        return 77
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    packed = os.path.join(work, "packed")
    subprocess.run([os.path.join(src, "scripts", "gpu-kit.sh"), "--build-dir", build, "--no-build", "--out", packed],
                   check=True)
    empty = os.path.join(work, "empty")
    os.makedirs(empty)
    kit = os.path.join(empty, "kit")
    shutil.copytree(packed, kit, symlinks=True)
    ld_dir = os.path.join(work, "ld")
    os.makedirs(ld_dir)
    report = os.path.join(work, "report")
    command = ["env", "-i", "LD_DEBUG=libs", "LD_DEBUG_OUTPUT=" + os.path.join(ld_dir, "ld"), "/bin/bash",
               os.path.join(kit, "gpu-run.sh"), "--device", "fake", "--ranks", "1 2 4", "--quick", report]
    strace = shutil.which("strace")
    trace_prefix = os.path.join(work, "trace")
    if strace:
        command = [strace, "-f", "-ff", "-qq", "-e", "trace=open,openat,execve,stat,newfstatat,access", "-o",
                   trace_prefix] + command
    run = subprocess.run(command, cwd=empty, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(run.stdout[-6000:])
    if run.returncode != 0:
        fail("gpu-run.sh exited %d" % run.returncode)
    files = sorted(os.listdir(report))
    if len(files) > 8:
        fail("the report folder holds %d files: %s" % (len(files), files))
    for name in ("report.md", "selftest.csv", "bench.csv", "summary.txt", "log.txt", "kit.txt", "runs.tar.gz"):
        if name not in files or os.path.getsize(os.path.join(report, name)) == 0:
            fail("the report has no %s" % name)
    with open(os.path.join(report, "summary.txt")) as f:
        summary = f.read().splitlines()
    if len(summary) != 3:
        fail("summary.txt has %d lines, want one per run (3)" % len(summary))
    for line in summary:
        if ", 0 failed," not in line or "exit 0," not in line or "MPI " + kit + "/lib/libmpi.so" not in line:
            fail("a run did not pass with the kit's MPI: " + line)
    with open(os.path.join(report, "selftest.csv")) as f:
        ranks = {row.split(",")[0] for row in f.read().splitlines()[1:]}
    if ranks != {"1", "2", "4"}:
        fail("selftest.csv has rows of ranks %s, want 1, 2 and 4" % sorted(ranks))
    processes = ld_debug_check(ld_dir, kit)
    traced = strace_check(trace_prefix, kit) if strace else 0
    print("gpu_kit_test: passed: %d MiB kit; %d processes of the kit loaded only kit libraries; %s" % (
        sum(os.path.getsize(os.path.join(d, n)) for d, _, ns in os.walk(packed) for n in ns) >> 20, processes,
        "%d file accesses traced, none of an MPI outside the kit" % traced if strace else "strace not installed"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
