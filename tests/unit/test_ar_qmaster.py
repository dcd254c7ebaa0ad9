"""Advance reservations in the qmaster without sockets (qmaster.ar): permission, windows,
max_advance_reservations, admission through the placement core's ``ar_admission`` (a
stand-in here that keeps 2 slots on h1 and honours the other ARs it is given), spool and
restart, events and snapshot, qsub -ar, qrdel and the AR's end ending its jobs, the
order check, and accounting's arid. Texts are 8.1.9's (tests/data/reference/ar/)."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from common import wire
from common.accounting import read_records
from common.placement import dispatch
from common.placement.job import PlacementJob
from tests.unit.test_qmaster_core import ALICE, BOB, ROOT, Harness

CAPACITY = 2  # slots on h1 the stand-in admission may give


def stand_in_admission(job: PlacementJob, start: float, end: float, inp: Any
                       ) -> tuple[list[list[Any]], str | None] | None:
    """2 slots on all.q@h1, less those of the ARs overlapping [start, end)."""
    wanted = job.pe[1] if job.pe else 1
    taken = sum(g[2] for ar in inp.ars if ar.start < end and start < ar.end
                for g in ar.granted)
    if wanted > CAPACITY - taken:
        return None
    return [["all.q", "h1", wanted]], job.pe[0] if job.pe else None


@pytest.fixture
def qm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Harness:
    monkeypatch.setattr(dispatch, "ar_admission", stand_in_admission)
    harness = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    harness.register()
    harness.call("userset_entries", {"user": ROOT.to_dict(), "op": "add",
                                     "users": ["alice", "bob"], "lists": ["arusers"]})
    return harness


def qrsub(qm: Harness, user: Any = ALICE, **ar: Any) -> int:
    return qm.call("ar_submit", {"user": user.to_dict(), "ar": ar or {"duration": 600}})["ar_id"]


def refusal(qm: Harness, msg_type: str, body: dict[str, Any]) -> tuple[str, str]:
    rid = qm.send(msg_type, body)
    for _, payload in reversed(qm.router.sent):
        rtype, reply_id, rbody = wire.decode(payload)
        if reply_id == rid:
            assert rtype == "error", rbody
            return rbody["code"], rbody["message"]
    raise AssertionError("no reply")


def ars(qm: Harness, user: Any = ALICE, **body: Any) -> list[dict[str, Any]]:
    return qm.call("ar_query", {"user": user.to_dict(), **body})["ars"]


def test_only_managers_and_arusers_may_submit(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dispatch, "ar_admission", stand_in_admission)
    qm = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    assert refusal(qm, "ar_submit", {"user": ALICE.to_dict(), "ar": {"duration": 60}}) == \
        ("denied", 'denied: "alice" must be manager or in userset "arusers"')
    assert refusal(qm, "ar_delete", {"user": ALICE.to_dict(), "ar_ids": [99]})[1] == \
        'denied: "alice" must be manager or in userset "arusers"'
    assert qrsub(qm, ROOT) == 1


def test_granted_ar_is_spooled_and_survives_a_restart(qm: Harness, tmp_path: Path) -> None:
    first = qrsub(qm, name="myar", account="acct1", duration=3600.0,
                  hard_resources={"h_rt": "100"})
    assert first == 1
    record = ars(qm)[0]
    assert (record["name"], record["account"], record["state"], record["granted"]) == \
        ("myar", "acct1", "r", [["all.q", "h1", 1]])
    assert record["end"] - record["start"] == 3600.0
    qm.server.spool.close()
    again = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    assert [r["ar_id"] for r in again.call("ar_query", {"user": ALICE.to_dict()})["ars"]] == [1]
    assert again.server.services.ar_clock.next_due() == record["end"]
    again.register()
    again.call("userset_entries", {"user": ROOT.to_dict(), "op": "add", "users": ["alice"],
                                   "lists": ["arusers"]})
    assert qrsub(again) == 2  # ids go on from the spooled sequence


def test_a_future_ar_waits_and_starts_on_its_clock(qm: Harness) -> None:
    now = time.time()
    ar_id = qrsub(qm, start=now + 3600, duration=60.0)
    stored = qm.server.store.ars
    assert ars(qm)[0]["state"] == stored[ar_id]["state"] == "w"
    qm.server._check_ars(now + 10)
    assert stored[ar_id]["state"] == "w"
    qm.server._check_ars(now + 3601)  # (the clock's time, not qrstat's)
    assert stored[ar_id]["state"] == "r"
    events = [e for frames in qm.pub.sent for e in wire.decode_published(frames)[1]["events"]
              if e["kind"] == "ar"]
    assert [e["obj"]["ar"]["ar_id"] for e in events] == [ar_id, ar_id]
    qm.server._check_ars(now + 3661)
    assert ars(qm) == []  # no job: gone at its end
    gone = [e for frames in qm.pub.sent for e in wire.decode_published(frames)[1]["events"]
            if e["kind"] == "ar_deleted"]
    assert gone[-1]["obj"] == {"ar_id": ar_id}


def test_refused_windows_and_no_room(qm: Harness) -> None:
    now = time.time()
    body = {"user": ALICE.to_dict()}
    assert refusal(qm, "ar_submit", {**body, "ar": {"start": now - 100, "duration": 60}}) \
        == ("invalid", "start time is in the past")
    assert refusal(qm, "ar_submit", {**body, "ar": {"start": now + 100}})[1] == \
        'missing value for "end time or duration" in advance reservation request'
    assert qrsub(qm, pe=["smp", 2, 2], duration=60.0) == 1
    assert refusal(qm, "ar_submit", {**body, "ar": {"duration": 60}}) == \
        ("rejected", "advance_reservation: no suitable queues")
    # after its end the slots are free again
    assert qrsub(qm, start=now + 120, duration=60.0) == 2


def test_verification_only(qm: Harness) -> None:
    reply = qm.call("ar_submit", {"user": ALICE.to_dict(), "ar": {"duration": 60},
                                  "verify": True})
    assert reply == {"verification": "verification: found suitable queue(s)"}
    assert ars(qm) == []


def test_unknown_resources_pe_and_queue_are_refused_in_qsubs_words(qm: Harness) -> None:
    body = {"user": ALICE.to_dict()}
    assert refusal(qm, "ar_submit", {**body, "ar": {"duration": 60,
                                                    "hard_resources": {"nosuch": "1"}}})[1] \
        == 'unknown resource "nosuch"'
    assert refusal(qm, "ar_submit", {**body, "ar": {"duration": 60,
                                                    "pe": ["nosuchpe", 1, 1]}})[1] == \
        'job rejected: the requested parallel environment "nosuchpe" does not exist'
    assert refusal(qm, "ar_submit", {**body, "ar": {"duration": 60,
                                                    "hard_queues": ["nosuch.q"]}})[1] == \
        'Job was rejected because job requests unknown queue "nosuch.q"'


def test_max_advance_reservations(qm: Harness) -> None:
    conf = qm.call("conf_get", {"user": ROOT.to_dict(), "kind": "conf"})
    rows = [list(r) for r in conf["objects"]["global"]] + [["max_advance_reservations", "1"]]
    qm.call("conf_put", {"user": ROOT.to_dict(), "kind": "conf", "name": "global",
                         "data": rows, "mode": "modify"})
    qrsub(qm)
    assert refusal(qm, "ar_submit", {"user": ROOT.to_dict(), "ar": {"duration": 60}}) == \
        ("max_ars", "rejected: only 1 advance reservations are allowed per cluster")


def test_qrstat_shows_own_ars_unless_asked(qm: Harness) -> None:
    qrsub(qm, ALICE)
    qrsub(qm, BOB)
    assert [r["owner"] for r in ars(qm)] == ["alice"]
    assert [r["owner"] for r in ars(qm, owners=["*"])] == ["alice", "bob"]
    assert qm.call("ar_query", {"user": BOB.to_dict(), "ar_ids": [1, 9]})["unknown"] == [9]


def test_qsub_ar_checks(qm: Harness) -> None:
    only_bob = qrsub(qm, BOB, duration=600.0, acl=["bob"])
    with pytest.raises(RuntimeError, match="^the advance reservation id 999 is invalid$"):
        qm.submit(ar_id=999)
    with pytest.raises(RuntimeError, match="^error: no suitable queues$"):
        qm.submit(ALICE, ar_id=only_bob)
    assert qm.submit(BOB, ar_id=only_bob)
    with pytest.raises(RuntimeError, match="^error: no suitable queues$"):
        qm.submit(BOB, ar_id=only_bob, pe=("smp", 2, 2))  # more than the AR holds


def test_qrdel_permission_and_results(qm: Harness) -> None:
    mine = qrsub(qm, ALICE)
    reply = qm.call("ar_delete", {"user": BOB.to_dict(), "ar_ids": [mine, 77]})
    assert reply["results"] == [{"ar_id": mine, "result": "denied"},
                                {"ar_id": 77, "result": "unknown"}]
    assert qm.call("ar_delete", {"user": BOB.to_dict(), "owners": ["bob"]})["results"] == \
        [{"result": "none_for_users", "users": ["bob"]}]
    assert qm.call("ar_delete", {"user": ROOT.to_dict(), "ar_ids": [mine]})["results"] == \
        [{"ar_id": mine, "result": "deleted"}]
    assert ars(qm) == []


def start(qm: Harness, job: int) -> None:
    qm.dispatch(job)
    qm.call("job_started", {"host": "h1", "job_id": job, "task_id": 1,
                            "start_time": time.time()}, identity=b"execd:h1")


def finish(qm: Harness, job: int) -> None:
    now = time.time()
    result = {"exit_status": 137, "signal": 9, "failed": 100, "start_time": now,
              "end_time": now}
    qm.call("job_finished", {"host": "h1", "job_id": job, "task_id": 1, "result": result},
            identity=b"execd:h1")


def test_qrdel_ends_the_ars_jobs_and_the_ar_goes_with_the_last(qm: Harness) -> None:
    ar_id = qrsub(qm, ALICE, duration=600.0, pe=["smp", 2, 2])
    running, waiting = qm.submit(ar_id=ar_id), qm.submit(ar_id=ar_id)
    start(qm, running)
    reply = qm.call("ar_delete", {"user": ALICE.to_dict(), "ar_ids": [ar_id]})
    assert reply["results"] == [{"ar_id": ar_id, "result": "registered"}]
    assert ars(qm)[0]["state"] == "d"
    assert qm.tasks(running)[0]["state"] == "deleted"  # dr: terminated on its host
    assert qm.call("job_query", {"user": ALICE.to_dict(), "job_ids": [waiting],
                                 "include_finished": True})["jobs"][0]["job_id"] == waiting
    assert not qm.server.store.ar_jobs.get(ar_id, set()) - {running}  # pending one gone
    finish(qm, running)
    assert ars(qm) == []
    line = read_records(qm.cell.accounting_path)[-1]
    assert (line.job_number, line.arid, line.category) == (running, ar_id, f"-ar {ar_id}")
    assert line.ar_submission_time > 0


def test_the_ars_end_ends_its_jobs(qm: Harness) -> None:
    ar_id = qrsub(qm, ALICE, duration=600.0)
    job = qm.submit(ar_id=ar_id)
    start(qm, job)
    qm.server._check_ars(time.time() + 601)
    assert ars(qm)[0]["state"] == "x"
    assert qm.tasks(job)[0]["state"] == "deleted"
    finish(qm, job)
    assert ars(qm) == []


def order(qm: Harness, job: int, host: str = "h1", slots: int = 1) -> dict[str, Any]:
    task = [t for t in qm.tasks(job) if t["task_id"] == 1][0]
    return qm.call("orders", {"orders": [{"type": "dispatch", "job_id": job, "task_id": 1,
                                          "task_version": task["version"],
                                          "granted": [["all.q", host, slots]]}]})


def test_orders_keep_ar_jobs_inside_and_others_outside(qm: Harness) -> None:
    qm.register("h2")
    ar_id = qrsub(qm, ALICE, duration=600.0)  # all.q@h1, 1 of its 2 slots
    inside = qm.submit(ar_id=ar_id)
    assert "advance reservation" in order(qm, inside, "h2")["refused"][0]["reason"]
    assert order(qm, inside)["accepted"] == 1
    second = qm.submit(ar_id=ar_id)  # the AR's one slot is in use
    assert "advance reservation" in order(qm, second)["refused"][0]["reason"]
    future = qrsub(qm, BOB, start=time.time() + 3600, duration=60.0)
    early = qm.submit(BOB, ar_id=future)
    assert order(qm, early)["refused"][0]["reason"] == \
        f"advance reservation {future} is not running"
    other = qm.submit(BOB)
    assert order(qm, other)["accepted"] == 1  # the slot the AR does not hold


def test_others_may_not_take_a_running_ars_free_slots(qm: Harness) -> None:
    qrsub(qm, ALICE, duration=600.0, pe=["smp", 2, 2])  # both slots of all.q@h1
    other = qm.submit(BOB)
    assert "reserved by an advance reservation" in order(qm, other)["refused"][0]["reason"]


def test_snapshot_carries_the_ars(qm: Harness) -> None:
    ar_id = qrsub(qm)
    snap = qm.call("snapshot", {}, identity=b"scheduler")
    assert [a["ar_id"] for a in snap["ars"]] == [ar_id]
    assert snap["ars"][0]["granted"] == [["all.q", "h1", 1]]


def test_a_job_of_an_ar_is_verified_as_8_1_9s(qm: Harness) -> None:
    ar_id = qrsub(qm)
    job = qm.submit(ar_id=ar_id)
    opts = qm.server.store.jobs[job].opts
    assert (opts["ar_id"], opts["verify_mode"]) == (ar_id, "w")  # verify_suitable_queues 2


def test_one_user_holds_a_bounded_number_of_ars(qm: Harness,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from qmaster.ar import handlers
    monkeypatch.setattr(handlers, "MAX_USER_ARS", 1)
    qrsub(qm, ALICE, duration=60.0)
    assert refusal(qm, "ar_submit", {"user": ALICE.to_dict(), "ar": {"duration": 60}}) == \
        ("denied", 'denied: user "alice" already has 1 advance reservations, the most one '
                   "user may have")
    assert qrsub(qm, BOB, duration=60.0)


def test_an_ending_ar_without_jobs_goes_at_the_next_start(qm: Harness, tmp_path: Path) -> None:
    ar_id = qrsub(qm, ALICE, duration=600.0)
    job = qm.submit(ar_id=ar_id)
    start(qm, job)
    qm.call("ar_delete", {"user": ALICE.to_dict(), "ar_ids": [ar_id]})
    # the job's end is spooled, but the AR was left behind (as by a stop in between)
    store = qm.server.store
    record = store.ars[ar_id]
    finish(qm, job)
    assert ar_id not in store.ars
    from qmaster.store import Batch
    batch = Batch()
    store.put_ar(batch, record)
    qm.server.spool.commit(batch.txn)
    qm.server.spool.close()
    again = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    assert again.server.store.ars == {}
    assert "ar" not in again.server.spool.load()[0]


def test_pe_ranges_must_be_positive_and_forwards(qm: Harness) -> None:
    for pe, ranges in ((["smp", 0, 0], []), (["smp", 1, 4], [[4, 1]])):
        assert refusal(qm, "ar_submit", {"user": ALICE.to_dict(), "ar": {
            "duration": 60, "pe": pe, "pe_ranges": ranges}})[1].startswith(
                "advance reservation rejected: pe range must be greater than zero")


def test_qrstat_shows_the_state_of_the_moment(qm: Harness) -> None:
    now = time.time()
    ar_id = qrsub(qm, start=now + 3600, duration=60.0)
    store = qm.server.store
    store.ars[ar_id] = {**store.ars[ar_id], "start": now - 1}  # its start has come,
    assert store.ars[ar_id]["state"] == "w"  # and no heartbeat has turned it yet
    assert ars(qm)[0]["state"] == "r"


def test_the_real_admission_plans_around_running_jobs(tmp_path: Path) -> None:
    """No stand-in: a job holding both slots of h1 until its h_rt (+ DURATION_OFFSET)
    keeps an AR out of its time, and lets one in after it; two ARs never overlap on
    more slots than the host has."""
    qm = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    qm.register()
    job = qm.submit(ALICE, pe=("smp", 2, 2), hard_resources={"h_rt": "600"})
    task = qm.tasks(job)[0]
    assert qm.call("orders", {"orders": [{
        "type": "dispatch", "job_id": job, "task_id": 1, "task_version": task["version"],
        "granted": [["all.q", "h1", 2]], "pe": "smp"}]})["accepted"] == 1
    qm.call("job_started", {"host": "h1", "job_id": job, "task_id": 1,
                            "start_time": time.time()}, identity=b"execd:h1")
    now = time.time()
    assert refusal(qm, "ar_submit", {"user": ROOT.to_dict(), "ar": {"duration": 60.0}})[1] \
        == "advance_reservation: no suitable queues"
    later = qrsub(qm, ROOT, start=now + 700, duration=600.0, pe=["smp", 2, 2])
    assert ars(qm, ROOT)[0]["granted"] == [["all.q", "h1", 2]]
    assert refusal(qm, "ar_submit", {"user": ROOT.to_dict(),
                                     "ar": {"start": now + 900, "duration": 60.0}})[1] \
        == "advance_reservation: no suitable queues"
    assert qrsub(qm, ROOT, start=now + 1400, duration=60.0) == later + 1


async def test_the_ar_timer_turns_an_ar_at_its_start(qm: Harness) -> None:
    """The timer sleeps until the clock's earliest entry, and wakes for an earlier one
    added meanwhile (no heartbeat involved)."""
    import asyncio
    qm.server.pub = qm.pub  # (the harness's socket stand-ins)
    timer = asyncio.create_task(qm.server._ar_timer())
    try:
        later = qrsub(qm, start=time.time() + 3600, duration=60.0)
        await asyncio.sleep(0.05)  # the timer now sleeps for an hour
        soon = qrsub(qm, start=time.time() + 0.2, duration=60.0)
        deadline = time.monotonic() + 10
        while qm.server.store.ars[soon]["state"] != "r" and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert qm.server.store.ars[soon]["state"] == "r"
        assert qm.server.store.ars[later]["state"] == "w"
        assert qm.server.services.ar_clock.next_due() == qm.server.store.ars[soon]["end"]
    finally:
        timer.cancel()


def test_a_managers_forced_qrdel_ends_the_ar_and_its_jobs_at_once(qm: Harness) -> None:
    ar_id = qrsub(qm, ALICE, duration=600.0)
    job = qm.submit(ar_id=ar_id)
    start(qm, job)
    assert qm.call("ar_delete", {"user": ALICE.to_dict(), "ar_ids": [ar_id],
                                 "force": True})["results"] == \
        [{"ar_id": ar_id, "result": "registered"}]  # -f is a manager's: its job runs on
    assert qm.call("ar_delete", {"user": ROOT.to_dict(), "ar_ids": [ar_id],
                                 "force": True})["results"] == \
        [{"ar_id": ar_id, "result": "deleted"}]
    assert ars(qm, owners=["*"]) == []
    assert qm.tasks(job)[0]["state"] == "finished"


def test_a_disabled_granted_instance_shows_the_ar_in_e_or_w(qm: Harness) -> None:
    running = qrsub(qm, ALICE, duration=600.0)
    waiting = qrsub(qm, ALICE, start=time.time() + 3600, duration=600.0)

    def qmod(action: str) -> None:
        qm.call("qmod", {"user": ROOT.to_dict(), "items": [
            {"action": action, "scope": "queue", "ref": "all.q@h1"}]})
    qmod("disable")
    shown = {r["ar_id"]: r for r in ars(qm)}
    assert (shown[running]["state"], shown[waiting]["state"]) == ("E", "W")
    assert shown[running]["message"] == "reserved queue all.q@h1 is disabled"
    assert qm.server.store.ars[running]["state"] == "r"  # (a view, not a change)
    qmod("enable")
    assert [(r["state"], r.get("message")) for r in ars(qm)] == [("r", None), ("w", None)]


def test_now_y_reserves_only_in_interactive_queues(tmp_path: Path) -> None:
    """qrsub(1) -now y: "only queues with the qtype INTERACTIVE assigned will be
    considered for reservation"."""
    qm = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    qm.register()
    conf = qm.call("conf_get", {"user": ROOT.to_dict(), "kind": "queue"})
    rows = [[k, "BATCH" if k == "qtype" else v] for k, v in conf["objects"]["all.q"]]
    qm.call("conf_put", {"user": ROOT.to_dict(), "kind": "queue", "name": "all.q",
                         "data": rows, "mode": "modify"})
    assert refusal(qm, "ar_submit", {"user": ROOT.to_dict(),
                                     "ar": {"duration": 60.0, "interactive": True}})[1] \
        == "advance_reservation: no suitable queues"
    assert qrsub(qm, ROOT, duration=60.0, interactive=False) >= 1


