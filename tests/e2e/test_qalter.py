"""The ``qalter`` console script against a live cell: a held job's requests change and
``qstat -j`` shows them; a running job and another user's job are refused."""
from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from clients.api import Client, job_request
from tests.identity import client_as, other_users
from common.cell import cell_from_env
from deploy.cell import LocalCell
from tests.commands import command

REPO = Path(__file__).resolve().parents[2]


def run(*argv: str) -> tuple[str, str, int]:
    cmd = command(argv[0])
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run(cmd + list(argv[1:]), env=env, text=True, capture_output=True,
                          timeout=30)
    return proc.stdout, proc.stderr, proc.returncode


def wait_running(client: Client, job: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        tasks = client.jobs([job])["tasks"]
        if tasks and tasks[0]["state"] == "running":
            return
        time.sleep(0.2)
    raise AssertionError(f"job {job} never ran")


def test_qalter_on_live_cell(live_cell: LocalCell) -> None:
    with Client() as client:
        held = client.submit([job_request("/bin/true", binary=True, hold=True)])[0]
        running = client.submit([job_request("/bin/sleep", ["60"], binary=True)])[0]
        out = run("qalter", "-l", "arch=nosuch", "-N", "renamed", str(held))
        assert out == (f"modified hard resource list of job {held}\n"
                       f"modified job name of job {held}\n", "", 0)
        detail = run("qstat", "-j", str(held))[0]
        lines = {line.split(":", 1)[0]: line.split(":", 1)[1].strip()
                 for line in detail.splitlines() if ":" in line}
        assert lines["hard resource_list"] == "arch=nosuch"
        assert lines["job_name"] == "renamed"
        assert "reserve" not in lines
        assert run("qalter", "-R", "y", str(held)) == (
            f"modified reservation behaviour of job {held}\n", "", 0)
        assert "reserve:                    y\n" in run("qstat", "-j", str(held))[0]
        assert run("qalter", "-R", "x", str(held)) == (
            "", 'qalter: invalid option argument "-R x"\n', 7)
        wait_running(client, running)
        # the scheduler's mirror sees the new request: released, the job still waits
        assert run("qrls", str(held))[2] == 0
        control = client.submit([job_request("/bin/sleep", ["60"], binary=True)])[0]
        wait_running(client, control)
        time.sleep(1.0)
        assert client.jobs([held])["tasks"][0]["state"] == "pending"
        assert run("qalter", "-N", "late", str(running)) == (  # as 8.1.9 (captured)
            f"modified job name of job {running}\n", "", 0)
        assert run("qalter", "-l", "h_rt=100", str(running)) == (
            f"job {running} can't modify running jobs\n", "", 1)
        assert run("qalter", "-N", "x", "9999999") == (
            'denied: job "9999999" does not exist\n', "", 1)
        client.delete([{"job_id": running}, {"job_id": control}])
    [stranger] = other_users(1)
    with client_as(cell_from_env(), stranger) as other:
        [result] = other.alter([{"job_id": held}], {"job_name": "mine"})
    assert result["result"] == "denied"
    assert result["messages"] == [f'denied: "{stranger}" must be at least owner of job '
                                  f"{held} to change job attributes"]
