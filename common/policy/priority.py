"""The entry point of the policy core: ``evaluate`` gives every job its priority
(sge_priority(5)) and the order the pending jobs are taken in. Pure: the caller gives
the time.

``prio`` = weight_priority·npprior + weight_urgency·nurg + weight_ticket·ntckts, as
8.1.9's scheduler computes it each pass (libs/sched/sgeee.c sgeee_scheduler,
sge_urgency.c):

- ``npprior`` = (``-p`` + 1024) / 2048: the POSIX priority normalised over its whole
  range (0 .. 2048 as 8.1.9 stores it), so ``-p 0`` is 0.5 whatever the other jobs have.
- ``nurg`` = (urg - min) / (max - min) over the urgencies of *all* jobs, pending and
  running; 0.5 when they are (nearly: 1e-9 apart) all equal.
- ``ntckts`` = tickets / the most tickets any task has (pending, or running in either
  of 8.1.9's two ticket computations, see common.policy.sharetree); the minimum is 0, not
  the least a task has. 0.5 when no task has tickets.
- when ``weight_urgency`` (``weight_priority``) is 0 and ``report_pjob_tickets`` is
  false, 8.1.9 skips the normalisation and uses 0.5 for every job.

A job's figures are its first pending task's (8.1.9 shows a pending array job with the
tickets of its first pending task); a job without pending tasks shows its first running
task's; ``task_tickets``/``task_prio`` give every running task's own. Pending tasks
considered for tickets per job: min(pending tasks, ``max_pending_tasks_per_job``, free
slots + 1) (``free_slots`` given by the caller; unlimited without it).

The order: descending prio; equal prios by earlier submission, then lower job id (8.1.9
takes "the most senior job").

Tickets come in ``policy_hierarchy`` order: the policies named there, in that order, are
"dependent" (each sorts the pending tasks by the tickets of those above it); the others
follow in the order override, functional, share tree without that dependence.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Mapping, Sequence

from common.policy.conf import PolicyConf
from common.policy.model import (Entities, JobPriority, PolicyJob, PolicyResult,
                                 ResourceUrgency, ShareNode, Tickets, Urgency, UsageTable)
from common.policy.sharetree import ShareTree, build_tree
from common.policy.tickets import (Counts, TaskRef, make_ref, pending_functional,
                                   pending_override, running_functional, running_override)
from common.policy.urgency import ResourceContributions, job_urgency

EPSILON = 1e-9          # 8.1.9's SGE_EPSILON: a range narrower than this is no range
PRIORITY_BASE = 1024    # -p is stored as -p + 1024 ...
PRIORITY_RANGE = 2048   # ... and normalised over 0 .. 2048
OVERRIDE, FUNCTIONAL, SHARE_TREE = "O", "F", "S"


def normalize(value: float, low: float, high: float) -> float:
    """sge_normalize_value: ``value`` in [low, high] mapped to [0, 1]; 0.5 without a
    range."""
    if high - low < EPSILON:
        return 0.5
    return (value - low) / (high - low)


def hierarchy(conf: PolicyConf) -> list[tuple[str, bool]]:
    """(policy letter, dependent) in the order the pending tickets are computed
    (sconf_ph_fill_array; D, the old deadline policy, names nothing any more)."""
    named: list[tuple[str, bool]] = []
    for letter in conf.policy_hierarchy.upper():
        if letter in (OVERRIDE, FUNCTIONAL, SHARE_TREE) and \
                letter not in (p for p, _ in named):
            named.append((letter, True))
    for letter in (OVERRIDE, FUNCTIONAL, SHARE_TREE):
        if letter not in (p for p, _ in named):
            named.append((letter, False))
    return named


@dataclass(slots=True)
class _JobFigures:
    """What evaluate keeps per job until a JobPriority is asked for."""

    job: PolicyJob
    urgency: Urgency
    nurg: float
    npprior: float
    first: TaskRef | None          # the task whose tickets the job shows
    running: list[TaskRef]


class PriorityTable(Mapping[int, JobPriority]):
    """The jobs' priorities, built when looked at: the scheduler only needs the order,
    ``qstat`` a few jobs; making 100,000 records nobody reads would cost more than the
    policy itself."""

    def __init__(self, figures: dict[int, _JobFigures], conf: PolicyConf,
                 max_tickets: float, pending_sum: float, running_sum: float) -> None:
        self._figures = figures
        self._conf = conf
        self._max = max_tickets
        self._pending_sum = pending_sum
        self._running_sum = running_sum
        self._made: dict[int, JobPriority] = {}

    def __getitem__(self, job_id: int) -> JobPriority:
        made = self._made.get(job_id)
        if made is None:
            made = self._made[job_id] = self._make(self._figures[job_id])
        return made

    def __iter__(self) -> Iterator[int]:
        return iter(self._figures)

    def __len__(self) -> int:
        return len(self._figures)

    def __contains__(self, job_id: object) -> bool:
        return job_id in self._figures

    def ntckts(self, tickets: float) -> float:
        return normalize(tickets, 0.0, self._max)

    def prio(self, figures: _JobFigures, tickets: float) -> float:
        conf = self._conf
        return (conf.weight_priority * figures.npprior + conf.weight_urgency * figures.nurg
                + conf.weight_ticket * self.ntckts(tickets))

    def _tickets(self, ref: TaskRef | None) -> Tickets:
        if ref is None:
            return Tickets()
        total = ref.total
        pool = self._pending_sum if ref.queued else self._running_sum
        return Tickets(tckts=total, otckt=ref.oticket, ftckt=ref.fticket,
                       stckt=ref.sticket, share=total / pool if total > 0 else 0.0)

    def _make(self, figures: _JobFigures) -> JobPriority:
        first = figures.first
        tickets = first.total if first is not None else 0.0
        return JobPriority(
            job_id=figures.job.job_id, prio=self.prio(figures, tickets),
            npprior=figures.npprior, nurg=figures.nurg, ntckts=self.ntckts(tickets),
            urgency=figures.urgency, tickets=self._tickets(first),
            task_tickets={ref.task_id: self._tickets(ref) for ref in figures.running},
            task_prio={ref.task_id: self.prio(figures, ref.total)
                       for ref in figures.running})


def evaluate(jobs: Sequence[PolicyJob], conf: PolicyConf, *, entities: Entities,
             tree: Sequence[ShareNode], usage: UsageTable,
             urgencies: Mapping[str, ResourceUrgency], now: float,
             free_slots: int | None = None) -> PolicyResult:
    """Every job's priority and the pending jobs' order (see the module's docstring).
    ``free_slots``: the cell's free slots, which bound the pending tasks of an array
    job that get tickets (8.1.9: free slots + 1); None for no bound."""
    now_s = int(now)
    figures = _urgency_figures(jobs, conf, urgencies, now_s)
    running, pending = _task_refs(jobs, conf, entities, free_slots, figures)
    max_tickets, pending_sum, running_sum, nodes = _tickets(
        running, pending, conf, tree, usage)
    table = PriorityTable(figures, conf, max_tickets, pending_sum, running_sum)
    return PolicyResult(jobs=table, order=_order(jobs, figures, table), nodes=nodes)


def _urgency_figures(jobs: Sequence[PolicyJob], conf: PolicyConf,
                     urgencies: Mapping[str, ResourceUrgency],
                     now: int) -> dict[int, _JobFigures]:
    contributions = ResourceContributions(urgencies)
    report = conf.report_pjob_tickets
    do_nurg = conf.weight_urgency != 0 or report
    do_nprio = conf.weight_priority != 0 or report
    figures: dict[int, _JobFigures] = {}
    wt, wd = conf.weight_waiting_time, conf.weight_deadline
    for job in jobs:
        urgency = job_urgency(job, contributions.of(job.slots, job.requests), wt, wd, now)
        npprior = (normalize(job.priority + PRIORITY_BASE, 0.0, PRIORITY_RANGE)
                   if do_nprio else 0.5)
        figures[job.job_id] = _JobFigures(job, urgency, 0.5, npprior, None, [])
    if do_nurg and figures:
        low = min(f.urgency.urg for f in figures.values())
        high = max(f.urgency.urg for f in figures.values())
        if high - low >= EPSILON:
            span = high - low
            for f in figures.values():
                f.nurg = (f.urgency.urg - low) / span
    return figures


def _task_refs(jobs: Sequence[PolicyJob], conf: PolicyConf, entities: Entities,
               free_slots: int | None, figures: dict[int, _JobFigures]
               ) -> tuple[list[TaskRef], list[TaskRef]]:
    """The running (active) tasks, then the pending tasks that take part."""
    per_job = conf.max_pending_tasks_per_job
    if free_slots is not None:
        per_job = min(per_job, free_slots + 1)
    running: list[TaskRef] = []
    pending: list[TaskRef] = []
    for job in jobs:
        f = figures[job.job_id]
        for task in sorted(job.running, key=lambda t: t.task_id):
            if task.suspended:
                continue
            ref = make_ref(job, task.task_id, False, entities)
            running.append(ref)
            f.running.append(ref)
        count = min(job.pending_tasks, per_job)
        if count > 0:
            ids = job.pending_task_ids[:count] or tuple(range(1, count + 1))
            for task_id in ids:
                ref = make_ref(job, task_id, True, entities)
                pending.append(ref)
            f.first = pending[-len(ids)]
        elif f.running:
            f.first = f.running[0]
    return running, pending


def _tickets(running: list[TaskRef], pending: list[TaskRef], conf: PolicyConf,
             tree_nodes: Sequence[ShareNode], usage: UsageTable
             ) -> tuple[float, float, float, tuple]:
    """All tickets; returns (the most tickets of any task, the pending tasks' sum, the
    running tasks' sum, the share tree's nodes)."""
    counts = Counts()
    for ref in running:
        counts.add(ref)
    share_pool = float(conf.weight_tickets_share)
    functional_pool = conf.weight_tickets_functional
    root = build_tree(tree_nodes)
    tree = ShareTree(root, usage) if root is not None else None
    if tree is not None:
        for ref in running:
            ref.node = tree.node_for(ref)
        for ref in pending:
            ref.node = tree.node_for(ref)
        tree.compute_usage()
        # 8.1.9's first computation: pending tasks make their nodes active
        tree.count_refs(running + pending if pending else running)
        tree.compute_targets(conf.compensation_factor)
        if share_pool > 0:
            tree.running_tickets(running, share_pool)
    sums = running_functional(running, conf, counts) if functional_pool > 0 else None
    running_override(running, counts, conf.share_override_tickets)
    if pending:
        for policy, dependent in hierarchy(conf):
            if policy == SHARE_TREE and tree is not None and share_pool > 0:
                tree.pending_tickets(pending, share_pool, dependent)
            elif policy == FUNCTIONAL and sums is not None:
                pending_functional(pending, conf, counts, sums, dependent)
            elif policy == OVERRIDE:
                pending_override(pending, counts, conf.share_override_tickets, dependent)
    max_tickets = max((ref.total for ref in running), default=0.0)
    max_tickets = max(max_tickets, max((ref.total for ref in pending), default=0.0))
    nodes: tuple = ()
    if tree is not None:
        # the second computation, of the running tasks alone: the tickets they keep
        tree.count_refs(running)
        tree.compute_targets(conf.compensation_factor)
        if share_pool > 0:
            tree.running_tickets(running, share_pool)
            max_tickets = max(max_tickets, max((r.total for r in running), default=0.0))
        nodes = tree.node_shares()
    pending_sum = sum(ref.total for ref in pending)
    running_sum = sum(ref.total for ref in running)
    return max_tickets, pending_sum, running_sum, nodes


def _order(jobs: Sequence[PolicyJob], figures: dict[int, _JobFigures],
           table: PriorityTable) -> tuple[int, ...]:
    waiting = [job for job in jobs if job.pending_tasks > 0]
    # seniority first (stable sorts keep it among equal prios)
    seniority = [(int(job.submit_time), job.job_id) for job in waiting]
    if any(a > b for a, b in zip(seniority, seniority[1:])):
        waiting.sort(key=lambda job: (int(job.submit_time), job.job_id))
    prios = {job.job_id: _pending_prio(figures[job.job_id], table) for job in waiting}
    ids = [job.job_id for job in waiting]
    ids.sort(key=prios.__getitem__, reverse=True)
    return tuple(ids)


def _pending_prio(f: _JobFigures, table: PriorityTable) -> float:
    return table.prio(f, f.first.total if f.first is not None else 0.0)
