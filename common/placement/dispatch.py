"""The dispatch pass: a pure function from a view of the cluster to dispatch orders.

Input: pending tasks with their jobs, the queue instances, the slots in use and the
resource levels (``common.placement.resources.ResourceView``). Output: orders ``{"type":
"dispatch", "job_id", "task_id", "task_version", "granted": [[queue, host, slots],
...]}``, with ``"pe"``, the parallel environment chosen, for a ``-pe`` job. Tasks are taken in priority order (``-p`` high first, then job and task
number). A job is placed only where its hard ``-l`` requests match; its soft requests
rank the queue instances (fewest violations first); consumables are debited as the
pass grants them. Jobs with the same requests form a *category*: its candidate queue
instances are found once per pass, and once it found no room its other tasks are
skipped without looking again, so the cost of a pass grows with the number of
categories, not of pending tasks (``PassInput.category_cache=False`` turns this off,
to measure it). Parallel jobs: ``PEConf`` (allocation rule, total ``slots`` limit,
``pe_usage`` of running jobs) and ``common.placement.pe_alloc`` for the spreading.
Caps (``PassInput.caps``, ``common.placement.caps``): the jobs of a user at ``maxujobs``
and a job's pending ids past its instance limit (``max_aj_instances``, ``-tc``) are left
without marking their category full.
"""
from __future__ import annotations

import fnmatch
import heapq
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from common import task_ranges
from common.cluster import QueueInstance
from common.placement.caps import Caps
from common.placement.job import PlacementJob
from common.resource.complexes import ResourceRequest
from common.placement.pe_alloc import (
    Allocation, RequestFit, allocate, by_host, drop_full_hosts, soft_fits,
)
from common.placement.load_alarm import HostLoads, InstanceThresholds, exceeded, overload_reason
from common.placement.pass_conf import Access, PEConf, matching_pes, pes_at
from common.placement.quotas import QuotaContext, everywhere
from common.placement.resources import ResourceView, apply, debits, job_requests
from common.placement.plan import RELEASE, Plan, Walk
from common.placement.timeline import (
    AdvanceReservation, Hold, Reservation, ReserveConf, planned_end,
)

# (job, queue instance) -> True when the job's requests allow that instance
Matcher = Callable[[PlacementJob, QueueInstance], bool]
SlotKey = tuple[str, str]


@dataclass
class PassInput:
    """``pes``: PE configurations by name; a requested PE missing there is placed like
    ``$pe_slots`` with no total limit. ``pe_used``: slots held per PE by running jobs.
    ``resources``: without it, ``-l`` requests are not looked at (``matcher`` may)."""

    jobs: Mapping[int, PlacementJob]
    pending: list[dict[str, Any]]            # task records in state pending
    instances: list[QueueInstance]
    used: dict[tuple[str, str], int]
    load: dict[str, float] = field(default_factory=dict)  # host -> its load_formula value
    # sched_conf(5) queue_sort_method: seqno ranks by seq_no, then load; load (the
    # default) by load, then seq_no
    sort_by_seqno: bool = False
    pe_of_queue: dict[str, set[str]] = field(default_factory=dict)
    host_groups: Mapping[str, frozenset[str]] = field(default_factory=dict)  # "@g" -> hosts
    access: Access | None = None  # user and project lists of queues, hosts and PEs
    matcher: Matcher | None = None
    resources: ResourceView | None = None
    pes: dict[str, PEConf] = field(default_factory=dict)
    pe_used: dict[str, int] = field(default_factory=dict)
    category_cache: bool = True
    quotas: QuotaContext | None = None  # resource quota sets and their usage
    # maxujobs, max_aj_instances and -tc (common.placement.caps); None: no caps
    caps: Caps | None = None
    # load_thresholds (common.placement.load_alarm): each instance's thresholds, the
    # load values they are checked against, and the instances over one (-> qstat -j's
    # reason); a pass's own dispatches add their load adjustment as it makes them
    thresholds: dict[SlotKey, InstanceThresholds] = field(default_factory=dict)
    host_loads: HostLoads | None = None
    overloaded: dict[SlotKey, str] = field(default_factory=dict)
    # the pending ids of jobs' task ranges (common.model.TaskRanges) that may be placed:
    # job id -> (range list, the ranges' version, which an order for one carries)
    pending_ranges: Mapping[int, tuple[list[list[int]], int]] = field(default_factory=dict)
    exclude: frozenset[str] | set[str] = frozenset()  # "job.task" keys not to place now
    # the scheduling policy's order (common.policy: sge_priority(5)): job id -> rank, the
    # first 0; None: -p high first, then job id (the qmaster's own checks)
    order: Mapping[int, int] | None = None
    # planning over time (common.placement.timeline): None plans nothing and ``holds``
    # and ``ars`` are not looked at. ``holds``: what the active tasks hold until their
    # planned ends; ``ars``: the advance reservations not yet ended
    reserve: ReserveConf | None = None
    holds: Sequence[Hold] = ()
    ars: Sequence[AdvanceReservation] = ()
    # the pass's clock: jobs whose ``-a`` time is later wait (None: no clock, every job
    # is eligible, as the qmaster's ``qsub -w`` checks ask)
    now: float | None = None
    _by_host: dict[str, list[tuple[SlotKey, InstanceThresholds]]] | None = field(
        default=None, repr=False, init=False)

    def thresholds_by_host(self) -> dict[str, list[tuple[SlotKey, InstanceThresholds]]]:
        """``thresholds`` by host (a dispatch re-checks only its host's instances)."""
        if self._by_host is None:
            self._by_host = {}
            for key, found in self.thresholds.items():
                self._by_host.setdefault(key[1], []).append((key, found))
        return self._by_host


