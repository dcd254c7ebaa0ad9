"""``-hold_jid_ad``: array task dependencies (qsub(1), Grid Engine 8.1.9).

Task i of a job that names array jobs with ``-hold_jid_ad`` is not eligible before the
tasks of each of them that cover the same ids have finished (task i of a job with step s
stands for ids i..i+s-1). 8.1.9 accepts the option only on an array job whose named jobs
(those that exist) are arrays with the same first and last ids as given (the steps may
differ), and refuses otherwise with the words below (captured:
tests/data/reference/qsub/).

A waiting task carries the hold ``d`` (qstat: ``hqw``); it is dropped task by task as
the predecessors' same tasks finish (``release_array_dependents``, run after each
batch of requests with the tasks it finished), and at once for every task when a
predecessor job ends or is forgotten. Names are resolved when the job is submitted or
altered (qsub(1): later jobs of that name are not looked at).
"""
from __future__ import annotations

from typing import Any

from common import task_ranges
from common.jobstate import State
from common.model import Job
from qmaster.context import Ctx, RequestError
from qmaster.store import Store

AD_HOLD = "d"
NOT_AN_ARRAY = 'Can only specify "-hold_jid_ad" option with an array job (using "-t" option)'
OTHER_RANGE = ("This array job must have the same range of sub-tasks as the dependent "
               "array job specified with -hold_jid_ad")


def array_dependency_refusal(store: Store, opts: dict[str, Any], owner: str,
                             job_id: int = 0) -> str | None:
    """8.1.9's refusal of the job's ``-hold_jid_ad`` (None: accepted). Jobs named that do
    not exist (or have finished) are accepted and never wait, as 8.1.9's."""
    if not opts.get("hold_jid_ad"):
        return None
    array = opts.get("array")
    if not array:
        return NOT_AN_ARRAY
    # 8.1.9 compares the first and last ids as given; the steps may differ (captured)
    probe = Job(job_id=job_id, owner=owner, uid=0, group="", gid=0, submit_time=0.0,
                opts=opts, sge_o={})
    for pred in store.ad_predecessor_ids(probe):
        if store.job_finished(pred):
            continue
        other = store.jobs[pred].opts.get("array")
        if not other:
            return NOT_AN_ARRAY
        if list(other)[:2] != list(array)[:2]:
            return OTHER_RANGE
    return None


def check_array_dependency(store: Store, opts: dict[str, Any], owner: str) -> None:
    refusal = array_dependency_refusal(store, opts, owner)
    if refusal is not None:
        raise RequestError("rejected", refusal)


def _not_done(store: Store, job_id: int) -> set[int]:
    """The predecessor's task ids that have not finished (none once the job has)."""
    if job_id not in store.jobs or store.job_finished(job_id):
        return set()
    ids = set(task_ranges.ids(store.pending_ids(job_id)))
    ids.update(t.task_id for t in store.enrolled.get(job_id, {}).values()
               if t.state_enum is not State.FINISHED)
    return ids


