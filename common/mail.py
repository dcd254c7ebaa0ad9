"""The mails Grid Engine 8.1.9 sends about jobs and advance reservations: who gets them
(``-M``, ``-m``, ``administrator_mail``), their subjects and bodies, and how the mailer
is called. Pure: data in, ``Mail`` out (times are epoch floats shown in local time, as
8.1.9's daemons show them); qmaster.mail sends them.

What 8.1.9 writes, and when, was captured with its mailer set to a script that records
its arguments and input (tests/data/reference/mail/, README.md there):

- the mailer is run once per recipient as ``mail -s <subject> <recipient>`` (argv[0]
  "mail", the configured path as the program), the body and a newline on its stdin;
- ``-m b``: "Started" when the task starts (queue: the cluster queue's name);
- ``-m e``: "Complete" when it ends without a failure; a failure (``failed`` != 0: killed
  by qdel, a failed start, exit 99 or 100) sends the state mail ("Aborted",
  "Rescheduled", "Set in error state", ...) to ``-m e`` or ``-m a``;
- ``-m a``: also "Killed" when the owner or a manager deletes a running task;
- ``-m s``: "Suspended" and "Continued" when its processes are stopped and continued,
  with a body of one empty line (8.1.9 overwrites the body it composed);
- recipients: the ``-M`` list as given, else ``owner@submit host``; an advance
  reservation mails only its ``-M`` list ("Started", "Finished", "Deleted");
- ``administrator_mail`` gets "<product>: Job N failed" for the failures a shepherd
  reports that are the job's, the queue's or the host's fault (ADMIN_MAIL_FAILURES).
"""
from __future__ import annotations

import signal as _signal
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

PRODUCT = "SGE 8.1.9"  # the product name 8.1.9 puts before an administrator mail's subject
UNKNOWN = "<unknown>"
# 8.1.9 cuts the shepherd's error text of a state mail to this many characters
STATE_ERROR_CHARS = 100
MAIL_LETTERS = "abes"
# The failure codes (accounting(5) "failed") for which 8.1.9's execd mails the
# administrator (reaper_execd.c): failures before, around or instead of the job; not a
# reschedule (24, 25), not a job killed by a signal or a limit (100, 37), not success.
ADMIN_MAIL_FAILURES = frozenset({4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
                                 20, 21, 26, 27, 28, 29, 30, 32, 33, 34, 35, 36})
# failure codes whose state mail names the action taken whatever else happened
ACTION_BY_FAILURE = {24: "Migrates", 25: "Rescheduled",
                     30: "Rescheduled due to application error"}
ERROR_STATE_COMMENT = ('\nUse "qmod -c <jobid>" to clear job error state\n'
                       "once the problem is fixed.")


@dataclass(frozen=True)
class Mail:
    """One mail to ``recipients``; ``kind`` says which event it is about (for logs)."""

    recipients: tuple[str, ...]
    subject: str
    body: str
    kind: str = ""

    def stdin(self) -> bytes:
        """What the mailer reads: the body and a newline (``fprintf("%s\\n")``)."""
        return (self.body + "\n").encode(errors="replace")


def mailer_argv(subject: str, recipient: str) -> list[str]:
    """The mailer's argv (the program is the configured ``mailer`` path)."""
    return ["mail", "-s", subject, recipient]


def wants(mail_options: str, letter: str) -> bool:
    """Whether ``-m <mail_options>`` asks for mail at ``letter`` (b, e, a, s)."""
    return letter in (mail_options or "") and "n" not in (mail_options or "")


def job_recipients(mail_list: Iterable[str], owner: str, submit_host: str | None
                   ) -> tuple[str, ...]:
    """-M as given, else the owner at the submit host (qsub's default mail list)."""
    given = tuple(dict.fromkeys(str(m) for m in mail_list if m))
    if given:
        return given
    return (f"{owner}@{submit_host}" if submit_host else owner,)


