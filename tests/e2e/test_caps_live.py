"""The caps of the dispatch pass on a live cell (qmaster, scheduler, one 4-slot execd):
sched_conf(5) ``maxujobs`` holds a user's second job until the first ends, and qstat -j
says why; ``qsub -t 1-4 -tc 1`` never has two tasks running (the accounting's start and
end times of every pair of tasks do not overlap). tests/unit/test_caps.py checks the
pure pass, tests/unit/test_cap_orders.py the qmaster's order check and reasons.

Jobs are gates: one runs until the test creates the file named after its job id, so
"a job ends" is the test's doing. Each test leaves the configuration as it found it.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from clients.api import Client
from common.accounting import read_records
from common.cell import Cell
from common.jobstate import ACTIVE_STATES
from tests.commands import command

TIMEOUT = 30.0
SETTLE = 0.6  # a scheduler that broke a cap would start the job within this (it runs
# a pass on every event, within milliseconds)


@pytest.fixture
def gate() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="pyge-caps-"))
    try:
        path.chmod(0o755)
        script = path / "gate.sh"
        script.write_text(f'#!/bin/sh\nwhile [ ! -e "{path}/$JOB_ID" ]; do sleep 0.1; done\n')
        script.chmod(0o755)
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def run(env: dict[str, str], name: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command(name) + list(args), env=env, capture_output=True,
                          text=True, timeout=60)


def qsub(env: dict[str, str], *args: str) -> int:
    done = run(env, "qsub", "-b", "y", "-o", "/dev/null", "-j", "y", *args)
    assert done.returncode == 0, done.stderr
    found = re.match(r"Your (?:job|job-array) (\d+)", done.stdout)
    assert found, done.stdout
    return int(found.group(1))


def set_sconf(client: Client, **values: str) -> dict[str, str]:
    """Change the scheduler configuration; the old values of what changed."""
    pairs = client.conf_get("sconf")["global"]
    old = {k: v for k, v in pairs if k in values}
    client.conf_put("sconf", "global", [[k, values.get(k, v)] for k, v in pairs], "modify")
    return old


def tasks_of(client: Client, job_ids: list[int]) -> list[dict[str, Any]]:
    return client.jobs(job_ids, include_finished=True)["tasks"]


def wait(client: Client, job_ids: list[int], done: Callable[[list[dict[str, Any]]], bool],
         what: str) -> list[dict[str, Any]]:
    deadline = time.monotonic() + TIMEOUT
    while True:
        tasks = tasks_of(client, job_ids)
        if done(tasks):
            return tasks
        assert time.monotonic() < deadline, f"timed out waiting for {what}: {tasks}"
        time.sleep(0.1)


def state(tasks: list[dict[str, Any]], job_id: int) -> str:
    return next(t["state"] for t in tasks if t["job_id"] == job_id)


def test_maxujobs_holds_a_users_second_job_until_the_first_ends(
        cell: Cell, client: Client, env: dict[str, str], gate: Path) -> None:
    old = set_sconf(client, maxujobs="1")
    ids: list[int] = []
    try:
        ids = [qsub(env, str(gate / "gate.sh")) for _ in range(2)]
        wait(client, ids, lambda ts: any(t["state"] in ACTIVE_STATES for t in ts),
             "one job to start")
        time.sleep(SETTLE)
        tasks = tasks_of(client, ids)
        first, second = ids
        assert (state(tasks, first), state(tasks, second)) == ("running", "pending"), tasks
        out = run(env, "qstat", "-j", str(second)).stdout
        assert ("scheduling info:            job dropped because of user limitations\n"
                "                            job dropped because of user limitations\n"
                ) in out, out
        (gate / str(first)).touch()
        wait(client, ids, lambda ts: state(ts, second) in ACTIVE_STATES,
             "the second job to start after the first ended")
        assert state(tasks_of(client, ids), first) == "finished"
    finally:
        for job_id in ids:
            (gate / str(job_id)).touch()
        set_sconf(client, **old)
        if ids:
            wait(client, ids, lambda ts: all(t["state"] == "finished" for t in ts),
                 "the jobs to end")


def test_task_concurrency_one_never_runs_two_tasks_at_once(
        cell: Cell, client: Client, env: dict[str, str]) -> None:
    job_id = qsub(env, "-t", "1-4", "-tc", "1", "/bin/sleep", "2")
    seen_at_once = 0
    reason_seen = False
    deadline = time.monotonic() + 4 * TIMEOUT
    while True:  # watch it too: at most one task holds a slot at any look
        tasks = tasks_of(client, [job_id])
        seen_at_once = max(seen_at_once, sum(t["state"] in ACTIVE_STATES for t in tasks))
        if len(tasks) == 4 and all(t["state"] == "finished" for t in tasks):
            break
        if not reason_seen and any(t["state"] == "pending" for t in tasks):
            out = run(env, "qstat", "-j", str(job_id)).stdout
            reason_seen = ("not all array tasks may be started due to 'max_aj_instances'"
                           in out)
        assert time.monotonic() < deadline, tasks
        time.sleep(0.1)
    assert seen_at_once == 1
    assert reason_seen
    records = sorted((r for r in read_records(cell.accounting_path)
                      if r.job_number == job_id), key=lambda r: r.start_time)
    assert sorted(r.task_number for r in records) == [1, 2, 3, 4]
    # whole seconds: a task 2 s long that overlapped the next would end after its start
    for before, after in zip(records, records[1:]):
        assert before.end_time <= after.start_time, (before, after)
