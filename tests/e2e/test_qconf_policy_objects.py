"""User objects, the share tree, enforce_user/auto_user_* and the submission and qalter
rules of the policies (-p, -dl, -ot, -js) in a live cell, through the real qconf, qsub
and qalter console scripts; an ordinary user through a client of their own
(tests/identity.py). Texts are 8.1.9's (its source: sge_userprj_qmaster.c,
sge_sharetree_qmaster.c, clients/qconf/parse_qconf.c, sge_job_verify.c)."""
from __future__ import annotations

import getpass
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from clients.api import Client, ClientError, job_request
from common.cell import Cell
from tests.commands import command
from tests.identity import client_as, other_users

ME = getpass.getuser()
WHO = f"{ME}@{socket.gethostname().split('.')[0]}"
TREE = """id=0
name=Root
type=0
shares=1
childnodes=1,2
id=1
name=P1
type=0
shares=80
childnodes=5
id=5
name=u1
type=0
shares=1
childnodes=NONE
id=2
name=default
type=0
shares=20
childnodes=NONE
"""
SHOWN = TREE.replace("childnodes=5", "childnodes=2").replace("childnodes=1,2", "childnodes=1,3") \
    .replace("id=5", "id=2").replace("id=2\nname=default", "id=3\nname=default")


def run(env: dict[str, str], name: str, *args: str, cwd: Path | None = None,
        **extra: str) -> tuple[str, str, int]:
    done = subprocess.run(command(name) + list(args), env={**env, **extra},
                          capture_output=True, text=True, timeout=60, cwd=cwd)
    return done.stdout, done.stderr, done.returncode


def qconf(env: dict[str, str], *args: str, **extra: str) -> tuple[str, str, int]:
    return run(env, "qconf", *args, **extra)


def user_file(tmp_path: Path, name: str, **values: str) -> str:
    pairs = {"name": name, "oticket": "0", "fshare": "0", "delete_time": "0",
             "default_project": "NONE", **values}
    path = tmp_path / f"user-{name}"
    path.write_text("".join(f"{k} {v}\n" for k, v in pairs.items()))
    return str(path)


def set_global(client: Client, **values: str) -> None:
    pairs = client.conf_get("conf")["global"]
    client.conf_put("conf", "global", [[k, values.get(k, v)] for k, v in pairs], "modify")


def users(client: Client) -> dict[str, Any]:
    return client.conf_get("user")


def test_user_objects(env: dict[str, str], client: Client, tmp_path: Path) -> None:
    assert qconf(env, "-suserl") == ("", "no user list defined\n", 1)
    assert qconf(env, "-Auser", user_file(tmp_path, "u1", fshare="10")) == (
        f'{WHO} added "u1" to user list\n', "", 0)
    assert qconf(env, "-suser", "u1") == (
        "name u1\noticket 0\nfshare 10\ndelete_time 0\ndefault_project NONE\n", "", 0)
    assert qconf(env, "-Auser", user_file(tmp_path, "u1")) == (
        "", 'user "u1" already exists\n', 1)
    assert qconf(env, "-Auser", user_file(tmp_path, "default")) == (
        "", 'denied: not allowed add a user with name "default"\n', 1)
    assert qconf(env, "-Auser", user_file(tmp_path, "u2", default_project="nosuch")) == (
        "", 'denied: project "nosuch" does not exist\n', 1)
    bad = user_file(tmp_path, "u2", fshare="-1")
    assert qconf(env, "-Auser", bad)[1:] == (
        'error: parameter "fshare" must be a positive number\n'
        f'error: error reading file: "{bad}"\nerror reading in file\n', 1)
    assert qconf(env, "-Muser", user_file(tmp_path, "u1", oticket="7")) == (
        f'{WHO} modified "u1" in user list\n', "", 0)
    assert qconf(env, "-Muser", user_file(tmp_path, "nosuch")) == (
        "", "nosuch is not known as a user\n", 1)
    assert qconf(env, "-suser", "u1,nosuch") == (
        "name u1\noticket 7\nfshare 0\ndelete_time 0\ndefault_project NONE\n\n",
        "nosuch is not known as a user\n", 0)
    editor = tmp_path / "editor.sh"
    editor.write_text("#!/bin/sh\nsed -i 's/^fshare .*/fshare 33/' \"$1\"\n")
    editor.chmod(0o755)
    assert qconf(env, "-muser", "u1", EDITOR=str(editor)) == (
        f'{WHO} modified "u1" in user list\n', "", 0)
    assert users(client)["u1"][2] == ["fshare", "33"]
    rename = tmp_path / "rename.sh"
    rename.write_text("#!/bin/sh\nsed -i 's/^name .*/name u9/' \"$1\"\n")
    rename.chmod(0o755)
    assert qconf(env, "-muser", "u1", EDITOR=str(rename)) == ("", "u1: cannot change u9\n", 1)
    assert qconf(env, "-muser", "nosuch") == ("", "nosuch is not known as a user\n", 0)
    # users and projects share one name space
    (tmp_path / "prj").write_text("name u1\noticket 0\nfshare 0\nacl NONE\nxacl NONE\n")
    assert qconf(env, "-Aprj", str(tmp_path / "prj")) == (
        "", 'denied: shared namespace between project and user: there is already a user '
            'which is named "u1"\n', 1)
    assert qconf(env, "-duser", "u1,nosuch") == (
        "", f'{WHO} removed "u1" from user list\ndenied: user "nosuch" does not exist\n', 1)


