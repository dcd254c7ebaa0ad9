"""The qmaster (without sockets) with user objects, the share tree and enforce_user:
what it stores, keeps over a restart, creates at submission and deletes again."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from common.objects_conf.sharetree import parse_sharetree, tree_pairs
from common.objects_conf.user import user_pairs
from tests.unit.test_qmaster_core import ALICE, ROOT, Harness

TREE = tree_pairs(parse_sharetree(
    "id=0\nname=Root\ntype=0\nshares=1\nchildnodes=1,2\n"
    "id=1\nname=alice\ntype=0\nshares=80\nchildnodes=NONE\n"
    "id=2\nname=default\ntype=0\nshares=20\nchildnodes=NONE\n"))


def put(qm: Harness, kind: str, name: str, data: Any, mode: str = "add",
        user: Any = ROOT) -> dict[str, Any]:
    return qm.call("conf_put", {"user": user.to_dict(), "kind": kind, "name": name,
                                "data": data, "mode": mode})


def set_global(qm: Harness, **values: str) -> None:
    pairs = qm.server.store.conf["conf"]["global"]
    put(qm, "conf", "global", [[k, values.get(k, v)] for k, v in pairs], "modify")


def test_users_and_the_tree_survive_a_restart(tmp_path: Path) -> None:
    qm = Harness(tmp_path)
    assert put(qm, "user", "alice", user_pairs("alice", fshare=5))["message"] == \
        'root@qm added "alice" to user list'
    assert put(qm, "sharetree", "sharetree", TREE)["message"] == \
        "root@qm has added sharetree with 3 nodes and 2 leaves"
    assert put(qm, "sharetree", "sharetree", TREE, "modify")["message"] == \
        "root@qm has modified sharetree with 3 nodes and 2 leaves"
    qm.server.spool.close()
    again = Harness(tmp_path)
    conf = again.server.store.conf
    assert conf["user"] == {"alice": user_pairs("alice", fshare=5)}
    assert conf["sharetree"] == {"sharetree": TREE}
    assert again.server.store.set_aside == {}
    again.server.spool.close()


def test_only_managers_change_them(tmp_path: Path) -> None:
    qm = Harness(tmp_path)
    with pytest.raises(RuntimeError, match='denied: "alice" must be manager'):
        put(qm, "user", "alice", user_pairs("alice"), user=ALICE)
    with pytest.raises(RuntimeError, match='denied: "alice" must be manager'):
        put(qm, "sharetree", "sharetree", TREE, user=ALICE)


def test_auto_user_at_submission_and_its_clean_up(tmp_path: Path) -> None:
    qm = Harness(tmp_path)
    set_global(qm, auto_user_fshare="9", auto_user_delete_time="50")
    job = qm.submit()
    made = dict(qm.server.store.conf["user"]["alice"])
    assert made["fshare"] == "9" and int(made["delete_time"]) > 0
    # expired while alice has a job: it stays, with a new delete_time
    qm.server.store.conf["user"]["alice"] = user_pairs("alice", delete_time=1)
    qm.server._check_auto_users()
    assert int(dict(qm.server.store.conf["user"]["alice"])["delete_time"]) > 1
    qm.call("delete", {"user": ALICE.to_dict(), "targets": [{"job_id": job}]})
    qm.server.store.conf["user"]["alice"] = user_pairs("alice", delete_time=1)
    qm.server._check_auto_users()
    assert "alice" not in qm.server.store.conf["user"]
    qm.server.spool.close()


def test_enforce_user_true_refuses_users_without_an_object(tmp_path: Path) -> None:
    qm = Harness(tmp_path)
    set_global(qm, enforce_user="true")
    with pytest.raises(RuntimeError, match='job rejected: the user "alice" does not exist'):
        qm.submit()
    assert "alice" not in qm.server.store.conf["user"]
    put(qm, "user", "alice", user_pairs("alice"))
    assert qm.submit() > 0
    qm.server.spool.close()


def test_default_project_and_deadline(tmp_path: Path) -> None:
    qm = Harness(tmp_path)
    put(qm, "project", "p1", [["name", "p1"], ["oticket", "0"], ["fshare", "0"],
                              ["acl", "NONE"], ["xacl", "NONE"]])
    put(qm, "user", "alice", user_pairs("alice", default_project="p1"))
    job = qm.submit()
    assert qm.server.store.jobs[job].opts["project"] == "p1"
    with pytest.raises(RuntimeError, match='the user "alice" is not a deadline initiation'):
        qm.submit(deadline="12312359")
    with pytest.raises(RuntimeError, match="override_tickets"):
        qm.submit(override_tickets=5)
    qm.server.spool.close()
