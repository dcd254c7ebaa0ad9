"""The per-user and per-job caps of the pure dispatch pass (common.placement.caps):
sched_conf(5) maxujobs, sge_conf(5) max_aj_instances, qsub -tc, as 8.1.9 counts them."""
from __future__ import annotations

from typing import Any

from hypothesis import given, settings, strategies as st

from common.cluster import QueueInstance
from common.placement.caps import (
    INSTANCES_REASON, USER_LIMIT_REASON, Caps, instance_limit,
)
from common.placement.dispatch import PassInput, PassStats, dispatch_pass
from common.placement.inputs import pass_input
from common.placement.job import PlacementJob, placement_job


def qi(host: str = "h1", slots: int = 8) -> QueueInstance:
    return QueueInstance("all.q", host, slots, 0, "BATCH INTERACTIVE", True)


def job(job_id: int, owner: str = "u", **opts: Any) -> PlacementJob:
    return placement_job({"job_id": job_id, "owner": owner, "opts": opts})


def running(job_id: int, task_id: int = 1) -> dict[str, Any]:
    return {"job_id": job_id, "task_id": task_id, "version": 1, "state": "running",
            "granted": [["all.q", "h1", 1]]}


def run(jobs: list[PlacementJob], *, ranges: dict[int, list[list[int]]] | None = None,
        active: list[dict[str, Any]] = (), pending: list[dict[str, Any]] = (),
        maxujobs: int = 0, max_aj: int = 2000, slots: int = 8,
        stats: PassStats | None = None) -> list[dict[str, Any]]:
    """One pass; every job without ``ranges`` has one pending id (task 1)."""
    by_id = {j.job_id: j for j in jobs}
    wanted = {j.job_id: [[1, 1, 1]] for j in jobs}
    wanted.update(ranges or {})
    caps = Caps.count(maxujobs, max_aj, by_id, active, [*active, *pending])
    used = {("all.q", "h1"): len(active)}
    inp = PassInput(by_id, list(pending), [qi(slots=slots)], used,
                    pending_ranges={j: (r, 1) for j, r in wanted.items()}, caps=caps,
                    pe_of_queue={"all.q": {"smp"}})
    return dispatch_pass(inp, stats)


def started(orders: list[dict[str, Any]]) -> list[tuple[int, int]]:
    return [(o["job_id"], o["task_id"]) for o in orders]


def test_a_user_at_maxujobs_gets_nothing_more_while_others_do() -> None:
    jobs = [job(1, "alice"), job(2, "alice"), job(3, "alice"), job(4, "bob")]
    assert started(run(jobs, maxujobs=2)) == [(1, 1), (2, 1), (4, 1)]
    # a running job counts: one more for alice, bob's not held back
    orders = run([job(9, "alice"), *jobs[1:]], maxujobs=2, active=[running(9)],
                 ranges={9: []})
    assert started(orders) == [(2, 1), (4, 1)]


def test_maxujobs_counts_array_tasks_one_by_one_and_a_parallel_job_once() -> None:
    array = job(1, "alice")
    assert started(run([array], ranges={1: [[1, 10, 1]]}, maxujobs=3)) == \
        [(1, 1), (1, 2), (1, 3)]
    pe_job = job(2, "alice", pe=["smp", 4, 4])
    serial = job(3, "alice")
    # the 4-slot job is one job: a second one still fits under maxujobs 2
    orders = run([pe_job, serial], maxujobs=2)
    assert started(orders) == [(2, 1), (3, 1)]
    assert sum(g[2] for g in orders[0]["granted"]) == 4


def test_maxujobs_zero_is_no_limit() -> None:
    jobs = [job(i, "alice") for i in range(1, 6)]
    assert len(run(jobs, maxujobs=0)) == 5


def test_suspended_and_transferring_tasks_count_for_maxujobs() -> None:
    suspended = {**running(9), "state": "suspended"}
    assert run([job(9, "alice"), job(1, "alice")], maxujobs=1, active=[suspended],
               ranges={9: []}) == []


def test_task_concurrency_runs_one_task_at_a_time() -> None:
    tc = job(1, task_concurrency=1)
    assert started(run([tc], ranges={1: [[1, 4, 1]]})) == [(1, 1)]
    # task 1 runs: nothing more of the job, whatever room there is
    assert run([tc], ranges={1: [[2, 4, 1]]}, active=[running(1, 1)]) == []
    two = job(2, task_concurrency=2)
    assert started(run([two], ranges={2: [[2, 4, 1]]}, active=[running(2, 1)])) == [(2, 2)]


def test_a_capped_job_leaves_room_to_the_others_of_its_category() -> None:
    """-tc is the job's: the next job with the same requests (and owner) still starts."""
    stats = PassStats()
    orders = run([job(1, task_concurrency=1), job(2)], ranges={1: [[1, 4, 1]],
                                                               2: [[1, 3, 1]]}, stats=stats)
    assert started(orders) == [(1, 1), (2, 1), (2, 2), (2, 3)]
    assert stats.capped == 1 and stats.skipped_by_category == 0


