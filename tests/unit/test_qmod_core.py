"""qmod in the qmaster without sockets (qmaster.queue_control): queue instance states,
job suspension and rescheduling, rights, the spool, and the dispatch refusals they cause."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from common import wire
from common.cluster import QueueInstance
from common.qi_letters import state_string
from common.jobstate import State, state_letters
from common.model import Task
from qmaster.queue_control import (accepts_new_jobs, may_modify_queue, plan_reschedule,
                                   plan_suspend, plan_unsuspend, queue_change,
                                   resolve_queue_ref, with_state)
from tests.unit.test_qmaster_core import ALICE, BOB, ROOT, Harness, qm  # noqa: F401

QIS = [QueueInstance("all.q", "h1", 2, 0, "BATCH", True),
       QueueInstance("all.q", "h2", 2, 0, "BATCH", True),
       QueueInstance("big.q", "h1", 2, 0, "BATCH", True)]


def qmod(h: Harness, user: Any, *items: tuple[str, str, str], force: bool = False,
         **extra: Any) -> list[str]:
    body = {"user": user.to_dict(), "force": force,
            "items": [{"action": a, "scope": s, "ref": r, **extra} for a, s, r in items]}
    return [a["text"] + (" !" if a["error"] else "") for a in h.call("qmod", body)["answers"]]


def running(h: Harness, user: Any = ALICE, **opts: Any) -> int:
    job = h.submit(user, **opts)
    h.dispatch(job)
    h.call("job_started", {"host": "h1", "job_id": job, "task_id": 1, "start_time": 1.0},
           identity=b"execd:h1")
    return job


def signals(h: Harness) -> list[tuple[int, str]]:
    return [(m[2]["job_id"], m[2]["action"]) for m in
            (wire.decode(f[1]) for f in h.router.sent if f[0] == b"execd:h1")
            if m[0] == "signal_job"]


def test_pure_rules() -> None:
    assert accepts_new_jobs("") and not accepts_new_jobs("d") and not accepts_new_jobs("", False)
    assert with_state("s", "d", True) == "ds" and with_state("dEs", "E", False) == "ds"
    assert state_string("sd", alive=False) == "dus"
    assert [qi.name for qi in resolve_queue_ref("all.q", QIS, {})] == ["all.q@h1", "all.q@h2"]
    assert [qi.name for qi in resolve_queue_ref("*@H1", QIS, {})] == ["all.q@h1", "big.q@h1"]
    assert [qi.name for qi in resolve_queue_ref("*@@g", QIS, {"@g": frozenset({"h2"})})] == \
        ["all.q@h2"]
    assert resolve_queue_ref("@g", QIS, {"@g": frozenset({"h2"})}) == []
    assert may_modify_queue("alice", "alice bob", False) and not may_modify_queue("x", "NONE", False)
    answer, new = queue_change("disable", "q@h", "s", "root@h")
    assert (answer.text, new) == ('root@h changed state of "q@h" (disabled)', "ds")
    assert queue_change("clear", "q@h", "", "root@h")[0].text == \
        'Queue instance "q@h" is already in the specified state: no error'
    task = Task(1, 1, state=State.SUSPENDED, suspend_reasons=["queue"], host="h1")
    assert plan_suspend(task, "job 1", "u")[1] == "reason"
    assert plan_unsuspend(task, "job 1", "u")[0].text == "u - job 1 is already unsuspended"
    assert plan_reschedule(task, "job 1", False, True, False)[0].text == \
        "The job 1 is not restartable"
    assert plan_reschedule(task, "job 1", None, True, False)[1] == "reschedule"
    assert state_letters(State.SUSPENDED, suspend_reasons=["queue", "job"]) == "Ss"
    assert state_letters(State.PENDING, restarted=True) == "Rq"


def test_disable_enable_survive_a_restart_and_stop_dispatch(qm: Harness, tmp_path: Path
                                                           ) -> None:
    qm.register("h1")
    assert qmod(qm, ROOT, ("disable", "queue", "all.q@h1")) == [
        'root@qm changed state of "all.q@h1" (disabled)']
    assert qmod(qm, ROOT, ("disable", "queue", "all.q")) == [
        'Queue instance "all.q@h1" is already in the specified state: disabled']
    job = qm.submit()
    refused = qm.dispatch(job)
    assert refused["accepted"] == 0 and "disabled" in refused["refused"][0]["reason"]
    assert qm.call("snapshot", {})["qstates"] == {"all.q@h1": {"states": "d", "reason": ""}}
    qm.server.spool.close()
    again = Harness(tmp_path)
    assert again.server.store.qi_states["all.q@h1"]["states"] == "d"
    again.register("h1")
    assert qmod(again, ROOT, ("enable", "queue", "*")) == [
        'root@qm changed state of "all.q@h1" (enabled)']
    assert again.dispatch(job)["accepted"] == 1


def test_rights_and_unknown_references(qm: Harness) -> None:
    qm.register("h1")
    job = qm.submit(ALICE, hold=True)
    assert qmod(qm, BOB, ("disable", "queue", "all.q@h1"), ("suspend", "job", str(job)),
                ("suspend", "queue", "nosuch.q"), ("clear", "any", "999"),
                ("suspend", "any", "999")) == [
        'bob - you have no permission to modify queue "all.q@h1" !',
        f'bob - you have no permission to modify job "{job}" !',
        'invalid queue "nosuch.q" !', 'invalid queue "999" !',
        'invalid queue or job "999" !']
    assert qmod(qm, ALICE, ("suspend", "job", str(job))) == [
        f"Modify operation can not be applied on job-array task {job}.1 in pending/hold state"]


def test_suspend_job_and_queue_and_reschedule(qm: Harness) -> None:
    qm.register("h1")
    job = running(qm)
    assert qmod(qm, ALICE, ("suspend", "job", str(job)), ("suspend", "job", str(job))) == [
        f"alice - suspended job {job}", f"alice - job {job} is already suspended"]
    assert qmod(qm, ROOT, ("suspend", "queue", "all.q@h1")) == [
        'root@qm changed state of "all.q@h1" (suspended)']
    task = qm.tasks(job)[0]
    assert (task["state"], sorted(task["suspend_reasons"])) == ("suspended", ["job", "queue"])
    assert qmod(qm, ROOT, ("unsuspend", "queue", "all.q@h1")) == [
        'root@qm changed state of "all.q@h1" (unsuspended)']
    assert qm.tasks(job)[0]["state"] == "suspended"  # -sj still holds it
    assert qmod(qm, ALICE, ("unsuspend", "job", str(job))) == [f"alice - unsuspended job {job}"]
    assert qm.tasks(job)[0]["state"] == "running"
    assert signals(qm) == [(job, "suspend"), (job, "resume")]
    assert qmod(qm, ALICE, ("reschedule", "job", str(job))) == [
        f"The job {job} is running in queue none where jobs are not rerunable."]
    assert qmod(qm, ALICE, ("reschedule", "job", str(job)), force=True) == [
        f"Forced rescheduling of job {job} on host h1"]
    assert qm.tasks(job)[0]["reschedule"] is True and signals(qm)[-1] == (job, "kill")
    assert qmod(qm, BOB, ("reschedule", "queue", "all.q@h1")) == [
        'bob - you have no permission to modify queue "all.q@h1" !']


def test_queue_error_and_clear(qm: Harness) -> None:
    from qmaster.context import Ctx, Services
    from qmaster.queue_control import set_queue_error
    from qmaster.store import Batch
    qm.register("h1")
    store = qm.server.store
    batch = Batch()
    set_queue_error(Ctx(store, batch, Services(epoch="x"), b"", 0, 0.0, {}), "all.q", "h1",
                    "prolog failed")
    assert store.qi_states["all.q@h1"] == {"states": "E", "reason": "prolog failed"}
    assert qmod(qm, ROOT, ("clear", "any", "all.q@h1")) == [
        'root@qm changed state of "all.q@h1" (no error)']
    assert "all.q@h1" not in store.qi_states


def test_the_scheduler_mirror_skips_instances_with_states() -> None:
    from scheduler.mirror import Mirror
    from tests.unit.test_mirror import snapshot
    mirror = Mirror.from_snapshot({**snapshot(), "qstates": {"all.q@h1": {"states": "d"}}})
    assert mirror.free_slots({}) == 0 and mirror.instances()[0].states == "d"
    assert mirror.apply({"seq": 6, "kind": "qstate", "op": "del", "key": "all.q@h1"})
    assert mirror.free_slots({}) == 2
    assert mirror.apply({"seq": 7, "kind": "qstate", "op": "put", "key": "all.q@h1",
                         "obj": {"states": "s", "reason": ""}})
    assert not mirror.instances()[0].accepts_jobs
