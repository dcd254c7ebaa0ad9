"""The one place that turns a cell's bookkeeping into the policy core's inputs
(``common.policy.model``): jobs (``PlacementJob``s, which the scheduler's mirror and the
qmaster both have) with their task records and range lists -> ``PolicyJob``s; the
configuration objects -> ``Entities`` (projects', departments' and users' ``fshare`` and
``oticket``), the share tree and the ``ResourceUrgency`` of each complex attribute. Pure.

Both callers (the scheduler before each pass, the qmaster's policy view for ``qstat``)
build the same ``PolicyInputs`` here and hand them to ``evaluate``, so that the order a
pass takes and the numbers ``qstat -pri`` shows come from one reading of the cell.
"""
from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from common import task_ranges
from common.access import in_userset
from common.conf_values import get
from common.jobstate import ACTIVE_STATES, State
from common.placement.job import PlacementJob
from common.placement.pass_conf import matching_pes
from common.policy.conf import PolicyConf
from common.policy.model import (
    USAGE_NAMES, Entities, PolicyJob, PolicyResult, ResourceUrgency, RunningTask,
    ShareNode, UsageTable,
)
from common.resource.complexes import cell_complexes
from common.resource.values import NUMERIC_TYPES

Conf = Mapping[str, Mapping[str, Any]]
Pairs = Sequence[Sequence[str]]

DEFAULT_DEPARTMENT = "defaultdepartment"
DEADLINE_USERS = "deadlineusers"   # access_list(5): who may submit with -dl
INFINITE_SLOTS = 9_999_999         # a PE range's "infinite" upper end (common.jobspec)


# --------------------------------------------------------------------------- the config

def policy_conf(conf: Conf) -> PolicyConf:
    """sched_conf(5)'s policy parameters and the global configuration's job caps."""
    return PolicyConf.from_pairs((conf.get("sconf") or {}).get("global") or [],
                                 (conf.get("conf") or {}).get("global") or [])


def resource_urgencies(conf: Conf) -> dict[str, ResourceUrgency]:
    """Each complex attribute with a non-zero ``urgency`` (complex(5)); the others add
    nothing to a job's resource urgency, so the core need not look at them."""
    out: dict[str, ResourceUrgency] = {}
    for attr in cell_complexes(conf):
        try:
            urgency = float(attr.urgency)
        except ValueError:  # (the qmaster checks the column: only a hand-made spool)
            continue
        if urgency:
            out[attr.name] = ResourceUrgency(urgency, attr.consumable.value,
                                             attr.type in NUMERIC_TYPES)
    return out


def _ulong(text: str) -> int:
    try:
        return max(0, int(float(text)))
    except ValueError:
        return 0


class _Departments:
    """The department of a job's owner, as the qmaster assigns it
    (``common.objects_conf.userset.department_of``: the first DEPT list naming the user,
    else the first naming ``@group``, else ``defaultdepartment``), each list's entries
    read once and each owner and group looked up once."""

    def __init__(self, conf: Conf) -> None:
        from common.objects_conf.userset import departments
        self.lists = [(name, frozenset(entries)) for name, entries
                      in departments(conf.get("userset") or {})]
        self.found: dict[tuple[str, str], str] = {}

    def of(self, owner: str, group: str) -> str:
        key = (owner, group)
        name = self.found.get(key)
        if name is None:
            at_group = f"@{group}" if group else None
            name = next((n for n, entries in self.lists if owner in entries),
                        next((n for n, entries in self.lists if at_group in entries),
                             DEFAULT_DEPARTMENT))
            self.found[key] = name
        return name


def entities(conf: Conf) -> Entities:
    """Users' (user(5) objects), projects' and departments' shares and override tickets
    (``common.objects_conf.user.entities``)."""
    from common.objects_conf.user import entities as cell_entities
    return cell_entities(conf)


