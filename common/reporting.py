"""The reporting file ($SGE_ROOT/$SGE_CELL/common/reporting, reporting(5)) as 8.1.9 writes
it, and ``reporting_params`` (sge_conf(5)): which records are written and when.

Records are colon-separated lines that begin with the time they were written and their
type: ``new_job`` (a submission), ``job_log`` (each step of a job's life, with
``joblog=true``) and ``acct`` (a finished task's accounting record, in the accounting
file's format). This module parses the parameters, formats the records (word for word as
captured in tests/data/reference/reporting/) and turns the qmaster's published task
changes into job_log steps (``JobLogState``); qmaster.reporting writes them. Pure.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from common.conf_values import ConfError, parse_time, split_assignments

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


_BOOLS = {"true": True, "false": False, "1": True, "0": False}


def parse_params(text: str) -> ReportingParams:
    """``reporting_params``; ConfError in 8.1.9's words for a bad one. ``sharelog`` other
    than 00:00:00 is refused: the share tree records are not written (docs)."""
    values: dict[str, Any] = {}
    for name, value in split_assignments(text.replace("\\\n", " ")):
        key = name.strip().lower()
        if key in ("accounting", "reporting", "joblog"):
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
    params = ReportingParams(**values)
    if params.sharelog:
        raise ConfError("attribute reporting_params: sharelog is not supported: this "
                        "version writes no share tree records (only sharelog=00:00:00)")
    return params


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
    """A task deleted before it ran: 8.1.9's two steps."""
    shown = task_id if job.is_array else 0
    return [job_log_line(now, job, "deleted", shown, "", deleted_by, qmaster_host,
                         "job deleted"),
            job_log_line(now, job, "finished", shown, "", "master", qmaster_host,
                         "job exited")]


# the task states of common.jobstate as the letters job_log shows
_LETTERS = {"transferring": "t", "running": "r", "suspended": "s", "finished": "r",
            "deleted": "r"}  # (deletion asked: still running until the execd reports)


@dataclass
class JobLogState:
    """The last step logged of each task that has not ended (task key -> state), so that
    a task published again in the same state logs nothing."""

    last: dict[str, str] = field(default_factory=dict)

    def steps(self, now: int, job: JobFacts, task: Mapping[str, Any], qmaster_host: str
              ) -> list[str]:
        """The job_log lines of one published task, as 8.1.9 logs the same steps."""
        key = f"{job.job_id}.{task['task_id']}"
        state = str(task.get("state"))
        previous = self.last.get(key)
        if state == previous:
            return []
        task_id = int(task["task_id"]) if job.is_array else 0
        letter = _LETTERS.get(previous or "", "")
        out: list[str] = []
        if state == "transferring":
            out.append(job_log_line(now, job, "sent", task_id, "t", "master", qmaster_host,
                                    "sent to execd"))
        elif state == "running" and previous in (None, "transferring", "pending"):
            if previous != "transferring":
                out.append(job_log_line(now, job, "sent", task_id, "t", "master",
                                        qmaster_host, "sent to execd"))
            out.append(job_log_line(now, job, "delivered", task_id, "r", "master",
                                    qmaster_host, "job received by execd"))
        elif state == "finished":
            deleted_by = task.get("deleted_by")
            if deleted_by and previous not in ("running", "suspended", "transferring",
                                               "deleted"):
                out += pending_deleted(now, job, int(task["task_id"]), str(deleted_by),
                                       qmaster_host)
            else:
                host = str(task.get("host") or qmaster_host)
                if deleted_by:
                    out.append(job_log_line(now, job, "deleted", task_id, letter,
                                            "execution daemon", host, "job removed "))
                else:
                    out.append(job_log_line(now, job, "finished", task_id, letter or "r",
                                            "execution daemon", host, "job exited"))
                out.append(job_log_line(now, job, "finished", task_id, letter or "r",
                                        "master", qmaster_host,
                                        "job waits for scheduler's deletion"))
                out.append(job_log_line(now, job, "deleted", task_id, "T", "scheduler",
                                        qmaster_host, "job deleted by scheduler"))
            self.last.pop(key, None)
            return out
        elif state == "suspended" and previous in ("running", "transferring"):
            out.append(job_log_line(now, job, "suspended", task_id, "r", job.owner,
                                    qmaster_host, ""))
        elif state == "running" and previous == "suspended":
            out.append(job_log_line(now, job, "unsuspended", task_id, "r", job.owner,
                                    qmaster_host, ""))
        elif state == "error":
            host = str(task.get("host") or qmaster_host)
            if previous == "transferring":  # (the execd had it: 8.1.9 logs it delivered)
                out.append(job_log_line(now, job, "delivered", task_id, "r", "master",
                                        qmaster_host, "job received by execd"))
            out.append(job_log_line(now, job, "error", task_id, "r", "execution daemon",
                                    host, "job set in error state "))
            out.append(job_log_line(now, job, "restart", task_id, "r", "master",
                                    qmaster_host,
                                    f"rescheduling job {job.job_id}.{task['task_id']}"))
        elif state == "deleted" and task.get("deleted_by"):
            out.append(job_log_line(now, job, "deleted", task_id, letter or "r",
                                    str(task["deleted_by"]), qmaster_host, "job deleted"))
        self.last[key] = state
        return out
