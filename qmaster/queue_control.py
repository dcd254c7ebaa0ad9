"""``qmod``: the states of queue instances and of running jobs, as Grid Engine 8.1.9 keeps them.

This module owns the queue instance states a person sets (``d`` disabled, ``s``
suspended, ``E`` error: ``Store.qi_states``) and the ``qmod`` request, whose items it
applies one by one as 8.1.9's qmaster does (``sge_gdi_qmod``):

- an item that is not for jobs only (``-sj`` ...) is first resolved as a queue reference
  (``q``, ``q@host``, ``q@@hostgroup``, wildcards; a bare ``@group`` is no queue); each
  instance found changes state: disable, enable, suspend (and with it every task in it),
  unsuspend, clear the error state, reschedule its jobs;
- otherwise a job id (its tasks, or those of ``N.range`` / ``-t``), or for the job-only
  options a job name pattern over every user's jobs, is acted on task by task: suspend,
  unsuspend, clear error (Eqw -> qw), reschedule;
- an item that names nothing is ``invalid queue "x"`` or ``invalid queue or job "x"``.

Every answer is a line of Grid Engine's text and whether it makes qmod exit 1 (8.1.9 counts
an answer when it is an error that does not carry STATUS_OK, so ``cleared error state of
job 5`` exits 1 and ``unsuspended job 5`` does not). The decisions (rights, what a task's
state allows, the texts) are pure functions; ``handle_qmod`` applies them to the store.

Rights (captured from 8.1.9): managers and operators may do everything; users in a queue's
``owner_list`` may disable, enable, suspend, unsuspend and clear its instances but not
reschedule their jobs; a job's owner may suspend, unsuspend, clear and reschedule (even
with ``-f``) their own jobs. A job that is not rerunnable (``qsub -r n``, or no ``-r`` and
the queue's ``rerun FALSE``) is rescheduled only with ``-f``.
"""
from __future__ import annotations

import fnmatch
from collections import deque
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from common.cluster import (
    QueueInstance, attr, host_value, hostgroups, queue_instances,
)
from common.jobstate import Event, State
from common.qi_letters import QI_STATES
from common.model import Job, Task
from common.objects_conf.ckpt import migrates_on_suspend
from common.objects_conf.host import expand_hostgroup
from common import task_ranges
from qmaster.context import Ctx, request_ranges
from qmaster.execd_link import signal_on_host
from qmaster.host_rights import require_known_host, same_host
from qmaster.lost_hosts import queue_rerun
from qmaster.store import Store

ACTIONS = ("clear", "disable", "enable", "reschedule", "suspend", "unsuspend")
SCOPES = ("any", "job", "queue")  # -s (jobs or queues), -sj (jobs), -sq (queues)
JOB_REASON, QUEUE_REASON = "job", "queue"  # Task.suspend_reasons
# qmod action -> (the state letter it sets or clears, set?, the word 8.1.9 prints)
QUEUE_CHANGES = {"disable": ("d", True, "disabled"), "enable": ("d", False, "enabled"),
                 "suspend": ("s", True, "suspended"), "unsuspend": ("s", False, "unsuspended"),
                 "clear": ("E", False, "no error")}
STARTED = frozenset({State.TRANSFERRING, State.RUNNING, State.SUSPENDED})


@dataclass(frozen=True)
class Answer:
    """One line qmod prints; ``error``: it makes qmod exit 1."""

    text: str
    error: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "error": self.error}


# ---- queue instance states (pure) ------------------------------------------------------
def accepts_new_jobs(states: str, alive: bool = True) -> bool:
    """May a new job be dispatched to a queue instance with these qmod states? Running
    jobs stay where they are in every state."""
    return alive and not set(states) & set(QI_STATES)


def with_state(states: str, letter: str, on: bool) -> str:
    """``states`` with ``letter`` set or cleared, in Grid Engine's order."""
    letters = (set(states) | {letter}) if on else (set(states) - {letter})
    return "".join(c for c in QI_STATES if c in letters)


def state_refusal(store: Store, name: str) -> str:
    """Why no job may be dispatched to queue instance ``name`` now ("" if it may)."""
    states = store.qi_states.get(name, {}).get("states", "")
    if accepts_new_jobs(states):
        return ""
    words = {"d": "disabled", "E": "in error state", "s": "suspended",
             "D": "disabled by calendar", "C": "suspended by calendar",
             "S": "suspended on subordinate"}
    return f"queue instance {name} is " + " and ".join(words[c] for c in states if c in words)


