"""The qmaster's mail: which job and advance reservation events make a mail (the texts are
common.mail's), queued in the request's batch and sent only once the batch is committed,
by ``MailSender``.

Where the events come from: ``on_transition`` is called by ``Store.transition`` (the one
place a task changes state: start, suspend, continue), ``task_ended`` by
``execd_link.finish_task`` (the one place a run's result arrives), ``task_killed`` by the
qdel of a running task, ``ar_event`` by the advance reservations' life cycle. 8.1.9's
execd sends most of these mails from the execution host; here the qmaster sends them all
(docs/compatibility.md).

The sender runs the configured ``mailer`` as a child process of the qmaster: argv
``mail -s <subject> <recipient>`` (no shell), the body on its stdin, a fixed clean
environment (never a user's) and working directory ``/``, in a session of its own, killed
after MAILER_TIMEOUT seconds. At most MAX_RUNNING run at a time and MAX_QUEUED wait; the
qmaster's loop never waits for one. A mailer that is missing, fails or hangs is logged and
changes nothing else: no job waits for its mail.
"""
from __future__ import annotations

import asyncio
import os
import signal
from collections import deque
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from common import mail
from common.jobstate import State
from common.mail import Mail, TaskFacts

if TYPE_CHECKING:
    from common.model import Job, Task
    from qmaster.context import Ctx
    from qmaster.store import Batch, Store

MAILER_TIMEOUT = 60.0  # seconds a mailer may run (8.1.9: alarm(60)), then it is killed
MAX_RUNNING = 4        # mailers running at once
MAX_QUEUED = 10_000    # mailer calls waiting; more are dropped, with a log line
MAILER_ENV = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
              "HOME": "/", "SHELL": "/bin/sh", "LANG": "C.UTF-8"}
ERROR_CHARS = 200      # of a mailer's stderr, in the log
# the text of a failure the qmaster itself gave a run (a deleted task killed by a signal)
FAILED_TEXTS = {100: "assumedly after job"}


# ---------------------------------------------------------------- events -> mails

def facts(job: Job, task: Task) -> TaskFacts:
    return TaskFacts(job.job_id, task.task_id if job.is_array else None, job.name,
                     job.owner, task.queue or "", task.host or "", task.start_time,
                     task.end_time)


def _job_mail(job: Job, letter: str, text: tuple[str, str], kind: str) -> list[Mail]:
    if not mail.wants(str(job.opts.get("mail_options") or ""), letter):
        return []
    return [_to_owners(job, text, kind)]


def _to_owners(job: Job, text: tuple[str, str], kind: str) -> Mail:
    rcpt = mail.job_recipients(job.opts.get("mail_list") or [], job.owner,
                               job.sge_o.get("HOST"))
    return Mail(rcpt, text[0], text[1], kind)


def on_transition(store: Store, batch: Batch, task: Task, old: State, new: State) -> None:
    """Store.transition's hook: ``-m b`` at the start, ``-m s`` when the task's
    processes are stopped (the first suspend reason) and continued (the last one)."""
    if old is new:
        return
    job = store.jobs.get(task.job_id)
    if job is None or not job.opts.get("mail_options"):
        return
    if old is State.TRANSFERRING and new is State.RUNNING:
        batch.mails += _job_mail(job, "b", mail.started(facts(job, task)), "job start")
    elif old is State.RUNNING and new is State.SUSPENDED:
        batch.mails += _job_mail(job, "s", mail.suspended(facts(job, task), True),
                                 "job suspend")
    elif old is State.SUSPENDED and new is State.RUNNING:
        batch.mails += _job_mail(job, "s", mail.suspended(facts(job, task), False),
                                 "job continue")


def task_ended(ctx: Ctx, job: Job, task: Task, *, ran: bool, error: str,
               error_state: bool) -> None:
    """A run's end (``task`` carries the result's fields; ``ran``: the job itself was
    started): ``-m e`` "Complete" when it did not fail, else the state mail to ``-m a``
    or ``-m e``; the administrator's mail for a failure of ADMIN_MAIL_FAILURES."""
    t, usage = facts(job, task), task.usage or {}
    if not ran:  # (8.1.9: <unknown> times, exit status -1, CPU NA)
        t = replace(t, start=None, end=None)
    options = str(job.opts.get("mail_options") or "")
    reason = task.failed_reason or FAILED_TEXTS.get(task.failed, "")
    if not task.failed:
        ctx.batch.mails += _job_mail(job, "e", mail.completed(
            t, usage, int(task.exit_status or 0)), "job completion")
    elif mail.wants(options, "a") or mail.wants(options, "e"):
        text = mail.state_changed(
            t, failed=task.failed, failed_reason=reason, error=error,
            exit_status=int(task.exit_status or 0) if ran else None, signal=task.signal,
            usage=usage, error_state=error_state)
        ctx.batch.mails.append(_to_owners(job, text, "job abortion/end"))
    if task.failed in mail.ADMIN_MAIL_FAILURES:
        admins = mail.address_list(ctx.store.conf_value("conf", "global",
                                                        "administrator_mail"))
        if admins:
            subject, body = mail.admin_failure(t, failed_reason=reason,
                                               error=error)
            ctx.batch.mails.append(Mail(admins, subject, body, "admin mail"))


