"""sched_conf(5) ``schedd_job_info`` and the scheduler run log of ``qconf -tsm``.

Owns, as pure functions: the setting's grammar (``true``, ``false``, ``job_list <ids>``,
words as Grid Engine 8.1.9's sched_conf check compares them: case-sensitive), which jobs
``qstat -j`` shows scheduling info for, the scheduler's global messages that go with the
setting, and the run log's lines (``$SGE_ROOT/$SGE_CELL/common/schedd_runlog``) in
8.1.9's format. Learnt from 8.1.9's libs/sched/schedd_message.c (``schedd_mes_add``,
``schedd_mes_obtain_package``), schedd_monitor.c (``schedd_log``), load_correction.c
and libs/sgeobj/sge_schedd_conf.c; compared with the captures in
tests/data/reference/policy/ (group 7).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Iterable, Sequence

# 8.1.9's global scheduler messages (msg_schedd.h) and their numbers in qstat -j -xml
# (MES_message_number: the position of the global message in sge_schedd_text.h)
TURNED_OFF = "(Collecting of scheduler job information is turned off)"
NOT_EVERY_JOB = "(Scheduler job information not available for every job)"
NO_MESSAGES = "There are no messages available"
MESSAGE_NUMBERS = {TURNED_OFF: 83, NOT_EVERY_JOB: 84, NO_MESSAGES: 90}

# 8.1.9's refusals at qconf -msconf/-Msconf (the blank in the first is 8.1.9's)
BAD_PARAMETER = 'attribute "schedd_job_info " is not a valid parameter'
BAD_JOB_LIST = 'attribute "schedd_job_info" is not a valid job_list'

RUN_START = "-------------START-SCHEDULER-RUN-------------"
RUN_STOP = "--------------STOP-SCHEDULER-RUN-------------"
NO_PENDING = "no pending jobs to perform scheduling on"

TaskRange = tuple[int, int, int]


class JobInfoError(ValueError):
    """A value of ``schedd_job_info`` 8.1.9 refuses; the text is 8.1.9's."""


@dataclass(frozen=True)
class JobInfo:
    """The parsed ``schedd_job_info``: ``mode`` true, false or job_list; ``ranges``
    the job ids of a job_list (first, last, step)."""

    mode: str = "true"
    ranges: tuple[TaskRange, ...] = ()

    def collects(self, job_id: int) -> bool:
        """Whether the scheduler keeps (and logs) messages about ``job_id``."""
        if self.mode == "true":
            return True
        if self.mode == "false":
            return False
        return any(low <= job_id <= high and (job_id - low) % step == 0
                   for low, high, step in self.ranges)

    def global_messages(self, any_messages: bool = True) -> list[str]:
        """The global messages a scheduling run adds for the setting
        (``schedd_mes_obtain_package``): one saying collection is off, one saying it
        is not kept for every job, or, with ``true`` and no message at all in the run,
        that there are none (``any_messages``)."""
        if self.mode == "false":
            return [TURNED_OFF]
        if self.mode == "job_list":
            return [NOT_EVERY_JOB]
        return [] if any_messages else [NO_MESSAGES]


def parse_job_info(text: str) -> JobInfo:
    """``schedd_job_info`` as 8.1.9 reads it: the first word ``true``, ``false`` or
    ``job_list`` (case-sensitive); after ``job_list`` a list of job id ranges
    (``1-10,15``). JobInfoError with 8.1.9's words otherwise."""
    words = text.strip().split(None, 1)
    key = words[0] if words else ""
    if key in ("true", "false"):
        return JobInfo(key)
    if key != "job_list":
        raise JobInfoError(BAD_PARAMETER)
    ranges = _job_ranges(words[1] if len(words) > 1 else "")
    if not ranges:
        raise JobInfoError(BAD_JOB_LIST)
    return JobInfo("job_list", tuple(ranges))


def _job_ranges(text: str) -> list[TaskRange]:
    """The range list after ``job_list``: sge_types(5)'s ``n[-m[:s]]``, separated by
    commas or blanks, no open end, no 0; [] when there is none or it does not parse."""
    # the one parser of the range grammar (qsub -t, qdel ids); pure, it has no client state
    from clients.joblist import RangeError, parse_range_list
    try:
        ranges = parse_range_list(",".join(text.split()), inf_allowed=False)
    except RangeError:
        return []
    return ranges if all(low > 0 for low, _, _ in ranges) else []


