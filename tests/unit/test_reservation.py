"""Resource reservation, backfilling and advance reservations in the pure dispatch pass
(common.placement.plan), on a virtual clock: the running tasks' planned ends, ``-R y``
jobs' earliest starts, what may and may not backfill, reservations across hosts by the
PE allocation rules, quotas and consumables over time, and ``ar_admission``."""
from __future__ import annotations

from typing import Any

from hypothesis import given, settings, strategies as st

from common.placement.dispatch import PassStats, ar_admission, dispatch_pass
from common.placement.inputs import pass_input
from common.placement.job import PlacementJob, placement_job
from common.placement.timeline import (
    INFINITY, AdvanceReservation, ReserveConf, holds_of, job_duration, planned_end,
)
from common.resource.complexes import default_complexes, rows_of

NOW = 1_000_000.0
Q = "all.q"


def conf(hosts: dict[str, int], *, complexes: tuple[str, ...] = (),
         global_values: str = "NONE", rqs: list[list[str]] | None = None,
         pes: dict[str, str] | None = None) -> dict[str, Any]:
    """One queue ``all.q`` on ``hosts`` {name: slots} offering the PEs ``pes``
    {name: allocation_rule} (default: smp $pe_slots, fill $fill_up, rr $round_robin)."""
    pes = pes or {"smp": "$pe_slots", "fill": "$fill_up", "rr": "$round_robin"}
    slots = ",".join(f"[{h}={n}]" for h, n in hosts.items())
    out: dict[str, Any] = {
        "queue": {Q: [["qname", Q], ["hostlist", " ".join(hosts)], ["slots", f"0,{slots}"],
                      ["pe_list", " ".join(pes)], ["load_thresholds", "NONE"]]},
        "hgrp": {}, "pe": {}, "userset": {},
        "exechost": {"global": [["hostname", "global"], ["complex_values", global_values]]},
        "complex": {"global": rows_of(default_complexes()) +
                    [line.split() for line in complexes]},
    }
    for name, rule in pes.items():
        out["pe"][name] = [["pe_name", name], ["slots", "999"], ["allocation_rule", rule]]
    if rqs is not None:
        out["rqs"] = {"q": rqs}
    return out


def job(job_id: int, *, h_rt: int | None = None, pe: tuple[str, int] | None = None,
        reserve: bool = False, owner: str = "u", ar: int | None = None,
        **hard: str) -> PlacementJob:
    resources = dict(hard)
    if h_rt is not None:
        resources["h_rt"] = str(h_rt)
    opts: dict[str, Any] = {"hard_resources": resources, "reserve": reserve,
                            "priority": -job_id}  # (lower ids first, as the policy would)
    if pe is not None:
        opts["pe"] = [pe[0], pe[1], pe[1]]
    if ar is not None:
        opts["ar_id"] = ar
    return placement_job({"job_id": job_id, "owner": owner, "opts": opts})


def running(job_id: int, granted: list[list[Any]], started: float = NOW, pe: str | None = None
            ) -> dict[str, Any]:
    return {"job_id": job_id, "task_id": 1, "state": "running", "granted": granted,
            "granted_pe": pe, "start_time": started}


def plan_pass(cfg: dict[str, Any], jobs: list[PlacementJob], active: list[dict[str, Any]],
              pending: list[int], *, max_reservation: int = 10,
              default_duration: float = INFINITY, ars: tuple[AdvanceReservation, ...] = (),
              now: float = NOW, reserve: bool = True) -> tuple[list[dict[str, Any]], PassStats]:
    by_id = {j.job_id: j for j in jobs}
    hosts = {h: {"alive": True, "load": {}} for h in _hosts(cfg)}
    used: dict[tuple[str, str], int] = {}
    for t in active:
        for q, h, n in t["granted"]:
            used[(q, h)] = used.get((q, h), 0) + n
    inp = pass_input(cfg, hosts, by_id, active, used=used,
                     pending=[{"job_id": j, "task_id": 1, "version": 1, "state": "pending"}
                              for j in pending])
    if reserve:
        inp.reserve = ReserveConf(now, max_reservation, default_duration)
        inp.holds = holds_of(active, by_id, inp.reserve)
        inp.ars = ars
    stats = PassStats()
    return dispatch_pass(inp, stats), stats


