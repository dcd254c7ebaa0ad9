"""The pure dispatch pass: placement, ordering, hard and soft -q, -pe filters, category
cache."""
from __future__ import annotations
from common.placement.inputs import placement_jobs
from common.placement.job import PlacementJob, placement_job

from typing import Any

from hypothesis import given, settings, strategies as st

from common.cluster import QueueInstance, queue_instances
from qmaster.defaults import queue_defaults
from common.placement.dispatch import PassInput, PassStats, dispatch_pass
from common.placement.resources import build_view


def qi(queue: str = "all.q", host: str = "h1", slots: int = 4, seq: int = 0,
       alive: bool = True) -> QueueInstance:
    return QueueInstance(queue, host, slots, seq, "BATCH INTERACTIVE", alive)


def job(job_id: int, **opts: Any) -> PlacementJob:
    return placement_job({"job_id": job_id, "owner": "u", "opts": opts})


def task(job_id: int, task_id: int = 1, version: int = 1) -> dict[str, Any]:
    return {"job_id": job_id, "task_id": task_id, "version": version, "state": "pending"}


def run(jobs: list[dict[str, Any]], tasks: list[dict[str, Any]], instances: list[QueueInstance],
        used: dict[tuple[str, str], int] | None = None, **kw: Any) -> list[dict[str, Any]]:
    return dispatch_pass(PassInput({j.job_id: j for j in jobs}, tasks, instances,
                                   used or {}, **kw))


def test_fills_free_slots_in_job_order() -> None:
    jobs = [job(i) for i in range(1, 7)]
    orders = run(jobs, [task(i) for i in (6, 2, 1, 5, 3, 4)], [qi(slots=4)])
    assert [o["job_id"] for o in orders] == [1, 2, 3, 4]
    assert all(o["granted"] == [["all.q", "h1", 1]] for o in orders)
    assert orders[0]["task_version"] == 1


def test_priority_first() -> None:
    orders = run([job(1), job(2, priority=10)], [task(1), task(2)], [qi(slots=1)])
    assert [o["job_id"] for o in orders] == [2]


def test_used_slots_and_dead_hosts_count() -> None:
    orders = run([job(1), job(2)], [task(1), task(2)],
                 [qi(host="h1", slots=2), qi(host="h2", slots=4, alive=False)],
                 used={("all.q", "h1"): 1})
    assert [o["granted"][0][1] for o in orders] == ["h1"]


def test_hard_queue_request() -> None:
    instances = [qi("a.q", "h1"), qi("b.q", "h2")]
    orders = run([job(1, hard_queues=["b.q"]), job(2, hard_queues=["*@h1"])],
                 [task(1), task(2)], instances)
    assert {o["job_id"]: o["granted"][0][0] for o in orders} == {1: "b.q", 2: "a.q"}


def test_queue_domain_names_a_host_group() -> None:
    instances = [qi("a.q", "h1"), qi("a.q", "h2"), qi("b.q", "h3")]
    groups = {"@gpu": frozenset({"h2"}), "@cpu": frozenset({"h1", "h3"})}
    orders = run([job(1, hard_queues=["a.q@@gpu"]), job(2, hard_queues=["*@@c*"])],
                 [task(1), task(2)], instances, host_groups=groups)
    assert {o["job_id"]: o["granted"][0][:2] for o in orders} == {
        1: ["a.q", "h2"], 2: ["a.q", "h1"]}
    assert run([job(1, hard_queues=["a.q@@nosuch"])], [task(1)], instances,
               host_groups=groups) == []


def test_soft_queue_request_ranks_without_excluding() -> None:
    instances = [qi("a.q", "h1", slots=1), qi("b.q", "h2", slots=1)]
    orders = run([job(1, soft_queues=["b.q"]), job(2, soft_queues=["b.q"])],
                 [task(1), task(2)], instances)
    # the first goes where the soft list points; the second still runs elsewhere
    assert [o["granted"][0][0] for o in orders] == ["b.q", "a.q"]


