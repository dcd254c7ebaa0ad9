"""Accounting records of finished tasks, written durably and exactly once.

A record is first stored in the spool (kind ``acct``) in the same transaction that marks
the task finished; after the commit it is appended to the accounting file, which is
fsynced at most about ``qmaster.server.ACCOUNTING_SYNC_SECONDS`` later (``Unsynced``),
and only then is the spool entry dropped, in a later transaction. After a crash between
those steps the qmaster appends the records still in the spool unless the file already
ends with them.
"""
from __future__ import annotations

import math
import os
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any, Callable

from common.accounting import AccountingRecord, append_records, append_unsynced, end_last_line
from common.model import Job, Task
from qmaster.store import Store

TAIL_BYTES = 1 << 20


def record_key(record: dict[str, Any]) -> str:
    """The spool key (kind ``acct``) of a record not yet synced to the file: its task's
    key, and the parallel task's id after a slash for a record of one (qrsh -inherit)."""
    key = f"{record['job_number']}.{record['task_number'] or 1}"
    pe_task = record.get("pe_taskid")
    return f"{key}/{pe_task}" if pe_task and pe_task != "NONE" else key


def accounting_record(job: Job, task: Task, store: Store) -> dict[str, Any]:
    usage = task.usage
    start = task.start_time or 0.0
    end = task.end_time or start
    utime = float(usage.get("ru_utime") or 0.0)
    stime = float(usage.get("ru_stime") or 0.0)
    pe = task.granted_pe or (job.opts.get("pe") or [None])[0]
    return {
        "qname": task.queue or "NONE", "hostname": task.host or "NONE",
        "group": job.group, "owner": job.owner, "job_name": job.name,
        "job_number": job.job_id, "account": str(job.opts.get("account") or "sge"),
        # accounting(5): the queue's priority (nice value), not the job's -p
        "priority": int(store.conf_value("queue", task.queue or "", "priority", "0") or 0),
        "submission_time": job.submit_time,
        "start_time": start, "end_time": end, "failed": task.failed,
        "exit_status": task.exit_status or 0,
        "ru_wallclock": max(0.0, end - start) if task.start_time and not _failed(task) else 0.0,
        "ru_utime": utime, "ru_stime": stime,
        **{name: usage.get(name, 0) for name in (
            "ru_maxrss", "ru_ixrss", "ru_ismrss", "ru_idrss", "ru_isrss", "ru_minflt",
            "ru_majflt", "ru_nswap", "ru_inblock", "ru_oublock", "ru_msgsnd", "ru_msgrcv",
            "ru_nsignals", "ru_nvcsw", "ru_nivcsw")},
        "project": str(job.opts.get("project") or "NONE"),
        "department": "defaultdepartment",
        "granted_pe": str(pe) if pe else "NONE", "slots": task.slots,
        "task_number": task.task_id if job.is_array else 0,
        # what the shepherd measured over the job's processes (execd.shepherd), which
        # includes those rusage never sees (not waited for, killed with the job)
        "cpu": max(float(usage.get("cpu") or 0.0), utime + stime),
        "mem": float(usage.get("mem") or 0.0), "io": float(usage.get("io") or 0.0),
        "category": _category(job),
        "iow": float(usage.get("iow") or 0.0), "pe_taskid": "NONE",
        "maxvmem": float(usage.get("maxvmem") or 0),
        **_ar_fields(job, store),
    }


def _ar_fields(job: Job, store: Store) -> dict[str, Any]:
    """accounting(5) ``arid`` and ``ar_submission_time`` of a job run in an AR (the AR
    stays until its last job has ended, so it is there when the record is made)."""
    ar_id = int(job.opts.get("ar_id") or 0)
    record = store.ars.get(ar_id) if ar_id else None
    return {"arid": ar_id,
            "ar_submission_time": int(record["submission_time"]) if record else 0}


# failures of a job that ran: signalled or qdel'd (100), killed for its h_rt, s_rt, h_cpu
# or h_vmem (37: 8.1.9 accounts the real time, captured in
# tests/data/reference/lists/qacct-j-h_rt.out)
_RAN_FAILURES = (0, 37, 100)


def _failed(task: Task) -> bool:
    """accounting(5): ru_wallclock is 0 for a job that failed before it ran."""
    return task.failed not in _RAN_FAILURES


def _category(job: Job) -> str:
    """Grid Engine's job category string, e.g. ``-l h_rt=300`` or ``NONE``."""
    parts: list[str] = []
    resources = job.opts.get("hard_resources") or {}
    if resources:
        parts.append("-l " + ",".join(f"{k}={v}" for k, v in sorted(resources.items())))
    queues = job.opts.get("hard_queues") or []
    if queues:
        parts.append("-q " + ",".join(queues))
    pe = job.opts.get("pe")
    if pe:
        parts.append(f"-pe {pe[0]} {_range(pe)}")
    if job.opts.get("ar_id"):  # 8.1.9: "-ar 38" (tests/data/reference/ar/accounting-lines.txt)
        parts.append(f"-ar {int(job.opts['ar_id'])}")
    return " ".join(parts) or "NONE"


def _range(pe: list[Any]) -> str:
    low, high = pe[1], pe[2] if len(pe) > 2 else pe[1]
    return str(low) if low == high else f"{low}-{high}"


Complaint = Callable[[dict[str, Any], str], None]  # (record, why it was replaced)


