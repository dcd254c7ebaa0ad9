"""The scheduler's mirror: snapshot, events, slot bookkeeping, cached queue instances."""
from __future__ import annotations

from typing import Any

from scheduler.mirror import Mirror


def snapshot() -> dict[str, Any]:
    return {"epoch": "e", "seq": 5, "jobs": [{"job_id": 1, "owner": "u", "opts": {}}],
            "tasks": [{"job_id": 1, "task_id": 1, "state": "pending", "version": 1,
                       "granted": []}],
            "hosts": [{"name": "h1", "alive": True, "load": {}}],
            "conf": {"queue": {"all.q": [["qname", "all.q"], ["hostlist", "@allhosts"],
                                         ["slots", "2"], ["pe_list", "smp"]]},
                     "hgrp": {"@allhosts": [["group_name", "@allhosts"], ["hostlist", "h1"]]}}}


def task_event(seq: int, state: str, version: int, granted: list[Any]) -> dict[str, Any]:
    return {"seq": seq, "kind": "task", "op": "put", "key": "1.1",
            "obj": {"job_id": 1, "task_id": 1, "state": state, "version": version,
                    "granted": granted}}


def test_snapshot_then_events_keep_pending_and_used_in_step() -> None:
    m = Mirror.from_snapshot(snapshot())
    assert m.pending == {"1.1"} and m.free_slots({}) == 2
    assert m.apply(task_event(6, "transferring", 2, [["all.q", "h1", 1]]))
    assert m.pending == set() and m.used == {("all.q", "h1"): 1} and m.free_slots({}) == 1
    m.apply(task_event(7, "running", 3, [["all.q", "h1", 1]]))
    assert m.used == {("all.q", "h1"): 1}
    m.apply(task_event(8, "finished", 4, [["all.q", "h1", 1]]))
    assert m.used == {("all.q", "h1"): 0} and "1.1" not in m.tasks and m.seq == 8


def test_dead_host_and_conf_change_rebuild_instances() -> None:
    m = Mirror.from_snapshot(snapshot())
    assert m.free_slots({("all.q", "h1"): 1}) == 1
    m.apply({"seq": 6, "kind": "host", "op": "put", "key": "h1",
             "obj": {"name": "h1", "alive": False, "load": {}}})
    assert m.free_slots({}) == 0
    m.apply({"seq": 7, "kind": "host", "op": "put", "key": "h1",
             "obj": {"name": "h1", "alive": True, "load": {}}})
    queue = snapshot()["conf"]["queue"]["all.q"]
    queue[2] = ["slots", "5"]
    m.apply({"seq": 8, "kind": "queue", "op": "put", "key": "all.q", "obj": queue})
    assert m.free_slots({}) == 5
    assert m.pass_input().pe_of_queue == {"all.q": {"smp"}}


def test_the_mirror_follows_every_configuration_kind_the_qmaster_stores() -> None:
    from common.model import CONF_KINDS  # the store's kinds (one definition)
    m = Mirror.from_snapshot(snapshot())
    for seq, kind in enumerate(CONF_KINDS, start=snapshot()["seq"] + 1):
        m.apply({"seq": seq, "kind": kind, "op": "put", "key": "x", "obj": [["a", "b"]]})
        assert m.conf[kind]["x"] == [["a", "b"]], kind


def test_every_kind_the_pass_reads_triggers_a_pass() -> None:
    from scheduler.mirror import TRIGGER_KINDS
    assert {"queue", "hgrp", "exechost", "pe", "complex", "userset"} <= TRIGGER_KINDS