def check_schedd_job_info(name: str, value: str) -> str:
    """The conf check of ``schedd_job_info`` (common.conf_values' form): the value as
    typed when 8.1.9 would take it."""
    from common.conffile import ConfError
    try:
        parse_job_info(value)
    except JobInfoError as exc:
        raise ConfError(str(exc)) from None
    return value.strip()


def job_info_of(sched_pairs: Iterable[Sequence[str]]) -> JobInfo:
    """The setting of a stored scheduler configuration; ``true`` (the default) when it
    is absent or, stored before it was checked, unreadable."""
    for name, value, *_ in sched_pairs:
        if name == "schedd_job_info":
            try:
                return parse_job_info(value)
            except JobInfoError:
                return JobInfo()
    return JobInfo()


# --------------------------------------------------------------------------- run log

@dataclass(frozen=True)
class RunningGrant:
    """One granted queue instance of a running task, for the run log's load correction
    lines: since ``start_time`` (epoch seconds)."""

    job_id: int
    task_id: int
    queue: str
    host: str
    slots: int
    start_time: float


@dataclass(frozen=True)
class PendingJob:
    """A pending job as the monitored run saw it: its reason lines (``qstat -j``'s);
    ``split`` the lines that dropped it before placement (8.1.9 logs those while it
    splits the job list, then once more as it discards them); ``placed`` whether it was
    left to the placement (and so the run had pending jobs to schedule)."""

    job_id: int
    lines: tuple[str, ...]
    split: tuple[str, ...] = ()
    placed: bool = True


def load_correction_lines(grants: Sequence[RunningGrant], decay_time: float, now: float
                          ) -> list[str]:
    """8.1.9's ``correct_load`` with monitoring on: each slot of a task started less than
    ``load_adjustment_decay_time`` ago adds 1 - running/decay to its host's correction
    (in hundredths, whole numbers as 8.1.9's unsigned field keeps them), logged as
    ``JOB 53.1 [1] in queue all.q@vm increased absolute lc of host vm by 95 to 95``."""
    if decay_time <= 0:
        return []
    lines, per_host = [], {}  # host -> its correction so far
    for grant in sorted(grants, key=lambda g: (g.job_id, g.task_id)):
        running = int(now) - int(grant.start_time)
        if running > decay_time:
            continue
        share = (1 - running / decay_time) * grant.slots
        total = int(share * 100 + per_host.get(grant.host, 0))
        per_host[grant.host] = total
        lines.append(f"JOB {grant.job_id}.{grant.task_id} [{grant.slots}] in queue "
                     f"{grant.queue}@{grant.host} increased absolute lc of host {grant.host} "
                     f"by {int(share * 100)} to {total}")
    return lines


def run_log_lines(grants: Sequence[RunningGrant], pending: Sequence[PendingJob],
                  info: JobInfo, decay_time: float, now: float, unlisted: int = 0
                  ) -> list[str]:
    """The lines of one monitored scheduling run, without their time stamps: start,
    load corrections, the jobs dropped while the job list is split, that no pending job
    is left to place (if so), each job's reasons ``Job N ...``, the global messages of
    the setting, stop. Jobs the setting does not collect are not logged (8.1.9 returns
    before it logs them). ``unlisted``: pending jobs left out to bound the work (said in
    a line of our own before the global messages)."""
    logged = [job for job in sorted(pending, key=lambda j: j.job_id) if info.collects(job.job_id)]
    lines = [RUN_START, *load_correction_lines(grants, decay_time, now)]
    lines += [f"Job {job.job_id} {line}" for job in logged for line in job.split]
    if not unlisted and not any(job.placed for job in pending):
        lines.append(NO_PENDING)
    lines += [f"Job {job.job_id} {line}" for job in logged for line in job.lines]
    if unlisted:
        lines.append(f"{unlisted} more pending jobs are not listed: a run log lists the "
                     f"first {len(pending)}")
    any_messages = unlisted > 0 or any(job.lines or job.split for job in logged)
    return lines + info.global_messages(any_messages) + [RUN_STOP]


def stamp(lines: Iterable[str], now: float) -> str:
    """The run log's text: each line after ``ctime()`` of ``now`` and a bar, in the
    qmaster's local time as 8.1.9's ``schedd_log`` writes it."""
    when = time.ctime(now)
    return "".join(f"{when}|{line}\n" for line in lines)
