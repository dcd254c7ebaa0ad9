"""The priority translation function (PTF): running jobs' tickets -> nice values.

With sched_conf(5) ``reprioritize_interval`` not 0 (sge_conf(5) ``reprioritize`` true),
Grid Engine 8.1.9's execd renices the processes of its running jobs every
``SCHEDULE_SECONDS`` so that they get CPU time in proportion to their tickets. This
module is that computation, pure: the execd (execd/reprioritize.py) feeds it each job's
tickets and CPU seconds so far and applies the nice values it returns.

8.1.9's algorithm (daemons/execd/ptf.c, Linux, its "new algorithm"), restated:

- a job's tickets count at least 1 (whole tickets); its ``share`` is
  tickets / (all jobs' tickets) · 1000 + 1;
- its ``usage`` is its CPU seconds since it started counting, at least 1; a new ticket
  list from the qmaster cuts every usage to a tenth (at least 1) and starts the
  priorities afresh (``curr_pri`` 0);
- a job using more than COMPENSATION_FACTOR times its targeted proportion
  (tickets / all tickets), measured as share²/usage against the sum of all jobs' share²/usage,
  has its usage scaled up by how far it is over ("adjusted usage");
- every step, ``curr_pri`` grows by adjusted usage · processes / share²; the nice
  value is ``pri_max`` + (``pri_min`` - ``pri_max``) · (curr_pri - smallest curr_pri) /
  largest curr_pri, truncated toward 0: the job that used least for its tickets gets
  ``pri_max`` (PTF_MAX_PRIORITY, the best), the others proportionally worse, up to
  ``pri_min`` (PTF_MIN_PRIORITY).

Where this differs from 8.1.9: a job here is one task (job id, task id) of the host, as
the execd keeps its tasks; 8.1.9 keeps one entry per job id and counts all its tasks'
processes in it. A task the qmaster has not sent tickets for yet counts 1 ticket, as a
job with no tickets does in 8.1.9.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Hashable, TypeVar

SCHEDULE_SECONDS = 2.0         # ptf.h PTF_SCHEDULE_TIME: how often the execd renices
COMPENSATION_FACTOR = 2.0      # ptf.h PTF_COMPENSATION_FACTOR
MIN_JOB_USAGE = 1.0            # ptf.h PTF_MIN_JOB_USAGE
NEW_LIST_USAGE_FACTOR = 0.1    # ptf.c: usage kept when a new ticket list arrives
# Linux (ptf.h): defaults of execd_params PTF_MIN_PRIORITY / PTF_MAX_PRIORITY and the
# range of nice values setpriority(2) takes, which bounds them
DEFAULT_MIN_PRIORITY, DEFAULT_MAX_PRIORITY = 20, 0
OS_MIN_PRIORITY, OS_MAX_PRIORITY = 20, -20

K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True, slots=True)
class PtfJob:
    """What the PTF remembers of one running job between steps."""

    tickets: int = 1
    usage: float = 0.0   # CPU seconds counted (cut to a tenth at each ticket list)
    cpu_seen: float = 0.0          # the job's CPU seconds at the last step
    curr_pri: float = 0.0


def priority_range(min_priority: int | None, max_priority: int | None) -> tuple[int, int]:
    """(pri_max, pri_min): the best and the worst nice value the PTF gives, from execd_params
    PTF_MAX_PRIORITY / PTF_MIN_PRIORITY (None: Linux's defaults 0 and 20), kept within
    the OS's -20..20 and with pri_max never above pri_min, as ptf.c does."""
    pri_min = DEFAULT_MIN_PRIORITY if min_priority is None else min_priority
    pri_max = DEFAULT_MAX_PRIORITY if max_priority is None else max_priority
    pri_max = max(pri_max, OS_MAX_PRIORITY)
    pri_min = min(pri_min, OS_MIN_PRIORITY)
    return min(pri_max, pri_min), pri_min


def with_tickets(job: PtfJob, tickets: float) -> PtfJob:
    """``job`` after a ticket list from the qmaster gave it ``tickets``: whole tickets,
    at least 1; usage cut to a tenth (at least 1) and the priority started afresh."""
    return replace(job, tickets=max(int(tickets), 1),
                   usage=max(MIN_JOB_USAGE, job.usage * NEW_LIST_USAGE_FACTOR), curr_pri=0.0)


def step(jobs: Mapping[K, PtfJob], cpu: Mapping[K, float], procs: Mapping[K, int],
         pri_max: int, pri_min: int) -> tuple[dict[K, PtfJob], dict[K, int]]:
    """One PTF step over the host's running jobs: ``cpu`` their CPU seconds so far,
    ``procs`` their number of processes. Returns the jobs' new state and their nice
    values (the nice value of a job not in ``cpu`` is computed from its last figures)."""
    counted: dict[K, PtfJob] = {}
    for key, job in jobs.items():
        seen = cpu.get(key, job.cpu_seen)
        grown = max(seen - job.cpu_seen, 0.0)  # (a process that ended takes its time along)
        counted[key] = replace(job, cpu_seen=seen,
                               usage=max(MIN_JOB_USAGE, job.usage + grown))
    if not counted:
        return {}, {}
    total_tickets = sum(job.tickets for job in counted.values()) or 1
    share = {key: job.tickets / total_tickets * 1000.0 + 1.0 for key, job in counted.items()}
    proportion = {key: share[key] ** 2 / max(job.usage, MIN_JOB_USAGE)
                  for key, job in counted.items()}
    total_proportion = sum(proportion.values())
    out: dict[K, PtfJob] = {}
    for key, job in counted.items():
        adjusted = _adjusted_usage(job, total_tickets, proportion[key], total_proportion)
        grown = adjusted * max(procs.get(key, 1), 1) / share[key] ** 2
        out[key] = replace(job, curr_pri=job.curr_pri + grown)
    lowest = min(job.curr_pri for job in out.values())
    highest = max(job.curr_pri for job in out.values())
    nice = {key: _nice(job.curr_pri, lowest, highest, pri_max, pri_min)
            for key, job in out.items()}
    return out, nice


def _adjusted_usage(job: PtfJob, total_tickets: int, proportion: float,
                    total_proportion: float) -> float:
    """A job's usage, scaled up by how far its current proportion exceeds
    COMPENSATION_FACTOR times its targeted one (ptf.c pass 2)."""
    targeted = job.tickets / total_tickets
    current = proportion / total_proportion if total_proportion > 0 else 0.0
    if targeted > 0 and current > COMPENSATION_FACTOR * targeted:
        return job.usage * (current / (COMPENSATION_FACTOR * targeted))
    return job.usage


def _nice(curr_pri: float, lowest: float, highest: float, pri_max: int, pri_min: int) -> int:
    if highest <= 0:
        return pri_min
    # (C's (long) conversion truncates toward 0; the fraction is never negative)
    return pri_max + int((pri_min - pri_max) * ((curr_pri - lowest) / highest))
