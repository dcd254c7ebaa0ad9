"""The reporting file ($SGE_ROOT/$SGE_CELL/common/reporting, reporting(5)) as 8.1.9 writes
it, and ``reporting_params`` (sge_conf(5)): which records are written and when.

Records are colon-separated lines that begin with the time they were written and their
type: ``new_job`` (a submission), ``job_log`` (each step of a job's life, with
``joblog=true``), ``acct`` (a finished task's accounting record, in the accounting
file's format), ``host`` (a load report's values named by ``report_variables``),
``host_consumable``/``queue_consumable`` (consumables when a job takes or frees them),
``queue`` (a queue instance's state changed), ``new_ar``/``ar_attr``/``ar_log``/``ar_acct``
(advance reservations) and ``sharelog`` (the share tree every ``sharelog`` interval).
This module parses the parameters, formats the records (word for word as captured in
tests/data/reference/reporting/) and turns the qmaster's published task changes into
job_log steps (``JobLogState``); qmaster.reporting writes them. Pure.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from common.conf_values import ConfError, parse_time, split_assignments
from common.jobstate import NOT_SCHEDULED
from common.policy import share_rows

HEADER = "# Version: 8.1.9\n# \n# DO NOT MODIFY THIS FILE MANUALLY!\n# \n"
FILE_NAME = "reporting"
DEFAULT = ("accounting=true reporting=false flush_time=00:00:15 joblog=false "
           "sharelog=00:00:00")
BASE_PRIORITY = 1024  # reporting(5) shows a job's -p plus 1024, as 8.1.9's JB_priority


@dataclass(frozen=True)
class ReportingParams:
    accounting: bool = True
    reporting: bool = False
    flush_time: float = 15.0
    joblog: bool = False
    sharelog: float = 0.0
    log_consumables: bool = False  # every consumable, not only report_variables' ones


_BOOLS = {"true": True, "false": False, "1": True, "0": False}


def parse_params(text: str) -> ReportingParams:
    """``reporting_params``; ConfError in 8.1.9's words for a bad one."""
    values: dict[str, Any] = {}
    for name, value in split_assignments(text.replace("\\\n", " ")):
        key = name.strip().lower()
        if key in ("accounting", "reporting", "joblog", "log_consumables"):
            if value.strip().lower() not in _BOOLS:
                raise ConfError(f'error parsing value "{text.strip()}"')
            values[key] = _BOOLS[value.strip().lower()]
        elif key in ("flush_time", "sharelog"):
            try:
                values[key] = parse_time(value.strip(), key)
            except (ConfError, ValueError):
                raise ConfError(f'error parsing value "{text.strip()}"') from None
        elif key in ("accounting_flush_time",):  # (8.1.9 knows it; we sync accounting anyway)
            continue
        elif key and key != "none":
            raise ConfError(f'error parsing value "{text.strip()}"')
    return ReportingParams(**values)


def _text(value: Any) -> str:
    """A field: no colon or line break can end up in the file (a user's job name)."""
    return str(value).replace(":", "_").replace("\n", " ").replace("\r", " ")


@dataclass(frozen=True)
class JobFacts:
    """What every record of a job repeats."""

    job_id: int
    name: str
    owner: str
    group: str
    project: str          # "" when none
    department: str
    account: str
    priority: int         # with BASE_PRIORITY added
    submission_time: int
    is_array: bool


def job_facts(job_id: int, opts: Mapping[str, Any], *, name: str, owner: str, group: str,
              submit_time: float, is_array: bool) -> JobFacts:
    return JobFacts(job_id, name, owner, group, str(opts.get("project") or ""),
                    "defaultdepartment", str(opts.get("account") or "sge"),
                    int(opts.get("priority") or 0) + BASE_PRIORITY, int(submit_time),
                    is_array)


def new_job_line(now: int, job: JobFacts) -> str:
    fields = [now, "new_job", job.submission_time, job.job_id, -1, "NONE", job.name,
              job.owner, job.group, job.project, job.department, job.account, job.priority]
    return ":".join(_text(f) for f in fields)


