"""The qmaster's writer of the reporting file (common.reporting has the format).

After each committed batch the qmaster hands over what it published: new jobs give a
``new_job`` record (and a ``job_log`` ``pending`` step with ``joblog=true``), task changes
the ``job_log`` steps, accounting records an ``acct`` record. Lines are kept in memory and
appended every ``flush_time`` (at a batch or a heartbeat after it, and at a clean stop),
in one write, to $SGE_ROOT/$SGE_CELL/common/reporting (created with 8.1.9's header, never
through a link). Nothing is written while ``reporting=false``.

Unlike the accounting file, the reporting file is not made exactly-once: lines not yet
flushed when the qmaster is killed are lost (as 8.1.9's buffer is).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from common import reporting
from common.conffile import ConfError
from common.model import Job

MAX_BUFFER = 100_000   # lines kept before a flush is forced


class ReportingWriter:
    def __init__(self, path: Path, qmaster_host: str, complain: Callable[..., None]) -> None:
        self.path, self.host, self._complain = path, qmaster_host, complain
        self.params = reporting.ReportingParams()
        self._lines: list[str] = []
        self._known: set[int] = set()
        self._log = reporting.JobLogState()
        self._last_flush = 0.0
        self._text: str | None = None
        self._deleted: dict[int, set[int]] = {}  # job -> pending ids logged deleted

    def configure(self, text: str) -> None:
        if text == self._text:
            return
        self._text = text
        try:
            self.params = reporting.parse_params(text)
        except ConfError:  # (checked at qconf -mconf: an old spool's value, say)
            self.params = reporting.ReportingParams()

    def seed(self, job_ids: Iterable[int]) -> None:
        """Jobs there before this start are no new jobs."""
        self._known.update(job_ids)

    def note_batch(self, now: float, events: list[dict[str, Any]],
                   accounting_lines: list[str], jobs: Mapping[int, Job]) -> None:
        if not self.params.reporting:
            # the jobs submitted meanwhile are no new jobs once reporting is turned on
            self._known.update(int(e["key"]) for e in events
                               if e.get("kind") == "job" and e.get("op") == "put")
            return
        stamp = int(now)
        # (8.1.9 writes a task's acct record before the job_log steps of its end)
        self._lines += [reporting.acct_line(stamp, line) for line in accounting_lines]
        for event in events:
            kind, op = event.get("kind"), event.get("op")
            if kind == "job" and op == "put":
                self._job(stamp, int(event["key"]), jobs)
            elif kind == "job" and op == "del":
                self._known.discard(int(event["key"]))
                self._deleted.pop(int(event["key"]), None)
            elif kind == "ranges" and op == "put" and self.params.joblog:
                self._deleted_ranges(stamp, event.get("obj") or {}, jobs)
            elif kind == "task" and op == "put" and self.params.joblog:
                task = event.get("obj") or {}
                job = jobs.get(int(task.get("job_id", 0)))
                if job is not None:
                    self._lines += self._log.steps(stamp, _facts(job), task, self.host)

    def _deleted_ranges(self, stamp: int, rng: Mapping[str, Any], jobs: Mapping[int, Job]
                        ) -> None:
        """Pending ids deleted without becoming tasks (qdel of a pending job): logged
        once each, as 8.1.9 logs a pending job's deletion."""
        job = jobs.get(int(rng.get("job_id", 0)))
        deleted = rng.get("deleted") or []
        if job is None or not deleted:
            return
        seen = self._deleted.setdefault(job.job_id, set())
        facts = _facts(job)
        for first, last, step in deleted:
            for task_id in range(first, last + 1, step):
                if task_id not in seen:
                    seen.add(task_id)
                    self._lines += reporting.pending_deleted(
                        stamp, facts, task_id, str(rng.get("deleted_by") or ""), self.host)

    def _job(self, stamp: int, job_id: int, jobs: Mapping[int, Job]) -> None:
        if job_id in self._known:
            return
        self._known.add(job_id)
        job = jobs.get(job_id)
        if job is None:
            return
        facts = _facts(job)
        self._lines.append(reporting.new_job_line(stamp, facts))
        if self.params.joblog:
            self._lines.append(reporting.job_log_line(stamp, facts, "pending", -1, "",
                                                      job.owner, self.host, "new job"))

    def flush_due(self, now: float, *, force: bool = False) -> None:
        if not self._lines:
            return
        if not force and now - self._last_flush < self.params.flush_time and \
                len(self._lines) < MAX_BUFFER:
            return
        lines, self._lines = self._lines, []
        self._last_flush = now
        try:
            _append(self.path, lines)
        except OSError as exc:  # (lost, as 8.1.9's; the qmaster goes on)
            self._complain("reporting file not written", path=str(self.path),
                           error=repr(exc), lines=len(lines))


def _facts(job: Job) -> reporting.JobFacts:
    return reporting.job_facts(job.job_id, job.opts, name=job.name, owner=job.owner,
                               group=job.group, submit_time=job.submit_time,
                               is_array=job.is_array)


def _append(path: Path, lines: list[str]) -> None:
    flags = os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd, created = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o644), True
    except FileExistsError:
        fd, created = os.open(path, flags), False
    try:
        data = ((reporting.HEADER if created else "") + "".join(f"{line}\n" for line in lines))
        view = memoryview(data.encode())
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)
