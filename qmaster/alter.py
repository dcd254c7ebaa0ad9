"""qalter: changing the requests of pending jobs (``-l``, ``-q``, ``-p``, ``-P``, ``-N``,
``-pe``, ``-hold_jid``), the task concurrency of array jobs, running ones too
(``-tc``), and the policies' inputs of pending and running ones (``-p``,
``-ot``: operators and managers only, ``-js``, ``-dl``: members of ``deadlineusers``
only), the checkpointing environment (``-ckpt``, ``-c``), and ``-w e|w|n|v|p``: the job
as it would become verified as ``qsub -w`` verifies a new one (``v``/``p``: verified
only, nothing changed), with Grid Engine's permission rules and answers (from a submit
host only, ``qmaster.host_rights``)."""
from __future__ import annotations

from typing import Any

from common import jsv
from common.jobspec import JobSpecError, check_job_options
from common.jobstate import State
from common.model import Job, UserInfo
from qmaster.array_deps import array_dependency_refusal, set_array_dependency
from qmaster.context import Ctx, RequestError
from qmaster.host_rights import require_submit_host
from qmaster.jobs import (add_hold, add_ranges_hold, may_change, remove_hold,
                          remove_ranges_hold, REQUEST_JOBS, TargetWalk,
                          unfinished_predecessors)
from qmaster.conf.project import check_job_project
from qmaster.submit_checks import check_submission, is_deadline_user, verify_job

# the request options qalter may change, with Grid Engine's name for them in its answers
ALTER_NAMES = {"hard_resources": "hard resource list", "soft_resources": "soft resource list",
               "hard_queues": "hard queue list", "soft_queues": "soft queue list",
               "job_name": "job name", "pe": "parallel environment", "pe_ranges": "slot range",
               "project": "project", "priority": "", "hold_jid": "",
               "task_concurrency": "task concurrency", "reserve": "reservation behaviour",
               "start_time": "start time", "hold_jid_ad": "",
               # 8.1.9's words for the rest of qalter(1)'s options (captured), in the
               # order 8.1.9 answers several at once (account, merge, stdout, restart)
               "account": "account", "cwd": "working directory",
               "stderr_paths": "stderr path list", "merge_output": "output merge behaviour",
               "mail_list": "mail list", "mail_options": "mail options",
               "notify": "notify behaviour", "stdout_paths": "stdout path list",
               "stdin_paths": "stdin path list", "master_queues": "master hard queue list",
               "rerun": "restart behaviour", "shell": "shell list", "env": "environment",
               "context": "context", "checkpoint_name": "checkpointing environment",
               # qalter -c: 8.1.9 answers nothing (and keeps the old value: captured,
               # tests/data/reference/qalter/c-*); here it takes effect, as qalter(1) says
               "checkpoint_occasion": "", "checkpoint_interval": ""}
# 8.1.9's answer to qalter -w of a job that is not pending without holds
VERIFY_HELD = "verification: job is already running or is held"
ALTERABLE_STATES = (State.PENDING, State.HOLD)
# what is changed on running jobs too: the policies' inputs and -tc, and the options that
# take effect when the job is started again (8.1.9 changes all of these on a running job,
# captured: tests/data/reference/qsub/qalter-running-*). -l, -q, -pe and -P, which 8.1.9
# also changes, are refused ("can't modify running jobs"): the slots and consumables a
# running task holds are booked by its requests, which must not change under it
RUNNING_ALTERABLE = frozenset({
    "priority", "override_tickets", "job_share", "deadline", "task_concurrency",
    "job_name", "account", "cwd", "stdout_paths", "stderr_paths", "stdin_paths",
    "merge_output", "mail_list", "mail_options", "notify", "rerun", "shell", "env",
    "context", "context_add", "context_delete", "hold_jid", "hold_jid_ad",
    "master_queues", "start_time", "reserve"})


def handle_alter(ctx: Ctx) -> dict[str, Any]:
    """Change the requests of pending jobs; one result per job with Grid Engine's lines."""
    require_submit_host(ctx.store, ctx.user)
    changes = ctx.body["changes"]
    if not changes:  # wire.decode allowed only the alterable fields (common.jobspec)
        raise RequestError("malformed", "alter: no job attributes to change")
    results: list[dict[str, Any]] = []
    walk = TargetWalk(ctx, REQUEST_JOBS, lambda job: may_change(ctx, job))
    for target, selection in walk:
        if selection is None:
            results.append({"target": target, "result": "unknown"})
            continue
        for sel in selection:  # by job id
            results.append(_alter_job(ctx, sel.job, changes, sel.denied))
    return walk.reply(results)


