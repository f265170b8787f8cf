#!/usr/bin/env python3
"""A rank that dies (SIGKILL) while the others wait for it inside nbrcoll.

    rank_loss.py --victim V --call N [--late S] [--inside] [--watchdog]
                 [--expect REGEX]... [--keep-alive] -- LAUNCH...

LAUNCH... is the launch line of tests/mpi/rank_loss.cpp with libnbrcoll
preloaded, as nbrcoll_add_mpi_test builds it with PRELOAD (Open MPI:
LD_PRELOAD in the environment, passed on by -x; MPICH: -genv LD_PRELOAD
LIB); this script appends the program's arguments (V N, --late, --inside,
and a word of its own that finds the job's processes with pgrep -f).

It runs the line twice: without nbrcoll (LD_PRELOAD emptied in the
environment and in -genv) and with it. Each run must end by itself within
60 s, the launcher exiting non-zero and reporting the lost rank (Open MPI:
"process rank V with PID ... exited on signal 9"; MPICH's Hydra: "BAD
TERMINATION" and "signal 9"), and no process of the
job may be left 3 s after the launcher ended. The run with nbrcoll must take
at most twice the time of the run without it plus 5 s, and print a line
matching each --expect. --watchdog (with NBRCOLL_WATCHDOG=1 in the
environment): a watchdog line must name call N and, among the ranks it
waits for, V.

--keep-alive (Open MPI): only the run with nbrcoll, under mpirun
--enable-recovery, which keeps the other ranks alive after the death: a
watchdog line naming V must come after the death; then SIGTERM to mpirun
must end the job within 15 s, nothing left.
Exit status 0: passed, 1: failed.
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import threading
import time

LIMIT = 60  # seconds a run may take before it counts as hung
LEFT_GRACE = 3  # seconds the job's processes may take to go after the launcher


class Run:
    """One launch, its output collected line by line (and echoed, prefixed)."""

    def __init__(self, name, argv, env):
        self.name = name
        self.lines = []
        self.start = time.monotonic()
        self.proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, text=True, errors="replace")
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.seconds = None

    def _read(self):
        for line in self.proc.stdout:
            line = line.rstrip("\n")
            self.lines.append(line)
            print(f"[{self.name}] {line}", flush=True)

    def wait(self, seconds):
        """The exit status, or None if the launcher did not end in time."""
        try:
            rc = self.proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            return None
        self.seconds = time.monotonic() - self.start
        self.reader.join(timeout=5)
        return rc

    def index_of(self, pattern, after=0):
        for i in range(after, len(self.lines)):
            if re.search(pattern, self.lines[i]):
                return i
        return None


def job_processes(marker):
    out = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def kill_job(marker):
    for pid in job_processes(marker):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def left_running(marker):
    """The job's processes still there LEFT_GRACE s after its launcher ended."""
    deadline = time.monotonic() + LEFT_GRACE
    while True:
        pids = job_processes(marker)
        if not pids or time.monotonic() > deadline:
            return pids
        time.sleep(0.2)


def watchdog_pattern(args):
    return (rf"^\[nbrcoll \d+\] watchdog: MPI_Neighbor_allgather #{args.call} on a graph communicator .* "
            rf"waits in the MPI for messages from (\d+,)*{args.victim}\b")


def lost_rank_reported(run, victim):
    """Open MPI names the lost rank. MPICH 4.0.2's Hydra names the pid of the
    lowest rank that ended by a signal, which may be one its own clean-up
    killed (SIGKILL too): there the report of a process killed by signal 9."""
    if run.index_of(rf"process rank {victim} with PID \d+ on node \S+ exited on signal 9") is not None:
        return True
    return all(run.index_of(p) is not None
               for p in (r"BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES", r"(signal 9|SIGNAL: 9)"))


def without_preload(argv, env):
    """The same launch without libnbrcoll: LD_PRELOAD emptied in the environment and in -genv."""
    env = dict(env, LD_PRELOAD="")
    out = []
    i = 0
    while i < len(argv):
        if argv[i] == "-genv" and i + 2 < len(argv) and argv[i + 1] == "LD_PRELOAD":
            i += 3
            continue
        out.append(argv[i])
        i += 1
    return out, env


