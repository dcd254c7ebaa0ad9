"""What qsub says about a job: its default name and the qmaster's refusal of
a name, the `submitted` line, the `-now y` and `-w v` texts, and how `-sync y`
reports a finished job. Grid Engine 8.1.9's exact wording. Pure.
"""
from __future__ import annotations

from common.jobspec import default_job_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from clients.joblist import TaskRange


def job_name_default(script_path: str | None, binary: bool = False,
                     command: str | None = None) -> str:
    """The basename of the script (or of the command with -b y); STDIN."""
    return default_job_name(command if binary and command else script_path)


def unable_to_run(reason: str) -> str:
    """How qsub reports a refused submission (stderr, exit 1)."""
    return f"Unable to run job: {reason}\nExiting."


def job_id_text(job_id: int, array: TaskRange | None = None) -> str:
    """`5`, or `5.1-10:1` for a job array."""
    if not array:
        return str(job_id)
    from clients.joblist import format_task_range  # (an array job's only)
    return f"{job_id}.{format_task_range(array)}"


def submitted_message(job_id: int, name: str, array: TaskRange | None = None,
                      terse: bool = False) -> str:
    """The line qsub prints on stdout after a successful submission."""
    if terse:
        return job_id_text(job_id, array)
    if array:
        return f'Your job-array {job_id_text(job_id, array)} ("{name}") has been submitted'
    return f'Your job {job_id} ("{name}") has been submitted'


VERIFY_FOUND_QUEUES = "verification: found suitable queue(s)"
WAITING_FOR_IMMEDIATE = "Waiting for immediate job to be scheduled."
IMMEDIATE_NOT_SCHEDULED = "Your qsub request could not be scheduled; try again later."


def immediate_scheduled(job_id: str) -> str:
    """What `qsub -now y` prints once the job has been dispatched."""
    return f"Your immediate job {job_id} has been successfully scheduled."


class SyncReport(tuple):
    """One `-sync y` line: where it goes ("stdout" or "stderr"), its text (None: print
    nothing) and the exit status it implies. A tuple with named fields, as immutable and
    comparable as the NamedTuple it was; written out because ``typing`` (for NamedTuple)
    costs every qsub start about 2 ms."""

    __slots__ = ()

    def __new__(cls, stream: str, text: str | None, exit_code: int) -> SyncReport:
        return tuple.__new__(cls, (stream, text, exit_code))

    @property
    def stream(self) -> str:
        return self[0]  # type: ignore[no-any-return]

    @property
    def text(self) -> str | None:
        return self[1]  # type: ignore[no-any-return]

    @property
    def exit_code(self) -> int:
        return self[2]  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return f"SyncReport(stream={self[0]!r}, text={self[1]!r}, exit_code={self[2]!r})"


def sync_report(job_id: str, *, exit_code: int | None = None, signal: str | None = None,
                never_ran: bool = False, terse: bool = False) -> SyncReport:
    """How qsub -sync y reports one finished job or array task (`5` or
    `5.2`): exit code, signal name (e.g. "SIGKILL"), or never ran (deleted
    or failed before it started; Grid Engine then still exits 0)."""
    if never_ran:
        return SyncReport("stderr", f"Unable to run job {job_id}", 0)
    if exit_code is not None:
        text = f"Job {job_id} exited with exit code {exit_code}."
        if exit_code == 0:
            return SyncReport("stdout", None if terse else text, 0)
        return SyncReport("stderr", text, exit_code)
    if signal is not None:
        return SyncReport("stderr", f"Job {job_id} exited because of signal {signal}", 1)
    return SyncReport("stderr", f"No information available on job {job_id}'s exit status.", 1)