def test_only_managers_change_users(cell: Cell) -> None:
    [stranger] = other_users(1)
    with client_as(cell, stranger) as other:
        with pytest.raises(ClientError, match=f'denied: "{stranger}" must be manager'):
            other.conf_put("user", "u3", [["name", "u3"]], "add")
        with pytest.raises(ClientError, match=f'denied: "{stranger}" must be manager'):
            other.conf_put("sharetree", "sharetree", [["id", "0"]], "add")


def test_share_tree(env: dict[str, str], client: Client, tmp_path: Path) -> None:
    (tmp_path / "p1").write_text("name P1\noticket 0\nfshare 0\nacl NONE\nxacl NONE\n")
    assert qconf(env, "-Aprj", str(tmp_path / "p1"))[2] == 0
    assert qconf(env, "-Auser", user_file(tmp_path, "u1"))[2] == 0
    assert qconf(env, "-sstree") == ("", "no sharetree element\n", 1)
    assert qconf(env, "-sst") == ("", "No sharetree\n", 0)
    (tmp_path / "tree").write_text(TREE)
    (tmp_path / "bad").write_text(TREE.replace("childnodes=5", "childnodes=9"))
    assert qconf(env, "-Astree", str(tmp_path / "bad")) == (
        "", "found reference to node 9 but no specification\n", 0)
    (tmp_path / "ghost").write_text(TREE.replace("name=u1", "name=ghost"))
    assert qconf(env, "-Mstree", str(tmp_path / "ghost")) == (
        "", 'denied: share tree contains reference to unknown user "ghost"\n', 1)
    assert qconf(env, "-Astree", str(tmp_path / "tree")) == ("", "changed sharetree\n", 0)
    assert qconf(env, "-sstree") == (SHOWN, "", 0)
    assert qconf(env, "-sst") == ("Root=1\n   P1=80\n      u1=1\n   default=20\n", "", 0)
    assert qconf(env, "-sstnode", "/P1") == ("/P1=80\n/P1/u1=1\n", "", 0)
    assert qconf(env, "-sstnode", "/nosuch") == ("", "Unable to locate /nosuch in sharetree\n",
                                                 1)
    assert qconf(env, "-mstnode", "/P1/u1=10") == (
        "", "setting \n/P1/u1=10\nmodified sharetree\n", 0)
    assert qconf(env, "-astnode", "/P1/u2=5") == (
        "", 'setting \n/P1/u2=5\ndenied: share tree contains reference to unknown user '
            '"u2"\n', 1)
    assert qconf(env, "-dstnode", "/P1") == (
        "", "can't delete nodes with children\nno modifications to sharetree\n", 1)
    assert qconf(env, "-duser", "u1") == (
        "", 'denied: may not remove user "u1" still referenced in share tree\n', 1)
    assert qconf(env, "-dprj", "P1") == (
        "", 'denied: may not remove project "P1" still referenced in share tree\n', 1)
    assert qconf(env, "-dstnode", "/P1/u1") == ("", "removing \n/P1/u1\nmodified sharetree\n",
                                                0)
    assert qconf(env, "-sstnode", "/") == ("/=1\n/P1=80\n/default=20\n", "", 0)
    editor = tmp_path / "editor.sh"
    editor.write_text("#!/bin/sh\nsed -i 's/^shares=20$/shares=30/' \"$1\"\n")
    editor.chmod(0o755)
    assert qconf(env, "-mstree", EDITOR=str(editor)) == ("", "changed sharetree\n", 0)
    assert "   default=30" in qconf(env, "-sst")[0]
    assert qconf(env, "-dstree") == ("", f"{WHO} removed sharetree list\n", 0)
    assert qconf(env, "-dstree") == ("", "sharetree does not exist\n", 1)
    assert qconf(env, "-astnode", "/u1=4") == ("", "setting \n/u1=4\nmodified sharetree\n", 0)
    assert qconf(env, "-sstree")[0].splitlines()[:2] == ["id=0", "name=Root"]
    assert qconf(env, "-dstree")[2] == 0
    assert qconf(env, "-duser", "u1")[2] == 0
    assert qconf(env, "-dprj", "P1")[2] == 0


