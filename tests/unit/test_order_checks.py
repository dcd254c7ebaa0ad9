"""The qmaster refuses scheduler orders that do not give a job what it asked for, and
execd messages that name no proper host (found by the attack suite, issue 7)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.unit.test_qmaster_core import ALICE, ROOT, Harness


@pytest.fixture
def qm(tmp_path: Path) -> Harness:
    harness = Harness(tmp_path, auto_add_hosts=True, default_slots=4)
    harness.register("h1")
    return harness


def order(qm: Harness, job: int, granted: list[list[Any]]) -> dict[str, Any]:
    task = qm.tasks(job)[0]
    return qm.call("orders", {"orders": [{"type": "dispatch", "job_id": job, "task_id": 1,
                                          "task_version": task["version"],
                                          "granted": granted}]})


@pytest.mark.parametrize("opts, granted, reason", [
    ({}, [["all.q", "h1", 2]], "a job without a parallel environment gets one slot"),
    ({}, [["all.q", "h1", 1], ["all.q", "h1", 1]],
     "a job without a parallel environment gets one slot"),
    ({"hard_queues": ["other.q"]}, [["all.q", "h1", 1]],
     "queue instance all.q@h1 is not in the job's hard queue list"),
    ({"hard_queues": ["all.q@h2"]}, [["all.q", "h1", 1]],
     "queue instance all.q@h1 is not in the job's hard queue list"),
    ({"hard_resources": {"arch": "nosuch-arch"}}, [["all.q", "h1", 1]], "arch"),
])
def test_orders_beside_the_request_are_refused(qm: Harness, opts: dict[str, Any],
                                               granted: list[list[Any]], reason: str) -> None:
    job = qm.submit(**opts)
    reply = order(qm, job, granted)
    assert reply["accepted"] == 0 and reason in reply["refused"][0]["reason"]
    assert qm.tasks(job)[0]["state"] == "pending"


def test_orders_that_follow_the_request_are_accepted(qm: Harness) -> None:
    job = qm.submit(hard_queues=["all.q@h1"], hard_resources={"hostname": "h1"})
    assert order(qm, job, [["all.q", "h1", 1]])["accepted"] == 1


@pytest.mark.parametrize("host", ["@allhosts", "a,b", "h*", "global", "", " h1", "h\u00e9"])
def test_an_execd_must_name_a_host(qm: Harness, host: str) -> None:
    with pytest.raises(RuntimeError, match="register: host: "):
        qm.call("register", {"host": host, "load": {}, "jobs": []}, identity=b"execd:x")
    assert qm.call("cluster_query", {"user": ALICE.to_dict()})["exechosts"] == ["global", "h1"]


def test_an_alteration_must_leave_a_job_its_description_accepts(qm: Harness) -> None:
    """Found by the attack suite: slot ranges merged into a job without -pe were spooled,
    and the next start set the job aside."""
    job = qm.submit(hold=True)
    reply = qm.call("alter", {"user": ALICE.to_dict(), "targets": [{"job_id": job}],
                              "changes": {"pe_ranges": [[1, 2]]}})
    [result] = reply["results"]
    assert result["result"] == "denied"
    assert "slot ranges without a parallel environment" in result["messages"][0]
    assert qm.server.store.jobs[job].opts["pe_ranges"] == []


@pytest.mark.parametrize("kind, name, pairs", [
    ("queue", "x", [["qname", "all.q"], ["hostlist", "NONE"]]),
    ("queue", "", [["qname", "all.q"]]),
    ("pe", "a b", [["pe_name", "ab"]]),
    ("pe", "fresh", []),  # an object of defaults is named "template"
    ("hgrp", "@g", [["group_name", "@h"], ["hostlist", "NONE"]]),
])
def test_a_configuration_object_is_stored_under_its_own_name(
        qm: Harness, kind: str, name: str, pairs: list[list[str]]) -> None:
    """Found by the attack suite: a manager's conf_put stored objects under names that
    their own name attribute contradicts (a queue "x" whose qname is all.q)."""
    from tests.unit.test_qmaster_core import ROOT
    before = dict(qm.server.store.conf[kind])
    with pytest.raises(RuntimeError, match=r'^denied: .* names itself'):
        qm.call("conf_put", {"user": ROOT.to_dict(), "kind": kind, "name": name,
                             "data": pairs, "mode": "add"})
    assert qm.server.store.conf[kind] == before


def test_orders_over_a_resource_quota_are_refused(qm: Harness) -> None:
    """The qmaster counts the running jobs and the orders before it in the batch."""
    rqs = [["name", "one_each"], ["enabled", "TRUE"], ["limit", "users {*} to slots=1"]]
    qm.call("conf_put", {"user": ROOT.to_dict(), "kind": "rqs", "name": "one_each",
                         "data": rqs, "mode": "add"})
    first, second = qm.submit(), qm.submit()
    assert order(qm, first, [["all.q", "h1", 1]])["accepted"] == 1
    reply = order(qm, second, [["all.q", "h1", 1]])
    assert reply["accepted"] == 0
    assert reply["refused"][0]["reason"] == \
        'cannot run because it exceeds limit "one_each/1"'
    assert qm.tasks(second)[0]["state"] == "pending"


@pytest.mark.parametrize("qtype, session, reason", [
    ("BATCH", {"kind": "qrsh", "host": "h", "port": 1, "token": b"t" * 32},
     "queue instance all.q@h1 is not of type interactive"),
    ("INTERACTIVE", None, "queue instance all.q@h1 is not of type batch"),
])
def test_orders_to_a_queue_of_another_type_are_refused(
        qm: Harness, qtype: str, session: Any, reason: str) -> None:
    conf = qm.call("conf_get", {"user": ROOT.to_dict(), "kind": "queue"})
    rows = [[k, qtype if k == "qtype" else v] for k, v in conf["objects"]["all.q"]]
    qm.call("conf_put", {"user": ROOT.to_dict(), "kind": "queue", "name": "all.q",
                         "data": rows, "mode": "modify"})
    job = qm.submit(**({"session": session} if session else {}))
    reply = order(qm, job, [["all.q", "h1", 1]])
    assert reply["accepted"] == 0 and reply["refused"][0]["reason"] == reason
