"""The qmaster's view of the scheduling policy, for ``qstat`` (``prior``, ``-pri``, ``-urg``,
``-ext``, ``qstat -j``'s ntix/nurg) and ``sge_share_mon`` (``handle_share_tree_query``): worked out when asked, as
``qstat -j``'s reasons are, from the store's jobs and configuration through the same
``common.policy.inputs`` the scheduler uses.

One evaluation serves every question for ``MAX_AGE`` seconds (and while the store's
event sequence stays where it was, not longer than ``MAX_STALE``): a hundred ``qstat``
calls within a second cost one evaluation, and an evaluation that took t seconds answers
for ``REUSE_FACTOR``·t at least. The policy's jobs are built from the store
once and then kept by the published events (``note_events``), so an evaluation costs
the core's work plus the jobs that changed.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from common.jobstate import ACTIVE_STATES, State
from common.model import CONF_KINDS
from common.placement.job import PlacementJob, placement_job, placement_record
from common.policy import inputs as policy_inputs
from common.policy.model import (
    USAGE_NAMES, JobPriority, NodeShare, PolicyResult, Tickets, UsageTable,
)
from common.policy.usage import PROJECT, USER, Holder, UsageRecord

if TYPE_CHECKING:
    from qmaster.context import Ctx
    from qmaster.store import Store
    from qmaster.usage_book import UsageBook

MAX_AGE = 1.0     # seconds one evaluation answers for, whatever changed
MAX_STALE = 10.0  # ... and while nothing changed (the waiting time still grows)
# ... and at least this many times as long as it took: the qmaster spends at most about a
# tenth of its time on qstat's figures, however large the cell and however often asked
REUSE_FACTOR = 10.0


@dataclass
class PolicyView:
    _result: PolicyResult | None = None
    _at: float = 0.0
    _seq: int = -1
    # the jobs as the policy sees them, built from the store at the first question and
    # then kept by the events the qmaster publishes (``note_events``), as the scheduler's
    # mirror keeps its own: an evaluation rebuilds only the jobs that changed
    _cache: policy_inputs.PolicyJobCache | None = None
    _placed: dict[int, PlacementJob] = field(default_factory=dict)
    _departments: dict[int, str] = field(default_factory=dict)
    _took: float = 0.0  # seconds the last evaluation took
    evaluations: int = 0

    def note_events(self, events: Iterable[Mapping[str, Any]]) -> None:
        """The events of a batch the qmaster publishes (kinds job, task, ranges and the
        configuration's): the jobs they change are built again at the next evaluation."""
        if self._cache is None:
            return
        for event in events:
            kind, op, key, obj = event["kind"], event["op"], event["key"], event.get("obj")
            if kind == "job":
                self._placed.pop(int(key), None)
                if op != "del":
                    try:
                        self._placed[int(key)] = placement_job(obj)
                    except (TypeError, ValueError, IndexError, AttributeError):
                        pass  # (the scheduler reports such a job: it cannot run either)
            if kind in ("job", "task", "ranges") or kind in CONF_KINDS:
                self._cache.note(kind, op, key, obj)

    def figures(self, store: "Store", now: float, seq: int, job_ids: Iterable[int],
                usage: "UsageBook | None" = None) -> dict[int, dict[str, Any]]:
        """What a listing shows of these jobs (those that wait or run): ``job_figures``
        with the job's department and ``-dl`` time."""
        result = self.result(store, now, seq, usage)
        out: dict[int, dict[str, Any]] = {}
        for job_id in job_ids:
            found = result.jobs.get(job_id)
            if found is None:
                continue
            figures = job_figures(found)
            figures["department"] = self._departments.get(job_id, "defaultdepartment")
            placed = self._placed.get(job_id)
            if placed is not None and placed.deadline is not None:
                figures["deadline"] = placed.deadline
            out[job_id] = figures
        return out

    def result(self, store: "Store", now: float, seq: int, usage: "UsageBook | None" = None
               ) -> PolicyResult:
        """The policy's figures at ``now`` (those of an evaluation at most ``MAX_AGE``
        old; ``seq``: the last published event, which tells a changed store); ``usage``:
        the qmaster's usage book (none: no usage)."""
        age = now - self._at
        if self._result is not None and 0 <= age and (
                age < max(MAX_AGE, REUSE_FACTOR * self._took)
                or (seq == self._seq and age < MAX_STALE)):
            return self._result
        started = time.perf_counter()
        if self._cache is None:
            self._build(store)
        inputs = policy_inputs.policy_inputs(store.conf, self._placed, (), (),
                                             cache=self._cache)
        self._departments = {job.job_id: job.department for job in inputs.jobs}
        table = usage.table(now, inputs.conf) if usage is not None else UsageTable()
        self._result = policy_inputs.evaluate(inputs, table, now, _free_slots(store))
        self._at, self._seq = now, seq
        self._took = time.perf_counter() - started
        self.evaluations += 1
        return self._result

    def _build(self, store: "Store") -> None:
        """The unfinished jobs, their waiting and running tasks and their ranges, from
        the store (once: ``note_events`` keeps them after)."""
        self._cache = policy_inputs.PolicyJobCache()
        self._placed = {}
        for job_id, job in store.jobs.items():
            if store.job_finished(job_id):
                continue
            try:
                self._placed[job_id] = placement_job(placement_record(
                    job_id, job.owner, job.group, job.opts, job.submit_time))
            except (TypeError, ValueError, IndexError, AttributeError):
                continue  # (the scheduler reports such a job: it cannot run either)
        for task in _tasks(store):
            self._cache.put_task(task["job_id"], task["task_id"], task)
        for rng in _ranges(store):
            self._cache.put_ranges(rng["job_id"], rng)


_ACTIVE = frozenset(s.value for s in ACTIVE_STATES)


def _free_slots(store: "Store") -> int:
    """The cell's free batch slots, as the scheduler's mirror counts them."""
    from qmaster.placement_view import instances_of  # (it imports the store's users)
    return sum(max(0, qi.slots - store.used_slots.get((qi.queue, qi.host), 0))
               for qi in instances_of(store) if qi.accepts_jobs and qi.takes_jobs)


def _tasks(store: "Store") -> Iterable[dict[str, Any]]:
    """The enrolled tasks that wait or hold slots, as records ``job_tasks`` reads."""
    for task in store.tasks.values():
        if task.state == State.PENDING or (task.state in _ACTIVE and task.granted):
            yield {"job_id": task.job_id, "task_id": task.task_id, "state": task.state,
                   "holds": task.holds, "granted": task.granted, "usage": task.usage}


def _ranges(store: "Store") -> Iterable[dict[str, Any]]:
    for job_id, rng in store.ranges.items():
        if rng.pending and not rng.holds:
            yield {"job_id": job_id, "pending": rng.pending}


# --------------------------------------------------------------------------- the answer

def _tickets(t: Tickets) -> list[float]:
    return [t.tckts, t.otckt, t.ftckt, t.stckt, t.share]


def job_figures(found: JobPriority) -> dict[str, Any]:
    """What a listing shows of one job (``qstat`` prior, -pri, -urg, -ext): the priority,
    its normalised parts, the urgency's parts, the tickets ``[tckts, otckt, ftckt, stckt,
    share]`` of its pending tasks and of each running task, and each running task's
    priority (8.1.9 works it out from the task's own tickets)."""
    urg = found.urgency
    return {"prio": found.prio, "npprior": found.npprior, "nurg": found.nurg,
            "ntckts": found.ntckts,
            "urg": [urg.urg, urg.rrcontr, urg.wtcontr, urg.dlcontr],
            "tickets": _tickets(found.tickets),
            "tasks": {task_id: _tickets(t) for task_id, t in found.task_tickets.items()},
            "task_prio": dict(found.task_prio)}



# --------------------------------------------------------------------------- sge_share_mon

def share_tree_rows(result: PolicyResult, records: Mapping[Holder, UsageRecord],
                    decayed: Mapping[Holder, UsageRecord], now: float, decay: bool
                    ) -> list[dict[str, Any]]:
    """``sge_share_mon``'s row of each share tree node: the policy's NodeShare figures,
    with the cpu, mem and io usage (and their long term sums) of the node's holder (a
    user leaf: the user, within its project below a project node; a project node: the
    project) and the time it was last booked (users only, as 8.1.9). ``decay``
    (sge_share_mon -u): the usage decayed to ``now`` rather than as last booked."""
    leaves = _leaf_paths(result.nodes)
    rows = []
    for node in result.nodes:
        holder = _holder_of(node, node.path in leaves)
        record = (decayed if decay else records).get(holder) if holder else None
        stamp = 0.0
        if record is not None and holder is not None and holder.kind == USER:
            stamp = now if decay else record.stamp
        usage = record.usage if record is not None else {}
        long_term = record.long_term if record is not None else {}
        rows.append({
            "curr_time": int(now), "usage_time": int(stamp), "node_name": node.path,
            "user_name": node.user, "project_name": node.project, "shares": node.shares,
            "job_count": node.job_count, "level%": node.level, "total%": node.total,
            "long_target_share": node.long_target_share,
            "short_target_share": node.short_target_share,
            "actual_share": node.actual_share, "usage": node.usage,
            **{name: float(usage.get(name, 0.0)) for name in USAGE_NAMES},
            **{f"lt{name}": float(long_term.get(name, 0.0)) for name in USAGE_NAMES},
            "leaf": node.path in leaves})
    return rows


def _leaf_paths(nodes: Iterable[NodeShare]) -> set[str]:
    paths = [n.path for n in nodes]
    parents = {p.rsplit("/", 1)[0] or "/" for p in paths if p != "/"}
    return {p for p in paths if p not in parents}


def _holder_of(node: NodeShare, leaf: bool) -> Holder | None:
    name = node.path.rsplit("/", 1)[-1]
    if leaf and node.user and node.project:
        return Holder(USER, node.user, node.project)
    if node.user and node.user == name:
        return Holder(USER, node.user)
    if node.project and node.project == name:
        return Holder(PROJECT, node.project)
    return None


def handle_share_tree_query(ctx: "Ctx") -> dict[str, Any]:
    """sge_share_mon: the share tree's nodes with their figures now (any administrative
    or submit host may ask, as 8.1.9 lets anyone run sge_share_mon); ``tree`` False
    when the cell has no share tree."""
    from common.objects_conf.sharetree import SHARETREE
    from qmaster.host_rights import require_known_host  # (it imports the context)
    require_known_host(ctx.store, ctx.user)
    if not (ctx.store.conf.get("sharetree") or {}).get(SHARETREE):
        return {"tree": False, "nodes": []}
    book = ctx.services.usage
    result = ctx.services.policy_view.result(ctx.store, ctx.now, ctx.services.seq, book)
    conf = policy_inputs.policy_conf(ctx.store.conf)
    rows = share_tree_rows(result, book.records, book.decayed_records(ctx.now, conf),
                           ctx.now, bool(ctx.body.get("decay")))
    return {"tree": True, "nodes": rows}
