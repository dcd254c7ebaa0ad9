"""Configuration that test cells share.

The default queue template has ``load_thresholds np_load_avg=1.75`` and the scheduler
``job_load_adjustments np_load_avg=0.50``: with Grid Engine's defaults a 2-core machine
takes about six fresh jobs per host before its queue is in load alarm for minutes, and a
busy CI machine's own load alone can put it there. Tests that are not about load must not
depend on the machine's load, so their cells drop the load thresholds of every queue
(tests/integration/test_load_live.py and the unit tests cover load thresholds).
"""
from __future__ import annotations

from common.cell import Cell
from clients.api import Client


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
