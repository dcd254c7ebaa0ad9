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

from typing import Iterator, Mapping, Sequence

from common.policy.conf import PolicyConf
from common.policy.model import (Entities, JobPriority, NodeShare, PolicyJob,
                                 PolicyResult, ResourceUrgency, ShareNode, Tickets,
                                 Urgency, UsageTable)
from common.policy.sharetree import ShareTree, build_tree
from common.policy.tickets import (Counts, PendingTasks, TaskRef, make_ref,
                                   pending_functional, pending_override,
                                   running_functional, running_override)
from common.policy.urgency import ResourceContributions, deadline_contribution

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


class _Figures:
    """What evaluate keeps per job (parallel lists by the job's place in ``jobs``) until
    a JobPriority is asked for."""

    def __init__(self, jobs: Sequence[PolicyJob]) -> None:
        self.jobs = jobs
        self.index = {job.job_id: n for n, job in enumerate(jobs)}
        # whole seconds, as 8.1.9 keeps times
        self.submit = [int(job.submit_time) for job in jobs]
        self.rrcontr: list[float] = []
        self.wtcontr: list[float] = []
        self.dlcontr: list[float] = []
        self.urg: list[float] = []
        self.nurg: list[float] = []
        self.npprior: list[float] = []
        self.first: list[int] = [-1] * len(jobs)          # its first pending task
        self.running: dict[int, list[TaskRef]] = {}       # its running tasks
        self.waiting: list[int] = []                      # jobs with pending tasks


class PriorityTable(Mapping[int, JobPriority]):
    """The jobs' priorities, built when looked at: the scheduler only needs the order,
    ``qstat`` a few jobs; making 100,000 records nobody reads would cost more than the
    policy itself."""

    def __init__(self, figures: _Figures, pending: PendingTasks, conf: PolicyConf,
                 max_tickets: float, pending_sum: float, running_sum: float) -> None:
        self._f = figures
        self._pending = pending
        self._conf = conf
        self._max = max_tickets
        self._pending_sum = pending_sum
        self._running_sum = running_sum
        self._made: dict[int, JobPriority] = {}

    def __getitem__(self, job_id: int) -> JobPriority:
        made = self._made.get(job_id)
        if made is None:
            made = self._made[job_id] = self._make(self._f.index[job_id])
        return made

    def __iter__(self) -> Iterator[int]:
        return iter(self._f.index)

    def __len__(self) -> int:
        return len(self._f.index)

    def __contains__(self, job_id: object) -> bool:
        return job_id in self._f.index

    def ntckts(self, tickets: float) -> float:
        return normalize(tickets, 0.0, self._max)

    def prio(self, n: int, tickets: float) -> float:
        conf, f = self._conf, self._f
        return (conf.weight_priority * f.npprior[n] + conf.weight_urgency * f.nurg[n]
                + conf.weight_ticket * normalize(tickets, 0.0, self._max))

    def pending_prios(self, order: Sequence[int]) -> list[float]:
        """prio of the jobs at these places, by their first pending task."""
        conf, f = self._conf, self._f
        wp, wu, wt = conf.weight_priority, conf.weight_urgency, conf.weight_ticket
        npp, nurg, first = f.npprior, f.nurg, f.first
        top = self._max
        if top < EPSILON:
            return [wp * npp[n] + wu * nurg[n] + wt * 0.5 for n in order]
        # a job without a pending task that takes part has none: the sentinel's 0
        totals = self._pending.totals + [0.0]
        # the same sum as prio() makes, to the last bit
        return [wp * npp[n] + wu * nurg[n] + wt * ((totals[first[n]] - 0.0) / (top - 0.0))
                for n in order]

    def _pending_tickets(self, i: int) -> Tickets:
        p = self._pending
        total = p.st[i] + p.ft[i] + p.ot[i]
        return Tickets(tckts=total, otckt=p.ot[i], ftckt=p.ft[i], stckt=p.st[i],
                       share=total / self._pending_sum if total > 0 else 0.0)

    def _running_tickets(self, ref: TaskRef) -> Tickets:
        total = ref.total
        return Tickets(tckts=total, otckt=ref.oticket, ftckt=ref.fticket,
                       stckt=ref.sticket,
                       share=total / self._running_sum if total > 0 else 0.0)

    def _make(self, n: int) -> JobPriority:
        f = self._f
        running = f.running.get(n, [])
        if f.first[n] >= 0:
            tickets = self._pending_tickets(f.first[n])
        elif running:
            tickets = self._running_tickets(running[0])
        else:
            tickets = Tickets()
        urgency = Urgency(urg=f.urg[n], rrcontr=f.rrcontr[n], wtcontr=f.wtcontr[n],
                          dlcontr=f.dlcontr[n])
        return JobPriority(
            job_id=f.jobs[n].job_id, prio=self.prio(n, tickets.tckts),
            npprior=f.npprior[n], nurg=f.nurg[n], ntckts=self.ntckts(tickets.tckts),
            urgency=urgency, tickets=tickets,
            task_tickets={ref.task_id: self._running_tickets(ref) for ref in running},
            task_prio={ref.task_id: self.prio(n, ref.total) for ref in running})