def apply_initial_state(ctx: Ctx, instances: Iterable[QueueInstance]) -> None:
    """queue_conf(5) ``initial_state`` of instances that have just appeared (a queue,
    host group or exec host was added or changed) or whose execd has just come up:
    ``enabled`` and ``disabled`` act as an explicit ``qmod -e``/``qmod -d``, ``default``
    leaves the state as it was."""
    groups = hostgroups(ctx.store.conf)
    for qi in instances:
        pairs = ctx.store.conf["queue"].get(qi.queue) or []
        initial = host_value(pairs, "initial_state", qi.host, groups, "default").strip()
        if initial not in ("enabled", "disabled"):
            continue
        stored = ctx.store.qi_states.get(qi.name, {})
        letters = str(stored.get("states", ""))
        new = with_state(letters, "d", initial == "disabled")
        if new != letters:
            ctx.store.put_qi_state(ctx.batch, qi.name, new, str(stored.get("reason", "")))


def set_queue_error(ctx: Ctx, queue: str, host: str, reason: str) -> None:
    """Put queue instance ``queue@host`` into error state E (a failed prolog or epilog,
    say): no new jobs go there until ``qmod -c`` clears it. ``reason`` is kept for the
    administrator (``qstat -explain E`` in Grid Engine)."""
    name = f"{queue}@{host}"
    states = ctx.store.qi_states.get(name, {}).get("states", "")
    ctx.store.put_qi_state(ctx.batch, name, with_state(states, "E", True), reason)
    ctx.services.job_log("queue error", queue=queue, host=host, reason=reason)


# ---- queue references (pure) -----------------------------------------------------------
def resolve_queue_ref(ref: str, instances: Iterable[QueueInstance],
                      groups: Mapping[str, frozenset[str]]) -> list[QueueInstance]:
    """The instances a ``wc_queue`` names: ``cq``, ``cq@host``, ``cq@@hostgroup``, each
    part a wildcard; host names without case, a short name matching its FQDN. A bare
    ``@hostgroup`` names no queue (8.1.9: ``invalid queue "@allhosts"``)."""
    if not ref or ref.startswith("@"):
        return []
    qpat, _, hpat = ref.partition("@")
    return [qi for qi in instances
            if fnmatch.fnmatchcase(qi.queue, qpat) and _host_matches(qi.host, hpat, groups)]


def _host_matches(host: str, pattern: str, groups: Mapping[str, frozenset[str]]) -> bool:
    if not pattern:
        return True
    if pattern.startswith("@"):
        return any(host in hosts for group, hosts in groups.items()
                   if fnmatch.fnmatchcase(group, pattern))
    if any(c in pattern for c in "*?["):
        return fnmatch.fnmatchcase(host.lower(), pattern.lower())
    return same_host(host, pattern)


def may_modify_queue(user: str, owner_list: str, operator: bool) -> bool:
    """qinstance_check_owner: managers, operators and the queue's owners."""
    owners = owner_list.replace(",", " ").split()
    return operator or (user in owners and owners != ["NONE"])


def queue_change(action: str, name: str, states: str, who: str
                 ) -> tuple[Answer, str | None]:
    """The answer to disable/enable/suspend/unsuspend/clear of one instance and its new
    states (None: nothing changes)."""
    letter, on, word = QUEUE_CHANGES[action]
    if (letter in states) == on:
        return Answer(f'Queue instance "{name}" is already in the specified state: {word}'), None
    return Answer(f'{who} changed state of "{name}" ({word})'), with_state(states, letter, on)


# ---- job tasks (pure) ------------------------------------------------------------------
def job_noun(job_id: int, task_id: int, is_array: bool) -> str:
    return f"job-array task {job_id}.{task_id}" if is_array else f"job {job_id}"


def not_enrolled(job_id: int, task_id: int | None) -> Answer:
    """A task that never started (pending or held): 8.1.9 names it as an array task even
    for a plain job, and the whole job when an array was named without tasks."""
    what = f"job {job_id}" if task_id is None else f"job-array task {job_id}.{task_id}"
    return Answer(f"Modify operation can not be applied on {what} in pending/hold state")


