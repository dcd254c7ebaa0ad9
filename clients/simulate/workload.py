"""The workloads ``pyge simulate`` replays, read strictly into ``SimJob`` records.

Two formats:

- a cell's accounting file (accounting(5), read by ``common.accounting``): one record
  per finished job or array task; its submission time, run time (end - start), slots,
  owner, group, project, department, ``-p`` priority, granted PE and the requests its
  ``category`` recorded (``-l``, ``-q``). A record of a job that never started
  (start time 0) has no run time to replay: it is left out and counted.
- the Standard Workload Format of the Parallel Workloads Archive (SWF, version 2.2):
  ``;`` header comments, then 18 whitespace-separated numbers per job (job number,
  submit time, wait time, run time, allocated processors, average cpu time, used memory,
  requested processors, requested time, requested memory, status, user id, group id,
  executable, queue, partition, preceding job, think time); -1 means unknown. A job
  whose run time or processor count is unknown (or 0) cannot be replayed: left out and
  counted. The user id becomes the owner ``user<id>``, the group id the group
  ``group<id>``; SWF knows no projects.

Errors name the file and line. Pure but for opening the file.
"""
from __future__ import annotations

import math
import re
import shlex
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable, Mapping

from common.accounting import AccountingFormatError, AccountingRecord, parse_line

SWF_FIELDS = ("job number", "submit time", "wait time", "run time", "allocated processors",
              "average cpu time", "used memory", "requested processors", "requested time",
              "requested memory", "status", "user id", "group id", "executable number",
              "queue number", "partition number", "preceding job", "think time")
