"""``kill -9`` of the qmaster under a stream of submissions: nothing acknowledged is lost.

A client thread submits single and small bulk submissions (most held, some ``/bin/true``
that run at once) while the test kills the qmaster with SIGKILL and restarts it with
``pyge up``. Every job whose submission was acknowledged must exist afterwards, job ids
never go backwards, the held jobs run once released, and every finished job has exactly
one accounting record, including the jobs that ended around the crash.
"""
from __future__ import annotations

import threading
import time
from pathlib import Path

from clients.api import Client, ClientError
from deploy.cell import LocalCell
from tests.integration.cellutil import (accounting_counts, client, kill9, qmaster_port,
                                        restart, running_cell, tasks_by_job, true_job,
                                        wait_accounted, wait_for)

ACKS_BEFORE_KILL = 40    # acknowledged jobs before the crash
STREAM_AFTER_KILL = 0.5  # seconds the stream goes on against the dead qmaster
MAX_SUBMISSIONS = 400    # bound on the stream, whatever happens
PACE = 0.01              # seconds between submissions: a stream, not a flood
SLOTS = 256              # every released job can start in the same dispatch pass
UNACKNOWLEDGED = ("timeout", "unreachable")  # client errors of a qmaster that is away


class Submitter(threading.Thread):
    """Submits until told to stop; records what the qmaster acknowledged, in order."""

    def __init__(self, local: LocalCell) -> None:
        super().__init__(daemon=True)
        self.local = local
        self.stop = threading.Event()
        self.acked: list[tuple[list[int], bool]] = []  # (job ids, held) per acknowledgement
        self.refused: list[str] = []
        self.errors: list[BaseException] = []
        self.lock = threading.Lock()

    def run(self) -> None:
        try:
            with client(self.local, timeout=1.0) as cl:
                for i in range(MAX_SUBMISSIONS):
                    if self.stop.is_set():
                        return
                    self._submit_one(cl, i)
                    time.sleep(PACE)
        except BaseException as exc:  # reported by the test, not lost in the thread
            self.errors.append(exc)

    def _submit_one(self, cl: Client, i: int) -> None:
        held = i % 4 != 0
        jobs = [true_job(hold=held) for _ in range(3 if i % 3 == 0 else 1)]
        try:
            ids = cl.submit(jobs)
        except ClientError as err:  # the qmaster is down: not acknowledged
            if err.code not in UNACKNOWLEDGED:
                self.refused.append(err.message)
            time.sleep(0.05)
            return
        with self.lock:
            self.acked.append((ids, held))

    def count(self) -> int:
        with self.lock:
            return sum(len(ids) for ids, _ in self.acked)


def test_acknowledged_jobs_survive_kill_9(tmp_path: Path) -> None:
    with running_cell(tmp_path, SLOTS) as local:
        port = qmaster_port(local)
        submitter = Submitter(local)
        submitter.start()
        try:
            wait_for(lambda: submitter.count() >= ACKS_BEFORE_KILL, 15, "submissions")
            kill9(local, "qmaster")
            time.sleep(STREAM_AFTER_KILL)  # the stream keeps knocking at the dead qmaster
        finally:
            submitter.stop.set()
            submitter.join(10)
        assert not submitter.is_alive()
        assert restart(local, port, SLOTS) == ["qmaster"]
        assert not submitter.errors and not submitter.refused
        _check_after_crash(local, submitter.acked)


def _check_after_crash(local: LocalCell, acked: list[tuple[list[int], bool]]) -> None:
    all_ids = [j for ids, _ in acked for j in ids]
    held = [j for ids, was_held in acked if was_held for j in ids]
    # each acknowledgement returned ids above every id acknowledged before it
    assert all_ids == sorted(all_ids) and len(set(all_ids)) == len(all_ids)
    with client(local) as cl:
        known = tasks_by_job(cl)
        assert set(all_ids) <= set(known), f"lost jobs: {sorted(set(all_ids) - set(known))}"
        [new_id] = cl.submit([true_job()])
        assert new_id > max(all_ids)
        cl.release([{"job_id": j} for j in held])
        results = cl.wait(all_ids + [new_id], timeout=30)
    assert all(t["exit_status"] == 0 and t["failed"] == 0 and t["started"]
               for tasks in results.values() for t in tasks), results
    _check_accounting(local, known_ids=set(all_ids) | {new_id} | set(known))


def _check_accounting(local: LocalCell, known_ids: set[int]) -> None:
    """One record per finished job: none lost, none written twice."""
    with client(local) as cl:
        finished = [j for j, tasks in tasks_by_job(cl).items()
                    if tasks and all(t["state"] == "finished" for t in tasks)]
    wait_accounted(local, finished)
    time.sleep(0.3)  # a duplicate written late would show up here
    counts = accounting_counts(local)
    assert {job for job, _ in counts} <= known_ids
    assert [key for key, n in counts.items() if n != 1] == []
    assert sorted(job for job, _ in counts) == sorted(finished)
