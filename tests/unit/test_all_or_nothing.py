"""A request applies completely or leaves no trace: not in the store, the spool, the
published events or the outbox (issue 7, "All-or-nothing requests")."""
from __future__ import annotations

import copy
import sqlite3
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clients.api import job_request
from common import wire
from qmaster import server as qmaster_server
from qmaster.store import Store
from tests.proven import process
from tests.unit.test_qmaster_core import ALICE, ROOT, Harness


@pytest.fixture
def qm(tmp_path: Path) -> Harness:
    return Harness(tmp_path, auto_add_hosts=True, default_slots=2)


def store_state(store: Store) -> dict[str, Any]:
    """Everything a request could change in memory, as comparable plain data."""
    return copy.deepcopy({
        "jobs": {k: v.to_dict() for k, v in store.jobs.items()},
        "tasks": {k: v.to_dict() for k, v in store.tasks.items()},
        "hosts": {k: v.to_dict() for k, v in store.hosts.items()},
        "conf": store.conf, "lists": store.lists, "next_job_id": store.next_job_id,
        "used_slots": {k: v for k, v in store.used_slots.items() if v},
        "active": sorted(store.active), "finished": list(store.finished_order),
        "dependency_held": sorted(store.dependency_held)})


def spool_rows(qm: Harness) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(qm.server.spool.path)
    try:
        return sorted(db.execute("SELECT kind, key, data FROM objects").fetchall()) + \
            sorted(db.execute("SELECT key, value FROM meta").fetchall())
    finally:
        db.close()


def jobs_of(count: int, bad: int, **bad_opts: Any) -> list[dict[str, Any]]:
    jobs = [job_request("/bin/true", binary=True, hold=True) for _ in range(count)]
    jobs[bad]["opts"].update(bad_opts)
    return jobs


def refusal(qm: Harness, msg_type: str, body: dict[str, Any]) -> str:
    with pytest.raises(RuntimeError) as err:
        qm.call(msg_type, body)
    return str(err.value)


@pytest.mark.parametrize("bad_opts, words", [
    ({"job_name": "a:b"}, "submit: jobs[500].opts.job_name: Colon (':') not allowed"),
    ({"hard_queues": 5}, "submit: jobs[500].opts.hard_queues: expected a list"),
    ({"hard_resources": {"nosuch": "1"}}, "jobs[500]: "),
])
def test_a_bulk_submit_with_one_bad_job_is_refused_whole(qm: Harness, bad_opts: dict[str, Any],
                                                         words: str) -> None:
    before, rows, published = store_state(qm.server.store), spool_rows(qm), len(qm.pub.sent)
    message = refusal(qm, "submit", {"user": ALICE.to_dict(),
                                     "jobs": jobs_of(1000, 500, **bad_opts)})
    assert message.startswith(words)
    assert store_state(qm.server.store) == before
    assert spool_rows(qm) == rows and len(qm.pub.sent) == published
    assert qm.submit() == 1  # the job number was not spent


