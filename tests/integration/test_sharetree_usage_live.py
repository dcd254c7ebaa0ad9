"""Share tree usage on a live cell (qmaster.usage_book): a CPU-burning job's usage rises
in the qmaster's book while it runs and in a scheduler's mirror, survives a qmaster
killed with SIGKILL (decayed by the time that passed), and ``qconf -clearusage`` clears
it (managers only, silent, exit status 0 as in 8.1.9)."""
from __future__ import annotations

import asyncio
import os
import pwd
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from clients.api import ClientError, job_request
from common import keys
from common.cell import read_act_qmaster
from common.policy.conf import PolicyConf
from common.policy.usage import decay_constants
from scheduler.service import SchedulerService
from tests.identity import client_as, needs_root, other_user_name
from tests.integration.cellutil import (
    client, kill9, restart, running_cell, tasks_by_job, wait_for)

BURN = ("import time\nt = time.process_time()\nwhile time.process_time() - t < 2.5: pass\n"
        "time.sleep(60)\n")


class Observer(SchedulerService):
    """A scheduler that mirrors the qmaster as the real one does and never dispatches."""

    async def _pass(self, req: Any) -> None:
        self._dirty = False
        self._last_pass = time.monotonic()  # (else the loop would spin without yielding)


class ObserverThread:
    def __init__(self, cell: Any) -> None:
        curve = keys.daemon_keys(keys.secret_path(cell, keys.SCHEDULER),
                                 keys.qmaster_public_path(cell))
        self.service = Observer("", 0, 0, curve, resolve=lambda: read_act_qmaster(cell))
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_until_complete,
                                       args=(self.service.run(),), daemon=True)

    def user_usage(self, user: str) -> float | None:
        mirror = self.service.mirror
        return None if mirror is None else mirror.usage.users.get(user)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.service.stop)
        self.thread.join(15)
        self.loop.close()


@pytest.fixture
def observer_cell(tmp_path: Path) -> Iterator[tuple[Any, ObserverThread]]:
    with running_cell(tmp_path, load_interval=0.5) as local:
        observer = ObserverThread(local.cell)
        observer.thread.start()
        try:
            yield local, observer
        finally:
            observer.stop()


def set_halftime(cl: Any, hours: int) -> None:
    pairs = cl.conf_get("sconf")["global"]
    pairs = [[name, str(hours) if name == "halftime" else value] for name, value in pairs]
    cl.conf_put("sconf", "global", pairs, "modify")


def booked(cl: Any, user: str) -> dict[str, Any]:
    reply = cl.usage_query()
    [record] = [r for r in reply["records"] if r["kind"] == "user" and r["name"] == user
                and not r["project"]] or [{}]
    return {"now": reply["now"], "figure": reply["users"].get(user, 0.0), **record}


def test_usage_is_booked_mirrored_kept_across_a_crash_and_cleared(
        observer_cell: tuple[Any, ObserverThread], tmp_path: Path) -> None:
    local, observer = observer_cell
    me = pwd.getpwuid(os.geteuid()).pw_name
    program = tmp_path / "burner.py"
    program.write_text(BURN)
    with client(local) as cl:
        set_halftime(cl, 1)
        [job_id] = cl.submit([job_request(sys.executable, [str(program)], binary=True,
                                          job_name="burner")])
        # while it runs: the execd's reports are booked, and reach a scheduler's mirror
        wait_for(lambda: booked(cl, me)["figure"] >= 1.0 or None, 30, "usage in the book")
        wait_for(lambda: (observer.user_usage(me) or 0.0) >= 1.0 or None, 30,
                 "usage in the scheduler's mirror")
        cl.delete([{"job_id": job_id}])
        wait_for(lambda: all(t["state"] == "finished"
                             for t in tasks_by_job(cl, [job_id])[job_id]) or None,
                 30, "the burner's end")
        before = booked(cl, me)
    assert before["figure"] >= 2.0 and before["long_term"]["cpu"] >= 2.0

    kill9(local, "qmaster")  # no clean stop: what the book had spooled is all there is
    restart(local)
    with client(local) as cl:
        after = wait_for(lambda: _query_or_none(cl, me), 30, "the restarted qmaster")
    constant = decay_constants(PolicyConf(halftime=1))["cpu"]
    elapsed = after["now"] - before["now"]
    assert after["long_term"]["cpu"] == pytest.approx(before["long_term"]["cpu"])
    assert after["usage"]["cpu"] == pytest.approx(
        before["usage"]["cpu"] * constant ** (elapsed / 60.0), rel=1e-6)
    assert after["usage"]["cpu"] < before["usage"]["cpu"]
    wait_for(lambda: observer.user_usage(me) is not None
             and abs(observer.user_usage(me) - after["figure"]) < 0.01 * after["figure"]
             or None, 30, "the mirror rebuilt from the restarted qmaster")

    env = {**os.environ, "PYGE_ROOT": str(tmp_path), "PYGE_CELL": "default"}
    done = subprocess.run([sys.executable, "-m", "clients.qconf.main", "-clearusage"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    with client(local) as cl:
        cleared = booked(cl, me)
    assert cleared["figure"] == 0.0 and cleared["usage"] == {}
    assert cleared["long_term"]["cpu"] == pytest.approx(before["long_term"]["cpu"])
    wait_for(lambda: observer.user_usage(me) == 0.0 or None, 30, "the mirror cleared")


def _query_or_none(cl: Any, user: str) -> dict[str, Any] | None:
    try:
        found = booked(cl, user)
    except ClientError:
        return None
    return found if "usage" in found else None


@needs_root
def test_clearusage_is_for_managers(tmp_path: Path) -> None:
    with running_cell(tmp_path) as local:
        other = other_user_name()
        with client_as(local.cell, other) as cl:
            with pytest.raises(ClientError, match=f'denied: "{other}" must be manager for '
                                                  'this operation'):
                cl.clear_usage()
