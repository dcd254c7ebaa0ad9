"""The ``qdel``, ``qhold`` and ``qrls`` console scripts against a live cell, compared with
Grid Engine 8.1.9 (answers on stdout; qdel exits 1 on any refusal; qhold/qrls exit 3 for
an unknown job, 18 for another user's job, 10 without the operator or manager right).

One cell serves the module. Jobs are submitted through the client API, held so that they
stay put; "another user" is a job submitted under a made-up user name, and the caller
loses its manager right for a while through a second manager (also made up) to see the
refusals a plain user gets.
"""
from __future__ import annotations

import os
import pwd
import socket
import subprocess
import time
from typing import Any, Iterator

import pytest

from clients.api import Client, job_request
from common.cell import Cell
from tests.identity import client_as, other_users
from tests.commands import command

USER = pwd.getpwuid(os.getuid()).pw_name
HOST = socket.gethostname().split(".")[0]
Result = tuple[str, str, int]

QDEL_USAGE = """\
SGE 8.1.9
usage: qdel [options] job_task_list
   [-f]                                     force action
   [-help]                                  print this help
   [-u user_list]                           delete all jobs of users specified in list
   job_task_list                            delete all jobs given in list

job_task_list           job_tasks[,job_tasks,...]
job_tasks               [job_id['.'task_id_range]|job_name|pattern][' -t 'task_id_range]
task_id_range           task_id['-'task_id[':'step]]
user_list               user[,user,...]
"""
QRLS_USAGE = """\
SGE 8.1.9
usage: qrls [options] job_task_list
   [-h hold_list]                           list of hold types concerned
   [-help]                                  print this help
   [-u user_list]                           specify a list of users
                                            (not allowed in combination with job_task_list)
   job_task_list                            jobids (and taskids) of jobs to be altered

hold_list               `u' `s' `o'
job_task_list           job_tasks[,job_tasks,...]
job_tasks               [job_id['.'task_id_range]|job_name|pattern][' -t 'task_id_range]
task_id_range           task_id['-'task_id[':'step]]
user_list               user[,user,...]
"""


