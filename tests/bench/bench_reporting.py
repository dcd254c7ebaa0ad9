"""Benchmark of the reporting file's consumable records (issue 31 item 3): what a batch
that starts or ends a task costs the qmaster when ``report_variables`` asks for
consumable records, with ``--tasks`` tasks running. Prints figures, asserts nothing.

    python3 -m tests.bench.bench_reporting [--tasks 5000] [--rounds 5]

No daemons: a qmaster core (tests.unit.test_qmaster_core.Harness) with one host of
``--tasks`` + 1 slots and ``--tasks`` running jobs; then, per round, one job's start and
its end, each as the writer records it (``ReportingWriter.note_batch`` of the batch's
events), with ``report_variables`` NONE (no consumable record: the levels are not worked
out) and ``slots`` (they are, once per batch). Each figure is the median of
``--rounds`` rounds, in milliseconds per batch.
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from clients.api import job_request
from qmaster.defaults import exechost_defaults
from tests.unit.test_qmaster_core import ALICE, ROOT, Harness


def _running_cell(root: Path, tasks: int) -> Harness:
    qm = Harness(root, auto_add_hosts=True, default_slots=tasks + 1)
    qm.register("h1")
    reqs = [job_request("/bin/true", binary=True) for _ in range(tasks)]
    job_ids = qm.call("submit", {"user": ALICE.to_dict(), "jobs": reqs})["job_ids"]
    orders = [{"type": "dispatch", "job_id": j, "task_id": 1, "task_version": 1,
               "granted": [["all.q", "h1", 1]]} for j in job_ids]
    qm.call("orders", {"orders": orders})
    return qm


def _set_variables(qm: Harness, value: str) -> None:
    pairs = [[k, value if k == "report_variables" else v]
             for k, v in exechost_defaults("h1")]
    qm.call("conf_put", {"user": ROOT.to_dict(), "kind": "exechost", "name": "h1",
                         "data": pairs, "mode": "modify"})


def _round(qm: Harness) -> float:
    """One job's start and end through the qmaster, the writer's share timed."""
    writer = qm.server.reporting
    spent = 0.0
    original = writer.note_batch

    def timed(*args: object, **kw: object) -> None:
        nonlocal spent
        started = time.perf_counter()
        original(*args, **kw)  # type: ignore[arg-type]
        spent += time.perf_counter() - started
    writer.note_batch = timed  # type: ignore[method-assign]
    try:
        job_id = qm.submit()
        qm.dispatch(job_id)
        qm.call("job_finished", {"host": "h1", "job_id": job_id, "task_id": 1,
                                 "result": {"exit_status": 0}},
                identity=b"execd:h1")
    finally:
        writer.note_batch = original  # type: ignore[method-assign]
    return spent * 1000.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        qm = _running_cell(Path(tmp), args.tasks)
        pairs = dict(qm.server.store.conf["conf"]["global"])
        pairs["reporting_params"] = "reporting=true joblog=true flush_time=00:00:15"
        qm.call("conf_put", {"user": ROOT.to_dict(), "kind": "conf", "name": "global",
                             "data": [[k, v] for k, v in pairs.items()],
                             "mode": "modify"})
        for value in ("NONE", "slots"):
            _set_variables(qm, value)
            figures = [_round(qm) for _ in range(args.rounds)]
            print(f"report_variables {value:5}: {args.tasks} tasks running, the writer's "
                  f"share of a job's start and end: {statistics.median(figures):.2f} ms "
                  f"(median of {args.rounds}; the first, which works the book out in "
                  f"full after the change of report_variables: {figures[0]:.2f} ms)")


if __name__ == "__main__":
    main()
