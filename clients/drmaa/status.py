"""What DRMAA reports of a job: drmaa_job_ps's state of a task record, drmaa_wait's
status word of a finished task, and its usage lines. Pure: records in, numbers out.

The status word is this library's own (the binding leaves it to the implementation;
libdrmaa.c's drmaa_wif* functions read it): bit 0 exited, bit 1 signaled, bit 2 core
dumped, bit 3 aborted; bits 8-15 the exit status, bits 16-23 the signal number.
"""
from __future__ import annotations

from typing import Any, Mapping

# drmaa_job_ps states (drmaa.h's DRMAA_PS_*)
UNDETERMINED = 0x00
QUEUED_ACTIVE = 0x10
SYSTEM_ON_HOLD = 0x11
USER_ON_HOLD = 0x12
USER_SYSTEM_ON_HOLD = 0x13
RUNNING = 0x20
SYSTEM_SUSPENDED = 0x21
USER_SUSPENDED = 0x22
USER_SYSTEM_SUSPENDED = 0x23
DONE = 0x30
FAILED = 0x40

EXITED, SIGNALED, COREDUMP, ABORTED = 0x1, 0x2, 0x4, 0x8

# holds a user may set and release on a job (qhold -h u); the others (operator, system,
# -hold_jid, -hold_jid_ad, -a) are the system's to the job's owner
_USER_HOLDS = frozenset("u")
# the reason a user's own qmod -sj gives (qmaster.queue_control.JOB_REASON); the others
# (queue, threshold, calendar, subordinate) are the system's
_USER_SUSPENSION = "job"


def job_state(task: Mapping[str, Any]) -> int:
    """The DRMAA state of one task record (common.model.Task.to_dict())."""
    state = task.get("state")
    if state in ("pending", "hold"):
        holds = set(task.get("holds") or [])
        user, system = bool(holds & _USER_HOLDS), bool(holds - _USER_HOLDS)
        if user and system:
            return USER_SYSTEM_ON_HOLD
        if user:
            return USER_ON_HOLD
        return SYSTEM_ON_HOLD if system else QUEUED_ACTIVE
    if state in ("transferring", "running", "deleted"):
        return _suspension(task) or RUNNING
    if state == "suspended":
        return _suspension(task) or USER_SUSPENDED
    if state == "error":
        return FAILED
    if state == "finished":
        return finished_state(task)
    return UNDETERMINED


def _suspension(task: Mapping[str, Any]) -> int:
    reasons = set(task.get("suspend_reasons") or [])
    if not reasons:
        return 0
    user, system = _USER_SUSPENSION in reasons, bool(reasons - {_USER_SUSPENSION})
    if user and system:
        return USER_SYSTEM_SUSPENDED
    return USER_SUSPENDED if user else SYSTEM_SUSPENDED


def finished_state(task: Mapping[str, Any]) -> int:
    """DONE for a task that ran to its end (whatever its exit status), FAILED for one
    deleted or that could not run (as 8.1.9)."""
    if task.get("deleted_by") or task.get("deleted") or task.get("failed"):
        return FAILED
    return DONE


def status_word(result: Mapping[str, Any]) -> tuple[int, bool]:
    """drmaa_wait's ``stat`` of a finished task (a ``wait`` answer's task result:
    exit_status, signal, failed, deleted, started) and whether it has usage (a task
    that never ran has none: DRMAA_ERRNO_NO_RUSAGE, as 8.1.9)."""
    started = bool(result.get("started"))
    if result.get("deleted") or (result.get("failed") and not started):
        # 8.1.9: a job deleted (drmaa_control TERMINATE, qdel), running or not, or one
        # that never ran, was aborted; it neither exited nor was signaled
        return ABORTED, started
    signal = int(result.get("signal") or 0)
    if signal:
        return SIGNALED | (signal & 0xff) << 16, True
    status = int(result.get("exit_status") or 0)
    if status > 128 and result.get("failed"):
        return SIGNALED | ((status - 128) & 0xff) << 16, True
    return EXITED | (status & 0xff) << 8, True


# the usage 8.1.9's drmaa_wait reports, in its order, each as "name=value" with four
# decimals (tests/data/reference/drmaa/capture.json, rusage_keys); a name the task's
# record has no figure for is left out
RUSAGE_NAMES = ("io", "iow", "mem", "cpu", "vmem", "maxvmem", "submission_time",
                "priority", "exit_status", "signal", "start_time", "end_time",
                "ru_wallclock", "ru_utime", "ru_stime", "ru_maxrss", "ru_ixrss",
                "ru_ismrss", "ru_idrss", "ru_isrss", "ru_minflt", "ru_majflt", "ru_nswap",
                "ru_inblock", "ru_oublock", "ru_msgsnd", "ru_msgrcv", "ru_nsignals",
                "ru_nvcsw", "ru_nivcsw", "acct_cpu", "acct_mem", "acct_io", "acct_iow",
                "acct_maxvmem")


def usage_lines(task: Mapping[str, Any] | None, result: Mapping[str, Any],
                submission_time: float | None) -> list[str]:
    """drmaa_wait's rusage vector: the figures of the task's record (``task``: a
    finished task of a job listing; None when the qmaster no longer had it) and of the
    wait answer."""
    figures: dict[str, Any] = {}
    if task is not None:
        usage = task.get("usage") or {}
        figures.update({k: v for k, v in usage.items() if isinstance(v, (int, float))})
        for name in ("start_time", "end_time"):
            if task.get(name) is not None:
                figures[name] = task[name]
        if task.get("start_time") is not None and task.get("end_time") is not None:
            figures.setdefault("ru_wallclock", task["end_time"] - task["start_time"])
    if submission_time is not None:
        figures["submission_time"] = submission_time
    figures["exit_status"] = result.get("exit_status") or 0
    figures["signal"] = result.get("signal") or 0
    for acct, name in (("acct_cpu", "cpu"), ("acct_mem", "mem"), ("acct_io", "io"),
                       ("acct_iow", "iow"), ("acct_maxvmem", "maxvmem")):
        if name in figures:
            figures.setdefault(acct, figures[name])
    return [f"{name}={float(figures[name]):.4f}" for name in RUSAGE_NAMES
            if name in figures]
