"""Request handlers for jobs: submit, delete, hold, release, wait, query.

Permission rules are Grid Engine's: anybody may submit (above ``min_uid``/``min_gid``);
a user may delete, hold (user hold) or release only their own jobs unless manager or
operator; operator and system holds need an operator or manager. Before any of that, the
requester's host must be a submit host to change jobs, and a submit or administrative
host to read them (``qmaster.host_rights``).
"""
from __future__ import annotations

import fnmatch
from typing import Any

from common.cluster import queue_instances
from common.jobstate import ACTIVE_STATES, Event, State, allows
from common.model import Job, Task, UserInfo
from common.placement.load_alarm import exceeded, suspend_alarm_reason
from qmaster.auto_suspend import THRESHOLD_REASON
from qmaster.context import DEFERRED, Ctx, RequestError, Waiter
from qmaster.execd_link import finish_task, kill_on_host
from qmaster.host_rights import require_known_host, require_submit_host
from qmaster.placement_view import instance_alarms
from qmaster.store import Store
from qmaster.submit_checks import check_submission, check_submitter, scheduling_info

HOLD_TYPES = {"u", "o", "s"}


def handle_submit(ctx: Ctx) -> dict[str, Any]:
    user = ctx.user
    require_submit_host(ctx.store, user)
    _check_min_ids(ctx, user)
    specs = ctx.body["jobs"]
    operator = ctx.store.is_operator(user.name)
    submitter = check_submitter(ctx.store, user)
    verdicts, task_ids = [], []
    # wire.decode checked every job's description (common.jobspec); each is checked
    # against the cell before the first is added, and a refusal names the job
    for index, spec in enumerate(specs):
        try:
            verdicts.append(check_submission(ctx.store, spec["opts"], submitter,
                                             operator=operator))
            task_ids.append(_task_ids(spec["opts"]["array"], _max_tasks(ctx)))
        except RequestError as err:
            if len(specs) > 1:
                err.message = f"jobs[{index}]: {err.message}"
            raise
    if any(v.verification for v in verdicts):  # -w v/p: verify only, submit nothing
        return {"job_ids": [], "verification": [v.verification for v in verdicts]}
    ids = [_add_job(ctx, user, {**spec, "opts": verdict.opts}, tasks)
           for spec, verdict, tasks in zip(specs, verdicts, task_ids)]
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


def _add_job(ctx: Ctx, user: UserInfo, spec: dict[str, Any], task_ids: list[int]) -> int:
    opts = spec["opts"]
    job_id = ctx.store.allocate_job_id(ctx.batch)
    job = Job(job_id=job_id, owner=user.name, uid=user.uid, group=user.group, gid=user.gid,
              submit_time=ctx.now, opts=opts, sge_o=spec["sge_o"], script=spec["script"],
              task_ids=task_ids, umask=spec["umask"])
    holds = ["u"] if opts.get("hold") else []
    if unfinished_predecessors(ctx, job):
        holds.append("h")
    if "h" in holds:
        ctx.store.hold_for_dependency(job_id, True)
    state = State.HOLD if holds else State.PENDING
    tasks = [Task(job_id=job_id, task_id=t, state=state, holds=list(holds)) for t in task_ids]
    ctx.store.add_job(ctx.batch, job, tasks)
    ctx.services.job_log("submitted", job_id=job_id, owner=user.name, tasks=len(tasks))
    return job_id


def _max_tasks(ctx: Ctx) -> int:
    text = ctx.store.conf_value("conf", "global", "max_aj_tasks", "75000")
    return int(text) if text.isdigit() else 75000


def _task_ids(array: list[int] | None, max_tasks: int) -> list[int]:
    if not array:
        return [1]
    first, last, step = array  # common.jobspec: 1 <= first <= last, step >= 1
    count = (last - first) // step + 1
    if max_tasks and count > max_tasks:  # sge_conf(5): 0 means no limit
        raise RequestError("rejected", "job rejected: you tried to submit a job with more "
                                       f"than {max_tasks} tasks")
    return list(range(first, last + 1, step))


def unfinished_predecessors(ctx: Ctx, job: Job) -> list[int]:
    """Jobs named by ``-hold_jid`` (ids, names or patterns) that have not finished."""
    wanted = [str(x) for x in job.opts.get("hold_jid") or []]
    out: list[int] = []
    if not wanted:
        return out
    for other in ctx.store.jobs.values():
        if other.job_id == job.job_id or ctx.store.job_finished(other.job_id):
            continue
        if any(_names_job(w, other, job.owner) for w in wanted):
            out.append(other.job_id)
    return out