def covered(array: Any, lo: int, hi: int) -> range:
    """The tasks of an array job ``array`` = (first, last, step) whose blocks overlap
    ids ``lo``..``hi``: task j stands for ids j..j+step-1 (qsub(1): a successor with
    -t 1-50:2 on a predecessor with -t 1-50 makes task n wait for tasks n and n+1)."""
    first, last, step = (int(v) for v in array)
    start = max(first, lo - step + 1)
    start = first + -(-(start - first) // step) * step  # the first task id >= start
    return range(start, min(last, hi) + 1, step)


def _blocking(job: Job, task_id: int, pred: Job, not_done: set[int]) -> bool:
    """Whether an unfinished task of ``pred`` holds task ``task_id`` of ``job`` back."""
    step = int(job.opts["array"][2])
    return any(j in not_done for j in covered(pred.opts["array"], task_id,
                                              task_id + step - 1))


def set_array_dependency(ctx: Ctx, job: Job, old_predecessors: list[int] | None = None
                         ) -> list[int]:
    """After a submit or a qalter: index the job under its predecessors, hold the pending
    tasks whose predecessors' tasks have not finished and release the others. The
    predecessors that still block some task."""
    store = ctx.store
    old = list(old_predecessors or []) + store.ad_predecessors.get(job.job_id, [])
    store.index_array_dependency(job.job_id, old, False)
    # names are resolved now (qsub(1): later jobs of that name are not looked at)
    preds = [p for p in store.ad_predecessor_ids(job) if not store.job_finished(p)
             and store.jobs[p].opts.get("array")]
    store.index_array_dependency(job.job_id, preds, True)
    not_done = {p: _not_done(store, p) for p in preds}
    blocking: set[int] = set()
    waiting = []
    for task_id in _waiting_ids(store, job.job_id):
        found = {p for p in preds if _blocking(job, task_id, store.jobs[p], not_done[p])}
        if found:
            waiting.append(task_id)
            blocking |= found
    holding = _holding_ids(store, job.job_id)
    _change(ctx, job.job_id, [t for t in waiting if t not in holding], add=True)
    _change(ctx, job.job_id, sorted(holding - set(waiting)), add=False)
    return sorted(blocking)


def _waiting_ids(store: Store, job_id: int) -> list[int]:
    """The job's tasks that have not started: pending ids and enrolled waiting tasks."""
    ids = list(task_ranges.ids(store.pending_ids(job_id)))
    ids += [t.task_id for t in store.enrolled.get(job_id, {}).values()
            if t.state_enum in (State.PENDING, State.HOLD)]
    return sorted(ids)


def _holding_ids(store: Store, job_id: int) -> set[int]:
    """The job's task ids that carry the ``d`` hold."""
    ids = {t for group, holds in store.pending_groups(job_id) if AD_HOLD in holds
           for t in task_ranges.ids(group)}
    ids.update(t.task_id for t in store.enrolled.get(job_id, {}).values()
               if AD_HOLD in t.holds and t.state_enum in (State.PENDING, State.HOLD))
    return ids


def _change(ctx: Ctx, job_id: int, task_ids: list[int], add: bool) -> None:
    """Add or drop the ``d`` hold of these waiting tasks (pending ids stay ranges when
    their groups split exactly; otherwise they are enrolled)."""
    from qmaster.jobs import add_hold, change_pending_holds, remove_hold
    if not task_ids:
        return
    store = ctx.store
    enrolled = store.enrolled.get(job_id, {})
    loose = [t for t in task_ids if t not in enrolled]
    named = task_ranges.merged([[t, t, 1] for t in loose]) if loose else []
    if named and not change_pending_holds(ctx, job_id, named, AD_HOLD, add):
        for task_id in loose:
            store.enroll(ctx.batch, job_id, task_id)
        loose = []
    for task_id in task_ids:
        task = store.enrolled.get(job_id, {}).get(task_id)
        if task is None or task.state_enum not in (State.PENDING, State.HOLD):
            continue
        if add:
            add_hold(ctx, task, AD_HOLD)
        elif AD_HOLD in task.holds:
            remove_hold(ctx, task, AD_HOLD)


def release_array_dependents(ctx: Ctx, finished_tasks: list[tuple[int, int]],
                             finished_jobs: list[int]) -> None:
    """Drop the ``d`` hold of the tasks whose predecessors' same tasks have all
    finished: task by task for the tasks finished, every task for the jobs ended."""
    store = ctx.store
    for pred, pred_task in finished_tasks:
        pred_job = store.jobs.get(pred)
        if pred_job is None or not pred_job.opts.get("array"):
            continue
        step = int(pred_job.opts["array"][2])
        for succ in sorted(store.ad_successors.get(pred, ())):
            job = store.jobs.get(succ)
            if job is None or store.job_finished(succ) or not job.opts.get("array"):
                continue
            free = [t for t in covered(job.opts["array"], pred_task, pred_task + step - 1)
                    if _holds_task(store, succ, t) and not _blocked(store, job, t)]
            _change(ctx, succ, free, add=False)
    for pred in finished_jobs:
        for succ in sorted(store.ad_successors.get(pred, ())):
            job = store.jobs.get(succ)
            if job is not None and not store.job_finished(succ):
                set_array_dependency(ctx, job)
            store.index_array_dependency(succ, [pred], False)


def _blocked(store: Store, job: Job, task_id: int) -> bool:
    return any(_blocking(job, task_id, store.jobs[p], _not_done_near(store, p, task_id, job))
               for p in store.ad_predecessors.get(job.job_id, ())
               if p in store.jobs and not store.job_finished(p)
               and store.jobs[p].opts.get("array"))


def _not_done_near(store: Store, pred: int, task_id: int, job: Job) -> set[int]:
    """The unfinished tasks of ``pred`` among those that task ``task_id`` of ``job``
    waits for (a handful: never the whole array)."""
    step = int(job.opts["array"][2])
    near = covered(store.jobs[pred].opts["array"], task_id, task_id + step - 1)
    enrolled = store.enrolled.get(pred, {})
    pending = store.pending_ids(pred)
    return {j for j in near if (enrolled[j].state_enum is not State.FINISHED
                                if j in enrolled else task_ranges.contains(pending, j))}


def _holds_task(store: Store, job_id: int, task_id: int) -> bool:
    """Whether that task of the job still waits with the ``d`` hold."""
    task = store.enrolled.get(job_id, {}).get(task_id)
    if task is not None:
        return AD_HOLD in task.holds
    return any(AD_HOLD in holds and task_ranges.contains(ids, task_id)
               for ids, holds in store.pending_groups(job_id))
