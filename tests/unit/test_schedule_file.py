"""The schedule file (``params MONITOR=1``, common.schedule_file): the oracle's cell
rebuilt (tests/data/reference/reservation: all.q with 4 slots on host vm, which has a
consumable ``slots=4``; a global per-slot consumable ``lic`` with default 1; the quota
set ``plan_rqs`` of kinds-rqs2.input) and its pass printed as 8.1.9 printed it."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from common.placement.dispatch import PassInput
from common.placement.inputs import pass_input
from common.placement.job import PlacementJob, placement_job
from common.placement.timeline import INFINITY, Reservation
from common.resource.complexes import default_complexes, rows_of
from common.schedule_file import SEPARATOR, U_LONG32_MAX, schedule_block

CAPTURES = Path(__file__).resolve().parents[1] / "data" / "reference" / "reservation"
Q = "all.q"
SCHED = [["max_reservation", "10"], ["default_duration", "0:10:0"], ["params", "MONITOR=1"],
         ["schedule_interval", "0:0:2"]]
RQS = [["name", "plan_rqs"], ["enabled", "TRUE"],
       ["limit", "name r1 users {*} queues all.q to slots=8,lic=20"],
       ["limit", "hosts {*} to slots=8"]]


def oracle_conf(*, sched: list[list[str]] = SCHED, rqs: bool = True,
                host_slots: bool = True) -> dict[str, Any]:
    conf: dict[str, Any] = {
        "queue": {Q: [["qname", Q], ["hostlist", "vm"], ["slots", "4"],
                      ["pe_list", "make smp mpi"], ["load_thresholds", "NONE"]]},
        "hgrp": {}, "userset": {},
        "pe": {pe: [["pe_name", pe], ["slots", "999"], ["allocation_rule", "$pe_slots"]]
               for pe in ("make", "smp", "mpi")},
        "exechost": {"global": [["hostname", "global"], ["complex_values", "lic=50"]],
                     "vm": [["hostname", "vm"],
                            ["complex_values", "slots=4" if host_slots else "NONE"]]},
        "complex": {"global": rows_of(default_complexes())
                    + [["lic", "lic", "INT", "<=", "YES", "YES", "1", "50"]]},
        "sconf": {"global": sched},
    }
    if rqs:
        conf["rqs"] = {"plan_rqs": RQS}
    return conf


def job(job_id: int, *, pe: tuple[str, int] | None = None, reserve: bool = False,
        **hard: str) -> PlacementJob:
    opts: dict[str, Any] = {"hard_resources": dict(hard), "reserve": reserve}
    if pe is not None:
        opts["pe"] = [pe[0], pe[1], pe[1]]
    return placement_job({"job_id": job_id, "owner": "sgeuser", "group": "sgeuser",
                          "opts": opts})


def task(job_id: int, start: float, state: str = "running") -> dict[str, Any]:
    return {"job_id": job_id, "task_id": 1, "state": state, "granted": [[Q, "vm", 1]],
            "granted_pe": None, "start_time": start}


def oracle_pass(conf: dict[str, Any], now: float, jobs: list[PlacementJob],
                active: list[dict[str, Any]]) -> PassInput:
    used = {(Q, "vm"): len(active)}
    return pass_input(conf, {"vm": {"alive": True, "load": {}}},
                      {j.job_id: j for j in jobs}, active, used=used, now=now)


def last_pass(name: str) -> str:
    """A capture's last pass (the lines after the last separator)."""
    return (CAPTURES / name).read_text().split(SEPARATOR + "\n")[-1]


def test_running_suspended_and_reserving_lines_as_8_1_9_printed_them() -> None:
    """schedule-kinds-suspended.txt: 133 runs, 129 is suspended (both without h_rt:
    default_duration 10 min + 60 s), 131 (-pe smp 4 -R y, h_rt 300) reserves."""
    inp = oracle_pass(oracle_conf(), 1795834700.0,
                      [job(129), job(133), job(131, pe=("smp", 4), reserve=True, h_rt="300")],
                      [task(133, 1795834432), task(129, 1795834339, "suspended")])
    wide = Reservation(131, 1, 1795835092, 1795835092 + 360, ((Q, "vm", 4),), "smp")
    text = schedule_block(inp, [wide])
    assert text == SEPARATOR + "\n" + last_pass("schedule-kinds-suspended.txt")


