"""The event loop of ``pyge simulate``: a workload on a virtual clock through the real
dispatch pass (``common.placement.dispatch.dispatch_pass`` on the input
``common.placement.inputs.pass_input`` builds, as the scheduler's mirror does) and the
real policy (``common.policy.priority.evaluate``), with usage accumulated and decayed
as the qmaster's usage book does. Pure: no clock, no files.

Events are submissions and job ends. All events of one instant are taken together;
then, when jobs wait and slots are free, the policy orders the pending jobs and one
pass places them, and the jobs it places start at that instant and end their recorded
run time later (their real run time, whatever the order). Nothing else can change
where a job may go, so between events no pass is needed. Load is not simulated: the
queues' load thresholds and the load adjustments play no part, and hosts are ranked by
their last reported load (a new cell's by name).

With ``max_reservation`` above 0 the pass plans as the scheduler's does (resource
reservation for ``-R y`` jobs, backfilling around it): the running jobs are planned to
end at their start + ``h_rt`` (else ``default_duration``) + ``DURATION_OFFSET``, while
they really end at their recorded run time.

Usage: each running job adds ``slots x seconds`` of cpu to its owner (and project);
the table the share tree compares is decayed by ``halftime``.
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

from common.cluster import queue_instances
from common.placement.dispatch import dispatch_pass
from common.placement.inputs import pass_input
from common.placement.job import PlacementJob
from common.placement.pass_conf import conf_fields
from common.placement.timeline import holds_of
from common.placement.resources import complex_list, fixed_levels
from common.policy.model import PolicyJob, RunningTask
from clients.simulate.config import SimConfig, with_auto_users
from common.objects_conf.userset import department_of
from clients.simulate.usage import UsageAccount
from clients.simulate.workload import SWF_PE, SimJob, Workload

# the policy: (pending and running jobs, usage, now) -> the pending jobs' order
Orderer = Callable[[Sequence[PolicyJob], "UsageAccount", float], Sequence[int]]
POLICY = "policy"  # Simulation's orderer: the scheduler's policy on the configuration


def policy_order(config: SimConfig) -> Orderer:
    """The pending jobs' order as the scheduler's policy gives it (sge_priority(5):
    ``common.policy.priority.evaluate``) on ``config``."""
    from common.policy.priority import evaluate

    def order(jobs: Sequence[PolicyJob], usage: UsageAccount, now: float
              ) -> Sequence[int]:
        return evaluate(jobs, config.policy, entities=config.entities, tree=config.tree,
                        usage=usage.table(), urgencies=config.urgencies, now=now).order
    return order


@dataclass(slots=True)
class JobRun:
    """What happened to one job: when it started and ended (None: never)."""

    job: SimJob
    start: float | None = None
    end: float | None = None
    granted: list[list[Any]] = field(default_factory=list)

    @property
    def wait(self) -> float | None:
        return None if self.start is None else self.start - self.job.submit


@dataclass
class SimResult:
    runs: dict[int, JobRun]
    capacity: int            # slots of the cell
    passes: int = 0
    evaluations: int = 0
    end_time: float = 0.0
    # (time, the pending jobs' order) of each pass, when asked for (tests)
    orders: list[tuple[float, tuple[int, ...]]] = field(default_factory=list)


def placement_of(job: SimJob) -> PlacementJob:
    """The job as the pass sees it: a job of more than one slot asks for exactly its
    slots in its PE (one the workload did not name: ``SWF_PE``)."""
    pe = (job.pe or SWF_PE, job.slots, job.slots) if job.slots > 1 else None
    return PlacementJob(job_id=job.job_id, owner=job.owner, group=job.group,
                        priority=job.priority, hard_queues=job.hard_queues,
                        hard_resources=dict(job.hard_resources), pe=pe,
                        project=job.project, reserve=job.reserve)


def policy_job(job: SimJob, run: JobRun | None, now: float) -> PolicyJob:
    running: tuple[RunningTask, ...] = ()
    if run is not None and run.start is not None:
        running = (RunningTask(1, job.slots, {"cpu": job.slots * (now - run.start)}),)
    return PolicyJob(job_id=job.job_id, owner=job.owner, group=job.group,
                     project=job.project,
                     department=job.department or "defaultdepartment",
                     submit_time=job.submit, priority=job.priority, slots=job.slots,
                     override_tickets=job.override_tickets, job_share=job.job_share,
                     requests=dict(job.hard_resources),
                     pending_tasks=0 if running else 1, running=running)


class Simulation:
    """One replay. ``orderer``: the order of the pending jobs: ``POLICY`` (the
    scheduler's policy), None (the pass's own order, ``-p`` then job id, as a cell
    without the policy took them) or a function (tests). The configuration gets the
    user objects the workload's owners would have had (``with_auto_users``)."""

    head = 32  # the fewest pending jobs a pass looks at first (see _pass)

    def __init__(self, workload: Workload, config: SimConfig,
                 orderer: Orderer | str | None = POLICY, *, keep_orders: bool = False
                 ) -> None:
        config = with_auto_users(config, sorted({j.owner for j in workload.jobs}))
        self.config = config
        if orderer == POLICY:
            orderer = policy_order(config)
        elif isinstance(orderer, str):
            raise ValueError(f"unknown orderer {orderer!r}")
        # a job the workload names no department of (SWF) gets its owner's, as the
        # qmaster gives one at submission
        usersets = config.conf.get("userset") or {}
        self.jobs = {j.job_id: j if j.department else
                     replace(j, department=department_of(j.owner, j.group, usersets))
                     for j in workload.jobs}
        if len(self.jobs) != len(workload.jobs):
            raise ValueError("the workload has two jobs with one job number")
        self.orderer = orderer
        self.keep_orders = keep_orders
        self.placement = {j.job_id: placement_of(j) for j in self.jobs.values()}
        self.runs = {j.job_id: JobRun(j) for j in self.jobs.values()}
        self.pending: dict[int, SimJob] = {}
        self._pending_policy: dict[int, PolicyJob] = {}
        self.running: dict[int, JobRun] = {}
        self.used: dict[tuple[str, str], int] = {}
        self.usage = UsageAccount(config.policy)
        conf = config.conf
        self.instances = queue_instances(conf, config.hosts)
        self.capacity = sum(qi.slots for qi in self.instances)
        self.fields = conf_fields(conf)
        self.fixed = fixed_levels(conf, self.instances, complex_list(conf))
        self.result = SimResult(self.runs, self.capacity)
        self.planning = config.policy.max_reservation > 0

    def run(self) -> SimResult:
        submits = list(self.jobs.values())
        submits.sort(key=lambda j: (j.submit, j.job_id))
        ends: list[tuple[float, int]] = []
        index, now = 0, 0.0
        while index < len(submits) or ends:
            upcoming = [t for t in ((submits[index].submit if index < len(submits)
                                     else None), (ends[0][0] if ends else None))
                        if t is not None]
            at = min(upcoming)
            self.usage.advance(at, self.running.values())
            now = at
            while ends and ends[0][0] <= now:
                self._end(heapq.heappop(ends)[1], now)
            while index < len(submits) and submits[index].submit <= now:
                self.pending[submits[index].job_id] = submits[index]
                index += 1
            if self.pending and self._free() >= self._smallest_pending():
                for job_id in self._pass(now):
                    run = self.runs[job_id]
                    heapq.heappush(ends, (now + run.job.run_time, job_id))
        self.result.end_time = now
        return self.result

    def _free(self) -> int:
        return self.capacity - sum(self.used.values())

    def _smallest_pending(self) -> int:
        """No pass while fewer slots are free than any pending job needs: it would
        place nothing."""
        return max(1, min(job.slots for job in self.pending.values()))

    def _end(self, job_id: int, now: float) -> None:
        run = self.running.pop(job_id)
        run.end = now
        for queue, host, slots in run.granted:
            self.used[(queue, host)] -= int(slots)

    def _pass(self, now: float) -> list[int]:
        """One pass at ``now``: the jobs it started."""
        order = self._policy_order(now)
        active = [{"job_id": r.job.job_id, "task_id": 1, "granted": r.granted,
                   "granted_pe": r.job.pe if r.job.slots > 1 else None,
                   "start_time": r.start}
                  for r in self.running.values()]
        free = self._free()
        # The pass takes the pending jobs in order and stops once the cell is full, so
        # a pass over the first jobs of the order places what a pass over all of them
        # would, when it fills the cell; only when it does not is it made again over
        # all of them. A backlog of thousands then mostly costs what its head costs.
        # With reservation every -R y job may need its reservation: all of them.
        size = len(self.pending) if order is None or self.planning else \
            max(4 * free, self.head)
        while True:
            orders = dispatch_pass(self._pass_input(order, size, active, now))
            self.result.passes += 1
            placed = sum(int(g[2]) for o in orders for g in o["granted"])
            if placed >= free or size >= len(self.pending):
                break
            size = len(self.pending)
        started = []
        for found in orders:
            job_id = found["job_id"]
            run = self.runs[job_id]
            run.start, run.granted = now, found["granted"]
            for queue, host, slots in run.granted:
                self.used[(queue, host)] = self.used.get((queue, host), 0) + int(slots)
            self.running[job_id] = run
            del self.pending[job_id]
            self._pending_policy.pop(job_id, None)
            started.append(job_id)
        return started

    def _pass_input(self, order: list[int] | None, size: int,
                    active: list[dict[str, Any]], now: float) -> Any:
        """The pass's input with the running jobs and the first ``size`` pending jobs
        of the policy's ``order``, which the pass takes them in, as the scheduler gives
        it (None: all, in the pass's own order: ``-p`` high first, then job id)."""
        jobs = {j: self.placement[j] for j in self.running}
        chosen = list(self.pending) if order is None else order[:size]
        jobs.update((j, self.placement[j]) for j in chosen)
        pending = [{"job_id": j, "task_id": 1, "version": 1} for j in chosen]
        inp = pass_input(self.config.conf, self.config.hosts, jobs, active,
                         pending=pending, used=self.used, instances=self.instances,
                         fixed=self.fixed, fields=self.fields, now=None, thresholds={})
        if order is not None:
            inp.order = {j: rank for rank, j in enumerate(chosen)}
        if self.planning:  # sched_conf(5) max_reservation: the pass plans ahead
            inp.reserve = self.config.policy.reserve_conf(now)
            inp.holds = holds_of(active, jobs, inp.reserve)
        return inp

    def _policy_order(self, now: float) -> list[int] | None:
        """The pending jobs in the policy's order (None without a policy)."""
        if self.orderer is None:
            return None
        # a pending job's record does not change while it waits: made once
        cache = self._pending_policy
        policy_jobs = [cache.get(j) or cache.setdefault(j, policy_job(self.jobs[j], None, now))
                       for j in self.pending]
        policy_jobs += [policy_job(self.jobs[j], self.runs[j], now) for j in self.running]
        order = [j for j in self.orderer(policy_jobs, self.usage, now) if j in self.pending]
        self.result.evaluations += 1
        if self.keep_orders:
            self.result.orders.append((now, tuple(order)))
        return order


def simulate(workload: Workload, config: SimConfig, orderer: Orderer | str | None = POLICY,
             **kwargs: Any) -> SimResult:
    return Simulation(workload, config, orderer, **kwargs).run()

