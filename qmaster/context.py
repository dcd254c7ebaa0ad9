"""What a request handler gets: the store, the open batch, the requester, the time.

Handlers raise ``RequestError`` to refuse a request; the server turns it into an ``error``
reply carrying Grid Engine's message. A handler that answers later (``wait``) returns
``DEFERRED`` and keeps the requester's address to reply when the answer exists.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from common import task_ranges
from common.model import UserInfo
from qmaster.store import Batch, Store

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


@dataclass
class Waiter:
    identity: bytes
    request_id: int
    job_ids: set[int]
    unfinished: set[int] = field(default_factory=set)  # shrinks as jobs finish


@dataclass
class Services:
    """Long-lived state of the server that handlers may use besides the store."""

    epoch: str
    qmaster_host: str = ""  # the qmaster's own host name (local clients come from it)
    waiters: list[Waiter] = field(default_factory=list)
    # host -> the routing id of the connection its execd last proved itself on
    execd_routes: dict[str, bytes] = field(default_factory=dict)
    auto_add_hosts: bool = False
    default_slots: int = 0
    refused_orders: int = 0
    seq: int = 0  # sequence number of the last published event
    log: Any = None  # structlog logger of the daemon, or None

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