def writable(record: dict[str, Any], complain: Complaint | None = None) -> AccountingRecord:
    """The record as it can be written. One that cannot be formatted (a colon or a line
    break in a name, a field of the wrong type: data that should never have passed the
    boundary) is replaced by a safe one, never raised: an exception here would come after
    the commit and stop the qmaster, at every start again."""
    try:
        built = AccountingRecord(**record)
        built.to_line()
        return built
    except Exception as exc:  # noqa: BLE001 - any fault of the record
        if complain is not None:
            complain(record, f"{type(exc).__name__}: {exc}")
        return _safe_record(record)


def _safe_record(record: dict[str, Any]) -> AccountingRecord:
    """Every known field in the type the format wants: text without colons, line breaks
    or a leading '#', numbers that are numbers (0 where they are not)."""
    safe: dict[str, Any] = {}
    for item in fields(AccountingRecord):
        value = record.get(item.name, item.default)
        if "str" in str(item.type):
            text = str(value if value is not MISSING else "NONE")
            safe[item.name] = text.replace(":", "_").replace("\n", " ").replace("\r", " ") \
                .lstrip("#") or "NONE"
        else:
            safe[item.name] = _number(value, float if "float" in str(item.type) else int)
    return AccountingRecord(**safe)


def _number(value: Any, kind: type) -> Any:
    try:
        number = kind(value)
    except (TypeError, ValueError, OverflowError):
        return kind(0)
    return number if kind is int or math.isfinite(number) else 0.0


def write_records(path: Path, records: list[dict[str, Any]],
                  complain: Complaint | None = None) -> None:
    append_records(path, [writable(r, complain) for r in records])


def recover(path: Path, records: list[dict[str, Any]],
            complain: Complaint | None = None) -> None:
    """At start-up: make the spooled ``records`` durable in the accounting file, whose
    tail may already hold them (appended by a qmaster that died before its next sync)
    or end in a partly written line (a power cut). The file is made to end a line,
    then what it lacks is appended; either way it is synced before the spooled copies
    may go."""
    if not records:
        return
    end_last_line(path)
    missing = recover_pending(path, records, complain)
    fd = append_unsynced(path, [writable(r, complain) for r in missing]) if missing else None
    if fd is None:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def recover_pending(path: Path, records: list[dict[str, Any]],
                    complain: Complaint | None = None) -> list[dict[str, Any]]:
    """The spooled records that the accounting file does not yet end with."""
    if not records:
        return []
    tail = _tail(path)
    missing = []
    for record in records:
        line = writable(record, complain).to_line()
        if line not in tail:
            missing.append(record)
    return missing


def _tail(path: Path) -> str:
    try:
        with path.open("rb") as fh:
            fh.seek(0, 2)
            size = fh.tell()
            fh.seek(max(0, size - TAIL_BYTES))
            return fh.read().decode(errors="replace")
    except FileNotFoundError:
        return ""


class Unsynced:
    """Records appended to the accounting file without an fsync each (one a batch, about
    a millisecond with the qmaster's loop held, was a sixth of its busy time in a drain
    of short jobs). They stay spooled (the ``acct`` objects the batch that ended their
    jobs committed) until ``synced`` has made them durable; a qmaster that dies before
    then appends at its next start what the file lacks (``recover``).

    Each append keeps the descriptor of the file it wrote, so the fsync reaches that
    file even when it has been renamed since (rotated); records whose file was removed
    before its fsync, or whose fsync failed, are appended again, durably (an fsync that
    failed once may report success the next time without the data on disk)."""

    def __init__(self, path: Path, every: float) -> None:
        self.path, self.every = path, every
        self.written: list[tuple[int, list[dict[str, Any]]]] = []  # (fd, its records)
        self.since = 0.0  # when the oldest record of ``written`` was appended

    def append(self, records: list[dict[str, Any]], now: float,
               complain: Complaint | None = None) -> None:
        """Append ``records`` to the file, not yet durably."""
        fd = append_unsynced(self.path, [writable(r, complain) for r in records])
        if fd is None:
            return
        if not self.written:
            self.since = now
        elif _same_file(fd, self.written[-1][0]):  # (one descriptor per file held)
            os.close(fd)
            self.written[-1][1].extend(records)
            return
        self.written.append((fd, list(records)))

    def synced(self, now: float, *, force: bool = False) -> list[dict[str, Any]]:
        """The records now durable (their spooled copies may go): all of them once
        ``every`` seconds have passed since the oldest (or ``force``), else none."""
        if not self.written or (not force and now - self.since < self.every):
            return []
        done: list[dict[str, Any]] = []
        again: list[dict[str, Any]] = []
        files: dict[tuple[int, int], int] = {}  # (one fsync per file)
        try:
            for fd, records in self.written:
                info = os.fstat(fd)
                if info.st_nlink == 0:  # removed before it was synced
                    again += records
                    continue
                key = (info.st_dev, info.st_ino)
                if key not in files:
                    try:
                        os.fsync(fd)
                        files[key] = 0
                    except OSError:
                        files[key] = -1
                (done if files[key] == 0 else again).extend(records)
        finally:
            for fd, _ in self.written:
                os.close(fd)
            self.written = []
        if again:
            write_records(self.path, again)
            done += again
        return done


def _same_file(fd: int, other: int) -> bool:
    one, two = os.fstat(fd), os.fstat(other)
    return (one.st_dev, one.st_ino) == (two.st_dev, two.st_ino)