def job_log_line(now: int, job: JobFacts, event: str, task_id: int, state: str, user: str,
                 host: str, message: str) -> str:
    fields = [now, "job_log", now, event, job.job_id, task_id, "NONE", state, user, host, 0,
              job.priority, job.submission_time, job.name, job.owner, job.group, job.project,
              job.department, job.account, message]
    return ":".join(_text(f) for f in fields)


def acct_line(now: int, accounting_line: str) -> str:
    return f"{now}:acct:{accounting_line}"


def pending_deleted(now: int, job: JobFacts, task_id: int, deleted_by: str,
                    qmaster_host: str) -> list[str]:
    """A task deleted before it ran: 8.1.9's two steps; a ``qsub -now y`` job no pass
    could start: the scheduler's one."""
    shown = task_id if job.is_array else 0
    if deleted_by == NOT_SCHEDULED:
        return [job_log_line(now, job, "deleted", shown, "", "scheduler", qmaster_host,
                             "immediate job deleted by scheduler")]
    return [job_log_line(now, job, "deleted", shown, "", deleted_by, qmaster_host,
                         "job deleted"),
            job_log_line(now, job, "finished", shown, "", "master", qmaster_host,
                         "job exited")]


# the task states of common.jobstate as the letters job_log shows
_LETTERS = {"transferring": "t", "running": "r", "suspended": "s", "finished": "r",
            "deleted": "r"}  # (deletion asked: still running until the execd reports)


# a task's consumable records, made of its granted [queue, host, slots] entries when it
# takes (True) or frees (False) them
ConsumableLines = Callable[[JobFacts, list[list[Any]], bool], list[str]]
ACTIVE = frozenset({"transferring", "running", "suspended", "deleted"})
RESCHEDULED = "job didn't get resources -> schedule it again"  # (qmod -rj/-rq, exit 99)
NEVER_RAN = "job never ran -> schedule it again"  # (a queue error: prolog, epilog)


@dataclass(frozen=True)
class _Seen:
    state: str
    host: str
    granted: list[list[Any]]


