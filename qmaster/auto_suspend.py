"""What the cell does to queue instances and jobs by itself: suspend thresholds
(queue_conf(5) ``suspend_thresholds``, ``nsuspend``, ``suspend_interval``),
subordination (``subordinate_list``, decided by ``common.subordination``) and calendars
(``calendar``, calendar_conf(5), decided by ``common.calendar_state``).

8.1.9 (tests/data/reference/load/README.md, section 5): while an instance is over one
of its suspend thresholds (state ``A``) it suspends ``nsuspend`` of its running jobs,
the most recently started first, at once and then every ``suspend_interval``; the jobs
show ``T``. Once no threshold is exceeded it resumes ``nsuspend`` of them per interval,
the one suspended last first, the first step at once. Grid Engine's scheduler sends
these as orders; here the qmaster takes the steps on its one-second heartbeat, from the
same load values the scheduler sees (``Task.suspend_reasons`` "threshold").

``threshold_steps`` decides (pure); ``check_suspend_thresholds`` applies.

Subordination is applied whole on every heartbeat: each host's wanted state
(``host_subordination``) against the stored one: the instances suspended queue-wise get
state ``S`` and their tasks the reason "subordinate"; tasks suspended slot-wise the
reason "slot-subordinate". 8.1.9 acts in the same second as the dispatch or the end that
changes the count; here within the next heartbeat (one second).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime
from typing import Callable, Sequence

from common.cluster import QueueInstance, attr, host_value, hostgroups
from common.conf_values import seconds_or
from common.jobstate import State
from common.calendar_state import calendar_state
from common.model import Task
from common.placement.load_alarm import exceeded
from common.subordination import (
    QUEUE_WISE, SLOT_WISE, HostTask, SubordinateError, Subordinates, host_subordination,
    parse_subordinates,
)
from qmaster.context import Ctx
from qmaster.placement_view import instance_alarms, instances_of
from qmaster.queue_control import resume_for, suspend_for, with_state

THRESHOLD_REASON = "threshold"  # Task.suspend_reasons: qstat shows T
# the cell's queue instances, worked out once per heartbeat when a check first needs them
Instances = Callable[[], list[QueueInstance]]


@dataclass(frozen=True)
class Steps:
    suspend: list[Task]
    resume: list[Task]


def threshold_steps(alarmed: bool, tasks: Sequence[Task], last_step: float | None,
                    now: float, nsuspend: int, interval: float) -> Steps:
    """What one instance does now: ``tasks`` are the tasks whose master queue instance
    it is; ``last_step`` the time of its last suspension or resumption (None: none)."""
    if last_step is not None and now - last_step < interval:
        return Steps([], [])
    count = max(nsuspend, 0)
    if alarmed:
        running = [t for t in tasks if t.state_enum is State.RUNNING
                   and THRESHOLD_REASON not in t.suspend_reasons]
        running.sort(key=lambda t: (t.start_time or 0.0, t.job_id, t.task_id), reverse=True)
        return Steps(running[:count], [])
    held = [t for t in tasks if THRESHOLD_REASON in t.suspend_reasons]
    held.sort(key=lambda t: (t.start_time or 0.0, t.job_id, t.task_id))
    return Steps([], held[:count])


def check_suspend_thresholds(ctx: Ctx, last_steps: dict[str, float],
                             instances: Instances) -> None:
    """Take the steps every instance is due (``last_steps``: instance -> time of its
    last step, kept by the caller between calls)."""
    store = ctx.store
    active = [t for t in store.active_tasks() if t.queue and t.host
              and t.state_enum in (State.RUNNING, State.SUSPENDED)]
    if not any(THRESHOLD_REASON in t.suspend_reasons for t in active) and not any(
            _has_thresholds(attr(pairs, "suspend_thresholds", "NONE"))
            for pairs in store.conf["queue"].values()):
        last_steps.clear()
        return  # the usual cell: nothing to look at every second
    here = instances()
    alarms = instance_alarms(store, here)
    groups = hostgroups(store.conf)
    by_instance: dict[tuple[str, str], list[Task]] = {}
    for task in active:
        by_instance.setdefault((task.queue or "", task.host or ""), []).append(task)
    for name in set(last_steps) - {qi.name for qi in here}:
        del last_steps[name]  # an instance that is gone
    for qi in here:
        if not qi.alive:
            # an unknown host reports no load: its alarm (8.1.9's "au") says nothing about
            # its jobs, which keep the state they had until its execd is back
            continue
        key = (qi.queue, qi.host)
        tasks = by_instance.get(key, [])
        alarmed = exceeded(alarms[key][1]) is not None
        if not alarmed and not any(THRESHOLD_REASON in t.suspend_reasons for t in tasks):
            last_steps.pop(qi.name, None)
            continue
        pairs = store.conf["queue"].get(qi.queue) or []
        nsuspend = _int(host_value(pairs, "nsuspend", qi.host, groups, "1"))
        interval = seconds_or(host_value(pairs, "suspend_interval", qi.host, groups,
                                         "00:05:00"), 300.0)
        steps = threshold_steps(alarmed, tasks, last_steps.get(qi.name), ctx.now,
                                nsuspend, interval)
        for task in steps.suspend:
            suspend_for(ctx, task, THRESHOLD_REASON)
            ctx.services.job_log("suspended by suspend threshold", job_id=task.job_id,
                                 task_id=task.task_id, queue=qi.queue, host=qi.host)
        for task in steps.resume:
            resume_for(ctx, task, THRESHOLD_REASON)
            ctx.services.job_log("resumed: suspend threshold no longer exceeded",
                                 job_id=task.job_id, task_id=task.task_id, queue=qi.queue,
                                 host=qi.host)
        if steps.suspend or steps.resume:
            last_steps[qi.name] = ctx.now


def _has_thresholds(text: str) -> bool:
    return text.strip().upper() != "NONE"


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        return 1


def check_subordination(ctx: Ctx, instances: Instances) -> None:
    """Bring every host's subordinated instances and tasks to what its queues'
    subordinate lists want now."""
    store = ctx.store
    wanted_lists = {name: attr(pairs, "subordinate_list", "NONE")
                    for name, pairs in store.conf["queue"].items()}
    active = [t for t in store.active_tasks() if t.queue and t.host
              and t.state_enum in (State.TRANSFERRING, State.RUNNING, State.SUSPENDED)]
    if all(v.strip().upper() == "NONE" for v in wanted_lists.values()) \
            and not any(_subordinated(t) for t in active) \
            and not any("S" in s.get("states", "") for s in store.qi_states.values()):
        return
    groups = hostgroups(store.conf)
    here = instances()
    by_host: dict[str, list] = {}
    for qi in here:
        by_host.setdefault(qi.host, []).append(qi)
    tasks_by_host: dict[str, list[Task]] = {}
    for task in active:
        tasks_by_host.setdefault(task.host or "", []).append(task)
    for host, here in by_host.items():
        lists: dict[str, Subordinates] = {}
        for qi in here:
            text = host_value(store.conf["queue"][qi.queue], "subordinate_list", host,
                              groups, "NONE")
            try:
                lists[qi.queue] = parse_subordinates(text)
            except (SubordinateError, ValueError):
                lists[qi.queue] = None  # qconf checks the syntax; never stop the others
        tasks = tasks_by_host.get(host, [])
        wanted = host_subordination(
            lists, {qi.queue: qi.slots for qi in here},
            {qi.queue: store.used_slots.get((qi.queue, host), 0) for qi in here},
            [_host_task(t) for t in tasks])
        for qi in here:
            on = qi.queue in wanted.suspended_queues
            states = store.qi_states.get(qi.name, {})
            letters = str(states.get("states", ""))
            if ("S" in letters) != on:
                store.put_qi_state(ctx.batch, qi.name, with_state(letters, "S", on),
                                   str(states.get("reason", "")))
                ctx.services.job_log("queue instance suspended on subordinate" if on else
                                     "queue instance no longer suspended on subordinate",
                                     queue=qi.queue, host=host)
        suspended_queues = wanted.suspended_queues
        for task in tasks:
            _want(ctx, task, QUEUE_WISE, task.queue in suspended_queues)
            _want(ctx, task, SLOT_WISE, task.key in wanted.suspended_tasks)


def _subordinated(task: Task) -> bool:
    return QUEUE_WISE in task.suspend_reasons or SLOT_WISE in task.suspend_reasons


def _host_task(task: Task) -> HostTask:
    slots = sum(int(g[2]) for g in task.granted if g[0] == task.queue and g[1] == task.host) \
        or task.slots
    return HostTask(task.key, task.queue or "", slots,
                    task.start_time or task.dispatch_time or 0.0,
                    suspended_otherwise=bool(set(task.suspend_reasons) - {SLOT_WISE}),
                    slot_suspended=SLOT_WISE in task.suspend_reasons)


def _want(ctx: Ctx, task: Task, reason: str, on: bool) -> None:
    task = ctx.store.tasks.get(task.key) or task  # (a change stores a new object)
    if on and reason not in task.suspend_reasons:
        suspend_for(ctx, task, reason)
        ctx.services.job_log("suspended by subordination", job_id=task.job_id,
                             task_id=task.task_id, queue=task.queue, host=task.host,
                             kind=reason)
    elif not on and reason in task.suspend_reasons:
        resume_for(ctx, task, reason)
        ctx.services.job_log("resumed: subordination no longer applies",
                             job_id=task.job_id, task_id=task.task_id, queue=task.queue,
                             host=task.host, kind=reason)


CALENDAR_REASON = "calendar"  # Task.suspend_reasons: a calendar suspends the instance
_CALENDAR_LETTER = {"off": "D", "suspended": "C"}


def check_calendars(ctx: Ctx, when: datetime, instances: Instances) -> None:
    """Each instance's calendar state at local time ``when``: ``off`` disables it (state
    ``D``: no new jobs, running ones go on), ``suspended`` suspends it and its jobs
    (state ``C``, jobs ``S``); ``on`` or no calendar clears both (8.1.9 switches at the
    second the calendar names, captured in tests/data/reference/calendar/)."""
    store = ctx.store
    calendars = store.conf.get("calendar") or {}
    names = {q: attr(pairs, "calendar", "NONE") for q, pairs in store.conf["queue"].items()}
    if all(n.strip().upper() == "NONE" for n in names.values()) and not any(
            set(s.get("states", "")) & set("CD") for s in store.qi_states.values()):
        return
    groups = hostgroups(store.conf)
    cache: dict[str, str] = {}
    by_instance: dict[tuple[str, str], list[Task]] = {}
    for task in store.active_tasks():
        if task.state_enum in (State.TRANSFERRING, State.RUNNING, State.SUSPENDED):
            by_instance.setdefault((task.queue or "", task.host or ""), []).append(task)
    for qi in instances():
        name = host_value(store.conf["queue"][qi.queue], "calendar", qi.host, groups, "NONE")
        state = cache.get(name)
        if state is None:
            state = cache[name] = _calendar_now(calendars.get(name), when)
        wanted = _CALENDAR_LETTER.get(state, "")
        stored = store.qi_states.get(qi.name, {})
        letters = str(stored.get("states", ""))
        new = letters
        for letter in "CD":
            new = with_state(new, letter, letter == wanted)
        if new != letters:
            store.put_qi_state(ctx.batch, qi.name, new, str(stored.get("reason", "")))
            ctx.services.job_log("calendar changed queue instance", queue=qi.queue,
                                 host=qi.host, calendar=name, state=state)
        for task in by_instance.get((qi.queue, qi.host), []):
            _want(ctx, task, CALENDAR_REASON, wanted == "C")


def _calendar_now(pairs: list[list[str]] | None, when: datetime) -> str:
    if not pairs:
        return "on"  # NONE, or a calendar deleted since (qconf keeps references)
    try:
        return calendar_state(attr(pairs, "year", "NONE"), attr(pairs, "week", "NONE"),
                              when)[0]
    except ValueError:
        return "on"  # qconf checks calendars; a bad one must not stop the others


CELL_REASONS = frozenset({THRESHOLD_REASON, QUEUE_WISE, SLOT_WISE, CALENDAR_REASON})


def release_orphans(ctx: Ctx, instances: Instances) -> None:
    """The reasons the cell itself gave a task (threshold, subordination, calendar) end
    with the task's queue instance: a host taken out of the queue's hostlist while the
    task runs, a queue deleted. Nothing else would ever take them back."""
    store = ctx.store
    held = [t for t in store.active_tasks() if CELL_REASONS & set(t.suspend_reasons)]
    if not held:
        return
    present = {(qi.queue, qi.host) for qi in instances()}
    for task in held:
        if (task.queue, task.host) not in present:
            for reason in CELL_REASONS & set(task.suspend_reasons):
                resume_for(ctx, store.tasks.get(task.key) or task, reason)
            ctx.services.job_log("suspend reasons of a gone queue instance dropped",
                                 job_id=task.job_id, task_id=task.task_id, queue=task.queue,
                                 host=task.host)


def heartbeat(ctx: Ctx, last_steps: dict[str, float], when: datetime) -> None:
    """Every check of one second, sharing the queue instances (for the instance names,
    hosts and whether a host is up; the states each check reads from the store)."""
    store = ctx.store
    instances: Instances = functools.cache(lambda: instances_of(store))
    release_orphans(ctx, instances)
    check_suspend_thresholds(ctx, last_steps, instances)
    check_subordination(ctx, instances)
    check_calendars(ctx, when, instances)
