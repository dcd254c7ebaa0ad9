"""What the placement library knows of a job, typed: its owner and the requests that decide
where it may run (``-q``, ``-l``, ``-pe``, ``-p``), and what the scheduling policy weighs
to decide when (its submit time, ``-dl``, ``-js``, ``-ot``: ``common.policy.inputs``). Built once from a job record (the
qmaster's whole job, or its ``placement_record``, which events and snapshots carry; the
options checked by ``common.jobspec``), so that the pass, the explanations and the
qmaster's order checks read attributes, never option maps. Pure.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Mapping

Pairs = tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class PlacementJob:
    job_id: int
    owner: str = ""
    group: str = ""
    priority: int = 0
    hard_queues: tuple[str, ...] = ()
    soft_queues: tuple[str, ...] = ()
    hard_resources: Mapping[str, str] = field(default_factory=dict)  # -l, as stored
    soft_resources: Mapping[str, str] = field(default_factory=dict)
    pe: tuple[str, int, int] | None = None       # -pe name low high
    pe_ranges: tuple[tuple[int, int], ...] = ()  # -pe name 2,4: each range
    # -masterq: the queues the master task of a PE job may go to (the first grant)
    master_queues: tuple[str, ...] = ()
    project: str | None = None                   # -P (resource quotas filter on it)
    task_concurrency: int = 0                    # -tc (common.placement.caps; not a category's)
    # the policy's (common.policy.inputs): not part of the category, placement ignores them
    submit_time: float = 0.0
    deadline: float | None = None                # -dl as epoch seconds
    # -a: not eligible before this instant (epoch seconds): the pass leaves the job and
    # wakes at it (scheduler.service.next_instant); not part of the category
    not_before: float | None = None
    job_share: int = 0                           # -js
    override_tickets: int = 0                    # -ot
    # planning (common.placement.timeline): -R y asks the pass for a reservation when the
    # job cannot start now; -ar id confines the job to that advance reservation's slots
    reserve: bool = False
    ar_id: int | None = None
    # qrsh, qlogin (a job with a session): only queues of qtype INTERACTIVE take it, and
    # only those of qtype BATCH take the others (queue_conf(5) qtype)
    interactive: bool = False
    # qsub -ckpt: only queues whose ckpt_list names the environment take the job
    checkpoint: str | None = None
    # qsub/qrsh -now y: a job the pass cannot start at once is refused (the qmaster
    # deletes it: ``dispatch.not_scheduled``), as 8.1.9's scheduler refuses it in its run
    immediate: bool = False
    # What the job asks for, whoever asks: where it may go depends on no more when no
    # access list tells owners or projects apart. Made once: every pass asks each job.
    requests_key: tuple[Any, ...] = field(init=False, repr=False, compare=False)
    # Jobs alike in everything placement looks at share one answer per pass.
    category: tuple[Any, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        wanted = (self.hard_queues, _sorted(self.hard_resources),
                  _sorted(self.soft_resources), self.soft_queues, self.pe, self.ar_id,
                  self.interactive, self.master_queues, self.checkpoint)
        object.__setattr__(self, "requests_key", wanted)
        object.__setattr__(self, "category", wanted + (self.owner, self.group, self.project))

    def with_pe(self, name: str) -> "PlacementJob":
        """The same job asking for the PE ``name`` (``qstat -j`` asks PE by PE)."""
        assert self.pe is not None
        return replace(self, pe=(name, self.pe[1], self.pe[2]))

    def slot_ranges(self) -> list[tuple[int, int]]:
        """The slot ranges of ``-pe name n[-m][,...]``, the highest first: the pass grants
        the most slots it can, and only counts inside a range (``2,4`` is never 3)."""
        if self.pe is None:
            return [(1, 1)]
        ranges = list(self.pe_ranges) or [(self.pe[1], self.pe[2])]
        return sorted(((max(lo, 1), max(hi, lo, 1)) for lo, hi in ranges),
                      key=lambda r: r[1], reverse=True)


def _sorted(requests: Mapping[str, str]) -> Pairs:
    return tuple(sorted(requests.items()))


# the options ``placement_job`` reads; a job travels to the scheduler with these alone
PLACEMENT_OPTS = ("pe", "pe_ranges", "priority", "hard_queues", "soft_queues",
                  "hard_resources", "soft_resources", "project", "task_concurrency",
                  "deadline", "job_share", "override_tickets", "reserve", "ar_id", "now",
                  "start_time", "master_queues", "checkpoint_name")


def placement_record(job_id: int, owner: str, group: str,
                     opts: Mapping[str, Any], submit_time: float = 0.0) -> dict[str, Any]:
    """The job record ``placement_job`` reads: the job's ``PLACEMENT_OPTS`` that are set
    (it reads an absent one as its default: None, 0 or empty) and its submit time. What
    the qmaster's events and snapshot carry of a job: the scheduler needs no more, and a
    whole job (its environment, paths, names) is ten times the bytes to pack and read."""
    record: dict[str, Any] = {
        "job_id": job_id, "owner": owner, "group": group,
        "opts": {name: opts[name] for name in PLACEMENT_OPTS if opts.get(name)}}
    if opts.get("session"):  # (whether it is interactive: never the session's token)
        record["opts"]["interactive"] = True
    if submit_time:
        record["submit_time"] = submit_time
    return record


def placement_job(record: Mapping[str, Any]) -> PlacementJob:
    """The placement view of a job record ``{"job_id", "owner", "group", "opts"}``.
    Raises TypeError or ValueError for a record of the wrong shape (the callers skip and
    report such a job: see ``dispatch.PassStats.unevaluable``)."""
    opts = record.get("opts") or {}
    pe = opts.get("pe")
    submit_time = record.get("submit_time") or 0.0
    if not isinstance(submit_time, (int, float)):
        raise TypeError(f"submit time {submit_time!r} is not a number")
    priority = opts.get("priority") or 0
    if type(priority) is not int:
        raise TypeError(f"priority {priority!r} is not an integer")
    return PlacementJob(
        job_id=int(record.get("job_id") or 0), owner=str(record.get("owner") or ""),
        group=str(record.get("group") or ""), priority=priority,
        hard_queues=_strings(opts.get("hard_queues")),
        soft_queues=_strings(opts.get("soft_queues")),
        hard_resources=_requests(opts.get("hard_resources")),
        soft_resources=_requests(opts.get("soft_resources")),
        pe=None if not pe else (str(pe[0]), int(pe[1]), int(pe[2] if len(pe) > 2 else pe[1])),
        pe_ranges=tuple((int(lo), int(hi)) for lo, hi in opts.get("pe_ranges") or ()),
        master_queues=_strings(opts.get("master_queues")) if pe else (),
        project=str(opts["project"]) if opts.get("project") else None,
        task_concurrency=_count(opts.get("task_concurrency")),
        submit_time=float(submit_time),
        deadline=_date_epoch(opts.get("deadline"), submit_time),
        not_before=_date_epoch(opts.get("start_time"), submit_time),
        job_share=_count(opts.get("job_share")),
        override_tickets=_count(opts.get("override_tickets")),
        reserve=bool(opts.get("reserve")),
        ar_id=_ar_id(opts.get("ar_id")),
        interactive=bool(opts.get("interactive") or opts.get("session")),
        checkpoint=str(opts["checkpoint_name"]) if opts.get("checkpoint_name") else None,
        immediate=bool(opts.get("now")))


def _strings(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{value!r} is not a list")
    return tuple(str(v) for v in value)


def _requests(value: Any) -> Mapping[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise TypeError(f"{value!r} is not a map")
    return {str(k): str(v) for k, v in value.items()}


def _count(value: Any) -> int:
    """-tc, -js, -ot: a count, none 0."""
    if value is None:
        return 0
    if type(value) is not int or value < 0:
        raise TypeError(f"{value!r} is not a count")
    return value


def _ar_id(value: Any) -> int | None:
    """``-ar id``; none (or 0, which no advance reservation has) is None."""
    if value is None or value == 0:
        return None
    if type(value) is not int or value < 0:
        raise TypeError(f"advance reservation id {value!r} is not a count")
    return value


def _date_epoch(spec: Any, submit_time: float) -> float | None:
    """``-dl``/``-a [[CC]YY]MMDDhhmm[.SS]`` as epoch seconds, read as ``qstat -j`` reads
    it: in local time, a date without a year in the submit time's year."""
    if not spec:
        return None
    from common.jobspec import date_time_to_epoch  # (only jobs with -dl or -a need it)
    try:
        return float(date_time_to_epoch(str(spec),
                                        datetime.fromtimestamp(submit_time).astimezone()))
    except ValueError:  # checked at submission: a bad date must never keep a job from running
        return None