def _names_job(ref: str, job: Job, owner: str) -> bool:
    if ref.isdigit():
        return int(ref) == job.job_id
    return job.owner == owner and fnmatch.fnmatchcase(job.name, ref)


def release_dependents(ctx: Ctx, finished_job_id: int) -> None:
    """Drop the ``-hold_jid`` hold of jobs whose last predecessor just finished."""
    for job_id in sorted(ctx.store.dependency_held):
        job = ctx.store.jobs.get(job_id)
        if job is not None and unfinished_predecessors(ctx, job):
            continue
        ctx.store.hold_for_dependency(job_id, False)
        for task in ctx.store.job_tasks(job_id):
            if "h" in task.holds:
                remove_hold(ctx, task, "h")


# ---- delete / hold / release -------------------------------------------------------
def select_targets(ctx: Ctx) -> list[tuple[dict[str, Any], list[Task] | None]]:
    """Each request target with its tasks, or None when the job does not exist."""
    out = []
    for target in ctx.body["targets"]:
        if not isinstance(target, dict):
            raise RequestError("malformed", "malformed job target")
        out.append((target, _select_tasks(ctx, target)))
    return out


def _select_tasks(ctx: Ctx, target: dict[str, Any]) -> list[Task] | None:
    jobs = _select_jobs(ctx, target)
    if not jobs:
        return None
    wanted = target.get("tasks")
    tasks: list[Task] = []
    for job in jobs:
        for task in ctx.store.job_tasks(job.job_id):
            if task.state_enum is State.FINISHED:
                continue
            if wanted and not any(_in_range(task.task_id, r) for r in wanted):
                continue
            tasks.append(task)
    return tasks


def _select_jobs(ctx: Ctx, target: dict[str, Any]) -> list[Job]:
    store = ctx.store
    if "job_id" in target:
        job = store.jobs.get(int(target["job_id"]))
        return [job] if job and not store.job_finished(job.job_id) else []
    if "user" in target:
        pattern = str(target["user"])
        return [j for j in store.jobs.values() if fnmatch.fnmatchcase(j.owner, pattern)
                and not store.job_finished(j.job_id)]
    if "name" in target:
        pattern = str(target["name"])
        return [j for j in store.jobs.values() if fnmatch.fnmatchcase(j.name, pattern)
                and not store.job_finished(j.job_id)]
    return []


def _in_range(task_id: int, rng: Any) -> bool:
    first, last, step = (int(v) for v in rng)
    return first <= task_id <= last and (task_id - first) % max(step, 1) == 0


def may_change(ctx: Ctx, job: Job) -> bool:
    user = ctx.user.name
    return job.owner == user or ctx.store.is_operator(user)


def handle_delete(ctx: Ctx) -> dict[str, Any]:
    require_submit_host(ctx.store, ctx.user)
    if ctx.body.get("force") and not ctx.store.is_manager(ctx.user.name):
        return {"results": [{"result": "force_denied"}]}
    results = []
    for target in ctx.body["targets"]:
        # selected when its turn comes: an earlier target of the request may have
        # deleted the job already (qdel 5 5: the second finds no job 5)
        results.extend(_delete_target(ctx, target, _select_tasks(ctx, target)))
    return {"results": results}


def _delete_target(ctx: Ctx, target: dict[str, Any], tasks: list[Task] | None
                   ) -> list[dict[str, Any]]:
    if tasks is None:
        return [{"target": target, "result": "unknown"}]
    out = []
    for job_id in sorted({t.job_id for t in tasks}):
        job = ctx.store.jobs[job_id]
        if not may_change(ctx, job):
            out.append({"job_id": job_id, "result": "denied", "owner": job.owner})
            continue
        mine = [t for t in tasks if t.job_id == job_id]
        out.extend(_delete_tasks(ctx, job, mine, bool(target.get("tasks"))))
    return out