@dataclass
class PassStats:
    considered: int = 0
    skipped_by_category: int = 0
    capped: int = 0  # jobs left by a cap (maxujobs, max_aj_instances, -tc) in this pass
    orders: int = 0
    categories: int = 0
    # jobs the pass could not evaluate (job id -> why); they are skipped, the pass goes on
    unevaluable: dict[int, str] = field(default_factory=dict)
    # the -R y jobs' planned starts found in this pass (at most max_reservation)
    reservations: list[Reservation] = field(default_factory=list)


@dataclass
class Category:
    """What one category learnt in this pass: where it may go, and how far serial
    placement got (instances before ``cursor`` are full for it)."""

    candidates: list[QueueInstance]
    requests: list[ResourceRequest]
    fit: RequestFit | None
    cursor: int = 0
    pe_hosts: list[tuple[PEConf, list[list[QueueInstance]]]] | None = None
    pe_bounds: dict[str, dict[str, int]] = field(default_factory=dict)


def pending_order(jobs: Mapping[int, PlacementJob], pending: Iterable[dict[str, Any]],
                  order: Mapping[int, int] | None = None) -> list[dict[str, Any]]:
    """The order tasks are placed in: by the policy's ``order`` (jobs it has no rank for
    after the others), else ``-p`` high first; then job and task number."""
    if order is not None:
        last = len(order)
        return sorted(pending, key=lambda t: (order.get(t["job_id"], last), t["job_id"],
                                              t["task_id"]))
    urgency = {job_id: -job.priority for job_id, job in jobs.items()}
    return sorted(pending, key=lambda t: (urgency.get(t["job_id"], 0), t["job_id"],
                                          t["task_id"]))


def pending_jobs(inp: PassInput
                 ) -> Iterator[tuple[int, list[dict[str, Any]], tuple[list[list[int]], int]]]:
    """The jobs with pending tasks in placement order (the policy's ``order``, else ``-p``
    high first; then job id), each with its enrolled pending task records and its
    pending ranges (with their version). Lazy: a pass that fills the cluster early looks
    at no more jobs."""
    enrolled: dict[int, list[dict[str, Any]]] = {}
    for task in inp.pending:
        enrolled.setdefault(task["job_id"], []).append(task)
    ids = [j for j in set(enrolled) | set(inp.pending_ranges)
           if j in inp.jobs and eligible(inp.jobs[j], inp.now)]
    order = inp.order
    if order is not None:
        last = len(order)  # (a job the policy has not ranked yet goes after the others)
        ids.sort(key=lambda j: (order.get(j, last), j))
    else:
        ids.sort(key=lambda j: (-inp.jobs[j].priority, j))
    no_ranges: tuple[list[list[int]], int] = ([], 0)
    for job_id in ids:
        yield job_id, enrolled.get(job_id, []), inp.pending_ranges.get(job_id, no_ranges)


def eligible(job: PlacementJob, now: float | None) -> bool:
    """Whether the job's ``-a`` time (if any) has come: 8.1.9's scheduler leaves a job
    before it ("execution time not reached")."""
    return job.not_before is None or now is None or job.not_before <= now


def waiting_for_time(inp: PassInput) -> list[float]:
    """The ``-a`` times still to come of the jobs with pending tasks (the scheduler
    wakes at the earliest: no polling)."""
    if inp.now is None:
        return []
    ids = {t["job_id"] for t in inp.pending} | set(inp.pending_ranges)
    return [job.not_before for j in ids if (job := inp.jobs.get(j)) is not None
            and job.not_before is not None and job.not_before > inp.now]


def _job_tasks(job_id: int, records: list[dict[str, Any]], ranges: list[list[int]],
               version: int, exclude: frozenset[str] | set[str]) -> Iterator[dict[str, Any]]:
    """A job's pending tasks in task id order: its enrolled records and the ids of its
    ranges, made into records only as the pass reaches them. A job's tasks share its
    requests, so the pass leaves a job at its first task that finds no room: a
    million-task array costs what the tasks placed cost."""
    if not ranges:  # a job whose tasks are all enrolled (every job's, in the pass's
        # usual case of one enrolled task each): nothing to merge
        yield from (sorted(records, key=_task_id) if len(records) > 1 else records)
        return
    unenrolled = (t for t in task_ranges.ids(ranges) if f"{job_id}.{t}" not in exclude)
    virtual = ({"job_id": job_id, "task_id": t, "version": version, "enrolled": False}
               for t in unenrolled)
    if not records:
        yield from virtual
        return
    yield from heapq.merge(sorted(records, key=_task_id), virtual, key=_task_id)