def run(env: dict[str, str], *calls: str) -> list[Result]:
    """Independent commands at once (each is an interpreter start)."""
    procs = [subprocess.Popen(command(c.split()[0]) + c.split()[1:], env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for c in calls]
    outs = [p.communicate(timeout=30) for p in procs]
    return [(out, err, p.returncode) for p, (out, err) in zip(procs, outs)]


def said(*lines: str, rc: int = 0) -> Result:
    """Lines on stdout, nothing on stderr."""
    return "".join(f"{line}\n" for line in lines), "", rc


def held(client: Client, **opts: Any) -> int:
    """A job with a user hold that stays pending even when released: it also waits for
    a job that never runs (a -hold_jid hold)."""
    blocker = client.submit([job_request("/bin/true", binary=True, hold=True)])[0]
    job = job_request("/bin/true", binary=True, hold=True, hold_jid=[str(blocker)], **opts)
    return client.submit([job])[0]


def test_usage_and_bad_arguments(env: dict[str, str]) -> None:
    results = run(env, "qdel", "qrls", "qhold -bogus", "qrls -bogus", "qdel -bogus",
                  "qdel 999999", "qhold 999999", "qrls 999999")
    assert results[0] == ("ERROR! no option argument\n", QDEL_USAGE, 1)
    assert results[1] == ("", QRLS_USAGE + "ERROR! no option argument\n", 1)
    assert results[2:4] == [("", 'qalter: invalid option argument "-bogus"\n', 2)] * 2
    assert results[4] == said(f"The job -bogus of user(s) {USER} does not exist", rc=1)
    unknown = 'denied: job "999999" does not exist'
    assert results[5:] == [said(unknown, rc=1), said(unknown, rc=3), said(unknown, rc=3)]


def test_hold_and_release_own_job(env: dict[str, str], client: Client) -> None:
    job = held(client)
    modified = said(f"modified hold of job {job}")
    assert run(env, f"qhold {job}") == [said()]  # already held: nothing to say
    assert run(env, f"qrls {job}") == [modified]
    assert run(env, f"qrls {job}") == [said()]
    assert run(env, f"qhold {job}") == [modified]
    assert run(env, f"qhold -h o {job}") == [modified]
    assert run(env, f"qrls -h o {job}") == [modified]


def test_array_tasks_and_names(env: dict[str, str], client: Client) -> None:
    array = held(client, array=[1, 4, 1])
    named = held(client, job_name="byname")
    assert run(env, f"qdel {array}.2-3", "qdel nosuchname") == [
        said(f"{USER} has deleted job-array tasks 2,3 of job {array}"),
        said(f"The job nosuchname of user(s) {USER} does not exist", rc=1)]
    assert run(env, f"qrls {array}", f"qdel {array}.9", "qdel byname") == [
        said(f"modified hold of job-array task {array}.1",
             f"modified hold of job-array task {array}.4"),
        said(f'job "{array}" task "9" does not exist', rc=1),
        said(f"{USER} has deleted job {named}")]
    client.delete([{"job_id": array}])


def _wait_running(client: Client, job_id: int) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if any(t["job_id"] == job_id and t["state"] == "running"
               for t in client.jobs([job_id])["tasks"]):
            return
        time.sleep(0.1)
    pytest.fail(f"job {job_id} did not start")


def test_delete_running_and_all_of_a_user(env: dict[str, str], cell: Cell, client: Client
                                          ) -> None:
    [alice_name] = other_users(1)
    [running] = client.submit([job_request("/bin/sleep", ["30"], binary=True)])
    with client_as(cell, alice_name) as alice:
        first, second = held(alice), held(alice)
    _wait_running(client, running)
    assert run(env, f"qdel {running}", f"qdel -u {alice_name}") == [
        said(f"{USER} has registered the job {running} for deletion"),
        said(f"{USER} has deleted job {first - 1}", f"{USER} has deleted job {first}",
             f"{USER} has deleted job {second - 1}", f"{USER} has deleted job {second}")]


@pytest.fixture
def plain_user(cell: Cell, env: dict[str, str]) -> Iterator[Client]:
    """The caller without its manager right; yields the stand-in manager's client."""
    admin_name = other_users(3)[2]
    admin = client_as(cell, admin_name)
    Client(cell).conf_put("manager", admin_name, None, "add")
    for name in {USER, "root"}:
        admin.conf_del("manager", name)
    try:
        yield admin
    finally:
        for name in {USER, "root"}:
            admin.conf_put("manager", name, None, "add")
        admin.close()


def test_refusals_for_a_plain_user(env: dict[str, str], cell: Cell, client: Client,
                                   plain_user: Client) -> None:
    other_name = other_users(2)[1]
    with client_as(cell, other_name) as other:
        foreign = held(other)
    mine = held(client)
    def not_owner(job: int) -> str:
        return f'denied: "{USER}" must be at least owner of job {job} to change job attributes'
    results = run(env, f"qhold {foreign}", f"qrls {foreign}", f"qhold -u {other_name}",
                  f"qdel {foreign}", f"qhold -h o {mine}", f"qhold -h s {mine}",
                  f"qrls -h o {mine}")
    assert results == [
        said(not_owner(foreign), rc=18), said(not_owner(foreign), rc=18),
        said(not_owner(foreign - 1), not_owner(foreign), rc=18),  # the blocker too
        said(f'{USER} - you do not have the necessary privileges to delete the job "{foreign}"',
             rc=1),
        said(f'denied: "{USER}" must be operator to set operator hold', rc=10),
        said(f'denied: "{USER}" must be manager to set manager hold', rc=10),
        said()]  # no operator hold to remove: nothing changes, nothing is said
    plain_user.hold([{"job_id": mine}], "o")
    assert run(env, f"qrls -h o {mine}") == [
        said(f'denied: "{USER}" must be operator to remove operator hold', rc=10)]
    plain_user.delete([{"job_id": j} for j in (foreign - 1, foreign, mine - 1, mine)])
