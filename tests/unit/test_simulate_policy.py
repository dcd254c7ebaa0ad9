"""The scheduling policy's behaviour, shown on ``pyge simulate`` (issue 27, item 7): the
real dispatch pass, the real policy core (common.policy.priority) and usage booked by
common.policy.usage, on a virtual clock. Tickets alone decide (``weight_urgency 0``:
with 8.1.9's default weights the waiting time competes with them)."""
from __future__ import annotations

from dataclasses import replace

import pytest

from clients.simulate import config as cfg
from clients.simulate.engine import SimResult, simulate
from clients.simulate.metrics import report, slot_seconds_between
from clients.simulate.workload import SimJob, Workload
from common.policy.model import USER_NODE, Entity, ShareNode

HOUR = 3600.0
DAY = 24 * HOUR


def tree(alice: int, bob: int) -> list[ShareNode]:
    return [ShareNode(0, "Root", USER_NODE, 1, (1, 2)),
            ShareNode(1, "alice", USER_NODE, alice), ShareNode(2, "bob", USER_NODE, bob)]


def stream(owner: str, first: float, last: float, per_round: int, run: float,
           ids: int) -> list[SimJob]:
    """``per_round`` jobs of ``run`` seconds (a minute or so more or less, so that they
    end one by one) submitted every ``run`` seconds: enough to keep the cell full."""
    jobs, t = [], first
    while t < last:
        for _ in range(per_round):
            ids += 1
            jobs.append(SimJob(ids, t, run + 60 * (ids % 5), owner=owner))
        t += run
    return jobs


def share_tree_cell(slots: int, alice: int, bob: int, **sched: str) -> cfg.SimConfig:
    config = cfg.new_cell(1, slots).with_sched(
        {"weight_tickets_share": "10000", "weight_urgency": "0", **sched})
    return cfg.with_tree(config, tree(alice, bob))


def shares(result: SimResult, start: float, end: float) -> dict[str, float]:
    used = slot_seconds_between(result, start, end)
    total = sum(used.values())
    return {user: value / total for user, value in used.items()}


def submitted(*streams: list[SimJob]) -> Workload:
    """The streams' jobs numbered in the order they are submitted."""
    jobs = sorted((j for s in streams for j in s), key=lambda j: (j.submit, j.job_id))
    return Workload(tuple(replace(j, job_id=n) for n, j in enumerate(jobs, 1)))


def test_share_tree_80_20_over_a_week() -> None:
    # both users submit a full cell's worth of 4-hour jobs every 4 hours for a week
    workload = submitted(stream("alice", 0, 7 * DAY, 4, 4 * HOUR, 0),
                         stream("bob", 0, 7 * DAY, 4, 4 * HOUR, 100_000))
    config = share_tree_cell(4, 80, 20)
    figures = report(simulate(workload, config), config)
    delivered = {u.name: u.delivered for u in figures.users}
    assert delivered["alice"] == pytest.approx(0.80, abs=0.05)
    assert delivered["bob"] == pytest.approx(0.20, abs=0.05)
    assert {u.name: u.target for u in figures.users} == pytest.approx(
        {"alice": 0.8, "bob": 0.2})
    assert figures.utilisation > 0.97
    # the same workload first come, first served: half each
    fcfs = report(simulate(workload, config, None), config)
    assert {u.name: u.delivered for u in fcfs.users} == pytest.approx(
        {"alice": 0.5, "bob": 0.5}, abs=0.02)


def test_an_idle_user_is_compensated_as_far_as_compensation_factor_allows() -> None:
    # alice keeps 8 slots busy from the start; bob (share 20) arrives after a day
    workload = submitted(stream("alice", 0, 36 * HOUR, 8, HOUR, 0),
                         stream("bob", DAY, 36 * HOUR, 8, HOUR, 100_000))
    # (the first hour after bob arrives only alice's running jobs end: left out)
    window = (DAY + HOUR, 36 * HOUR)
    generous = shares(simulate(workload, share_tree_cell(8, 80, 20,
                                                         compensation_factor="5")), *window)
    strict = shares(simulate(workload, share_tree_cell(8, 80, 20,
                                                       compensation_factor="1")), *window)
    # bob's usage is far below his share of alice's: he gets more than his 20 %
    assert generous["bob"] > 0.33
    # compensation_factor 1 holds his short term target nearer to his 20 %
    assert strict["bob"] < generous["bob"] - 0.05
    assert strict["bob"] > 0.2


def started_together(result: SimResult) -> list[list[str | None]]:
    """The projects of the jobs each pass started, pass by pass."""
    by_time: dict[float, list[str | None]] = {}
    for run in sorted(result.runs.values(), key=lambda r: r.job.job_id):
        by_time.setdefault(run.start, []).append(run.job.project)  # type: ignore[arg-type]
    return [sorted(by_time[t], key=str) for t in sorted(by_time)]


def test_functional_shares_interleave_two_projects() -> None:
    # one user, ten jobs in project a then ten in b, four slots: each pass starts two
    # of each (the functional policy divides a project's tickets among its jobs)
    jobs = tuple(SimJob(n, 0, 100, owner="u", project="a" if n <= 10 else "b")
                 for n in range(1, 21))
    config = cfg.new_cell(1, 4).with_sched({"weight_tickets_functional": "10000",
                                            "weight_urgency": "0"})
    config = cfg.with_entities(config, projects={"a": Entity(fshare=50),
                                                 "b": Entity(fshare=50)})
    assert started_together(simulate(Workload(jobs), config))[:4] == [["a", "a", "b", "b"]] * 4
    # first come, first served: a's ten, then b's
    assert started_together(simulate(Workload(jobs), config, None))[:2] == [["a"] * 4] * 2
    # 3 to 1 shares: three of a's for one of b's
    skewed = cfg.with_entities(config, projects={"a": Entity(fshare=75)})
    assert started_together(simulate(Workload(jobs), skewed))[0] == ["a", "a", "a", "b"]


def test_an_override_ticket_moves_one_job_to_the_front() -> None:
    jobs = tuple(SimJob(n, 0, 100, owner="u", override_tickets=100 if n == 7 else 0)
                 for n in range(1, 11))
    runs = simulate(Workload(jobs), cfg.new_cell(1, 1)).runs
    assert runs[7].start == 0
    assert [runs[n].start for n in (1, 2, 6, 8)] == [100, 200, 600, 700]


def running_at(result: SimResult, owner: str) -> list[int]:
    """How many of ``owner``'s jobs run right after each start."""
    runs = [r for r in result.runs.values() if r.job.owner == owner]
    return [sum(1 for r in runs if r.start <= t < r.end) for t in {r.start for r in runs}]


def test_maxujobs_holds_a_user_at_two_running_jobs() -> None:
    jobs = tuple(SimJob(n, 0, 100 + n, owner="alice") for n in range(1, 7)) + \
        (SimJob(7, 50, 100, owner="bob"),)
    capped = simulate(Workload(jobs), cfg.new_cell(1, 8).with_sched({"maxujobs": "2"}))
    assert max(running_at(capped, "alice")) == 2
    assert capped.runs[7].start == 50  # bob is not held by alice's cap
    assert sorted(r.start for r in capped.runs.values() if r.job.owner == "alice")[2] == 101
    free = simulate(Workload(jobs), cfg.new_cell(1, 8))
    assert max(running_at(free, "alice")) == 6
