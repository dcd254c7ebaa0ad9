"""Benchmark of DRMAA through python-drmaa and libdrmaa.so: prints figures, asserts nothing.

    python3 tests/bench/bench_drmaa.py [--runs 20] [--jobs 200]

On a fresh local cell (one execd, 8 slots; stopped and removed after): ``drmaa_init`` (the agent's start) and
``drmaa_exit``; ``drmaa_job_ps`` of a held job, ``drmaa_run_job`` of a held job (the
calls' round trip through the agent and the qmaster); one ``/bin/true`` from
``drmaa_run_job`` to the end of ``drmaa_wait`` (median and p90 of ``--runs``); ``--jobs``
jobs submitted one by one, then ``drmaa_synchronize`` of all and ``drmaa_wait`` of each
(the throughput of the reaper's waits).
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from clients.drmaa import library_path  # noqa: E402
from common.cell import Cell  # noqa: E402
from deploy.cell import LocalCell  # noqa: E402
from tests.cellconf import stop_cell, without_load_thresholds  # noqa: E402


def figures(times: list[float]) -> str:
    ordered = sorted(times)
    return (f"median {statistics.median(ordered) * 1000:7.1f} ms   "
            f"p90 {ordered[int(len(ordered) * 0.9)] * 1000:7.1f} ms   (n={len(ordered)})")


def timed(action, runs: int) -> list[float]:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        action()
        times.append(time.perf_counter() - began)
    return times


def run(runs: int, jobs: int) -> None:
    import drmaa
    template_of = {}

    def template(s: drmaa.Session, hold: bool) -> drmaa.JobTemplate:
        if hold not in template_of:
            jt = s.createJobTemplate()
            jt.remoteCommand = "/bin/true"
            jt.outputPath = ":/dev/null"
            jt.joinFiles = True
            if hold:
                jt.jobSubmissionState = drmaa.JobSubmissionState.HOLD_STATE
            template_of[hold] = jt
        return template_of[hold]

    s = drmaa.Session()
    starts = timed(lambda: (s.initialize(), s.exit()), 5)
    print(f"drmaa_init + drmaa_exit (agent start and end)   {figures(starts)}")
    s.initialize()
    held = s.runJob(template(s, True))
    print(f"drmaa_job_ps                                    "
          f"{figures(timed(lambda: s.jobStatus(held), runs * 5))}")
    print(f"drmaa_run_job (held job)                        "
          f"{figures(timed(lambda: s.runJob(template(s, True)), runs))}")
    s.control(drmaa.Session.JOB_IDS_SESSION_ALL, drmaa.JobControlAction.TERMINATE)
    s.synchronize([drmaa.Session.JOB_IDS_SESSION_ALL], 60, True)
    jt = template(s, False)
    s.wait(s.runJob(jt), 60)  # (warm-up)
    print(f"/bin/true: drmaa_run_job to drmaa_wait's end    "
          f"{figures(timed(lambda: s.wait(s.runJob(jt), 60), runs))}")
    began = time.perf_counter()
    ids = [s.runJob(jt) for _ in range(jobs)]
    submitted = time.perf_counter() - began
    s.synchronize(ids, 600, False)
    synchronized = time.perf_counter() - began
    for job_id in ids:
        s.wait(job_id, 0)
    reaped = time.perf_counter() - began
    print(f"{jobs} x /bin/true: submitted {submitted:6.2f} s, all ended (synchronize) "
          f"{synchronized:6.2f} s, all reaped (wait) {reaped:6.2f} s "
          f"({jobs / synchronized:6.1f} jobs/s)")
    s.exit()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=200)
    args = parser.parse_args()
    library = library_path()
    if library is None:
        print("libdrmaa.so was not built (no C compiler at installation): nothing to time")
        return 0
    root = Path(tempfile.mkdtemp(prefix="bench-drmaa-"))
    os.chmod(root, 0o755)
    local = LocalCell(Cell(root))
    try:
        local.up(execds=1, slots=8, port=0, load_interval=10.0)
        without_load_thresholds(local.cell)
        os.environ.update(PYGE_ROOT=str(root), PYGE_CELL=local.cell.name,
                          DRMAA_LIBRARY_PATH=library)
        run(args.runs, args.jobs)
    finally:
        stop_cell(local)
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