def test_soft_queues_and_soft_resources_add_up_as_violations() -> None:
    conf: dict[str, Any] = {
        "queue": {"a.q": queue_defaults("a.q", hostlist="h1 h2", seq_no="0"),
                  "b.q": queue_defaults("b.q", hostlist="h1 h2", seq_no="1")},
        "hgrp": {}, "exechost": {}, "complex": {}}
    hosts = {h: {"name": h, "alive": True, "load": {"arch": arch}}
             for h, arch in (("h1", "lx-amd64"), ("h2", "lx-arm64"))}
    instances = queue_instances(conf, hosts)
    view = build_view(conf, hosts, instances, [])
    # a.q@h1 misses both soft requests, b.q@h1 and a.q@h2 one each and b.q@h2 none:
    # it wins although a.q comes first by seq_no
    orders = run([job(1, soft_queues=["b.q"], soft_resources={"arch": "lx-arm64"})],
                 [task(1)], instances, resources=view)
    assert orders[0]["granted"][0][:2] == ["b.q", "h2"]
    orders = run([job(1, soft_queues=["b.q"], soft_resources={"arch": "lx-amd64"})],
                 [task(1)], instances, resources=view)
    assert orders[0]["granted"][0][:2] == ["b.q", "h1"]


def test_pe_needs_queue_pe_list_and_room() -> None:
    instances = [qi("a.q", "h1", slots=4), qi("b.q", "h2", slots=8)]
    orders = run([job(1, pe=["smp", 6, 6])], [task(1)], instances,
                 pe_of_queue={"a.q": {"smp"}, "b.q": {"smp"}})
    assert orders[0]["granted"] == [["b.q", "h2", 6]]
    assert orders[0]["pe"] == "smp"  # the PE chosen goes with the order
    assert run([job(1, pe=["smp", 2, 2])], [task(1)], instances, pe_of_queue={}) == []
    assert "pe" not in run([job(1)], [task(1)], instances)[0]


def test_pe_slot_ranges_with_gaps_grant_only_counts_inside_a_range() -> None:
    pe = {"pe": ["smp", 2, 4], "pe_ranges": [[2, 2], [4, 4]]}
    for free, granted in ((3, 2), (5, 4), (1, None)):
        orders = run([job(1, **pe)], [task(1)], [qi(slots=free)],
                     pe_of_queue={"all.q": {"smp"}})
        assert [o["granted"][0][2] for o in orders] == ([granted] if granted else [])


def test_seq_no_orders_queues() -> None:
    orders = run([job(1)], [task(1)], [qi("a.q", "h1", seq=5), qi("b.q", "h1", seq=1)])
    assert orders[0]["granted"][0][0] == "b.q"


def test_category_cache_skips_hopeless_tasks() -> None:
    jobs = [job(1, hard_queues=["none.q"])] + [job(i) for i in range(2, 4)]
    tasks = [task(1, t) for t in range(1, 1001)] + [task(2), task(3)]
    stats = PassStats()
    orders = dispatch_pass(PassInput({j.job_id: j for j in jobs}, tasks, [qi(slots=2)], {}),
                           stats)
    assert [o["job_id"] for o in orders] == [2, 3]
    assert stats.skipped_by_category == 999


@settings(max_examples=60)
@given(slots=st.lists(st.integers(0, 5), min_size=1, max_size=4),
       used=st.lists(st.integers(0, 5), min_size=4, max_size=4),
       njobs=st.integers(0, 20))
def test_never_overbooks(slots: list[int], used: list[int], njobs: int) -> None:
    instances = [qi(host=f"h{i}", slots=s) for i, s in enumerate(slots)]
    busy = {("all.q", f"h{i}"): min(u, s) for i, (s, u) in enumerate(zip(slots, used))}
    orders = run([job(i) for i in range(1, njobs + 1)], [task(i) for i in range(1, njobs + 1)],
                 instances, used=busy)
    granted: dict[tuple[str, str], int] = {}
    for order in orders:
        for queue, host, n in order["granted"]:
            granted[(queue, host)] = granted.get((queue, host), 0) + n
    for inst in instances:
        key = (inst.queue, inst.host)
        assert busy.get(key, 0) + granted.get(key, 0) <= inst.slots
    free = sum(inst.slots - busy.get((inst.queue, inst.host), 0) for inst in instances)
    assert len(orders) == min(njobs, free)


