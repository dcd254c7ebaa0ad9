"""Bounded cost per request (issue 26): one user's request must not hold the qmaster's
loop for long whatever it names. Permission is checked before any per-task work, task
ranges are merged and capped, waiters are merged and capped per user, pending tasks
held by a task range stay range records, and the caps of the cluster configuration
(max_u_jobs, max_jobs) and our own (script size, spool quota) hold at submission.

No timing is asserted: the work a request does is counted (calls of the per-task
functions, records written), which is what a timing would only stand in for."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clients.api import job_request
from common import task_ranges as tr
from qmaster import jobs
from qmaster.store import Store
from tests.unit.test_qmaster_core import ALICE, BOB, ROOT, Harness

BIG = 75000


@pytest.fixture
def qm(tmp_path: Path) -> Harness:
    return Harness(tmp_path, auto_add_hosts=True, default_slots=2)


def submit(qm: Harness, user: Any = ALICE, count: int = 1, **opts: Any) -> list[int]:
    reply = qm.call("submit", {"user": user.to_dict(),
                               "jobs": [job_request("/bin/true", binary=True, **opts)] * count})
    return [int(j) for j in reply["job_ids"]]


def request(qm: Harness, msg_type: str, body: dict[str, Any], user: Any = ALICE
            ) -> tuple[str, dict[str, Any]]:
    """(reply type, body) of one request."""
    from common import wire
    rid = qm.send(msg_type, {"user": user.to_dict(), **body})
    for _ident, payload in reversed(qm.router.sent):
        rtype, reply_id, rbody = wire.decode(payload)
        if reply_id == rid:
            return rtype, rbody
    raise AssertionError("no reply")


class Counted:
    """Counts calls of the per-task functions a selection of tasks goes through."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        for owner, name in ((Store, "enrolled_tasks"), (Store, "all_tasks"),
                            (tr, "ids_in"), (tr, "ids"), (tr, "covered_by")):
            original = getattr(owner, name)
            monkeypatch.setattr(owner, name, self._wrap(original))

    def _wrap(self, original: Any) -> Any:
        def counted(*args: Any, **kw: Any) -> Any:
            self.calls += 1
            return original(*args, **kw)
        return counted


# ---- 2a: permission before per-task work; ranges merged and capped ---------------------
REPEATED = [[2, BIG - 1 - i % 3, 1] for i in range(400)]


@pytest.mark.parametrize("msg_type,extra", [
    ("hold", {"hold_type": "u"}), ("release", {"hold_type": "u"}), ("delete", {}),
    ("alter", {"changes": {"priority": -5}})])
def test_a_request_on_another_users_array_is_denied_before_any_task_is_looked_at(
        qm: Harness, monkeypatch: pytest.MonkeyPatch, msg_type: str, extra: dict[str, Any]
        ) -> None:
    """The issue's attack: 400 repeated task ranges of another user's pending 75,000-task
    array (5.9 s of work before the denial); now one permission check per job."""
    (theirs,) = submit(qm, BOB, array=[1, BIG, 1])
    counted = Counted(monkeypatch)
    rtype, body = request(qm, msg_type, {"targets": [{"job_id": theirs, "tasks": REPEATED}],
                                         **extra})
    assert rtype == "reply" and [r["result"] for r in body["results"]] == ["denied"]
    assert counted.calls == 0
    store = qm.server.store
    assert store.ranges[theirs].pending == [[1, BIG, 1]] and not store.ranges[theirs].holds
    assert store.jobs[theirs].priority == 0