def enrolled(task: Task) -> bool:
    """Has the task left the pending ranges of 8.1.9 (was it ever started)?"""
    return task.state_enum not in (State.PENDING, State.HOLD) or task.restarts > 0 \
        or task.dispatch_time is not None


def plan_suspend(task: Task, noun: str, user: str) -> tuple[Answer | None, str]:
    """qmod -sj of an enrolled task: (answer, effect) with effect "suspend" (send the
    suspend and add the reason), "reason" (add the reason only: the queue already stopped
    it) or "" (nothing)."""
    if JOB_REASON in task.suspend_reasons:
        return Answer(f"{user} - {noun} is already suspended"), ""
    if task.state_enum not in STARTED:  # pending again (Eqw, Rq): 8.1.9 says nothing
        return None, ""
    effect = "reason" if task.suspend_reasons else "suspend"
    return Answer(f"{user} - suspended {noun}"), effect


def plan_unsuspend(task: Task, noun: str, user: str) -> tuple[Answer | None, str]:
    """qmod -usj: effect "resume" (last reason gone), "reason" (the queue still holds it)
    or ""."""
    if JOB_REASON not in task.suspend_reasons:
        if task.state_enum not in STARTED:
            return None, ""
        return Answer(f"{user} - {noun} is already unsuspended"), ""
    left = [r for r in task.suspend_reasons if r != JOB_REASON]
    return Answer(f"{user} - unsuspended {noun}"), "reason" if left else "resume"


def plan_clear(task: Task, job_id: int, is_array: bool, who: str) -> tuple[Answer, str]:
    """qmod -cj: both answers make 8.1.9's qmod exit 1."""
    if task.state_enum is State.ERROR:
        if is_array:
            return Answer(f"{who} cleared error state of job-array task {job_id}."
                          f"{task.task_id}", True), "clear"
        return Answer(f"{who} cleared error state of job {job_id}", True), "clear"
    if is_array:
        return Answer(f"Job-array task {job_id}.{task.task_id} is not in error state",
                      True), ""
    return Answer(f"Job {job_id} is not in error state", True), ""


def plan_reschedule(task: Task, noun: str, rerun: bool | None, queue_rerun: bool,
                    force: bool) -> tuple[Answer | None, str]:
    """qmod -rj: only started tasks; ``rerun`` is the job's ``qsub -r`` (None: the
    queue's ``rerun`` decides). 8.1.9 names the queue "none" in its refusal."""
    if task.state_enum not in STARTED:
        return None, ""
    host = task.host or ""
    if force:
        return Answer(f"Forced rescheduling of {noun} on host {host}"), "reschedule"
    if rerun is False:
        return Answer(f"The {noun} is not restartable"), ""
    if rerun is None and not queue_rerun:
        return Answer(f"The {noun} is running in queue none where jobs are not rerunable."), ""
    return Answer(f"Pushed rescheduling of {noun} on host {host}"), "reschedule"


def invalid(ref: str, action: str, scope: str) -> Answer:
    """8.1.9 says "queue or job" only where a job could have been meant."""
    if scope != "queue" and (scope == "job" or action in ("suspend", "unsuspend")):
        return Answer(f'invalid queue or job "{ref}"', True)
    return Answer(f'invalid queue "{ref}"', True)


# ---- the request -----------------------------------------------------------------------
def handle_qmod(ctx: Ctx) -> dict[str, Any]:
    """Apply the items in order; names of jobs expand at the end, as in 8.1.9."""
    user = ctx.user
    require_known_host(ctx.store, user)
    run = _Run(ctx, bool(ctx.body.get("force")))
    items: deque[dict[str, Any]] = deque(ctx.body["items"])
    while items:
        item = items.popleft()
        items.extend(run.item(item))
    return {"answers": [a.to_dict() for a in run.answers]}