def _submit(env: dict[str, str], *args: str) -> tuple[str, str, int]:
    return run(env, "qsub", "-b", "y", *args, "/bin/true")


def _job_id(out: str) -> int:
    return int(out.split()[2])


def _opts(client: Client, job_id: int) -> dict[str, Any]:
    return client.jobs([job_id], include_finished=True)["jobs"][0]["opts"]


def test_enforce_user_and_default_project(env: dict[str, str], client: Client,
                                          tmp_path: Path) -> None:
    (tmp_path / "p2").write_text("name p2\noticket 0\nfshare 0\nacl NONE\nxacl NONE\n")
    assert qconf(env, "-Aprj", str(tmp_path / "p2"))[2] == 0
    try:
        set_global(client, enforce_user="true")
        if ME in users(client):
            assert qconf(env, "-duser", ME)[2] == 0
        out, errs, rc = _submit(env, "-h")
        assert (rc, errs) == (1, f'Unable to run job: job rejected: the user "{ME}" does not '
                                 "exist\nExiting.\n")
        set_global(client, enforce_user="auto", auto_user_fshare="12",
                   auto_user_default_project="p2", auto_user_delete_time="1000")
        before = time.time()
        job = _job_id(_submit(env, "-h")[0])
        made = dict(users(client)[ME])
        assert (made["fshare"], made["default_project"]) == ("12", "p2")
        assert before + 999 <= int(made["delete_time"]) <= time.time() + 1001
        assert _opts(client, job)["project"] == "p2"  # its owner's default_project
        client.delete([{"job_id": job}])
        # an automatic user without jobs goes when its delete_time has passed
        assert qconf(env, "-duser", ME)[2] == 0
        set_global(client, auto_user_delete_time="1")
        _job_id(_submit(env)[0])  # while it has the job, its delete_time moves on
        deadline = time.monotonic() + 30
        while ME in users(client) and time.monotonic() < deadline:
            time.sleep(0.3)
        assert ME not in users(client)
    finally:
        set_global(client, enforce_user="auto", auto_user_fshare="0",
                   auto_user_default_project="none", auto_user_delete_time="86400")
        if ME in users(client):
            qconf(env, "-duser", ME)
        qconf(env, "-dprj", "p2")


