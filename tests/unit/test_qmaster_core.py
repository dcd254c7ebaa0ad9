"""The qmaster without sockets: handlers, batches, spool and reload, order validation."""
from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

from clients.api import job_request
from common import wire
from common.accounting import parse_line, read_records
from common.cell import Cell
from common.model import UserInfo
from qmaster.server import QmasterServer
from tests.proven import process

# requests come from the qmaster's own host, an administrative and submit host of a new
# cell (qmaster.host_rights), as a local client's do
QM_HOST = "qm"
ROOT = UserInfo("root", 0, "root", 0, QM_HOST)
ALICE = UserInfo("alice", 1001, "users", 100, QM_HOST)
BOB = UserInfo("bob", 1002, "users", 100, QM_HOST)


class FakeSocket:
    def __init__(self) -> None:
        self.sent: list[list[bytes]] = []

    def send_multipart(self, frames: list[bytes], **_: Any) -> None:
        self.sent.append(frames)


class Harness:
    def __init__(self, root: Path, **kw: Any) -> None:
        self.cell = Cell(root)
        self.server = QmasterServer(self.cell, host=QM_HOST, managers=["root"], min_uid=0, **kw)
        self.server.load()
        self.router, self.pub = FakeSocket(), FakeSocket()
        self.server.router, self.server.pub = self.router, self.pub  # type: ignore[assignment]
        self.rid = 0

    def send(self, msg_type: str, body: dict[str, Any], identity: bytes = b"c") -> int:
        self.rid += 1
        process(self.server, [[identity, wire.encode(msg_type, body, self.rid)]])
        return self.rid

    def call(self, msg_type: str, body: dict[str, Any], identity: bytes = b"c") -> dict[str, Any]:
        rid = self.send(msg_type, body, identity)
        for ident, payload in reversed(self.router.sent):
            rtype, reply_id, rbody = wire.decode(payload)
            if ident == identity and reply_id == rid:
                if rtype == "error":
                    raise RuntimeError(rbody["message"])
                return rbody
        raise AssertionError("no reply")

    def submit(self, user: UserInfo = ALICE, **opts: Any) -> int:
        req = job_request("/bin/true", binary=True, **opts)
        return self.call("submit", {"user": user.to_dict(), "jobs": [req]})["job_ids"][0]

    def tasks(self, job_id: int) -> list[dict[str, Any]]:
        reply = self.call("job_query", {"user": ALICE.to_dict(), "job_ids": [job_id],
                                        "include_finished": True})
        return reply["tasks"]

    def register(self, host: str = "h1", num_proc: str = "2") -> None:
        self.call("register", {"host": host, "load": {"num_proc": num_proc}, "jobs": []},
                  identity=b"execd:" + host.encode())

    def dispatch(self, job_id: int, task_id: int = 1, host: str = "h1", slots: int = 1
                 ) -> dict[str, Any]:
        task = [t for t in self.tasks(job_id) if t["task_id"] == task_id][0]
        order = {"type": "dispatch", "job_id": job_id, "task_id": task_id,
                 "task_version": task["version"], "granted": [["all.q", host, slots]]}
        return self.call("orders", {"orders": [order]})


@pytest.fixture
def qm(tmp_path: Path) -> Harness:
    return Harness(tmp_path, auto_add_hosts=True, default_slots=2)


def test_new_cell_has_grid_engine_defaults(qm: Harness) -> None:
    store = qm.server.store
    assert set(store.conf["queue"]) == {"all.q"}
    assert set(store.conf["pe"]) == {"make", "smp", "mpi"}
    assert store.lists["manager"] == ["root"]
    assert store.conf_value("queue", "all.q", "hostlist") == "@allhosts"


def test_job_ids_persist_across_restart(qm: Harness, tmp_path: Path) -> None:
    ids = [qm.submit() for _ in range(3)]
    assert ids == [1, 2, 3]
    qm.server.spool.close()
    again = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    assert again.submit() == 4
    assert set(again.server.store.jobs) == {1, 2, 3, 4}


