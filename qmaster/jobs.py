"""Request handlers for jobs: submit, delete, hold, release, wait, query.

Permission rules are Grid Engine's: anybody may submit (above ``min_uid``/``min_gid``);
a user may delete, hold (user hold) or release only their own jobs unless manager or
operator; operator and system holds need an operator or manager. Before any of that, the
requester's host must be a submit host to change jobs, and a submit or administrative
host to read them (``qmaster.host_rights``).
"""
from __future__ import annotations

import fnmatch
import heapq
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from common import conf_params, task_ranges
from common.jobstate import ACTIVE_STATES, Event, State, allows
from common.model import Job, Task, TaskRanges, UserInfo
from common.placement.load_alarm import exceeded, suspend_alarm_reason
from qmaster.ar.submit import as_stored, check_ar_job
from qmaster.array_deps import check_array_dependency, set_array_dependency
from qmaster.auto_suspend import THRESHOLD_REASON
from qmaster.context import DEFERRED, Ctx, RequestError, request_ranges
from qmaster import mail as job_mail
from qmaster.execd_link import finish_task, kill_on_host
from qmaster.host_rights import require_known_host, require_submit_host
from qmaster.placement_view import instance_alarms, instances_of
from qmaster.store import Store
from qmaster.policy_objects import check_job_user
from qmaster.submit_caps import SubmitCaps
from qmaster.submit_checks import check_submission, check_submitter, scheduling_info
from common.sched_info import job_info_of

HOLD_TYPES = {"u", "o", "s"}
# jobs one delete, hold, release or alter request works through before it answers with
# where a repeated request goes on (TargetWalk): about a tenth of a second of deletions
REQUEST_JOBS = 1000
# jobs and tasks in one part of a job_query reply (a few MiB, some tens of milliseconds)
QUERY_RECORDS = 5000


def handle_submit(ctx: Ctx) -> dict[str, Any]:
    user = ctx.user
    require_submit_host(ctx.store, user)
    _check_min_ids(ctx, user)
    specs = ctx.body["jobs"]
    operator = ctx.store.is_operator(user.name)
    submitter = check_submitter(ctx.store, user)
    caps = SubmitCaps(ctx.store, user.name)
    verdicts = []
    # wire.decode checked every job's description (common.jobspec); each is checked
    # against the cell before the first is added, and a refusal names the job
    for index, spec in enumerate(specs):
        try:
            caps.check(spec)  # max_jobs, max_u_jobs, script size, spool quota
            # enforce_user, auto_user_* and the owner's default_project (8.1.9's order)
            opts = check_job_user(ctx, user.name, spec["opts"], ctx.now)
            check_ar_job(ctx.store, opts, user.name)  # qsub -ar (qmaster.ar.submit)
            verdict = check_submission(ctx.store, opts, submitter, operator=operator)
            check_array_dependency(ctx.store, verdict.opts, user.name)  # -hold_jid_ad
            verdict.opts = as_stored(verdict.opts)
            verdicts.append(verdict)
            _check_task_count(spec["opts"]["array"], _max_tasks(ctx))
        except RequestError as err:
            if len(specs) > 1:
                err.message = f"jobs[{index}]: {err.message}"
            raise
    if any(v.verification for v in verdicts):  # -w v/p: verify only, submit nothing
        return {"job_ids": [], "verification": [v.verification for v in verdicts]}
    ids = [_add_job(ctx, user, {**spec, "opts": verdict.opts})
           for spec, verdict in zip(specs, verdicts)]
    if any(v.notes for v in verdicts):  # -w w, or no queue admits the user
        return {"job_ids": ids, "notes": [{"lines": v.notes, "unable": v.unable}
                                          for v in verdicts]}
    return {"job_ids": ids}


def _check_min_ids(ctx: Ctx, user: UserInfo) -> None:
    min_uid = int(ctx.store.conf_value("conf", "global", "min_uid", "0") or 0)
    min_gid = int(ctx.store.conf_value("conf", "global", "min_gid", "0") or 0)
    if user.uid < min_uid:
        raise RequestError("denied", f"job rejected: your user id {user.uid} is lower than "
                                     f"minimum user id {min_uid} of cluster configuration")
    if user.gid < min_gid:
        raise RequestError("denied", f"job rejected: your group id {user.gid} is lower than "
                                     f"minimum group id {min_gid} of cluster configuration")