def _task_id(task: Mapping[str, Any]) -> int:
    return task["task_id"]


def _free_slots(inp: PassInput) -> dict[SlotKey, int]:
    return {(qi.queue, qi.host): qi.slots - inp.used.get((qi.queue, qi.host), 0)
            for qi in inp.instances
            if qi.accepts_jobs and qi.takes_jobs
            and (qi.queue, qi.host) not in inp.overloaded}


def dispatch_pass(inp: PassInput, stats: PassStats | None = None) -> list[dict[str, Any]]:
    stats = stats or PassStats()
    if inp.host_loads is not None and inp.host_loads.factors:  # the pass adds its own
        inp = replace(inp, host_loads=inp.host_loads.copy(), overloaded=dict(inp.overloaded))
    free = _free_slots(inp)
    pe_used = dict(inp.pe_used)
    plan, ar_free = _plan(inp, free, pe_used)
    left = sum(max(v, 0) for v in free.values())
    orders: list[dict[str, Any]] = []
    max_reservation = inp.reserve.max_reservation if inp.reserve is not None else 0
    if left <= 0 and not ar_free and max_reservation <= 0:
        return orders
    # the batch instances (free's keys, fixed for the pass) by the pass's ranking
    ranked = sorted((qi for qi in inp.instances if (qi.queue, qi.host) in free),
                    key=lambda qi: _rank(inp, qi))
    categories: dict[tuple[Any, ...], Category] = {}
    # where each request set may go, shared by the categories that differ only in owner
    # or project when nothing about the job's owner narrows the instances
    candidates: dict[tuple[Any, ...], Candidates] | None = {} if inp.category_cache else None
    full: set[tuple[Any, ...]] = set()
    caps = inp.caps.copy() if inp.caps is not None else None  # the pass counts its own

    def may_reserve(job: PlacementJob) -> bool:
        return plan is not None and job.reserve and job.ar_id is None and \
            len(plan.reservations) < max_reservation

    def reserve(job: PlacementJob, task_id: int) -> None:
        """Plan the earliest start of a -R y job that cannot start now."""
        assert plan is not None
        try:
            found = _reserve(job, task_id, plan, ranked, inp, free, pe_used)
        except Exception as exc:  # noqa: BLE001 - one job must not stop every job's pass
            stats.unevaluable[job.job_id] = f"{type(exc).__name__}: {exc}"
            return
        if found is not None:
            plan.book(found)

    ar_inp = replace(inp, quotas=None) if ar_free and inp.quotas is not None else inp
    seen_jobs: set[int] = set()
    walked = True  # every pending job was looked at
    for job_id, records, (ranges, version) in pending_jobs(inp):
        job = inp.jobs[job_id]
        in_ar = job.ar_id is not None
        if left <= 0 and not in_ar:
            # nothing more can start now but in advance reservations: what is left to do
            # is reserving, done below for the -R y jobs alone (not by walking them all)
            if not ar_free:
                walked = False
                break
            if not may_reserve(job):
                continue
        seen_jobs.add(job_id)
        try:
            key = job.category
        except Exception as exc:  # noqa: BLE001 - one job must not stop every job's pass
            stats.unevaluable[job_id] = f"{type(exc).__name__}: {exc}"
            continue
        if caps is not None and caps.user_full(job.owner):
            stats.capped += 1  # a cap is the user's or the job's, never its category's
            continue
        total = len(records) + task_ranges.count(ranges)
        if key in full or (left <= 0 and not in_ar):
            stats.considered += total
            stats.skipped_by_category += total
            if may_reserve(job):
                first = next(_job_tasks(job_id, records, ranges, version, inp.exclude), None)
                if first is not None:
                    reserve(job, first["task_id"])
            continue
        room, where = free, inp
        if in_ar:
            room = ar_free.get(job.ar_id)  # type: ignore[arg-type]
            if room is None:  # its reservation has not started, or has ended
                continue
            where = ar_inp  # (no quota limits nor counts a job of an AR)
        tasks = _job_tasks(job_id, records, ranges, version, inp.exclude)
        for seen, task in enumerate(tasks, 1):
            enrolled = task.get("enrolled", True)
            if caps is not None and not caps.may_start(job, enrolled):
                stats.capped += 1  # its category is not full: others of it may start
                break
            stats.considered += 1
            placed = None
            try:
                if in_ar:  # what the AR holds for its unused slots is its jobs' to take
                    plan.open_ar(job.ar_id)  # type: ignore[union-attr,arg-type]
                try:
                    category = categories.get(key)
                    if category is None:
                        stats.categories += 1
                        category = _category(job, ranked, where, candidates)
                        if inp.category_cache:
                            categories[key] = category
                    window = None if plan is None or in_ar else \
                        (plan, plan.now, planned_end(job, plan.now, plan.conf))
                    placed = _place(job, category, room, where, pe_used, window)
                finally:
                    if in_ar:  # (held again, less what the job got)
                        plan.close_ar(job.ar_id,  # type: ignore[union-attr,arg-type]
                                      placed[0] if placed is not None else None)
            except Exception as exc:  # noqa: BLE001 - one job must not stop every job's pass
                stats.unevaluable[job_id] = f"{type(exc).__name__}: {exc}"
                break
            if placed is None:  # the job's other tasks would find no room either
                if inp.category_cache:
                    full.add(key)
                    stats.considered += total - seen
                    stats.skipped_by_category += total - seen
                if may_reserve(job):
                    reserve(job, task["task_id"])
                break
            granted, pe_name = placed
            order = {"type": "dispatch", "job_id": job_id, "task_id": task["task_id"],
                     "task_version": task["version"], "granted": granted}
            if pe_name is not None:
                order["pe"] = pe_name
            orders.append(order)
            if caps is not None:
                caps.started(job, enrolled)
            if plan is not None and not in_ar:
                plan.add_dispatch(job, granted, pe_name)
            _adjust_load(inp, granted, free)
            if not in_ar:
                left -= sum(g[2] for g in granted)
            if left <= 0 and not in_ar:
                break
    if plan is not None and not walked:
        _reserve_the_rest(inp, seen_jobs, ar_free, may_reserve, reserve, stats)
    stats.orders = len(orders)
    if plan is not None:
        stats.reservations = list(plan.reservations)
    return orders