def share_tree(conf: Conf) -> tuple[ShareNode, ...]:
    """The share tree's nodes (share_tree(5)), its project nodes known by the cell's
    projects; empty without a tree."""
    from common.objects_conf.sharetree import SHARETREE, share_nodes
    return share_nodes((conf.get("sharetree") or {}).get(SHARETREE),
                       (conf.get("project") or {}).keys())


# --------------------------------------------------------------------------- the jobs

def urgency_slots(job: PlacementJob, pes: Mapping[str, Pairs]) -> int:
    """The slots a job's resource urgency counts (sge_pe(5) ``urgency_slots``): 1 for a
    serial job, the one number of a fixed ``-pe`` request, else the first PE the request
    matches decides: ``min`` the lowest, ``max`` the highest (an open range: the PE's
    ``slots``), ``avg`` the average of every number the ranges allow (truncated), or a
    number."""
    if job.pe is None:
        return 1
    ranges = list(job.pe_ranges) or [(job.pe[1], job.pe[2])]
    if len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
        return max(ranges[0][0], 0)
    names = matching_pes(job.pe[0], pes)
    if not names:  # Grid Engine logs the job and counts one slot
        return 1
    pairs = pes[sorted(names)[0]]
    setting = get(pairs, "urgency_slots", "min").strip().lower()
    pe_slots = _ulong(get(pairs, "slots", "0"))
    if setting == "min":
        return min(lo for lo, _ in ranges)
    if setting == "max":
        high = max(hi for _, hi in ranges)
        return pe_slots if high >= INFINITE_SLOTS else high
    if setting == "avg":
        return int(_average(ranges, pe_slots))
    return int(setting) if setting[:1].isdigit() else 1


def _average(ranges: Iterable[tuple[int, int]], upper: int) -> float:
    """The average of all numbers in the ranges, each capped at ``upper`` (when set)."""
    total = count = 0
    for lo, hi in ranges:
        hi = min(hi, upper) if upper else hi
        if hi >= lo:
            n = hi - lo + 1
            total += (lo + hi) * n / 2
            count += n
    return total / count if count else 0.0


@dataclass
class JobTasks:
    """What a job's task records and range lists say the policy counts: its waiting
    tasks that are not held (how many; the enrolled ones' ids and the ranges), and its
    tasks that hold slots."""

    pending: int = 0
    running: list[RunningTask] = field(default_factory=list)
    enrolled: list[int] = field(default_factory=list)
    ranges: list[list[list[int]]] = field(default_factory=list)

    def first_pending_ids(self, limit: int) -> tuple[int, ...]:
        """The ids of the first ``limit`` waiting tasks, in order."""
        limit = max(limit, 1)
        if not self.ranges:  # (most jobs: one enrolled task)
            return tuple(sorted(self.enrolled)[:limit]) if len(self.enrolled) > 1 \
                else tuple(self.enrolled)
        if not self.enrolled and len(self.ranges) == 1 and len(self.ranges[0]) == 1:
            first, last, step = self.ranges[0][0]
            return tuple(range(first, last + 1, step)[:limit])
        streams = [sorted(self.enrolled)] + [task_ranges.ids(r) for r in self.ranges]
        return tuple(itertools.islice(heapq.merge(*streams), limit))


def job_tasks(tasks: Iterable[Mapping[str, Any]], ranges: Iterable[Mapping[str, Any]]
              ) -> dict[int, JobTasks]:
    """Per job: enrolled task records (pending ones without holds count as waiting;
    active ones with a grant run) and range records (``pending`` ids without ``holds``)."""
    out: dict[int, JobTasks] = {}
    for task in tasks:
        state = task.get("state")
        if state == State.PENDING:
            if not task.get("holds"):
                found = out.setdefault(task["job_id"], JobTasks())
                found.pending += 1
                found.enrolled.append(int(task["task_id"]))
        elif state in _ACTIVE and task.get("granted"):
            slots = sum(int(g[2]) for g in task["granted"])
            suspended = state == State.SUSPENDED or bool(task.get("suspend_reasons"))
            out.setdefault(task["job_id"], JobTasks()).running.append(
                RunningTask(int(task["task_id"]), slots, _usage(task.get("usage")),
                            suspended=suspended))
    for rng in ranges:
        if rng.get("pending") and not rng.get("holds"):
            found = out.setdefault(rng["job_id"], JobTasks())
            found.pending += task_ranges.count(rng["pending"])
            found.ranges.append(rng["pending"])
    return out


