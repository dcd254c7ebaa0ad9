"""Benchmark of a job's start on the execution host: prints figures, asserts nothing.

    python3 tests/bench/bench_job_start.py [--jobs 40]

A shepherd launched through the fork server (execd.launcher, no daemons) for each of
``--jobs`` ``true`` jobs, one after the other, without cgroups: the median and p90 of
launch to result, plain, with ``h_vmem`` (a limit the job's child sets before its exec:
before issue 26 only such jobs, and jobs in cgroups, forked a Python child) and with a
prolog. Beside it, the floor the shepherd's start of the job's process stands on
in this process's size: ``os.fork`` + exec of ``/bin/true``, against subprocess's vfork
(issue 26: the job's child now opens the owner's output files itself, between a fork
and its exec, so that a FIFO or a slow file system holds only the job).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from execd import jobdir  # noqa: E402
from execd.launcher import Launcher  # noqa: E402
from tests.integration.test_shepherd import make_spec, wait_result  # noqa: E402


def _ms(values: list[float]) -> str:
    ordered = sorted(values)
    return (f"median {statistics.median(ordered) * 1000:6.1f} ms   "
            f"p90 {ordered[int(len(ordered) * 0.9)] * 1000:6.1f} ms")


def starts(launcher: Launcher, work: Path, jobs: int, **changes: Any) -> list[float]:
    times = []
    for i in range(jobs):
        spec = make_spec(work, job_id=len(list(work.iterdir())) + 1, **changes)
        job_dir = work / f"job.{spec['job_id']}"
        jobdir.write_spec(job_dir, spec, b"true\n")
        began = time.perf_counter()
        launcher.launch(job_dir)
        wait_result(job_dir, timeout=60)
        times.append(time.perf_counter() - began)
    return times[min(3, jobs - 1):]  # (the first ones warm caches up)


def process_starts(count: int = 30) -> tuple[list[float], list[float]]:
    forked, vforked = [], []
    for _ in range(count):
        began = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            os.execv("/bin/true", ["true"])
        os.waitpid(pid, 0)
        forked.append(time.perf_counter() - began)
        began = time.perf_counter()
        subprocess.run(["/bin/true"], check=True)
        vforked.append(time.perf_counter() - began)
    return forked, vforked


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=40)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="pyge-bench-start-"))
    prolog = work / "prolog.sh"
    prolog.write_text("#!/bin/sh\nexit 0\n")
    prolog.chmod(0o755)
    launcher = Launcher()
    launcher.start()
    try:
        print(f"launch to result, {args.jobs} true jobs each (load {os.getloadavg()[0]:.1f})")
        print(f"  plain         {_ms(starts(launcher, work, args.jobs))}")
        print(f"  with h_vmem   "
              f"{_ms(starts(launcher, work, args.jobs, limits={'h_vmem': 4e9}))}")
        print(f"  with prolog   {_ms(starts(launcher, work, args.jobs, prolog=str(prolog)))}")
        forked, vforked = process_starts()
        print(f"fork+exec       {_ms(forked)}")
        print(f"vfork+exec      {_ms(vforked)}")
    finally:
        launcher.stop()
        subprocess.run(["rm", "-rf", str(work)], check=False)


if __name__ == "__main__":
    main()
