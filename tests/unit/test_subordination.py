"""Subordination (common.subordination) with queue_conf(5)'s examples a) to d), and the
suspend-threshold steps of qmaster.auto_suspend, as pure decisions."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from common.model import Task
from common.subordination import (
    HostTask, QueueWise, SlotWise, SubordinateError, host_subordination, parse_subordinates,
)
from qmaster.auto_suspend import THRESHOLD_REASON, threshold_steps


def test_both_forms_parse() -> None:
    assert parse_subordinates("NONE") is None
    assert parse_subordinates("low.q=2,other.q") == QueueWise((("low.q", 2), ("other.q", None)))
    assert parse_subordinates("slots=2(B.q:1, C.q:2:lr)") == SlotWise(
        2, (("B.q", 1, "sr"), ("C.q", 2, "lr")))
    assert parse_subordinates("slots=2(B.q)") == SlotWise(2, (("B.q", 0, "sr"),))
    with pytest.raises(SubordinateError):
        parse_subordinates("slots=2(B.q:1:xx)")


def _tasks(*specs: tuple[str, str, float]) -> list[HostTask]:
    return [HostTask(key, queue, 1, start) for key, queue, start in specs]


def test_queue_wise_suspends_the_instance_when_the_count_is_reached() -> None:
    lists = {"all.q": parse_subordinates("low.q=2"), "low.q": None}
    slots = {"all.q": 4, "low.q": 2}
    assert not host_subordination(lists, slots, {"all.q": 1, "low.q": 2}, []).suspended_queues
    assert host_subordination(lists, slots, {"all.q": 2, "low.q": 2},
                              []).suspended_queues == {"low.q"}
    # no number: when every slot of the superordinated instance is in use
    lists = {"all.q": parse_subordinates("low.q"), "low.q": None}
    assert not host_subordination(lists, slots, {"all.q": 3}, []).suspended_queues
    assert host_subordination(lists, slots, {"all.q": 4}, []).suspended_queues == {"low.q"}
    # a queue with no instance on the host is nothing to suspend
    assert not host_subordination({"all.q": parse_subordinates("gone.q=1")}, slots,
                                  {"all.q": 4}, []).suspended_queues


def test_example_a_the_shortest_running_task_of_b_is_suspended() -> None:
    lists = {"A.q": parse_subordinates("slots=2(B.q)"), "B.q": None}
    tasks = _tasks(("b1", "B.q", 10.0), ("b2", "B.q", 20.0))
    assert not host_subordination(lists, {}, {}, tasks).suspended_tasks
    tasks += _tasks(("a1", "A.q", 30.0))
    assert host_subordination(lists, {}, {}, tasks).suspended_tasks == {"b2"}
    lists["A.q"] = parse_subordinates("slots=2(B.q:0:lr)")  # longest running instead
    assert host_subordination(lists, {}, {}, tasks).suspended_tasks == {"b1"}


def test_example_b_the_higher_sequence_number_goes_first() -> None:
    lists = {"A.q": parse_subordinates("slots=2(B.q:1, C.q:2)"), "B.q": None, "C.q": None}
    tasks = _tasks(("a1", "A.q", 1.0), ("c1", "C.q", 2.0), ("b1", "B.q", 3.0))
    assert host_subordination(lists, {}, {}, tasks).suspended_tasks == {"c1"}


def test_example_c_each_level_keeps_its_threshold() -> None:
    lists = {"A.q": parse_subordinates("slots=2(B.q)"),
             "B.q": parse_subordinates("slots=2(C.q)"), "C.q": None}
    # B.q's subtree: 1 in B, 2 in C -> over B's 2: one C task goes
    tasks = _tasks(("b1", "B.q", 1.0), ("c1", "C.q", 2.0), ("c2", "C.q", 3.0))
    assert host_subordination(lists, {}, {}, tasks).suspended_tasks == {"c2"}
    # a task in A.q: the whole tree (A, B and the running C) is over A's 2
    tasks += _tasks(("a1", "A.q", 4.0))
    assert host_subordination(lists, {}, {}, tasks).suspended_tasks == {"c1", "c2"}


def test_example_d_any_tree_counts_whole_subtrees() -> None:
    lists = {"A.q": parse_subordinates("slots=3(B.q, C.q)"),
             "B.q": parse_subordinates("slots=1(D.q)"),
             "C.q": parse_subordinates("slots=2(E.q:1, F.q:2)"),
             "F.q": parse_subordinates("slots=1(G.q)"),
             "D.q": None, "E.q": None, "G.q": None}
    tasks = _tasks(("d1", "D.q", 1.0), ("b1", "B.q", 2.0),          # B's subtree: 2 > 1
                   ("g1", "G.q", 3.0), ("f1", "F.q", 4.0),          # F's subtree: 2 > 1
                   ("e1", "E.q", 5.0))
    wanted = host_subordination(lists, {}, {}, tasks).suspended_tasks
    # B.q keeps one of its subtree (D.q's task goes), F.q likewise (G.q's goes);
    # C.q's subtree then holds e1 and f1 (2, not over 2); A.q's whole tree: b1, e1, f1
    assert wanted == {"d1", "g1"}
    tasks += _tasks(("a1", "A.q", 6.0))  # now 4 running in A's tree > 3
    wanted = host_subordination(lists, {}, {}, tasks).suspended_tasks
    assert {"d1", "g1"} < wanted and len(wanted) == 3


def test_a_suspended_task_stays_the_one_suspended() -> None:
    """Decisions are made afresh; a task suspended already is taken first, so a newer
    task in the subordinated queue does not swap places with it."""
    lists = {"A.q": parse_subordinates("slots=2(B.q)"), "B.q": None}
    tasks = [HostTask("b1", "B.q", 1, 10.0), HostTask("b2", "B.q", 1, 20.0, slot_suspended=True),
             HostTask("a1", "A.q", 1, 30.0)]
    assert host_subordination(lists, {}, {}, tasks).suspended_tasks == {"b2"}
    # the A.q task ends: nothing is over the threshold, b2 runs again
    assert not host_subordination(lists, {}, {}, tasks[:2]).suspended_tasks


@given(st.lists(st.tuples(st.sampled_from(["A.q", "B.q", "C.q"]),
                          st.floats(min_value=0, max_value=1e6, allow_nan=False)),
                max_size=12), st.integers(min_value=0, max_value=6))
def test_slot_wise_never_leaves_more_running_than_the_threshold(
        specs: list[tuple[str, float]], threshold: int) -> None:
    lists = {"A.q": SlotWise(threshold, (("B.q", 1, "sr"), ("C.q", 2, "lr"))),
             "B.q": None, "C.q": None}
    tasks = [HostTask(f"t{i}", q, 1, start) for i, (q, start) in enumerate(specs)]
    wanted = host_subordination(lists, {}, {}, tasks).suspended_tasks
    running = [t for t in tasks if t.key not in wanted]
    below = [t for t in running if t.queue != "A.q"]
    # over the threshold only while nothing below A.q is left to suspend
    assert len(running) <= threshold or not below
    assert all(t.queue != "A.q" for t in tasks if t.key in wanted)


def _task(n: int, start: float, reasons: list[str] | None = None) -> Task:
    state = "suspended" if reasons else "running"
    return Task(job_id=n, task_id=1, state=state, start_time=start,
                suspend_reasons=reasons or [], queue="all.q", host="vm")


def test_suspend_thresholds_step_nsuspend_newest_first_and_resume_in_reverse() -> None:
    """8.1.9: jobs 221, 222, 223 started in that order; 223 is suspended first, then
    222, then 221 (nsuspend 1 per suspend_interval); resumed 221, 222, 223."""
    tasks = [_task(221, 1.0), _task(222, 2.0), _task(223, 3.0)]
    steps = threshold_steps(True, tasks, None, 100.0, 1, 10.0)
    assert [t.job_id for t in steps.suspend] == [223]
    assert not threshold_steps(True, tasks, 100.0, 105.0, 1, 10.0).suspend  # too soon
    assert [t.job_id for t in threshold_steps(True, tasks, 100.0, 110.0, 2, 10.0).suspend] \
        == [223, 222]
    held = [_task(221, 1.0, [THRESHOLD_REASON]), _task(222, 2.0, [THRESHOLD_REASON]),
            _task(223, 3.0, [THRESHOLD_REASON])]
    assert not threshold_steps(True, held, 0.0, 200.0, 1, 10.0).suspend
    assert [t.job_id for t in threshold_steps(False, held, 150.0, 200.0, 1, 10.0).resume] \
        == [221]
    assert [t.job_id for t in threshold_steps(False, held, None, 200.0, 2, 10.0).resume] \
        == [221, 222]
