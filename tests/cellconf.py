"""Configuration and clean-up that test cells share.

The default queue template has ``load_thresholds np_load_avg=1.75`` and the scheduler
``job_load_adjustments np_load_avg=0.50``: with Grid Engine's defaults a 2-core machine
takes about six fresh jobs per host before its queue is in load alarm for minutes, and a
busy CI machine's own load alone can put it there. Tests that are not about load must not
depend on the machine's load, so their cells drop the load thresholds of every queue
(tests/integration/test_load_live.py and the unit tests cover load thresholds).
"""
from __future__ import annotations

import os
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from clients.api import Client, ClientError
from common.cell import Cell
from deploy.cell import LocalCell


def without_load_thresholds(target: Cell | Client) -> None:
    """Every queue of the running cell (or the cell of a client) with
    ``load_thresholds NONE``."""
    if isinstance(target, Client):
        _drop(target)
        return
    with Client(target) as client:
        _drop(client)


def _drop(client: Client) -> None:
    for name, pairs in client.conf_get("queue").items():
        changed = [[k, "NONE" if k == "load_thresholds" else v] for k, v in pairs]
        if changed != pairs:
            client.conf_put("queue", name, changed, "modify")


def stop_cell(local: LocalCell, timeout: float = 15.0) -> None:
    """``local.down()`` after ending the jobs the cell still runs.

    ``pyge down`` leaves running jobs alone, as stopping Grid Engine's execd does (the
    next ``up`` re-attaches them); a test's cell is gone for good afterwards, and its jobs
    would run on unwatched and leave their execd's empty cgroup subtree behind. A cell
    whose qmaster no longer answers is just stopped.
    """
    if not dict(local.status()).get("qmaster"):  # (stopped: nobody would answer)
        local.down()
        return
    try:
        with Client(local.cell, timeout=5.0) as client:
            client.delete([{"user": "*"}], force=True)
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline and client.jobs()["tasks"]:
                time.sleep(0.2)
    except (ClientError, OSError):
        pass
    finally:
        local.down()


@contextmanager
def running_cell(root: Path) -> Iterator[LocalCell]:
    """A running cell in ``root`` (qmaster, scheduler, one execd with 4 slots, free
    ports, no load thresholds), stopped with its jobs afterwards (``stop_cell``)."""
    os.chmod(root, 0o755)  # job owners other than the caller may need to reach it
    local = LocalCell(Cell(root))
    try:
        local.up(execds=1, slots=4, port=0)
        without_load_thresholds(local.cell)
        yield local
    finally:
        stop_cell(local)


def with_values(pairs: list[list[str]], **changes: str) -> list[list[str]]:
    """A configuration object's pairs with the ``changes`` made (attributes it has)."""
    return [[k, changes.get(k, v)] for k, v in pairs]


@contextmanager
def two_host_cell(root: Path) -> Iterator[tuple[LocalCell, Path]]:
    """A running cell in ``root`` with two execds as distinct hosts (2 slots each, no
    load thresholds) and a directory ``work`` every job owner may write, stopped with its
    jobs afterwards (``stop_cell``)."""
    os.chmod(root, 0o755)
    work = root / "work"
    work.mkdir()
    os.chmod(work, 0o777)
    local = LocalCell(Cell(root))
    try:
        local.up(execds=2, slots=2, port=0, load_interval=10.0)
        without_load_thresholds(local.cell)
        yield local, work
    finally:
        stop_cell(local)
