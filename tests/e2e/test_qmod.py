"""The ``qmod`` console script against a live cell, compared with Grid Engine 8.1.9's
captures in tests/data/reference/qmod (see its README): queue instance states and what
``qstat -f`` shows of them, job suspension by the owner and by the queue, rescheduling,
rights of another user. The captures name host ``vm``, users ``root``, ``sgeuser`` (the
job owner) and ``cloudsdk`` (another user) and job 306; the tests put in their own.
"""
from __future__ import annotations

import os
import pwd
import socket
import subprocess
import time

import pytest

from clients.api import Client, job_request
from common.cell import Cell
from tests.commands import command
from tests.identity import client_as, other_users
from tests.reference import REFERENCE

USER = pwd.getpwuid(os.getuid()).pw_name
HOST = socket.gethostname().split(".")[0]
QMOD = REFERENCE / "qmod"
Result = tuple[str, str, int]


def run(env: dict[str, str], *args: str) -> Result:
    proc = subprocess.run(command(args[0]) + list(args[1:]), env=env, text=True,
                          capture_output=True, timeout=30)
    return proc.stdout, proc.stderr, proc.returncode


def fit(text: str, job: int = 306, other: str = "cloudsdk") -> str:
    """A capture's text with this cell's host, users and job."""
    return (text.replace("root@vm", f"{USER}@{HOST}").replace("sgeuser@vm", f"{USER}@{HOST}")
            .replace("@vm", f"@{HOST}").replace("root - ", f"{USER} - ")
            .replace("sgeuser - ", f"{USER} - ").replace("cloudsdk", other)
            .replace("306", str(job)))


def captured(name: str, **kw: object) -> Result:
    return (fit((QMOD / f"{name}.out").read_text(), **kw),  # type: ignore[arg-type]
            (QMOD / f"{name}.err").read_text(), int((QMOD / f"{name}.rc").read_text()))


def states_column(qstat_f: str) -> list[str]:
    """The states of each queue instance line (qstat -f), the load column aside."""
    return [(line.split()[5:] or [""])[0] for line in qstat_f.splitlines()
            if line.startswith("all.q@")]


def job_states(qstat: str) -> list[str]:
    return [line.split()[4] for line in qstat.splitlines()[2:] if line.strip()]


def test_queue_instance_states(env: dict[str, str]) -> None:
    for name, args in [("d-qi", ["-d", f"all.q@{HOST}"]), ("d-qi-again", ["-d", "all.q"]),
                       ("d-star-host", ["-d", f"*@{HOST}"]),
                       ("d-qdomain", ["-d", "all.q@@allhosts"])]:
        if name == "d-qdomain":
            run(env, "qmod", "-e", "all.q")
        assert run(env, "qmod", *args) == captured(name), name
    out = run(env, "qstat", "-f")[0]
    assert states_column(out) == states_column(captured("qstat-f-disabled")[0]) == ["d"]
    for name, args in [("s-disabled", ["-s", f"all.q@{HOST}"]),
                       ("c-qi-noerror", ["-c", f"all.q@{HOST}"]),
                       ("d-unknown-queue", ["-d", "nosuch.q"]),
                       ("d-unknown-host", ["-d", "all.q@nosuchhost"]),
                       ("d-hgrp", ["-d", "@allhosts"]),
                       ("usq-qi", ["-usq", f"all.q@{HOST}"]), ("e-qi", ["-e", f"all.q@{HOST}"]),
                       ("e-comma", ["-e", f"all.q,all.q@{HOST}"]),
                       ("e-space", ["-e", "all.q", f"all.q@{HOST}"])]:
        if name == "e-comma":
            run(env, "qmod", "-d", "all.q")
        if name == "c-qi-noerror":
            assert states_column(run(env, "qstat", "-f")[0]) == \
                states_column(captured("qstat-f-sd")[0]) == ["ds"]
        assert run(env, "qmod", *args) == captured(name), name
    assert run(env, "qmod", "-d", "nosuch.q", f"all.q@{HOST}") == captured("d-unknown-and-known")
    run(env, "qmod", "-e", "all.q")


def _wait_state(client: Client, job: int, state: str) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if any(t["state"] == state for t in client.jobs([job])["tasks"]):
            return
        time.sleep(0.1)
    pytest.fail(f"job {job} never {state}")


def test_job_suspension_by_owner_and_queue(env: dict[str, str], cell: Cell,
                                           client: Client) -> None:
    [job] = client.submit([job_request("/bin/sleep", ["60"], binary=True, job_name="sleeper")])
    _wait_state(client, job, "running")
    for name, args in [("sj-own", ["-sj", str(job)]), ("sj-own-again", ["-sj", str(job)]),
                       ("usj-own", ["-usj", str(job)]),
                       ("usj-own-again", ["-usj", str(job)]),
                       ("sj-name", ["-sj", "sleeper"]), ("usj-name", ["-usj", "sleeper"]),
                       ("s-job", ["-s", str(job)]), ("us-job", ["-us", str(job)]),
                       ("sj-unknown", ["-sj", "999999"]), ("cj-unknown", ["-cj", "999999"]),
                       ("c-unknown-id", ["-c", "999999"]),
                       ("cj-not-error", ["-cj", str(job)]),
                       ("s-qi", ["-s", f"all.q@{HOST}"])]:
        assert run(env, "qmod", *args) == captured(name, job=job), name
    assert job_states(run(env, "qstat")[0]) == job_states(captured("qstat-queue-suspended")[0])
    assert run(env, "qmod", "-sj", str(job)) == captured("sj-in-suspended-queue", job=job)
    assert states_column(run(env, "qstat", "-f")[0]) == ["s"]
    assert job_states(run(env, "qstat", "-s", "s")[0]) == ["Ss"]
    assert run(env, "qmod", "-us", f"all.q@{HOST}") == captured("us-qi")
    assert job_states(run(env, "qstat")[0]) == ["s"]
    assert run(env, "qmod", "-usj", str(job)) == captured("usj-after", job=job)
    with client_as(cell, other_users(1)[0]) as other:
        answers = other.request("qmod", {"user": other.user.to_dict(), "items": [
            {"action": "suspend", "scope": "job", "ref": str(job)},
            {"action": "disable", "scope": "queue", "ref": f"all.q@{HOST}"}]})["answers"]
    name = other_users(1)[0]
    assert [a["text"] + "\n" for a in answers] == [
        captured("sj-other", job=job, other=name)[0],
        (QMOD / "user-d-qi.out").read_text().replace("sgeuser", name)
        .replace("@vm", f"@{HOST}")]
    assert run(env, "qmod", "-rj", str(job)) == captured("rj-own", job=job)
    assert run(env, "qmod", "-f", "-rj", str(job)) == captured("rj-root-f", job=job)


def test_pending_jobs(env: dict[str, str], client: Client) -> None:
    [held] = client.submit([job_request("/bin/true", binary=True, hold=True)])
    [array] = client.submit([job_request("/bin/true", binary=True, hold=True,
                                         array=[1, 2, 1])])
    assert run(env, "qmod", "-sj", str(held)) == (
        (QMOD / "sj-pending.out").read_text().replace("307", str(held)), "", 0)
    assert run(env, "qmod", "-sj", str(array)) == (
        (QMOD / "sj-pending-array.out").read_text().replace("314", str(array)), "", 0)
    assert run(env, "qmod", "-sj", f"{array}.1-2") == (
        (QMOD / "sj-pending-array-range.out").read_text().replace("314", str(array)), "", 0)
    client.delete([{"job_id": held}, {"job_id": array}])
