"""The qmaster's check of dispatch orders against the caps (common.placement.caps): the
scheduler may work from a view a moment old, so an order that would take a user past
sched_conf(5) maxujobs or a job past its max_aj_instances / -tc is refused, with a
reason the scheduler logs."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.unit.test_qmaster_core import BOB, ROOT, Harness


@pytest.fixture
def qm(tmp_path: Path) -> Harness:
    h = Harness(tmp_path, auto_add_hosts=True, default_slots=8)
    h.register("h1")
    return h


def set_conf(qm: Harness, kind: str, **values: str) -> None:
    conf = qm.call("conf_get", {"user": ROOT.to_dict(), "kind": kind})["objects"]["global"]
    pairs = [[k, values.pop(k, v)] for k, v in conf] + [[k, v] for k, v in values.items()]
    reply = qm.call("conf_put", {"user": ROOT.to_dict(), "kind": kind, "name": "global",
                                 "data": pairs, "mode": "modify"})
    assert "message" not in reply or "error" not in str(reply), reply


def dispatch(job_id: int, task_id: int, version: int) -> dict[str, Any]:
    return {"type": "dispatch", "job_id": job_id, "task_id": task_id,
            "task_version": version, "granted": [["all.q", "h1", 1]]}


def version(qm: Harness, job_id: int) -> int:
    """The version of the job's pending ids (what the scheduler's order carries)."""
    return qm.server.store.ranges[job_id].version


def send(qm: Harness, *orders: dict[str, Any]) -> dict[str, Any]:
    return qm.call("orders", {"orders": list(orders)})


def test_an_order_past_maxujobs_is_refused_in_the_same_batch_and_later(qm: Harness) -> None:
    set_conf(qm, "sconf", maxujobs="1")
    first, second = qm.submit(), qm.submit()
    bobs = qm.submit(BOB)
    reply = send(qm, dispatch(first, 1, version(qm, first)),
                 dispatch(second, 1, version(qm, second)))
    assert reply["accepted"] == 1
    assert [r["reason"] for r in reply["refused"]] == [
        'cannot start: user "alice" already runs 1 jobs (maxujobs 1)']
    again = send(qm, dispatch(second, 1, version(qm, second)))
    assert again["accepted"] == 0
    # the cap is alice's: bob's job starts
    assert send(qm, dispatch(bobs, 1, version(qm, bobs)))["accepted"] == 1


def test_an_order_past_task_concurrency_is_refused(qm: Harness) -> None:
    job = qm.submit(array=(1, 4, 1), task_concurrency=1)
    v = version(qm, job)
    reply = send(qm, dispatch(job, 1, v), dispatch(job, 2, v))
    assert reply["accepted"] == 1
    assert reply["refused"][0]["reason"] == \
        f"cannot start: job {job} already has 1 task instances (-tc 1)"


def test_an_order_past_max_aj_instances_is_refused(qm: Harness) -> None:
    set_conf(qm, "conf", max_aj_instances="2")
    job = qm.submit(array=(1, 4, 1))
    v = version(qm, job)
    reply = send(qm, dispatch(job, 1, v), dispatch(job, 2, v), dispatch(job, 3, v))
    assert reply["accepted"] == 2
    assert reply["refused"][0]["reason"] == \
        f"cannot start: job {job} already has 2 task instances (max_aj_instances 2)"


def test_a_refused_order_is_not_counted(qm: Harness) -> None:
    """An order another check refuses (here: a queue instance that does not exist)
    takes no place under the caps from the orders after it."""
    set_conf(qm, "sconf", maxujobs="1")
    first, second = qm.submit(), qm.submit()
    bad = {**dispatch(first, 1, version(qm, first)), "granted": [["all.q", "nohost", 1]]}
    reply = send(qm, bad, dispatch(second, 1, version(qm, second)))
    assert reply["accepted"] == 1