def _hosts(cfg: dict[str, Any]) -> list[str]:
    return dict(map(tuple, cfg["queue"][Q]))["hostlist"].split()


def started(orders: list[dict[str, Any]]) -> list[int]:
    return [o["job_id"] for o in orders]


# --------------------------------------------------------------------------- durations

def test_duration_is_h_rt_else_s_rt_the_smaller_of_both_else_the_default() -> None:
    assert job_duration(job(1, h_rt=100), INFINITY) == 100
    assert job_duration(job(1, s_rt="0:1:0"), INFINITY) == 60
    assert job_duration(job(1, h_rt=100, s_rt="50"), INFINITY) == 50
    assert job_duration(job(1), 3600) == 3600
    assert job_duration(job(1), INFINITY) == INFINITY
    conf_ = ReserveConf(NOW, 1)
    assert planned_end(job(1, h_rt=100), NOW, conf_) == NOW + 160  # DURATION_OFFSET 60
    assert planned_end(job(1), NOW, conf_) == INFINITY


def test_a_running_task_past_its_planned_end_ends_a_schedule_interval_from_now() -> None:
    # 8.1.9's schedule file: such a job's duration grows to the next pass each pass
    holds = holds_of([running(1, [[Q, "h1", 1]], started=NOW - 1000)],
                     {1: job(1, h_rt=100)}, ReserveConf(NOW, 1, schedule_interval=5))
    assert holds[0].end == NOW + 5


# --------------------------------------------------------------------------- reservation

def busy_host() -> tuple[dict[str, Any], list[PlacementJob], list[dict[str, Any]]]:
    """h1 with 4 slots: three one-slot jobs run until NOW+160 (h_rt 100 + 60)."""
    cfg = conf({"h1": 4})
    jobs = [job(i, h_rt=100) for i in (1, 2, 3)]
    return cfg, jobs, [running(i, [[Q, "h1", 1]]) for i in (1, 2, 3)]


def test_without_reservation_a_wide_job_is_overtaken() -> None:
    cfg, jobs, active = busy_host()
    jobs += [job(10, pe=("smp", 4), reserve=True), job(11)]
    orders, stats = plan_pass(cfg, jobs, active, [10, 11], max_reservation=0)
    assert started(orders) == [11] and stats.reservations == []


def test_a_reservation_keeps_the_slots_it_will_need_from_jobs_without_an_end() -> None:
    cfg, jobs, active = busy_host()
    jobs += [job(10, pe=("smp", 4), reserve=True), job(11)]
    orders, stats = plan_pass(cfg, jobs, active, [10, 11])
    assert orders == []
    [found] = stats.reservations
    assert (found.job_id, found.start, found.pe) == (10, NOW + 160, "smp")
    assert found.granted == ((Q, "h1", 4),)


def test_a_job_that_ends_before_the_reservation_starts_backfills() -> None:
    cfg, jobs, active = busy_host()
    # 40 + 60 s of offset: it ends at NOW+100, before the reservation's NOW+160
    jobs += [job(10, pe=("smp", 4), reserve=True), job(11, h_rt=40), job(12, h_rt=101)]
    orders, stats = plan_pass(cfg, jobs, active, [10, 11, 12])
    assert started(orders) == [11]
    assert [r.start for r in stats.reservations] == [NOW + 160]


def test_a_job_without_minus_R_gets_no_reservation() -> None:
    cfg, jobs, active = busy_host()
    jobs += [job(10, pe=("smp", 4)), job(11)]
    orders, stats = plan_pass(cfg, jobs, active, [10, 11])
    assert started(orders) == [11] and stats.reservations == []


def test_max_reservation_bounds_the_reservations_of_a_pass() -> None:
    cfg, jobs, active = busy_host()
    jobs += [job(i, pe=("smp", 4), reserve=True, h_rt=100) for i in (10, 11, 12)]
    _, stats = plan_pass(cfg, jobs, active, [10, 11, 12], max_reservation=2)
    assert [(r.job_id, r.start) for r in stats.reservations] == [
        (10, NOW + 160), (11, NOW + 320)]


