"""Parallel tasks of a job (qrsh -inherit, sge_pe(5) ``control_slaves``): whether one may
start, its id, and the book the qmaster keeps of a job's tasks. Pure: data in, data out.

A job of a parallel environment with ``control_slaves TRUE`` may start tasks of its own
(an MPI library's daemons) on the hosts it was granted, each under a shepherd of its own,
limited, accounted and ended with the job. ``decide`` says whether a ``pe_task_start``
request may go ahead, and why not in Grid Engine's words; ``allowed_on_host`` how many
tasks may run on a host at once: the slots granted there, less one on the master host
when ``job_is_first_task`` is TRUE (the job's own script is the first task).

The qmaster keeps one book per job task (``PeBook``, spooled as kind ``petasks`` under
the task's key): the next task number and the tasks that run. A task is known by
``<number>.<host>`` as 8.1.9 names it (accounting's ``pe_taskid``); its number also
names its directory on the execution host. With ``accounting_summary TRUE`` the tasks'
usage is summed into the book (``summary``) and written in the job's one record.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from common.conf_values import ConfError, parse_bool
from common.jobstate import State

# Tasks of one job that may be known at once (those running and those whose end the
# execds have not reported yet): bounds a job's book whatever its slots.
MAX_BOOK_TASKS = 4096
MAX_TASK_NUMBER = 1 << 30  # common.wire MAX_PE_TASK_SEQ
# Usage figures summed for accounting_summary (the result fields of common.wire)
SUMMED = ("ru_utime", "ru_stime", "ru_minflt", "ru_majflt", "ru_inblock", "ru_oublock",
          "ru_nvcsw", "ru_nivcsw", "cpu", "mem", "io", "iow")
MAXED = ("ru_maxrss", "maxvmem")

# What 8.1.9 says (tests/data/reference/pe). Its qrsh -inherit sends the task to the
# host's execd, which refuses it with one of the reasons below in its messages file,
# while the client only hears that the execd "didn't accept task" (REFUSED); a host no
# execd answers for cannot be sent the task at all (UNREACHABLE).
NOT_HERE = "received task belongs to job {job_id} but that job is not here"
NOT_SUITED = "received task belongs to job {job_id} but that job is not suited for " \
             "starting tasks"
NOT_OWNER = 'user "{user}" is not the owner of job {job_id}'
NO_FREE_SLOT = "no free queue for job {job_id} of user {user}@{host} (localhost = {host})"
TOO_MANY = "job {job_id} has {count} tasks, the most one job may have"
NUMBERS_USED = "job {job_id} has started every task it may start"
STARTING = "executing task of job {job_id} failed: {why}"
REFUSED = 'execution daemon on host "{host}" didn\'t accept task'
UNREACHABLE = "failed sending task to execd@{host}: can't resolve host name"
TASK_FAILED = "tightly integrated parallel task {job_id}.{task_id} task {pe_task_id} " \
              "failed - killing job"


@dataclass(frozen=True)
class Running:
    """One task of the book: where it runs."""

    number: int
    host: str
    queue: str
    started: float

    def to_dict(self) -> dict[str, Any]:
        return {"number": self.number, "host": self.host, "queue": self.queue,
                "started": self.started}


@dataclass(frozen=True)
class PeBook:
    """The parallel tasks of one job task, as the qmaster keeps and spools them."""

    next_number: int = 1
    tasks: Mapping[str, Running] = field(default_factory=dict)  # pe_task_id -> task
    summary: Mapping[str, float] = field(default_factory=dict)  # accounting_summary
    # accounting_summary: the job's record, once its own task ended, waiting for the
    # reports of its tasks still running then (their usage is added to it)
    held: Mapping[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"next": self.next_number,
                "tasks": {tid: t.to_dict() for tid, t in self.tasks.items()},
                "summary": dict(self.summary),
                "held": dict(self.held) if self.held is not None else None}

    @classmethod
    def from_dict(cls, data: Any) -> PeBook:
        """A spooled book, checked (ValueError for one that is not)."""
        if not isinstance(data, dict):
            raise ValueError("a pe task book is a map")
        number = data.get("next")
        tasks = data.get("tasks")
        summary = data.get("summary", {})
        if type(number) is not int or not 1 <= number <= MAX_TASK_NUMBER + 1 or \
                not isinstance(tasks, dict) or not isinstance(summary, dict) or \
                len(tasks) > MAX_BOOK_TASKS:
            raise ValueError("pe task book fields of the wrong type")
        read = {}
        for tid, t in tasks.items():
            if not isinstance(tid, str) or not isinstance(t, dict) or \
                    type(t.get("number")) is not int or \
                    not isinstance(t.get("host"), str) or \
                    not isinstance(t.get("queue"), str) or \
                    not isinstance(t.get("started"), (int, float)):
                raise ValueError("pe task fields of the wrong type")
            read[tid] = Running(t["number"], t["host"], t["queue"], float(t["started"]))
        if not all(isinstance(k, str) and isinstance(v, (int, float))
                   for k, v in summary.items()):
            raise ValueError("pe task summary of the wrong type")
        held = data.get("held")
        if held is not None and not isinstance(held, dict):
            raise ValueError("held record of the wrong type")
        return cls(number, read, {k: float(v) for k, v in summary.items()}, held)

    def running_on(self, host: str) -> int:
        return sum(1 for t in self.tasks.values() if t.host == host)

    def started(self, task_id: str, task: Running) -> PeBook:
        return PeBook(task.number + 1, {**self.tasks, task_id: task}, self.summary,
                      self.held)

    def ended(self, task_id: str, usage: Mapping[str, Any] | None = None) -> PeBook:
        """The book without ``task_id``; ``usage``: its figures added to the summary."""
        tasks = {k: v for k, v in self.tasks.items() if k != task_id}
        return PeBook(self.next_number, tasks,
                      summed(self.summary, usage) if usage is not None else self.summary,
                      self.held)

    def releasable(self) -> bool:
        """A held record whose last task has reported."""
        return self.held is not None and not self.tasks

    def by_number(self, number: int) -> tuple[str, Running] | None:
        return next(((tid, t) for tid, t in self.tasks.items() if t.number == number), None)


def released(record: Mapping[str, Any], summary: Mapping[str, float]) -> dict[str, Any]:
    """A held record of the job with the usage of the tasks that reported after it."""
    out = dict(record)
    for name, value in summed({k: float(record.get(k) or 0) for k in (*SUMMED, *MAXED)},
                              summary).items():
        out[name] = int(value) if isinstance(record.get(name), int) else value
    return out


def summed(total: Mapping[str, float], usage: Mapping[str, Any]) -> dict[str, float]:
    """``total`` with a task's usage added (maxima for the peak figures)."""
    out = dict(total)
    for name in SUMMED:
        out[name] = out.get(name, 0.0) + float(usage.get(name) or 0.0)
    for name in MAXED:
        out[name] = max(out.get(name, 0.0), float(usage.get(name) or 0.0))
    return out