def evaluate(jobs: Sequence[PolicyJob], conf: PolicyConf, *, entities: Entities,
             tree: Sequence[ShareNode], usage: UsageTable,
             urgencies: Mapping[str, ResourceUrgency], now: float,
             free_slots: int | None = None) -> PolicyResult:
    """Every job's priority and the pending jobs' order (see the module's docstring).
    ``free_slots``: the cell's free slots, which bound the pending tasks of an array
    job that get tickets (8.1.9: free slots + 1); None for no bound."""
    figures = _Figures(jobs)
    _urgency_figures(figures, conf, urgencies, int(now))
    running, pending = _task_refs(figures, conf, entities, free_slots)
    max_tickets, pending_sum, running_sum, nodes = _tickets(
        running, pending, conf, tree, usage, entities)
    table = PriorityTable(figures, pending, conf, max_tickets, pending_sum, running_sum)
    return PolicyResult(jobs=table, order=_order(figures, table), nodes=nodes)


def _urgency_figures(f: _Figures, conf: PolicyConf,
                     urgencies: Mapping[str, ResourceUrgency], now: int) -> None:
    contributions = ResourceContributions(urgencies)
    jobs = f.jobs
    f.rrcontr = [contributions.of(job.slots, job.requests) for job in jobs]
    weight = conf.weight_waiting_time
    f.wtcontr = [weight * (now - submitted) for submitted in f.submit]
    f.dlcontr = [deadline_contribution(job.deadline, conf.weight_deadline, now)
                 if job.deadline else 0.0 for job in jobs]
    f.urg = [a + b + c for a, b, c in zip(f.wtcontr, f.dlcontr, f.rrcontr)]
    report = conf.report_pjob_tickets
    if (conf.weight_priority != 0 or report):
        f.npprior = [(job.priority + PRIORITY_BASE) / PRIORITY_RANGE for job in jobs]
    else:
        f.npprior = [0.5] * len(jobs)
    low = min(f.urg, default=0.0)
    high = max(f.urg, default=0.0)
    if (conf.weight_urgency != 0 or report) and high - low >= EPSILON:
        span = high - low
        f.nurg = [(u - low) / span for u in f.urg]
    else:
        f.nurg = [0.5] * len(jobs)


