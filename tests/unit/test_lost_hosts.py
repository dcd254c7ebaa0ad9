"""Lost hosts: the pure rules (qmaster.lost_hosts: when a host becomes unknown, when
its jobs are due, which of them are rescheduled, ended or left alone; sge_conf(5)
max_unheard, reschedule_unknown, ENABLE_RESCHEDULE_KILL, ENABLE_RESCHEDULE_SLAVE), and
the qmaster acting on them without sockets."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from common import wire
from common.jobstate import State
from common.model import ExecHost, Job, Task
from qmaster.lost_hosts import (END, RESCHEDULE, LostHostPolicy, lost_host_policy,
                                lost_hosts, lost_task_actions, queue_rerun,
                                unheard_hosts)
from tests.unit.test_qmaster_core import ALICE, ROOT, Harness


def job(job_id: int, rerun: bool | None = None) -> Job:
    opts = {} if rerun is None else {"rerun": rerun}
    return Job(job_id=job_id, owner="u", uid=1000, group="g", gid=1000, submit_time=0.0,
               opts=opts, sge_o={})


def running(job_id: int, host: str = "a", granted: list[list[object]] | None = None,
            state: State = State.RUNNING, **kw: object) -> Task:
    return Task(job_id=job_id, task_id=1, state=state, queue="all.q", host=host,
                granted=granted or [["all.q", host, 1]], dispatch_time=1.0,
                start_time=2.0, **kw)


def conf(global_pairs: dict[str, str], hosts: dict[str, dict[str, str]] | None = None,
         rerun: str = "FALSE") -> dict[str, dict[str, list[list[str]]]]:
    confs = {"global": [[k, v] for k, v in global_pairs.items()]}
    confs.update({h: [[k, v] for k, v in pairs.items()] for h, pairs in (hosts or {}).items()})
    return {"conf": confs, "queue": {"all.q": [["qname", "all.q"], ["rerun", rerun]]},
            "hgrp": {"@odd": [["group_name", "@odd"], ["hostlist", "b"]]}}


def test_policy_reads_global_values_and_host_overrides_of_reschedule_unknown() -> None:
    policy = lost_host_policy(conf(
        {"max_unheard": "0:0:30", "reschedule_unknown": "0:1:0",
         "qmaster_params": "ENABLE_RESCHEDULE_KILL=1,ENABLE_RESCHEDULE_SLAVE=true"},
        {"b": {"reschedule_unknown": "00:00:10", "max_unheard": "0:0:1"}}))
    assert policy.max_unheard == 30  # global only: a host's own value is not read
    assert (policy.reschedule_delay("a"), policy.reschedule_delay("b")) == (60, 10)
    assert policy.reschedule_kill and policy.reschedule_slave
    default = lost_host_policy(conf({}))
    assert (default.max_unheard, default.reschedule_delay("a")) == (300, 0)
    assert not default.reschedule_kill and not default.reschedule_slave


def test_qmaster_params_words() -> None:
    def kill(params: str) -> bool:
        return lost_host_policy(conf({"qmaster_params": params})).reschedule_kill

    assert not kill("none") and kill("enable_reschedule_kill=TRUE")
    assert not kill("ENABLE_RESCHEDULE_KILL=false") and not kill("ENABLE_RESCHEDULE_KILL=0 X=1")
    assert lost_host_policy(conf({"qmaster_params": "MAX_SCRIPT_SIZE=1M ENABLE_RESCHEDULE_SLAVE"})
                            ).reschedule_slave


def test_disable_auto_rescheduling_ignores_reschedule_unknown() -> None:
    hosts = {"b": {"reschedule_unknown": "00:00:10"}}
    on = lost_host_policy(conf({"reschedule_unknown": "0:1:0"}, hosts))
    off = lost_host_policy(conf({"reschedule_unknown": "0:1:0",
                                 "qmaster_params": "DISABLE_AUTO_RESCHEDULING=true"}, hosts))
    assert (on.reschedule_delay("a"), on.reschedule_delay("b")) == (60, 10)
    assert (off.reschedule_delay("a"), off.reschedule_delay("b")) == (0, 0)


def test_queue_rerun_honours_host_and_group_overrides() -> None:
    c = conf({}, rerun="FALSE,[@odd=TRUE]")
    assert (queue_rerun(c, "all.q", "a"), queue_rerun(c, "all.q", "b")) == (False, True)
    assert queue_rerun(c, "gone.q", "a") is False


POLICY = LostHostPolicy(max_unheard=10, default_reschedule_after=5)


def test_a_host_is_unknown_after_max_unheard_counted_from_the_qmaster_start() -> None:
    hosts = [ExecHost("a", load_time=100, alive=True), ExecHost("b", load_time=0, alive=True)]
    assert unheard_hosts(hosts, now=110, qmaster_start=0, policy=POLICY) == ["b"]
    # b last reported at 0 but the qmaster started at 105: it has until 115
    assert unheard_hosts(hosts, now=112, qmaster_start=105, policy=POLICY) == []
    assert unheard_hosts(hosts, now=116, qmaster_start=105, policy=POLICY) == ["a", "b"]
    assert unheard_hosts([ExecHost("c", load_time=0, alive=False)], 1000, 0, POLICY) == []


@given(heard=st.integers(0, 10**6), start=st.integers(0, 10**6), later=st.integers(0, 10**5),
       delay=st.integers(0, 10**4))
def test_jobs_are_due_only_reschedule_unknown_after_the_host_became_unknown(
        heard: int, start: int, later: int, delay: int) -> None:
    policy = LostHostPolicy(max_unheard=10, default_reschedule_after=delay)
    host = ExecHost("a", load_time=heard, alive=False)
    now = max(heard, start) + later
    due = lost_hosts([host], now, start, policy)
    assert due == ({"a"} if delay > 0 and later > 10 + delay else set())


def test_a_live_host_is_never_lost_even_long_unheard() -> None:
    host = ExecHost("a", load_time=0, alive=True)
    assert lost_hosts([host], 1e6, 0, POLICY) == set()


def test_reschedule_unknown_zero_never_reschedules() -> None:
    host = ExecHost("a", load_time=0, alive=False)
    assert lost_hosts([host], 1e6, 0, LostHostPolicy(max_unheard=1)) == set()


def no_rerun(task: Task) -> bool:
    return False


def yes_rerun(task: Task) -> bool:
    return True


def test_rerunnable_tasks_are_rescheduled_the_others_stay() -> None:
    jobs = {1: job(1, rerun=True), 2: job(2, rerun=False), 3: job(3), 4: job(4)}
    tasks = [running(1), running(2), running(3), running(4, host="b")]
    actions = lost_task_actions(tasks, jobs, {"a"}, POLICY, no_rerun)
    assert [(t.job_id, a) for t, a in actions] == [(1, RESCHEDULE)]
    # no -r: the queue's rerun decides
    actions = lost_task_actions(tasks, jobs, {"a"}, POLICY, yes_rerun)
    assert [(t.job_id, a) for t, a in actions] == [(1, RESCHEDULE), (3, RESCHEDULE)]


def test_enable_reschedule_kill_ends_what_cannot_run_again() -> None:
    jobs = {1: job(1, rerun=True), 2: job(2, rerun=False)}
    policy = LostHostPolicy(max_unheard=10, default_reschedule_after=5, reschedule_kill=True)
    actions = lost_task_actions([running(1), running(2)], jobs, {"a"}, policy, no_rerun)
    assert [(t.job_id, a) for t, a in actions] == [(1, RESCHEDULE), (2, END)]


def test_a_parallel_job_follows_its_master_host_unless_enable_reschedule_slave() -> None:
    jobs = {1: job(1, rerun=True)}
    task = running(1, host="a", granted=[["all.q", "a", 2], ["all.q", "b", 2]])
    assert lost_task_actions([task], jobs, {"b"}, POLICY, no_rerun) == []
    slave = LostHostPolicy(max_unheard=10, default_reschedule_after=5, reschedule_slave=True)
    assert [a for _, a in lost_task_actions([task], jobs, {"b"}, slave, no_rerun)] == \
        [RESCHEDULE]
    assert [a for _, a in lost_task_actions([task], jobs, {"a"}, POLICY, no_rerun)] == \
        [RESCHEDULE]


def test_deleted_tasks_end_and_finished_or_pending_ones_are_left_alone() -> None:
    jobs = {1: job(1, rerun=True), 2: job(2, rerun=True), 3: job(3, rerun=True)}
    tasks = [running(1, state=State.DELETED, deleted_by="u"),
             running(2, state=State.FINISHED), Task(job_id=3, task_id=1)]
    actions = lost_task_actions(tasks, jobs, {"a"}, POLICY, yes_rerun)
    assert [(t.job_id, a) for t, a in actions] == [(1, END)]


# ---- the qmaster's side, driven without sockets (tests/unit/test_qmaster_core.py) -----


def lost_cell(tmp_path: Path, **values: str) -> Harness:
    qm = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    conf = qm.call("conf_get", {"user": ROOT.to_dict(), "kind": "conf"})["objects"]["global"]
    pairs = [[k, values.pop(k, v)] for k, v in conf] + [[k, v] for k, v in values.items()]
    qm.call("conf_put", {"user": ROOT.to_dict(), "kind": "conf", "name": "global",
                         "data": pairs, "mode": "modify"})
    qm.register("h1")
    return qm


def lose_h1(qm: Harness, seconds: float) -> None:
    """Make h1 silent for ``seconds`` and let the qmaster check its hosts."""
    store = qm.server.store
    qm.server.started -= seconds
    store.hosts["h1"].load_time -= seconds
    qm.server._check_hosts()  # twice: unknown first, then due
    qm.server._check_hosts()


def sent_to_h1(qm: Harness) -> list[tuple[str, dict[str, Any]]]:
    return [(m[0], m[2]) for m in (wire.decode(f[1]) for f in qm.router.sent
                                   if f[0] == b"execd:h1")]


def test_enable_reschedule_kill_finishes_a_task_still_on_its_way(tmp_path: Path) -> None:
    qm = lost_cell(tmp_path, max_unheard="0:0:10", reschedule_unknown="0:0:5",
                   qmaster_params="ENABLE_RESCHEDULE_KILL=true")
    job = qm.submit(rerun=False)
    after = qm.submit(hold_jid=[str(job)])
    qm.dispatch(job)  # transferring: the execd never confirmed the start
    dispatched = qm.server.store.tasks[f"{job}.1"].dispatch_time
    lose_h1(qm, 100)
    [task] = qm.tasks(job)
    assert task["state"] == "finished" and task["failed"] == 25, task
    kills = [b for t, b in sent_to_h1(qm) if t == "signal_job" and b["job_id"] == job]
    assert kills == [{"job_id": job, "task_id": 1, "action": "kill",
                      "dispatched": dispatched}]
    # the job's end released its dependent at once, as any other end does
    assert qm.tasks(after)[0]["holds"] == []


def test_a_returning_execd_gets_its_given_up_run_killed_and_the_new_one_started(
        tmp_path: Path) -> None:
    qm = lost_cell(tmp_path, max_unheard="0:0:10", reschedule_unknown="0:0:5")
    job = qm.submit(rerun=True)
    qm.dispatch(job)
    qm.call("job_started", {"host": "h1", "job_id": job, "task_id": 1, "start_time": 1.0},
            identity=b"execd:h1")
    old = qm.server.store.tasks[f"{job}.1"].dispatch_time
    lose_h1(qm, 100)
    assert [(t["state"], t["restarts"]) for t in qm.tasks(job)] == [("pending", 1)]
    qm.router.sent.clear()
    qm.call("register", {"host": "h1", "load": {"num_proc": "2"},
                         "jobs": [{"job_id": job, "task_id": 1, "dispatched": old}]},
            identity=b"execd:h1")
    qm.dispatch(job)  # sent back to the same host
    new = qm.server.store.tasks[f"{job}.1"].dispatch_time
    assert new != old
    messages = sent_to_h1(qm)
    assert ("signal_job", {"job_id": job, "task_id": 1, "action": "kill",
                           "dispatched": old}) in messages
    assert [b["spec"]["dispatched"] for t, b in messages if t == "start_job"] == [new]
    # the old run's end is not this run's: no second record, the task stays on its way
    old_end = {"host": "h1", "job_id": job, "task_id": 1, "dispatched": old,
               "result": {"exit_status": 137, "signal": 9}}
    qm.call("job_finished", old_end, identity=b"execd:h1")
    assert qm.tasks(job)[0]["state"] == "transferring"
    assert qm.call("job_query", {"user": ALICE.to_dict(), "job_ids": [job]})["tasks"][0][
        "restarts"] == 1
