"""The per-user and per-job caps of the dispatch pass, as Grid Engine 8.1.9 counts them.

- sched_conf(5) ``maxujobs``: the most jobs one user may have running at once (0: no
  limit). 8.1.9 counts each running or suspended *task* once (an array job's tasks one by
  one, a parallel job's task once whatever its slots), and once a user reaches the limit,
  all of that user's pending jobs are dropped from the pass ("job dropped because of user
  limitations").
- sge_conf(5) ``max_aj_instances`` (default 2000, 0: no limit) and ``qsub -t ... -tc N``:
  the most *instances* of one job at once. An instance is an enrolled task that has not
  finished (running, suspended, or pending again after a reschedule); a pass may start at
  most ``limit - instances`` of the job's pending ids that are not enrolled yet. The limit
  is ``-tc`` when it is set and below ``max_aj_instances`` (or ``max_aj_instances`` is 0),
  else ``max_aj_instances`` (8.1.9's split_jobs()). qstat -j says "not all array task may
  be started due to 'max_aj_instances'" for both.

``Caps`` holds the counts at the start of a pass and is debited by the pass's own
dispatches; the qmaster builds one from its store to check orders (the scheduler's view
may be a moment old) and to word ``qstat -j``'s reasons. Pure.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from common.placement.job import PlacementJob

# msg_schedd.h MSG_SCHEDD_INFO_USRGRPLIMIT_ and MSG_SCHEDD_INFO_MAX_AJ_INSTANCES_
USER_LIMIT_REASON = "job dropped because of user limitations"
INSTANCES_REASON = "not all array task may be started due to 'max_aj_instances'"


def instance_limit(task_concurrency: int, max_aj_instances: int) -> int | None:
    """The most unfinished enrolled tasks a job may have (None: no limit)."""
    if task_concurrency > 0 and (max_aj_instances <= 0
                                 or task_concurrency < max_aj_instances):
        return task_concurrency
    return max_aj_instances if max_aj_instances > 0 else None


@dataclass
class Caps:
    """``running``: owner -> tasks that hold slots (maxujobs counts these);
    ``instances``: job id -> its enrolled tasks that have not finished."""

    maxujobs: int = 0
    max_aj_instances: int = 0
    running: dict[str, int] = field(default_factory=dict)
    instances: dict[int, int] = field(default_factory=dict)

    @classmethod
    def count(cls, maxujobs: int, max_aj_instances: int, jobs: Mapping[int, PlacementJob],
              active: Iterable[Mapping[str, Any]], enrolled: Iterable[Mapping[str, Any]]
              ) -> "Caps":
        """``active``: task records that hold slots (each counts once for its job's
        owner); ``enrolled``: every enrolled task record that has not finished (active
        ones included), each counting once for its job."""
        caps = cls(maxujobs, max_aj_instances)
        for task in active:
            job = jobs.get(task["job_id"])
            if job is not None:
                caps.running[job.owner] = caps.running.get(job.owner, 0) + 1
        for task in enrolled:
            job_id = task["job_id"]
            caps.instances[job_id] = caps.instances.get(job_id, 0) + 1
        return caps

    def copy(self) -> "Caps":
        return Caps(self.maxujobs, self.max_aj_instances, dict(self.running),
                    dict(self.instances))

    def user_full(self, owner: str) -> bool:
        return self.maxujobs > 0 and self.running.get(owner, 0) >= self.maxujobs

    def room(self, job: PlacementJob) -> int | None:
        """How many more of the job's unenrolled ids may start (None: no limit)."""
        limit = instance_limit(job.task_concurrency, self.max_aj_instances)
        return None if limit is None else max(limit - self.instances.get(job.job_id, 0), 0)

    def may_start(self, job: PlacementJob, enrolled: bool) -> bool:
        """Whether one more task of the job may start: its owner is below maxujobs, and
        an unenrolled id only while the job is below its instance limit."""
        if self.user_full(job.owner):
            return False
        if enrolled:  # already an instance: 8.1.9 counts it, never holds it back
            return True
        room = self.room(job)
        return room is None or room > 0

    def started(self, job: PlacementJob, enrolled: bool) -> None:
        """Count a task the pass (or the qmaster's order check) lets start."""
        self.running[job.owner] = self.running.get(job.owner, 0) + 1
        if not enrolled:
            self.instances[job.job_id] = self.instances.get(job.job_id, 0) + 1

    def refusal(self, job: PlacementJob, enrolled: bool) -> str:
        """Why one more task of the job may not start, in words for the scheduler's
        log (the qmaster refuses such an order), or ""."""
        if self.user_full(job.owner):
            return (f'user "{job.owner}" already runs {self.running.get(job.owner, 0)} '
                    f"jobs (maxujobs {self.maxujobs})")
        if not enrolled and not self.may_start(job, enrolled):
            limit = instance_limit(job.task_concurrency, self.max_aj_instances)
            which = "-tc" if limit == job.task_concurrency else "max_aj_instances"
            return (f"job {job.job_id} already has {self.instances.get(job.job_id, 0)} "
                    f"task instances ({which} {limit})")
        return ""

    def reasons(self, job: PlacementJob, unenrolled: int) -> list[str]:
        """``qstat -j``'s lines for a pending job with ``unenrolled`` pending ids that
        are not enrolled: 8.1.9 drops the jobs of a user at maxujobs before placing
        anything, and names the instance limit when some pending ids may not start."""
        if self.user_full(job.owner):
            return [USER_LIMIT_REASON]
        room = self.room(job)
        return [INSTANCES_REASON] if room is not None and unenrolled > room else []