def test_qmod_of_another_users_array_is_one_refusal(qm: Harness,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    (theirs,) = submit(qm, BOB, array=[1, BIG, 1])
    counted = Counted(monkeypatch)
    rtype, body = request(qm, "qmod", {"items": [
        {"action": "suspend", "scope": "job", "ref": str(theirs), "tasks": REPEATED[:64]}]})
    assert rtype == "reply" and counted.calls == 0
    assert [a["text"] for a in body["answers"]] == [
        f'alice - you have no permission to modify job "{theirs}"']


def test_repeated_ranges_of_ones_own_array_are_merged_before_the_work(
        qm: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    (mine,) = submit(qm, ALICE, array=[1, 100, 1])
    seen: list[list[list[int]]] = []
    original = tr.split
    monkeypatch.setattr(tr, "split", lambda have, wanted: (seen.append(wanted),
                                                           original(have, wanted))[1])
    body = qm.call("delete", {"user": ALICE.to_dict(),
                              "targets": [{"job_id": mine, "tasks": [[5, 9, 1]] * 400
                                           + [[7, 12, 1]]}]})
    assert seen and all(w == [[5, 12, 1]] for w in seen)  # merged once, before any work
    assert [r["task_id"] for r in body["results"]] == list(range(5, 13))


def test_a_task_list_that_stays_long_after_merging_is_refused(qm: Harness) -> None:
    (mine,) = submit(qm, ALICE, array=[1, 1000, 1])
    apart = [[t, t, 1] for t in range(1, 2 * tr.MAX_REQUEST_RANGES + 3, 2)]
    rtype, body = request(qm, "hold", {"targets": [{"job_id": mine, "tasks": apart}],
                                       "hold_type": "u"})
    assert rtype == "error" and body["code"] == "malformed"
    assert f"more than {tr.MAX_REQUEST_RANGES} task ranges" in body["message"]
    assert not qm.server.store.ranges[mine].holds


def test_targets_of_no_job_and_name_patterns_are_worked_through_in_parts(
        qm: Harness) -> None:
    """65,536 ids of no job, or name patterns (each a walk over every job), answer in
    parts like a request naming many jobs (the client goes on where a part stopped)."""
    targets = [{"job_id": 10 ** 6 + i} for i in range(jobs.REQUEST_JOBS + 5)]
    body = qm.call("delete", {"user": ALICE.to_dict(), "targets": targets})
    assert body["resume"] == {"target": jobs.REQUEST_JOBS}
    assert len(body["results"]) == jobs.REQUEST_JOBS
    names = [{"name": f"x{i}*"} for i in range(jobs.REQUEST_NAME_SCANS + 3)]
    body = qm.call("delete", {"user": ALICE.to_dict(), "targets": names})
    assert body["resume"] == {"target": jobs.REQUEST_NAME_SCANS}


ranges_lists = st.lists(st.tuples(st.integers(1, 80), st.integers(0, 40), st.integers(1, 6)),
                        max_size=30).map(lambda rs: [[a, a + b, s] for a, b, s in rs])


@given(ranges_lists)
def test_merged_ranges_name_the_same_ids(ranges: list[list[int]]) -> None:
    out = tr.merged(ranges)
    assert set(tr.ids(out)) == {t for a, b, s in ranges for t in range(a, b + 1, s)}
    assert len(out) <= len({tuple(tr.normalized(*r)) for r in ranges})
    assert out == sorted(out)
    assert tr.merged(ranges * 5) == out  # repeats collapse


def test_overlapping_and_touching_ranges_merge() -> None:
    assert tr.merged([[2, 74999, 1]] * 400) == [[2, 74999, 1]]
    assert tr.merged([[1, 5, 1], [6, 9, 1], [3, 3, 1], [1, 9, 2], [11, 11, 1],
                      [20, 30, 5], [35, 40, 5]]) == [[1, 9, 1], [11, 11, 1], [20, 40, 5]]


# ---- 2b: frames bounded before they are unpacked -------------------------------------
def _frame(msg_type: str, body: bytes) -> bytes:
    """A message frame whose body is ``body`` (packed by hand: any bytes)."""
    return (b"\x84\xa1v\x01\xa1t" + bytes((0xA0 | len(msg_type),)) + msg_type.encode()
            + b"\xa2id\x07\xa1b" + body)


def _empty_lists(count: int) -> bytes:
    """``{"x": [[...], ...]}``: ``count`` empty lists in lists of 65,536, so that no one
    list is longer than msgpack's per-field limit lets through."""
    from common import wire
    per = 1 << 16
    inner = wire.pack([[] for _ in range(per)])
    outer = count // per
    return b"\x81\xa1x\xdc" + outer.to_bytes(2, "big") + inner * outer


def test_a_large_frame_of_another_type_than_submit_is_refused_unpacked(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from common import wire
    frame = _frame("wait", _empty_lists(8 << 20))  # the 8 MB frame
    assert len(frame) > wire.MAX_REQUEST_BYTES
    unpacked: list[bytes] = []
    monkeypatch.setattr(wire, "_unpack_bounded", lambda f: unpacked.append(f))
    monkeypatch.setattr(wire, "_unpackb", lambda f: unpacked.append(f))
    with pytest.raises(wire.WireError) as err:
        wire.decode(frame, from_user=True)
    assert err.value.code == "too_large" and "other than a submit" in err.value.message
    assert not unpacked


def test_a_submit_frame_of_many_small_lists_is_refused_at_the_values_cap(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from common import wire
    monkeypatch.setattr(wire, "MAX_REQUEST_VALUES", 1 << 16)
    made: list[int] = []
    original = wire._msgpack().unpackb

    def unpackb(frame: bytes, **kw: Any) -> Any:
        hook = kw["list_hook"]
        kw["list_hook"] = lambda value: (made.append(1), hook(value))[1]
        return original(frame, **kw)

    monkeypatch.setattr(wire._msgpack(), "unpackb", unpackb)
    with pytest.raises(wire.WireError) as err:
        wire.decode(_frame("submit", _empty_lists(1 << 20)), from_user=True)
    assert err.value.code == "too_large" and "values" in err.value.message
    assert len(made) <= (1 << 16) + 2  # stopped at the cap, not at the millionth list


def test_msgpack_refuses_a_field_past_its_limit() -> None:
    from common import wire
    frame = _frame("wait", b"\x81\xa1x\xdd" + (1 << 17 + 1).to_bytes(4, "big")
                   + b"\xc0" * (1 << 18))
    with pytest.raises(wire.WireError) as err:
        wire.decode(frame, from_user=True)
    assert err.value.code in ("malformed", "too_large")


def test_a_daemons_frame_and_a_real_bulk_submit_pass() -> None:
    from common import wire
    script = b"#!/bin/sh\n" + b"#" * 300
    plain = job_request("/bin/true", script=script, hold=True, priority=-3, job_name="x")
    frame = wire.encode("submit", {"user": ALICE.to_dict(),
                                   "jobs": [plain] * wire.MAX_SUBMIT_JOBS})
    assert len(frame) > wire.MAX_REQUEST_BYTES
    assert len(wire.decode(frame, from_user=True)[2]["jobs"]) == wire.MAX_SUBMIT_JOBS
    env = {f"VAR{i}": "x" * 20 for i in range(100)}  # about what qsub -V carries
    frame = wire.encode("submit", {"user": ALICE.to_dict(), "jobs": [
        job_request("/bin/true", binary=True, env=env)] * 1000})
    assert len(wire.decode(frame, from_user=True)[2]["jobs"]) == 1000
    load = {f"l{i}": "y" * 300 for i in range(4000)}
    report = wire.encode("load_report", {"host": "h1", "load": load})
    assert len(report) > wire.MAX_REQUEST_BYTES
    assert wire.decode(report)[0] == "load_report"


def test_the_qmaster_refuses_a_large_frame_from_a_user_and_keeps_answering(
        qm: Harness) -> None:
    from common import wire
    from tests.proven import process
    process(qm.server, [[b"attacker", _frame("wait", _empty_lists(2 << 20))]])
    rtype, _rid, body = wire.decode(qm.router.sent[-1][1])
    assert rtype == "error" and body["code"] == "too_large"
    assert qm.call("ping", {})["epoch"]


# ---- 2c: waiters merged and capped per user ------------------------------------------
def _send_many(qm: Harness, msg_type: str, bodies: list[dict[str, Any]],
               identity: bytes) -> list[int]:
    """Requests sent as one batch of the loop (as a flood arrives); their request ids."""
    from common import wire
    from tests.proven import process
    first = qm.rid + 1
    qm.rid += len(bodies)
    process(qm.server, [[identity, wire.encode(msg_type, body, first + i)]
                        for i, body in enumerate(bodies)])
    return list(range(first, first + len(bodies)))


def test_waits_on_one_job_are_one_entry_capped_per_user(qm: Harness) -> None:
    from common import wire
    from qmaster.context import MAX_USER_WAITS
    (held,) = submit(qm, ALICE, hold=True)
    body = {"user": ALICE.to_dict(), "job_ids": [held]}
    rids = _send_many(qm, "wait", [body] * (MAX_USER_WAITS + 50), b"flood")
    waiters = qm.server.services.waiters
    assert len(waiters.by_jobs) == 1 and len(waiters) == MAX_USER_WAITS
    refused = [wire.decode(p) for i, p in qm.router.sent if i == b"flood"]
    assert [r[1] for r in refused] == rids[MAX_USER_WAITS:]
    assert all(r[0] == "error" and r[2]["message"] == (
        f'denied: user "alice" already waits for jobs with {MAX_USER_WAITS} requests, '
        "the most one user may have; wait for them to end") for r in refused)
    # another user still waits; the job's end answers every request once
    (bobs,) = _send_many(qm, "wait", [{"user": BOB.to_dict(), "job_ids": [held]}], b"bob")
    qm.router.sent.clear()
    qm.call("delete", {"user": ALICE.to_dict(), "targets": [{"job_id": held}]})
    answered = [wire.decode(p)[1] for i, p in qm.router.sent if i in (b"flood", b"bob")]
    assert sorted(answered) == rids[:MAX_USER_WAITS] + [bobs]
    assert len(waiters) == 0 and not waiters.by_jobs and not waiters.by_job
    (other,) = submit(qm, ALICE, hold=True)  # the count went down with the answers
    _send_many(qm, "wait", [{**body, "job_ids": [other]}], b"again")
    assert not [p for i, p in qm.router.sent if i == b"again"] and len(waiters) == 1


def test_a_finished_job_costs_only_the_waits_on_it(qm: Harness) -> None:
    a, b = submit(qm, ALICE, count=2, hold=True)
    _send_many(qm, "wait", [{"user": ALICE.to_dict(), "job_ids": [a]}] * 300, b"w1")
    _send_many(qm, "wait", [{"user": ALICE.to_dict(), "job_ids": [a, b]}], b"w2")
    waiters = qm.server.services.waiters
    assert waiters.finished({b}) == []  # (a's wait untouched: not even looked at)
    assert set(waiters.by_job) == {a} and len(waiters.by_jobs) == 2


def test_a_refused_requests_waits_are_taken_back() -> None:
    from qmaster.context import Waiters
    waiters = Waiters()
    waiters.add(b"a", 1, "alice", frozenset({5}), {5})
    point = waiters.savepoint()
    waiters.add(b"a", 2, "alice", frozenset({5}), {5})
    waiters.add(b"b", 3, "bob", frozenset({5, 6}), {5, 6})
    waiters.rollback(point)
    assert len(waiters) == 1 and set(waiters.by_jobs) == {frozenset({5})}
    assert waiters.by_job == {5: {frozenset({5})}} and waiters.per_user == {"alice": 1}


# ---- 3: max_u_jobs, max_jobs, script size, spool quota -------------------------------
def set_global(qm: Harness, **values: str) -> None:
    conf = qm.call("conf_get", {"user": ROOT.to_dict(), "kind": "conf"})["objects"]["global"]
    pairs = [[k, values.pop(k, v)] for k, v in conf] + [[k, v] for k, v in values.items()]
    qm.call("conf_put", {"user": ROOT.to_dict(), "kind": "conf", "name": "global",
                         "data": pairs, "mode": "modify"})


def refusal(qm: Harness, user: Any = ALICE, count: int = 1, **opts: Any) -> str:
    rtype, body = request(qm, "submit", {"jobs": [
        job_request("/bin/true", binary=True, **opts)] * count}, user)
    assert rtype == "error", body
    return str(body["message"])


def test_max_u_jobs_and_max_jobs_hold_at_submission(qm: Harness) -> None:
    """The issue's reproduction: max_u_jobs 2 and max_jobs 3, five qsub -h accepted."""
    set_global(qm, max_u_jobs="2", max_jobs="3")
    mine = submit(qm, ALICE, hold=True) + submit(qm, ALICE, hold=True, array=[1, 100, 1])
    assert refusal(qm, ALICE, hold=True) == (
        "job rejected: Only 2 jobs are allowed per user (current job count: 2)")
    theirs = submit(qm, BOB, hold=True)
    assert refusal(qm, BOB, hold=True) == "job rejected: Only 3 jobs are allowed per cluster"
    assert refusal(qm, ALICE, hold=True) == "job rejected: Only 3 jobs are allowed per cluster"
    assert set(qm.server.store.jobs) == {*mine, *theirs}
    # a job that ends frees its place; a refused bulk submit adds none of its jobs
    qm.call("delete", {"user": ALICE.to_dict(), "targets": [{"job_id": mine[0]}]})
    assert refusal(qm, ALICE, count=2, hold=True) == (
        "jobs[1]: job rejected: Only 3 jobs are allowed per cluster")
    assert len(submit(qm, ALICE, hold=True)) == 1


def test_a_verification_is_not_counted_against_max_u_jobs(qm: Harness) -> None:
    set_global(qm, max_u_jobs="1")
    qm.register("h1")
    submit(qm, ALICE, hold=True)
    reply = qm.call("submit", {"user": ALICE.to_dict(), "jobs": [
        job_request("/bin/true", binary=True, verify_mode="v")]})
    assert reply["job_ids"] == [] and reply["verification"]
    assert refusal(qm, ALICE) == (
        "job rejected: Only 1 jobs are allowed per user (current job count: 1)")


def test_the_script_size_and_the_users_spool_quota_hold(qm: Harness) -> None:
    set_global(qm, qmaster_params="MAX_SCRIPT_SIZE=1K,MAX_USER_SPOOL=3K")
    script = b"#!/bin/sh\n" + b"#" * 1000
    assert refusal(qm, ALICE, script=script + b"#" * 100) == (
        "job rejected: the job script has 1110 bytes, more than the 1024 bytes allowed "
        "(qmaster_params MAX_SCRIPT_SIZE)")
    mine = submit(qm, ALICE, count=3, script=script, hold=True)
    assert refusal(qm, ALICE, script=script) == (
        'job rejected: the unfinished jobs of user "alice" would spool 4040 bytes of '
        "scripts, more than the 3072 bytes allowed (qmaster_params MAX_USER_SPOOL)")
    assert submit(qm, BOB, script=script, hold=True)  # a quota per user
    qm.call("delete", {"user": ALICE.to_dict(), "targets": [{"job_id": mine[0]}]})
    assert submit(qm, ALICE, script=script, hold=True)


def test_the_counts_are_the_spools_after_a_restart(tmp_path: Path) -> None:
    qm = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    submit(qm, ALICE, count=2, script=b"echo\n", hold=True)
    (gone,) = submit(qm, BOB, hold=True)
    qm.call("delete", {"user": BOB.to_dict(), "targets": [{"job_id": gone}]})
    before = dict(qm.server.store.active_jobs)
    assert before == {"alice": (2, 10)}
    again = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    assert again.server.store.active_jobs == before


def test_qconf_refuses_a_submit_param_that_is_not_memory(qm: Harness) -> None:
    with pytest.raises(RuntimeError, match='MAX_USER_SPOOL "lots" is not memory'):
        set_global(qm, qmaster_params="MAX_USER_SPOOL=lots")


# ---- 2e: log lines a user can cause are rate-limited ---------------------------------
class Lines:
    """A logger that keeps its lines."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, str, dict[str, Any]]] = []

    def __getattr__(self, level: str) -> Any:
        return lambda event, **kw: self.lines.append((level, event, kw))


def test_a_flood_of_refused_frames_writes_a_burst_of_lines(tmp_path: Path) -> None:
    from qmaster import log_limit
    from tests.proven import process
    lines = Lines()
    qm = Harness(tmp_path, log=lines)
    qm.server.log._clock = lambda: 0.0  # (no refill while the flood is worked through)
    process(qm.server, [[b"x", b"\xc1"]] * 5000)  # 5000 undecodable frames at once
    refused = [kw for level, event, kw in lines.lines if event == "refused message"]
    assert len(refused) == log_limit.BURST
    assert len(qm.router.sent) == 5000  # each still answered


def test_the_limit_lets_lines_through_again_and_says_how_many_it_left_out() -> None:
    from qmaster.log_limit import LimitedLog, Limiter
    lines, now = Lines(), [0.0]
    log = LimitedLog(lines, Limiter(burst=3, rate=1.0), clock=lambda: now[0])
    for _ in range(10):
        log.warning("refused message", code="malformed")
    log.info("other event")  # its own bucket
    now[0] = 2.0
    log.warning("refused message", code="malformed")
    assert [(e, kw.get("suppressed")) for _, e, kw in lines.lines] == [
        ("refused message", None)] * 3 + [("other event", None), ("refused message", 7)]


# ---- 2d: holds on some pending tasks stay range records -------------------------------
def test_qhold_of_most_of_ones_own_large_array_writes_no_task_record(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The issue's qhold -t 2-75000: a record per task before; now the pending ids stay
    ranges, and no id is walked on the way (the work does not grow with the array)."""
    from tests.unit.test_array_ranges import qstat_rows, spooled
    qm = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    (job,) = submit(qm, ALICE, array=[1, BIG, 1])
    counted = Counted(monkeypatch)
    monkeypatch.setattr(tr, "ids", lambda *_: pytest.fail("an id walk"))
    body = qm.call("hold", {"user": ALICE.to_dict(), "hold_type": "u",
                            "targets": [{"job_id": job, "tasks": [[2, BIG, 1]]}]})
    monkeypatch.undo()
    assert body["results"] == [{"job_id": job, "result": "modified",
                                "task_ranges": [[2, BIG, 1]]}]
    store = qm.server.store
    assert store.enrolled[job] == {} and not spooled(tmp_path, "task")
    assert store.ranges[job].pending == [[1, 1, 1]] and not store.ranges[job].holds
    assert store.held[job] == [[[[2, BIG, 1]], ["u"]]] and len(spooled(tmp_path, "held")) == 1
    assert counted.calls <= 4  # (the selection's few calls, none per task)
    assert [(r["state"], r["pending_tasks"]) for r in qstat_rows(qm)] == [
        ("qw", "1"), ("hqw", f"2-{BIG}:1")]


def test_held_ranges_are_not_dispatched_and_come_back_when_released(qm: Harness) -> None:
    from tests.unit.test_array_ranges import order
    qm.register("h1")
    (job,) = submit(qm, ALICE, array=[1, 20, 1])
    qm.call("hold", {"user": ALICE.to_dict(), "hold_type": "u",
                     "targets": [{"job_id": job, "tasks": [[5, 10, 1]]}]})
    store = qm.server.store
    version = store.ranges[job].version
    reply = qm.call("orders", {"orders": [order(job, 7, version), order(job, 1, version)]})
    assert reply["accepted"] == 1 and len(reply["refused"]) == 1, reply
    # an operator hold on some of the held ids: a group of its own
    qm.call("hold", {"user": ROOT.to_dict(), "hold_type": "o",
                     "targets": [{"job_id": job, "tasks": [[9, 12, 1]]}]})
    assert store.held[job] == [[[[11, 12, 1]], ["o"]], [[[9, 10, 1]], ["o", "u"]],
                               [[[5, 8, 1]], ["u"]]]
    qm.call("release", {"user": ALICE.to_dict(), "hold_type": "u",
                        "targets": [{"job_id": job, "tasks": [[1, 20, 1]]}]})
    assert store.held[job] == [[[[9, 12, 1]], ["o"]]]
    assert store.ranges[job].pending == [[2, 8, 1], [13, 20, 1]]
    qm.call("release", {"user": ROOT.to_dict(), "hold_type": "o", "targets": [{"job_id": job}]})
    assert job not in store.held and store.ranges[job].pending == [[2, 20, 1]]
    assert store.enrolled[job].keys() == {1}


def test_a_held_range_survives_a_restart_and_a_qdel_of_some_of_it(tmp_path: Path) -> None:
    qm = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    (job,) = submit(qm, ALICE, array=[1, 100, 1])
    qm.call("hold", {"user": ALICE.to_dict(), "hold_type": "u",
                     "targets": [{"job_id": job, "tasks": [[50, 100, 1]]}]})
    again = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    store = again.server.store
    assert store.held[job] == [[[[50, 100, 1]], ["u"]]] and store.unfinished[job] == 100
    again.call("delete", {"user": ALICE.to_dict(),
                          "targets": [{"job_id": job, "tasks": [[60, 60, 1]]}]})
    assert store.held[job] == [[[[50, 59, 1], [61, 100, 1]], ["u"]]]
    assert store.unfinished[job] == 99
    again.call("delete", {"user": ALICE.to_dict(), "targets": [{"job_id": job}]})
    assert store.job_finished(job) and job not in store.held


def test_a_flood_is_answered_in_time_slices(qm: Harness,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch is committed and answered once it has taken BATCH_SECONDS: another
    user's request received with a flood is answered after a slice, not the flood."""
    from qmaster import server
    commits: list[int] = []
    original = qm.server.spool.commit
    monkeypatch.setattr(qm.server.spool, "commit",
                        lambda txn: (commits.append(len(qm.router.sent)), original(txn)))
    (held,) = submit(qm, ALICE, hold=True)
    commits.clear()
    _send_many(qm, "wait", [{"user": ALICE.to_dict(), "job_ids": [held]}] * 3, b"w")
    assert len(commits) == 1  # quick requests: one batch
    monkeypatch.setattr(server, "BATCH_SECONDS", -1.0)  # every request over its slice
    commits.clear()
    base = len(qm.router.sent)
    _send_many(qm, "job_query", [{"user": BOB.to_dict()}] * 3, b"q")
    assert commits == [base, base + 1, base + 2]  # each answered before the next is read


def test_a_frames_type_is_read_from_its_first_bytes_only() -> None:
    from common import wire
    from tests.hostile import empty_lists
    assert wire._frame_type(empty_lists("submit", 4 << 20)) == "submit"
    assert wire._frame_type(wire.encode("wait", {"job_ids": [1] * 100000})) == "wait"
    body_first = wire.pack({"b": {"x": [[]] * 70000}, "t": "submit", "v": 1, "id": 1})
    assert wire._frame_type(body_first) is None
    with pytest.raises(wire.WireError) as err:
        wire.decode(body_first * 20, from_user=True)
    assert err.value.code == "too_large"


def test_a_floods_messages_take_turns_with_everybody_elses() -> None:
    from qmaster.server import Incoming, Turns
    sent = [Incoming(who, None, None, bytes([n])) for who, n in
            [(b"flood", 1), (b"flood", 2), (b"flood", 3), (b"other", 4)]]
    turns = Turns(sent)
    first = [turns.next().payload for _ in range(2)]
    turns.add([Incoming(b"late", None, None, b"\x05")])
    rest = []
    while turns:
        rest.append(turns.next().payload)
    assert first + rest == [b"\x01", b"\x04", b"\x02", b"\x05", b"\x03"]


def test_qhold_reads_the_tasks_an_answer_names_as_ranges() -> None:
    from types import SimpleNamespace
    from clients.jobctl import JobView
    from clients.qhold import HoldCommand
    view = JobView(7, "me", "array", True)
    for task_id in range(1, 6):
        view.states[task_id], view.holds[task_id] = "pending", set()
    client = SimpleNamespace(user=SimpleNamespace(name="me"), conf_get=lambda kind: [])
    answers = {"u": [{"job_id": 7, "result": "modified", "task_ranges": [[2, 4, 1]]}]}
    lines, code = HoldCommand(["u"], True).decide(client, view, 7, answers)  # type: ignore
    assert code == 0 and lines == [f"modified hold of job-array task 7.{t}" for t in (2, 3, 4)]


def test_qdel_of_most_of_ones_own_large_array_writes_no_task_record(tmp_path: Path) -> None:
    """qdel -t 2-75000: each id was enrolled and deleted one by one (71 s on a busy
    machine); now they leave the pending ranges for the deleted ones at once."""
    from tests.unit.test_array_ranges import qstat_rows, spooled
    qm = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    (job,) = submit(qm, ALICE, array=[1, BIG, 1], hold=True)
    qm.call("hold", {"user": ALICE.to_dict(), "hold_type": "u",
                     "targets": [{"job_id": job, "tasks": [[10, 20, 1]]}]})
    body = qm.call("delete", {"user": ALICE.to_dict(),
                              "targets": [{"job_id": job, "tasks": [[2, BIG, 1]]}]})
    assert [r["task_id"] for r in body["results"]] == list(range(2, BIG + 1))
    store = qm.server.store
    assert store.enrolled[job] == {} and not spooled(tmp_path, "task")
    assert store.ranges[job].pending == [[1, 1, 1]] and job not in store.held
    assert store.ranges[job].deleted == [[2, BIG, 1]] and store.unfinished[job] == 1
    assert [(r["state"], r["pending_tasks"]) for r in qstat_rows(qm)][0] == ("hqw", "1")


def test_a_qmod_names_at_most_so_many_items(qm: Harness) -> None:
    from common import wire
    item = {"action": "suspend", "scope": "job", "ref": "12345"}
    rtype, body = request(qm, "qmod", {"items": [item] * (wire.MAX_QMOD_ITEMS + 1)})
    assert rtype == "error" and body["code"] == "malformed" and "4096" in body["message"]
    rtype, body = request(qm, "qmod", {"items": [item] * wire.MAX_QMOD_ITEMS})
    assert rtype == "reply" and len(body["answers"]) == wire.MAX_QMOD_ITEMS


def test_the_jobs_a_users_waits_name_are_capped_in_all() -> None:
    from qmaster.context import MAX_USER_WAIT_IDS, RequestError, Waiters
    waiters = Waiters()
    many = frozenset(range(1, MAX_USER_WAIT_IDS // 2 + 1))
    waiters.add(b"a", 1, "alice", many, set(many))
    waiters.add(b"a", 2, "alice", many, set(many))
    with pytest.raises(RequestError, match="more than the 131072 one user may wait for"):
        waiters.add(b"a", 3, "alice", frozenset({1}), {1})
    waiters.add(b"b", 4, "bob", frozenset({1}), {1})  # per user
    assert len(waiters.finished(set(many))) == 2 and "alice" not in waiters.per_user_ids
    waiters.add(b"a", 5, "alice", frozenset({1}), {1})