def test_min_uid_refuses_with_grid_engine_text(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.server.store.conf["conf"]["global"] = [["min_uid", "1000"], ["min_gid", "1000"]]
    with pytest.raises(RuntimeError, match="your user id 0 is lower than minimum user id 1000"):
        h.submit(ROOT)


def test_dispatch_order_runs_the_job_and_refuses_stale_or_overbooked(qm: Harness) -> None:
    qm.register("h1")
    first, second, third = qm.submit(), qm.submit(), qm.submit()
    assert qm.dispatch(first)["accepted"] == 1
    assert qm.tasks(first)[0]["state"] == "transferring"
    start = [wire.decode(f[1]) for f in qm.router.sent if f[0] == b"execd:h1"]
    assert any(m[0] == "start_job" and m[2]["job_id"] == first for m in start)
    assert qm.dispatch(second)["accepted"] == 1
    refused = qm.dispatch(third)
    assert refused["accepted"] == 0 and "not enough free slots" in refused["refused"][0]["reason"]
    stale = {"type": "dispatch", "job_id": third, "task_id": 1, "task_version": 0,
             "granted": [["all.q", "h1", 1]]}
    assert qm.call("orders", {"orders": [stale]})["refused"]


def test_finish_writes_accounting_once_and_frees_slots(qm: Harness) -> None:
    qm.register("h1")
    job = qm.submit()
    qm.dispatch(job)
    body = {"host": "h1", "job_id": job, "task_id": 1, "start_time": 100.0}
    qm.call("job_started", body, identity=b"execd:h1")
    result = {"exit_status": 3, "signal": 0, "failed": 0, "start_time": 100.0,
              "end_time": 101.5, "ru_utime": 0.25, "ru_stime": 0.5}
    finish = {"host": "h1", "job_id": job, "task_id": 1, "result": result}
    for _ in range(3):  # repeated reports must not duplicate anything
        qm.call("job_finished", finish, identity=b"execd:h1")
    records = read_records(qm.cell.accounting_path)
    assert [(r.job_number, r.exit_status, r.hostname) for r in records] == [(job, 3, "h1")]
    assert qm.server.store.used_slots[("all.q", "h1")] == 0
    assert qm.tasks(job)[0]["state"] == "finished"


def test_an_accounting_record_leaves_the_spool_once_the_file_is_synced(qm: Harness) -> None:
    """The accounting file is appended at once but fsynced at most every
    ACCOUNTING_SYNC_SECONDS; until then the record stays spooled (a qmaster that dies
    meanwhile appends it at its next start if the file lacks it)."""
    qm.register("h1")
    job = qm.submit()
    qm.dispatch(job)
    qm.call("job_started", {"host": "h1", "job_id": job, "task_id": 1, "start_time": 100.0},
            identity=b"execd:h1")
    result = {"exit_status": 0, "signal": 0, "failed": 0, "start_time": 100.0,
              "end_time": 101.0}
    qm.call("job_finished", {"host": "h1", "job_id": job, "task_id": 1, "result": result},
            identity=b"execd:h1")
    assert [r.job_number for r in read_records(qm.cell.accounting_path)] == [job]
    qm.call("ping", {}, identity=b"execd:h1")  # (a batch: nothing synced yet)
    assert f"{job}.1" in qm.server.spool.load()[0].get("acct", {})
    qm.server._acct_unsynced.every = 0.0  # the time has come
    qm.call("ping", {}, identity=b"execd:h1")  # synced; the spooled copy goes next
    qm.call("ping", {}, identity=b"execd:h1")
    assert f"{job}.1" not in qm.server.spool.load()[0].get("acct", {})
    assert [r.job_number for r in read_records(qm.cell.accounting_path)] == [job]


def _finished_job(qm: Harness) -> int:
    qm.register("h1")
    job = qm.submit()
    qm.dispatch(job)
    result = {"exit_status": 0, "signal": 0, "failed": 0, "start_time": 1.0, "end_time": 2.0}
    qm.call("job_finished", {"host": "h1", "job_id": job, "task_id": 1, "result": result},
            identity=b"execd:h1")
    return job


def test_a_restart_syncs_records_a_dead_qmaster_appended_but_never_synced(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A qmaster that dies between appending a record and syncing the file leaves it
    spooled; the next one finds it in the file (no duplicate) and syncs the file before
    the spooled copy goes."""
    import os
    first = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    job = _finished_job(first)
    assert first.server._acct_unsynced.written  # appended, not yet synced: then it dies
    synced: list[int] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append(os.fstat(fd).st_ino)
        real_fsync(fd)
    monkeypatch.setattr(os, "fsync", fsync)
    again = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    assert again.cell.accounting_path.stat().st_ino in synced
    assert [r.job_number for r in read_records(again.cell.accounting_path)] == [job]


def test_a_record_cut_short_by_a_power_cut_does_not_swallow_the_recovered_ones(
        tmp_path: Path) -> None:
    first = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    job = _finished_job(first)
    path = first.cell.accounting_path
    path.write_text(path.read_text().rsplit("\n", 2)[0] + "\nall.q:vm:ro")  # torn
    Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    lines = path.read_text().splitlines()
    assert lines[-2] == "all.q:vm:ro"  # (the torn line stays, alone: qacct skips it)
    record = parse_line(lines[-1] + "\n")
    assert record is not None and record.job_number == job


def test_appended_records_are_synced_in_the_file_they_went_to(tmp_path: Path) -> None:
    """A file renamed (rotated) before the sync is synced through the descriptor its
    records went in by; records whose file was removed are written again."""
    from qmaster.accounting_log import Unsynced
    path = tmp_path / "accounting"
    record = {"qname": "all.q", "hostname": "h1", "group": "g", "owner": "o",
              "job_name": "j", "job_number": 7, "task_number": 0}
    pending = Unsynced(path, every=1.0)
    pending.append([record], now=10.0)
    assert pending.synced(10.5) == []  # not yet
    pending.append([{**record, "job_number": 70}], now=10.5)
    assert len(pending.written) == 1  # (the same file: one descriptor held)
    path.rename(tmp_path / "accounting.1")  # (logrotate)
    pending.append([{**record, "job_number": 8}], now=10.6)
    assert len(pending.written) == 2
    assert [r["job_number"] for r in pending.synced(11.0)] == [7, 70, 8]
    assert [r.job_number for r in read_records(tmp_path / "accounting.1")] == [7, 70]
    assert [r.job_number for r in read_records(path)] == [8]
    pending.append([{**record, "job_number": 9}], now=12.0)
    path.unlink()  # removed before it was synced: written again
    assert [r["job_number"] for r in pending.synced(20.0, force=True)] == [9]
    assert [r.job_number for r in read_records(path)] == [9]
    assert pending.synced(30.0, force=True) == []


def test_wait_is_answered_when_the_job_ends(qm: Harness) -> None:
    qm.register("h1")
    job = qm.submit()
    rid = qm.send("wait", {"user": ALICE.to_dict(), "job_ids": [job]}, identity=b"w")
    assert not any(f[0] == b"w" for f in qm.router.sent)
    qm.dispatch(job)
    qm.call("job_finished", {"host": "h1", "job_id": job, "task_id": 1,
                             "result": {"exit_status": 0}}, identity=b"execd:h1")
    replies = [wire.decode(f[1]) for f in qm.router.sent if f[0] == b"w"]
    assert replies and replies[-1][1] == rid
    assert replies[-1][2]["jobs"][job][0]["exit_status"] == 0


def test_only_owner_or_operator_may_delete_or_hold(qm: Harness) -> None:
    job = qm.submit(ALICE)
    target = {"targets": [{"job_id": job}]}
    denied = qm.call("delete", {"user": BOB.to_dict(), **target})["results"]
    assert denied[0]["result"] == "denied"
    held = qm.call("hold", {"user": BOB.to_dict(), "hold_type": "u", **target})["results"]
    assert held[0]["result"] == "denied"
    assert qm.call("hold", {"user": ALICE.to_dict(), "hold_type": "o", **target}
                   )["results"][0]["result"] == "denied"
    assert qm.call("hold", {"user": ROOT.to_dict(), "hold_type": "o", **target}
                   )["results"][0]["result"] == "modified"
    assert qm.tasks(job)[0]["state"] == "hold"
    ok = qm.call("delete", {"user": ALICE.to_dict(), **target})["results"]
    assert ok == [{"job_id": job, "task_id": None, "result": "deleted"}]


def test_hold_jid_waits_for_predecessor(qm: Harness) -> None:
    qm.register("h1")
    first = qm.submit(job_name="first")
    second = qm.submit(hold_jid=["first"])
    assert qm.tasks(second)[0]["holds"] == ["h"]
    qm.dispatch(first)
    qm.call("job_finished", {"host": "h1", "job_id": first, "task_id": 1,
                             "result": {"exit_status": 0}}, identity=b"execd:h1")
    assert qm.tasks(second)[0]["state"] == "pending"


def test_array_job_tasks(qm: Harness) -> None:
    job = qm.submit(array=[1, 10, 3])
    assert [t["task_id"] for t in qm.tasks(job)] == [1, 4, 7, 10]


def test_configuration_needs_a_manager(qm: Harness) -> None:
    pairs = [["group_name", "@web"], ["hostlist", "h1 h2"]]
    body = {"kind": "hgrp", "name": "@web", "data": pairs, "mode": "add"}
    with pytest.raises(RuntimeError, match="must be manager"):
        qm.call("conf_put", {"user": ALICE.to_dict(), **body})
    reply = qm.call("conf_put", {"user": ROOT.to_dict(), **body})
    assert reply["message"] == 'root@qm added "@web" to host group list'
    with pytest.raises(RuntimeError, match="already exists"):
        qm.call("conf_put", {"user": ROOT.to_dict(), **body})


def test_malformed_frames_get_error_replies(qm: Harness) -> None:
    process(qm.server, [[b"x", b"\xc1garbage"], [b"x", wire.encode("submit", {"user": {}})],
                        [b"a", b"b", b"c"]])
    errors = [wire.decode(f[1]) for f in qm.router.sent if f[0] == b"x"]
    assert [e[0] for e in errors] == ["error", "error"]
    assert qm.submit() == 1


def test_events_are_numbered_without_gaps(qm: Harness) -> None:
    for _ in range(3):
        qm.submit()
    seqs = [e["seq"] for frames in qm.pub.sent if frames[0] == wire.TOPIC_EVENTS
            for e in wire.decode_published(frames)[1]["events"]]
    assert seqs == list(range(1, len(seqs) + 1))
    snap = qm.call("snapshot", {})
    assert snap["seq"] == seqs[-1] and len(snap["jobs"]) == 3


def test_submission_checks_in_grid_engine_words(qm: Harness) -> None:
    qm.register("h1")
    cases = [({"hard_resources": {"foo": "1"}}, 'unknown resource "foo"'),
             ({"hard_resources": {"h_vmem": "12abc"}}, 'attribute "h_vmem" is not a memory value'),
             ({"priority": 10}, "positive submission priority requires operator privileges"),
             ({"pe": ["nosuchpe", 2, 2]}, 'parallel environment "nosuchpe" does not exist'),
             ({"verify_mode": "e", "hard_queues": ["nosuch.q"]}, 'unknown queue "nosuch.q"'),
             ({"verify_mode": "e", "pe": ["smp", 64, 64]}, "error: no suitable queues")]
    for opts, message in cases:
        with pytest.raises(RuntimeError, match=message):
            qm.submit(**opts)
    assert qm.submit(ROOT, priority=10) > 0
    verified = qm.call("submit", {"user": ALICE.to_dict(), "jobs": [
        job_request("/bin/true", binary=True, verify_mode="v")]})
    assert verified == {"job_ids": [], "verification": ["verification: found suitable queue(s)"]}


def test_forced_deletion_needs_a_manager_and_ends_the_task_at_once(qm: Harness) -> None:
    qm.register("h1")
    job = qm.submit()
    qm.dispatch(job)
    target = {"targets": [{"job_id": job}], "force": True}
    assert qm.call("delete", {"user": ALICE.to_dict(), **target})["results"] == [
        {"result": "force_denied"}]
    assert qm.tasks(job)[0]["state"] == "transferring"
    forced = qm.call("delete", {"user": ROOT.to_dict(), **target})["results"]
    assert forced == [{"job_id": job, "task_id": None, "result": "forced"}]
    assert qm.tasks(job)[0]["state"] == "finished"
    assert qm.server.store.used_slots[("all.q", "h1")] == 0
    assert [r.failed for r in read_records(qm.cell.accounting_path)] == [100]


def test_array_size_is_limited_by_max_aj_tasks(qm: Harness) -> None:
    with pytest.raises(RuntimeError, match="job rejected: you tried to submit a job with more "
                       "than 75000 tasks"):
        qm.submit(array=[1, 10**9, 1])
    assert qm.submit(array=[1, 75000, 1]) > 0


def _mails(qm: Harness) -> list[tuple[str, str, str]]:
    """(subject, recipient, first body line) of every mailer call queued so far (no
    event loop runs here: they wait in the sender's queue)."""
    return [(c.subject, c.recipient, c.stdin.decode().split("\n")[0])
            for c in qm.server.mail.queue]


def test_mail_at_begin_end_abort_and_suspend_goes_out_after_the_commit(
        qm: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """-m b/e/a/s: each event of the task queues its mail in the request's batch; the
    sender gets them only once the batch is committed."""
    qm.register("h1")
    committed: list[int] = []
    commit = qm.server.spool.commit
    monkeypatch.setattr(qm.server.spool, "commit",
                        lambda txn: (commit(txn), committed.append(len(qm.server.mail.queue))))
    job = qm.submit(mail_options="beas", job_name="j")
    other = qm.submit(mail_options="a", mail_list=["x@example.org", "y"], job_name="k")
    qm.dispatch(job)
    qm.dispatch(other)
    for j in (job, other):
        qm.call("job_started", {"host": "h1", "job_id": j, "task_id": 1,
                                "start_time": 100.0}, identity=b"execd:h1")
    owner = f"alice@{socket.gethostname()}"  # (the submit host: job_request's)
    assert _mails(qm) == [(f"Job {job} (j) Started", owner, f"Job {job} (j) Started")]
    assert committed[-2] == 0  # (queued after the commit of the batch that made it)
    for action in ("suspend", "unsuspend"):
        qm.call("qmod", {"user": ALICE.to_dict(),
                         "items": [{"action": action, "scope": "job", "ref": str(job)}]})
    assert [m[0] for m in _mails(qm)[1:]] == [f"Job {job} (j) Suspended",
                                               f"Job {job} (j) Continued"]
    result = {"exit_status": 3, "signal": 0, "failed": 0, "start_time": 100.0,
              "end_time": 101.5, "ru_utime": 0.25, "ru_stime": 0.5, "pid": 7}
    qm.call("job_finished", {"host": "h1", "job_id": job, "task_id": 1, "result": result},
            identity=b"execd:h1")
    assert _mails(qm)[3][0] == f"Job {job} (j) Complete"
    assert "Exit Status      = 3" in qm.server.mail.queue[3].stdin.decode()
    qm.call("delete", {"user": ALICE.to_dict(), "targets": [{"job_id": other}]})
    killed = f"Job {other} (k) Killed"
    body = f"Job {other} (k)  was killed by alice@qm"
    assert _mails(qm)[4:] == [(killed, "x@example.org", body), (killed, "y", body)]
    result = {"exit_status": 137, "signal": 9, "failed": 0, "start_time": 100.0,
              "end_time": 102.0, "pid": 8}
    qm.call("job_finished", {"host": "h1", "job_id": other, "task_id": 1, "result": result},
            identity=b"execd:h1")
    aborted = [m for m in _mails(qm)[6:] if m[1] == "y"]
    assert aborted == [(f"Job {other} (k) Aborted", "y", f"Job {other} (k) Aborted")]
    assert f"failed assumedly after job because:\njob {other}.1 died through signal KILL (9)" \
        in qm.server.mail.queue[-1].stdin.decode()


def test_a_job_with_a_bad_mail_address_is_refused(qm: Harness) -> None:
    """An address a mailer would read as an option never reaches it."""
    for bad in ("-E!touch /tmp/x", "--exec=x", "a b", "a\nb"):
        with pytest.raises(RuntimeError, match="invalid mail address"):
            qm.submit(mail_options="e", mail_list=[bad])
    assert qm.submit(mail_options="bea", mail_list=["me@example.org", "me"]) > 0
    assert qm.submit(mail_options="") > 0


def test_a_failed_start_mails_the_owner_and_the_administrator(qm: Harness) -> None:
    conf = qm.server.store.conf["conf"]["global"]
    conf[:] = [p for p in conf if p[0] != "administrator_mail"] + \
        [["administrator_mail", "admin@qm,root"]]
    qm.register("h1")
    job = qm.submit(mail_options="a", job_name="f")
    qm.dispatch(job)
    result = {"exit_status": 0, "signal": 0, "failed": 26, "pid": 0,
              "failed_reason": "opening input/output file",
              "error_message": "error: can't open output file \"/x/y\": No such file"}
    qm.call("job_finished", {"host": "h1", "job_id": job, "task_id": 1, "result": result},
            identity=b"execd:h1")
    assert qm.tasks(job)[0]["state"] == "error"
    assert _mails(qm) == [
        (f"Job {job} (f) Set in error state", f"alice@{socket.gethostname()}",
         f"Job {job} (f) Set in error state"),
        (f"SGE 8.1.9: Job {job} failed", "admin@qm", f"Job {job} caused action: none"),
        (f"SGE 8.1.9: Job {job} failed", "root", f"Job {job} caused action: none")]
    body = qm.server.mail.queue[0].stdin.decode()
    assert " Exit Status      = -1\n" in body and " Start Time       = <unknown>\n" in body
    assert body.endswith("once the problem is fixed.\n")
