"""The qmaster's check of the parallel environment in a dispatch order: the PE the
scheduler chose is recorded on the task (``granted_pe``), reaches the execd and the
accounting record, and orders that break the PE's rules are refused."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from common import wire
from common.accounting import read_records
from qmaster.defaults import pe_defaults, queue_defaults
from common.placement.pass_conf import grant_follows_rule
from tests.unit.test_qmaster_core import ROOT, Harness


@pytest.fixture
def qm(tmp_path: Path) -> Harness:
    h = Harness(tmp_path, auto_add_hosts=True, default_slots=4)
    h.register("h1")
    h.register("h2")
    return h


def order(qm: Harness, job_id: int, granted: list[list[Any]], pe: str | None
          ) -> dict[str, Any]:
    version = qm.tasks(job_id)[0]["version"]
    body: dict[str, Any] = {"type": "dispatch", "job_id": job_id, "task_id": 1,
                            "task_version": version, "granted": granted}
    if pe is not None:
        body["pe"] = pe
    return qm.call("orders", {"orders": [body]})


def refusal(reply: dict[str, Any]) -> str:
    assert reply["accepted"] == 0
    return str(reply["refused"][0]["reason"])


def set_pe(qm: Harness, name: str, **changes: str) -> None:
    pairs = [[k, changes.get(k, v)] for k, v in pe_defaults(name)]
    qm.call("conf_put", {"user": ROOT.to_dict(), "kind": "pe", "name": name, "data": pairs,
                         "mode": "modify"})


def test_the_granted_pe_is_recorded_and_sent_to_the_execd(qm: Harness) -> None:
    job = qm.submit(pe=("sm*", 2, 2))
    assert order(qm, job, [["all.q", "h1", 2]], "smp")["accepted"] == 1
    assert qm.tasks(job)[0]["granted_pe"] == "smp"
    starts = [wire.decode(f[1])[2] for f in qm.router.sent if f[0] == b"execd:h1"]
    assert [s["spec"]["pe"] for s in starts if s.get("job_id") == job] == ["smp"]
    qm.call("job_started", {"host": "h1", "job_id": job, "task_id": 1, "start_time": 1.0},
            identity=b"execd:h1")
    result = {"exit_status": 0, "signal": 0, "failed": 0, "start_time": 1.0, "end_time": 2.0}
    qm.call("job_finished", {"host": "h1", "job_id": job, "task_id": 1, "result": result},
            identity=b"execd:h1")
    assert [r.granted_pe for r in read_records(qm.cell.accounting_path)] == ["smp"]


@pytest.mark.parametrize("pe, granted, reason", [
    (None, [["all.q", "h1", 2]], "order names no configured parallel environment"),
    ("nosuch", [["all.q", "h1", 2]], "order names no configured parallel environment"),
    ("mpi", [["all.q", "h1", 2]], 'parallel environment "mpi" is not the requested "sm*"'),
    ("smp", [["all.q", "h1", 1], ["all.q", "h2", 1]],
     'the grant does not follow allocation rule "$pe_slots"'),
    ("smp", [["all.q", "h1", 3]], "3 slots are outside the requested range 2-2"),
])
def test_orders_breaking_the_pe_are_refused(qm: Harness, pe: str | None,
                                            granted: list[list[Any]], reason: str) -> None:
    job = qm.submit(pe=("sm*", 2, 2))
    assert refusal(order(qm, job, granted, pe)) == reason
    assert qm.tasks(job)[0]["state"] == "pending"


def test_slot_counts_between_ranges_are_refused(qm: Harness) -> None:
    job = qm.submit(pe=("smp", 2, 4), pe_ranges=[(2, 2), (4, 4)])
    assert refusal(order(qm, job, [["all.q", "h1", 3]], "smp")) == \
        "3 slots are outside the requested range 2-2,4-4"
    assert order(qm, job, [["all.q", "h1", 4]], "smp")["accepted"] == 1


def test_a_pe_for_a_serial_job_is_refused(qm: Harness) -> None:
    job = qm.submit()
    assert refusal(order(qm, job, [["all.q", "h1", 1]], "smp")) == \
        "order grants a parallel environment not requested"


def test_a_queue_must_offer_the_pe(qm: Harness) -> None:
    qm.call("conf_put", {"user": ROOT.to_dict(), "kind": "queue", "name": "all.q",
                         "data": queue_defaults("all.q", hostlist="@allhosts",
                                                pe_list="make smp", slots="4"),
                         "mode": "modify"})
    job = qm.submit(pe=("mpi", 2, 2))
    assert refusal(order(qm, job, [["all.q", "h1", 2]], "mpi")) == \
        'a granted queue does not offer parallel environment "mpi"'


def batch(qm: Harness, *orders: tuple[int, str, int]) -> dict[str, Any]:
    """One orders request: (job, host, slots) each, in the PE mpi."""
    return qm.call("orders", {"orders": [
        {"type": "dispatch", "job_id": j, "task_id": 1,
         "task_version": qm.tasks(j)[0]["version"], "granted": [["all.q", host, n]],
         "pe": "mpi"} for j, host, n in orders]})


def test_the_pe_total_counts_running_jobs_and_earlier_orders_of_the_batch(qm: Harness
                                                                         ) -> None:
    set_pe(qm, "mpi", slots="5")
    first, second, third = (qm.submit(pe=("mpi", 1, 4)) for _ in range(3))
    assert order(qm, first, [["all.q", "h1", 2]], "mpi")["accepted"] == 1
    reply = batch(qm, (second, "h2", 2), (third, "h2", 2))
    assert reply["accepted"] == 1  # 2 running + 2 accepted leave 1 of 5 for the third
    assert [r["reason"] for r in reply["refused"]] == [
        'parallel environment "mpi" has not enough free slots']


def test_an_order_refused_later_keeps_no_pe_slots(qm: Harness) -> None:
    """The PE check passes, the consumable check refuses: the next order of the batch
    must still find the PE's slots free."""
    qm.call("conf_put", {"user": ROOT.to_dict(), "kind": "complex", "name": "lic",
                         "data": [["lic", "lic", "INT", "<=", "YES", "JOB", "0", "0"]],
                         "mode": "add"})
    qm.call("conf_put", {"user": ROOT.to_dict(), "kind": "exechost", "name": "global",
                         "data": [["hostname", "global"], ["complex_values", "lic=1"]],
                         "mode": "modify"})
    set_pe(qm, "mpi", slots="4")
    greedy = qm.submit(pe=("mpi", 4, 4), hard_resources={"lic": "2"})
    modest = qm.submit(pe=("mpi", 4, 4))
    reply = batch(qm, (greedy, "h1", 4), (modest, "h2", 4))
    assert reply["accepted"] == 1
    assert [r["order"]["job_id"] for r in reply["refused"]] == [greedy]


