"""The users' event subscription (qmaster.event_feed) and qevent's reading of it."""
from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, strategies as st

from clients.events import Cursor
from clients.qevent import Ends, UsageError, parse
from qmaster import event_feed
from qmaster.context import DEFERRED, Ctx, RequestError, Services
from qmaster.event_feed import (MAX_USER_POLLS, EventFeed, Poll, answer_polls, handle_events,
                                project)
from qmaster.store import Batch
from tests.unit.test_host_rights import QM, new_store, user


def raw(seq: int, kind: str, key: str, obj: Any = None, op: str = "put") -> dict[str, Any]:
    return {"seq": seq, "kind": kind, "op": op, "key": key, "obj": obj}


def never(_: int) -> bool:
    return False


def test_a_cursor_reads_what_follows_it_and_filters() -> None:
    feed = EventFeed(last_asked=0.0)
    feed.note([raw(1, "task", "5.1", {"state": "running"}), raw(2, "conf", "global"),
               raw(3, "qstate", "all.q@h", {"states": "d"}), raw(4, "task", "6.1", {})],
              1.0, never)
    found, cursor = feed.read(0, 10, frozenset({"task"}), None, lambda j: "ann")
    assert [e["seq"] for e in found] == [1, 4] and cursor == 4
    found, cursor = feed.read(1, 10, frozenset({"task", "queue"}), frozenset({"bob"}),
                              lambda j: {5: "ann", 6: "bob"}[j])
    assert [e["seq"] for e in found] == [3, 4]  # queues are everybody's
    found, cursor = feed.read(0, 1, frozenset(event_feed.KINDS), None, lambda j: "x")
    assert [e["seq"] for e in found] == [1] and cursor == 1  # at most max, then go on


def test_nothing_is_kept_while_nobody_subscribes() -> None:
    feed = EventFeed()
    feed.note([raw(1, "task", "5.1", {})], 1e9, never)
    assert not feed.ring and feed.since == 1


def test_the_ring_forgets_the_oldest_and_says_so() -> None:
    feed = EventFeed(last_asked=0.0)
    feed.ring = type(feed.ring)(maxlen=3)
    feed.note([raw(n, "task", f"{n}.1", {}) for n in range(1, 6)], 1.0, never)
    assert [e["seq"] for e in feed.ring] == [3, 4, 5] and feed.since == 2


def test_only_the_last_event_of_a_job_in_a_batch_says_it_ended() -> None:
    feed = EventFeed(last_asked=0.0)
    feed.note([raw(1, "task", "5.1", {"state": "running"}),
               raw(2, "task", "5.1", {"state": "finished"}),
               raw(3, "task", "6.1", {"state": "finished"})], 1.0, lambda j: j == 5)
    assert [e["job_finished"] for e in feed.ring] == [False, True, False]


SECRET_FIELDS = ("script", "env", "session", "token", "stdout_paths", "cwd", "args")


@given(st.dictionaries(st.sampled_from(SECRET_FIELDS + ("state", "host", "load", "alive")),
                       st.text(max_size=5)),
       st.sampled_from(["job", "ranges", "task", "qstate", "host"]))
def test_a_subscriber_sees_no_script_environment_path_or_token(obj: dict[str, Any],
                                                              kind: str) -> None:
    job = SimpleNamespace(owner="ann", submit_time=1.0,
                          opts={"job_name": "j", "env": {"A": "1"}, "session": {"token": "t"},
                                "script": "secret", "cwd": "/home/ann"})
    seen = project({**raw(7, kind, "5.1" if kind in ("task", "ranges") else "5", obj)},
                   lambda _: job)
    assert not set(seen) & set(SECRET_FIELDS)
    assert "secret" not in repr(seen) and "/home/ann" not in repr(seen)


