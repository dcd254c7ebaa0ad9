"""``kill -9`` of each daemon around running and pending jobs; nothing is lost.

- scheduler: pending jobs wait while it is down and run once it is back;
- execd: running jobs keep running (their shepherds are not the execd's children), the
  restarted execd re-attaches to them, and a job that ended while it was down is reported;
- qmaster: a job that ends while the qmaster is down is delivered after its restart, and
  the running scheduler and execd find the restarted qmaster (same ports, new epoch).
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from common import keys
from common.cell import Cell, read_act_qmaster
from deploy.cell import LocalCell
from execd import jobdir
from execd.launcher import is_shepherd_alive
from tests.integration.cellutil import (client, hostname, job_dir, kill9, pid_of,
                                        qmaster_port, restart, running_cell, sleeper,
                                        task_state, true_job, wait_accounted, wait_for,
                                        wait_result_file, wait_state)

EXECD = f"execd-{hostname()}"
RESTART_SECONDS = 6.0  # qmaster start plus the execd noticing it, with a loaded machine's margin


def _assert_succeeded(results: dict[int, list[dict[str, Any]]], job_ids: list[int]) -> None:
    assert sorted(results) == sorted(job_ids)
    for job_id in job_ids:
        [task] = results[job_id]
        assert (task["exit_status"], task["failed"], task["started"]) == (0, 0, True), task


def _assert_accounted_once(local: LocalCell, job_ids: list[int]) -> None:
    counts = wait_accounted(local, job_ids)
    assert [counts[(j, 0)] for j in job_ids] == [1] * len(job_ids)


def test_pending_jobs_wait_for_a_killed_scheduler(tmp_path: Path) -> None:
    with running_cell(tmp_path) as local:
        kill9(local, "scheduler")
        with client(local) as cl:
            ids = cl.submit([true_job() for _ in range(3)])
            time.sleep(1.0)  # ample for a dispatch, had a scheduler been there
            assert [task_state(cl, j) for j in ids] == ["pending"] * 3
        assert restart(local, qmaster_port(local)) == ["scheduler"]
        with client(local) as cl:
            _assert_succeeded(cl.wait(ids, timeout=15), ids)
        _assert_accounted_once(local, ids)


def test_running_job_outlives_a_killed_execd_and_is_reattached(tmp_path: Path) -> None:
    with running_cell(tmp_path) as local:
        with client(local) as cl:
            [job_id] = cl.submit([sleeper(3)])
        wait_state(local, job_id, "running")
        kill9(local, EXECD)
        time.sleep(0.5)
        assert is_shepherd_alive(job_dir(local, job_id))
        assert restart(local, qmaster_port(local)) == [EXECD]
        wait_for(lambda: _registered_again(local), 5, "the new execd to register")
        with client(local) as cl:
            # re-attached: the qmaster still sees the job running, not lost
            assert task_state(cl, job_id) == "running"
            assert jobdir.read_result(job_dir(local, job_id)) is None
            _assert_succeeded(cl.wait([job_id], timeout=10), [job_id])
        _assert_accounted_once(local, [job_id])


def _registered_again(local: LocalCell) -> bool:
    log = (local.run_dir / f"{EXECD}.log").read_text()
    return log.count("event='registered'") >= 2


def test_job_ending_while_the_execd_is_down_is_reported(tmp_path: Path) -> None:
    with running_cell(tmp_path) as local:
        with client(local) as cl:
            [job_id] = cl.submit([sleeper(1)])
        wait_state(local, job_id, "running")
        kill9(local, EXECD)
        # the job ends while no execd is there; its shepherd keeps the result
        assert wait_result_file(local, job_id)["exit_status"] == 0
        assert restart(local, qmaster_port(local)) == [EXECD]
        with client(local) as cl:
            wait_for(lambda: task_state(cl, job_id) != "running", 8, "a verdict on the job")
            _assert_succeeded(cl.wait([job_id], timeout=2), [job_id])
        _assert_accounted_once(local, [job_id])


def test_job_ending_while_the_qmaster_is_down_is_delivered(tmp_path: Path) -> None:
    with running_cell(tmp_path) as local:
        port = qmaster_port(local)
        with client(local) as cl:
            [job_id] = cl.submit([sleeper(1)])
        wait_state(local, job_id, "running")
        kill9(local, "qmaster")
        assert wait_result_file(local, job_id)["exit_status"] == 0
        assert restart(local) == ["qmaster"]
        assert qmaster_port(local) == port
        with client(local) as cl:
            _assert_succeeded(cl.wait([job_id], timeout=15), [job_id])
        _assert_accounted_once(local, [job_id])
        # the execd forgets the job once the qmaster acknowledged its result
        wait_for(lambda: not job_dir(local, job_id).exists(), 5, "job directory removal")


def _subscribed_to(pid: int, port: int) -> bool:
    return any(c.raddr and c.raddr.port == port and c.status == psutil.CONN_ESTABLISHED
               for c in psutil.Process(pid).net_connections(kind="tcp"))


def test_scheduler_and_execd_follow_a_restarted_qmaster(tmp_path: Path) -> None:
    with running_cell(tmp_path) as local:
        kill9(local, "qmaster")
        started = time.monotonic()
        assert restart(local) == ["qmaster"]  # `pyge up` as after any crash
        # the execd re-registers soon, not at its next load report (10 s in pyge up)
        assert time.monotonic() - started < RESTART_SECONDS
        _, _, event_port = read_act_qmaster(local.cell)
        # subscribed again: the scheduler sees events, not only its periodic resyncs
        wait_for(lambda: _subscribed_to(pid_of(local, "scheduler"), event_port), 6,
                 "the scheduler to subscribe to the event port")
        with client(local) as cl:
            [job_id] = cl.submit([true_job()])
            _assert_succeeded(cl.wait([job_id], timeout=5), [job_id])


@pytest.mark.parametrize("module", [
    "scheduler.main",
    "execd.main",
])
def test_a_daemon_started_while_the_qmaster_restarts_waits_for_it(tmp_path: Path,
                                                                  module: str) -> None:
    """``pyge up`` removes act_qmaster while it restarts a crashed qmaster (the cell's
    keys stay)."""
    Cell(tmp_path).path.mkdir()
    keys.ensure_cell_keys(Cell(tmp_path), ["nohost"])
    extra = ["--hostname", "nohost"] if module == "execd.main" else []
    proc = subprocess.Popen([sys.executable, "-m", module, "--root", str(tmp_path), *extra],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True,
                            cwd=Path(__file__).resolve().parents[2])  # the repository
    try:
        time.sleep(1.5)  # ample to import, read the cell and give up
        assert proc.poll() is None, f"{module} exited with status {proc.returncode}"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # with the execd's zygote, if any
        proc.wait(5)