@pytest.mark.parametrize("rule, granted, ok", [
    ("$pe_slots", [["q", "h1", 2], ["r", "h1", 2]], True),
    ("$pe_slots", [["q", "h1", 2], ["q", "h2", 2]], False),
    ("2", [["q", "h1", 2], ["q", "h2", 1], ["r", "h2", 1]], True),
    ("2", [["q", "h1", 2], ["q", "h2", 1]], False),
    ("$fill_up", [["q", "h1", 3], ["q", "h2", 1]], True),
    ("$round_robin", [["q", "h1", 1], ["q", "h2", 1], ["q", "h3", 1]], True),
])
def test_grant_follows_rule(rule: str, granted: list[list[Any]], ok: bool) -> None:
    assert grant_follows_rule(rule, granted) is ok


def test_per_host_pe_list_entries(qm: Harness) -> None:
    """queue_conf(5): pe_list NONE,[h2=mpi] offers mpi on h2 only; the PE named there
    must exist and cannot be deleted while named."""
    qm.call("conf_put", {"user": ROOT.to_dict(), "kind": "queue", "name": "all.q",
                         "data": queue_defaults("all.q", hostlist="@allhosts", slots="4",
                                                pe_list="NONE,[h2=mpi]"),
                         "mode": "modify"})
    job = qm.submit(pe=("mpi", 2, 2))
    assert refusal(order(qm, job, [["all.q", "h1", 2]], "mpi")) == \
        'a granted queue does not offer parallel environment "mpi"'
    assert order(qm, job, [["all.q", "h2", 2]], "mpi")["accepted"] == 1
    with pytest.raises(RuntimeError, match='Parallel environment "mpi" is still referenced'):
        qm.call("conf_del", {"user": ROOT.to_dict(), "kind": "pe", "name": "mpi"})
    with pytest.raises(RuntimeError, match='parallel environment "nosuch" does not exist'):
        qm.call("conf_put", {"user": ROOT.to_dict(), "kind": "queue", "name": "all.q",
                             "data": queue_defaults("all.q", hostlist="@allhosts",
                                                    pe_list="smp,[h1=nosuch]"),
                             "mode": "modify"})


def test_pass_offers_pes_per_instance() -> None:
    from common.placement.pass_conf import pe_lists, pes_at
    conf = {"queue": {"q": [["qname", "q"], ["pe_list", "smp,[h2=mpi],[@g=make]"]]},
            "hgrp": {"@g": [["group_name", "@g"], ["hostlist", "h3"]]}}
    offered = pe_lists(conf)
    assert [pes_at(offered, "q", h) for h in ("h1", "h2", "h3")] == [
        {"smp"}, {"mpi"}, {"make"}]


def test_orders_for_a_user_the_lists_refuse_are_refused(qm: Harness) -> None:
    qm.call("userset_entries", {"user": ROOT.to_dict(), "op": "add", "users": ["root"],
                                "lists": ["vip"]})
    qm.call("conf_put", {"user": ROOT.to_dict(), "kind": "queue", "name": "all.q",
                         "data": queue_defaults("all.q", hostlist="@allhosts", slots="4",
                                                user_lists="NONE,[h1=vip]"),
                         "mode": "modify"})
    set_pe(qm, "smp", xuser_lists="vip")
    job = qm.submit()
    assert refusal(order(qm, job, [["all.q", "h1", 1]], None)).endswith(
        "has no access to all.q@h1")
    assert order(qm, job, [["all.q", "h2", 1]], None)["accepted"] == 1
    mine = qm.submit(ROOT, pe=("smp", 1, 1))
    assert refusal(order(qm, mine, [["all.q", "h1", 1]], "smp")) == \
        'job owner "root" has no access to parallel environment "smp"'