_ACTIVE = frozenset(s.value for s in ACTIVE_STATES)


def _usage(reported: Any) -> dict[str, float]:
    if not isinstance(reported, Mapping):
        return {}
    return {name: float(reported[name]) for name in USAGE_NAMES
            if isinstance(reported.get(name), (int, float))}


def policy_jobs(jobs: Mapping[int, PlacementJob], counts: Mapping[int, JobTasks],
                conf: Conf, max_pending_tasks: int = 50) -> list[PolicyJob]:
    """The jobs that wait or run, as the policy sees them (``PolicyJobBuilder``)."""
    build = PolicyJobBuilder(conf, max_pending_tasks)
    out = []
    for job_id, found in counts.items():
        job = jobs.get(job_id)
        if job is not None and (made := build(job, found)) is not None:
            out.append(made)
    return out


class PolicyJobBuilder:
    """``PolicyJob``s under one configuration: a ``-dl`` counts only while the owner is
    in ``deadlineusers``; of an array's waiting tasks the first ``max_pending_tasks`` ids
    (sched_conf(5) ``max_pending_tasks_per_job``); departments and urgency slots are
    looked up once per owner and per ``-pe`` request."""

    def __init__(self, conf: Conf, max_pending_tasks: int = 50) -> None:
        self.departments = _Departments(conf)
        self.deadline_list = (conf.get("userset") or {}).get(DEADLINE_USERS)
        self.pes = conf.get("pe") or {}
        self.max_pending_tasks = max_pending_tasks
        self.slots_of: dict[Any, int] = {}  # (-pe, ranges) -> urgency slots

    def __call__(self, job: PlacementJob, found: JobTasks) -> PolicyJob | None:
        """The job, or None when none of its tasks waits or runs."""
        if not (found.pending or found.running):
            return None
        slots = 1
        if job.pe is not None:
            key = (job.pe, job.pe_ranges)
            if key not in self.slots_of:
                self.slots_of[key] = urgency_slots(job, self.pes)
            slots = self.slots_of[key]
        deadline = job.deadline if job.deadline is not None \
            and self.deadline_list is not None \
            and in_userset(job.owner, [job.group] if job.group else [], self.deadline_list) \
            else None
        return PolicyJob(
            job_id=job.job_id, owner=job.owner, group=job.group, project=job.project,
            department=self.departments.of(job.owner, job.group),
            submit_time=job.submit_time, priority=job.priority, deadline=deadline,
            job_share=job.job_share, override_tickets=job.override_tickets, slots=slots,
            requests=job.hard_resources, pending_tasks=found.pending,
            running=tuple(found.running),
            pending_task_ids=found.first_pending_ids(self.max_pending_tasks)
            if found.pending else ())


