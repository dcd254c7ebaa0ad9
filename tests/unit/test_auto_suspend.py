"""The qmaster's own queue changes against a clock the test sets: calendars disable
(``D``) and suspend (``C``, jobs ``S``) queue instances at the times they name, and
``initial_state`` applies to instances that appear or whose execd comes up."""
from __future__ import annotations

from datetime import datetime
from pathlib import Path

from qmaster.auto_suspend import CALENDAR_REASON, heartbeat
from qmaster.context import Ctx
from qmaster.store import Batch
from tests.unit.test_qmaster_core import ROOT, Harness


def put(qm: Harness, kind: str, name: str, pairs: list[list[str]], mode: str) -> None:
    qm.call("conf_put", {"user": ROOT.to_dict(), "kind": kind, "name": name,
                         "data": pairs, "mode": mode})


def with_attr(qm: Harness, queue: str, name: str, value: str) -> None:
    pairs = qm.server.store.conf["queue"][queue]
    put(qm, "queue", queue, [[k, value if k == name else v] for k, v in pairs], "modify")


def tick(qm: Harness, when: datetime) -> None:
    """One heartbeat at ``when`` (the calendars' clock), committed as the server does."""
    batch = Batch()
    heartbeat(Ctx(qm.server.store, batch, qm.server.services, b"", 0, when.timestamp(), {}),
              {}, when)
    qm.server._commit_and_send(batch, [])


def states(qm: Harness, name: str = "all.q@h1") -> str:
    return str(qm.server.store.qi_states.get(name, {}).get("states", ""))


def test_a_calendar_switches_its_instances_at_the_times_it_names(tmp_path: Path) -> None:
    qm = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    qm.register("h1")
    # Tuesday 24 November 2026: off in the evening, suspended on Tuesday nights
    put(qm, "calendar", "evening", [["calendar_name", "evening"], ["year", "NONE"],
                                    ["week", "mon-fri=18-20=off tue=22-23=suspended"]], "add")
    with_attr(qm, "all.q", "load_thresholds", "NONE")
    with_attr(qm, "all.q", "calendar", "evening")
    job = qm.submit()
    qm.dispatch(job)
    tick(qm, datetime(2026, 11, 24, 12, 0))
    assert states(qm) == ""
    tick(qm, datetime(2026, 11, 24, 18, 0))
    assert states(qm) == "D"
    assert qm.tasks(job)[0]["state"] in ("transferring", "running")  # D: running ones go on
    tick(qm, datetime(2026, 11, 24, 21, 0))
    assert states(qm) == ""
    tick(qm, datetime(2026, 11, 24, 22, 30))
    assert states(qm) == "C"
    assert CALENDAR_REASON in qm.tasks(job)[0]["suspend_reasons"]
    tick(qm, datetime(2026, 11, 25, 0, 0))
    assert states(qm) == "" and not qm.tasks(job)[0]["suspend_reasons"]
    # a manual qmod -d stays through the calendar's changes
    qm.call("qmod", {"user": ROOT.to_dict(), "items": [
        {"action": "disable", "scope": "queue", "ref": "all.q"}]})
    tick(qm, datetime(2026, 11, 25, 18, 30))
    assert states(qm) == "Dd"
    tick(qm, datetime(2026, 11, 25, 21, 0))
    assert states(qm) == "d"
    with_attr(qm, "all.q", "calendar", "NONE")
    tick(qm, datetime(2026, 11, 25, 18, 30))
    assert states(qm) == "d"


def test_initial_state_applies_to_new_instances_and_to_an_execd_coming_up(
        tmp_path: Path) -> None:
    qm = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    qm.register("h1")
    pairs = [[k, "init.q" if k == "qname" else "disabled" if k == "initial_state" else v]
             for k, v in qm.server.store.conf["queue"]["all.q"]]
    put(qm, "queue", "init.q", pairs, "add")
    assert states(qm, "init.q@h1") == "d" and states(qm, "all.q@h1") == ""
    qm.call("qmod", {"user": ROOT.to_dict(), "items": [
        {"action": "enable", "scope": "queue", "ref": "init.q"}]})
    assert states(qm, "init.q@h1") == ""
    qm.register("h1")  # still up: nothing changes
    assert states(qm, "init.q@h1") == ""
    host = qm.server.store.hosts["h1"]
    host.alive = False  # its execd went away and now comes up again
    qm.register("h1")
    assert states(qm, "init.q@h1") == "d"


def run_checks(qm: Harness, steps: dict[str, float], now: float) -> None:
    """One heartbeat of the qmaster's own checks, committed as the server does."""
    batch = Batch()
    ctx = Ctx(qm.server.store, batch, qm.server.services, b"", 0, now, {})
    heartbeat(ctx, steps, datetime.fromtimestamp(now))
    qm.server._commit_and_send(batch, [])


def running_job(qm: Harness) -> int:
    job = qm.submit()
    qm.dispatch(job)
    qm.call("job_started", {"host": "h1", "job_id": job, "task_id": 1, "start_time": 1.0,
                            "dispatched": qm.server.store.tasks[f"{job}.1"].dispatch_time},
            identity=b"execd:h1")
    assert qm.tasks(job)[0]["state"] == "running"
    return job


def report_load(qm: Harness, np_load: str) -> None:
    qm.call("load_report", {"host": "h1", "load": {"num_proc": "1", "np_load_avg": np_load}},
            identity=b"execd:h1")


def threshold_cell(tmp_path: Path) -> tuple[Harness, int]:
    """Host h1 with all.q's suspend threshold np_load_avg=5, and one running job."""
    qm = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    qm.register("h1")
    with_attr(qm, "all.q", "load_thresholds", "NONE")
    with_attr(qm, "all.q", "suspend_thresholds", "np_load_avg=5")
    return qm, running_job(qm)


def test_a_threshold_suspension_ends_even_when_nothing_would_look_again(
        tmp_path: Path) -> None:
    """The reason outlives the qmaster's memory of its steps (a restart) and the
    threshold itself (set to NONE): the job is resumed, not held for good."""
    qm, job = threshold_cell(tmp_path)
    report_load(qm, "6")
    run_checks(qm, {}, 100.0)
    assert qm.tasks(job)[0]["suspend_reasons"] == ["threshold"]
    with_attr(qm, "all.q", "suspend_thresholds", "NONE")
    run_checks(qm, {}, 101.0)  # a fresh qmaster: no steps remembered
    assert qm.tasks(job)[0]["suspend_reasons"] == []


def test_reasons_of_a_gone_queue_instance_are_dropped(tmp_path: Path) -> None:
    qm, job = threshold_cell(tmp_path)
    report_load(qm, "6")
    run_checks(qm, {}, 100.0)
    assert qm.tasks(job)[0]["state"] == "suspended"
    with_attr(qm, "all.q", "hostlist", "NONE")  # the host leaves the queue, the job runs on
    run_checks(qm, {}, 101.0)
    assert qm.tasks(job)[0]["state"] == "running"


def test_an_unknown_host_stops_no_jobs(tmp_path: Path) -> None:
    qm, job = threshold_cell(tmp_path)
    report_load(qm, "1")
    qm.server.store.hosts["h1"].alive = False  # no load values: "au", but jobs stay
    qm.server.store.layout_generation += 1  # (what Store.put_host does for a change)
    run_checks(qm, {}, 100.0)
    assert qm.tasks(job)[0]["state"] == "running"
