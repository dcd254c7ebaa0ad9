"""One DRMAA session in the agent: its job templates, its jobs and their results, and the
handling of each call libdrmaa.so forwards (``Session.handle``).

The cell is reached through a ``Backend`` (``clients.drmaa.backend.ClientBackend`` in
the agent, a fake in the unit tests); the jobs' ends come from a ``Reaper``
(``clients.drmaa.reaper``), which calls ``job_finished`` once per job. A session keeps
its jobs' results until drmaa_wait or drmaa_synchronize(dispose) reaps them: the
qmaster's own memory of finished jobs is bounded, the session's is not.

Threads: the agent's main thread handles the quick calls, one thread per blocking call
(wait, synchronize) waits on the session's condition, the reaper's thread adds results.
Everything shared is under ``self._lock`` (the condition's); the backend is used by the
main thread only.
"""
from __future__ import annotations

import datetime as _dt
import inspect
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol

from clients.drmaa import errors, status, template
from clients.drmaa.errors import DrmaaError
from clients.drmaa.template import JobTemplate

SESSION_ANY = "DRMAA_JOB_IDS_SESSION_ANY"
SESSION_ALL = "DRMAA_JOB_IDS_SESSION_ALL"
TIMEOUT_WAIT_FOREVER = -1

SUSPEND, RESUME, HOLD, RELEASE, TERMINATE = range(5)

_JOB_ID = re.compile(r"^([1-9][0-9]{0,9})(?:\.([1-9][0-9]{0,9}))?$")


class Backend(Protocol):
    """What a session needs of the cell (``ClientBackend`` has the real one)."""

    def submit(self, argv: list[str], env: Mapping[str, str], command: list[str]
               ) -> tuple[int, list[int]]:
        """Submit the job qsub's ``argv`` describes, with ``env`` added to its -v
        variables, if qsub reads ``command`` (command and arguments) as its command:
        (job id, its task ids). DrmaaError when refused."""

    def tasks(self, job_id: int) -> list[dict[str, Any]] | None:
        """The job's task records (finished ones too); None: the qmaster knows no such
        job."""

    def control(self, action: int, job_id: int, task_id: int | None) -> None:
        """SUSPEND ... TERMINATE on a job or one of its tasks; DrmaaError when refused."""


class Reaper(Protocol):
    def watch(self, job_id: int) -> None:
        """Report the job's end (``Session.job_finished``) once it has ended."""

    def follow_tasks(self) -> None:
        """Before a bulk job is submitted: report its tasks' ends as they come, where it
        can (``Session.task_finished``)."""


@dataclass
class Finished:
    """A task's end as drmaa_wait reports it."""

    word: int                 # the status word (clients.drmaa.status)
    usage: list[str] | None   # the rusage lines; None: it never ran (NO_RUSAGE)
    state: int                # DONE or FAILED, for drmaa_job_ps


@dataclass
class SessionJob:
    array: bool
    task_ids: list[int]
    results: dict[int, Finished] = field(default_factory=dict)  # by task id, when ended
    reaped: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.tasks = frozenset(self.task_ids)

    def unended(self) -> bool:
        return len(self.results) < len(self.task_ids)


def parse_job_id(text: str) -> tuple[int, int | None]:
    """``"17"`` or ``"17.3"`` (a bulk job's task): INVALID_ARGUMENT otherwise, in 8.1.9's
    words."""
    m = _JOB_ID.match(text)
    if m is None:
        raise DrmaaError(errors.INVALID_ARGUMENT, f'Job id, "{text}", is not a valid job id')
    return int(m[1]), int(m[2]) if m[2] else None


def job_id_text(job_id: int, task_id: int, array: bool) -> str:
    return f"{job_id}.{task_id}" if array else str(job_id)


