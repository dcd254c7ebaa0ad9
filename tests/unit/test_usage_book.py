"""The qmaster's share tree usage book (qmaster.usage_book) without sockets: booking the
execds' cumulative reports once, the final usage, spooling across a restart, the
scheduler's snapshot and events, qconf -clearusage; and the scheduler's mirror of it."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from common import wire
from common.policy.conf import PolicyConf
from common.policy.usage import PROJECT, USER, Holder, holder_key
from qmaster.spool import Transaction
from qmaster.usage_book import UsageBook
from scheduler.mirror import Mirror
from tests.unit.test_qmaster_core import ALICE, BOB, ROOT, Harness

NO_DECAY = PolicyConf(halftime=0)


@pytest.fixture
def qm(tmp_path: Path) -> Harness:
    return Harness(tmp_path, auto_add_hosts=True, default_slots=4)


def running_job(qm: Harness, user=ALICE, **opts: Any) -> int:
    qm.register("h1")
    job = qm.submit(user, **opts)
    qm.dispatch(job)
    qm.call("job_started", {"host": "h1", "job_id": job, "task_id": 1, "start_time": 100.0},
            identity=b"execd:h1")
    return job


def report(qm: Harness, job: int, cpu: float, mem: float = 0.0, io: float = 0.0) -> None:
    item = {"job_id": job, "task_id": 1, "dispatched": 0.0, "cpu": cpu, "mem": mem,
            "io": io, "vmem": 0.0, "maxvmem": 0.0}
    qm.call("load_report", {"host": "h1", "load": {"num_proc": "2"}, "usage": [item]},
            identity=b"execd:h1")


def finish(qm: Harness, job: int, cpu: float) -> None:
    result = {"exit_status": 0, "signal": 0, "failed": 0, "start_time": 100.0,
              "end_time": 110.0, "cpu": cpu, "mem": 0.0, "io": 0.0}
    qm.call("job_finished", {"host": "h1", "job_id": job, "task_id": 1, "result": result},
            identity=b"execd:h1")


def published(qm: Harness) -> list[dict[str, Any]]:
    return [event for frames in qm.pub.sent if frames[0] == wire.TOPIC_EVENTS
            for event in wire.decode_published(frames)[1]["events"]]


def cpu_of(qm: Harness, holder: Holder) -> float:
    record = qm.server.services.usage.records.get(holder)
    return record.usage.get("cpu", 0.0) if record else 0.0


def test_cumulative_reports_are_booked_once(qm: Harness) -> None:
    job = running_job(qm)
    report(qm, job, cpu=10.0)
    report(qm, job, cpu=10.0)   # the same report again
    report(qm, job, cpu=25.0)
    report(qm, job, cpu=3.0)    # a restarted execd's smaller figure
    alice = Holder(USER, "alice")
    assert cpu_of(qm, alice) == pytest.approx(25.0, rel=1e-4)
    finish(qm, job, cpu=30.0)   # the final usage books the rest
    assert cpu_of(qm, alice) == pytest.approx(30.0, rel=1e-4)
    assert qm.server.services.usage.records[alice].long_term["cpu"] == 30.0
    assert not qm.server.services.usage.bases


def test_a_project_job_books_to_the_user_in_the_project_and_the_project(qm: Harness) -> None:
    qm.call("conf_put", {"user": ROOT.to_dict(), "kind": "project", "name": "p1",
                         "data": [["name", "p1"], ["oticket", "0"], ["fshare", "0"],
                                  ["acl", "NONE"], ["xacl", "NONE"]], "mode": "add"})
    job = running_job(qm, project="p1")
    finish(qm, job, cpu=8.0)
    table = qm.server.services.usage.table(1e12, NO_DECAY)
    assert table.projects == {"p1": pytest.approx(8.0)}
    assert table.user_projects == {("alice", "p1"): pytest.approx(8.0)}
    assert table.users == {}


def test_usage_survives_a_restart_and_the_base_with_it(qm: Harness, tmp_path: Path) -> None:
    job = running_job(qm)
    report(qm, job, cpu=40.0)
    qm.server._spool_usage()  # (what a clean stop does; a task's end flushes at once too)
    qm.server.spool.close()
    again = Harness(tmp_path, auto_add_hosts=True, default_slots=4)
    assert cpu_of(again, Holder(USER, "alice")) == pytest.approx(40.0, rel=1e-4)
    again.call("register", {"host": "h1", "load": {"num_proc": "2"},
                            "jobs": [{"job_id": job, "task_id": 1}]}, identity=b"execd:h1")
    report(again, job, cpu=40.0)  # the execd reports the same figure to the new qmaster
    assert cpu_of(again, Holder(USER, "alice")) == pytest.approx(40.0, rel=1e-4)
    report(again, job, cpu=50.0)
    assert cpu_of(again, Holder(USER, "alice")) == pytest.approx(50.0, rel=1e-4)


def test_a_task_end_spools_and_publishes_in_its_batch(qm: Harness, tmp_path: Path) -> None:
    job = running_job(qm)
    finish(qm, job, cpu=12.0)
    events = [e for e in published(qm) if e["kind"] == "usage"]
    assert [e["key"] for e in events] == [holder_key(Holder(USER, "alice"))]
    qm.server.spool.close()  # no clean stop: the batch had written it
    again = Harness(tmp_path, auto_add_hosts=True, default_slots=4)
    assert cpu_of(again, Holder(USER, "alice")) == pytest.approx(12.0, rel=1e-4)


def test_clearusage_needs_a_manager_and_keeps_long_term_usage(qm: Harness) -> None:
    job = running_job(qm)
    finish(qm, job, cpu=12.0)
    with pytest.raises(RuntimeError, match='denied: "bob" must be manager for this operation'):
        qm.call("clear_usage", {"user": BOB.to_dict()})
    assert cpu_of(qm, Holder(USER, "alice")) > 0
    qm.call("clear_usage", {"user": ROOT.to_dict()})
    record = qm.server.services.usage.records[Holder(USER, "alice")]
    assert record.usage == {} and record.long_term["cpu"] == 12.0


def test_clearusage_of_named_users_only(qm: Harness) -> None:
    book = qm.server.services.usage
    for owner in ("alice", "bob"):
        book.running(f"{owner}.1", 1.0, owner, None, {"cpu": 5.0}, 10.0, {"cpu": 1.0},
                     lambda undo: None)
    qm.call("clear_usage", {"user": ROOT.to_dict(), "users": ["bob"]})
    assert cpu_of(qm, Holder(USER, "alice")) == 5.0
    assert cpu_of(qm, Holder(USER, "bob")) == 0.0


def test_a_refused_request_takes_its_booking_back() -> None:
    book, journal = UsageBook(), []
    book.running("1.1", 5.0, "alice", "p", {"cpu": 5.0}, 10.0, {"cpu": 1.0}, journal.append)
    book.running("1.1", 5.0, "alice", "p", {"cpu": 9.0}, 11.0, {"cpu": 1.0}, journal.append)
    journal.pop()()
    assert book.records[Holder(PROJECT, "p")].usage == {"cpu": 5.0}
    assert book.bases["1.1"].usage["cpu"] == 5.0
    journal.pop()()
    assert book.records == {} and book.bases == {}


def test_another_run_of_the_task_starts_from_nothing() -> None:
    book = UsageBook()
    book.running("1.1", 5.0, "alice", None, {"cpu": 50.0}, 10.0, {"cpu": 1.0}, lambda u: None)
    book.running("1.1", 6.0, "alice", None, {"cpu": 20.0}, 11.0, {"cpu": 1.0}, lambda u: None)
    assert book.records[Holder(USER, "alice")].usage["cpu"] == 70.0


def test_the_scheduler_snapshot_and_events_give_the_mirror_its_usage(qm: Harness) -> None:
    job = running_job(qm)
    finish(qm, job, cpu=6.0)
    snap = qm.call("snapshot", {})
    mirror = Mirror.from_snapshot(snap)
    mirror.conf["sconf"]["global"] = [["halftime", "0"]]
    assert mirror.usage_at(1e12).users == {"alice": pytest.approx(6.0, rel=1e-4)}
    job2 = running_job(qm, BOB)
    finish(qm, job2, cpu=4.0)
    for event in published(qm):
        if event["seq"] > mirror.seq:
            mirror.apply(event)
    assert mirror.usage.users == {"alice": pytest.approx(6.0, rel=1e-4),
                                  "bob": pytest.approx(4.0, rel=1e-4)}


def test_mirror_usage_decays_to_the_time_it_is_read() -> None:
    mirror = Mirror()
    data = {"kind": "user", "name": "u", "project": "", "usage": {"cpu": 64.0},
            "long_term": {"cpu": 64.0}, "stamp": 1000.0}
    mirror.apply({"kind": "usage", "op": "put", "key": holder_key(Holder(USER, "u")),
                  "obj": data, "seq": 1})
    mirror.conf["sconf"]["global"] = [["halftime", "1"], ["usage_weight_list",
                                                          "cpu=1.0,mem=0.0,io=0.0"]]
    assert mirror.usage_at(1000.0 + 3600.0).users["u"] == pytest.approx(32.0, rel=5e-3)
    mirror.apply({"kind": "usage", "op": "del", "key": holder_key(Holder(USER, "u")),
                  "seq": 2})
    assert mirror.usage_at(5000.0).users == {}


def test_usage_query_gives_the_decayed_records_and_the_weighted_figures(qm: Harness) -> None:
    job = running_job(qm)
    finish(qm, job, cpu=9.0)
    reply = qm.call("usage_query", {"user": BOB.to_dict()})
    assert reply["users"] == {"alice": pytest.approx(9.0, rel=1e-4)}
    [record] = reply["records"]
    assert record["name"] == "alice" and record["long_term"]["cpu"] == 9.0


@settings(max_examples=60, deadline=None)
@given(reports=st.lists(st.lists(st.tuples(
    st.sampled_from(["1.1", "2.1", "3.1"]), st.sampled_from([1.0, 2.0]),
    st.sampled_from([("u1", None), ("u2", "p")]),
    st.fixed_dictionaries({}, optional={n: st.floats(0, 1e6) for n in ("cpu", "mem", "io")})),
    max_size=6), max_size=5))
def test_a_report_books_what_its_tasks_one_by_one_would(reports) -> None:
    together, one_by_one = UsageBook(), UsageBook()
    constants = {"cpu": 1.0, "mem": 1.0, "io": 1.0}
    for runs in reports:
        together.running_report([(k, d, who[0], who[1], u) for k, d, who, u in runs],
                                10.0, constants, lambda undo: None)
        for key, dispatched, (owner, project), usage in runs:
            one_by_one.running(key, dispatched, owner, project, usage, 10.0, constants,
                               lambda undo: None)
    assert together.bases == one_by_one.bases
    assert together.records.keys() == one_by_one.records.keys()
    for holder, record in together.records.items():
        for name, amount in record.usage.items():
            assert amount == pytest.approx(one_by_one.records[holder].usage[name], rel=1e-9)


def test_the_exec_hosts_usage_scaling_applies(qm: Harness) -> None:
    job = running_job(qm)
    store = qm.server.store
    store.conf["exechost"]["h1"] = [[n, v] for n, v in store.conf["exechost"]["h1"]
                                    if n != "usage_scaling"] + [["usage_scaling", "cpu=2.5"]]
    report(qm, job, cpu=4.0, mem=3.0)
    record = qm.server.services.usage.records[Holder(USER, "alice")]
    assert record.usage["cpu"] == pytest.approx(10.0, rel=1e-4)
    assert record.usage["mem"] == pytest.approx(3.0, rel=1e-4)
    finish(qm, job, cpu=6.0)
    assert record.long_term["cpu"] == pytest.approx(15.0)


def test_a_changed_halftime_decays_what_was_booked_with_the_old_one_first() -> None:
    book = UsageBook()
    one_hour = {"sconf": {"global": [["halftime", "1"]]}}
    constants = book.constants(one_hour, 1000.0)
    book.running("1.1", 1.0, "u", None, {"cpu": 100.0}, 1000.0, constants, lambda u: None)
    book.flush(_NoTxn(), lambda *event: None, 1000.0)
    no_decay = {"sconf": {"global": [["halftime", "0"]]}}
    assert book.constants(no_decay, 1000.0 + 3600.0)["cpu"] == 1.0
    record = book.records[Holder(USER, "u")]
    assert record.usage["cpu"] == pytest.approx(100.0 * constants["cpu"] ** 60)
    assert record.stamp == 1000.0 + 3600.0
    assert book.due(1000.0 + 3600.0 + 5.0)  # written and published again
    assert book.constants(no_decay, 9e9) is book.constants(no_decay, 9e9)


class _NoTxn:
    def put(self, *args: Any) -> None: ...
    def delete(self, *args: Any) -> None: ...


def test_an_unreadable_spooled_record_is_set_aside(qm: Harness, tmp_path: Path) -> None:
    job = running_job(qm)
    finish(qm, job, cpu=3.0)
    batch_txn = Transaction()
    batch_txn.put("usage", "bad", {"kind": "queue", "name": "q"})
    qm.server.spool.commit(batch_txn)
    qm.server.spool.close()
    again = Harness(tmp_path, auto_add_hosts=True, default_slots=4)
    assert cpu_of(again, Holder(USER, "alice")) == pytest.approx(3.0, rel=1e-4)
    objects, _ = again.server.spool.load()
    assert "bad" in objects["aside:usage"] and "bad" not in objects.get("usage", {})
