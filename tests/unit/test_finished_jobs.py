"""sge_conf(5) finished_jobs: how many finished jobs the qmaster keeps (qstat -s z,
qstat -j, late waits); 0 keeps none. What depends on the job at its end (a wait
answered, -hold_jid successors released) still sees it."""
from __future__ import annotations

from pathlib import Path

from common import wire
from qmaster.server import QmasterServer
from tests.unit.test_bounded_cost import set_global
from tests.unit.test_qmaster_core import ALICE, Harness


def finish(qm: Harness, job: int) -> None:
    qm.dispatch(job)
    qm.call("job_finished", {"host": "h1", "job_id": job, "task_id": 1,
                             "result": {"exit_status": 0}}, identity=b"execd:h1")


def heartbeat_trim(qm: Harness) -> None:
    server: QmasterServer = qm.server
    if server.store.finished_excess():
        server._trim_finished()  # (what the heartbeat does once a second)


def kept(qm: Harness) -> list[int]:
    return list(qm.server.store.finished_order)


def test_the_oldest_finished_jobs_beyond_finished_jobs_are_forgotten(tmp_path: Path) -> None:
    qm = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    qm.register("h1")
    set_global(qm, finished_jobs="2")
    jobs = [qm.submit() for _ in range(4)]
    for job in jobs:
        finish(qm, job)
    assert kept(qm) == jobs[2:]
    assert [j for j in jobs if j in qm.server.store.jobs] == jobs[2:]
    set_global(qm, finished_jobs="1")  # (lowered: the heartbeat forgets the excess)
    heartbeat_trim(qm)
    assert kept(qm) == jobs[3:]
    again = Harness(tmp_path, auto_add_hosts=True, default_slots=2)  # (spooled so)
    assert list(again.server.store.finished_order) == jobs[3:]


def test_finished_jobs_0_keeps_none_but_answers_the_wait_and_releases_successors(
        tmp_path: Path) -> None:
    qm = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    qm.register("h1")
    set_global(qm, finished_jobs="0")
    first = qm.submit(job_name="first")
    second = qm.submit(hold_jid=["first"])
    rid = qm.send("wait", {"user": ALICE.to_dict(), "job_ids": [first]}, identity=b"w")
    finish(qm, first)
    replies = [wire.decode(f[1]) for f in qm.router.sent if f[0] == b"w"]
    assert replies[-1][1] == rid and replies[-1][2]["jobs"][first][0]["exit_status"] == 0
    assert qm.tasks(second)[0]["state"] == "pending"
    heartbeat_trim(qm)
    assert first not in qm.server.store.jobs and kept(qm) == []


def test_the_default_is_8_1_9s_100(tmp_path: Path) -> None:
    qm = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    assert qm.server.store.finished_jobs_kept() == 100
