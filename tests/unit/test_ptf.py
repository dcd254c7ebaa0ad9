"""Tests of the priority translation function (common/policy/ptf.py), the qmaster's ticket
lists (qmaster/reprioritize.py) and the ``job_tickets`` message's validation.

The expected nice values are worked out by hand from 8.1.9's ptf.c (see the module's
docstring), the figures written out in each test.
"""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from common import wire
from common.model import Task
from common.policy import ptf
from common.policy.model import JobPriority, PolicyResult, Tickets, Urgency
from qmaster import reprioritize


def test_more_tickets_for_the_same_cpu_give_the_better_nice_value() -> None:
    # the ticket list sets usage to max(1, 0·0.1) = 1; then each used 2 s: usage 3.
    # tickets 900/100 -> share 901 and 101, 1 process each; proportions 901²/3 and
    # 101²/3: neither is over 2x its target (0.988 < 1.8, 0.012 < 0.2). curr_pri:
    # 3/901² = 3.6955e-6 and 3/101² = 2.94089e-4; nice: 0 + int(20·0) = 0 and
    # int(20·(2.94089e-4 - 3.6955e-6)/2.94089e-4) = int(19.749) = 19
    jobs = {"a": ptf.with_tickets(ptf.PtfJob(), 900), "b": ptf.with_tickets(ptf.PtfJob(), 100)}
    _, nice = ptf.step(jobs, {"a": 2.0, "b": 2.0}, {"a": 1, "b": 1}, 0, 20)
    assert nice == {"a": 0, "b": 19}


def test_a_job_far_over_its_target_has_its_usage_scaled_up() -> None:
    # tickets 100/900 -> share 101 and 901; CPU 1 s and 100 s: usage 2 and 101.
    # Proportions 101²/2 = 5100.5 and 901²/101 = 8037.64, sum 13138.14: a's current
    # 0.38822 > 2·0.1, so its usage becomes 2·0.38822/0.2 = 3.8822. curr_pri:
    # a 3.8822/10201 = 3.80571e-4, b 101/811801 = 1.24415e-4 (the lowest): b 0,
    # a int(20·(3.80571 - 1.24415)/3.80571) = int(13.46) = 13
    jobs = {"a": ptf.with_tickets(ptf.PtfJob(), 100), "b": ptf.with_tickets(ptf.PtfJob(), 900)}
    state, nice = ptf.step(jobs, {"a": 1.0, "b": 100.0}, {"a": 1, "b": 1}, 0, 20)
    assert nice == {"a": 13, "b": 0}
    assert state["b"].usage == 101.0 and state["a"].cpu_seen == 1.0


def test_processes_count_and_priorities_accumulate_until_new_tickets() -> None:
    # equal tickets (share 501 each), equal CPU 4 s (usage 5); a has 3 processes:
    # curr_pri a 5·3/501², b 5/501² -> b 0, a int(20·(15-5)/15) = 13
    jobs = {"a": ptf.with_tickets(ptf.PtfJob(), 5), "b": ptf.with_tickets(ptf.PtfJob(), 5)}
    state, nice = ptf.step(jobs, {"a": 4.0, "b": 4.0}, {"a": 3, "b": 1}, 0, 20)
    assert nice == {"a": 13, "b": 0}
    # a second step with no new CPU: usage stays 5, curr_pri doubles for both: same
    state, nice = ptf.step(state, {"a": 4.0, "b": 4.0}, {"a": 3, "b": 1}, 0, 20)
    assert nice == {"a": 13, "b": 0}
    assert state["a"].curr_pri == pytest.approx(2 * 15 / 501 ** 2)
    # a new ticket list: usage a tenth (0.5, at least 1), curr_pri 0
    fresh = ptf.with_tickets(state["a"], 7.9)
    assert (fresh.tickets, fresh.usage, fresh.curr_pri) == (7, 1.0, 0.0)


def test_tickets_count_at_least_one_and_one_job_gets_the_best_value() -> None:
    assert ptf.with_tickets(ptf.PtfJob(), 0.0).tickets == 1
    _, nice = ptf.step({"a": ptf.PtfJob()}, {"a": 0.0}, {"a": 1}, 0, 20)
    assert nice == {"a": 0}
    assert ptf.step({}, {}, {}, 0, 20) == ({}, {})


@pytest.mark.parametrize("min_p,max_p,expected", [
    (None, None, (0, 20)),      # Linux's defaults
    (19, 5, (5, 19)),
    (30, -30, (-20, 20)),       # kept within the OS's range
    (3, 10, (3, 3)),            # max never above min
])
def test_priority_range(min_p: int | None, max_p: int | None,
                        expected: tuple[int, int]) -> None:
    assert ptf.priority_range(min_p, max_p) == expected


def test_execd_params_give_the_range() -> None:
    from execd.reprioritize import ptf_bounds
    assert ptf_bounds("none") == (0, 20)
    assert ptf_bounds("PTF_MIN_PRIORITY=15,PTF_MAX_PRIORITY=-999") == (0, 15)
    assert ptf_bounds("ptf_max_priority=2 PTF_MIN_PRIORITY=x") == (2, 20)


