"""What the placement library knows of a job, typed: its owner and the requests that decide
where it may run (``-q``, ``-l``, ``-pe``, ``-p``). Built once from a job record (the
qmaster's whole job, or its ``placement_record``, which events and snapshots carry; the
options checked by ``common.jobspec``), so that the pass, the explanations and the
qmaster's order checks read attributes, never option maps. Pure.
"""
from __future__ import annotations

from dataclasses import dataclass, field
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
    project: str | None = None                   # -P (resource quotas filter on it)
    task_concurrency: int = 0                    # -tc (common.placement.caps; not a category's)

    @property
    def category(self) -> tuple[Any, ...]:
        """Jobs alike in everything placement looks at share one answer per pass."""
        return (self.hard_queues, _sorted(self.hard_resources), _sorted(self.soft_resources),
                self.soft_queues, self.pe, self.owner, self.group, self.project)

    def with_pe(self, name: str) -> "PlacementJob":
        """The same job asking for the PE ``name`` (``qstat -j`` asks PE by PE)."""
        assert self.pe is not None
        return PlacementJob(self.job_id, self.owner, self.group, self.priority,
                            self.hard_queues, self.soft_queues, self.hard_resources,
                            self.soft_resources, (name, self.pe[1], self.pe[2]),
                            self.pe_ranges, self.project)

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
                  "hard_resources", "soft_resources", "project", "task_concurrency")


def placement_record(job_id: int, owner: str, group: str,
                     opts: Mapping[str, Any]) -> dict[str, Any]:
    """The job record ``placement_job`` reads: the job's ``PLACEMENT_OPTS`` that are set
    (it reads an absent one as its default: None, 0 or empty). What the qmaster's events
    and snapshot carry of a job: the scheduler needs no more, and a whole job (its
    environment, paths, names) is ten times the bytes to pack and read."""
    return {"job_id": job_id, "owner": owner, "group": group,
            "opts": {name: opts[name] for name in PLACEMENT_OPTS if opts.get(name)}}


def placement_job(record: Mapping[str, Any]) -> PlacementJob:
    """The placement view of a job record ``{"job_id", "owner", "group", "opts"}``.
    Raises TypeError or ValueError for a record of the wrong shape (the callers skip and
    report such a job: see ``dispatch.PassStats.unevaluable``)."""
    opts = record.get("opts") or {}
    pe = opts.get("pe")
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
        project=str(opts["project"]) if opts.get("project") else None,
        task_concurrency=_count(opts.get("task_concurrency")))


def _count(value: Any) -> int:
    if value is None:
        return 0
    if type(value) is not int or value < 0:
        raise TypeError(f"{value!r} is not a count")
    return value


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
