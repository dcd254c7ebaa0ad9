"""Shared helpers for integration tests that kill daemons of a live local cell.

A test starts its own cell on free loopback ports (``running_cell``), kills daemons with
SIGKILL by the pids ``pyge up`` recorded (``kill9``), restarts what is missing with
``LocalCell.up`` and observes the result through the client API, the execd's job
directories and the accounting file. Every wait has a deadline so that no test can hang.
"""
from __future__ import annotations

import os
import signal
import socket
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from clients.api import Client, ClientError, job_request
from common.accounting import read_records
from common.cell import Cell, read_act_qmaster
from deploy.cell import LocalCell
from execd import jobdir
from tests.cellconf import stop_cell, without_load_thresholds

T = TypeVar("T")
SLOTS = 64  # enough for every job of a test at once: one dispatch pass starts them all


def hostname() -> str:
    """The execd host name of a one-execd cell (what ``pyge up`` registers)."""
    return socket.gethostname().split(".")[0]


@contextmanager
def running_cell(root: Path, slots: int = SLOTS,
                 load_interval: float = 10.0) -> Iterator[LocalCell]:
    """A cell with qmaster, scheduler and one execd under ``root``, all at work (one job
    has run); always stopped after."""
    os.chmod(root, 0o755)
    local = LocalCell(Cell(root))
    try:
        local.up(execds=1, slots=slots, port=0, load_interval=load_interval)
        without_load_thresholds(local.cell)
        _run_one_job(local)
        yield local
    finally:
        stop_cell(local)


def _run_one_job(local: LocalCell) -> None:
    """``pyge up`` does not wait for the scheduler; a finished job shows it is at work."""
    with client(local) as cl:
        [job_id] = cl.submit([true_job(job_name="warmup")])
        [task] = cl.wait([job_id], timeout=15)[job_id]
    assert task["exit_status"] == 0 and task["started"], task


def client(local: LocalCell, timeout: float = 10.0) -> Client:
    return Client(local.cell, timeout=timeout)


def pid_of(local: LocalCell, label: str) -> int:
    """Pid recorded by ``pyge up`` for daemon ``label`` (qmaster, scheduler, execd-<host>)."""
    return int((local.run_dir / f"{label}.pid").read_text().split()[0])


def is_dead(pid: int) -> bool:
    """Gone or a zombie (our own children stay zombies until reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


def kill9(local: LocalCell, label: str, timeout: float = 5.0) -> int:
    """SIGKILL daemon ``label`` and wait until it is dead; its pid."""
    pid = pid_of(local, label)
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: is_dead(pid) or None, timeout, f"{label} (pid {pid}) to die")
    return pid


def qmaster_port(local: LocalCell) -> int:
    return read_act_qmaster(local.cell)[1]


def restart(local: LocalCell, port: int = 0, slots: int = SLOTS) -> list[str]:
    """``pyge up`` again: starts only the daemons that are not running.

    With ``port`` 0 a restarted qmaster takes the ports the cell had, which the running
    execd and scheduler know; tests that pass the old port explicitly must see the same.
    """
    return local.up(execds=1, slots=slots, port=port)


def wait_for(probe: Callable[[], T | None], timeout: float, what: str,
             interval: float = 0.05) -> T:
    """Poll ``probe`` until it returns something other than None/False, or fail."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value is not None and value is not False:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


def sleeper(seconds: float, **opts: Any) -> dict[str, Any]:
    return job_request("/bin/sleep", [str(seconds)], binary=True,
                       **{"job_name": "sleeper", **opts})


def true_job(**opts: Any) -> dict[str, Any]:
    return job_request("/bin/true", binary=True, **{"job_name": "true", **opts})


def tasks_by_job(cl: Client, job_ids: list[int] | None = None) -> dict[int, list[dict[str, Any]]]:
    """Task records per job id, finished jobs included."""
    reply = cl.jobs(job_ids, include_finished=True)
    out: dict[int, list[dict[str, Any]]] = {int(j["job_id"]): [] for j in reply["jobs"]}
    for task in reply["tasks"]:
        out.setdefault(int(task["job_id"]), []).append(task)
    return out


def task_state(cl: Client, job_id: int) -> str | None:
    tasks = tasks_by_job(cl, [job_id]).get(job_id) or []
    return str(tasks[0]["state"]) if tasks else None


def wait_state(local: LocalCell, job_id: int, state: str, timeout: float = 15.0) -> None:
    def probe() -> bool:
        try:
            with client(local, timeout=2.0) as cl:
                return task_state(cl, job_id) == state
        except ClientError:
            return False
    wait_for(probe, timeout, f"job {job_id} to be {state}", interval=0.1)


def job_dir(local: LocalCell, job_id: int, task_id: int = 1) -> Path:
    return local.cell.execd_spool_dir(hostname()) / "jobs" / f"{job_id}.{task_id}"


def wait_result_file(local: LocalCell, job_id: int, timeout: float = 10.0) -> dict[str, Any]:
    """The shepherd's result of a job once it has written it (the execd may be down)."""
    path = job_dir(local, job_id)
    return wait_for(lambda: jobdir.read_result(path), timeout, f"result of job {job_id}")


def accounting_counts(local: LocalCell) -> Counter[tuple[int, int]]:
    """How many accounting records each (job, task number) has."""
    path = local.cell.accounting_path
    if not path.exists():
        return Counter()
    return Counter((r.job_number, r.task_number) for r in read_records(path))


def wait_accounted(local: LocalCell, job_ids: list[int], timeout: float = 15.0
                   ) -> Counter[tuple[int, int]]:
    """Accounting counts once every job in ``job_ids`` has at least one record."""
    wanted = set(job_ids)

    def probe() -> Counter[tuple[int, int]] | None:
        counts = accounting_counts(local)
        return counts if wanted <= {job for job, _ in counts} else None
    return wait_for(probe, timeout, f"accounting records of {sorted(wanted)}", interval=0.1)
