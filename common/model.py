"""The object model shared by qmaster, scheduler and clients: jobs, tasks, hosts.

Objects are plain dataclasses that turn into msgpack-able dicts (``to_dict``) and back
(``from_dict``); the same dict is what the spool stores and what events carry. Configuration
objects (queues, host groups, parallel environments, the global configuration) stay as
ordered lists of ``[name, value]`` string pairs, exactly as Grid Engine shows them, and are
read through ``common.conf_values``.

A job is what ``qsub`` submitted (immutable after submission except for ``qalter``); a task
is one schedulable unit of it (task 1 for a non-array job) and carries the state, the holds
and where it runs. As in Grid Engine, a task becomes an object of its own (a ``Task``, it is
"enrolled") only when it is dispatched or changed on its own (held, deleted or altered by
task id); until then it is an id in its job's ``TaskRanges``, which all share one state.
Every object has a ``version`` that increases with each change, so that scheduler orders
computed from an old view can be refused.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from common.jobstate import State
from common.userinfo import UserInfo as UserInfo  # (re-exported: the qmaster takes it here)

# configuration kinds kept as ordered [name, value] pair lists, by the qmaster's store and
# the scheduler's mirror ("complex": the complex list; "rqs": resource quota sets;
# "calendar": calendar_conf(5); "user": user(5); "ckpt": checkpoint(5); "sharetree":
# share_tree(5), one object
# "sharetree" as common.objects_conf.sharetree's pairs)
CONF_KINDS = ("queue", "hgrp", "exechost", "pe", "conf", "sconf", "complex", "userset",
              "rqs", "project", "calendar", "user", "sharetree", "ckpt")
# Kinds whose objects keep 8.1.9's master-list order, a new or changed one last: resource
# quota sets apply in that order, and the first that refuses is the one named.
ORDERED_KINDS = ("rqs",)


class _DictMixin:
    _names: ClassVar[tuple[str, ...]]
    _name_set: ClassVar[frozenset[str]]

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self._names}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Any:
        if data.keys() <= cls._name_set:  # as we wrote it: no field to drop (a restart
            return cls(**data)            # reads 100,000s of these)
        return cls(**{k: v for k, v in data.items() if k in cls._names})


@dataclass(slots=True)
class Job(_DictMixin):
    job_id: int
    owner: str
    uid: int
    group: str
    gid: int
    submit_time: float
    opts: dict[str, Any]               # clients.qsub.options.SubmitOptions.to_dict()
    sge_o: dict[str, str]              # HOME LOGNAME PATH SHELL WORKDIR HOST MAIL
    script: bytes | None = None        # stored script contents (None for binary jobs)
    version: int = 1
    umask: int = 0o022                 # the submitter's; the job runs with it

    @property
    def name(self) -> str:
        return str(self.opts.get("job_name") or "")

    @property
    def is_array(self) -> bool:
        return bool(self.opts.get("array"))

    @property
    def array_range(self) -> list[int]:
        """``[first, last, step]`` of ``-t`` (``[1, 1, 1]`` for a job without it)."""
        array = self.opts.get("array")
        return [int(v) for v in array] if array else [1, 1, 1]

    @property
    def priority(self) -> int:
        return int(self.opts.get("priority") or 0)

    def summary(self, with_script: bool = False) -> dict[str, Any]:
        """The job as queries show it: without its script (unless ``with_script``) and
        never with its session's token, which only the execd of the job gets, in the
        start record (common.builtin_session: whoever holds it can take the session
        over). Events and snapshots carry ``common.placement.job.placement_record``."""
        data = self.to_dict()
        if not with_script:
            data["script"] = None
        session = self.opts.get("session")
        if session:
            data["opts"] = {**self.opts, "session": {k: v for k, v in session.items()
                                                     if k != "token"}}
        return data


@dataclass(slots=True)
class Task(_DictMixin):
    job_id: int
    task_id: int
    state: str = State.PENDING
    holds: list[str] = field(default_factory=list)       # "u", "o", "s", "h" (-hold_jid), "d" (-hold_jid_ad)
    error_reason: str = ""
    suspend_reasons: list[str] = field(default_factory=list)
    queue: str | None = None                              # cluster queue name
    host: str | None = None
    slots: int = 1
    granted: list[list[Any]] = field(default_factory=list)  # [[queue, host, slots], ...]
    granted_pe: str | None = None                         # the PE a -pe pattern got
    dispatch_time: float | None = None
    start_time: float | None = None
    end_time: float | None = None
    exit_status: int | None = None
    signal: int = 0
    failed: int = 0
    failed_reason: str = ""
    usage: dict[str, Any] = field(default_factory=dict)
    deleted_by: str | None = None
    reschedule: bool = False    # back to pending when the execd reports its end (qmod -rj)
    restarts: int = 0           # times the task was started again (RESTARTED, qacct)
    version: int = 1

    @property
    def key(self) -> str:
        return task_key(self.job_id, self.task_id)

    @property
    def state_enum(self) -> State:
        return State(self.state)


@dataclass(slots=True)
class TaskRanges(_DictMixin):
    """The tasks of a job that are not enrolled: ids in range lists (common.task_ranges).

    ``pending`` tasks wait with ``holds`` (hold state when there are any); a qdel of the
    whole job moves them to ``deleted`` (finished, never started). ``version`` rises with
    every change but the dispatch of one of them, so that an order computed before a hold
    or a ``qalter`` is refused, while orders for several tasks of one array in one pass
    are not."""

    job_id: int
    pending: list[list[int]] = field(default_factory=list)
    holds: list[str] = field(default_factory=list)
    deleted: list[list[int]] = field(default_factory=list)
    deleted_by: str | None = None
    version: int = 1

    @property
    def state(self) -> State:
        return State.HOLD if self.holds else State.PENDING


@dataclass(slots=True)
class ExecHost(_DictMixin):
    """Runtime state of an execution host as its execd reports it."""

    name: str
    load: dict[str, str] = field(default_factory=dict)
    # what its load sensors report for the global host (``global:name:value``)
    global_load: dict[str, str] = field(default_factory=dict)
    load_time: float = 0.0
    alive: bool = False
    version: int = 1


for _cls in (Job, Task, TaskRanges, ExecHost):
    _cls._names = tuple(f.name for f in fields(_cls))
    _cls._name_set = frozenset(_cls._names)


def task_key(job_id: int, task_id: int) -> str:
    return f"{job_id}.{task_id}"
