"""The session's jobs' ends, without polling: one thread keeps a qmaster ``wait`` request
outstanding per unfinished job, all on one connection of its own (the qmaster answers
each when its job ends, ``qmaster.jobs.handle_wait``), and reports each end to the
session with the finished tasks' usage (one job listing per ended job).

A connection that fails (a qmaster restart) is made anew and every outstanding wait
sent again: the qmaster answers at once for a job that ended meanwhile. A wait the
qmaster refuses (the user has MAX_USER_WAITS already) is sent again when one of ours has
been answered, or, while none of ours is outstanding, one such every RETRY_SECONDS: a
session of more jobs than the limit costs no storm of refused requests. New jobs come
through a queue: with no wait outstanding the thread sleeps on it; otherwise it looks at
it between answers, at least every WAKE_SECONDS (a local look: nothing is sent to the
qmaster then).
"""
from __future__ import annotations

import queue
import select
import threading
import time
from typing import Any, Callable, cast

import structlog

from clients.api import Client, ClientError
from clients.drmaa import status
from clients.drmaa.session import Finished
from common import wire

log = structlog.get_logger("drmaa.reaper")

# how long the thread waits for an answer before it looks for new jobs to watch
WAKE_SECONDS = 0.2
# after a failed connection, and after a refused wait, this long before the next try
RETRY_SECONDS = 0.5
# how long a first bulk job's submission waits for the task follower's subscription
FOLLOW_START_SECONDS = 5.0


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
        """The next answer (type, request id, body), or None after ``timeout``. The
        answer is read only once it has begun to arrive, and then whole: a read that
        timed out halfway would lose the connection's place."""
        conn = self._connection(self.timeout)
        if not _answer_at_hand(conn, timeout):
            return None
        return wire.decode(conn.recv(self.timeout))


def _answer_at_hand(conn: Any, timeout: float) -> bool:
    answered = getattr(conn, "answered", None)  # (the remote connection: whole messages)
    if answered is not None:
        return bool(answered(timeout))
    if conn.buffered():
        return True
    readable, _, _ = select.select([conn.sock], [], [], timeout)
    return bool(readable)


class ReaperThread(threading.Thread):
    def __init__(self, connect: Callable[[type[Client]], Client],
                 report: Callable[[int, dict[int, Finished]], None],
                 clock: Callable[[], float] = time.monotonic,
                 follower: TaskFollower | None = None) -> None:
        """``follower``: started with the first bulk job (``TaskFollower``)."""
        super().__init__(name="drmaa-reaper", daemon=True)
        self._follower = follower
        self._connect = connect
        self._report = report
        self._clock = clock
        self._new: queue.SimpleQueue[int] = queue.SimpleQueue()
        self._watched: set[int] = set()          # jobs not yet reported
        self._waits: dict[int, int] = {}         # request id -> job id
        self._refused: list[int] = []            # jobs whose wait was refused, in order
        self._retry_at = 0.0
        self._channel: WaitChannel | None = None
        self._query: Client | None = None

    def watch(self, job_id: int) -> None:
        self._new.put(job_id)

    def follow_tasks(self) -> None:
        """Before the first bulk job: the follower starts, and is subscribed when this
        returns (or FOLLOW_START_SECONDS later: its tasks then come with their job)."""
        if self._follower is None:
            return
        if not self._follower.is_alive():
            self._follower.start()
        self._follower.subscribed.wait(FOLLOW_START_SECONDS)

    def run(self) -> None:
        while True:
            try:
                self.step()
            except (OSError, ClientError, wire.WireError) as err:
                log.warning("wait connection failed", error=str(err))
                self._drop()
                time.sleep(RETRY_SECONDS)

    def _drop(self) -> None:
        if self._channel is not None:
            self._channel.close()
        self._channel = None
        self._waits.clear()
        self._refused.clear()

    def step(self) -> None:
        """Send the waits due, then take one answer if one comes within WAKE_SECONDS."""
        if self._channel is None:
            self._channel = cast(WaitChannel, self._connect(WaitChannel))
            for job_id in self._watched:  # again, after a failed connection
                self._send(job_id)
        if not self._watched:
            self._register(self._new.get())  # nothing outstanding: sleep until a job comes
        while not self._new.empty():
            self._register(self._new.get())
        if self._refused and not self._waits and self._clock() >= self._retry_at:
            # none of ours outstanding (other clients of the user hold the waits): one
            # try now and then, not one per refused job
            self._retry_at = self._clock() + RETRY_SECONDS
            self._send(self._refused.pop(0))
        answer = self._channel.next_answer(WAKE_SECONDS)
        if answer is not None:
            self._answered(*answer)

    def _register(self, job_id: int) -> None:
        self._watched.add(job_id)
        self._send(job_id)

    def _send(self, job_id: int) -> None:
        assert self._channel is not None
        self._waits[self._channel.send_wait(job_id)] = job_id

    def _answered(self, kind: str, request_id: int, body: dict[str, Any]) -> None:
        job_id = self._waits.pop(request_id, None)
        if job_id is None:
            return
        if kind == "error":  # (the user has too many waits: MAX_USER_WAITS)
            log.warning("wait refused", job_id=job_id, message=body.get("message"))
            self._refused.append(job_id)
            self._retry_at = self._clock() + RETRY_SECONDS
            return
        self._watched.discard(job_id)
        if self._refused:  # (an answered wait is a wait the user may have again)
            self._send(self._refused.pop(0))
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


def task_end(event: dict[str, Any]) -> Finished | None:
    """A finished task's end from its event (``task``, docs/events.md), or None for any
    other event. The event has no usage figures but the times and the exit status: the
    job's wait answer, when the whole bulk job has ended, brings the rest."""
    if event.get("kind") != "task" or event.get("op") != "put" or \
            event.get("state") != "finished":
        return None
    result = {"exit_status": event.get("exit_status"), "signal": event.get("signal"),
              "failed": event.get("failed"), "deleted": event.get("deleted_by") is not None,
              "started": event.get("start_time") is not None}
    word, ran = status.status_word(result)
    usage = status.usage_lines(event, result, None) if ran else None
    return Finished(word, usage, status.finished_state(result))


class TaskFollower(threading.Thread):
    """The ends of a bulk job's tasks as they come: the user's task events (the qmaster's
    event subscription, a long poll: nothing is asked while nothing happens), each
    finished task reported at once. Tasks whose events are missed (before the first
    poll, a gap) are reported with their job by the reaper."""

    def __init__(self, connect: Callable[[type[Client]], Client],
                 report: Callable[[int, int, Finished], None]) -> None:
        super().__init__(name="drmaa-tasks", daemon=True)
        self._connect = connect
        self._report = report
        self.subscribed = threading.Event()  # (the events from now on will come)

    def run(self) -> None:
        from clients.events import Cursor, subscribe
        client = self._connect(Client)
        filters: dict[str, Any] = {"kinds": ["task"], "owners": [client.user.name]}
        while True:
            try:
                now = client.events(timeout=0, **filters)  # (where "from now on" is)
                cursor = Cursor(now["epoch"], int(now["seq"]))
                self.subscribed.set()
                for event in subscribe(client, cursor=cursor, **filters):
                    end = task_end(event)
                    if end is not None:
                        self._report(int(event["job_id"]), int(event["task_id"]), end)
            except ClientError as err:  # (too many polls of the user, ...)
                log.warning("task events failed", error=err.message)
                self.subscribed.set()  # (nobody waits for a subscription that failed)
                time.sleep(RETRY_SECONDS * 20)
