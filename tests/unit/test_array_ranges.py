"""Arrays as task ranges in the qmaster: a task is an object only once it is dispatched or
changed on its own; per-job counters; the spool, the snapshot parts and the mirror."""
from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clients.views import qstat as views
from common import wire
from common.model import TaskRanges
from qmaster import jobs as qm_jobs
from qmaster import store as store_module
from scheduler.mirror import Mirror
from tests.unit.test_qmaster_core import ALICE, ROOT, Harness

ARRAY = [1, 75000, 1]


@pytest.fixture
def qm(tmp_path: Path) -> Harness:
    return Harness(tmp_path, auto_add_hosts=True, default_slots=2)


def ranges_of(qm: Harness, job: int) -> TaskRanges:
    return qm.server.store.ranges[job]


def order(job: int, task: int, version: int, host: str = "h1") -> dict[str, Any]:
    return {"type": "dispatch", "job_id": job, "task_id": task, "task_version": version,
            "granted": [["all.q", host, 1]]}


def finish(qm: Harness, job: int, task: int, host: str = "h1") -> None:
    qm.call("job_finished", {"host": host, "job_id": job, "task_id": task,
                             "result": {"exit_status": 0}}, identity=b"execd:" + host.encode())


def spooled(root: Path, kind: str) -> dict[str, bytes]:
    db = sqlite3.connect(root / "default" / "spool" / "qmaster" / "spool.db") \
        if (root / "default" / "spool" / "qmaster" / "spool.db").exists() else None
    if db is None:
        [path] = list(root.rglob("spool.db"))
        db = sqlite3.connect(path)
    return dict(db.execute("SELECT key, data FROM objects WHERE kind=?", (kind,)))


def qstat_rows(qm: Harness, user: Any = ALICE) -> list[dict[str, Any]]:
    reply = qm.call("job_query", {"user": user.to_dict(), "ranges": True,
                                  "include_finished": True})
    flt = views.JobFilter(states=views.parse_state_filter("pz") or frozenset(), users=["*"])
    return views.pending_rows(reply, flt) + views.zombie_rows(reply, flt)


def test_a_75000_task_array_is_one_range_until_its_tasks_are_dispatched(
        qm: Harness, tmp_path: Path) -> None:
    job = qm.submit(array=ARRAY)
    store = qm.server.store
    assert store.tasks == {} and store.enrolled[job] == {}
    assert ranges_of(qm, job).pending == [[1, 75000, 1]]
    assert store.unfinished[job] == 75000
    assert len(spooled(tmp_path, "ranges")[str(job)]) < 100  # one small record
    assert spooled(tmp_path, "task") == {}
    [row] = qstat_rows(qm)
    assert row["pending_tasks"] == "1-75000:1" and row["state"] == "qw"
    # the whole array answered one by one only where a client asks for that
    plain = qm.call("job_query", {"user": ALICE.to_dict(), "job_ids": [job]})
    assert len(plain["tasks"]) == 75000 and plain["tasks"][-1]["task_id"] == 75000


def test_orders_for_several_tasks_of_one_array_in_one_batch(qm: Harness) -> None:
    qm.register("h1")
    job = qm.submit(array=ARRAY)
    version = ranges_of(qm, job).version
    reply = qm.call("orders", {"orders": [order(job, 1, version), order(job, 2, version)]})
    assert reply["accepted"] == 2
    assert ranges_of(qm, job).pending == [[3, 75000, 1]]
    assert [t.task_id for t in qm.server.store.enrolled_tasks(job)] == [1, 2]
    assert {t.state for t in qm.server.store.enrolled_tasks(job)} == {"transferring"}
    again = qm.call("orders", {"orders": [order(job, 1, version, "h2")]})
    assert again["refused"][0]["reason"] == "task is not pending"
    [row] = qstat_rows(qm)
    assert row["pending_tasks"] == "3-75000:1"


