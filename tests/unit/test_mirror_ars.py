"""The scheduler's side of advance reservations and planning (issue 28): the mirror
keeps the qmaster's ``ars`` (snapshot key, events ``ar`` and ``ar_deleted``) and hands
them to the pass; the pass plans when the configuration says so; the service's timer
wakes at the plan's next instant (``scheduler.service.next_instant``)."""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from common.placement.dispatch import PassStats
from common.placement.timeline import AdvanceReservation, Reservation
from scheduler.mirror import TRIGGER_KINDS, Mirror
from scheduler.service import SchedulerService, next_instant

from tests.unit.test_mirror import snapshot

FAR = time.time() + 3600


def ar(ar_id: int, start: float = FAR, end: float = FAR + 600) -> AdvanceReservation:
    return AdvanceReservation(ar_id, start, end, (("all.q", "h1", 1),), owner="u")


def test_snapshot_ars_and_their_events() -> None:
    snap = snapshot()
    snap["ars"] = [ar(1).to_record()]
    m = Mirror.from_snapshot(snap)
    assert m.ars == {1: ar(1)}
    assert m.apply({"seq": 6, "kind": "ar", "op": "put", "key": "2",
                    "obj": {"ar": ar(2).to_record()}})
    assert set(m.ars) == {1, 2}
    assert m.apply({"seq": 7, "kind": "ar_deleted", "op": "del", "key": "1",
                    "obj": {"ar_id": 1}})
    assert set(m.ars) == {2}
    assert {"ar", "ar_deleted"} <= TRIGGER_KINDS


def test_an_unreadable_ar_record_is_kept_aside_not_raised() -> None:
    m = Mirror.from_snapshot(snapshot())
    m.apply({"seq": 6, "kind": "ar", "op": "put", "key": "3", "obj": {"ar": ar(3).to_record()}})
    m.apply({"seq": 7, "kind": "ar", "op": "put", "key": "3",
             "obj": {"ar": {"ar_id": 3, "start": "soon"}}})
    assert 3 not in m.ars
    assert m.unreadable_ars[3].startswith(("ValueError", "KeyError", "TypeError"))
    m.apply({"seq": 8, "kind": "ar_deleted", "op": "del", "key": "3", "obj": {"ar_id": 3}})
    assert m.unreadable_ars == {}


def test_the_pass_gets_the_ars_not_ended_and_plans_with_them() -> None:
    snap = snapshot()
    snap["ars"] = [ar(1).to_record(), ar(2, start=1.0, end=2.0).to_record()]
    m = Mirror.from_snapshot(snap)
    inp = m.pass_input()
    assert [a.ar_id for a in inp.ars] == [1]
    assert inp.reserve is not None and inp.reserve.max_reservation == 0  # ARs: planning on
    bare = Mirror.from_snapshot(snapshot()).pass_input()
    assert bare.reserve is None and bare.ars == [] and bare.holds == []


def test_max_reservation_turns_planning_on_with_the_holds_of_running_tasks() -> None:
    snap: dict[str, Any] = snapshot()
    snap["conf"]["sconf"] = {"global": [["max_reservation", "5"], ["default_duration", "100"],
                                        ["params", "DURATION_OFFSET=10"]]}
    snap["tasks"][0].update(state="running", granted=[["all.q", "h1", 1]], start_time=1000.0)
    inp = Mirror.from_snapshot(snap).pass_input()
    assert inp.reserve is not None and inp.reserve.max_reservation == 5
    [hold] = inp.holds
    assert (hold.job_id, hold.start, hold.granted) == (1, 1000.0, (("all.q", "h1", 1),))
    assert hold.end > time.time()  # past its planned end 1110: one interval from now


def test_the_timer_wakes_at_the_earliest_future_start_or_end() -> None:
    inp = Mirror.from_snapshot({**snapshot(), "ars": [ar(1, FAR, FAR + 60).to_record()]}
                               ).pass_input()
    stats = PassStats(reservations=[Reservation(9, 1, FAR - 30, FAR + 100, ())])
    assert next_instant(inp, stats, FAR - 100) == FAR - 30
    assert next_instant(inp, stats, FAR - 10) == FAR
    assert next_instant(inp, stats, FAR + 1) == FAR + 60
    assert next_instant(inp, PassStats(), FAR + 61) is None


def test_the_schedule_file_is_appended_and_a_planted_link_not_followed(tmp_path: Path) -> None:
    path = tmp_path / "schedule"
    service = SchedulerService("localhost", 0, 0, None, schedule_path=path)  # type: ignore
    service._append_schedule("::::::::\n")
    service._append_schedule("::::::::\n1:1:RUNNING:0:60:Q:all.q@h1:slots:1.000000\n")
    assert path.read_text().count("::::::::") == 2
    target = tmp_path / "elsewhere"
    target.write_text("keep\n")
    path.unlink()
    os.symlink(target, path)
    service._append_schedule("::::::::\n")  # refused (ELOOP), logged, not raised
    assert target.read_text() == "keep\n"
    path.unlink()
    os.mkfifo(path)  # would block a plain open for writing
    service._append_schedule("::::::::\n")
    path.unlink()
    os.link(target, path)  # a second name of a file elsewhere
    service._append_schedule("::::::::\n")
    assert target.read_text() == "keep\n"