def not_scheduled(inp: PassInput, orders: Sequence[Mapping[str, Any]]) -> list[int]:
    """The immediate jobs (``-now y``) of the pass's input that keep a pending task after
    the pass's ``orders``: as 8.1.9's scheduler, this one refuses them in the run that
    could not start them (the qmaster deletes them, ``qmaster.orders``)."""
    ordered: dict[int, set[int]] = {}
    for order in orders:
        ordered.setdefault(int(order["job_id"]), set()).add(int(order["task_id"]))
    refused = set()
    for task in inp.pending:
        job_id = int(task["job_id"])
        job = inp.jobs.get(job_id)
        if job is not None and job.immediate and \
                int(task["task_id"]) not in ordered.get(job_id, ()):
            refused.add(job_id)
    for job_id, (ranges, _) in inp.pending_ranges.items():
        job = inp.jobs.get(job_id)
        if job is None or not job.immediate or job_id in refused:
            continue
        placed = sum(1 for t in ordered.get(job_id, ()) if task_ranges.contains(ranges, t))
        if task_ranges.count(ranges) > placed:
            refused.add(job_id)
    return sorted(refused)


def _reserve_the_rest(inp: PassInput, seen: set[int], ar_free: Mapping[int, Any],
                      may_reserve: Callable[[PlacementJob], bool],
                      reserve: Callable[[PlacementJob, int], None], stats: PassStats) -> None:
    """When the cluster is full before every pending job was looked at: the -R y jobs
    not yet looked at, in placement order, get their reservations (up to
    max_reservation). Jobs of advance reservations are not in this list: their slots are
    not the cluster's (``left``), and their loop goes on for them."""
    firsts: dict[int, int] = {}
    for task in inp.pending:
        job_id = task["job_id"]
        job = inp.jobs.get(job_id)
        if job is not None and job.reserve and job_id not in seen and \
                eligible(job, inp.now) and f"{job_id}.{task['task_id']}" not in inp.exclude:
            firsts[job_id] = min(firsts.get(job_id, task["task_id"]), task["task_id"])
    for job_id, (ranges, _version) in inp.pending_ranges.items():
        job = inp.jobs.get(job_id)
        if job is not None and job.reserve and job_id not in seen and ranges and \
                eligible(job, inp.now):  # (before its -a time a job reserves nothing)
            first = next(iter(task_ranges.ids(ranges)))
            firsts[job_id] = min(firsts.get(job_id, first), first)
    for job_id in sorted(firsts, key=_order_key(inp)):
        job = inp.jobs[job_id]
        if not may_reserve(job):
            if not job.reserve or job.ar_id is not None:
                continue
            break  # max_reservation reached
        stats.considered += 1
        reserve(job, firsts[job_id])


def _order_key(inp: PassInput) -> Callable[[int], tuple[Any, ...]]:
    """Placement order of job ids (as ``pending_jobs``)."""
    order = inp.order
    if order is not None:
        last = len(order)
        return lambda j: (order.get(j, last), j)
    return lambda j: (-inp.jobs[j].priority, j)


def _plan(inp: PassInput, free: dict[SlotKey, int], pe_used: dict[str, int]
          ) -> tuple[Plan | None, dict[int, dict[SlotKey, int]]]:
    """The pass's plan of the future (None: no planning) and, per advance reservation
    that has started, the slots its jobs may still take (its own ``free``)."""
    conf = inp.reserve
    if conf is None:
        return None, {}
    plan = Plan(conf, inp.jobs, free, inp.resources, inp.quotas, pe_used)
    ar_ids = {ar.ar_id for ar in inp.ars}
    in_ar: dict[int, dict[SlotKey, int]] = {}  # AR id -> slots its running jobs hold
    inside: set[int] = set()
    for hold in inp.holds:
        job = inp.jobs.get(hold.job_id)
        if job is not None and job.ar_id in ar_ids:
            inside.add(hold.job_id)
            used = in_ar.setdefault(job.ar_id, {})  # type: ignore[arg-type]
            for queue, host, slots in hold.granted:
                used[(queue, host)] = used.get((queue, host), 0) + slots
    ar_free: dict[int, dict[SlotKey, int]] = {}
    for ar in inp.ars:
        if ar.end <= conf.now:
            continue
        used = in_ar.get(ar.ar_id, {})
        unused = [(q, h, n - used.get((q, h), 0)) for q, h, n in ar.granted
                  if n > used.get((q, h), 0)]
        plan.add_ar(ar, unused)
        if ar.start <= conf.now and not (ar.hard_error and _in_trouble(ar, inp)):
            ar_free[ar.ar_id] = {(q, h): n for q, h, n in unused}
    plan.add_holds(inp.holds, inside)
    return plan, ar_free