def _delete_tasks(ctx: Ctx, job: Job, tasks: list[Task], by_task: bool
                  ) -> list[dict[str, Any]]:
    out = []
    immediate = False
    for task in tasks:
        active = task.state_enum in ACTIVE_STATES
        ctx.store.transition(ctx.batch, task, Event.DELETE, deleted_by=ctx.user.name)
        if active:
            kill_on_host(ctx, task)
            forced = bool(ctx.body.get("force"))
            if forced:  # qdel -f: gone now, whether or not the execd ever confirms
                finish_task(ctx, task, {"exit_status": 137, "signal": 9, "failed": 100,
                                        "end_time": ctx.now})
            out.append({"job_id": job.job_id, "task_id": task.task_id if job.is_array else None,
                        "result": "forced" if forced else "registered"})
        else:
            immediate = True
            if by_task and job.is_array:
                out.append({"job_id": job.job_id, "task_id": task.task_id, "result": "deleted"})
    if immediate and not (by_task and job.is_array):
        out.append({"job_id": job.job_id, "task_id": None, "result": "deleted"})
    return out


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
    for target, tasks in select_targets(ctx):
        if tasks is None:
            results.append({"target": target, "result": "unknown"})
            continue
        for job_id in sorted({t.job_id for t in tasks}):
            mine = [t for t in tasks if t.job_id == job_id]
            results.append(_hold_job(ctx, ctx.store.jobs[job_id], mine, hold_type, add))
    return {"results": results}


def _hold_job(ctx: Ctx, job: Job, tasks: list[Task], hold_type: str, add: bool
              ) -> dict[str, Any]:
    user = ctx.user.name
    if hold_type == "s":
        allowed = ctx.store.is_manager(user)
    else:
        allowed = (hold_type == "u" and job.owner == user) or ctx.store.is_operator(user)
    if not allowed:
        return {"job_id": job.job_id, "result": "denied", "owner": job.owner}
    for task in tasks:
        if add:
            add_hold(ctx, task, hold_type)
        else:
            remove_hold(ctx, task, hold_type)
    return {"job_id": job.job_id, "result": "modified",
            "task_ids": [t.task_id for t in tasks] if job.is_array else None}


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
    ctx.services.waiters.append(Waiter(ctx.identity, ctx.request_id, ids, unfinished))
    return DEFERRED


def job_results(ctx: Ctx, ids: set[int]) -> dict[int, list[dict[str, Any]]]:
    return {j: [_task_result(t) for t in ctx.store.job_tasks(j)] for j in sorted(ids)}


def _task_result(task: Task) -> dict[str, Any]:
    return {"task_id": task.task_id, "exit_status": task.exit_status, "signal": task.signal,
            "failed": task.failed, "deleted": task.deleted_by is not None,
            "started": task.start_time is not None}


def handle_job_query(ctx: Ctx) -> dict[str, Any]:
    require_known_host(ctx.store, ctx.user)
    store = ctx.store
    wanted = ctx.body.get("job_ids")
    finished = bool(ctx.body.get("include_finished"))
    jobs = [j for j in store.jobs.values()
            if (wanted is None or j.job_id in wanted)
            and (finished or not store.job_finished(j.job_id))]
    with_script = bool(ctx.body.get("with_script"))
    reply: dict[str, Any] = {
        "jobs": [j.to_dict() if with_script else j.summary() for j in jobs],
        "tasks": [t.to_dict() for j in jobs for t in store.job_tasks(j.job_id)]}
    if ctx.body["set_aside"]:  # unreadable in the spool at start-up: qstat -j says why
        reply["set_aside"] = {job_id: why for job_id, why in store.aside_jobs.items()
                              if wanted is None or job_id in wanted}
    if ctx.body.get("explain"):  # qstat -j: why pending jobs wait
        reply["scheduling_info"] = scheduling_info(store, [
            j for j in jobs if any(t.state_enum is State.PENDING
                                   for t in store.job_tasks(j.job_id))])
        _add_suspend_alarms(store, jobs, reply["scheduling_info"])
    return reply


def _add_suspend_alarms(store: Store, jobs: list[Job], info: dict[int, list[str]]) -> None:
    """A job a suspend threshold stopped: 8.1.9's ``queue instance "all.q@vm" is in
    suspend alarm: ...`` first, while its instance is over the threshold."""
    stopped = {j.job_id: [t for t in store.job_tasks(j.job_id)
                          if THRESHOLD_REASON in t.suspend_reasons] for j in jobs}
    if not any(stopped.values()):
        return
    alarms = instance_alarms(store, queue_instances(store.conf, store.hosts, store.qi_states))
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

