"""Hosts that stopped reporting, and what becomes of their jobs (pure).

sge_conf(5): a host whose execd has not been heard of for ``max_unheard`` (a global value
only) goes to state unknown (``u``). ``reschedule_unknown`` (global, a host's own
configuration may override it; 00:00:00 never) later, the jobs on it that may run again
are rescheduled: those with the rerun flag (``qsub -r y``, or no ``-r`` and the queue's
``rerun TRUE``). ``qmaster_params ENABLE_RESCHEDULE_KILL`` also ends the others, which
cannot run again; a parallel job is rescheduled only when its master host is lost unless
``ENABLE_RESCHEDULE_SLAVE`` is set.

A qmaster that has just started has heard from nobody yet: every host is given
``max_unheard`` from the qmaster's start to report (``last_heard``), so a restart of the
qmaster never reschedules jobs on hosts that are merely reconnecting.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from common import conf_params
from common.cluster import hostgroups
from common.conf_values import TRUE_WORDS, seconds_or
from common.jobstate import ACTIVE_STATES
from common.model import ExecHost, Job, Task
from common.objects_conf.queue import queue_value

DEFAULT_MAX_UNHEARD = 300.0

# what happens to a task on a lost host
RESCHEDULE = "reschedule"   # back to pending, to run again elsewhere
END = "end"                 # finished: it cannot run again (ENABLE_RESCHEDULE_KILL)


@dataclass(frozen=True)
class LostHostPolicy:
    """The configuration that decides about lost hosts."""

    max_unheard: float = DEFAULT_MAX_UNHEARD
    reschedule_after: Mapping[str, float] = field(default_factory=dict)  # per host
    default_reschedule_after: float = 0.0          # the global value; 0: never
    reschedule_kill: bool = False
    reschedule_slave: bool = False

    def reschedule_delay(self, host: str) -> float:
        """reschedule_unknown of ``host`` in seconds (0: never)."""
        return self.reschedule_after.get(host, self.default_reschedule_after)


def lost_host_policy(conf: Mapping[str, Mapping[str, list[list[str]]]]) -> LostHostPolicy:
    """The policy of a cluster configuration (``conf["conf"]``: "global" and host
    configurations, as ``qconf -sconf`` keeps them)."""
    confs = conf.get("conf", {})

    def value(name: str, key: str) -> str | None:
        return next((v for k, v in confs.get(name, []) if k == key), None)

    params = value("global", "qmaster_params") or "none"

    def flag(name: str) -> bool:
        return conf_params.value("qmaster_params", params, name) is True

    # sge_conf(5) DISABLE_AUTO_RESCHEDULING: "reschedule_unknown is not taken into account"
    ignored = flag("DISABLE_AUTO_RESCHEDULING")
    per_host = {name: 0.0 if ignored else seconds_or(local, 0.0)
                for name in confs if name != "global"
                if (local := value(name, "reschedule_unknown")) is not None}
    default_after = seconds_or(value("global", "reschedule_unknown") or "", 0.0)
    return LostHostPolicy(
        max_unheard=seconds_or(value("global", "max_unheard") or "", DEFAULT_MAX_UNHEARD),
        reschedule_after=per_host,
        default_reschedule_after=0.0 if ignored else default_after,
        reschedule_kill=flag("ENABLE_RESCHEDULE_KILL"),
        reschedule_slave=flag("ENABLE_RESCHEDULE_SLAVE"))


def queue_rerun(conf: Mapping[str, Mapping[str, Any]], queue: str, host: str) -> bool:
    """The queue's ``rerun`` on ``host`` (host and host group overrides honoured)."""
    pairs = conf["queue"].get(queue)
    if pairs is None:
        return False
    return queue_value(pairs, "rerun", host, hostgroups(conf)).strip().lower() in TRUE_WORDS


def last_heard(host: ExecHost, qmaster_start: float) -> float:
    """When the host last reported, as far as this qmaster can count."""
    return max(host.load_time, qmaster_start)


def unheard_hosts(hosts: Iterable[ExecHost], now: float, qmaster_start: float,
                  policy: LostHostPolicy) -> list[str]:
    """Hosts up until now that have not reported for ``max_unheard``: they become
    unknown."""
    return [h.name for h in hosts
            if h.alive and now - last_heard(h, qmaster_start) > policy.max_unheard]


def lost_hosts(hosts: Iterable[ExecHost], now: float, qmaster_start: float,
               policy: LostHostPolicy) -> set[str]:
    """Unknown hosts whose jobs are due for rescheduling."""
    lost = set()
    for host in hosts:
        delay = policy.reschedule_delay(host.name)
        if not host.alive and delay > 0 and \
                now - last_heard(host, qmaster_start) > policy.max_unheard + delay:
            lost.add(host.name)
    return lost


def is_rerunnable(job: Job, queue_rerun: bool) -> bool:
    """The job's rerun flag: its ``-r``, or without one its queue's ``rerun``."""
    rerun = job.opts.get("rerun")
    return queue_rerun if rerun is None else bool(rerun)


def task_hosts(task: Task, with_slaves: bool) -> set[str]:
    """The hosts whose loss affects the task: its master host, and with ``with_slaves``
    every host it holds slots on."""
    hosts = {task.host} if task.host else set()
    if with_slaves:
        hosts |= {str(g[1]) for g in task.granted if len(g) > 1}
    return hosts


def lost_task_actions(tasks: Iterable[Task], jobs: Mapping[int, Job], lost: set[str],
                      policy: LostHostPolicy, queue_rerun: Callable[[Task], bool],
                      checkpoint_r: Callable[[Job], bool] | None = None
                      ) -> list[tuple[Task, str]]:
    """What becomes of each active task on a lost host: RESCHEDULE or END, or nothing
    (a task that may not run again stays, as 8.1.9 keeps it, unless
    ENABLE_RESCHEDULE_KILL). ``queue_rerun(task)``: the ``rerun`` of the task's queue
    on its host; ``checkpoint_r(job)``: a checkpointed job whose ``when`` has ``r``,
    rescheduled as a rerunnable one (checkpoint(5))."""
    if not lost:
        return []
    actions = []
    for task in tasks:
        if task.state_enum not in ACTIVE_STATES or task.job_id not in jobs:
            continue
        if not task_hosts(task, policy.reschedule_slave) & lost:
            continue
        job = jobs[task.job_id]
        if task.deleted_by is None and (is_rerunnable(job, queue_rerun(task)) or
                                        (checkpoint_r is not None and checkpoint_r(job))):
            actions.append((task, RESCHEDULE))
        elif policy.reschedule_kill or task.deleted_by is not None:
            actions.append((task, END))
    return actions