def _in_trouble(ar: AdvanceReservation, inp: PassInput) -> bool:
    """Whether a granted queue instance of the AR is disabled, suspended, in error or on
    an unknown host (its jobs wait then when it was asked with ``qrsub -he y``)."""
    usable = {(qi.queue, qi.host) for qi in inp.instances if qi.accepts_jobs}
    return any((queue, host) not in usable for queue, host, _ in ar.granted)


def _reserve(job: PlacementJob, task_id: int, plan: Plan, ranked: list[QueueInstance],
             inp: PassInput, free: dict[SlotKey, int], pe_used: dict[str, int]
             ) -> Reservation | None:
    """The earliest start of ``job`` on the plan (each try places it afresh, with the
    backfill checks of its window)."""
    # the instances it may ever use (its fixed requests are judged at each try: the
    # verdict of a consumable depends on the time asked)
    allowed = _allowed_instances(job, ranked, inp)
    view = inp.resources
    if view is not None:  # those whose fixed values and loads match its requests now
        requests = job_requests(job.hard_resources, view.attrs)
        if requests is None:
            return None
        fixed = [r for r in requests if not r.attr.is_consumable]
        if fixed:
            allowed = RequestFit(view, fixed, master=job.pe is None,
                                 only_requested=True).select(allowed)
    keys = [(qi.queue, qi.host) for qi in allowed]
    if not keys:
        return None
    need = min(low for low, _ in job.slot_ranges())
    per_host = job.pe is None or all(
        inp.pes[name].rule == "$pe_slots" for name in matching_pes(job.pe[0], inp.pes)) \
        and bool(matching_pes(job.pe[0], inp.pes))

    now = _candidates(job, ranked, inp)
    # without consumables the candidates are the same at any time: found once; else
    # afresh at each try (the view is that of its time)
    timeless = now[2] is None or not now[2].dynamic

    def place_at(start: float, end: float) -> tuple[list[list[Any]], str | None] | None:
        category = Category(*now) if timeless else _category(job, ranked, inp)
        return _place(job, category, free, inp, pe_used, (plan, start, end))
    return plan.earliest(job, task_id, place_at, keys, need, per_host)


def _rank(inp: PassInput, qi: QueueInstance) -> tuple[Any, ...]:
    load = inp.load.get(qi.host, 0.0)
    if inp.sort_by_seqno:
        return (qi.seq_no, load, qi.queue, qi.host)
    return (load, qi.seq_no, qi.queue, qi.host)


def _adjust_load(inp: PassInput, granted: list[list[Any]], free: dict[SlotKey, int]) -> None:
    """job_load_adjustments of a dispatch in this pass: an instance on the host that its
    load thresholds now close takes nothing more in this pass."""
    loads = inp.host_loads
    if loads is None or not loads.factors:
        return
    hosts: dict[str, int] = {}
    for _queue, host, slots in granted:
        hosts[host] = hosts.get(host, 0) + int(slots)
    by_host = inp.thresholds_by_host()
    for host, slots in hosts.items():
        loads.dispatched(host, slots)
        for key, found in by_host.get(host, ()):
            if not found.load or key not in free:
                continue
            check = exceeded(loads.checks(host, found.load))
            if check is not None:
                free[key] = 0
                inp.overloaded[key] = overload_reason(f"{key[0]}@{key[1]}", check)


def can_run(job: PlacementJob, inp: PassInput) -> bool:
    """Whether the pass would place the job in the cluster ``inp`` describes (``qsub
    -w``: an empty cluster for e/w/v, the current one for p). Neither the view nor the
    quotas' usage is debited."""
    view = inp.resources.copy() if inp.resources is not None else None
    quotas = inp.quotas.trial() if inp.quotas is not None else None
    alone = replace(inp, jobs={0: job}, resources=view, quotas=quotas, caps=None,
                    pending=[{"job_id": 0, "task_id": 1, "version": 0}])
    return bool(dispatch_pass(alone))