# the fields SWF allows fractions in (seconds and kilobytes averaged over processors)
_SWF_FLOATS = frozenset({1, 2, 3, 5, 6, 8, 9, 17})
# ASCII digits only (Python's int() and float() also take "1_000", "nan", "inf")
_INTEGER = re.compile(r"-?[0-9]+")
_DECIMAL = re.compile(r"-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
SWF_PE = "mpi"  # the PE a multi-processor SWF job asks for (a new cell's $fill_up PE)


class WorkloadError(ValueError):
    """A workload file that cannot be read; the message names the file and line."""


@dataclass(frozen=True, slots=True)
class SimJob:
    """One job to replay: it is submitted at ``submit`` (seconds from the workload's
    start) and, once started, runs for ``run_time`` seconds on ``slots`` slots."""

    job_id: int
    submit: float
    run_time: float
    slots: int = 1
    owner: str = "nobody"
    group: str = ""
    project: str | None = None
    department: str | None = None
    priority: int = 0
    pe: str | None = None
    hard_resources: Mapping[str, str] = field(default_factory=dict)
    hard_queues: tuple[str, ...] = ()
    override_tickets: int = 0           # qsub -ot (neither format records it)
    job_share: int = 0                  # qsub -js (neither format records it)
    recorded_wait: float | None = None  # the wait the workload recorded (for comparison)
    reserve: bool = False               # qsub -R y (``pyge simulate --reserve-from``)


@dataclass(frozen=True, slots=True)
class Workload:
    """The jobs in submission order, and how many records were left out (and why)."""

    jobs: tuple[SimJob, ...]
    skipped: Mapping[str, int] = field(default_factory=dict)
    source: str = ""


def read_workload(path: str | Path, kind: str = "auto") -> Workload:
    """``kind``: "swf", "accounting", or "auto" (by the name: ``.swf``, else by the
    first data line: colons make an accounting file)."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as err:
        raise WorkloadError(f"{path}: {err.strerror}") from None
    if kind == "auto":
        kind = "swf" if str(path).endswith((".swf", ".swf.txt")) else _guess(text)
    if kind == "swf":
        return parse_swf(text, str(path))
    if kind == "accounting":
        return parse_accounting(text, str(path))
    raise WorkloadError(f"{path}: unknown workload format {kind!r}")


def _guess(text: str) -> str:
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith((";", "#")):
            return "accounting" if ":" in stripped else "swf"
        if stripped.startswith(";"):
            return "swf"
    return "swf"


# ---- SWF ---------------------------------------------------------------------------

def parse_swf(text: str, name: str = "<swf>") -> Workload:
    jobs: list[SimJob] = []
    skipped: dict[str, int] = {}
    seen: dict[int, int] = {}  # job number -> its line
    for lineno, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith(";"):
            continue
        values = swf_values(stripped, f"{name}:{lineno}")
        number = int(values[0])
        if number in seen:
            raise WorkloadError(f"{name}:{lineno}: job number {number} was already "
                                f"given on line {seen[number]}")
        seen[number] = lineno
        job = _swf_job(values)
        if isinstance(job, str):
            skipped[job] = skipped.get(job, 0) + 1
        else:
            jobs.append(job)
    return _workload(jobs, skipped, name)


def swf_values(line: str, where: str) -> list[float]:
    """The 18 numbers of one SWF job line; WorkloadError naming ``where`` otherwise."""
    parts = line.split()
    if len(parts) != len(SWF_FIELDS):
        raise WorkloadError(f"{where}: {len(parts)} fields, an SWF job line has "
                            f"{len(SWF_FIELDS)}")
    values: list[float] = []
    for index, part in enumerate(parts):
        fraction = index in _SWF_FLOATS
        if not (_DECIMAL if fraction else _INTEGER).fullmatch(part):
            kind = "a number" if fraction else "an integer"
            raise WorkloadError(f"{where}: {SWF_FIELDS[index]} {part!r} is not {kind}")
        value = float(part) if fraction else int(part)
        if not math.isfinite(value):
            raise WorkloadError(f"{where}: {SWF_FIELDS[index]} {part!r} is not finite")
        if value < 0 and value != -1:
            raise WorkloadError(f"{where}: {SWF_FIELDS[index]} {part!r} is negative "
                                "(-1 means unknown)")
        values.append(value)
    return values


def _swf_job(v: list[float]) -> SimJob | str:
    """The job, or why it cannot be replayed."""
    run_time, allocated, requested = v[3], int(v[4]), int(v[7])
    slots = allocated if allocated > 0 else requested
    if v[1] < 0:
        return "unknown submit time"
    if run_time <= 0:
        return "unknown or zero run time"
    if slots <= 0:
        return "unknown processor count"
    user, group = int(v[11]), int(v[12])
    return SimJob(job_id=int(v[0]), submit=float(v[1]), run_time=float(run_time),
                  slots=slots, owner=f"user{user}" if user >= 0 else "unknown",
                  group=f"group{group}" if group >= 0 else "",
                  pe=SWF_PE if slots > 1 else None,
                  # the requested time is the job's run time limit: what planning
                  # (resource reservation, backfilling) knows of its end
                  hard_resources={"h_rt": str(int(v[8]))} if v[8] > 0 else {},
                  recorded_wait=float(v[2]) if v[2] >= 0 else None)


# ---- accounting(5) -----------------------------------------------------------------

def parse_accounting(text: str, name: str = "<accounting>") -> Workload:
    jobs: list[SimJob] = []
    skipped: dict[str, int] = {}
    ids: dict[tuple[int, int], int] = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        try:
            record = parse_line(line)
        except AccountingFormatError as err:
            raise WorkloadError(f"{name}:{lineno}: {err}") from None
        if record is None:
            continue
        job = _accounting_job(record, ids, f"{name}:{lineno}")
        if isinstance(job, str):
            skipped[job] = skipped.get(job, 0) + 1
        else:
            jobs.append(job)
    return _workload(jobs, skipped, name)


def _accounting_job(r: AccountingRecord, ids: dict[tuple[int, int], int],
                    where: str) -> SimJob | str:
    if r.start_time <= 0 or r.end_time < r.start_time:
        return "never started"
    if r.submission_time <= 0 or r.submission_time > r.start_time:
        return "submission time unknown or after the start"
    if r.slots < 1:
        raise WorkloadError(f"{where}: slots {r.slots} is not a positive number")
    requests, queues, project = category_requests(r.category, where)
    # each array task is a job of its own in the replay: a new id, kept in file order
    sim_id = ids.setdefault((r.job_number, r.task_number), len(ids) + 1)
    return SimJob(job_id=sim_id, submit=float(r.submission_time),
                  run_time=float(max(r.end_time - r.start_time, 1)), slots=r.slots,
                  owner=r.owner, group=r.group,
                  project=_named(r.project) or project,
                  department=_named(r.department), priority=r.priority,
                  pe=_named(r.granted_pe) if r.slots > 1 else None,
                  hard_resources=requests, hard_queues=queues,
                  recorded_wait=float(r.start_time - r.submission_time))


def _named(value: str) -> str | None:
    return None if value in ("", "NONE") else value


def category_requests(category: str, where: str = "category"
                      ) -> tuple[dict[str, str], tuple[str, ...], str | None]:
    """The hard ``-l`` requests, ``-q`` queues and ``-P`` project a job's category
    (accounting(5): the options that decide where it may run, as ``qsub`` wrote them)
    records. Other options are not replayed."""
    if category in ("", "NONE"):
        return {}, (), None
    try:
        words = shlex.split(category)
    except ValueError as err:
        raise WorkloadError(f"{where}: category {category!r}: {err}") from None
    requests: dict[str, str] = {}
    queues: list[str] = []
    project = None
    soft = False
    for option, value in zip(words, words[1:] + [""]):
        if option == "-soft":
            soft = True
        elif option == "-hard":
            soft = False
        elif option == "-l" and not soft:
            requests.update(_assignments(value, where))
        elif option == "-q" and not soft:
            queues.extend(q for q in value.split(",") if q)
        elif option == "-P":
            project = value or None
    return requests, tuple(queues), project


def _assignments(text: str, where: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in text.split(","):
        name, sep, value = item.partition("=")
        if not name or not sep:
            raise WorkloadError(f"{where}: request {item!r} is not name=value")
        out[name] = value
    return out


def _workload(jobs: Iterable[SimJob], skipped: dict[str, int], name: str) -> Workload:
    ordered = sorted(jobs, key=lambda j: (j.submit, j.job_id))
    if not ordered:
        raise WorkloadError(f"{name}: no job that can be replayed"
                            + (f" ({_skips(skipped)})" if skipped else ""))
    start = ordered[0].submit
    # times from the workload's first submission: the virtual clock starts at 0
    shifted = tuple(replace(j, submit=j.submit - start) for j in ordered) if start else \
        tuple(ordered)
    return Workload(shifted, dict(skipped), name)


def _skips(skipped: Mapping[str, int]) -> str:
    return ", ".join(f"{n} {why}" for why, n in sorted(skipped.items()))
