"""Resource requests on a live cell: hard requests, load values and a host consumable.

The execd's host gets ``complex_values slots=2`` (``slots`` is a consumable of the
default complex list): the queue instance offers 4 slots, the host only 2. A job asking
for an architecture no host has stays pending while others run; ``-l hostname`` runs
on that host.
"""
from __future__ import annotations

import time
from typing import Any

from clients.api import Client, job_request
from deploy.cell import LocalCell, machine_name

TIMEOUT = 20.0


def _states(client: Client, job_ids: list[int]) -> dict[int, dict[str, Any]]:
    reply = client.jobs(job_ids)
    return {int(t["job_id"]): t for t in reply["tasks"]}


def _wait_for(client: Client, job_ids: list[int], done: Any) -> dict[int, dict[str, Any]]:
    deadline = time.monotonic() + TIMEOUT
    while True:
        tasks = _states(client, job_ids)
        if done(tasks) or time.monotonic() > deadline:
            return tasks
        time.sleep(0.2)


def _set_complex_values(client: Client, host: str, value: str) -> None:
    pairs = [list(p) for p in client.conf_get("exechost")[host]]
    pairs = [p for p in pairs if p[0] != "complex_values"] + [["complex_values", value]]
    client.conf_put("exechost", host, pairs, "modify")


def test_requests_and_host_consumable_on_a_live_cell(live_cell: LocalCell) -> None:
    host = machine_name()
    with Client(live_cell.cell) as client:
        _set_complex_values(client, host, "slots=2")
        nosuch = client.submit([job_request("/bin/sleep", ["30"], binary=True,
                                            hard_resources={"arch": "nosuch"})])
        here = client.submit([job_request("/bin/sleep", ["30"], binary=True,
                                          hard_resources={"hostname": host})
                              for _ in range(3)])
        try:
            tasks = _wait_for(client, nosuch + here, lambda ts: sum(
                t["state"] == "running" for t in ts.values()) >= 2)
            running = [j for j in here if tasks[j]["state"] == "running"]
            assert len(running) == 2
            assert all(tasks[j]["host"] == host for j in running)
            time.sleep(1.0)  # give the scheduler passes the chance to overbook
            tasks = _states(client, nosuch + here)
            assert tasks[nosuch[0]]["state"] == "pending"
            assert sum(tasks[j]["state"] == "pending" for j in here) == 1
            # room on the host again: the pending hostname job starts, arch=nosuch not
            _set_complex_values(client, host, "slots=4")
            tasks = _wait_for(client, here, lambda ts: all(
                t["state"] == "running" for t in ts.values()))
            assert all(tasks[j]["state"] == "running" for j in here)
            assert _states(client, nosuch)[nosuch[0]]["state"] == "pending"
        finally:
            client.delete([{"job_id": j} for j in nosuch + here])