class _Run:
    """One qmod request: the caller, the instances and the answers so far."""

    def __init__(self, ctx: Ctx, force: bool) -> None:
        self.ctx, self.store, self.force = ctx, ctx.store, force
        user = ctx.user
        self.user = user.name
        self.who = f"{user.name}@{user.host}" if user.host else user.name
        self.operator = ctx.store.is_operator(user.name)
        self.answers: list[Answer] = []
        self.instances = queue_instances(self.store.conf, self.store.hosts,
                                         self.store.qi_states)
        groups = hostgroups(self.store.conf)
        self.groups = {g: frozenset(expand_hostgroup(g, groups)) for g in groups}

    def item(self, item: dict[str, Any]) -> list[dict[str, Any]]:
        """Act on one item; returns items to add at the end (jobs a name stands for)."""
        ref, action, scope = str(item["ref"]), str(item["action"]), str(item["scope"])
        if scope != "job":
            found = resolve_queue_ref(ref, self.instances, self.groups)
            if found:
                for qi in found:
                    self.queue(qi, action)
                return []
        if scope != "queue" and action != "disable" and action != "enable":
            if ref.isdigit():
                if self.job(int(ref), item.get("tasks"), action):
                    return []
            elif scope == "job":
                ids = sorted(j.job_id for j in self.store.jobs.values()
                             if fnmatch.fnmatchcase(j.name, ref)
                             and not self.store.job_finished(j.job_id))
                if ids:
                    return [{**item, "ref": str(i)} for i in ids]
        self.answers.append(invalid(ref, action, scope))
        return []

    # ---- queue instances -----------------------------------------------------------
    def queue(self, qi: QueueInstance, action: str) -> None:
        owners = attr(self.store.conf["queue"].get(qi.queue, []), "owner_list", "NONE")
        if not may_modify_queue(self.user, owners, self.operator):
            self.answers.append(Answer(
                f'{self.user} - you have no permission to modify queue "{qi.name}"', True))
            return
        if action == "reschedule":
            self.reschedule_queue(qi)
            return
        current = self.store.qi_states.get(qi.name, {})
        states = str(current.get("states", ""))
        answer, new = queue_change(action, qi.name, states, self.who)
        self.answers.append(answer)
        if new is None:
            return
        self.store.put_qi_state(self.ctx.batch, qi.name, new, str(current.get("reason", "")))
        if action in ("suspend", "unsuspend"):
            for task in self.tasks_in(qi):
                self.queue_reason(task, action == "suspend")

    def tasks_in(self, qi: QueueInstance) -> list[Task]:
        return sorted((t for t in self.store.active_tasks()
                       if t.queue == qi.queue and t.host == qi.host
                       and t.state_enum in STARTED),
                      key=lambda t: (t.job_id, t.task_id))

    def queue_reason(self, task: Task, on: bool) -> None:
        """A suspended instance stops its tasks; unsuspended, it resumes those that
        nothing else holds (a task suspended with -sj stays suspended)."""
        reasons = [r for r in task.suspend_reasons if r != QUEUE_REASON]
        if on:
            self.suspend(task, reasons + [QUEUE_REASON])
        else:
            self.unsuspend(task, reasons)

    def reschedule_queue(self, qi: QueueInstance) -> None:
        if not self.operator:
            self.answers.append(Answer(
                f"{self.user} - you have no permission to reschedule jobs of queue instance "
                f'"{qi.name}"', True))
            return
        for task in self.tasks_in(qi):
            job = self.store.jobs[task.job_id]
            self.job_task(job, task, "reschedule")

    # ---- jobs ----------------------------------------------------------------------
    def job(self, job_id: int, ranges: Any, action: str) -> bool:
        """Act on the job's selected tasks; False when it has none (or no such job)."""
        job = self.store.jobs.get(job_id)
        if job is None or self.store.job_finished(job_id):
            return False
        if job.owner != self.user and not self.operator:
            # refused before any of its tasks is looked at (issue 26: another user's
            # 75,000-task array must not cost 75,000 answers), in one answer
            self.job_task(job, None, action)
            return True
        ranges = request_ranges({"tasks": ranges})
        # (unenrolled pending ids as the tasks they stand for: they get answers only)
        tasks = [t for t in self.store.all_tasks(job_id) if t.state_enum is not State.FINISHED
                 and (not ranges or task_ranges.contains_any(ranges, t.task_id))]
        if not tasks:
            return False
        started = [t for t in tasks if enrolled(t)]
        waiting = [t for t in tasks if not enrolled(t)]
        for task in started:
            self.job_task(job, task, action)
        if job.is_array and not ranges:
            if not started:  # the whole array still waits: one answer for the job
                self.job_task(job, None, action)
            return True
        for task in waiting:
            self.job_task(job, task, action)
        return True

    def job_task(self, job: Job, task: Task | None, action: str) -> None:
        if job.owner != self.user and not self.operator:
            self.answers.append(Answer(
                f'{self.user} - you have no permission to modify job "{job.job_id}"', True))
            return
        if task is None or not enrolled(task):
            self.answers.append(not_enrolled(job.job_id, task.task_id if task else None))
            return
        noun = job_noun(job.job_id, task.task_id, job.is_array)
        answer: Answer | None
        if action == "suspend":
            answer, effect = plan_suspend(task, noun, self.user)
        elif action == "unsuspend":
            answer, effect = plan_unsuspend(task, noun, self.user)
        elif action == "clear":
            answer, effect = plan_clear(task, job.job_id, job.is_array, self.who)
        else:
            rerun = queue_rerun(self.store.conf, task.queue or "", task.host or "")
            answer, effect = plan_reschedule(task, noun, job.opts.get("rerun"), rerun,
                                             self.force)
        if answer is not None:
            self.answers.append(answer)
        self.apply(task, action, effect)

    def apply(self, task: Task, action: str, effect: str) -> None:
        reasons = list(task.suspend_reasons)
        if effect in ("suspend", "reason") and action == "suspend":
            self.suspend(task, reasons + [JOB_REASON])
        elif effect in ("resume", "reason") and action == "unsuspend":
            self.unsuspend(task, [r for r in reasons if r != JOB_REASON])
        elif effect == "clear":
            self.store.transition(self.ctx.batch, task, Event.CLEAR_ERROR, error_reason="")
        elif effect == "reschedule":
            self.store.put_task(self.ctx.batch, task, reschedule=True)
            signal_on_host(self.ctx, task, "kill")

    def suspend(self, task: Task, reasons: list[str]) -> None:
        set_suspend_reasons(self.ctx, task, reasons)

    def unsuspend(self, task: Task, reasons: list[str]) -> None:
        set_suspend_reasons(self.ctx, task, reasons)