def test_a_hold_or_an_alter_makes_orders_from_before_stale(qm: Harness) -> None:
    qm.register("h1")
    job = qm.submit(array=ARRAY)
    version = ranges_of(qm, job).version
    qm.call("hold", {"user": ALICE.to_dict(), "hold_type": "u", "targets": [{"job_id": job}]})
    assert ranges_of(qm, job).holds == ["u"]
    assert qm.call("orders", {"orders": [order(job, 1, version)]})["refused"][0]["reason"] \
        == "task is not pending"
    qm.call("release", {"user": ALICE.to_dict(), "hold_type": "u",
                        "targets": [{"job_id": job}]})
    version = ranges_of(qm, job).version
    qm.call("alter", {"user": ALICE.to_dict(), "targets": [{"job_id": job}],
                      "changes": {"priority": -5}})
    refused = qm.call("orders", {"orders": [order(job, 1, version)]})["refused"]
    assert refused[0]["reason"] == "task changed since the order was computed"
    assert qm.call("orders", {"orders": [order(job, 1, ranges_of(qm, job).version)]}
                   )["accepted"] == 1


def test_a_hold_on_some_tasks_keeps_them_as_ranges(qm: Harness) -> None:
    """Issue 26: a hold on some pending ids stays a range record (it enrolled each)."""
    job = qm.submit(array=[1, 20, 1])
    result = qm.call("hold", {"user": ALICE.to_dict(), "hold_type": "u",
                              "targets": [{"job_id": job, "tasks": [[5, 10, 1]]}]})["results"]
    assert result[0]["task_ranges"] == [[5, 10, 1]]
    store = qm.server.store
    assert store.enrolled[job] == {} and store.held[job] == [[[[5, 10, 1]], ["u"]]]
    assert ranges_of(qm, job).pending == [[1, 4, 1], [11, 20, 1]]
    assert [(r["state"], r["pending_tasks"]) for r in qstat_rows(qm)] == [
        ("qw", "1-4:1,11-20:1"), ("hqw", "5-10:1")]
    # a hold on the whole job reaches the ranges and the enrolled tasks alike
    qm.call("hold", {"user": ALICE.to_dict(), "hold_type": "u", "targets": [{"job_id": job}]})
    # (then all of them wait alike, and show as one group)
    assert [(r["state"], r["pending_tasks"]) for r in qstat_rows(qm)] == [("hqw", "1-20:1")]


def test_deleting_a_partly_running_array_ends_its_pending_ids_at_once(qm: Harness) -> None:
    qm.register("h1")
    job = qm.submit(array=ARRAY)
    version = ranges_of(qm, job).version
    qm.call("orders", {"orders": [order(job, 1, version), order(job, 2, version)]})
    results = qm.call("delete", {"user": ALICE.to_dict(), "targets": [{"job_id": job}]})
    assert [r["result"] for r in results["results"]] == ["registered", "registered", "deleted"]
    store = qm.server.store
    assert ranges_of(qm, job).pending == [] and ranges_of(qm, job).deleted == [[3, 75000, 1]]
    assert store.unfinished[job] == 2 and not store.job_finished(job)
    assert len(store.tasks) == 2
    finish(qm, job, 1)
    assert not store.job_finished(job)
    finish(qm, job, 2)
    assert store.job_finished(job) and store.unfinished[job] == 0
    rows = qstat_rows(qm)
    assert [r["pending_tasks"] for r in rows if r["state"] == "z"] == ["1-75000:1"]
    results = qm.call("job_query", {"user": ALICE.to_dict(), "job_ids": [job],
                                    "include_finished": True})["tasks"]
    assert len(results) == 75000 and results[5]["deleted_by"] == "alice"


def test_deleting_some_pending_tasks_answers_task_by_task(qm: Harness) -> None:
    job = qm.submit(array=[1, 6, 1])
    results = qm.call("delete", {"user": ALICE.to_dict(),
                                 "targets": [{"job_id": job, "tasks": [[2, 3, 1]]}]})["results"]
    assert [(r["task_id"], r["result"]) for r in results] == [(2, "deleted"), (3, "deleted")]
    assert ranges_of(qm, job).pending == [[1, 1, 1], [4, 6, 1]]
    assert qm.server.store.unfinished[job] == 4
    results = qm.call("delete", {"user": ALICE.to_dict(),
                                 "targets": [{"job_id": job, "tasks": [[1, 6, 1]]}]})["results"]
    assert [r["task_id"] for r in results] == [1, 4, 5, 6]
    assert qm.server.store.job_finished(job)