def run_to_end(name, argv, env, marker, problems):
    run = Run(name, argv, env)
    rc = run.wait(LIMIT)
    if rc is None:
        problems.append(f"{name}: the job did not end within {LIMIT} s")
        run.proc.kill()
        kill_job(marker)
        run.wait(10)
        return None
    print(f"[{name}] launcher exited {rc} after {run.seconds:.2f} s", flush=True)
    if rc == 0:
        problems.append(f"{name}: the launcher exited 0")
    left = left_running(marker)
    if left:
        problems.append(f"{name}: processes {left} still running {LEFT_GRACE} s after the launcher ended")
        kill_job(marker)
    return run


def keep_alive(args, argv, env, marker, expects, problems):
    # mpirun's option goes right after the launcher's name.
    run = Run("nbrcoll, --enable-recovery", argv[:1] + ["--enable-recovery"] + argv[1:], env)
    deadline = time.monotonic() + LIMIT
    death = None
    seen = None
    while time.monotonic() < deadline and run.proc.poll() is None:
        if death is None:
            death = run.index_of(rf"^rank_loss: rank {args.victim} \(pid \d+\) dies")
        if death is not None:
            seen = run.index_of(watchdog_pattern(args), death + 1)
            if seen is not None:
                break
        time.sleep(0.1)
    for e in expects:
        if run.index_of(e) is None:
            problems.append(f"no line matches '{e}'")
    if run.proc.poll() is not None:
        problems.append("the job ended by itself: --enable-recovery did not keep it alive")
    elif seen is None:
        problems.append(f"no watchdog line naming call #{args.call} and rank {args.victim} after the death")
    if run.proc.poll() is None:
        sent = time.monotonic()
        run.proc.send_signal(signal.SIGTERM)
        rc = run.wait(15)
        if rc is None:
            problems.append("mpirun did not end within 15 s of SIGTERM")
            run.proc.kill()
            run.wait(10)
        else:
            print(f"[{run.name}] launcher exited {rc} {time.monotonic() - sent:.2f} s after SIGTERM", flush=True)
    left = left_running(marker)
    if left:
        problems.append(f"processes {left} still running {LEFT_GRACE} s after the launcher ended")
        kill_job(marker)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--victim", type=int, required=True)
    p.add_argument("--call", type=int, required=True)
    p.add_argument("--late", type=float, default=0)
    p.add_argument("--inside", action="store_true")
    p.add_argument("--watchdog", action="store_true")
    p.add_argument("--expect", action="append", default=[])
    p.add_argument("--keep-alive", action="store_true")
    p.add_argument("launch", nargs=argparse.REMAINDER)
    args = p.parse_args()
    launch = args.launch[1:] if args.launch[:1] == ["--"] else args.launch
    if not launch:
        p.error("no launch line after --")
    marker = f"rank-loss-{os.getpid()}-{time.time_ns()}"
    program = [str(args.victim), str(args.call), "--late", str(args.late)]
    if args.inside:
        program.append("--inside")
    argv = launch + program + ["--marker", marker]
    env = dict(os.environ)
    problems = []
    expects = list(args.expect) + ([watchdog_pattern(args)] if args.watchdog else [])

    if args.keep_alive:
        keep_alive(args, argv, env, marker, expects, problems)
    else:
        plain = run_to_end("without nbrcoll", *without_preload(argv, env), marker, problems)
        with_lib = run_to_end("nbrcoll", argv, env, marker, problems)
        for run in (plain, with_lib):
            if run is not None and not lost_rank_reported(run, args.victim):
                problems.append(f"{run.name}: the launcher's output does not report the loss of rank {args.victim}")
        if with_lib is not None:
            for e in expects:
                if with_lib.index_of(e) is None:
                    problems.append(f"nbrcoll: no line matches '{e}'")
        if plain is not None and with_lib is not None:
            bound = 2 * plain.seconds + 5
            print(f"rank_loss: the job ended after {plain.seconds:.2f} s without nbrcoll, "
                  f"{with_lib.seconds:.2f} s with it (bound {bound:.2f} s)", flush=True)
            if with_lib.seconds > bound:
                problems.append(f"with nbrcoll the job took {with_lib.seconds:.2f} s, more than {bound:.2f} s")
    for msg in problems:
        print("FAIL: " + msg, flush=True)
    if not problems:
        print("rank_loss: passed", flush=True)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
