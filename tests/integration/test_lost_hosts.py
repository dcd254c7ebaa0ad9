"""Lost hosts in a live cell: an execd stopped with SIGSTOP (its jobs keep running, it
reports nothing) goes to state unknown after ``max_unheard``; ``reschedule_unknown``
later its rerunnable jobs run again elsewhere (here: on the same host once it is back),
the run left behind is killed when the execd returns, and a run that was not given up
is re-attached, never run twice (sge_conf(5), tests/data/reference/lost-host/).
"""
from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from clients.api import Client, job_request
from common.accounting import read_records
from deploy.cell import LocalCell
from tests.integration.cellutil import (client, hostname, is_dead, pid_of, running_cell,
                                        tasks_by_job, wait_for)

LOAD_INTERVAL = 0.5


def set_global(cl: Client, **values: str) -> None:
    conf = cl.conf_get("conf")["global"]
    pairs = [[k, values.pop(k, v)] for k, v in conf]
    pairs += [[k, v] for k, v in values.items()]
    cl.conf_put("conf", "global", pairs, "modify")


@contextmanager
def lost_cell(root: Path, **conf: str) -> Iterator[LocalCell]:
    with running_cell(root, load_interval=LOAD_INTERVAL) as local:
        with client(local) as cl:
            set_global(cl, max_unheard="0:0:2", **conf)
        yield local


@contextmanager
def execd_stopped(local: LocalCell) -> Iterator[int]:
    """The execd frozen (SIGSTOP) for the block; always thawed after."""
    pid = pid_of(local, f"execd-{hostname()}")
    os.kill(pid, signal.SIGSTOP)
    try:
        yield pid
    finally:
        os.kill(pid, signal.SIGCONT)


def job_writing_pid(tmp: Path, name: str, seconds: int, **opts: Any) -> dict[str, Any]:
    """A job that records the pid of each of its runs in ``tmp/name.pids`` and sleeps;
    a second run ends at once."""
    tmp.mkdir(exist_ok=True)
    pids = tmp / f"{name}.pids"
    script = (f"#!/bin/sh\necho $$ >> {pids}\n"
              f"if [ $(wc -l < {pids}) -gt 1 ]; then exit 0; fi\n"
              f"exec sleep {seconds}\n").encode()
    return job_request("/bin/sh", script=script, job_name=name,
                       stdout_paths=[str(tmp)], stderr_paths=[str(tmp)], **opts)


def run_pids(tmp: Path, name: str) -> list[int]:
    try:
        return [int(x) for x in (tmp / f"{name}.pids").read_text().split()]
    except (OSError, ValueError):
        return []


def task_of(cl: Client, job_id: int) -> dict[str, Any]:
    return tasks_by_job(cl, [job_id])[job_id][0]


def wait_running(cl: Client, job_id: int, pids: Path | None = None) -> None:
    """Until the task is running (and, with ``pids``, its script has written its pid)."""
    wait_for(lambda: task_of(cl, job_id)["state"] == "running", 15, f"job {job_id} to run")
    if pids is not None:
        wait_for(lambda: pids.exists() and pids.read_text().strip(), 15,
                 f"job {job_id}'s pid")


def host_alive(cl: Client) -> bool:
    return next(h["alive"] for h in cl.cluster()["hosts"] if h["name"] == hostname())


def records_of(local: LocalCell, job_id: int) -> list[Any]:
    path = local.cell.accounting_path
    return [r for r in read_records(path) if r.job_number == job_id] if path.exists() else []


def test_a_run_on_a_host_back_before_reschedule_unknown_is_reattached(tmp_path: Path
                                                                       ) -> None:
    with lost_cell(tmp_path, reschedule_unknown="0:0:30") as local, \
            client(local) as cl:
        [job_id] = cl.submit([job_writing_pid(tmp_path / "o", "kept", 6, rerun=True)])
        wait_running(cl, job_id)
        with execd_stopped(local):
            wait_for(lambda: not host_alive(cl), 10, "the host to become unknown")
            assert task_of(cl, job_id)["state"] == "running"
        [task] = cl.wait([job_id], timeout=20)[job_id]
        assert task["exit_status"] == 0 and task_of(cl, job_id)["restarts"] == 0, task
        assert len(run_pids(tmp_path / "o", "kept")) == 1
        [record] = records_of(local, job_id)
        assert record.failed == 0


def test_rerunnable_jobs_of_a_lost_host_run_again_and_the_old_run_is_killed(
        tmp_path: Path) -> None:
    with lost_cell(tmp_path, reschedule_unknown="0:0:1") as local, \
            client(local) as cl:
        again, stays = cl.submit([job_writing_pid(tmp_path / "o", "again", 120, rerun=True),
                                  job_writing_pid(tmp_path / "o", "stays", 6, rerun=False)])
        wait_running(cl, again, tmp_path / "o" / "again.pids")
        wait_running(cl, stays, tmp_path / "o" / "stays.pids")
        [old_run] = run_pids(tmp_path / "o", "again")
        with execd_stopped(local):
            wait_for(lambda: task_of(cl, again)["state"] == "pending", 15,
                     "the rerunnable job to be rescheduled")
            assert task_of(cl, again)["restarts"] == 1
            assert not host_alive(cl)
            assert task_of(cl, stays)["state"] == "running"  # -r n: stays where it is
            assert not is_dead(old_run)  # the execd is away; its job goes on
            [lost] = records_of(local, again)
            assert (lost.failed, lost.hostname) == (25, hostname())
        wait_for(lambda: is_dead(old_run), 15, "the run given up to be killed")
        [task] = cl.wait([again], timeout=20)[again]
        assert task["exit_status"] == 0 and task_of(cl, again)["restarts"] == 1, task
        assert len(run_pids(tmp_path / "o", "again")) == 2
        [kept] = cl.wait([stays], timeout=20)[stays]
        assert kept["exit_status"] == 0 and task_of(cl, stays)["restarts"] == 0, kept
        assert [r.failed for r in records_of(local, again)] == [25, 0]
        assert [r.failed for r in records_of(local, stays)] == [0]


def test_enable_reschedule_kill_ends_jobs_that_cannot_run_again(tmp_path: Path) -> None:
    with lost_cell(tmp_path, reschedule_unknown="0:0:1",
                   qmaster_params="ENABLE_RESCHEDULE_KILL=true") as local, \
            client(local) as cl:
        [job_id] = cl.submit([job_writing_pid(tmp_path / "o", "ended", 120, rerun=False)])
        wait_running(cl, job_id, tmp_path / "o" / "ended.pids")
        [run] = run_pids(tmp_path / "o", "ended")
        with execd_stopped(local):
            cl.wait([job_id], timeout=20)
            assert task_of(cl, job_id)["restarts"] == 0
            [record] = records_of(local, job_id)
            assert record.failed == 25
        wait_for(lambda: is_dead(run), 15, "the ended run to be killed")
        time.sleep(1)  # the execd's report of the killed run changes nothing
        assert len(records_of(local, job_id)) == 1