def test_a_handler_bug_is_refused_as_internal_and_changes_nothing(
        qm: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    qm.register("h1")
    held = qm.submit(hold=True)
    before, rows, published = store_state(qm.server.store), spool_rows(qm), len(qm.pub.sent)

    def submit_then_fail(ctx: Any) -> dict[str, Any]:
        real_submit(ctx)
        raise ZeroDivisionError("a bug after the changes")
    real_submit = qmaster_server.HANDLERS["submit"]
    monkeypatch.setitem(qmaster_server.HANDLERS, "submit", submit_then_fail)
    message = refusal(qm, "submit", {"user": ALICE.to_dict(), "jobs": jobs_of(3, 0)})
    assert message == "internal error: ZeroDivisionError"
    assert store_state(qm.server.store) == before
    assert spool_rows(qm) == rows and len(qm.pub.sent) == published
    monkeypatch.setitem(qmaster_server.HANDLERS, "submit", real_submit)
    assert qm.submit() == held + 1


def test_one_failing_request_of_a_batch_leaves_the_others(qm: Harness) -> None:
    """Requests that arrive together share a commit; the refused one takes back only its
    own changes."""
    good = wire.encode("submit", {"user": ALICE.to_dict(), "jobs": jobs_of(2, 0)}, 1)
    bad = wire.encode("submit", {"user": ALICE.to_dict(),
                                 "jobs": jobs_of(2, 1, hard_resources={"nosuch": "1"})}, 2)
    process(qm.server, [[b"a", good], [b"b", bad]])
    replies = {ident: wire.decode(payload) for ident, payload in qm.router.sent}
    assert replies[b"a"][0] == "reply" and replies[b"a"][2]["job_ids"] == [1, 2]
    assert replies[b"b"][0] == "error"
    assert sorted(qm.server.store.jobs) == [1, 2]
    assert sorted(k for kind, k, _ in spool_rows(qm)[:-1] if kind == "job") == ["1", "2"]


# ---- every handler, interrupted after it changed things, leaves no trace ---------------
def _requests(qm: Harness) -> dict[str, Callable[[int], tuple[str, dict[str, Any], bytes]]]:
    user = ALICE.to_dict()
    target = lambda job: [{"job_id": job}]  # noqa: E731
    return {
        "submit": lambda job: ("submit", {"user": user, "jobs": jobs_of(3, 0, hold=False)}, b"c"),
        "hold": lambda job: ("hold", {"user": user, "targets": target(job), "hold_type": "u"},
                             b"c"),
        "release": lambda job: ("release", {"user": user, "targets": target(job),
                                            "hold_type": "u"}, b"c"),
        "delete": lambda job: ("delete", {"user": user, "targets": target(job)}, b"c"),
        "alter": lambda job: ("alter", {"user": user, "targets": target(job),
                                        "changes": {"job_name": "renamed", "priority": -5}}, b"c"),
        "finish": lambda job: ("job_finished", {"host": "h1", "job_id": job, "task_id": 1,
                                                "result": {"exit_status": 3}}, b"execd:h1"),
        "register": lambda job: ("register", {"host": "h9", "load": {"num_proc": "4"},
                                              "jobs": []}, b"execd:h9"),
        "conf": lambda job: ("conf_put", {"user": ROOT.to_dict(), "kind": "hgrp",
                                          "name": "@g", "mode": "add",
                                          "data": [["group_name", "@g"], ["hostlist", "h7"]]},
                             b"c"),
    }


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(["submit", "hold", "release", "delete", "alter", "finish",
                             "register", "conf"]),
       held=st.booleans(), running=st.booleans())
def test_any_request_interrupted_at_its_end_leaves_no_trace(
        tmp_path_factory: pytest.TempPathFactory, kind: str, held: bool, running: bool) -> None:
    qm = Harness(tmp_path_factory.mktemp("q"), auto_add_hosts=True, default_slots=2)
    qm.register("h1")
    first = qm.submit(hold=held)
    if running and not held:
        qm.dispatch(first)
    msg_type, body, identity = _requests(qm)[kind](first)
    before, rows, published = store_state(qm.server.store), spool_rows(qm), len(qm.pub.sent)
    sent = len(qm.router.sent)
    real = qmaster_server.HANDLERS[msg_type]

    def then_fail(ctx: Any) -> dict[str, Any]:
        real(ctx)
        raise RuntimeError("injected")
    qmaster_server.HANDLERS[msg_type] = then_fail
    try:
        with pytest.raises(RuntimeError, match="internal error"):
            qm.call(msg_type, body, identity)
    finally:
        qmaster_server.HANDLERS[msg_type] = real
    assert store_state(qm.server.store) == before
    assert spool_rows(qm) == rows and len(qm.pub.sent) == published
    assert len(qm.router.sent) == sent + 1  # the error reply, no message to an execd
    qm.call(msg_type, body, identity)  # and the same request still applies afterwards
