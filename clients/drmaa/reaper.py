"""The session's jobs' ends, without polling: one thread keeps a qmaster ``wait`` request
outstanding per unfinished job, all on one connection of its own (the qmaster answers
each when its job ends, ``qmaster.jobs.handle_wait``), and reports each end to the
session with the finished tasks' usage (one job listing per ended job).

A connection that fails (a qmaster restart) is made anew and every outstanding wait
sent again: the qmaster answers at once for a job that ended meanwhile. New jobs are
taken from a queue between reads; the reads' short timeout is this thread's own wake-up
and sends nothing to the qmaster.
"""
from __future__ import annotations

import queue
import threading
import time
from typing import Any, Callable

import structlog

from clients.api import Client, ClientError
from clients.drmaa import status
from clients.drmaa.session import Finished
from common import wire

log = structlog.get_logger("drmaa.reaper")

# how often the thread looks for new jobs to watch while no answer comes
WAKE_SECONDS = 0.05
# after a failed connection, this long before the next
RECONNECT_SECONDS = 0.5


def ends_of(results: list[dict[str, Any]], records: list[dict[str, Any]] | None,
            submission_time: float | None) -> dict[int, Finished]:
    """Each task's end from the qmaster's wait answer (``results``) and, where it still
    has them, its finished task records (``records``, for the usage)."""
    by_task = {r["task_id"]: r for r in records or ()}
    ends = {}
    for result in results:
        word, ran = status.status_word(result)
        usage = status.usage_lines(by_task.get(result["task_id"]), result,
                                   submission_time) if ran else None
        ends[result["task_id"]] = Finished(word, usage, status.finished_state(result))
    return ends


class WaitChannel(Client):
    """A Client whose connection carries many wait requests at once (``Client.request``
    carries one at a time and drops the answers to the others)."""

    def send_wait(self, job_id: int) -> int:
        """Send a wait for ``job_id``; its request id."""
        self._last_id += 1
        conn = self._connection(self.timeout)
        conn.send(wire.encode("wait", {"user": self._user(), "job_ids": [job_id]},
                              self._last_id))
        return self._last_id

    def next_answer(self, timeout: float) -> tuple[str, int, dict[str, Any]] | None:
        """The next answer (type, request id, body), or None after ``timeout``."""
        try:
            raw = self._connection(self.timeout).recv(timeout)
        except TimeoutError:
            return None
        return wire.decode(raw)


class ReaperThread(threading.Thread):
    def __init__(self, connect: Callable[[type[Client]], Client],
                 report: Callable[[int, dict[int, Finished]], None]) -> None:
        super().__init__(name="drmaa-reaper", daemon=True)
        self._connect = connect
        self._report = report
        self._new: queue.SimpleQueue[int] = queue.SimpleQueue()
        self._watched: set[int] = set()
        self._waits: dict[int, int] = {}         # request id -> job id
        self._channel: WaitChannel | None = None
        self._query: Client | None = None

    def watch(self, job_id: int) -> None:
        self._new.put(job_id)

    def run(self) -> None:
        while True:
            try:
                self._serve()
            except (OSError, ClientError, wire.WireError) as err:
                log.warning("wait connection failed", error=str(err))
                self._drop()
                time.sleep(RECONNECT_SECONDS)

    def _drop(self) -> None:
        if self._channel is not None:
            self._channel.close()
        self._channel = None
        self._waits.clear()

    def _serve(self) -> None:
        if self._channel is None:
            channel = self._connect(WaitChannel)
            assert isinstance(channel, WaitChannel)
            self._channel = channel
            for job_id in self._watched:  # again, after a failed connection
                self._waits[self._channel.send_wait(job_id)] = job_id
        while True:
            while not self._new.empty():
                job_id = self._new.get()
                self._watched.add(job_id)
                self._waits[self._channel.send_wait(job_id)] = job_id
            answer = self._channel.next_answer(WAKE_SECONDS)
            if answer is not None:
                self._answered(*answer)

    def _answered(self, kind: str, request_id: int, body: dict[str, Any]) -> None:
        job_id = self._waits.pop(request_id, None)
        if job_id is None:
            return
        if kind == "error":
            # a wait refused (too many waits of this user): ask again later
            log.warning("wait refused", job_id=job_id, message=body.get("message"))
            time.sleep(RECONNECT_SECONDS)
            self._waits[self._channel.send_wait(job_id)] = job_id  # type: ignore[union-attr]
            return
        self._watched.discard(job_id)
        results = {int(k): v for k, v in (body.get("jobs") or {}).items()}.get(job_id, [])
        records, submitted = self._records(job_id)
        self._report(job_id, ends_of(results, records, submitted))

    def _records(self, job_id: int) -> tuple[list[dict[str, Any]] | None, float | None]:
        """The ended job's task records and its submission time, while the qmaster
        still has them."""
        try:
            if self._query is None:
                self._query = self._connect(Client)
            reply = self._query.jobs([job_id], include_finished=True)
        except ClientError as err:
            log.warning("no usage of an ended job", job_id=job_id, error=err.message)
            return None, None
        jobs = reply.get("jobs") or [{}]
        return reply.get("tasks"), jobs[0].get("submit_time")