def _alter_refusal(ctx: Ctx, job: Job, changes: dict[str, Any], denied: bool
                   ) -> str | None:
    """Why Grid Engine refuses this change of ``job``, or None (``denied``: the
    requester may not change the job, as TargetWalk found before looking at its tasks)."""
    user = ctx.user.name
    if denied:
        return (f'denied: "{user}" must be at least owner of job {job.job_id} '
                "to change job attributes")
    if not changes.keys() <= RUNNING_ALTERABLE and any(
            t.state_enum not in ALTERABLE_STATES for t in ctx.store.enrolled_tasks(job.job_id)
            if t.state_enum is not State.FINISHED):
        return f"job {job.job_id} can't modify running jobs"
    refusal = jsv.alter_refusal(ctx.store.conf_value("conf", "global", "jsv_url", "none"),
                                ctx.store.conf_value("conf", "global", "jsv_allowed_mod",
                                                     jsv.DEFAULT_ALLOWED_MOD), list(changes))
    if refusal is not None:  # a server JSV is configured: only jsv_allowed_mod (8.1.9)
        return refusal
    operator = ctx.store.is_operator(user)
    if "override_tickets" in changes and not operator:
        return f'denied: "{user}" must be operator to change amount of override tickets'
    priority = int(changes.get("priority", job.priority) or 0)
    if priority > job.priority and not operator:
        return f'denied: "{user}" must be operator to increase job priority'
    if "deadline" in changes and not is_deadline_user(ctx.store.conf, user):
        return f'job rejected: the user "{user}" is not a deadline initiation user'
    return None


def _altered_options(ctx: Ctx, job: Job, changes: dict[str, Any]) -> dict[str, Any] | str:
    """The job's options after the change, as the submission checks store them (-l, -q,
    -pe checked on the job as it would become), or the refusal."""
    if changes.get("task_concurrency") and not job.opts.get("array"):  # 8.1.9's words
        return 'invalid option argument "task concurrency"'
    ckpt = changes.get("checkpoint_name")
    if ckpt and ckpt not in ctx.store.conf.get("ckpt", {}):  # (qalter's words, not qsub's)
        return f'denied: checkpointing environment "{ckpt}" does not exist'
    changes = _with_context(job, changes)
    try:  # the whole job as it would become passes the job description again
        altered = check_job_options({**job.opts, **changes, "verify_mode": "n"})
        verdict = check_submission(ctx.store, altered, None, operator=True)
        if "project" in changes:
            check_job_project(ctx.store.conf, job.owner, job.group, altered)
    except JobSpecError as err:
        return err.text
    except RequestError as err:
        return err.message
    refusal = array_dependency_refusal(ctx.store, altered, job.owner, job.job_id)
    if refusal is not None:  # -hold_jid_ad (qmaster.array_deps), 8.1.9's words
        return refusal
    return {**verdict.opts, "verify_mode": job.opts.get("verify_mode", "n")}


def _with_context(job: Job, changes: dict[str, Any]) -> dict[str, Any]:
    """qalter -ac/-dc on the job's context as it is (-sc, ``context``, replaces it)."""
    if "context_add" not in changes and "context_delete" not in changes:
        return changes
    context = dict(changes.get("context", job.opts.get("context") or {}))
    context.update(changes.get("context_add") or {})
    for name in changes.get("context_delete") or []:
        context.pop(name, None)
    rest = {k: v for k, v in changes.items() if k not in ("context_add", "context_delete")}
    return {**rest, "context": context}


def _alter_job(ctx: Ctx, job: Job, request: dict[str, Any], denied: bool
               ) -> dict[str, Any]:
    mode = request.get("verify_mode")
    changes = {k: v for k, v in request.items() if k != "verify_mode"}
    refusal = _alter_refusal(ctx, job, changes, denied)
    altered = _altered_options(ctx, job, changes) if refusal is None else refusal
    if isinstance(altered, str):
        return _denied(job, [altered])
    verified = _verification(ctx, job, altered, mode)
    if mode in ("v", "p") or isinstance(verified, str):  # -w v/p changes nothing
        return verified if isinstance(verified, dict) else _denied(job, [verified])
    if mode is not None:
        altered["verify_mode"] = mode
    result = _modify(ctx, job, changes, altered)
    if verified is not None:  # -w e/w: the job may run nowhere, or is not pending
        result["messages"] += verified
        result["status"] = int(verified != [VERIFY_HELD])
    return result


def _denied(job: Job, lines: list[str]) -> dict[str, Any]:
    return {"job_id": job.job_id, "result": "denied", "messages": lines}