def test_an_ar_mails_its_mail_list_at_start_end_and_deletion(qm: Harness) -> None:
    """qrsub -m/-M: "Started" (b), "Finished" and "Deleted" (e), to the -M list only
    (8.1.9 sends nothing to an AR without one); sent after the commit."""
    now = time.time()
    both = qrsub(qm, start=now + 3600, duration=60.0, name="w", mail_options="be",
                 mail_list=["x@y.z", "alice"])
    silent = qrsub(qm, start=now + 3600, duration=60.0, mail_options="be")
    deleted = qrsub(qm, start=now + 7200, duration=60.0, mail_options="e",
                    mail_list=["x@y.z"])
    assert not qm.server.mail.queue
    qm.server._check_ars(now + 3601)
    qm.server._check_ars(now + 3661)
    qm.call("ar_delete", {"user": ALICE.to_dict(), "ar_ids": [deleted]})
    calls = [(c.subject, c.recipient) for c in qm.server.mail.queue]
    assert calls == [(f"Advance Reservation {both} (w) Started", "x@y.z"),
                     (f"Advance Reservation {both} (w) Started", "alice"),
                     (f"Advance Reservation {both} (w) Finished", "x@y.z"),
                     (f"Advance Reservation {both} (w) Finished", "alice"),
                     (f"Advance Reservation {deleted} (none) Deleted", "x@y.z")]
    assert silent not in {int(s.split()[2]) for s, _ in calls}
    started = qm.server.mail.queue[0].stdin.decode()
    assert started.startswith(f"Advance Reservation {both} (w) Started\n User       = alice\n"
                              " Start Time = ")


def test_an_ar_mail_address_a_mailer_would_take_as_an_option_is_refused(qm: Harness) -> None:
    assert refusal(qm, "ar_submit", {"user": ALICE.to_dict(), "ar": {
        "duration": 60.0, "mail_options": "e", "mail_list": ["-x"]}}) == (
        "rejected", 'advance reservation rejected: invalid mail address "-x" in -M')