def ar_admission(ar: PlacementJob, start: float, end: float, inp: PassInput
                 ) -> tuple[list[list[Any]], str | None] | None:
    """Where an advance reservation asking what ``ar`` asks (``qrsub -l -pe -q``) would
    hold its slots from ``start`` to ``end``, with the PE chosen; None when they cannot be
    guaranteed: some instant of the window lacks them, given the holds' planned ends and
    the other advance reservations (``inp.reserve``, ``inp.holds``, ``inp.ars``). The
    pass's reservations of ``-R y`` jobs are plans, not promises: they are not counted.
    ``inp`` is left as it was."""
    conf = inp.reserve
    if conf is None:
        raise ValueError("ar_admission needs inp.reserve (the time and the durations)")
    inp = replace(inp, resources=inp.resources.copy() if inp.resources is not None else None,
                  quotas=inp.quotas.trial() if inp.quotas is not None else None,
                  caps=None)
    free = _free_slots(inp)
    pe_used = dict(inp.pe_used)
    plan, _ = _plan(inp, free, pe_used)
    assert plan is not None
    ranked = sorted((qi for qi in inp.instances if (qi.queue, qi.host) in free),
                    key=lambda qi: _rank(inp, qi))
    walk = Walk(plan, plan.now)
    try:
        walk.advance(start)
        walk.flush()
        category = _category(ar, ranked, inp)
        return _place(ar, category, free, inp, pe_used, (plan, max(start, plan.now), end))
    finally:
        walk.undo()


def _category(job: PlacementJob, ranked: list[QueueInstance], inp: PassInput,
              shared: dict[tuple[Any, ...], Candidates] | None = None) -> Category:
    key = _request_key(job, inp)
    found = None if shared is None else shared.get(key)
    if found is None:
        found = _candidates(job, ranked, inp)
        if shared is not None:
            shared[key] = found
    return Category(*found)


# a category's candidate instances (ranked), its hard requests and their fit
Candidates = tuple[list[QueueInstance], list[ResourceRequest], "RequestFit | None"]


def _request_key(job: PlacementJob, inp: PassInput) -> tuple[Any, ...]:
    """What the candidates depend on: the job's requests, and its owner and project only
    when access lists (or a matcher) may treat owners differently. Quotas and caps are
    asked per placement, never of the candidates; a candidate found full while one
    owner's category was placed may be tried again by another's (free slots and
    consumables are rechecked at each placement)."""
    if inp.matcher is not None or (inp.access is not None and inp.access.restricted):
        return job.category
    return job.requests_key


def _candidates(job: PlacementJob, ranked: list[QueueInstance], inp: PassInput
                ) -> Candidates:
    view = inp.resources
    requests = job_requests(job.hard_resources, view.attrs) if view is not None else []
    fit = RequestFit(view, requests, master=job.pe is None) if view is not None else None
    # instances full at this moment stay candidates: the order of hosts for PE rules
    # must not depend on when the category was first seen (with or without the cache)
    candidates = _allowed_instances(job, ranked, inp)
    if fit is not None:
        candidates = fit.select(candidates)
    _rank_by_soft_requests(job, candidates, inp)
    return candidates, requests or [], fit


def _rank_by_soft_requests(job: PlacementJob, candidates: list[QueueInstance],
                           inp: PassInput) -> None:
    """Fewest soft violations first, as Grid Engine counts them: one per soft ``-l``
    request an instance does not meet, one when a soft ``-q`` list names it not."""
    view = inp.resources
    soft = job_requests(job.soft_resources, view.attrs) if view is not None else None
    soft_queues = job.soft_queues
    if not soft and not soft_queues:
        return
    satisfied = [set(map(id, f.select(candidates)))
                 for f in soft_fits(view, soft)] if soft else []  # type: ignore[arg-type]

    def violations(qi: QueueInstance) -> int:
        missed = sum(id(qi) not in ok for ok in satisfied)
        if soft_queues and not any(queue_matches(ref, qi, inp.host_groups)
                                   for ref in soft_queues):
            missed += 1
        return missed
    # stable: among equal violation counts the pass's ranking stays
    candidates.sort(key=violations)


def _allowed_instances(job: PlacementJob, instances: list[QueueInstance], inp: PassInput
                       ) -> list[QueueInstance]:
    """The instances ``-q`` and ``-pe`` allow; decided once per queue when no ``-q``
    entry names a host (the usual case)."""
    refs = job.hard_queues
    restricted = inp.access is not None and inp.access.restricted
    if any(not qi.takes(job.interactive) for qi in instances):
        instances = [qi for qi in instances if qi.takes(job.interactive)]
    if job.checkpoint is not None:
        instances = [qi for qi in instances if qi.takes_checkpointing(job.checkpoint)]
    if not refs and job.pe is None and inp.matcher is None and not restricted:
        return instances
    if restricted:
        instances = [qi for qi in instances if _has_access(job, qi, inp.access)]
    if inp.matcher is not None or any("@" in str(ref) for ref in refs):
        return [qi for qi in instances if _allowed(job, qi, inp)]
    by_queue: dict[str, bool] = {}
    for qi in instances:
        if qi.queue not in by_queue:
            by_queue[qi.queue] = _allowed(job, qi, inp)
    return [qi for qi in instances if by_queue[qi.queue]]


def _has_access(job: PlacementJob, qi: QueueInstance, access: Access | None) -> bool:
    """The queue's and the host's user_lists/xuser_lists admit the job's owner, and
    their projects/xprojects the job's project."""
    return access is None or access.job_allowed(job.owner, job.group, job.project,
                                                qi.queue, qi.host)