class Session:
    def __init__(self, backend: Backend, reaper: Reaper, *, home: str,
                 clock: Callable[[], float] = time.monotonic,
                 now: Callable[[], _dt.datetime] = lambda: _dt.datetime.now().astimezone(),
                 contact: str = "") -> None:
        self.backend = backend
        self.reaper = reaper
        self.home = home
        self.contact = contact
        self._clock = clock
        self._now = now
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._templates: dict[int, JobTemplate] = {}
        self._last_template = 0
        self._jobs: dict[int, SessionJob] = {}
        self._ready: dict[tuple[int, int], None] = {}  # ended, not reaped (ordered)
        self._open = 0  # tasks not reaped
        # jobs whose every task was reaped: they no longer exist for the session, as in
        # 8.1.9 (whose qmaster forgets a job when it ends), though the qmaster may still
        # list them a while
        self._gone: set[int] = set()

    # ---- dispatch ----------------------------------------------------------------
    def handle(self, call: str, args: list[str]) -> tuple[int, str, list[str]]:
        """One forwarded call: (DRMAA code, diagnosis, results)."""
        method = _CALLS.get(call)
        if method is None:
            return errors.INTERNAL_ERROR, f"unknown call {call!r}", []
        try:
            inspect.signature(method).bind(self, *args)
        except TypeError:  # (libdrmaa.c sends each call's fields: never from it)
            return errors.INVALID_ARGUMENT, f"{call}: {len(args)} arguments", []
        try:
            return errors.SUCCESS, "", method(self, *args)
        except DrmaaError as err:
            return err.code, err.text, getattr(err, "results", [])

    # ---- templates ----------------------------------------------------------------
    def jt_new(self) -> list[str]:
        with self._lock:
            self._last_template += 1
            self._templates[self._last_template] = JobTemplate()
            return [str(self._last_template)]

    def _template(self, handle: str) -> JobTemplate:
        try:
            return self._templates[int(handle)]
        except (KeyError, ValueError):
            raise DrmaaError(errors.INVALID_ARGUMENT, errors.INVALID_INPUT) from None

    def jt_delete(self, handle: str) -> list[str]:
        self._template(handle)
        with self._lock:
            del self._templates[int(handle)]
        return []

    def set(self, handle: str, name: str, value: str) -> list[str]:
        self._template(handle).set(name, value)
        return []

    def get(self, handle: str, name: str) -> list[str]:
        return [self._template(handle).get(name)]

    def setv(self, handle: str, name: str, *values: str) -> list[str]:
        self._template(handle).set_vector(name, list(values))
        return []

    def getv(self, handle: str, name: str) -> list[str]:
        return self._template(handle).get_vector(name)

    def names(self) -> list[str]:
        return list(template.ATTRIBUTE_NAMES)

    def vector_names(self) -> list[str]:
        return list(template.VECTOR_ATTRIBUTE_NAMES)

    # ---- submission ---------------------------------------------------------------
    def run(self, handle: str) -> list[str]:
        job_id, tasks = self._submit(self._template(handle), None)
        return [job_id_text(job_id, t, False) for t in tasks[:1]]

    def run_bulk(self, handle: str, first: str, last: str, step: str) -> list[str]:
        jt = self._template(handle)
        try:
            bulk = (int(first), int(last), int(step))
        except ValueError:
            raise DrmaaError(errors.INVALID_ARGUMENT, errors.INVALID_INPUT) from None
        template.check_bulk(*bulk)
        job_id, tasks = self._submit(jt, bulk)
        return [job_id_text(job_id, t, True) for t in tasks]

    def _submit(self, jt: JobTemplate, bulk: tuple[int, int, int] | None
                ) -> tuple[int, list[int]]:
        argv = template.qsub_argv(jt, home=self.home, now=self._now(), bulk=bulk)
        if bulk is not None:
            self.reaper.follow_tasks()
        job_id, tasks = self.backend.submit(argv, template.environment(jt),
                                            template.command_line(jt))
        with self._lock:
            self._jobs[job_id] = SessionJob(bulk is not None, tasks)
            self._open += len(tasks)
        self.reaper.watch(job_id)
        return job_id, tasks

    def job_finished(self, job_id: int, ends: dict[int, Finished]) -> None:
        """The reaper's report: the job's tasks have ended."""
        with self._changed:
            job = self._jobs.get(job_id)
            if job is None:
                return
            for task_id in job.task_ids:
                if task_id not in job.reaped:  # (more figures than a task's event had)
                    self._ended_now(job, job_id, task_id, ends.get(task_id) or
                                    Finished(status.ABORTED, None, status.FAILED))
            self._changed.notify_all()

    def task_finished(self, job_id: int, task_id: int, end: Finished) -> None:
        """A bulk job's task has ended (its event), before the whole job has."""
        with self._changed:
            job = self._jobs.get(job_id)
            if job is None or not job.array or task_id not in job.tasks or \
                    task_id in job.results or task_id in job.reaped:
                return
            self._ended_now(job, job_id, task_id, end)
            self._changed.notify_all()

    # ---- state and control ----------------------------------------------------------
    def job_ps(self, text: str) -> list[str]:
        job_id, task_id = parse_job_id(text)
        with self._lock:
            job = self._jobs.get(job_id)
            if job_id in self._gone:
                raise DrmaaError(errors.INVALID_JOB, errors.NO_SUCH_JOB)
            if job is not None:
                key = task_id or job.task_ids[0]
                if key in job.reaped or (task_id is None) == job.array:
                    raise DrmaaError(errors.INVALID_JOB, errors.NO_SUCH_JOB)
                if key in job.results:
                    return [str(job.results[key].state)]
        records = self.backend.tasks(job_id)
        wanted = [t for t in records or () if task_id is None or t["task_id"] == task_id]
        if not wanted:
            raise DrmaaError(errors.INVALID_JOB, errors.NO_SUCH_JOB)
        return [str(status.job_state(wanted[0]))]

    def control(self, text: str, action: str) -> list[str]:
        try:
            verb = int(action)
        except ValueError:
            verb = -1
        if verb not in range(5):
            raise DrmaaError(errors.INVALID_ARGUMENT, errors.INVALID_INPUT)
        targets: list[tuple[int, int | None]]
        if text == SESSION_ALL:
            with self._lock:
                targets = [(j, None) for j, job in self._jobs.items() if job.unended()]
        else:
            targets = [parse_job_id(text)]
        for job_id, task_id in targets:
            self.backend.control(verb, job_id, task_id)
        return []

    # ---- waiting ----------------------------------------------------------------------
    # Each costs what it names, not what the session holds: the ended tasks not yet reaped
    # wait in ``_ready`` (in the order they ended), ``_open`` counts the tasks not reaped.

    def wait(self, text: str, timeout: str) -> list[str]:
        """The first of the jobs named that ends: [job id, status word, *usage];
        NO_RUSAGE (as a DrmaaError carrying those results) for one that never ran."""
        deadline = self._deadline(timeout)
        with self._changed:
            while True:
                # (again after each change: a job another thread submits meanwhile is
                # one of the session's too, and a task another thread reaped is not)
                if text == SESSION_ANY:
                    if not self._open:
                        raise DrmaaError(errors.INVALID_JOB, errors.NO_SUCH_JOB)
                    done = next(iter(self._ready), None)
                else:
                    job_id, task_id = self._key(text)
                    done = (job_id, task_id) if (job_id, task_id) in self._ready else None
                if done is not None:
                    return self._reap(*done)
                self._sleep(deadline)

    def synchronize(self, timeout: str, dispose: str, *texts: str) -> list[str]:
        deadline = self._deadline(timeout)
        with self._changed:
            every = SESSION_ALL in texts
            keys = [self._key(text) for text in texts if text != SESSION_ALL]
            while not all(self._ended(j, t) for j, t in keys) or \
                    (every and len(self._ready) < self._open):
                self._sleep(deadline)
            if dispose not in ("", "0"):
                for key in list(self._ready) if every else keys:
                    if key in self._ready:
                        self._reap_quietly(*key)
        return []

    def _deadline(self, timeout: str) -> float | None:
        try:
            seconds = int(timeout)
        except ValueError:
            raise DrmaaError(errors.INVALID_ARGUMENT, errors.INVALID_INPUT) from None
        if seconds == TIMEOUT_WAIT_FOREVER:
            return None
        if seconds < 0:
            raise DrmaaError(errors.INVALID_ARGUMENT, errors.INVALID_INPUT)
        return self._clock() + seconds

    def _sleep(self, deadline: float | None) -> None:
        """Wait (the lock held) for a change, or EXIT_TIMEOUT past the deadline."""
        left = None if deadline is None else deadline - self._clock()
        if left is not None and left <= 0:
            raise DrmaaError(errors.EXIT_TIMEOUT, errors.TIMED_OUT)
        self._changed.wait(left)

    def _ended(self, job_id: int, task_id: int) -> bool:
        """Has the task ended (a task another thread reaped meanwhile has)?"""
        job = self._jobs.get(job_id)
        return job is None or task_id in job.results or task_id in job.reaped

    def _key(self, text: str) -> tuple[int, int]:
        job_id, task_id = parse_job_id(text)
        job = self._jobs.get(job_id)
        if job is None or (task_id is None) == job.array:
            raise DrmaaError(errors.INVALID_JOB, errors.NO_SUCH_JOB)
        key = task_id or job.task_ids[0]
        if key not in job.tasks or key in job.reaped:
            raise DrmaaError(errors.INVALID_JOB, errors.NO_SUCH_JOB)
        return job_id, key

    def _ended_now(self, job: SessionJob, job_id: int, task_id: int, end: Finished) -> None:
        """Keep a task's end (the lock held); a task ends once, its figures may grow."""
        if task_id not in job.results:
            self._ready[(job_id, task_id)] = None
        job.results[task_id] = end

    def _reap(self, job_id: int, task_id: int) -> list[str]:
        job = self._jobs[job_id]
        end = job.results[task_id]
        self._reap_quietly(job_id, task_id)
        answer = [job_id_text(job_id, task_id, job.array), str(end.word)]
        if end.usage is None:
            raise WaitAnswer(errors.NO_RUSAGE, errors.NO_USAGE, answer)
        return answer + end.usage

    def _reap_quietly(self, job_id: int, task_id: int) -> None:
        job = self._jobs[job_id]
        del self._ready[(job_id, task_id)]
        job.reaped.add(task_id)
        self._open -= 1
        if len(job.reaped) == len(job.task_ids):  # (the job no longer exists for us)
            del self._jobs[job_id]
            self._gone.add(job_id)


class WaitAnswer(DrmaaError):
    """An error answer that has results too (drmaa_wait's NO_RUSAGE: the job's id and
    status still go back)."""

    def __init__(self, code: int, text: str, results: list[str]) -> None:
        super().__init__(code, text)
        self.results = results


_CALLS: dict[str, Callable[..., list[str]]] = {
    "jt_new": Session.jt_new, "jt_delete": Session.jt_delete, "set": Session.set,
    "get": Session.get, "setv": Session.setv, "getv": Session.getv, "names": Session.names,
    "vector_names": Session.vector_names, "run": Session.run, "run_bulk": Session.run_bulk,
    "job_ps": Session.job_ps, "control": Session.control, "wait": Session.wait,
    "synchronize": Session.synchronize,
}

# the calls that may block: the agent serves them on a channel of their own
BLOCKING_CALLS = frozenset({"wait", "synchronize"})