@given(st.dictionaries(st.sampled_from("abcdef"),
                       st.tuples(st.floats(0, 1e6), st.floats(0, 1e5), st.integers(1, 50)),
                       min_size=1),
       st.integers(-20, 20), st.integers(-20, 20))
def test_nice_values_stay_in_the_range(jobs: dict[str, tuple[float, float, int]],
                                       low: int, high: int) -> None:
    pri_max, pri_min = ptf.priority_range(high, low)
    state = {k: ptf.with_tickets(ptf.PtfJob(), t) for k, (t, _, _) in jobs.items()}
    _, nice = ptf.step(state, {k: c for k, (_, c, _) in jobs.items()},
                       {k: p for k, (_, _, p) in jobs.items()}, pri_max, pri_min)
    assert set(nice) == set(jobs)
    assert all(pri_max <= v <= pri_min for v in nice.values())
    assert pri_max in nice.values()  # the job that used least for its tickets


# ---- the qmaster's lists ------------------------------------------------------------

def _conf(interval: str, reprioritize: str | None = "0") -> dict:
    conf: dict = {"sconf": {"global": [["reprioritize_interval", interval]]}}
    if reprioritize is not None:
        conf["conf"] = {"global": [["execd_params", "none"], ["reprioritize", reprioritize]]}
    return conf


def _task(job_id: int, task_id: int, host: str | None) -> Task:
    return Task(job_id=job_id, task_id=task_id, state="r", host=host)


RESULT = PolicyResult(jobs={
    1: JobPriority(job_id=1, prio=0.5, npprior=0.5, nurg=0.0, ntckts=0.0, urgency=Urgency(),
                   tickets=Tickets(), task_tickets={1: Tickets(tckts=900.0),
                                                      2: Tickets(tckts=10.0)})},
    order=(1,))


def test_tickets_go_to_each_host_once_per_interval_and_stop_once() -> None:
    sender = reprioritize.TicketSender()
    tasks = [_task(1, 1, "h1"), _task(1, 2, "h2"), _task(2, 1, "h1")]
    asked = []

    def result() -> PolicyResult:
        asked.append(1)
        return RESULT

    due = sender.messages(_conf("0:0:5"), 100.0, tasks, result)
    assert due == {"h1": {"reprioritize": True, "tickets": [
                       {"job_id": 1, "task_id": 1, "tickets": 900.0},
                       {"job_id": 2, "task_id": 1, "tickets": 0.0}]},
                   "h2": {"reprioritize": True, "tickets": [
                       {"job_id": 1, "task_id": 2, "tickets": 10.0}]}}
    for body in due.values():  # what the execd accepts
        assert wire.decode(wire.encode("job_tickets", body))[2] == body
    assert sender.messages(_conf("0:0:5"), 104.0, tasks, result) == {}
    assert len(asked) == 1  # the policy is evaluated only when tickets are due
    assert set(sender.messages(_conf("0:0:5"), 105.0, tasks, result)) == {"h1", "h2"}
    assert sender.messages(_conf("0:0:0"), 106.0, tasks, result) == {
        "h1": {"reprioritize": False, "tickets": []},
        "h2": {"reprioritize": False, "tickets": []}}
    assert sender.messages(_conf("0:0:0"), 107.0, tasks, result) == {}
    assert len(asked) == 2


def test_the_global_reprioritize_follows_the_interval() -> None:
    assert reprioritize.global_reprioritize(_conf("0:0:1", "0")) == [
        ["execd_params", "none"], ["reprioritize", "1"]]
    assert reprioritize.global_reprioritize(_conf("0:0:1", "true")) is None
    assert reprioritize.global_reprioritize(_conf("0:0:0", "1")) == [
        ["execd_params", "none"], ["reprioritize", "0"]]
    assert reprioritize.global_reprioritize(_conf("0:0:0", "false")) is None
    assert reprioritize.global_reprioritize(_conf("0:0:0", None)) is None


@pytest.mark.parametrize("body", [
    {"tickets": [{"job_id": 1, "task_id": 1, "tickets": -1.0}]},
    {"tickets": [{"job_id": 0, "task_id": 1, "tickets": 1.0}]},
    {"tickets": [{"job_id": 1, "task_id": 1}]},
    {"tickets": [{"job_id": 1, "task_id": 1, "tickets": 1.0, "extra": 1}]},
    {"reprioritize": "yes", "tickets": []},
    {"tickets": [{"job_id": 1, "task_id": 1, "tickets": 1.0}] * (wire.MAX_TICKET_ITEMS + 1)},
])
def test_job_tickets_messages_are_validated(body: dict) -> None:
    with pytest.raises(wire.WireError):
        wire.decode(_frame(body))


def _frame(body: dict) -> bytes:
    """A frame as encode() makes it, but with any body (encode does not check bodies)."""
    return wire.encode("job_tickets", body)


def test_job_tickets_is_not_a_request_to_the_qmaster() -> None:
    assert "job_tickets" not in wire.REQUEST_TYPES
    body = {"tickets": [{"job_id": 3, "task_id": 2, "tickets": 1.5}]}
    assert wire.decode(wire.encode("job_tickets", body))[2] == {"reprioritize": True, **body}