def test_dependents_are_released_when_the_last_task_of_an_array_ends(qm: Harness) -> None:
    qm.register("h1")
    first = qm.submit(array=[1, 2, 1], job_name="first")
    second = qm.submit(hold_jid=[str(first)])
    third = qm.submit(hold_jid=["fir*"])
    unrelated = qm.submit(hold_jid=["nothing"])
    store = qm.server.store
    assert store.dependency_held == {second, third}
    version = ranges_of(qm, first).version
    qm.call("orders", {"orders": [order(first, 1, version), order(first, 2, version)]})
    finish(qm, first, 1)
    assert ranges_of(qm, second).holds == ["h"]
    finish(qm, first, 2)
    assert ranges_of(qm, second).holds == [] and ranges_of(qm, third).holds == []
    assert store.dependency_held == set() and ranges_of(qm, unrelated).holds == []
    assert store.waits_on_id.get(first) == set()


def test_a_restart_reads_ranges_tasks_and_counters_back(qm: Harness, tmp_path: Path) -> None:
    qm.register("h1")
    job = qm.submit(array=[1, 100, 1])
    waiting = qm.submit(hold_jid=[str(job)])
    version = ranges_of(qm, job).version
    qm.call("orders", {"orders": [order(job, 1, version)]})
    qm.call("hold", {"user": ALICE.to_dict(), "hold_type": "u",
                     "targets": [{"job_id": job, "tasks": [[50, 50, 1]]}]})
    qm.call("delete", {"user": ALICE.to_dict(),
                       "targets": [{"job_id": job, "tasks": [[90, 100, 1]]}]})
    before = qm.server.store
    qm.server.spool.close()
    again = Harness(tmp_path, auto_add_hosts=True, default_slots=2).server.store
    assert again.ranges == before.ranges and again.unfinished == before.unfinished
    assert {k: t.to_dict() for k, t in again.tasks.items()} == \
        {k: t.to_dict() for k, t in before.tasks.items()}
    assert again.unfinished[job] == 89 and again.dependency_held == {waiting}
    assert again.owner_jobs == before.owner_jobs == {"alice": {job, waiting}}
    assert again.waits_on_id[job] == {waiting}


def test_a_spool_from_before_task_ranges_loads_its_tasks_as_enrolled(tmp_path: Path) -> None:
    qm = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    job = qm.submit(array=[1, 3, 1])
    old_job = {**qm.server.store.jobs[job].to_dict(), "task_ids": [1, 2, 3]}
    old_tasks = {f"{job}.{t}": {"job_id": job, "task_id": t, "state": "pending", "holds": [],
                                "version": 1} for t in (1, 2, 3)}
    qm.server.spool.close()
    [path] = list(tmp_path.rglob("spool.db"))
    db = sqlite3.connect(path)
    db.execute("DELETE FROM objects WHERE kind='ranges'")
    db.execute("INSERT OR REPLACE INTO objects VALUES ('job', ?, ?)",
               (str(job), wire.pack(old_job)))
    db.executemany("INSERT INTO objects VALUES ('task', ?, ?)",
                   [(k, wire.pack(v)) for k, v in old_tasks.items()])
    db.commit()
    db.close()
    store = Harness(tmp_path, auto_add_hosts=True, default_slots=2).server.store
    assert store.set_aside == {}
    assert sorted(store.enrolled[job]) == [1, 2, 3] and store.ranges[job].pending == []
    assert store.unfinished[job] == 3