def _task_refs(f: _Figures, conf: PolicyConf, entities: Entities,
               free_slots: int | None) -> tuple[list[TaskRef], PendingTasks]:
    """The running (active) tasks, and the pending tasks that take part (numbered in
    job id order). Notes the waiting jobs in job id order on ``f``."""
    per_job = conf.max_pending_tasks_per_job
    if free_slots is not None:
        per_job = min(per_job, free_slots + 1)
    running: list[TaskRef] = []
    pending = PendingTasks()
    jobs = f.jobs
    ids = [job.job_id for job in jobs]
    places: Sequence[int] = range(len(jobs))
    if ids != sorted(ids):
        places = sorted(places, key=ids.__getitem__)
    first, waiting = f.first, f.waiting
    # the common case inline: one task, no ids given (pending.add does the rest)
    p_jobs, p_tasks, p_holders, p_submit = (pending.jobs, pending.tasks, pending.holders,
                                            pending.submit)
    by_holder = pending.by_holder
    for n in places:
        job = jobs[n]
        if job.running:
            mine = [make_ref(job, task.task_id, False, entities)
                    for task in sorted(job.running, key=lambda t: t.task_id)
                    if not task.suspended]
            if mine:
                f.running[n] = mine
                running.extend(mine)
        count = job.pending_tasks
        if count <= 0:
            continue
        waiting.append(n)
        if count > per_job:
            count = per_job
        ids = job.pending_task_ids
        if count == 1 and len(ids) <= 1:
            holder = by_holder.get((job.owner, job.project, job.department, job.job_share,
                                    job.override_tickets))
            if holder is not None:
                first[n] = i = len(p_jobs)
                holder.refs.append(i)
                p_jobs.append(job)
                p_tasks.append(ids[0] if ids else 1)
                p_holders.append(holder)
                p_submit.append(f.submit[n])
                continue
        if count > 0:
            first[n] = pending.add(job, job.pending_task_ids[:count] or range(1, count + 1),
                                   entities)
    pending.seal()
    return running, pending


def _tickets(running: list[TaskRef], pending: PendingTasks, conf: PolicyConf,
             tree_nodes: Sequence[ShareNode], usage: UsageTable, entities: Entities
             ) -> tuple[float, float, float, tuple[NodeShare, ...]]:
    """All tickets; returns (the most tickets of any task, the pending tasks' sum, the
    running tasks' sum, the share tree's nodes)."""
    counts = Counts()
    for ref in running:
        counts.add(ref)
    share_pool = float(conf.weight_tickets_share)
    functional_pool = conf.weight_tickets_functional
    root = build_tree(tree_nodes)
    tree = ShareTree(root, usage) if root is not None else None
    holders = list(pending.by_holder.values())
    if tree is not None:
        for ref in running:
            ref.node = tree.node_for(ref)
        for holder in holders:
            holder.node = tree.node_for(holder)
        tree.compute_usage()
        # 8.1.9's first computation: pending tasks make their nodes active
        tree.count_refs(running, holders)
        tree.compute_targets(conf.compensation_factor)
        if share_pool > 0:
            tree.running_tickets(running, share_pool)
    sums = running_functional(running, conf, counts) if functional_pool > 0 else None
    running_override(running, counts, conf.share_override_tickets)
    if pending.jobs:
        for policy, dependent in hierarchy(conf):
            if policy == SHARE_TREE and tree is not None and share_pool > 0:
                tree.pending_tickets(pending, share_pool, dependent)
            elif policy == FUNCTIONAL and sums is not None:
                pending_functional(pending, conf, counts, sums, dependent)
            elif policy == OVERRIDE:
                pending_override(pending, counts, conf.share_override_tickets, dependent)
    totals = pending.totals = [a + b + c for a, b, c in zip(pending.st, pending.ft,
                                                            pending.ot)]
    max_tickets = max(max(totals, default=0.0),
                      max((ref.total for ref in running), default=0.0))
    nodes: tuple[NodeShare, ...] = ()
    if tree is not None:
        # the second computation, of the running tasks alone: the tickets they keep
        tree.count_refs(running)
        tree.compute_targets(conf.compensation_factor)
        if share_pool > 0:
            tree.running_tickets(running, share_pool)
            max_tickets = max(max_tickets, max((r.total for r in running), default=0.0))
        nodes = tree.node_shares(entities.users, entities.projects)
    return max_tickets, sum(totals), sum(ref.total for ref in running), nodes


def _order(f: _Figures, table: PriorityTable) -> tuple[int, ...]:
    jobs = f.jobs
    waiting = f.waiting   # in job id order
    # seniority first (the stable sort below keeps it among equal prios)
    submit = f.submit
    submitted = [submit[n] for n in waiting]
    if submitted != sorted(submitted):
        waiting = sorted(waiting, key=lambda n: (submit[n], jobs[n].job_id))
    prios = table.pending_prios(waiting)
    places = sorted(range(len(waiting)), key=prios.__getitem__, reverse=True)
    # the ids read in place order first: the jobs in sorted order would be read from all
    # over the memory (three times slower for 100,000 jobs)
    ids = [jobs[n].job_id for n in waiting]
    return tuple([ids[k] for k in places])
