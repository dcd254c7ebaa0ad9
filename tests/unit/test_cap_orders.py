"""The qmaster's check of dispatch orders against the caps (common.placement.caps): the
scheduler may work from a view a moment old, so an order that would take a user past
sched_conf(5) maxujobs or a job past its max_aj_instances / -tc is refused, with a
reason the scheduler logs."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from qmaster.defaults import queue_defaults

from common import wire
from clients.qalter import QalterError, parse_qalter
from tests.unit.test_qmaster_core import ALICE, BOB, ROOT, Harness


@pytest.fixture
def qm(tmp_path: Path) -> Harness:
    h = Harness(tmp_path, auto_add_hosts=True, default_slots=8)
    h.call("register", {"host": "h1", "load": {"num_proc": "8", "np_load_avg": "0.10"},
                        "jobs": []}, identity=b"execd:h1")
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


def reasons(qm: Harness, job_id: int) -> list[str]:
    info = qm.call("job_query", {"user": ROOT.to_dict(), "job_ids": [job_id],
                                 "explain": True})["scheduling_info"]
    return list(info.get(str(job_id), info.get(job_id, [])))


def test_qstat_j_says_a_job_waits_for_maxujobs(qm: Harness) -> None:
    set_conf(qm, "sconf", maxujobs="1")
    first, second = qm.submit(), qm.submit()
    assert reasons(qm, second) == []
    assert send(qm, dispatch(first, 1, version(qm, first)))["accepted"] == 1
    # twice, as 8.1.9's qstat -j prints it (tests/data/reference/policy/g7-maxujobs-*)
    assert reasons(qm, second) == ["job dropped because of user limitations"] * 2
    assert reasons(qm, qm.submit(BOB)) == []


def test_qstat_j_says_an_array_job_waits_for_its_instance_limit(qm: Harness) -> None:
    job = qm.submit(array=(1, 4, 1), task_concurrency=1)
    # nothing runs yet: task 1 may start, 2-4 may not (8.1.9 says so already)
    line = "not all array tasks may be started due to 'max_aj_instances'"
    assert reasons(qm, job) == [line]
    assert send(qm, dispatch(job, 1, version(qm, job)))["accepted"] == 1
    assert reasons(qm, job) == [line]
    # with every slot taken, only the lines of what may start come first: none may
    qm.call("conf_put", {"user": ROOT.to_dict(), "kind": "queue", "name": "all.q",
                         "data": queue_defaults("all.q", hostlist="@allhosts", slots="1"),
                         "mode": "modify"})
    assert reasons(qm, job) == [line]
    other = qm.submit(array=(1, 2, 1), task_concurrency=2)
    assert reasons(qm, other) == ['queue instance "all.q@h1" dropped because it is full']


# ---- qalter -tc (8.1.9's qalter changes it on running array jobs too) ----------------
def alter(qm: Harness, job_id: int, changes: dict[str, Any]) -> dict[str, Any]:
    body = {"user": ALICE.to_dict(), "targets": [{"job_id": job_id}], "changes": changes}
    [result] = qm.call("alter", body)["results"]
    return result


def published(frames: list[bytes]) -> list[dict[str, Any]]:
    topic, payload = wire.decode_published(frames)
    return payload.get("events", []) if topic == wire.TOPIC_EVENTS else []


def test_qalter_tc_raises_the_limit_of_a_running_array_job(qm: Harness) -> None:
    job = qm.submit(array=(1, 4, 1), task_concurrency=1)
    assert send(qm, dispatch(job, 1, version(qm, job)))["accepted"] == 1
    assert send(qm, dispatch(job, 2, version(qm, job)))["accepted"] == 0
    result = alter(qm, job, {"task_concurrency": 2})
    assert (result["result"], result["messages"]) == (
        "modified", [f"modified task concurrency of job {job}"])
    assert qm.server.store.jobs[job].opts["task_concurrency"] == 2
    # the scheduler hears of it: -tc travels in the job's placement record
    events = [e for frames in qm.pub.sent for e in published(frames)]
    assert [e["obj"]["opts"]["task_concurrency"] for e in events
            if e["kind"] == "job" and e["key"] == str(job)][-1] == 2
    assert send(qm, dispatch(job, 2, version(qm, job)))["accepted"] == 1
    # changes of what a running task holds stay refused
    assert alter(qm, job, {"hard_queues": ["x.q"]})["messages"] == [
        f"job {job} can't modify running jobs"]


def test_qalter_tc_of_a_job_that_is_no_array_is_refused(qm: Harness) -> None:
    job = qm.submit()
    assert alter(qm, job, {"task_concurrency": 2})["messages"] == [
        'invalid option argument "task concurrency"']
    assert alter(qm, job, {"task_concurrency": 0})["result"] == "modified"


def test_qalter_parses_tc() -> None:
    assert parse_qalter(["-tc", "3", "7"]).changes == {"task_concurrency": 3}
    with pytest.raises(QalterError) as err:
        parse_qalter(["-tc", "x", "7"])
    assert err.value.message.startswith('qalter: invalid task concurrency number "x"')