class PolicyJobCache:
    """The ``PolicyJob``s of a mirror kept between passes: the events that change a job,
    its tasks or its ranges mark that job, a configuration change marks every job, and
    ``policy_jobs`` builds only the marked ones again (a pass over 100,000 waiting jobs
    after one job started rebuilds one)."""

    def __init__(self) -> None:
        self._tasks: dict[int, dict[int, Mapping[str, Any]]] = {}  # waiting or running
        self._ranges: dict[int, Mapping[str, Any]] = {}
        self._built: dict[int, PolicyJob] = {}
        self._dirty: set[int] = set()
        self._all = True

    def note(self, kind: str, op: str, key: str, obj: Any) -> None:
        """One event of the qmaster's stream (kinds job, task, ranges, and conf kinds)."""
        if kind == "job":
            self._dirty.add(int(key))
            if op == "del":  # (its tasks go by their own events, as in the mirror)
                self._ranges.pop(int(key), None)
        elif kind == "task":
            job_id, _, task_id = key.partition(".")
            self.put_task(int(job_id), int(task_id), None if op == "del" else obj)
        elif kind == "ranges":
            self.put_ranges(int(key), None if op == "del" else obj)
        else:
            self._all = True

    def put_task(self, job_id: int, task_id: int, task: Mapping[str, Any] | None) -> None:
        tasks = self._tasks.setdefault(job_id, {})
        if task is not None and (task.get("state") == State.PENDING or (
                task.get("state") in _ACTIVE and task.get("granted"))):
            tasks[task_id] = task
        elif tasks.pop(task_id, None) is None:
            return
        self._dirty.add(job_id)

    def put_ranges(self, job_id: int, rng: Mapping[str, Any] | None) -> None:
        if rng is None:
            self._ranges.pop(job_id, None)
        else:
            self._ranges[job_id] = rng
        self._dirty.add(job_id)

    def policy_jobs(self, conf: Conf, jobs: Mapping[int, PlacementJob],
                    max_pending_tasks: int) -> list[PolicyJob]:
        build = PolicyJobBuilder(conf, max_pending_tasks)
        if self._all:
            self._built.clear()
            wanted: Iterable[int] = set(self._tasks) | set(self._ranges)
        else:
            wanted = self._dirty
        for job_id in wanted:
            self._built.pop(job_id, None)
            job = jobs.get(job_id)
            if job is None:
                continue
            found = job_tasks(self._tasks.get(job_id, {}).values(),
                              [self._ranges[job_id]] if job_id in self._ranges else ())
            made = build(job, found.get(job_id, JobTasks()))
            if made is not None:
                self._built[job_id] = made
        self._dirty.clear()
        self._all = False
        return list(self._built.values())


# --------------------------------------------------------------------------- together

@dataclass(frozen=True)
class PolicyInputs:
    """Everything ``common.policy.priority.evaluate`` takes but the usage and the time."""

    jobs: list[PolicyJob]
    conf: PolicyConf
    entities: Entities
    tree: tuple[ShareNode, ...]
    urgencies: Mapping[str, ResourceUrgency]


def policy_inputs(conf: Conf, jobs: Mapping[int, PlacementJob],
                  tasks: Iterable[Mapping[str, Any]], ranges: Iterable[Mapping[str, Any]],
                  cache: PolicyJobCache | None = None) -> PolicyInputs:
    """The inputs from the jobs with their task records and range records; with a
    ``cache`` (kept up to date by the caller's events) from it instead of them."""
    settings = policy_conf(conf)
    if cache is not None:
        found = cache.policy_jobs(conf, jobs, settings.max_pending_tasks_per_job)
    else:
        found = policy_jobs(jobs, job_tasks(tasks, ranges), conf,
                            settings.max_pending_tasks_per_job)
    return PolicyInputs(found, settings, entities(conf), share_tree(conf),
                        resource_urgencies(conf))


def evaluate(inputs: PolicyInputs, usage: UsageTable, now: float,
             free_slots: int | None = None) -> PolicyResult:
    """The core's ``evaluate`` over these inputs; ``free_slots``: the cell's free batch
    slots (they bound how many of an array's pending tasks get tickets)."""
    from common.policy.priority import evaluate as core_evaluate
    return core_evaluate(inputs.jobs, inputs.conf, entities=inputs.entities,
                         tree=inputs.tree, usage=usage, urgencies=inputs.urgencies, now=now,
                         free_slots=free_slots)


def order_ranks(result: PolicyResult) -> dict[int, int]:
    """The pass's order: job id -> rank (0 first)."""
    return {job_id: rank for rank, job_id in enumerate(result.order)}