def test_reservations_queue_up_behind_each_other_by_their_durations() -> None:
    cfg, jobs, active = busy_host()
    jobs += [job(10, pe=("smp", 4), reserve=True, h_rt=100),
             job(11, pe=("smp", 4), reserve=True, h_rt=100)]
    _, stats = plan_pass(cfg, jobs, active, [10, 11])
    assert [(r.job_id, r.start) for r in stats.reservations] == [
        (10, NOW + 160), (11, NOW + 320)]


def test_no_reservation_when_no_running_job_has_an_end() -> None:
    cfg = conf({"h1": 2})
    jobs = [job(1), job(10, pe=("smp", 2), reserve=True)]
    orders, stats = plan_pass(cfg, jobs, [running(1, [[Q, "h1", 1]])], [10])
    assert orders == [] and stats.reservations == []


def test_default_duration_gives_jobs_without_h_rt_an_end() -> None:
    cfg = conf({"h1": 2})
    jobs = [job(1), job(10, pe=("smp", 2), reserve=True)]
    _, stats = plan_pass(cfg, jobs, [running(1, [[Q, "h1", 1]])], [10],
                         default_duration=600)
    assert [r.start for r in stats.reservations] == [NOW + 660]


def test_backfill_elsewhere_is_free_when_the_reservation_does_not_need_that_host() -> None:
    cfg = conf({"h1": 2, "h2": 2})
    jobs = [job(1, h_rt=100), job(2, h_rt=500), job(3), job(10, pe=("smp", 2), reserve=True),
            job(11)]
    active = [running(1, [[Q, "h1", 1]]), running(2, [[Q, "h1", 1]]),
              running(3, [[Q, "h2", 1]])]
    orders, stats = plan_pass(cfg, jobs, active, [10, 11])
    # h2 never frees (job 3 has no end): the reservation is on h1 at NOW+560; job 11,
    # without an end, may take h2's free slot but not wait for h1's
    assert [(r.start, r.granted) for r in stats.reservations] == [
        (NOW + 560, ((Q, "h1", 2),))]
    assert [o["granted"] for o in orders] == [[[Q, "h2", 1]]]


def test_fill_up_reservation_over_several_hosts() -> None:
    cfg = conf({"h1": 2, "h2": 2, "h3": 2})
    jobs = [job(i, h_rt=100 * i) for i in (1, 2, 3, 4, 5, 6)]
    active = [running(1, [[Q, "h1", 1]]), running(2, [[Q, "h1", 1]]),
              running(3, [[Q, "h2", 1]]), running(4, [[Q, "h2", 1]]),
              running(5, [[Q, "h3", 1]]), running(6, [[Q, "h3", 1]])]
    jobs.append(job(10, pe=("fill", 3), reserve=True))
    _, stats = plan_pass(cfg, jobs, active, [10])
    [found] = stats.reservations
    assert found.start == NOW + 360  # jobs 1, 2 and 3 have ended: three slots
    assert sorted(found.granted) == [(Q, "h1", 2), (Q, "h2", 1)]


def test_round_robin_reservation_spreads_over_hosts() -> None:
    cfg = conf({"h1": 2, "h2": 2})
    jobs = [job(i, h_rt=100 * i) for i in (1, 2, 3, 4)]
    active = [running(1, [[Q, "h1", 1]]), running(2, [[Q, "h1", 1]]),
              running(3, [[Q, "h2", 1]]), running(4, [[Q, "h2", 1]])]
    jobs.append(job(10, pe=("rr", 2), reserve=True))
    _, stats = plan_pass(cfg, jobs, active, [10])
    [found] = stats.reservations
    assert found.start == NOW + 260  # two slots free (both on h1) at the second end
    assert sum(n for *_, n in found.granted) == 2


def test_pe_slots_reservation_waits_for_one_host_with_enough_slots() -> None:
    cfg = conf({"h1": 2, "h2": 2})
    jobs = [job(1, h_rt=100), job(2, h_rt=400), job(3, h_rt=200), job(4, h_rt=300)]
    active = [running(1, [[Q, "h1", 1]]), running(2, [[Q, "h1", 1]]),
              running(3, [[Q, "h2", 1]]), running(4, [[Q, "h2", 1]])]
    jobs.append(job(10, pe=("smp", 2), reserve=True))
    _, stats = plan_pass(cfg, jobs, active, [10])
    [found] = stats.reservations
    # at NOW+260 one slot on each host is free: not enough on one host; h2 is whole at +360
    assert (found.start, found.granted) == (NOW + 360, ((Q, "h2", 2),))