def test_a_job_the_pass_cannot_evaluate_is_skipped_and_reported() -> None:
    """Issue 7: a job of an unexpected shape (hard_queues an integer) used to make every
    pass raise, so that no job of any user was dispatched again. Such a record is now
    left out when the input is built, and a job whose evaluation fails is skipped."""
    jobs, unreadable = placement_jobs([
        {"job_id": 1, "owner": "u", "opts": {"hard_queues": 5}},
        {"job_id": 2, "owner": "u", "opts": {"priority": "high"}},
        {"job_id": 3, "owner": "u", "opts": {}}, {"job_id": 4, "owner": "u", "opts": {}}])
    assert sorted(unreadable) == [1, 2] and "not a list" in unreadable[1]

    def matcher(job: PlacementJob, qi: QueueInstance) -> bool:
        if job.job_id == 3:
            raise ZeroDivisionError("a bug for this job only")
        return True
    stats = PassStats()
    tasks = [task(i) for i in (1, 2, 3, 4)]
    orders = dispatch_pass(PassInput(jobs, tasks, [qi(slots=4)], {}, matcher=matcher), stats)
    assert [o["job_id"] for o in orders] == [4]
    assert list(stats.unevaluable) == [3] and "ZeroDivisionError" in stats.unevaluable[3]


SESSION = {"kind": "qrsh", "host": "h", "port": 1, "token": b"t" * 32}


def test_interactive_jobs_only_to_interactive_queues_batch_jobs_only_to_batch() -> None:
    """queue_conf(5) qtype: a qrsh/qlogin job (one with a session) needs INTERACTIVE,
    any other job BATCH; an instance of both types shares its slots between them."""
    instances = [QueueInstance("batch.q", "h1", 4, 0, "BATCH", True),
                 QueueInstance("inter.q", "h2", 4, 0, "INTERACTIVE", True),
                 QueueInstance("none.q", "h3", 4, 0, "NONE", True)]
    jobs = [job(1), job(2, session=SESSION), job(3, interactive=True)]
    orders = run(jobs, [task(1), task(2), task(3)], instances)
    assert {o["job_id"]: o["granted"][0][0] for o in orders} == \
        {1: "batch.q", 2: "inter.q", 3: "inter.q"}
    # no queue of its kind: it waits, whatever is free elsewhere
    assert run([job(1, session=SESSION)], [task(1)], instances[:1]) == []
    assert run([job(1)], [task(1)], instances[1:]) == []
    both = [QueueInstance("all.q", "h1", 1, 0, "BATCH INTERACTIVE", True)]
    assert len(run([job(1), job(2, session=SESSION)], [task(1), task(2)], both)) == 1


def test_the_placement_record_says_interactive_but_never_carries_the_token() -> None:
    from common.placement.job import placement_record
    record = placement_record(7, "u", "g", {"session": SESSION, "priority": 1})
    assert record["opts"] == {"priority": 1, "interactive": True}
    assert placement_job(record).interactive
    assert not placement_job(placement_record(8, "u", "g", {})).interactive