@dataclass
class JobLogState:
    """The last step seen of each task that has not ended (task key -> state, and where
    it ran), so that a task published again in the same state logs nothing and a task
    sent back to pending still knows the host it left."""

    last: dict[str, _Seen] = field(default_factory=dict)

    def seen(self, key: str, state: str, host: str, granted: list[list[Any]]) -> None:
        """A task's step taken as already logged (a qmaster's start: its active tasks)."""
        self.last[key] = _Seen(state, host, [list(g) for g in granted])

    def steps(self, now: int, job: JobFacts, task: Mapping[str, Any], qmaster_host: str,
              *, joblog: bool = True, consumables: ConsumableLines | None = None
              ) -> list[str]:
        """The lines of one published task, as 8.1.9 writes the same steps: job_log
        lines (with ``joblog``) and, where a task takes or frees its slots and
        consumables, the records ``consumables`` makes of its grant."""
        key = f"{job.job_id}.{task['task_id']}"
        state = str(task.get("state"))
        seen = self.last.get(key)
        previous = seen.state if seen else None
        if state == previous:
            return []
        granted = [list(g) for g in task.get("granted") or []] or (seen.granted if seen
                                                                   else [])
        host = str(task.get("host") or (seen.host if seen else "") or qmaster_host)
        out: list[tuple[bool, str]] = []  # (a job_log line?, line)

        def log(event: str, letter: str, user: str, where: str, message: str) -> None:
            task_id = int(task["task_id"]) if job.is_array else 0
            out.append((True, job_log_line(now, job, event, task_id, letter, user, where,
                                           message)))

        def freed_or_taken(taking: bool = False) -> None:
            if consumables is not None and granted:
                out.extend((False, line) for line in consumables(job, granted, taking))

        self._step(job, task, state, previous, host, qmaster_host, log, freed_or_taken)
        if state == "finished":
            self.last.pop(key, None)
        else:
            self.last[key] = _Seen(state, host, granted)
        return [line for is_log, line in out if joblog or not is_log]

    @staticmethod
    def _step(job: JobFacts, task: Mapping[str, Any], state: str, previous: str | None,
              host: str, qmaster_host: str, log: Callable[..., None],
              freed_or_taken: Callable[..., None]) -> None:
        letter = _LETTERS.get(previous or "", "")
        if state == "transferring":
            log("sent", "t", "master", qmaster_host, "sent to execd")
            freed_or_taken(True)
        elif state == "running" and previous in (None, "transferring", "pending"):
            if previous != "transferring":
                log("sent", "t", "master", qmaster_host, "sent to execd")
                freed_or_taken(True)
            log("delivered", "r", "master", qmaster_host, "job received by execd")
        elif state == "finished":
            deleted_by = task.get("deleted_by")
            if deleted_by and previous not in ACTIVE:
                log("deleted", "", str(deleted_by), qmaster_host, "job deleted")
                log("finished", "", "master", qmaster_host, "job exited")
                return
            if deleted_by:
                log("deleted", letter, "execution daemon", host, "job removed ")
            else:
                log("finished", letter or "r", "execution daemon", host, "job exited")
            log("finished", letter or "r", "master", qmaster_host,
                "job waits for scheduler's deletion")
            freed_or_taken()
            log("deleted", "T", "scheduler", qmaster_host, "job deleted by scheduler")
        elif state == "pending" and previous in ACTIVE:
            # sent back to pending (qmod -rj/-rq, exit 99; a failed prolog or epilog,
            # whose reason the task keeps): its run ends, its grant is freed
            log("restart", "r", "execution daemon", host,
                NEVER_RAN if task.get("error_reason") else RESCHEDULED)
            log("restart", "r", "master", qmaster_host,
                f"rescheduling job {job.job_id}.{task['task_id']}")
            freed_or_taken()
        elif state == "suspended" and previous in ("running", "transferring"):
            log("suspended", "r", job.owner, qmaster_host, "")
        elif state == "running" and previous == "suspended":
            log("unsuspended", "r", job.owner, qmaster_host, "")
        elif state == "error":
            if previous == "transferring":  # (the execd had it: 8.1.9 logs it delivered)
                log("delivered", "r", "master", qmaster_host, "job received by execd")
            log("error", "r", "execution daemon", host, "job set in error state ")
            log("restart", "r", "master", qmaster_host,
                f"rescheduling job {job.job_id}.{task['task_id']}")
            if previous in ACTIVE:
                freed_or_taken()
        elif state == "deleted" and task.get("deleted_by"):
            log("deleted", letter or "r", str(task["deleted_by"]), qmaster_host,
                "job deleted")


# --------------------------------------------------------------------------- hosts, queues

def host_line(now: int, host: str, report_time: int, load: Mapping[str, str],
              variables: Sequence[str]) -> str | None:
    """A load report's ``host`` record: the values ``variables`` (the host's merged
    ``report_variables``, in their order) that the report has; None when it has none."""
    values = [f"{name}={load[name]}" for name in variables if name in load]
    if not values:
        return None
    return f"{now}:host:{_text(host)}:{report_time}:X:{_text(','.join(values))}"


@dataclass(frozen=True)
class Consumable:
    """One consumable of a level (host or queue instance) as 8.1.9 lists it: in use,
    and the configured capacity in its complex type's display form."""

    name: str
    used: float
    capacity: str


def consumables_text(level: Sequence[Consumable], logged: Callable[[str], bool]) -> str:
    """``name=used=capacity`` of the consumables ``logged`` lets through. 8.1.9 puts the
    comma after every entry but the level's last, logged or not (a quirk kept: a
    dropped last entry leaves a trailing comma)."""
    parts = []
    for index, item in enumerate(level):
        if logged(item.name):
            parts.append(f"{item.name}={item.used:f}={item.capacity}"
                         + ("," if index < len(level) - 1 else ""))
    return "".join(parts)


def host_consumable_line(now: int, host: str, consumables: str) -> str | None:
    if not consumables:
        return None
    return f"{now}:host_consumable:{_text(host)}:{now}:X:{_text(consumables)}"