def task_killed(ctx: Ctx, job: Job, task: Task) -> None:
    """``-m a``: a running task deleted (the first qdel of it), by whom from where."""
    host = ctx.user.host or ctx.services.qmaster_host
    ctx.batch.mails += _job_mail(job, "a", mail.killed(facts(job, task), ctx.user.name, host),
                                 "job abortion")


def ar_event(ctx: Ctx, record: dict[str, Any], event: str) -> None:
    """An advance reservation started ("start"), ended ("end") or was deleted
    ("delete"): a mail to its ``-M`` list only, as 8.1.9 (none without one)."""
    rcpt = tuple(dict.fromkeys(str(m) for m in record.get("mail_list") or []))
    if not rcpt or not mail.wants(str(record.get("mail_options") or ""),
                                  mail.AR_LETTERS[event]):
        return
    when = {"start": float(record["start"]), "end": float(record["end"])}.get(event, ctx.now)
    subject, body = mail.ar_mail(event, int(record["ar_id"]), record.get("name"),
                                 str(record["owner"]), when)
    ctx.batch.mails.append(Mail(rcpt, subject, body, f"advance_reservation {event}"))


# ---------------------------------------------------------------- sending

@dataclass(frozen=True)
class _Call:
    mailer: str
    subject: str
    recipient: str
    stdin: bytes
    kind: str


class MailSender:
    """Runs the mailer for committed mails, a bounded number at a time, off the loop."""

    def __init__(self, log: Any = None, *, timeout: float = MAILER_TIMEOUT,
                 max_running: int = MAX_RUNNING, max_queued: int = MAX_QUEUED,
                 env: dict[str, str] | None = None) -> None:
        self.log, self.timeout = log, timeout
        self.max_running, self.max_queued = max_running, max_queued
        self.env = dict(MAILER_ENV if env is None else env)
        self.queue: deque[_Call] = deque()
        self.running: set[asyncio.Task[None]] = set()
        self.sent = self.failed = self.dropped = 0

    def send(self, mails: list[Mail], mailer: str) -> None:
        """Queue one mailer call per recipient of ``mails`` and start what may start."""
        if not mails:
            return
        if not mailer or mailer.lower() == "none" or not mailer.startswith("/"):
            self._log("warning", "mail not sent: mailer is not an absolute path",
                      mailer=mailer, mails=len(mails))
            return
        dropped = 0
        for item in mails:
            for rcpt in item.recipients:
                if not mail.valid_address(rcpt):
                    self._log("warning", "mail not sent: bad recipient", recipient=rcpt[:80],
                              subject=item.subject[:80])
                    continue
                if len(self.queue) >= self.max_queued:
                    dropped += 1
                    continue
                self.queue.append(_Call(mailer, item.subject, rcpt, item.stdin(), item.kind))
        if dropped:
            self.dropped += dropped
            self._log("error", "mails dropped: too many waiting", dropped=dropped,
                      waiting=len(self.queue))
        self._pump()

    def _pump(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # (no loop: nothing can run them; they wait for one)
            return
        while self.queue and len(self.running) < self.max_running:
            task = loop.create_task(self._run(self.queue.popleft()))
            self.running.add(task)
            task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self.running.discard(task)
        if not task.cancelled() and task.exception() is not None:
            self.failed += 1
            self._log("error", "mailer call failed", error=repr(task.exception()))
        self._pump()

    async def _run(self, call: _Call) -> None:
        fields = {"mailer": call.mailer, "recipient": call.recipient,
                  "subject": call.subject[:120], "mail_type": call.kind}
        try:
            proc = await asyncio.create_subprocess_exec(
                *mail.mailer_argv(call.subject, call.recipient), executable=call.mailer,
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE, env=self.env, cwd="/",
                start_new_session=True, close_fds=True)
        except OSError as exc:
            self.failed += 1
            self._log("error", "mailer could not be started", error=exc.strerror or str(exc),
                      **fields)
            return
        try:
            _, err = await asyncio.wait_for(proc.communicate(call.stdin), self.timeout)
        except asyncio.TimeoutError:
            self._kill(proc.pid)
            await proc.wait()
            self.failed += 1
            self._log("error", "mailer timed out and was killed", seconds=self.timeout,
                      **fields)
            return
        if proc.returncode != 0:
            self.failed += 1
            self._log("warning", "mailer failed", status=proc.returncode,
                      stderr=err[:ERROR_CHARS].decode(errors="replace"), **fields)
            return
        self.sent += 1
        self._log("info", "mail sent", **fields)

    @staticmethod
    def _kill(pid: int) -> None:
        try:
            os.killpg(pid, signal.SIGKILL)  # (its own session: the mailer and its children)
        except OSError:
            pass

    async def drain(self, timeout: float) -> bool:
        """Wait (up to ``timeout``) until no mailer runs or waits; True when none does."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self.running or self.queue:
            left = deadline - loop.time()
            if left <= 0:
                return False
            self._pump()
            if self.running:
                await asyncio.wait(set(self.running), timeout=left)
        return True

    def _log(self, level: str, event: str, **fields: Any) -> None:
        if self.log is not None:
            getattr(self.log, level)(event, **fields)