def test_a_reservation_blocked_by_a_quota_starts_when_the_quota_frees() -> None:
    rqs = [["name", "q"], ["enabled", "TRUE"], ["limit", "users {u} to slots=2"]]
    cfg = conf({"h1": 8}, rqs=rqs)
    jobs = [job(1, h_rt=100), job(2, h_rt=300), job(10, pe=("smp", 2), reserve=True),
            job(11), job(12, owner="other")]
    active = [running(1, [[Q, "h1", 1]]), running(2, [[Q, "h1", 1]])]
    orders, stats = plan_pass(cfg, jobs, active, [10, 11, 12])
    [found] = stats.reservations
    assert found.start == NOW + 360  # u's two slots are both free when job 2 ends
    # u's job 11 (no end) would take a quota slot the reservation needs; "other" is free
    assert started(orders) == [12]


def test_a_global_consumable_is_planned_over_time() -> None:
    cfg = conf({"h1": 4}, complexes=("lic lic INT <= YES YES 0 0",), global_values="lic=2")
    jobs = [job(1, h_rt=100, lic="2"), job(10, reserve=True, lic="1"), job(11, lic="1"),
            job(12, h_rt=10, lic="1"), job(13)]
    active = [running(1, [[Q, "h1", 1]])]
    orders, stats = plan_pass(cfg, jobs, active, [10, 11, 12, 13])
    assert [r.start for r in stats.reservations] == [NOW + 160]
    # 11 asks lic with no end: it may not take the licence job 10 will need; 12 cannot
    # have one now (both are used); 13 asks none
    assert started(orders) == [13]


def test_reservations_and_dispatches_never_overbook_any_instant() -> None:
    _never_overbooks_check(3, [(1, 2, 100), (2, 1, 300)], [(2, 50, True), (1, None, False),
                                                           (3, 100, True), (1, 20, False)])


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4),
       st.lists(st.tuples(st.integers(1, 2), st.integers(1, 3), st.integers(1, 500)),
                max_size=6),
       st.lists(st.tuples(st.integers(1, 4), st.one_of(st.none(), st.integers(1, 500)),
                          st.booleans()), min_size=1, max_size=8))
def test_never_overbooks_over_time(slots: int, runs: list[tuple[int, int, int]],
                                   pends: list[tuple[int, int | None, bool]]) -> None:
    _never_overbooks_check(slots, runs, pends)


def _never_overbooks_check(slots: int, runs: list[tuple[int, int, int]],
                           pends: list[tuple[int, int | None, bool]]) -> None:
    """Two hosts of ``slots`` slots; ``runs``: (host number, slots, h_rt) of running jobs
    (as many as fit); ``pends``: (slots, h_rt or None, -R y) of pending jobs ($fill_up
    for more than one slot, serial for one: no PE they share with a reservation).
    At every instant, the running jobs, the jobs the pass starts and its reservations
    together fit the hosts."""
    cfg = conf({"h1": slots, "h2": slots})
    jobs, active, left = [], [], {"h1": slots, "h2": slots}
    for number, (host_no, n, h_rt) in enumerate(runs, 1):
        host = f"h{host_no}"
        if n <= left[host]:
            left[host] -= n
            jobs.append(job(number, h_rt=h_rt, pe=("fill", n)))
            active.append(running(number, [[Q, host, n]], pe="fill"))
    pending = []
    for offset, (n, h_rt, reserve) in enumerate(pends, 100):
        jobs.append(job(offset, h_rt=h_rt, pe=("fill", n) if n > 1 else None,
                        reserve=reserve))
        pending.append(offset)
    by_id = {j.job_id: j for j in jobs}
    orders, stats = plan_pass(cfg, jobs, active, pending)
    conf_ = ReserveConf(NOW, 10)
    spans = [(NOW, planned_end(by_id[t["job_id"]], NOW, conf_), t["granted"]) for t in active]
    spans += [(NOW, planned_end(by_id[o["job_id"]], NOW, conf_), o["granted"]) for o in orders]
    spans += [(r.start, r.end, [list(g) for g in r.granted]) for r in stats.reservations]
    instants = {start for start, _, _ in spans}
    for instant in instants:
        for host in ("h1", "h2"):
            held = sum(n for start, end, granted in spans if start <= instant < end
                       for _, h, n in granted if h == host)
            assert held <= slots, (instant - NOW, host, spans)