def valid_address(text: str) -> bool:
    """A recipient the mailer may get as its last argument: ``user[@host]`` without
    blanks or control characters, not starting with "-" (which a mailer would take for
    an option: mailutils' mail has ``--exec``)."""
    return bool(text) and len(text) <= 1024 and not text.startswith("-") and \
        text.isprintable() and not any(c.isspace() for c in text)


def address_list(text: str) -> tuple[str, ...]:
    """``administrator_mail``: ``user[@host],...``; none for NONE or empty."""
    if not text or text.strip().lower() == "none":
        return ()
    return tuple(dict.fromkeys(a.strip() for a in text.replace(" ", ",").split(",")
                               if a.strip()))


# ---------------------------------------------------------------- formats of values

def ctime(ts: float | None) -> str:
    """sge_ctime(): ``11/28/2026 05:53:59``, or <unknown>."""
    if ts is None or ts <= 0:
        return UNKNOWN
    return time.strftime("%m/%d/%Y %H:%M:%S", time.localtime(ts))


def hms(seconds: float) -> str:
    """double_print_time_to_dstring(): ``HH:MM:SS``, hours unbounded."""
    secs = max(int(seconds), 0)
    return f"{secs // 3600:02d}:{secs % 3600 // 60:02d}:{secs % 60:02d}"


def memory(value: float) -> str:
    """double_print_memory_to_dstring(): ``3.012M`` (1024-based, 3 decimals)."""
    for unit, size in (("T", 1024.0 ** 4), ("G", 1024.0 ** 3), ("M", 1024.0 ** 2),
                       ("K", 1024.0)):
        if abs(value) >= size:
            return f"{value / size:.3f}{unit}"
    return f"{abs(value):.3f}"


def signal_name(number: int) -> str:
    """sge_sig2str(): ``KILL``, ``TERM``, ... and "unknown signal" for none."""
    try:
        return _signal.Signals(number).name.removeprefix("SIG") if number else \
            "unknown signal"
    except ValueError:
        return "unknown signal"


# ---------------------------------------------------------------- jobs

@dataclass(frozen=True)
class TaskFacts:
    """What the mails about one task of a job say."""

    job_id: int
    task_id: int | None  # None: not an array job (the mails then name the job)
    name: str
    owner: str
    queue: str = ""      # the cluster queue
    host: str = ""
    start: float | None = None
    end: float | None = None

    @property
    def label(self) -> str:
        if self.task_id is None:
            return f"Job {self.job_id} ({self.name})"
        return f"Job-array task {self.job_id}.{self.task_id} ({self.name})"

    @property
    def instance(self) -> str:
        return f"{self.queue}@{self.host}" if self.queue and self.host else \
            self.queue or UNKNOWN


def started(t: TaskFacts) -> tuple[str, str]:
    """(subject, body) of ``-m b`` (exec_job.c)."""
    subject = f"{t.label} Started"
    return subject, (f"{subject}\n User       = {t.owner}\n Queue      = {t.queue}\n"
                     f" Host       = {t.host}\n Start Time = {ctime(t.start)}")


def completed(t: TaskFacts, usage: Mapping[str, Any], exit_status: int) -> tuple[str, str]:
    """(subject, body) of ``-m e`` for a task that ended without a failure."""
    subject = f"{t.label} Complete"
    wall = usage.get("ru_wallclock")
    if wall is None:
        wall = (t.end or 0) - (t.start or 0) if t.start and t.end else 0
    return subject, (
        f"{subject}\n User             = {t.owner}\n Queue            = {t.instance}\n"
        f" Host             = {t.host}\n Start Time       = {ctime(t.start)}\n"
        f" End Time         = {ctime(t.end)}\n"
        f" User Time        = {hms(float(usage.get('ru_utime') or 0))}\n"
        f" System Time      = {hms(float(usage.get('ru_stime') or 0))}\n"
        f" Wallclock Time   = {hms(float(wall))}\n"
        f" CPU              = {_cpu(usage)}\n Max vmem         = {_vmem(usage)}\n"
        f" Exit Status      = {exit_status}")


def state_action(failed: int, error_state: bool) -> str:
    """The action a state mail's subject names."""
    if failed in ACTION_BY_FAILURE:
        return ACTION_BY_FAILURE[failed]
    return "Set in error state" if error_state else "Aborted"