def queue_line(now: int, queue: str, host: str, states: str) -> str:
    """A queue instance's new state letters (qstat's: ``d``, ``s``, ``ds``, "" none)."""
    return f"{now}:queue:{_text(queue)}:{_text(host)}:{now}:{_text(states)}"


def queue_consumable_line(now: int, queue: str, host: str, states: str, consumables: str
                          ) -> str | None:
    if not consumables:
        return None
    return (f"{now}:queue_consumable:{_text(queue)}:{_text(host)}:{now}:{_text(states)}:"
            f"{_text(consumables)}")


def job_requests_logged(requested: Iterable[str], variables: Iterable[str], every: bool
                        ) -> Callable[[str], bool]:
    """Which consumables a job's records show (8.1.9): with ``log_consumables`` every
    one; else those of the host's ``report_variables`` the job requested, and ``slots``
    (which every job takes) when listed."""
    if every:
        return lambda name: True
    listed, asked = frozenset(variables), frozenset(requested) | {"slots"}
    return lambda name: name in listed and name in asked


def merged_report_variables(own: Sequence[str], global_: Sequence[str]) -> list[str]:
    """host_conf(5): a host's own list, else the global host's."""
    return list(own) if own else list(global_)


# --------------------------------------------------------------------------- advance reservations

AR_EVENTS = {"start": ("START TIME REACHED", "start time of AR reached"),
             "end": ("TERMINATED", "end time of AR reached"),
             "deleted": ("DELETED", "AR deleted"),
             "unsatisfied": ("RESOURCES UNSATISFIED", "AR resources unsatisfied"),
             "satisfied": ("RESOURCES SATISFIED", "AR resources satisfied")}


def new_ar_lines(now: int, ar: Mapping[str, Any]) -> list[str]:
    """An AR granted: ``new_ar`` and ``ar_attr`` (name, account, window, granted PE and
    the ``-l`` requests, ``NONE`` without)."""
    submitted, ar_id = int(ar["submission_time"]), int(ar["ar_id"])
    resources = ",".join(f"{k}={v}" for k, v in (ar.get("hard_resources") or {}).items())
    return [f"{now}:new_ar:{submitted}:{ar_id}:{_text(ar.get('owner') or '')}",
            ":".join(_text(f) for f in (
                now, "ar_attr", now, submitted, ar_id, ar.get("name") or "",
                ar.get("account") or "", int(ar["start"]), int(ar["end"]),
                ar.get("granted_pe") or "", resources or "NONE"))]


def ar_log_line(now: int, ar: Mapping[str, Any], state: str, event: str) -> str:
    """An AR's ``ar_log`` line: its state letter as qrstat shows it then (``W``/``E``
    while a granted queue instance is unusable) and the event (AR_EVENTS)."""
    name, message = AR_EVENTS[event]
    return ":".join(_text(f) for f in (now, "ar_log", now, int(ar["submission_time"]),
                                       int(ar["ar_id"]), state, name, message))


def ar_end_lines(now: int, ar: Mapping[str, Any], state: str) -> list[str]:
    """An AR's end (``x``) or removal after qrdel (``d``): its ``ar_log`` line and an
    ``ar_acct`` line per granted queue instance with its slots."""
    out = [ar_log_line(now, ar, state, "end" if state == "x" else "deleted")]
    for queue, host, slots in ar.get("granted") or []:
        out.append(":".join(_text(f) for f in (now, "ar_acct", now,
                                               int(ar["submission_time"]), int(ar["ar_id"]),
                                               queue, host, int(slots))))
    return out


# --------------------------------------------------------------------------- share tree

def sharelog_lines(now: int, rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """``sharelog``: a line per share tree node (sge_share_mon's rows, every field
    followed by the delimiter, as 8.1.9's sharetree dump)."""
    out = []
    for row in rows:
        fields = []
        for name in share_rows.FIELDS:
            value = row.get(name)
            fields.append(_text(value or "") if name in share_rows.TEXT_FIELDS
                          else share_rows.number_text(name, value))
        out.append(f"{now}:sharelog:" + "".join(f"{f}:" for f in fields))
    return out
