"""What a request handler gets: the store, the open batch, the requester, the time.

Handlers raise ``RequestError`` to refuse a request; the server turns it into an ``error``
reply carrying Grid Engine's message. A handler that answers later (``wait``) returns
``DEFERRED`` and keeps the requester's address to reply when the answer exists.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from common import task_ranges
from common.model import UserInfo
from qmaster.event_clients import EventClients
from qmaster.metrics import QmasterMetrics
from qmaster.policy_view import PolicyView
from qmaster.reprioritize import TicketSender
from qmaster.store import Batch, Store
from qmaster.usage_book import UsageBook

DEFERRED: dict[str, Any] = {"__deferred__": True}


class RequestError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def request_ranges(target: dict[str, Any]) -> list[list[int]]:
    """The target's task ranges merged (repeats and overlaps collapse), refused when they
    stay more than ``task_ranges.MAX_REQUEST_RANGES``: the work per job is bounded by
    the ids named, never multiplied by how often the request names them."""
    wanted = task_ranges.merged(target.get("tasks") or [])
    if len(wanted) > task_ranges.MAX_REQUEST_RANGES:
        raise RequestError("malformed", f"a job's task list names more than "
                                        f"{task_ranges.MAX_REQUEST_RANGES} task ranges")
    return wanted


# Wait requests one user may have outstanding (qsub -sync, qrsh, the API's wait): each is
# kept until its jobs end (issue 26: 200,000 waits grew the qmaster to 1.4 GB). Past it a
# wait is refused with WAITS_REFUSAL; the requests that wait already stay.
MAX_USER_WAITS = 1000
WAITS_REFUSAL = ('denied: user "{user}" already waits for jobs with {count} requests, the '
                 "most one user may have; wait for them to end")
# job ids one user's outstanding waits may name in all (one wait may name 131,072): the
# memory they hold is bounded whatever sets of jobs they name
MAX_USER_WAIT_IDS = 1 << 17
WAIT_IDS_REFUSAL = ('denied: the waits of user "{user}" would name {count} jobs, more than '
                    "the {limit} one user may wait for at once")


@dataclass
class Waiter:
    """One set of jobs waited on, serving every request that waits on exactly that set
    (a thousand ``qsub -sync y`` of one job cost one entry)."""

    job_ids: frozenset[int]
    unfinished: set[int]  # shrinks as jobs finish
    requests: dict[tuple[bytes, int], str] = field(default_factory=dict)  # -> user


class Waiters:
    """The outstanding wait requests: merged by the set of jobs they wait on, found by
    job (a finished job costs the waits on it, not all of them), counted per user."""

    def __init__(self) -> None:
        self.by_jobs: dict[frozenset[int], Waiter] = {}
        self.by_job: dict[int, set[frozenset[int]]] = {}
        self.per_user: dict[str, int] = {}
        self.per_user_ids: dict[str, int] = {}
        self._added: list[tuple[frozenset[int], tuple[bytes, int]]] = []  # (for rollback)

    def __len__(self) -> int:
        return sum(self.per_user.values())

    def add(self, identity: bytes, request_id: int, user: str, job_ids: frozenset[int],
            unfinished: set[int]) -> None:
        """Keep a wait request; RequestError when the user has MAX_USER_WAITS already."""
        count = self.per_user.get(user, 0)
        waiter = self.by_jobs.get(job_ids)
        if waiter is not None and (identity, request_id) in waiter.requests:
            return  # the same request again: it is answered once
        if count >= MAX_USER_WAITS:
            raise RequestError("denied", WAITS_REFUSAL.format(user=user, count=count))
        named = self.per_user_ids.get(user, 0) + len(job_ids)
        if named > MAX_USER_WAIT_IDS:
            raise RequestError("denied", WAIT_IDS_REFUSAL.format(
                user=user, count=named, limit=MAX_USER_WAIT_IDS))
        if waiter is None:
            waiter = self.by_jobs[job_ids] = Waiter(job_ids, set(unfinished))
            for job_id in unfinished:
                self.by_job.setdefault(job_id, set()).add(job_ids)
        waiter.requests[(identity, request_id)] = user
        self.per_user[user] = count + 1
        self.per_user_ids[user] = named
        self._added.append((job_ids, (identity, request_id)))

    def finished(self, job_ids: set[int]) -> list[Waiter]:
        """The waiters whose last unfinished job is among ``job_ids``, taken out."""
        done = []
        for job_id in job_ids:
            for key in self.by_job.pop(job_id, ()):
                waiter = self.by_jobs.get(key)
                if waiter is None:
                    continue
                waiter.unfinished.discard(job_id)
                if not waiter.unfinished:
                    done.append(self._remove(key))
        return done

    def _remove(self, key: frozenset[int]) -> Waiter:
        waiter = self.by_jobs.pop(key)
        self._unindex(key, waiter.unfinished)
        for user in waiter.requests.values():
            self._count_down(user, len(waiter.job_ids))
        return waiter

    def _count_down(self, user: str, ids: int) -> None:
        self.per_user[user] -= 1
        self.per_user_ids[user] -= ids
        if not self.per_user[user]:
            del self.per_user[user]
            del self.per_user_ids[user]

    def savepoint(self) -> int:
        return len(self._added)

    def rollback(self, point: int) -> None:
        """Forget the requests added since ``point`` (a refused request's)."""
        while len(self._added) > point:
            key, request = self._added.pop()
            waiter = self.by_jobs.get(key)
            if waiter is None or request not in waiter.requests:
                continue
            self._count_down(waiter.requests.pop(request), len(key))
            if not waiter.requests:
                self.by_jobs.pop(key)
                self._unindex(key, waiter.unfinished)

    def _unindex(self, key: frozenset[int], job_ids: Iterable[int]) -> None:
        """The set of jobs ``key`` no longer waited on through ``job_ids``."""
        for job_id in job_ids:
            keys = self.by_job.get(job_id)
            if keys is not None:
                keys.discard(key)
                if not keys:
                    del self.by_job[job_id]

    def forget_journal(self) -> None:
        self._added.clear()


@dataclass
class Services:
    """Long-lived state of the server that handlers may use besides the store."""

    epoch: str
    start_time: float = field(default_factory=time.time)  # qping: "is up for N seconds"
    qmaster_host: str = ""  # the qmaster's own host name (local clients come from it)
    waiters: Waiters = field(default_factory=Waiters)
    # host -> the routing id of the connection its execd last proved itself on
    execd_routes: dict[str, bytes] = field(default_factory=dict)
    auto_add_hosts: bool = False
    default_slots: int = 0
    refused_orders: int = 0
    seq: int = 0  # sequence number of the last published event
    log: Any = None  # structlog logger of the daemon, or None
    # the scheduling policy's figures for qstat, worked out when asked (qmaster.policy_view)
    policy_view: PolicyView = field(default_factory=PolicyView)
    # when the running tasks' tickets are next due at the execds (qmaster.reprioritize)
    ticket_sender: TicketSender = field(default_factory=TicketSender)
    usage: UsageBook = field(default_factory=UsageBook)  # share tree usage (spooled)
    runlog_path: Path | None = None  # qconf -tsm's schedd_runlog (qmaster.sched_monitor)
    ar_clock: Any = None  # when advance reservations change state (qmaster.ar.lifecycle)
    # qconf's daemon control (qmaster.daemon_control): the event clients, and what the
    # server does once a batch is committed and its replies are sent (stop, publish)
    event_clients: EventClients = field(default_factory=EventClients)
    after_commit: list[Callable[[], None]] = field(default_factory=list)
    stop_server: Callable[[], None] | None = None
    publish: Callable[[list[bytes]], None] | None = None
    metrics: QmasterMetrics = field(default_factory=QmasterMetrics)  # /metrics (qmaster.metrics)
    event_feed: Any = None  # the users' event subscription (qmaster.event_feed.EventFeed)

    def job_log(self, event: str, **fields: Any) -> None:
        """One log line about a job, with job id, host and queue bound by the caller."""
        if self.log is not None:
            self.log.info(event, **fields)


@dataclass
class Ctx:
    store: Store
    batch: Batch
    services: Services
    identity: bytes
    request_id: int
    now: float
    body: dict[str, Any]

    @property
    def user(self) -> UserInfo:
        return UserInfo.from_dict(self.body.get("user") or {})

    def require_manager(self) -> None:
        user = self.user
        if not self.store.is_manager(user.name):
            raise RequestError("denied", f"denied: \"{user.name}\" must be manager for this "
                                         "operation")