def state_changed(t: TaskFacts, *, failed: int, failed_reason: str, error: str,
                  exit_status: int | None, signal: int, usage: Mapping[str, Any],
                  error_state: bool) -> tuple[str, str]:
    """(subject, body) of the mail about a failed task (``-m a`` or ``-m e``):
    reaper_execd.c's MSG_MAIL_BODY_STATE; ``exit_status`` None: the job never ran."""
    action = state_action(failed, error_state)
    subject = f"{t.label} {action}"
    comment = ERROR_STATE_COMMENT if action == "Set in error state" else ""
    why = (error or "unknown reason")[:STATE_ERROR_CHARS]
    status = -1 if exit_status is None else exit_status
    return subject, (
        f"{subject}\n Exit Status      = {status}\n Signal           = {signal_name(signal)}\n"
        f" User             = {t.owner}\n Queue            = {t.instance}\n"
        f" Host             = {t.host}\n Start Time       = {ctime(t.start)}\n"
        f" End Time         = {ctime(t.end)}\n"
        f" CPU              = {_cpu(usage) if exit_status is not None else 'NA'}\n"
        f" Max vmem         = {_vmem(usage)}\n"
        f"failed {failed_reason} because:\n{why}{comment}")


def killed(t: TaskFacts, user: str, host: str) -> tuple[str, str]:
    """(subject, body) of ``-m a`` when a running task is deleted (sge_job_qmaster.c;
    the job's body has two blanks before "was", as 8.1.9's)."""
    subject = f"{t.label} Killed"
    gap = "  " if t.task_id is None else " "
    return subject, f"{t.label}{gap}was killed by {user}@{host}"


def suspended(t: TaskFacts, stopped: bool) -> tuple[str, str]:
    """(subject, body) of ``-m s``: the body is one empty line, as 8.1.9 sends it."""
    return f"{t.label} {'Suspended' if stopped else 'Continued'}", "\n"


def admin_failure(t: TaskFacts, *, failed_reason: str, error: str) -> tuple[str, str]:
    """(subject, body) of the administrator's mail about a failed task (admin_mail.c;
    8.1.9 appends its shepherd's trace, error and pe_hostfile files: we have the error)."""
    what = f"Job-array task {t.job_id}.{t.task_id}" if t.task_id is not None \
        else f"Job {t.job_id}"
    subject = f"{PRODUCT}: {what} failed"
    body = (f"Job {t.job_id} caused action: none\n User        = {t.owner}\n"
            f" Queue       = {t.instance}\n Start Time  = {ctime(t.start)}\n"
            f" End Time    = {ctime(t.end)}\nfailed {failed_reason}: {error}")
    if error:
        body += f"\nShepherd error:\n{error}\n"
    return subject, body


def _cpu(usage: Mapping[str, Any]) -> str:
    # 8.1.9 prints NA for a CPU time of exactly 0, which a job that ran never has there
    # (its shepherd's own start counts): a job that ran shows its time, even 00:00:00
    return hms(float(usage.get("cpu") or 0))


def _vmem(usage: Mapping[str, Any]) -> str:
    vmem = float(usage.get("maxvmem") or 0)
    return memory(vmem) if vmem else "NA"


# ---------------------------------------------------------------- advance reservations

def ar_mail(event: str, ar_id: int, name: str | None, owner: str, when: float
            ) -> tuple[str, str]:
    """(subject, body) of an advance reservation's mail: ``event`` is "start" (-m b),
    "end" or "delete" (-m e)."""
    label = f"Advance Reservation {ar_id} ({name or 'none'})"
    word, field = {"start": ("Started", "Start Time = "), "end": ("Finished", "End Time = "),
                   "delete": ("Deleted", "Delete Time = ")}[event]
    subject = f"{label} {word}"
    return subject, f"{subject}\n User       = {owner}\n {field}{ctime(when)}"


AR_LETTERS = {"start": "b", "end": "e", "delete": "e"}