def with_summary(usage: Mapping[str, Any], summary: Mapping[str, float]) -> dict[str, Any]:
    """A master task's usage with its parallel tasks' summary added (accounting_summary
    TRUE: one record for the whole job)."""
    return {**usage, **summed({k: float(usage.get(k) or 0.0) for k in (*SUMMED, *MAXED)},
                              summary)} if summary else dict(usage)


def task_name(number: int, host: str) -> str:
    """``<number>.<host>``: 8.1.9's id of a parallel task (its short host name)."""
    return f"{number}.{host.split('.')[0]}"


def granted_hosts(granted: Iterable[Sequence[Any]]) -> list[str]:
    """The job's hosts, in the order it was granted them."""
    out: list[str] = []
    for _, host, _ in granted:
        if host not in out:
            out.append(str(host))
    return out


def find_granted(granted: Iterable[Sequence[Any]], host: str) -> str | None:
    """The granted host that ``host`` names (the name as granted, then as Grid Engine
    compares host names: without case, and a short name is its FQDN's first label, so
    ``node1`` is ``node1.example.org`` but ``node1.a.org`` is not ``node1.b.org``), or
    None."""
    hosts = granted_hosts(granted)
    if host in hosts:
        return host
    return next((h for h in hosts if _same_host(h, host)), None)


def _same_host(a: str, b: str) -> bool:
    a, b = a.rstrip(".").lower(), b.rstrip(".").lower()
    if a == b:
        return True
    if "." in a and "." in b:
        return False
    return a.split(".", 1)[0] == b.split(".", 1)[0]


def allowed_on_host(granted: Iterable[Sequence[Any]], host: str, master_host: str,
                    job_is_first_task: bool) -> int:
    """How many parallel tasks may run on ``host`` at once: the slots granted there,
    one less on the master host when the job's own script is the first task."""
    slots = sum(int(s) for _, h, s in granted if h == host)
    if host == master_host and job_is_first_task:
        slots -= 1
    return max(0, slots)


def queue_on_host(granted: Iterable[Sequence[Any]], host: str) -> str:
    """The (first) queue the job was granted on ``host``."""
    return next(str(q) for q, h, _ in granted if h == host)


@dataclass(frozen=True)
class Grant:
    host: str  # as granted
    queue: str
    task_id: str  # <number>.<host>
    number: int


def decide(*, job_id: int, owner: str, user: str, state: State | None,
           granted: Sequence[Sequence[Any]], master_host: str, pe_name: str | None,
           pe: Sequence[Sequence[str]] | None, host: str, book: PeBook) -> Grant | str:
    """Whether a parallel task of job ``job_id`` may start on ``host`` now: the Grant,
    or why not (the execd's words of 8.1.9, for the log: the client is told REFUSED).
    Checked as 8.1.9's execd does: the job runs on the host, the caller owns it, its PE
    lets it control its tasks, a slot is free there."""
    name = find_granted(granted, host)
    if state not in (State.RUNNING, State.TRANSFERRING) or name is None:
        return NOT_HERE.format(job_id=job_id)
    if user != owner:
        return NOT_OWNER.format(user=user, job_id=job_id)
    if not pe_name or not _true(_attr(pe or [], "control_slaves", "FALSE")):
        return NOT_SUITED.format(job_id=job_id)
    if len(book.tasks) >= MAX_BOOK_TASKS:
        return TOO_MANY.format(job_id=job_id, count=len(book.tasks))
    if book.next_number > MAX_TASK_NUMBER:
        return NUMBERS_USED.format(job_id=job_id)
    first = _true(_attr(pe or [], "job_is_first_task", "TRUE"))
    if book.running_on(name) >= allowed_on_host(granted, name, master_host, first):
        return NO_FREE_SLOT.format(job_id=job_id, user=owner, host=name)
    return Grant(name, queue_on_host(granted, name), task_name(book.next_number, name),
                 book.next_number)


def pe_flag(pe: Sequence[Sequence[str]] | None, name: str, default: str) -> bool:
    """A boolean attribute of a PE's configuration (``control_slaves``, ...)."""
    return pe is not None and _true(_attr(pe, name, default))


def _attr(pairs: Sequence[Sequence[str]], name: str, default: str) -> str:
    return next((str(v) for k, v in pairs if k == name), default)


def _true(text: str) -> bool:
    try:
        return parse_bool(text)
    except ConfError:
        return False