def _add_job(ctx: Ctx, user: UserInfo, spec: dict[str, Any]) -> int:
    """The job with its tasks as one pending range (common.model.TaskRanges)."""
    opts = spec["opts"]
    job_id = ctx.store.allocate_job_id(ctx.batch)
    job = Job(job_id=job_id, owner=user.name, uid=user.uid, group=user.group, gid=user.gid,
              submit_time=ctx.now, opts=opts, sge_o=spec["sge_o"], script=spec["script"],
              umask=spec["umask"])
    holds = ["u"] if opts.get("hold") else []
    if unfinished_predecessors(ctx, job):
        holds.append("h")
    ctx.store.add_job(ctx.batch, job, holds)
    if "h" in holds:
        ctx.store.hold_for_dependency(job_id, True)
    if opts.get("hold_jid_ad"):  # task i waits for task i of the jobs named
        set_array_dependency(ctx, job)
    first, last, step = job.array_range
    ctx.services.job_log("submitted", job_id=job_id, owner=user.name,
                         tasks=(last - first) // step + 1)
    return job_id


def _max_tasks(ctx: Ctx) -> int:
    text = ctx.store.conf_value("conf", "global", "max_aj_tasks", "75000")
    return int(text) if text.isdigit() else 75000


def _check_task_count(array: list[int] | None, max_tasks: int) -> None:
    if not array:
        return
    first, last, step = array  # common.jobspec: 1 <= first <= last, step >= 1
    count = (last - first) // step + 1
    if max_tasks and count > max_tasks:  # sge_conf(5): 0 means no limit
        raise RequestError("rejected", "job rejected: you tried to submit a job with more "
                                       f"than {max_tasks} tasks")


def unfinished_predecessors(ctx: Ctx, job: Job) -> list[int]:
    """Jobs named by ``-hold_jid`` (ids, names or patterns) that have not finished."""
    wanted = [str(x) for x in job.opts.get("hold_jid") or []]
    store = ctx.store
    found = {int(w) for w in wanted if w.isdigit() and int(w) != job.job_id
             and int(w) in store.jobs and not store.job_finished(int(w))}
    names = [w for w in wanted if not w.isdigit()]
    if names:  # a name or pattern: every job of the owner that carries it
        found.update(other.job_id for other in store.jobs.values()
                     if other.job_id != job.job_id and other.owner == job.owner
                     and any(fnmatch.fnmatchcase(other.name, n) for n in names)
                     and not store.job_finished(other.job_id))
    return sorted(found)


def release_dependents(ctx: Ctx, finished_job_id: int) -> None:
    """Drop the ``-hold_jid`` hold of jobs whose last predecessor just finished: only
    the held jobs that name it are looked at (``Store.waiting_on``)."""
    finished = ctx.store.jobs.get(finished_job_id)
    if finished is None:
        return
    for job_id in sorted(ctx.store.waiting_on(finished)):
        job = ctx.store.jobs.get(job_id)
        if job is not None and unfinished_predecessors(ctx, job):
            continue
        release_dependency_hold(ctx, job_id)


def release_dependency_hold(ctx: Ctx, job_id: int) -> None:
    ctx.store.hold_for_dependency(job_id, False)
    remove_ranges_hold(ctx, job_id, "h")
    for task in ctx.store.enrolled_tasks(job_id):
        if "h" in task.holds:
            remove_hold(ctx, task, "h")


# ---- delete / hold / release -------------------------------------------------------
@dataclass
class Selected:
    """What a target names in one job: enrolled tasks, and pending ids of its ranges
    (``all_pending``: every one of them, which a range change handles at once).
    ``denied``: the requester may not make this change to the job, found before any of
    its tasks was looked at (nothing selected)."""

    job: Job
    tasks: list[Task]
    pending: list[int]
    all_pending: bool
    denied: bool = False
    # the named pending ids as ranges instead of ``pending`` (when the request's ranges
    # split the job's pending ranges exactly: common.task_ranges.split), so that a hold
    # on them stays a range record and no id is walked
    pending_ranges: list[list[int]] | None = None

    @property
    def empty(self) -> bool:
        return not self.tasks and not self.pending and not self.all_pending \
            and not self.denied and not self.pending_ranges


# A permission rule of a request: whether the requester may change this job at all.
# TargetWalk asks it before any per-task work, so a request naming another user's large
# array costs one check per job, not one per task (issue 26).
Allowed = Callable[[Job], bool]
# name-pattern targets one part of a request works through: each is a walk over every
# job of the cell (there is no index by name)
REQUEST_NAME_SCANS = 8


class TargetWalk:
    """A request's targets in turn, each with what it names per job (None when no job
    exists), selected when its turn comes: an earlier target may have changed or
    deleted a job already (qdel 5 5: the second finds no job 5).

    At most ``limit`` jobs in all: a request that names more (``qdel -u``, ``qhold`` of
    a user's jobs) stops there and its reply says in ``resume`` where a repeated request
    goes on: the target's index, and for a user or name target the last job done
    (``after``). The client sends the rest again, as Grid Engine's qdel does when its
    qmaster discontinues a large deletion (STATUS_OK_DOAGAIN), so that no one request
    holds up everyone else's for long."""

    def __init__(self, ctx: Ctx, limit: int, allowed: Allowed) -> None:
        self.ctx, self.limit, self.allowed = ctx, limit, allowed
        self.resume: dict[str, int] | None = None

    def __iter__(self) -> Iterator[tuple[dict[str, Any], list[Selected] | None]]:
        left, scans = self.limit, REQUEST_NAME_SCANS
        for index, target in enumerate(self.ctx.body["targets"]):
            # every target costs at least one step (a request of 65,536 ids of no job),
            # a name pattern a walk over every job
            if left <= 0 or ("name" in target and scans <= 0):
                self.resume = {"target": index}
                return
            scans -= "name" in target
            jobs = _select_jobs(self.ctx, target, left + 1)
            if len(jobs) > left:
                jobs = jobs[:left]
                self.resume = {"target": index, "after": jobs[-1].job_id}
            left -= max(len(jobs), 1)
            yield target, _select(self.ctx, target, jobs, self.allowed)
            if self.resume is not None:
                return

    def reply(self, results: list[dict[str, Any]]) -> dict[str, Any]:
        reply: dict[str, Any] = {"results": results}
        if self.resume is not None:
            reply["resume"] = self.resume
        return reply


def _select(ctx: Ctx, target: dict[str, Any], jobs: list[Job], allowed: Allowed
            ) -> list[Selected] | None:
    if not jobs:
        return None
    wanted = request_ranges(target)
    out = []
    for job in jobs:
        if not allowed(job):  # before any of its tasks is looked at
            out.append(Selected(job, [], [], False, denied=True))
            continue
        tasks = [t for t in ctx.store.enrolled_tasks(job.job_id)
                 if t.state_enum is not State.FINISHED
                 and (not wanted or task_ranges.contains_any(wanted, t.task_id))]
        pending = ctx.store.pending_ids(job.job_id)
        whole = bool(pending) and (not wanted or task_ranges.covered_by(pending, wanted))
        cut = None if whole or not pending else task_ranges.split(pending, wanted)
        ids = [] if whole or not pending or cut is not None \
            else list(task_ranges.ids_in(pending, wanted))
        selected = Selected(job, tasks, ids, whole,
                            pending_ranges=cut[0] if cut is not None else None)
        if not selected.empty:
            out.append(selected)
    return out


def selected_pending_ids(ctx: Ctx, sel: Selected) -> list[int]:
    """Every pending id the selection names, one by one (for per-task answers)."""
    if sel.all_pending:
        return list(task_ranges.ids(ctx.store.pending_ids(sel.job.job_id)))
    if sel.pending_ranges is not None:
        return list(task_ranges.ids(sel.pending_ranges))
    return sel.pending


def enroll_selected(ctx: Ctx, sel: Selected) -> list[Task]:
    """The selection's tasks, its named pending ids enrolled (a task changed on its own
    becomes an object), in task id order."""
    ids = sel.pending if sel.pending_ranges is None else task_ranges.ids(sel.pending_ranges)
    tasks = sel.tasks + [ctx.store.enroll(ctx.batch, sel.job.job_id, t) for t in ids]
    return sorted(tasks, key=lambda t: t.task_id)


def _select_jobs(ctx: Ctx, target: dict[str, Any], limit: int) -> list[Job]:
    """The unfinished jobs the target names, by job id, at most ``limit``; a user or
    name target only those after its ``after`` (a repeated request going on)."""
    store = ctx.store
    if "job_id" in target:
        job = store.jobs.get(int(target["job_id"]))
        return [job] if job and not store.job_finished(job.job_id) else []
    after = int(target.get("after") or 0)
    if "user" in target:  # through the owners' index: no walk over every job
        pattern = str(target["user"])
        ids: Iterable[int] = (
            j for owner, owned in store.owner_jobs.items()
            if fnmatch.fnmatchcase(owner, pattern) for j in owned if j > after)
    elif "name" in target:
        pattern = str(target["name"])
        ids = (j.job_id for j in store.jobs.values()
               if j.job_id > after and fnmatch.fnmatchcase(j.name, pattern))
    else:
        return []
    wanted = (j for j in ids if j in store.jobs and not store.job_finished(j))
    return [store.jobs[j] for j in heapq.nsmallest(limit, wanted)]


def may_change(ctx: Ctx, job: Job) -> bool:
    user = ctx.user.name
    return job.owner == user or ctx.store.is_operator(user)


def handle_delete(ctx: Ctx) -> dict[str, Any]:
    require_submit_host(ctx.store, ctx.user)
    if ctx.body.get("force") and not ctx.store.is_manager(ctx.user.name) \
            and not _qmaster_flag(ctx, "ENABLE_FORCED_QDEL"):
        return {"results": [{"result": "force_denied"}]}
    results = []
    walk = TargetWalk(ctx, REQUEST_JOBS, lambda job: may_change(ctx, job))
    for target, selection in walk:
        results.extend(_delete_target(ctx, target, selection))
    return walk.reply(results)


def _qmaster_flag(ctx: Ctx, key: str) -> bool:
    params = ctx.store.conf_value("conf", "global", "qmaster_params", "none")
    return conf_params.value("qmaster_params", params, key) is True


def _forced(ctx: Ctx, job: Job, task: Task) -> bool:
    """Whether the deletion of running ``task`` is a forced one (qdel -f: gone at once):
    asked for (by a manager, or by the owner when qmaster_params ENABLE_FORCED_QDEL is
    set, sge_conf(5)), or the task's host is unknown (not heard from) and
    ENABLE_FORCED_QDEL_IF_UNKNOWN is set."""
    user = ctx.user.name
    if ctx.body.get("force") and (ctx.store.is_manager(user) or job.owner == user):
        return True
    host = ctx.store.hosts.get(task.host or "")
    return _qmaster_flag(ctx, "ENABLE_FORCED_QDEL_IF_UNKNOWN") and (host is None
                                                                     or not host.alive)


def _delete_target(ctx: Ctx, target: dict[str, Any], selection: list[Selected] | None
                   ) -> list[dict[str, Any]]:
    if selection is None:
        return [{"target": target, "result": "unknown"}]
    out = []
    for sel in selection:
        if sel.denied:
            out.append({"job_id": sel.job.job_id, "result": "denied", "owner": sel.job.owner})
            continue
        out.extend(_delete_tasks(ctx, sel, bool(target.get("tasks"))))
    return out


def _delete_tasks(ctx: Ctx, sel: Selected, by_task: bool) -> list[dict[str, Any]]:
    job = sel.job
    per_task = by_task and job.is_array  # qdel -t on an array: an answer per task
    answers: list[tuple[int, dict[str, Any]]] = []
    immediate = False
    if per_task:
        answers += [(t, {"job_id": job.job_id, "task_id": t, "result": "deleted"})
                    for t in selected_pending_ids(ctx, sel)] if sel.all_pending else []
    gone = None
    waited_on = bool(ctx.store.ad_successors.get(job.job_id))  # by -hold_jid_ad jobs
    if sel.all_pending:  # the job's pending ids end without becoming tasks
        ended = ctx.store.pending_ids(job.job_id) if waited_on else []
        immediate = ctx.store.delete_pending(ctx.batch, job.job_id, ctx.user.name) > 0
        _ended_unstarted(ctx, job.job_id, ended)
        tasks = sel.tasks
    elif sel.pending_ranges is not None and (gone := ctx.store.delete_pending_ids(
            ctx.batch, job.job_id, sel.pending_ranges, ctx.user.name)) is not None:
        # some of them, split off as ranges: no task record made (qdel -t 2-75000)
        immediate = bool(gone)
        _ended_unstarted(ctx, job.job_id, gone if waited_on else [])
        if per_task:
            answers += [(t, {"job_id": job.job_id, "task_id": t, "result": "deleted"})
                        for t in task_ranges.ids(gone)]
        tasks = sel.tasks
    else:
        tasks = enroll_selected(ctx, sel)
    for task in tasks:
        active = task.state_enum in ACTIVE_STATES
        first_kill = active and task.state_enum is not State.DELETED
        ctx.store.transition(ctx.batch, task, Event.DELETE, deleted_by=ctx.user.name)
        if first_kill:
            job_mail.task_killed(ctx, job, task)  # (-m a: "Killed")
        if active:
            kill_on_host(ctx, task)
            forced = _forced(ctx, job, task)
            if forced:  # qdel -f: gone now, whether or not the execd ever confirms
                finish_task(ctx, task, {"exit_status": 137, "signal": 9, "failed": 100,
                                        "end_time": ctx.now})
            answers.append((task.task_id, {
                "job_id": job.job_id, "task_id": task.task_id if job.is_array else None,
                "result": "forced" if forced else "registered"}))
        else:
            immediate = True
            if per_task:
                answers.append((task.task_id, {"job_id": job.job_id, "task_id": task.task_id,
                                               "result": "deleted"}))
    out = [answer for _, answer in sorted(answers, key=lambda a: a[0])]
    if immediate and not per_task:
        out.append({"job_id": job.job_id, "task_id": None, "result": "deleted"})
    return out


def _ended_unstarted(ctx: Ctx, job_id: int, ids: list[list[int]]) -> None:
    """Pending ids a qdel ended: finished for the -hold_jid_ad jobs that wait on them
    (qmaster.array_deps releases those tasks after the request)."""
    ctx.batch.finished_tasks.extend((job_id, t) for t in task_ranges.ids(ids))


def handle_hold(ctx: Ctx) -> dict[str, Any]:
    return _change_holds(ctx, add=True)


def handle_release(ctx: Ctx) -> dict[str, Any]:
    return _change_holds(ctx, add=False)


def _change_holds(ctx: Ctx, *, add: bool) -> dict[str, Any]:
    require_submit_host(ctx.store, ctx.user)
    hold_type = ctx.body["hold_type"]
    if hold_type not in HOLD_TYPES:
        raise RequestError("malformed", f"invalid hold type {hold_type!r}")
    results = []
    walk = TargetWalk(ctx, REQUEST_JOBS, lambda job: may_hold(ctx, job, hold_type))
    for target, selection in walk:
        if selection is None:
            results.append({"target": target, "result": "unknown"})
            continue
        results.extend(_hold_job(ctx, sel, hold_type, add) for sel in selection)
    return walk.reply(results)


def may_hold(ctx: Ctx, job: Job, hold_type: str) -> bool:
    """Grid Engine's rule: a user hold by the owner or an operator, an operator hold by an
    operator, a system hold by a manager."""
    user = ctx.user.name
    if hold_type == "s":
        return ctx.store.is_manager(user)
    return (hold_type == "u" and job.owner == user) or ctx.store.is_operator(user)


def _hold_job(ctx: Ctx, sel: Selected, hold_type: str, add: bool) -> dict[str, Any]:
    job = sel.job
    if sel.denied:
        return {"job_id": job.job_id, "result": "denied", "owner": job.owner}
    # the pending ids named, as ranges: they keep their range records (no id is walked)
    named: list[list[int]] = []
    if sel.all_pending:
        named = ctx.store.pending_ids(job.job_id)
        (add_ranges_hold if add else remove_ranges_hold)(ctx, job.job_id, hold_type)
        tasks = sel.tasks
    elif sel.pending_ranges is not None and \
            change_pending_holds(ctx, job.job_id, sel.pending_ranges, hold_type, add):
        named = sel.pending_ranges
        tasks = sel.tasks
    else:
        tasks = enroll_selected(ctx, sel)
    for task in tasks:
        if add:
            add_hold(ctx, task, hold_type)
        else:
            remove_hold(ctx, task, hold_type)
    task_ids = task_ranges.merged([*named, *([t.task_id] * 2 + [1] for t in tasks)])
    return {"job_id": job.job_id, "result": "modified",
            "task_ranges": task_ids if job.is_array else None}


def change_pending_holds(ctx: Ctx, job_id: int, named: list[list[int]], hold_type: str,
                         add: bool) -> bool:
    """Add or remove a hold on the pending ids ``named`` (ranges, pieces of the job's
    pending ones) without enrolling them: each group of pending ids with the same holds
    is split into the ids named and the others (Store.set_pending_groups). False when a
    group cannot be split exactly (the caller enrolls the ids instead)."""
    groups = []
    for ids, holds in ctx.store.pending_groups(job_id):
        cut = task_ranges.split(ids, named)
        if cut is None:
            return False
        changed = sorted({*holds, hold_type}) if add else [h for h in holds if h != hold_type]
        groups += [(cut[0], changed), (cut[1], list(holds))]
    ctx.store.set_pending_groups(ctx.batch, job_id, groups)
    return True


def add_ranges_hold(ctx: Ctx, job_id: int, hold_type: str) -> None:
    """A hold on every pending id of the job at once."""
    rng = ctx.store.ranges[job_id]
    if job_id in ctx.store.held:
        ctx.store.set_pending_groups(ctx.batch, job_id, [
            (ids, sorted({*holds, hold_type})) for ids, holds in ctx.store.pending_groups(job_id)])
    elif rng.pending and hold_type not in rng.holds:
        ctx.store.change_ranges(ctx.batch, job_id, holds=sorted({*rng.holds, hold_type}))


def remove_ranges_hold(ctx: Ctx, job_id: int, hold_type: str) -> None:
    rng = ctx.store.ranges.get(job_id)
    if rng is not None and job_id in ctx.store.held:
        ctx.store.set_pending_groups(ctx.batch, job_id, [
            (ids, [h for h in holds if h != hold_type])
            for ids, holds in ctx.store.pending_groups(job_id)])
    elif rng is not None and rng.pending and hold_type in rng.holds:
        ctx.store.change_ranges(ctx.batch, job_id,
                                holds=[h for h in rng.holds if h != hold_type])


def add_hold(ctx: Ctx, task: Task, hold_type: str) -> None:
    if hold_type in task.holds:
        return
    holds = sorted(set(task.holds) | {hold_type})
    if allows(task.state_enum, Event.HOLD):
        ctx.store.transition(ctx.batch, task, Event.HOLD, holds=holds)
    else:
        ctx.store.put_task(ctx.batch, task, holds=holds)


def remove_hold(ctx: Ctx, task: Task, hold_type: str) -> None:
    if hold_type not in task.holds:
        return
    holds = [h for h in task.holds if h != hold_type]
    if not holds and task.state_enum is State.HOLD:
        ctx.store.transition(ctx.batch, task, Event.RELEASE, holds=holds)
    else:
        ctx.store.put_task(ctx.batch, task, holds=holds)


# ---- wait / query ------------------------------------------------------------------
def handle_wait(ctx: Ctx) -> dict[str, Any]:
    require_known_host(ctx.store, ctx.user)
    ids = {int(j) for j in ctx.body["job_ids"]}
    unknown = sorted(j for j in ids if j not in ctx.store.jobs)
    if unknown:
        return {"jobs": {}, "unknown": unknown}
    if all(ctx.store.job_finished(j) for j in ids):
        return {"jobs": job_results(ctx, ids), "unknown": []}
    unfinished = {j for j in ids if not ctx.store.job_finished(j)}
    ctx.services.waiters.add(ctx.identity, ctx.request_id, ctx.user.name, frozenset(ids),
                             unfinished)
    return DEFERRED


def job_results(ctx: Ctx, ids: set[int]) -> dict[int, list[dict[str, Any]]]:
    return {j: [_task_result(t) for t in ctx.store.all_tasks(j)] for j in sorted(ids)}


def _task_result(task: Task) -> dict[str, Any]:
    return {"task_id": task.task_id, "exit_status": task.exit_status, "signal": task.signal,
            "failed": task.failed, "deleted": task.deleted_by is not None,
            "started": task.start_time is not None}


def handle_job_query(ctx: Ctx) -> dict[str, Any]:
    """Jobs with their tasks, by job id, in parts: a part holds about ``QUERY_RECORDS``
    jobs and tasks (at least one job), and ``next`` names its last job while more may
    follow; the client asks again ``after`` it. No reply grows with the cell, and a
    listing of 100,000 jobs holds up other requests for one part at a time."""
    require_known_host(ctx.store, ctx.user)
    store = ctx.store
    body = ctx.body
    finished = bool(body.get("include_finished"))
    by_ranges = bool(body.get("ranges"))
    # (a sized collection: nsmallest sorts one no longer than QUERY_RECORDS at once)
    candidates = heapq.nsmallest(QUERY_RECORDS, _query_ids(store, body))
    jobs: list[Job] = []
    tasks: list[Task] = []
    full = len(candidates) == QUERY_RECORDS  # more may follow the last candidate
    last = 0
    for last in candidates:
        if not finished and store.job_finished(last):
            continue
        jobs.append(store.jobs[last])
        tasks += store.enrolled_tasks(last) if by_ranges else store.all_tasks(last)
        if len(jobs) + len(tasks) >= QUERY_RECORDS:
            full = last != candidates[-1] or full
            break
    with_script = bool(body.get("with_script"))
    brief = bool(body.get("brief"))
    if brief:  # a tenth of the bytes to pack, send and read for qstat
        records = [_listing(j) for j in jobs]
    else:
        records = [j.summary(with_script) for j in jobs]
    reply: dict[str, Any] = {"jobs": records, "tasks": [t.to_dict() for t in tasks]}
    if by_ranges:  # unenrolled tasks as range lists, not one by one
        ranges = store.ranges
        reply["ranges"] = [_brief_ranges(ranges[j.job_id]) if brief
                           else ranges[j.job_id].to_dict() for j in jobs]
        # pending ids with holds of their own (qhold -t): a range record per group
        reply["ranges"] += [_held_record(ranges[j.job_id], ids, holds, brief)
                            for j in jobs for ids, holds in store.held.get(j.job_id, ())]
    if body["set_aside"]:  # unreadable in the spool at start-up: qstat -j says why
        wanted = body.get("job_ids")
        reply["set_aside"] = {job_id: why for job_id, why in store.aside_jobs.items()
                              if wanted is None or job_id in wanted}
    if body.get("priorities"):  # qstat's prior, -pri, -urg, -ext: the policy's figures
        reply["priorities"] = ctx.services.policy_view.figures(
            store, ctx.now, ctx.services.seq, [j.job_id for j in jobs], ctx.services.usage)
    if body.get("pe_tasks"):  # qstat -t: each job task's running parallel tasks
        reply["pe_tasks"] = _pe_task_records(store, tasks)
    if body.get("explain"):  # qstat -j: why pending jobs wait
        _explain(store, jobs, reply)
    if full:
        reply["next"] = last
    return reply


def _pe_task_records(store: Store, tasks: list[Task]) -> list[dict[str, Any]]:
    """The running parallel tasks of ``tasks`` (common.pe_tasks.PeBook), by their number."""
    out = []
    for task in tasks:
        book = store.pe_books.get(task.key)
        for pe_task_id, running in sorted((book.tasks if book else {}).items(),
                                          key=lambda item: item[1].number):
            out.append({"job_id": task.job_id, "task_id": task.task_id,
                        "pe_task_id": pe_task_id, "host": running.host,
                        "queue": running.queue, "started": running.started})
    return out


def _query_ids(store: Store, body: dict[str, Any]) -> Iterable[int]:
    """The ids of the jobs a query names, after its ``after``, in no particular order."""
    after = int(body.get("after") or 0)
    wanted, owners = body.get("job_ids"), body.get("owners")
    if wanted is not None:  # a few jobs by id: no walk through every job
        return {j for j in wanted if j > after and j in store.jobs}
    if owners is not None:  # qstat -u: the owners' jobs by the store's index
        return {j for owner, owned in store.owner_jobs.items()
                if any(fnmatch.fnmatchcase(owner, p) for p in owners)
                for j in owned if j > after and j in store.jobs}
    return [j for j in store.jobs if j > after] if after else store.jobs.keys()


# the options a job listing reads (clients.views.qstat: rows, -r, -ext, -s filters)
LISTING_OPTS = ("job_name", "array", "pe", "pe_ranges", "priority", "hold_jid", "hold_jid_ad",
                "start_time", "project", "checkpoint_name", "hard_queues", "soft_queues",
                "master_queues", "hard_resources", "soft_resources", "override_tickets")


def _listing(job: Job) -> dict[str, Any]:
    """The job as a listing reads it: ``LISTING_OPTS`` that are set (a listing reads an
    absent one as its empty default, None, [], {} or 0: most jobs set few)."""
    opts = job.opts
    return {"job_id": job.job_id, "owner": job.owner, "group": job.group,
            "submit_time": job.submit_time,
            "opts": {name: value for name in LISTING_OPTS if (value := opts.get(name))}}


def _brief_ranges(rng: TaskRanges) -> dict[str, Any]:
    """A job's range lists as a listing reads them: without the fields that are empty
    (read as their defaults)."""
    return {name: value for name in TaskRanges._names if (value := getattr(rng, name))}


def _held_record(rng: TaskRanges, ids: list[list[int]], holds: list[str], brief: bool
                 ) -> dict[str, Any]:
    """A group of a job's held pending ids as a range record of its own (a listing reads
    a job's range records one by one: common.model.TaskRanges' fields)."""
    record = TaskRanges(job_id=rng.job_id, pending=ids, holds=list(holds),
                        version=rng.version)
    return _brief_ranges(record) if brief else record.to_dict()


def _explain(store: Store, jobs: list[Job], reply: dict[str, Any]) -> None:
    """qstat -j's scheduling info as sched_conf(5) ``schedd_job_info`` allows: the lines
    of the jobs it collects (none with ``false``: not even worked out), and the global
    messages that go with the setting (``scheduling_globals``)."""
    info = job_info_of((store.conf.get("sconf") or {}).get("global") or [])
    collected = [j for j in jobs if info.collects(j.job_id)]
    lines = scheduling_info(store, [j for j in collected if store.job_has_pending(j.job_id)])
    _add_suspend_alarms(store, collected, lines)
    reply["scheduling_info"] = lines
    # 8.1.9's "There are no messages available" is not added: its condition is the
    # whole last run's messages, which are not kept here
    reply["scheduling_globals"] = info.global_messages()


def _add_suspend_alarms(store: Store, jobs: list[Job], info: dict[int, list[str]]) -> None:
    """A job a suspend threshold stopped: 8.1.9's ``queue instance "all.q@vm" is in
    suspend alarm: ...`` first, while its instance is over the threshold."""
    stopped = {j.job_id: [t for t in store.enrolled_tasks(j.job_id)
                          if THRESHOLD_REASON in t.suspend_reasons] for j in jobs}
    if not any(stopped.values()):
        return
    alarms = instance_alarms(store, instances_of(store))
    for job_id, tasks in stopped.items():
        lines = []
        for task in tasks:
            checks = alarms.get((task.queue or "", task.host or ""))
            check = exceeded(checks[1]) if checks else None
            line = suspend_alarm_reason(f"{task.queue}@{task.host}", check) if check else ""
            if line and line not in lines:
                lines.append(line)
        if lines:
            info[job_id] = lines + [x for x in info.get(job_id, []) if x not in lines]

