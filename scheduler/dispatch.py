"""The dispatch pass: a pure function from a view of the cluster to dispatch orders.

Input: pending tasks with their jobs, the queue instances and the slots in use. Output:
orders ``{"type": "dispatch", "job_id", "task_id", "task_version", "granted": [[queue,
host, slots], ...]}``. Tasks are taken in priority order (``-p`` high first, then job and
task number). Jobs with the same requests form a *category*; once a category found no
room in a pass, its other tasks are skipped without looking again, so the cost of a pass
grows with the number of categories, not of pending tasks.
"""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from common.cluster import QueueInstance

# (job summary, queue instance) -> True when the job's requests allow that instance
Matcher = Callable[[dict[str, Any], QueueInstance], bool]


@dataclass
class PassInput:
    jobs: dict[int, dict[str, Any]]
    pending: list[dict[str, Any]]            # task dicts in state pending
    instances: list[QueueInstance]
    used: dict[tuple[str, str], int]
    load: dict[str, float] = field(default_factory=dict)  # host -> np_load_avg
    pe_of_queue: dict[str, set[str]] = field(default_factory=dict)
    matcher: Matcher | None = None


@dataclass
class PassStats:
    considered: int = 0
    skipped_by_category: int = 0
    orders: int = 0


def task_order(jobs: dict[int, dict[str, Any]], task: dict[str, Any]) -> tuple[int, int, int]:
    job = jobs.get(task["job_id"]) or {}
    prio = int((job.get("opts") or {}).get("priority") or 0)
    return (-prio, task["job_id"], task["task_id"])


def category_key(job: dict[str, Any]) -> tuple[Any, ...]:
    opts = job.get("opts") or {}
    return (tuple(opts.get("hard_queues") or ()),
            tuple(sorted((opts.get("hard_resources") or {}).items())),
            tuple(opts.get("pe") or ()), job.get("owner"))


def dispatch_pass(inp: PassInput, stats: PassStats | None = None) -> list[dict[str, Any]]:
    stats = stats or PassStats()
    free = {(qi.queue, qi.host): qi.slots - inp.used.get((qi.queue, qi.host), 0)
            for qi in inp.instances if qi.alive and "BATCH" in qi.qtype.upper()}
    orders: list[dict[str, Any]] = []
    if sum(max(v, 0) for v in free.values()) <= 0:
        return orders
    ranked = sorted(inp.instances, key=lambda qi: (qi.seq_no, inp.load.get(qi.host, 0.0),
                                                   qi.queue, qi.host))
    candidates: dict[tuple[Any, ...], list[QueueInstance]] = {}
    full: set[tuple[Any, ...]] = set()
    for task in sorted(inp.pending, key=lambda t: task_order(inp.jobs, t)):
        job = inp.jobs.get(task["job_id"])
        if job is None:
            continue
        stats.considered += 1
        key = category_key(job)
        if key in full:
            stats.skipped_by_category += 1
            continue
        if key not in candidates:
            candidates[key] = [qi for qi in ranked if (qi.queue, qi.host) in free
                               and _allowed(job, qi, inp)]
        granted = _place(job, candidates[key], free)
        if granted is None:
            full.add(key)
            continue
        orders.append({"type": "dispatch", "job_id": task["job_id"],
                       "task_id": task["task_id"], "task_version": task["version"],
                       "granted": granted})
        if sum(max(v, 0) for v in free.values()) <= 0:
            break
    stats.orders = len(orders)
    return orders


def can_ever_run(job: dict[str, Any], inp: PassInput) -> bool:
    """Whether some queue instance could run the job if the cluster were empty."""
    low, _ = _slot_range(job)
    return any(qi.slots >= low and "BATCH" in qi.qtype.upper() and _allowed(job, qi, inp)
               for qi in inp.instances)


def _allowed(job: dict[str, Any], qi: QueueInstance, inp: PassInput) -> bool:
    opts = job.get("opts") or {}
    queues = opts.get("hard_queues") or []
    if queues and not any(_queue_matches(ref, qi) for ref in queues):
        return False
    pe = opts.get("pe")
    if pe and not any(fnmatch.fnmatchcase(name, str(pe[0]))
                      for name in inp.pe_of_queue.get(qi.queue, ())):
        return False
    return inp.matcher is None or inp.matcher(job, qi)


def _queue_matches(ref: str, qi: QueueInstance) -> bool:
    """``-q`` entries: ``queue``, ``queue@host``, ``*@host``, ``@hostgroup`` not resolved here."""
    qpat, _, hpat = str(ref).partition("@")
    if not fnmatch.fnmatchcase(qi.queue, qpat or "*"):
        return False
    return not hpat or fnmatch.fnmatchcase(qi.host, hpat)


def _place(job: dict[str, Any], candidates: Iterable[QueueInstance],
           free: dict[tuple[str, str], int]) -> list[list[Any]] | None:
    """Grant slots on one queue instance (``$pe_slots``-style placement for PE jobs)."""
    low, high = _slot_range(job)
    for qi in candidates:
        key = (qi.queue, qi.host)
        avail = free.get(key, 0)
        if avail >= low:
            slots = min(high, avail)
            free[key] = avail - slots
            return [[qi.queue, qi.host, slots]]
    return None


def _slot_range(job: dict[str, Any]) -> tuple[int, int]:
    pe = (job.get("opts") or {}).get("pe")
    if not pe:
        return 1, 1
    low = int(pe[1])
    high = int(pe[2]) if len(pe) > 2 and pe[2] is not None else low
    return max(low, 1), max(high, low, 1)