def _allowed(job: PlacementJob, qi: QueueInstance, inp: PassInput) -> bool:
    queues = job.hard_queues
    if queues and not any(queue_matches(ref, qi, inp.host_groups) for ref in queues):
        return False
    pe = job.pe
    if pe and not matching_pes(pe[0], pes_at(inp.pe_of_queue, qi.queue, qi.host)):
        return False
    return inp.matcher is None or inp.matcher(job, qi)


def queue_matches(ref: str, qi: QueueInstance,
                  host_groups: Mapping[str, frozenset[str]]) -> bool:
    """A ``-q`` entry (qsub(1) wc_queue): a cluster queue ``q``, a queue instance
    ``q@host`` or a queue domain ``q@@hostgroup``, each part a wildcard pattern."""
    qpat, _, hpat = str(ref).partition("@")
    if not fnmatch.fnmatchcase(qi.queue, qpat or "*"):
        return False
    if not hpat:
        return True
    if hpat.startswith("@"):
        return any(qi.host in hosts for group, hosts in host_groups.items()
                   if fnmatch.fnmatchcase(group, hpat))
    return fnmatch.fnmatchcase(qi.host, hpat)


# the pass's plan and the window [start, end) a placement must hold for (None: now only)
Window = tuple[Plan, float, float]


def _place(job: PlacementJob, category: Category, free: dict[SlotKey, int],
           inp: PassInput, pe_used: dict[str, int], window: Window | None = None
           ) -> tuple[list[list[Any]], str | None] | None:
    """The grant and the PE it is in (None for a serial job), or None: no room. With a
    ``window``, the grant must also leave every later acquisition of the plan inside it
    what it needs (backfilling never delays a reservation)."""
    pe = job.pe
    caps = window[0].slot_caps(window[1], window[2]) if window is not None else {}
    if pe is None:
        granted = _place_serial(job, category, free, inp.resources, inp.quotas, window, caps)
        return None if granted is None else (granted, None)
    for conf, hosts in _pe_choices(job, pe[0], category, inp):
        cap = None if conf.slots is None else conf.slots - pe_used.get(conf.name, 0)
        for low, high in job.slot_ranges():
            limit = high if cap is None else min(high, cap)
            if limit < low:
                continue
            room = free
            if caps:
                room = dict(free)
                for key, less in caps.items():
                    if key in room:
                        room[key] = max(room[key] + less, 0)
            drop_full_hosts(hosts, room)
            found = _allocate_in_quota(job, category, room, inp, conf, hosts, low, limit,
                                       cache=room is free)
            if found is not None:
                granted, total = found
                if room is not free:
                    for queue, host, slots in granted:
                        free[(queue, host)] -= slots
                if inp.quotas is not None:
                    inp.quotas.take(job, granted, conf.name)
                pe_used[conf.name] = pe_used.get(conf.name, 0) + total
                if window is not None and window[0].conflicts(job, granted, conf.name,
                                                              window[1], window[2]):
                    plan = window[0]
                    plan.apply(plan.effect(job, granted, conf.name), RELEASE)
                    return None
                return granted, conf.name
    return None


def _allocate_in_quota(job: PlacementJob, category: Category, free: dict[SlotKey, int],
                       inp: PassInput, conf: PEConf, hosts: list[list[QueueInstance]],
                       low: int, high: int, cache: bool = True
                       ) -> tuple[list[list[Any]], int] | None:
    """The largest grant of ``low``..``high`` slots that the resources and every quota
    allow (and its slot count), or None.

    When the quotas refuse the grant the resources allow, it is tried again on the queue
    instances each capped at what the quotas leave on it alone (a per-host rule full on
    one host leaves the others), and with fewer slots, the most that fits found by
    halving: 8.1.9 gives ``-pe smp 1-4`` two slots under a quota of two."""
    quotas = inp.quotas
    master_ok = _master_rule(job, inp)

    def attempt(room: dict[SlotKey, int], most: int, keep: bool, cache: bool
                ) -> tuple[list[list[Any]], int] | str | None:
        """The grant; "quota" when only the quotas refuse it; None: no resources."""
        alloc = Allocation(inp.resources, category.requests, room, category.fit,
                           master_ok=master_ok)
        # bounds hold for one slot range and the pass's free slots (not capped ones)
        bounds = category.pe_bounds.setdefault(f"{conf.name}:{low}:{most}", {}) \
            if cache else None
        granted = allocate(conf.rule, low, most, hosts, alloc, bounds)
        if granted is None:
            return None
        if quotas is not None and quotas.refusal_of_grant(job, granted, conf.name):
            alloc.rollback()
            return "quota"
        if not keep:
            alloc.rollback()
        return granted, alloc.total

    first = attempt(free, high, keep=True, cache=cache)
    if not isinstance(first, str) or quotas is None:
        return first
    room = _quota_room(job, quotas, conf.name, hosts, free)
    fits, over = low - 1, high + 1  # the most slots known to fit (none yet), and too many
    while over - fits > 1:
        middle = (fits + over) // 2
        found = attempt(room, middle, keep=False, cache=False)
        if isinstance(found, tuple):
            fits = middle
        else:
            over = middle
    found = attempt(room, fits, keep=True, cache=False) if fits >= low else None
    if not isinstance(found, tuple):
        return None
    for queue, host, slots in found[0]:  # taken from the capped copy: now from the pass's
        free[(queue, host)] -= slots
    return found


