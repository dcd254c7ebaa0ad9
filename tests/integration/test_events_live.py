"""The event subscription in a running cell: a long poll answered when a job runs, a
subscriber that went away resuming where it stopped, a qmaster restart told as a gap,
and the qevent command printing JSON lines and running -trigger scripts."""
from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from clients.api import job_request
from clients.events import Cursor, subscribe
from tests.integration.cellutil import client, kill9, restart, running_cell


def _ends(events: list[dict[str, Any]], job_id: int) -> bool:
    return any(e["kind"] == "task" and e["job_id"] == job_id and e.get("state") == "finished"
               for e in events)


def _lines_until(proc: subprocess.Popen[str], done: Any, timeout: float) -> list[str]:
    """qevent's output lines until ``done(lines)`` (bounded by ``timeout``)."""
    lines: list[str] = []
    assert proc.stdout is not None
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout
        while not done(lines) and (left := deadline - time.monotonic()) > 0:
            if sel.select(left):
                line = proc.stdout.readline()
                if not line:
                    break
                lines.append(line)
    return lines


def test_subscribe_resume_and_restart(tmp_path: Path) -> None:
    trigger_out = tmp_path / "triggers"
    script = tmp_path / "trigger.sh"
    script.write_text(f'#!/bin/sh\necho "$@" >> {trigger_out}\n')
    script.chmod(0o755)
    with running_cell(tmp_path, load_interval=0.5) as local:  # (re-registers at once)
        with client(local) as cl:
            first = cl.events()  # a new subscriber: the cursor of now
        cursor = Cursor(first["epoch"], first["seq"])
        env = {**os.environ, "PYGE_ROOT": str(local.cell.root), "PYGE_CELL": local.cell.name}
        qevent = subprocess.Popen(  # (from that cursor on, however long it takes to start)
            [sys.executable, "-c", "import sys; from clients.qevent import main; "
             "sys.exit(main())", "-sm", "-trigger", "JB_END", str(script),
             "-resume", cursor.text()], env=env, stdout=subprocess.PIPE, text=True)
        try:
            with client(local) as cl:
                job, = cl.submit([job_request("/bin/true", binary=True)])
                seen: list[dict[str, Any]] = []
                for event in subscribe(cl, cursor=cursor, poll_seconds=10, retries=0):
                    seen.append(event)
                    if _ends(seen, job):
                        break
            assert seen[0]["kind"] == "job" and seen[0]["job_id"] == job
            # away for a while: what happened meanwhile comes when it asks again
            with client(local) as other:
                missed, = other.submit([job_request("/bin/true", binary=True)])
                other.wait([missed], timeout=30)
            with client(local) as cl:
                answer = cl.events(epoch=cursor.epoch, after=cursor.seq, timeout=10)
                assert not answer["gap"] and _ends(answer["events"], missed)
                assert all(e["seq"] > cursor.seq for e in answer["events"])
                assert any(e["kind"] == "job" and e["job_id"] == missed
                           for e in answer["events"])
            lines = _lines_until(qevent, lambda ls: _ends(
                [json.loads(x) for x in ls], missed), 20)
            printed = [json.loads(line) for line in lines]
            assert _ends(printed, job) and _ends(printed, missed)
            assert all(p["epoch"] == cursor.epoch for p in printed)
            assert trigger_out.read_text().split("\n")[:2] == [f"JB_END {job} 1",
                                                               f"JB_END {missed} 1"]
        finally:
            qevent.terminate()
            qevent.wait(10)
        kill9(local, "qmaster")
        restart(local)
        with client(local) as cl:
            resync = next(subscribe(cl, cursor=cursor, poll_seconds=1, retries=20))
        assert resync["kind"] == "resync" and resync["epoch"] != first["epoch"]