def test_waiting_requests_are_bounded_per_user() -> None:
    feed = EventFeed()
    for n in range(MAX_USER_POLLS):
        feed.add_poll(Poll(b"i", n, "ann", 0, 10.0, 10, frozenset({"task"}), None))
    with pytest.raises(RequestError, match="subscriptions waiting already"):
        feed.add_poll(Poll(b"i", 99, "ann", 0, 10.0, 10, frozenset({"task"}), None))
    feed.add_poll(Poll(b"i", 100, "bob", 0, 10.0, 10, frozenset({"task"}), None))


def call(store: Any, services: Services, **body: Any) -> Any:
    ctx = Ctx(store, Batch(), services, b"c", 1, time.time(),
              {"user": user(QM, "ann").to_dict(), **body})
    return handle_events(ctx)


def test_a_new_subscriber_gets_a_cursor_then_waits_then_is_answered() -> None:
    store, services = new_store(), Services(epoch="e1", qmaster_host=QM)
    services.seq = 40
    first = call(store, services)
    assert first == {"version": 1, "epoch": "e1", "seq": 40, "gap": False, "events": []}
    assert call(store, services, epoch="e1", after=40, timeout=5.0) is DEFERRED
    feed = services.event_feed
    assert answer_polls(feed, store, "e1", time.time()) == []  # nothing new, time not up
    feed.note([raw(41, "qstate", "all.q@h", {"states": "d"})], time.time(), never)
    (identity, request_id, answer), = answer_polls(feed, store, "e1", time.time())
    assert answer["events"] == [{"seq": 41, "kind": "queue", "op": "put",
                                 "queue_instance": "all.q@h", "states": "d"}]
    assert answer["seq"] == 41 and not feed.polls


def test_a_wait_whose_time_is_up_is_answered_empty() -> None:
    store, services = new_store(), Services(epoch="e1", qmaster_host=QM)
    assert call(store, services, epoch="e1", after=0, timeout=1.0) is DEFERRED
    (_, _, answer), = answer_polls(services.event_feed, store, "e1", time.time() + 2)
    assert answer["events"] == [] and answer["seq"] == 0 and not answer["gap"]


def test_another_epoch_or_a_forgotten_cursor_is_a_gap() -> None:
    store, services = new_store(), Services(epoch="e2", qmaster_host=QM)
    services.seq = 9
    assert call(store, services, epoch="e1", after=3)["gap"]  # the qmaster restarted
    services.event_feed.since = 5
    assert call(store, services, epoch="e2", after=3)["gap"]  # older than what is kept
    assert not call(store, services, epoch="e2", after=6)["gap"]


def test_an_unknown_kind_is_refused() -> None:
    with pytest.raises(RequestError, match='unknown event kind "conf"'):
        call(new_store(), Services(epoch="e", qmaster_host=QM), kinds=["conf"])


def test_qevent_tells_each_end_once() -> None:
    ends = Ends()
    finished = {"kind": "task", "state": "finished", "job_id": 5, "task_id": 2,
                "job_finished": True}
    assert ends.of(finished) == [("JB_TASK_END", 5, 2), ("JB_END", 5, 2)]
    assert ends.of(finished) == []
    assert ends.of({"kind": "pending", "job_id": 6, "job_finished": True}) == \
        [("JB_END", 6, 0)]


def test_qevent_options(tmp_path: Any) -> None:
    script = tmp_path / "s.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    opts = parse(["-trigger", "JB_END", str(script), "-u", "ann,bob", "-resume", "ab:12"])
    assert opts is not None and opts.triggers == [("JB_END", str(script))]
    assert opts.owners == ["ann", "bob"] and opts.cursor == Cursor("ab", 12)
    assert parse(["-help"]) is None
    for bad, said in ((["-ts"], "test suite"), (["-trigger", "JB_START", str(script)],
                                                 "unknown event"),
                      (["-trigger", "JB_END", str(tmp_path)], "not an executable"),
                      ([], "choose -subscribe or -trigger"), (["-x"], "invalid option"),
                      (["-sm", "-resume", "12"], "bad cursor")):
        with pytest.raises(UsageError, match=said):
            parse(bad)