def test_max_aj_instances_caps_every_array_job() -> None:
    assert started(run([job(1)], ranges={1: [[1, 10, 1]]}, max_aj=3)) == \
        [(1, 1), (1, 2), (1, 3)]
    # -tc below max_aj_instances wins; above it, max_aj_instances does
    assert len(run([job(1, task_concurrency=2)], ranges={1: [[1, 10, 1]]}, max_aj=3)) == 2
    assert len(run([job(1, task_concurrency=5)], ranges={1: [[1, 10, 1]]}, max_aj=3)) == 3
    # 0: no limit, but -tc still holds (8.1.9 does not ignore -tc then)
    assert len(run([job(1)], ranges={1: [[1, 10, 1]]}, max_aj=0, slots=20)) == 10
    assert len(run([job(1, task_concurrency=4)], ranges={1: [[1, 10, 1]]}, max_aj=0)) == 4


def test_an_enrolled_pending_task_counts_and_is_not_held_back() -> None:
    """A rescheduled task is an instance already: it may start again, and the job's
    other pending ids wait behind it (8.1.9's split_jobs counts enrolled tasks)."""
    again = {"job_id": 1, "task_id": 1, "version": 4, "state": "pending"}
    orders = run([job(1, task_concurrency=1)], ranges={1: [[2, 4, 1]]}, pending=[again])
    assert started(orders) == [(1, 1)]


def test_instance_limit() -> None:
    assert instance_limit(0, 2000) == 2000
    assert instance_limit(5, 2000) == 5
    assert instance_limit(3000, 2000) == 2000
    assert instance_limit(5, 0) == 5
    assert instance_limit(0, 0) is None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(1, 5),
                          st.integers(0, 3)), min_size=1, max_size=8),
       st.integers(0, 4), st.integers(0, 6), st.integers(1, 30))
def test_no_pass_breaks_a_cap(spec: list[tuple[str, int, int]], maxujobs: int,
                              max_aj: int, slots: int) -> None:
    jobs = [job(i, owner, task_concurrency=tc) for i, (owner, _, tc) in enumerate(spec, 1)]
    ranges = {i: [[1, n, 1]] for i, (_, n, _) in enumerate(spec, 1)}
    orders = run(jobs, ranges=ranges, maxujobs=maxujobs, max_aj=max_aj, slots=slots)
    per_user: dict[str, int] = {}
    per_job: dict[int, int] = {}
    for o in orders:
        owner = spec[o["job_id"] - 1][0]
        per_user[owner] = per_user.get(owner, 0) + 1
        per_job[o["job_id"]] = per_job.get(o["job_id"], 0) + 1
    assert not maxujobs or all(n <= maxujobs for n in per_user.values())
    for job_id, n in per_job.items():
        limit = instance_limit(spec[job_id - 1][2], max_aj)
        assert limit is None or n <= limit
    # and the caps hold nothing back that they need not: with no caps every slot fills
    if not maxujobs and not max_aj and not any(tc for _, _, tc in spec):
        assert len(orders) == min(slots, sum(n for _, n, _ in spec))


def test_reasons_in_8_1_9_words() -> None:
    caps = Caps(maxujobs=1, max_aj_instances=2000, running={"alice": 1},
                instances={2: 1})
    assert caps.reasons(job(1, "alice"), 1) == [USER_LIMIT_REASON]
    assert USER_LIMIT_REASON == "job dropped because of user limitations"
    assert caps.reasons(job(2, "bob", task_concurrency=1), 3) == [INSTANCES_REASON]
    assert INSTANCES_REASON == "not all array task may be started due to 'max_aj_instances'"
    assert caps.reasons(job(2, "bob", task_concurrency=4), 3) == []
    assert caps.reasons(job(3, "bob"), 1) == []


def test_pass_input_reads_maxujobs_and_max_aj_instances_from_the_configuration() -> None:
    conf: dict[str, Any] = {
        "sconf": {"global": [["maxujobs", "1"]]},
        "conf": {"global": [["max_aj_instances", "7"]]},
        "queue": {}, "hgrp": {}, "pe": {}, "complex": {}, "userset": {}, "exechost": {},
        "rqs": {}, "project": {}, "calendar": {}, "ckpt": {}}
    jobs = {1: job(1, "alice"), 2: job(2, "alice")}
    inp = pass_input(conf, {}, jobs, [running(1)],
                     pending=[{"job_id": 2, "task_id": 3, "state": "pending"}])
    assert inp.caps is not None
    assert (inp.caps.maxujobs, inp.caps.max_aj_instances) == (1, 7)
    assert inp.caps.running == {"alice": 1} and inp.caps.instances == {1: 1, 2: 1}
    assert inp.caps.user_full("alice") and not inp.caps.user_full("bob")