# --------------------------------------------------------------------------- advance reservations

def test_ar_admission_needs_the_whole_window() -> None:
    cfg = conf({"h1": 2})
    jobs = [job(1, h_rt=100), job(2)]
    by_id = {j.job_id: j for j in jobs}
    active = [running(1, [[Q, "h1", 1]]), running(2, [[Q, "h1", 1]])]
    inp = pass_input(cfg, {"h1": {"alive": True, "load": {}}}, by_id, active,
                     used={(Q, "h1"): 2})
    inp.reserve = ReserveConf(NOW, 0)
    inp.holds = holds_of(active, by_id, inp.reserve)
    one = placement_job({"job_id": 0, "owner": "u", "opts": {}})
    two = placement_job({"job_id": 0, "owner": "u", "opts": {"pe": ["smp", 2, 2]}})
    assert ar_admission(one, NOW, NOW + 100, inp) is None       # all busy now
    assert ar_admission(one, NOW + 160, NOW + 200, inp) == ([[Q, "h1", 1]], None)
    assert ar_admission(two, NOW + 500, NOW + 600, inp) is None  # job 2 never ends
    # another AR holding the freed slot from +170 on leaves nothing from then on
    inp.ars = [AdvanceReservation(1, NOW + 170, NOW + 300, ((Q, "h1", 1),), None, "u")]
    assert ar_admission(one, NOW + 160, NOW + 200, inp) is None
    assert ar_admission(one, NOW + 160, NOW + 170, inp) == ([[Q, "h1", 1]], None)
    assert ar_admission(one, NOW + 300, NOW + 400, inp) == ([[Q, "h1", 1]], None)


def test_an_ar_keeps_its_slots_from_others_and_gives_them_to_its_jobs() -> None:
    cfg = conf({"h1": 2})
    ar = AdvanceReservation(7, NOW - 10, NOW + 1000, ((Q, "h1", 1),), None, "u")
    jobs = [job(1), job(2), job(3, ar=7), job(4, ar=7)]
    orders, _ = plan_pass(cfg, jobs, [], [1, 2, 3, 4], ars=(ar,), max_reservation=0)
    assert {o["job_id"]: o["granted"] for o in orders} == {1: [[Q, "h1", 1]],
                                                          3: [[Q, "h1", 1]]}


def test_a_future_ar_lets_only_jobs_that_end_before_it_start() -> None:
    cfg = conf({"h1": 1})
    ar = AdvanceReservation(7, NOW + 300, NOW + 1000, ((Q, "h1", 1),), None, "u")
    long_, short = [job(1), job(2, h_rt=600)], [job(3, h_rt=100)]
    orders, _ = plan_pass(cfg, long_ + short, [], [1, 2, 3], ars=(ar,), max_reservation=0)
    assert started(orders) == [3]
    # an AR job waits for its AR to start
    orders, _ = plan_pass(cfg, [job(4, ar=7)], [], [4], ars=(ar,), max_reservation=0)
    assert orders == []


def test_without_planning_the_pass_is_as_before() -> None:
    cfg, jobs, active = busy_host()
    jobs += [job(10, pe=("smp", 4), reserve=True), job(11)]
    orders, stats = plan_pass(cfg, jobs, active, [10, 11], reserve=False)
    assert started(orders) == [11] and stats.reservations == []