def set_suspend_reasons(ctx: Ctx, task: Task, reasons: list[str]) -> None:
    """Keep ``reasons`` (Task.suspend_reasons): a running task given one is stopped on
    its host, a suspended one left with none runs again. A checkpointed job whose
    ``when`` has ``x`` is migrated instead (sge_ckpt(5)): aborted on its host and
    rescheduled, to start again with RESTARTED=1."""
    if reasons and task.state_enum is State.RUNNING and _migrates(ctx, task):
        if not task.reschedule:
            ctx.store.put_task(ctx.batch, task, reschedule=True)
            signal_on_host(ctx, task, "migrate")
            ctx.services.job_log("migrated: checkpointed job suspended", job_id=task.job_id,
                                 task_id=task.task_id, reasons=reasons)
        return
    if reasons and task.state_enum is State.RUNNING:
        ctx.store.transition(ctx.batch, task, Event.SUSPEND, suspend_reasons=reasons)
        signal_on_host(ctx, task, "suspend")
    elif not reasons and task.state_enum is State.SUSPENDED:
        ctx.store.transition(ctx.batch, task, Event.UNSUSPEND, suspend_reasons=[])
        signal_on_host(ctx, task, "resume")
    elif reasons != task.suspend_reasons:
        # already stopped, or not started yet (the execd learns it at start)
        ctx.store.put_task(ctx.batch, task, suspend_reasons=reasons)


def _migrates(ctx: Ctx, task: Task) -> bool:
    job = ctx.store.jobs.get(task.job_id)
    name = job.opts.get("checkpoint_name") if job is not None else None
    pairs = (ctx.store.conf.get("ckpt") or {}).get(name) if name else None
    return pairs is not None and job is not None and \
        migrates_on_suspend(pairs, job.opts.get("checkpoint_occasion"))


def suspend_for(ctx: Ctx, task: Task, reason: str) -> None:
    """Add one suspend reason (the cell's own: threshold, subordinate, calendar)."""
    if reason not in task.suspend_reasons:
        set_suspend_reasons(ctx, task, list(task.suspend_reasons) + [reason])


def resume_for(ctx: Ctx, task: Task, reason: str) -> None:
    """Drop one suspend reason; the task runs again when it was the last."""
    if reason in task.suspend_reasons:
        set_suspend_reasons(ctx, task, [r for r in task.suspend_reasons if r != reason])