def test_deadline_priority_and_tickets(env: dict[str, str], client: Client, cell: Cell
                                       ) -> None:
    assert _submit(env, "-h", "-dl", "12312359")[1:] == (
        f'Unable to run job: job rejected: the user "{ME}" is not a deadline initiation '
        "user\nExiting.\n", 1)
    assert qconf(env, "-au", ME, "deadlineusers")[2] == 0
    try:
        job = _job_id(_submit(env, "-h", "-dl", "12312359")[0])
        assert run(env, "qalter", "-ot", "100", "-p", "-5", "-js", "10", "-dl", "12312358",
                   str(job)) == (
            f"{WHO} sets override tickets of job {job} to 100\n"
            f"{WHO} sets scheduling priority of job {job} to -5\n"
            f"{WHO} sets job share of job {job} to 10\n"
            f"modified deadline time of job {job}\n", "", 0)
        opts = _opts(client, job)
        assert (opts["override_tickets"], opts["priority"], opts["job_share"],
                opts["deadline"]) == (100, -5, 10, "12312358")
        assert run(env, "qalter", "-ot", "x", str(job))[1:] == (  # as -js's (parse_qsub.c)
            "qalter: invalid override tickets, must be an unsigned integer\n", 2)
        client.delete([{"job_id": job}])
    finally:
        qconf(env, "-du", ME, "deadlineusers")
    assert run(env, "qsub", "-b", "y", "-ot", "5", "/bin/true")[2] != 0  # qalter only
    [stranger] = other_users(1)
    with client_as(cell, stranger) as other:
        with pytest.raises(ClientError, match="positive submission priority requires "
                                              "operator privileges"):
            other.submit([job_request("/bin/true", binary=True, hold=True, priority=5)])
        with pytest.raises(ClientError, match=f'the user "{stranger}" is not a deadline'):
            other.submit([job_request("/bin/true", binary=True, hold=True,
                                      deadline="12312359")])
        [job] = other.submit([job_request("/bin/true", binary=True, hold=True)])
        [ot] = other.alter([{"job_id": job}], {"override_tickets": 5})
        assert ot["messages"] == [f'denied: "{stranger}" must be operator to change amount '
                                  "of override tickets"]
        [up] = other.alter([{"job_id": job}], {"priority": 3})
        assert up["messages"] == [f'denied: "{stranger}" must be operator to increase job '
                                  "priority"]
        [down] = other.alter([{"job_id": job}], {"priority": -3, "job_share": 4})
        assert down["result"] == "modified"
        other.delete([{"job_id": job}])


def test_priority_of_a_running_job_changes(env: dict[str, str], client: Client) -> None:
    job = _job_id(run(env, "qsub", "-b", "y", "/bin/sleep", "60")[0])
    deadline = time.monotonic() + 30
    while client.jobs([job])["tasks"][0]["state"] != "running":
        assert time.monotonic() < deadline, "the job never ran"
        time.sleep(0.2)
    try:
        assert run(env, "qalter", "-p", "-7", str(job)) == (
            f"{WHO} sets scheduling priority of job {job} to -7\n", "", 0)
        # 8.1.9 renames a running job too (tests/data/reference/qsub/qalter-running-N)
        assert run(env, "qalter", "-N", "x", str(job)) == (
            f"modified job name of job {job}\n", "", 0)
    finally:
        client.delete([{"job_id": job}])


def test_a_user_belongs_to_one_department(env: dict[str, str], tmp_path: Path) -> None:
    for name, entries in (("d1", "u1,@g1"), ("d2", "u2,u1")):
        (tmp_path / name).write_text(f"name {name}\ntype DEPT\nfshare 0\noticket 0\n"
                                     f"entries {entries}\n")
    assert qconf(env, "-Au", str(tmp_path / "d1"))[2] == 0
    try:
        assert qconf(env, "-Au", str(tmp_path / "d2")) == (
            "", 'denied: user "u1" already belongs to department "d1"\n', 1)
        assert qconf(env, "-au", "@g1", "d3")[2] == 0  # an access list takes anybody
    finally:
        qconf(env, "-dul", "d1,d3")