def _master_rule(job: PlacementJob, inp: PassInput
                 ) -> Callable[[QueueInstance], bool] | None:
    """-masterq: whether a queue instance may take the master task (None: any)."""
    if not job.master_queues:
        return None
    refs = job.master_queues
    return lambda qi: any(queue_matches(ref, qi, inp.host_groups) for ref in refs)


def _quota_room(job: PlacementJob, quotas: QuotaContext, pe: str,
                hosts: list[list[QueueInstance]], free: Mapping[SlotKey, int]
                ) -> dict[SlotKey, int]:
    """A copy of ``free`` with each candidate instance capped at the slots the quotas
    allow there on their own (the most found by halving; the whole grant is checked
    again after)."""
    room = dict(free)
    for qi in (qi for group in hosts for qi in group):
        key = (qi.queue, qi.host)
        fits, over = 0, room.get(key, 0) + 1
        while over - fits > 1:
            middle = (fits + over) // 2
            if quotas.refusing_rule(job, qi.queue, qi.host, middle, pe) is None:
                fits = middle
            else:
                over = middle
        room[key] = fits
    return room


def _pe_choices(job: PlacementJob, pattern: str, category: Category, inp: PassInput
                ) -> list[tuple[PEConf, list[list[QueueInstance]]]]:
    """The configured PEs matching ``-pe``, each with the candidate hosts offering it
    (worked out once per category)."""
    if category.pe_hosts is None:
        matching = matching_pes(pattern, inp.pes)
        names = [n for n in matching if _may_use_pe(job, n, inp.access)]
        if not matching:
            category.pe_hosts = [(PEConf(pattern, None), by_host(category.candidates))]
        else:
            category.pe_hosts = [(inp.pes[n], by_host(
                qi for qi in category.candidates
                if n in pes_at(inp.pe_of_queue, qi.queue, qi.host)))
                for n in names]
    return category.pe_hosts


def _may_use_pe(job: PlacementJob, pe: str, access: Access | None) -> bool:
    return access is None or access.pe_allows(job.owner, job.group, pe)


def _place_serial(job: PlacementJob, category: Category, free: dict[SlotKey, int],
                  view: ResourceView | None, quotas: QuotaContext | None = None,
                  window: Window | None = None, caps: Mapping[SlotKey, int] | None = None
                  ) -> list[list[Any]] | None:
    """One slot on the first candidate with room; an instance found full stays full
    for this category for the rest of the pass (resources only shrink in a pass, and
    quota usage only grows: a category is one owner and project). ``caps``: how many
    fewer slots than free the window leaves per instance (``Plan.slot_caps``)."""
    fit, candidates = category.fit, category.candidates
    while category.cursor < len(candidates):
        qi = candidates[category.cursor]
        key = (qi.queue, qi.host)
        room = free.get(key, 0) + (caps.get(key, 0) if caps else 0)
        if room > 0 and (fit is None or not fit.dynamic
                         or fit.fits(qi.queue, qi.host, 1, True)):
            # the quotas count the slot at once when they admit it
            refused = None if quotas is None else quotas.claim(job, qi.queue, qi.host, 1)
            if refused is not None and everywhere(*refused):
                category.cursor = len(candidates)  # no instance would do: full for it
                return None
            if refused is not None:
                category.cursor += 1
                continue
            free[key] -= 1
            granted = [[qi.queue, qi.host, 1]]
            if view is not None:
                apply(view, debits(view, category.requests, granted))
            if window is not None and window[0].conflicts(job, granted, None, window[1],
                                                          window[2]):
                plan = window[0]
                plan.apply(plan.effect(job, granted, None), RELEASE)
                category.cursor += 1
                continue
            return granted
        category.cursor += 1
    return None


def pe_usage(jobs: Mapping[int, PlacementJob], active: Iterable[Mapping[str, Any]],
             pes: Mapping[str, PEConf], pe_of_queue: Mapping[str, set[str]]
             ) -> dict[str, int]:
    """Slots held per PE by active tasks: the PE each was granted; for a task granted
    before PEs were recorded, the first PE (by name) matching its ``-pe`` pattern that
    its master queue offers."""
    used: dict[str, int] = {}
    for task in active:
        job = jobs.get(task["job_id"])
        granted = task.get("granted") or []
        if job is None or job.pe is None or not granted:
            continue
        name = task.get("granted_pe") or resolve_pe(
            job.pe[0], pes, pes_at(pe_of_queue, str(granted[0][0]), str(granted[0][1])))
        if name is not None:
            used[name] = used.get(name, 0) + sum(int(g[2]) for g in granted)
    return used


def resolve_pe(pattern: str, pes: Mapping[str, PEConf], allowed: set[str]) -> str | None:
    """The first PE by name matching ``-pe pattern`` among those ``allowed``."""
    for name in sorted(pes):
        if fnmatch.fnmatchcase(name, pattern) and name in allowed:
            return name
    return None
