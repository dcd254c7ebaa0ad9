"""Resources over time (sched_conf(5) ``max_reservation``, ``default_duration``,
``DURATION_OFFSET``; qsub(1) ``-R``; qrsub(1) advance reservations): what the running
tasks, the advance reservations and the pass's own reservations hold, from when to when.

This module owns the typed records of that plan and the rule for a job's duration:

- :class:`ReserveConf`: the scheduler configuration that governs planning, and the pass's
  clock (``now``: the caller reads the clock, never this module).
- :class:`Hold`: resources a task holds over ``[start, end)``; a running task's ``end`` is
  its start + duration + ``DURATION_OFFSET`` (:func:`planned_end`), ``INFINITY`` when its
  duration is.
- :class:`AdvanceReservation`: what the pass needs of an advance reservation (its window and
  the queue instances and slots it was granted); its wire form is :meth:`to_record`.
- :class:`Reservation`: a pending job's planned start, found by the pass
  (``PassStats.reservations``): the schedule file (``params MONITOR=1``) and ``qstat -j``
  show them.

The dispatch pass (``common.placement.dispatch``) plans with these; the qmaster asks
:func:`common.placement.dispatch.ar_admission` whether an advance reservation's resources
can be guaranteed. Pure: no clock, no sockets.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from common.placement.job import PlacementJob
from common.sched_params import DEFAULT_DURATION_OFFSET

INFINITY = math.inf

Grant = tuple[tuple[str, str, int], ...]  # ((queue, host, slots), ...)


@dataclass(frozen=True, slots=True)
class ReserveConf:
    """``now``: the pass's time (epoch seconds). ``max_reservation`` 0 plans nothing
    for ``-R y`` jobs; advance reservations are honoured whatever it says."""

    now: float
    max_reservation: int = 0
    default_duration: float = INFINITY   # seconds
    duration_offset: float = DEFAULT_DURATION_OFFSET
    # sched_conf(5) schedule_interval: a task running past its planned end is taken to
    # end one interval from now (8.1.9 plans so: the next pass looks again)
    schedule_interval: float = 15.0


@dataclass(frozen=True, slots=True)
class Hold:
    """Resources a task holds (``RUNNING``, ``SUSPENDED``) or will hold (``RESERVING``)
    over ``[start, end)``: its grant and, through its job, its consumables and quota
    usage. ``end`` is ``INFINITY`` for a task with no known end."""

    job_id: int
    task_id: int
    start: float
    end: float
    granted: Grant
    pe: str | None = None
    state: str = "RUNNING"


@dataclass(frozen=True, slots=True)
class AdvanceReservation:
    """An advance reservation as the pass sees it: from ``start`` to ``end`` its
    ``granted`` slots (and the consumables its ``hard_resources`` ask per slot, as a job's
    would) belong to the jobs submitted into it (``qsub -ar id``) and to nobody else.
    ``pe``: the PE it was granted (``qrsub -pe``), whose slots it holds too."""

    ar_id: int
    start: float
    end: float
    granted: Grant
    pe: str | None = None
    owner: str = ""
    hard_resources: Mapping[str, str] = field(default_factory=dict)
    # qrsub -he y: while a granted queue instance is disabled, suspended, in error or on
    # an unknown host, none of its jobs start (qrsub(1) "hard error")
    hard_error: bool = False

    def to_record(self) -> dict[str, Any]:
        """The wire form (the qmaster's snapshot key ``"ars"`` and its ``ar`` events)."""
        return {"ar_id": self.ar_id, "start": self.start, "end": self.end,
                "granted": [list(g) for g in self.granted], "pe": self.pe,
                "owner": self.owner, "hard_resources": dict(self.hard_resources),
                "hard_error": self.hard_error}

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> "AdvanceReservation":
        """Raises TypeError or ValueError for a record of the wrong shape."""
        end = float(record["end"])
        return cls(ar_id=int(record["ar_id"]), start=float(record["start"]), end=end,
                   granted=tuple((str(q), str(h), int(s)) for q, h, s in record["granted"]),
                   pe=str(record["pe"]) if record.get("pe") else None,
                   owner=str(record.get("owner") or ""),
                   hard_resources={str(k): str(v) for k, v in
                                   (record.get("hard_resources") or {}).items()},
                   hard_error=bool(record.get("hard_error")))

    def as_job(self) -> PlacementJob:
        """The AR's own requests as a job (what ``ar_admission`` places)."""
        return PlacementJob(job_id=0, owner=self.owner, hard_resources=self.hard_resources)


@dataclass(frozen=True, slots=True)
class Reservation:
    """A pending task's planned start (``-R y``), found by one pass: it starts at
    ``start`` on ``granted`` (in ``pe``) unless something changes."""

    job_id: int
    task_id: int
    start: float
    end: float
    granted: Grant
    pe: str | None = None


def job_duration(job: PlacementJob, default_duration: float) -> float:
    """A job's planned run time in seconds, as 8.1.9 takes it (``job_get_duration``): its
    hard ``h_rt`` request, else its ``s_rt``, the smaller when it asks both; else
    ``default_duration``. A value that no longer parses counts as no request."""
    resources = job.hard_resources
    found = _requested(resources.get("h_rt"), resources.get("s_rt"))
    return default_duration if found is None else found


@functools.lru_cache(maxsize=4096)
def _requested(h_rt: str | None, s_rt: str | None) -> float | None:
    """The smaller of the run time requests given (parsed once per pair of texts: every
    pass asks every running and dispatched task)."""
    found = [seconds for name, text in (("h_rt", h_rt), ("s_rt", s_rt))
             if text is not None and (seconds := _seconds(name, text)) is not None]
    return min(found) if found else None


def _seconds(name: str, text: str) -> float | None:
    from common import limits
    from common.resource.values import BadValueError
    try:
        return limits.bound(limits.parse(name, text))
    except (BadValueError, ValueError):
        return None


def planned_end(job: PlacementJob, start: float, conf: ReserveConf) -> float:
    """When a task of ``job`` started (or starting) at ``start`` frees its resources:
    start + duration + ``duration_offset``; ``INFINITY`` for an unbounded duration."""
    duration = job_duration(job, conf.default_duration)
    if math.isinf(duration):
        return INFINITY
    return start + duration + conf.duration_offset


def overdue_end(end: float, conf: ReserveConf) -> float:
    """A running task's end when its planned end has passed (it runs on past its
    ``s_rt`` or ``default_duration``): as 8.1.9 plans it, one ``schedule_interval``
    from now."""
    return end if end > conf.now else conf.now + conf.schedule_interval


def holds_of(active: Sequence[Mapping[str, Any]], jobs: Mapping[int, PlacementJob],
             conf: ReserveConf) -> list[Hold]:
    """The holds of active task records (``granted``, ``granted_pe``, ``start_time``
    else ``dispatch_time``; a task with neither started at ``conf.now``). Tasks without a
    grant or whose job is unknown hold nothing."""
    holds = []
    for task in active:
        job = jobs.get(task.get("job_id"))  # type: ignore[arg-type]
        granted = task.get("granted") or []
        if job is None or not granted:
            continue
        start = next((t for t in (task.get("start_time"), task.get("dispatch_time"))
                      if t is not None), conf.now)
        end = overdue_end(planned_end(job, float(start), conf), conf)
        state = "SUSPENDED" if task.get("state") == "suspended" or \
            task.get("suspend_reasons") else "RUNNING"
        holds.append(Hold(job.job_id, int(task.get("task_id") or 0), float(start), end,
                          tuple((str(q), str(h), int(s)) for q, h, s in granted),
                          task.get("granted_pe"), state))
    return holds
