"""The schedule file, ``$SGE_ROOT/$SGE_CELL/common/schedule`` (sched_conf(5) ``params
MONITOR=1``): what one pass planned, in 8.1.9's lines. Pure: the pass's input and result
in, text out; the scheduler appends it (``scheduler.service``).

Format, as 8.1.9 writes it (tests/data/reference/reservation/schedule-*.txt, FINDINGS.md):
every pass starts with the line ``::::::::``; then one line per resource a task holds or
will hold, ``job:task:STATE:start:duration:LEVEL:object:resource:amount``:

- STATE: ``RUNNING`` and ``SUSPENDED`` (the active tasks' holds), ``STARTING`` (dispatched
  by this pass, from its time), ``RESERVING`` (a ``-R y`` job's planned start);
- start in epoch seconds, duration in seconds up to the planned end (which includes
  ``DURATION_OFFSET``); an end that never comes is printed as 8.1.9's largest time,
  4294967295, i.e. the duration is 4294967295 - start;
- the levels in this order: ``P:<pe>:slots:<n>`` (a parallel job's slots),
  ``G:global:<consumable>``, ``H:<host>:<consumable>``, ``Q:<queue@host>:slots`` and the
  queue's consumables, ``L:<quota set>:<user/project/pe/queue/host/>`` (one line per limit of
  the rule that counts the task; the consumer fields filled where the rule's filter is
  expanded, as 8.1.9 keys quota usage); amounts with six decimals, a parallel job's totals;
- running tasks first, then suspended ones, each in job and task order; then the pass's
  dispatches and reservations.

With planning off (``max_reservation`` 0 and no advance reservation) 8.1.9 writes only the
separator line.
"""
from __future__ import annotations

import math
from typing import Any, Iterable, Mapping, Sequence

from common.placement.dispatch import PassInput
from common.placement.job import PlacementJob
from common.placement.resources import GLOBAL, debits, job_requests
from common.placement.timeline import Hold, Reservation, planned_end

SEPARATOR = "::::::::"
U_LONG32_MAX = 4294967295  # 8.1.9's end of time (an INFINITY duration ends there)


def schedule_block(inp: PassInput, reservations: Sequence[Reservation] = (),
                   orders: Sequence[Mapping[str, Any]] = ()) -> str:
    """One pass's text: the separator line, then (when the pass planned) the holds of the
    active tasks, the pass's dispatches (``orders``) and its ``reservations``."""
    lines = [SEPARATOR]
    if inp.reserve is not None:
        holds = sorted(inp.holds, key=lambda h: (h.job_id, h.task_id))
        for state in ("RUNNING", "SUSPENDED"):
            for hold in holds:
                if hold.state == state:
                    lines += task_lines(inp, hold.job_id, hold.task_id, state, hold.start,
                                        hold.end, hold.granted, hold.pe)
        now = inp.reserve.now
        for order in orders:
            job = inp.jobs.get(int(order["job_id"]))
            if job is not None:
                lines += task_lines(inp, job.job_id, int(order["task_id"]), "STARTING", now,
                                    planned_end(job, now, inp.reserve), order["granted"],
                                    order.get("pe"))
        for found in reservations:
            lines += task_lines(inp, found.job_id, found.task_id, "RESERVING", found.start,
                                found.end, found.granted, found.pe)
    return "".join(f"{line}\n" for line in lines)


def task_lines(inp: PassInput, job_id: int, task_id: int, state: str, start: float,
               end: float, granted: Iterable[Sequence[Any]], pe: str | None) -> list[str]:
    """The lines of one task's grant (no lines for a job the pass does not know)."""
    job = inp.jobs.get(job_id)
    if job is None:
        return []
    grant = [(str(q), str(h), int(s)) for q, h, s in granted]
    head = f"{job_id}:{task_id}:{state}:{_start(start)}:{_duration(start, end)}"
    return [f"{head}:{level}:{obj}:{name}:{amount:.6f}"
            for level, obj, name, amount in grant_amounts(inp, job, grant, pe)]


def grant_amounts(inp: PassInput, job: PlacementJob, grant: Sequence[tuple[str, str, int]],
                  pe: str | None) -> list[tuple[str, str, str, float]]:
    """(level letter, object, resource, amount) of a grant, in 8.1.9's order."""
    out: list[tuple[str, str, str, float]] = []
    if pe:
        out.append(("P", pe, "slots", float(sum(slots for _, _, slots in grant))))
    levels: dict[tuple[str, str], dict[str, float]] = {}
    for queue, host, slots in grant:  # the queue instances' slots, in grant order
        _add(levels, ("Q", f"{queue}@{host}"), "slots", float(slots))
    requests = job_requests(job.hard_resources, inp.resources.attrs) \
        if inp.resources is not None else None
    if inp.resources is not None and requests is not None:
        for key, name, amount, _exclusive in debits(inp.resources, requests, grant):
            where = ("G", "global") if key == GLOBAL else \
                ("H", key[1]) if key[0] == "host" else ("Q", f"{key[1]}@{key[2]}")
            _add(levels, where, name, float(amount))
    for letter in ("G", "H", "Q"):
        out += [(letter, obj, name, amount) for (level, obj), names in levels.items()
                if level == letter for name, amount in names.items()]
    if inp.quotas is not None:
        quota: dict[tuple[str, str], dict[str, float]] = {}
        for (set_name, _index, consumers), name, amount in \
                inp.quotas.grant_charges(job, grant, pe):
            _add(quota, (set_name, "".join(f"{c}/" for c in consumers)), name, amount)
        out += [("L", set_name, key, amount) for (set_name, key), names in quota.items()
                for amount in names.values()]
    return out


def _add(levels: dict[tuple[str, str], dict[str, float]], where: tuple[str, str], name: str,
         amount: float) -> None:
    names = levels.setdefault(where, {})
    names[name] = names.get(name, 0.0) + amount


def _start(start: float) -> int:
    return int(start) if math.isfinite(start) else U_LONG32_MAX


def _duration(start: float, end: float) -> int:
    """Seconds from start to the planned end; an end that never comes is 8.1.9's
    largest time (its durations are whole seconds, rounded up as its clock ticks)."""
    first = _start(start)
    last = U_LONG32_MAX if not math.isfinite(end) else min(int(math.ceil(end)), U_LONG32_MAX)
    return max(0, last - first)