def test_hard_error_handling_keeps_an_ars_jobs_waiting_while_its_queue_is_disabled() -> None:
    from dataclasses import replace as copy
    cfg = conf({"h1": 2, "h2": 2})
    hard = AdvanceReservation(7, NOW - 10, NOW + 1000, ((Q, "h1", 1), (Q, "h2", 1)), None,
                              "u", hard_error=True)
    soft = copy(hard, hard_error=False)  # (the default: it goes on with what is left)
    by_id = {4: job(4, ar=7)}
    hosts = {"h1": {"alive": True, "load": {}}, "h2": {"alive": True, "load": {}}}
    for ar, started_ in ((hard, []), (soft, [[[Q, "h2", 1]]])):
        inp = pass_input(cfg, hosts, by_id, [],
                         pending=[{"job_id": 4, "task_id": 1, "version": 1}])
        inp.instances = [copy(qi, states="d") if qi.host == "h1" else qi  # qmod -d
                         for qi in inp.instances]
        inp.reserve = ReserveConf(NOW, 0)
        inp.ars = [ar]
        assert [o["granted"] for o in dispatch_pass(inp)] == started_
    assert AdvanceReservation.from_record(hard.to_record()) == hard


def test_jobs_of_an_ar_are_neither_limited_nor_counted_by_quotas() -> None:
    rqs = [["name", "q"], ["enabled", "TRUE"], ["limit", "users {u} to slots=1"]]
    cfg = conf({"h1": 4}, rqs=rqs)
    ar = AdvanceReservation(7, NOW - 10, NOW + 1000, ((Q, "h1", 2),), None, "u")
    jobs = [job(1, ar=7), job(2, ar=7), job(3), job(4)]
    # u runs one job in the AR: it counts nothing, so u may still start one outside
    orders, _ = plan_pass(cfg, jobs, [running(1, [[Q, "h1", 1]])], [2, 3, 4], ars=(ar,),
                          max_reservation=0)
    assert started(orders) == [2, 3]  # 2 in the AR past the quota; 3 is u's one slot


def test_an_ars_consumables_are_its_jobs_and_nobody_elses() -> None:
    cfg = conf({"h1": 4}, complexes=("lic lic INT <= YES YES 0 0",), global_values="lic=1")
    ar = AdvanceReservation(7, NOW - 10, NOW + 1000, ((Q, "h1", 1),), None, "u",
                            hard_resources={"lic": "1"})
    outside = plan_pass(cfg, [job(1, lic="1")], [], [1], ars=(ar,), max_reservation=0)[0]
    assert outside == []  # the AR holds the only licence
    inside = plan_pass(cfg, [job(2, ar=7, lic="1"), job(3, lic="1")], [], [2, 3], ars=(ar,),
                       max_reservation=0)[0]
    assert started(inside) == [2]  # its job gets it; the other still does not


def test_a_job_before_its_start_time_reserves_nothing() -> None:
    """qsub -a with -R y: 8.1.9's scheduler leaves a job before its execution time out of
    the run, reservations included; the next -R y job gets the reservation instead."""
    from dataclasses import replace
    cfg, jobs, active = busy_host()
    jobs.append(job(4, h_rt=100))  # the host full: the pass only reserves
    active.append(running(4, [[Q, "h1", 1]]))
    later = replace(job(10, pe=("smp", 4), reserve=True, h_rt=100), not_before=NOW + 3600)
    jobs += [later, job(11, pe=("smp", 4), reserve=True, h_rt=100)]
    _, stats = plan_pass(cfg, jobs, active, [10, 11], max_reservation=1)
    assert [r.job_id for r in stats.reservations] == [10]  # no clock in the input yet
    by_id = {j.job_id: j for j in jobs}
    hosts = {h: {"alive": True, "load": {}} for h in _hosts(cfg)}
    used: dict[tuple[str, str], int] = {}
    for t in active:
        for q, h, n in t["granted"]:
            used[(q, h)] = used.get((q, h), 0) + n
    inp = pass_input(cfg, hosts, by_id, active, used=used, now=NOW,
                     pending=[{"job_id": j, "task_id": 1, "version": 1, "state": "pending"}
                              for j in (10, 11)])
    inp.reserve = ReserveConf(NOW, 1, INFINITY)
    inp.holds = holds_of(active, by_id, inp.reserve)
    stats = PassStats()
    dispatch_pass(inp, stats)
    assert [r.job_id for r in stats.reservations] == [11]
