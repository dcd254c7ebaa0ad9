"""sched_conf(5) reprioritize_interval on a live cell: two CPU-burning jobs of two users,
one with 10000 override tickets (``qalter -ot``), the other with none. With
``reprioritize_interval 0:0:1`` the execd renices them by their tickets (the job with the
tickets keeps nice 0, the other goes to the bottom of PTF_MIN_PRIORITY's range) and the
global ``reprioritize`` is 1; back at ``0:0:0`` both get their queue's priority (0) back,
``reprioritize`` is 0, and nothing renices them again. As another user needs root; without
it both jobs are ours (the tickets decide, not the owners), and the execd, not root, cannot
lower the nice value again (setpriority(2)): it stays where the PTF put it.
"""
from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from clients.api import Client, job_request
from common.policy import ptf
from deploy.cell import LocalCell
from execd import jobdir
from tests.commands import command
from tests.identity import client_as, other_users
from tests.integration.cellutil import client, job_dir, running_cell, wait_for

BURN = "import time; t = time.time() + 120\nwhile time.time() < t: pass"


@pytest.fixture
def cell(tmp_path: Path) -> Iterator[LocalCell]:
    with running_cell(tmp_path, slots=2, load_interval=1.0) as local:
        yield local


def set_sconf(cl: Client, **values: str) -> None:
    pairs = cl.conf_get("sconf")["global"]
    cl.conf_put("sconf", "global", [[k, values.get(k, v)] for k, v in pairs], "modify")


def global_reprioritize(cl: Client) -> str:
    return dict(map(tuple, cl.conf_get("conf")["global"])).get("reprioritize", "0")


def qcommand(local: LocalCell, name: str, *args: str) -> None:
    env = {**os.environ, "PYGE_ROOT": str(local.cell.root), "PYGE_CELL": "default"}
    done = subprocess.run(command(name) + list(args), capture_output=True, text=True,
                          timeout=30, env=env)
    assert done.returncode == 0, (name, args, done.stdout, done.stderr)


def nice_of(local: LocalCell, job_id: int) -> int | None:
    """The nice value of the job's first process (/proc/<pid>/stat field 19)."""
    pid = jobdir.live_pid(job_dir(local, job_id) / jobdir.JOB_PID_FILE)
    if pid is None:
        return None
    with contextlib.suppress(OSError):
        data = Path(f"/proc/{pid}/stat").read_text()
        return int(data[data.rfind(")") + 2:].split()[16])
    return None


def submitters(local: LocalCell) -> list[contextlib.AbstractContextManager[Client]]:
    if os.geteuid() == 0:
        return [client_as(local.cell, name) for name in other_users(2)]
    return [client(local), client(local)]


def test_running_jobs_are_reniced_by_their_tickets(cell: LocalCell) -> None:
    job = job_request("/usr/bin/python3", ["-c", shlex.quote(BURN)], binary=True,
                      job_name="burn", stdout_paths=["/dev/null"], merge_output=True)
    ids: list[int] = []
    for submitter in submitters(cell):
        with submitter as cl:
            ids += cl.submit([job])
    rich, poor = ids
    try:
        with client(cell) as cl:
            wait_for(lambda: all(nice_of(cell, j) is not None for j in ids), 15,
                     "both jobs to run")
            qcommand(cell, "qalter", "-ot", "10000", str(rich))
            assert (nice_of(cell, rich), nice_of(cell, poor)) == (0, 0)
            set_sconf(cl, reprioritize_interval="0:0:1")
            assert global_reprioritize(cl) == "1"
            # the poor job: PTF_MIN_PRIORITY 20 (the kernel's 19) or one below it
            wait_for(lambda: (nice_of(cell, poor) or 0) >= ptf.DEFAULT_MIN_PRIORITY - 2, 15,
                     "the job without tickets to be reniced")
            assert nice_of(cell, rich) == ptf.DEFAULT_MAX_PRIORITY

            set_sconf(cl, reprioritize_interval="0:0:0")
            assert global_reprioritize(cl) == "0"
            if os.geteuid() == 0:
                wait_for(lambda: nice_of(cell, poor) == 0, 10, "the queue's priority back")
            # (an execd not running as root cannot lower a nice value: it stays)
            kept = nice_of(cell, poor)
            # nothing renices them again (the execd steps every ptf.SCHEDULE_SECONDS)
            time.sleep(2 * ptf.SCHEDULE_SECONDS + 1)
            assert (nice_of(cell, rich), nice_of(cell, poor)) == (0, kept)
    finally:
        with contextlib.suppress(AssertionError):
            qcommand(cell, "qdel", *map(str, ids))