def test_a_single_quota_rule_and_no_host_consumable() -> None:
    """schedule-kinds.txt's first quota set (one limit: one L line a task) with the host
    consumable; without it there is no H line."""
    rqs = [["name", "plan_rqs"], ["enabled", "TRUE"], ["limit", "users {*} to slots=8"]]
    conf = oracle_conf()
    conf["rqs"] = {"plan_rqs": rqs}
    inp = oracle_pass(conf, 1795834620.0, [job(125, h_rt="300"), job(129), job(133)],
                      [task(125, 1795834325), task(129, 1795834339), task(133, 1795834432)])
    body = schedule_block(inp).split("\n", 1)[1]
    assert body == "".join(line + "\n" for line in last_pass("schedule-kinds.txt").splitlines()
                           if ":RESERVING:" not in line)
    bare = oracle_pass(oracle_conf(rqs=False, host_slots=False), 1795834620.0, [job(125, h_rt="300")],
                       [task(125, 1795834325)])
    assert schedule_block(bare) == (SEPARATOR + "\n"
                                    "125:1:RUNNING:1795834325:360:G:global:lic:1.000000\n"
                                    "125:1:RUNNING:1795834325:360:Q:all.q@vm:slots:1.000000\n")


def test_an_end_that_never_comes_is_8_1_9s_largest_time() -> None:
    """schedule-dd-infinity.txt: default_duration INFINITY."""
    sched = [["max_reservation", "10"], ["default_duration", "INFINITY"]]
    inp = oracle_pass(oracle_conf(sched=sched, rqs=False, host_slots=False), 1795834664.0,
                      [job(133)], [task(133, 1795834432)])
    line = schedule_block(inp).splitlines()[1]
    assert line == "133:1:RUNNING:1795834432:2499132863:G:global:lic:1.000000"
    assert 1795834432 + 2499132863 == U_LONG32_MAX
    assert INFINITY > U_LONG32_MAX


def test_a_task_past_its_planned_end_ends_one_interval_from_the_pass() -> None:
    """schedule-past-planned-end.txt: default_duration 90 s; 129 started at 1795834339,
    planned to 1795834489; at the pass of 1795834494 it is printed to end at 1795834496."""
    sched = [["max_reservation", "10"], ["default_duration", "90"],
             ["schedule_interval", "0:0:2"]]
    inp = oracle_pass(oracle_conf(sched=sched, rqs=False, host_slots=False), 1795834494.0,
                      [job(129)], [task(129, 1795834339)])
    assert "129:1:RUNNING:1795834339:157:Q:all.q@vm:slots:1.000000" in schedule_block(inp)


def test_dispatches_of_the_pass_are_starting_from_its_time() -> None:
    inp = oracle_pass(oracle_conf(rqs=False, host_slots=False), 1795834325.0,
                      [job(125, h_rt="300")], [])
    text = schedule_block(inp, orders=[{"job_id": 125, "task_id": 1, "granted": [[Q, "vm", 1]]}])
    assert text.splitlines()[1:] == ["125:1:STARTING:1795834325:360:G:global:lic:1.000000",
                                     "125:1:STARTING:1795834325:360:Q:all.q@vm:slots:1.000000"]


def test_only_the_separator_without_planning() -> None:
    """max_reservation 0 (and no advance reservation): 8.1.9 writes separators only."""
    sched = [["max_reservation", "0"], ["params", "MONITOR=1"]]
    inp = oracle_pass(oracle_conf(sched=sched), 1795834700.0, [job(133)],
                      [task(133, 1795834432)])
    assert inp.reserve is None
    assert schedule_block(inp) == SEPARATOR + "\n"


def test_a_job_kept_back_by_a_reservation_is_told_why_as_8_1_9_tells_it() -> None:
    """bf-qstat-j-*-free.out: one slot free on all.q@vm until 131's reservation; a job
    that would run into it is told so, a job that ends before it and the reserving job
    itself are not."""
    from common.placement.reserved import reservation_reasons
    conf = oracle_conf(rqs=False, host_slots=False)
    running = [job(125, h_rt="300"), job(126, s_rt="240"), job(129)]
    wide = job(131, pe=("smp", 4), reserve=True, h_rt="300")
    long, nolimit, short = job(132, h_rt="1800"), job(133), job(134, h_rt="60")
    inp = oracle_pass(conf, 1795834420.0, [*running, wide, long, nolimit, short],
                      [task(125, 1795834325), task(126, 1795834325), task(129, 1795834339)])
    found = [Reservation(131, 1, 1795834999, 1795834999 + 360, ((Q, "vm", 4),), "smp")]
    assert reservation_reasons(long, inp, found) == [
        '(-l h_rt=1800) cannot run in queue "all.q@vm" because it offers only '
        'qc:slots=0.000000 due to a reservation']
    assert reservation_reasons(nolimit, inp, found) == [
        '(-l NONE) cannot run in queue "all.q@vm" because it offers only '
        'qc:slots=0.000000 due to a reservation']
    assert reservation_reasons(short, inp, found) == []
    assert reservation_reasons(wide, inp, found) == []
    assert reservation_reasons(long, inp, []) == []