def test_the_snapshot_comes_in_bounded_parts_that_make_the_same_mirror(
        qm: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    qm.register("h1")
    jobs = [qm.submit(array=[1, 5, 1]) for _ in range(7)] + [qm.submit() for _ in range(5)]
    for job in jobs[:4]:
        version = ranges_of(qm, job).version
        qm.call("orders", {"orders": [order(job, 1, version), order(job, 2, version)]})
    whole = Mirror.from_snapshot(qm.call("snapshot", {}))
    monkeypatch.setattr(store_module, "SNAPSHOT_PART_RECORDS", 3)
    part = qm.call("snapshot", {})
    mirror = Mirror.from_snapshot(part)
    seq = mirror.seq
    parts = 1
    late = qm.submit(array=[1, 2, 1])  # a job that arrives between the parts
    while part["next"] is not None:
        assert len(part["jobs"]) + len(part["tasks"]) <= 3
        part = qm.call("snapshot", {"after": part["next"]})
        mirror.add_part(part)
        parts += 1
    assert parts >= (len(jobs) + 8) // 3
    for event in published_events(qm):
        if event["seq"] > seq:
            mirror.apply(event)
    assert late in mirror.jobs and mirror.ranges[late]["pending"] == [[1, 2, 1]]
    del mirror.jobs[late], mirror.ranges[late]
    mirror.placeable.discard(late)
    assert mirror.jobs.keys() == whole.jobs.keys() and mirror.ranges == whole.ranges
    assert mirror.tasks == whole.tasks and mirror.pending == whole.pending
    assert mirror.used == whole.used and mirror.placeable == whole.placeable


def published_events(qm: Harness) -> list[dict[str, Any]]:
    events = []
    for frames in qm.pub.sent:
        topic, payload = wire.decode_published(frames)
        if topic == wire.TOPIC_EVENTS:
            events += payload["events"]
    return events


def test_a_pass_takes_array_tasks_from_the_ranges_in_order(qm: Harness) -> None:
    for host in ("h1", "h2"):  # hosts under their load thresholds
        qm.call("register", {"host": host, "jobs": [], "load": {
            "num_proc": "2", "load_avg": "0.1", "np_load_avg": "0.05"}},
            identity=b"execd:" + host.encode())
    job = qm.submit(array=ARRAY)
    mirror = Mirror.from_snapshot(qm.call("snapshot", {}))
    from common.placement.dispatch import PassStats, dispatch_pass
    stats = PassStats()
    orders = dispatch_pass(mirror.pass_input(exclude={f"{job}.1"}), stats)
    assert [o["task_id"] for o in orders] == [2, 3, 4, 5]  # 4 free slots; task 1 in flight
    assert {o["task_version"] for o in orders} == {ranges_of(qm, job).version}
    assert stats.considered == 4  # the other 74,995 ids are never looked at
    assert qm.call("orders", {"orders": orders})["accepted"] == 4


def test_only_the_owners_asked_for_are_answered(qm: Harness) -> None:
    mine = qm.submit(ALICE)
    qm.submit(ROOT)
    reply = qm.call("job_query", {"user": ALICE.to_dict(), "owners": ["ali*"]})
    assert [j["job_id"] for j in reply["jobs"]] == [mine]


def test_a_brief_listing_gives_qstat_the_same_rows(qm: Harness) -> None:
    qm.register("h1")
    qm.submit(job_name="first", hard_resources={"arch": "lx-amd64"}, priority=-3)
    qm.submit(hold_jid=["first"], soft_queues=["all.q"], array=[1, 9, 2])
    qm.submit(pe=["smp", 2, 4], pe_ranges=[[2, 4]], hard_queues=["all.q"], hold=True)
    job = qm.submit(array=[1, 4, 1])
    version = ranges_of(qm, job).version
    qm.call("orders", {"orders": [order(job, 1, version)]})
    body = {"user": ALICE.to_dict(), "ranges": True, "include_finished": True}
    full, brief = qm.call("job_query", body), qm.call("job_query", {**body, "brief": True})
    assert len(wire.pack(brief["jobs"])) < len(wire.pack(full["jobs"])) / 2
    flt = views.JobFilter(states=views.parse_state_filter("prsz") or frozenset(), users=["*"])
    cluster = qm.call("cluster_query", {"user": ALICE.to_dict()})
    for rows in (views.pending_rows, views.zombie_rows):
        assert rows(brief, flt) == rows(full, flt)
    assert views.running_rows(brief, cluster, flt) == views.running_rows(full, cluster, flt)
    assert len(views.running_rows(full, cluster, flt)) == 1


_RANGE_LISTS = st.lists(st.lists(st.integers(1, 75_000), min_size=3, max_size=3), max_size=3)


@given(st.builds(TaskRanges, job_id=st.integers(1, 10**7), pending=_RANGE_LISTS,
                 holds=st.lists(st.sampled_from("uosh"), max_size=4, unique=True),
                 deleted=_RANGE_LISTS, deleted_by=st.none() | st.text(max_size=8),
                 version=st.integers(0, 10**6)))
def test_brief_ranges_are_the_set_fields_in_field_order(rng: TaskRanges) -> None:
    # a field added to TaskRanges must be added to _brief_ranges (and here)
    assert TaskRanges._names == ("job_id", "pending", "holds", "deleted", "deleted_by",
                                 "version")
    assert list(qm_jobs._brief_ranges(rng).items()) == \
        [(name, value) for name, value in rng.to_dict().items() if value]
