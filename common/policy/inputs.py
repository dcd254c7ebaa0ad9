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
    USAGE_NAMES, Entities, Entity, PolicyJob, PolicyResult, ResourceUrgency, RunningTask,
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


def _entity(pairs: Pairs) -> Entity:
    return Entity(fshare=_ulong(get(pairs, "fshare", "0")),
                  oticket=_ulong(get(pairs, "oticket", "0")))


def _ulong(text: str) -> int:
    try:
        return max(0, int(float(text)))
    except ValueError:
        return 0


def department_lists(conf: Conf) -> list[tuple[str, Pairs]]:
    """The access lists of type DEPT (access_list(5)), by name: the first that holds a
    user is its department."""
    usersets = conf.get("userset") or {}
    return [(name, pairs) for name, pairs in sorted(usersets.items())
            if "DEPT" in get(pairs, "type", "ACL").upper().split()]


def department_of(owner: str, group: str, departments: Sequence[tuple[str, Pairs]]) -> str:
    """The department a job's owner belongs to: the first DEPT list that names the user
    or ``@group``, else ``defaultdepartment``."""
    groups = [group] if group else []
    for name, pairs in departments:
        if in_userset(owner, groups, pairs):
            return name
    return DEFAULT_DEPARTMENT


def entities(conf: Conf) -> Entities:
    """Projects' and departments' shares and override tickets, and users' from the
    ``user`` objects (user(5)) where the cell has that kind."""
    return Entities(
        users={name: _entity(pairs) for name, pairs in (conf.get("user") or {}).items()},
        projects={name: _entity(pairs) for name, pairs in (conf.get("project") or {}).items()},
        departments={name: _entity(pairs) for name, pairs in department_lists(conf)})


def share_tree(conf: Conf) -> tuple[ShareNode, ...]:
    """The share tree's nodes (share_tree(5)). WIRED AT THE MERGE with p27-objects: its
    ``common.objects_conf.sharetree.share_nodes(stored)`` of the ``sharetree`` kind; until
    the cell has that kind, there is no tree (no share tree tickets)."""
    return ()


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
        streams = [sorted(self.enrolled)] + [task_ranges.ids(r) for r in self.ranges]
        return tuple(itertools.islice(heapq.merge(*streams), max(limit, 1)))


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
    """The jobs that wait or run, as the policy sees them. A ``-dl`` counts only while
    the owner is in ``deadlineusers``; of an array's waiting tasks the first
    ``max_pending_tasks`` ids (sched_conf(5) ``max_pending_tasks_per_job``)."""
    departments = department_lists(conf)
    deadline_list = (conf.get("userset") or {}).get(DEADLINE_USERS)
    pes = conf.get("pe") or {}
    dept_cache: dict[tuple[str, str], str] = {}
    out: list[PolicyJob] = []
    for job_id, found in counts.items():
        job = jobs.get(job_id)
        if job is None or not (found.pending or found.running):
            continue
        who = (job.owner, job.group)
        if who not in dept_cache:
            dept_cache[who] = department_of(job.owner, job.group, departments)
        deadline = job.deadline if job.deadline is not None and deadline_list is not None \
            and in_userset(job.owner, [job.group] if job.group else [], deadline_list) \
            else None
        out.append(PolicyJob(
            job_id=job_id, owner=job.owner, group=job.group, project=job.project,
            department=dept_cache[who], submit_time=job.submit_time,
            priority=job.priority, deadline=deadline, job_share=job.job_share,
            override_tickets=job.override_tickets,
            slots=urgency_slots(job, pes) if job.pe else 1,
            requests=job.hard_resources, pending_tasks=found.pending,
            running=tuple(found.running),
            pending_task_ids=found.first_pending_ids(max_pending_tasks)
            if found.pending else ()))
    return out


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
                  tasks: Iterable[Mapping[str, Any]], ranges: Iterable[Mapping[str, Any]]
                  ) -> PolicyInputs:
    settings = policy_conf(conf)
    return PolicyInputs(
        policy_jobs(jobs, job_tasks(tasks, ranges), conf, settings.max_pending_tasks_per_job),
        settings, entities(conf), share_tree(conf), resource_urgencies(conf))


def evaluate(inputs: PolicyInputs, usage: UsageTable, now: float) -> PolicyResult:
    """The core's ``evaluate`` over these inputs."""
    from common.policy.priority import evaluate as core_evaluate
    return core_evaluate(inputs.jobs, inputs.conf, entities=inputs.entities,
                         tree=inputs.tree, usage=usage, urgencies=inputs.urgencies, now=now)


def order_ranks(result: PolicyResult) -> dict[int, int]:
    """The pass's order: job id -> rank (0 first)."""
    return {job_id: rank for rank, job_id in enumerate(result.order)}