def test_immediate_jobs_the_pass_cannot_start_are_refused_by_it() -> None:
    """qsub/qrsh -now y: 8.1.9's scheduler refuses an immediate job in the run that could
    not start it; a job that is no immediate one waits; an array job with ids left over
    after the pass is refused (its started tasks keep running: the qmaster deletes only
    what is pending)."""
    from common.placement.dispatch import not_scheduled
    jobs = {j.job_id: j for j in (job(1, now=True), job(2, now=True), job(3),
                                  job(4, now=True, array=(1, 3, 1)))}
    inp = PassInput(jobs, [task(1), task(2), task(3)], [qi(slots=1)], {},
                    pending_ranges={4: ([[1, 3, 1]], 1)})
    orders = dispatch_pass(inp)
    assert [o["job_id"] for o in orders] == [1]
    assert not_scheduled(inp, orders) == [2, 4]
    # room for all: nothing refused, array ids included
    inp = PassInput(jobs, [task(1), task(2), task(3)], [qi(slots=8)], {},
                    pending_ranges={4: ([[1, 3, 1]], 1)})
    orders = dispatch_pass(inp)
    assert len(orders) == 6 and not_scheduled(inp, orders) == []
    # the placement record carries -now (the scheduler learns it from the events)
    from common.placement.job import placement_record
    assert placement_job(placement_record(5, "u", "g", {"now": True})).immediate


def test_a_job_is_not_placed_before_its_start_time_and_the_timer_wakes_at_it() -> None:
    """qsub -a: 8.1.9's scheduler leaves a job before its execution time (qstat -j:
    "execution time not reached"); the scheduler's timer wakes at that time instead of
    polling (scheduler.service.next_instant)."""
    from datetime import datetime

    from common.jobspec import date_time_to_epoch
    from common.placement.dispatch import waiting_for_time
    from common.placement.job import placement_record
    from scheduler.service import next_instant
    submitted = datetime(2026, 6, 1, 12, 0).astimezone()
    later = placement_job({**placement_record(2, "u", "g", {"start_time": "06011300"}),
                           "submit_time": submitted.timestamp()})
    at = date_time_to_epoch("202606011300", submitted)
    assert later.not_before == at
    jobs = {1: job(1), 2: later}
    inp = PassInput(jobs, [task(1), task(2)], [qi(slots=4)], {}, now=at - 60)
    assert [o["job_id"] for o in dispatch_pass(inp)] == [1]
    assert waiting_for_time(inp) == [at]
    assert next_instant(inp, PassStats(), at - 60) == at
    inp = PassInput(jobs, [task(1), task(2)], [qi(slots=4)], {}, now=at)
    assert [o["job_id"] for o in dispatch_pass(inp)] == [1, 2]
    assert next_instant(inp, PassStats(), at) is None
    # without a clock (the qmaster's qsub -w v checks) the time is not looked at
    inp = PassInput(jobs, [task(1), task(2)], [qi(slots=4)], {})
    assert [o["job_id"] for o in dispatch_pass(inp)] == [1, 2]


def test_masterq_puts_the_master_task_there() -> None:
    """qsub -masterq: the master task of a PE job (its first grant) goes to a queue of
    the list; the other slots go where the PE's rule puts them."""
    from common.placement.pass_conf import PEConf
    instances = [qi("a.q", "h1", slots=2), qi("b.q", "h2", slots=2)]
    pes = {"mpi": PEConf("mpi", 8, "$fill_up")}
    pe_of = {"a.q": {"mpi"}, "b.q": {"mpi"}}
    plain = run([job(1, pe=["mpi", 3, 3])], [task(1)], instances, pes=pes, pe_of_queue=pe_of)
    assert plain[0]["granted"][0][:2] == ["a.q", "h1"]
    placed = run([job(1, pe=["mpi", 3, 3], master_queues=["b.q"])], [task(1)], instances,
                 pes=pes, pe_of_queue=pe_of)
    assert placed[0]["granted"] == [["b.q", "h2", 2], ["a.q", "h1", 1]]
    by_host = run([job(1, pe=["mpi", 1, 1], master_queues=["*@h2"])], [task(1)], instances,
                  pes=pes, pe_of_queue=pe_of)
    assert by_host[0]["granted"] == [["b.q", "h2", 1]]
    nowhere = run([job(1, pe=["mpi", 2, 2], master_queues=["c.q"])], [task(1)], instances,
                  pes=pes, pe_of_queue=pe_of)
    assert nowhere == []