def _verification(ctx: Ctx, job: Job, altered: dict[str, Any], mode: str | None
                  ) -> dict[str, Any] | list[str] | str | None:
    """``-w``: ``v``/``p`` the result to answer (nothing is changed); ``e``/``w`` the
    lines to add to the answer (``e``: a refusal instead), None when nothing to add."""
    if mode not in ("e", "w", "v", "p"):
        return None
    if _held_or_running(ctx, job):  # (8.1.9 verifies only a job waiting to be placed)
        return {"job_id": job.job_id, "result": "verified", "messages": [VERIFY_HELD]} \
            if mode in ("v", "p") else [VERIFY_HELD]
    owner = UserInfo(job.owner, job.uid, job.group, job.gid)
    try:
        verdict = verify_job(ctx.store, {**altered, "verify_mode": mode}, mode, owner,
                             job.job_id)
    except RequestError as err:  # -w e: no suitable queues; -w v/p: the reasons
        return {"job_id": job.job_id, "result": "denied",
                "messages": err.message.splitlines()} if mode in ("v", "p") else err.message
    if mode in ("v", "p"):
        return {"job_id": job.job_id, "result": "verified",
                "messages": [verdict.verification]}
    return verdict.notes or None


def _held_or_running(ctx: Ctx, job: Job) -> bool:
    """Is no task of the job just waiting to be placed (a hold, or started)?"""
    ranges = ctx.store.ranges.get(job.job_id)
    if ranges is not None and ranges.pending and ranges.holds:
        return True
    return any(t.state_enum is not State.PENDING for t in ctx.store.enrolled_tasks(job.job_id)
               if t.state_enum is not State.FINISHED)


def _modify(ctx: Ctx, job: Job, changes: dict[str, Any], altered: dict[str, Any]
            ) -> dict[str, Any]:
    """Store the job's new options and answer for each change, in 8.1.9's words."""
    old_ad = ctx.store.ad_predecessor_ids(job)
    job = ctx.store.replace_job_opts(ctx.batch, job, altered)
    # new versions: orders computed from the old requests are refused
    if ctx.store.ranges[job.job_id].pending:
        ctx.store.change_ranges(ctx.batch, job.job_id)
    for task in ctx.store.enrolled_tasks(job.job_id):
        if task.state_enum in ALTERABLE_STATES:
            ctx.store.put_task(ctx.batch, task)
    lines = _policy_lines(ctx, job, changes)
    changes = _with_context(job, changes)  # (-ac/-dc answer as a new context)
    lines += [f"modified {ALTER_NAMES[key]} of job {job.job_id}"
              for key in ALTER_NAMES if key in changes and ALTER_NAMES[key]]
    if "hold_jid" in changes:
        lines.append(_rechain_predecessors(ctx, job))
    if "hold_jid_ad" in changes:
        blocking = set_array_dependency(ctx, job, old_ad)
        lines.append(_dependency_answer(ctx, job, "job id hold array list", "hold_jid_ad",
                                        blocking))
    return {"job_id": job.job_id, "result": "modified", "messages": lines}


def _policy_lines(ctx: Ctx, job: Job, changes: dict[str, Any]) -> list[str]:
    """8.1.9's answers for -ot, -p, -js and -dl, in its order (before the others)."""
    who, job_id = f"{ctx.user.name}@{ctx.user.host}", job.job_id
    lines = []
    if "override_tickets" in changes:
        lines.append(f"{who} sets override tickets of job {job_id} to "
                     f"{int(job.opts.get('override_tickets') or 0)}")
    if "priority" in changes:
        lines.append(f"{who} sets scheduling priority of job {job_id} to {job.priority}")
    if "job_share" in changes:
        lines.append(f"{who} sets job share of job {job_id} to "
                     f"{int(job.opts.get('job_share') or 0)}")
    if "deadline" in changes:
        lines.append(f"modified deadline time of job {job_id}")
    return lines


def _rechain_predecessors(ctx: Ctx, job: Job) -> str:
    """Set or drop the ``-hold_jid`` hold after a new predecessor list; Grid Engine's
    answer names the blocking jobs and those that no longer exist."""
    blocking = unfinished_predecessors(ctx, job)
    (add_ranges_hold if blocking else remove_ranges_hold)(ctx, job.job_id, "h")
    for task in ctx.store.enrolled_tasks(job.job_id):
        if task.state_enum not in ALTERABLE_STATES:
            continue
        if blocking:
            add_hold(ctx, task, "h")
        else:
            remove_hold(ctx, task, "h")
    ctx.store.hold_for_dependency(job.job_id, bool(blocking))
    return _dependency_answer(ctx, job, "job id hold list", "hold_jid", blocking)


def _dependency_answer(ctx: Ctx, job: Job, what: str, option: str, blocking: list[int]
                       ) -> str:
    """8.1.9's answer to qalter -hold_jid and -hold_jid_ad: the jobs that block, and those
    named that no longer exist."""
    exited = [str(r) for r in job.opts.get(option) or []
              if r.isdigit() and int(r) not in ctx.store.jobs]
    return (f"modified {what} of job {job.job_id}\n"
            f"   blocking jobs: {','.join(map(str, blocking)) or 'NONE'}\n"
            f"   exited jobs:   {','.join(exited) or 'NONE'}")
