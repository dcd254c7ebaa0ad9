"""The shepherd: runs one job task from its job directory and records how it ended.

Owns, for one task: the TMPDIR, the PE host file, the job environment (as Grid Engine's
execd and sge_shepherd build it), stdout/stderr path resolution, user switching, starting
the job per ``shell_start_mode`` in its own session, waiting for it (``os.wait4``),
sampling ``maxvmem`` and writing ``result.msgpack``. It never talks to the execd except
for one optional datagram at the end, so the job survives an execd restart.

The spec (``spec.msgpack``, written by the execd) is the start record of
common/start_record.py, checked with its defaults filled in by ``jobdir.read_spec``
(a spec that does not fit fails the job before anything runs); execd/jobdir.py holds the
pure spec -> job mapping.

A root shepherd reaches nothing of the job owner's with root's rights (docs/security.md):
the working directory, the script on stdin and the output files are entered and opened
by the job's own child, with the owner's effective ids, so that the kernel checks the
owner's permissions, a link the owner planted leads only where the owner may go, and an
open() that waits (a FIFO) holds only a process of the job; the TMPDIR, whose name
anyone can predict, is made with execd/safefs.py (under a random name when something was
planted at it) and removed with the owner's rights. A prolog or epilog of other ids than
the owner's gets a fixed environment (jobdir.procedure_environment), and what the job
leaves behind is stopped and killed until none is left (``_JobWatch._end_tree``).
"""
from __future__ import annotations

import errno
import fcntl
import os
import pwd
import select
import signal
import socket
import stat
import subprocess
import termios
import time
import traceback
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NoReturn

import msgpack

from execd import jobdir, proctree, rlimits, safefs, session_relay
from execd.cgroups import CgroupError, JobCgroup, memory_limit
from execd.control import Controller, Step
from execd.jobdir import (
    FAILED_BEFORE_JOB, FAILED_CWD, FAILED_EARLY, FAILED_OUTPUT, FAILED_SHELL, job_argv,
    job_environment, make_result, output_path, processor_set, starter_argv,
    starter_environment, stdin_is_devnull, tmpdir_path, uses_shell, working_dir,
)
from execd.load import host_arch

SAMPLE_INTERVAL = 0.5
GIGABYTE = 1024.0 ** 3  # Grid Engine's GB in mem (GB cpu seconds) and io (GB)
# the running job's usage for qstat -j: first after a second, then this often (the
# execd sends the latest with each load report)
USAGE_FILE_INTERVAL = 5.0
# Grid Engine makes TMPDIR 0755; nobody but the owner needs it, and what a job keeps
# there (umask 022) would be readable by every user of the host.
TMPDIR_MODE = 0o700
NEVER_STARTED_STATUS = 1 << 8  # wait status of exit(1): a job that could not start
# how long the shepherd goes on killing what its job left behind (end_leftovers)
LEFTOVER_SECONDS = 30.0
STOP_CHILDREN_ROUNDS = 10_000


class JobFailure(Exception):
    """A failure before the job could run, with Grid Engine's failure code."""

    def __init__(self, failed: int, message: str) -> None:
        super().__init__(message)
        self.failed = failed


# ------------------------------------------------------------- runtime: the job's start

def _switches(spec: Mapping[str, Any]) -> bool:
    """Whether the job gets other ids than ours (a root shepherd, another owner)."""
    return bool(spec["switch_user"]) and os.geteuid() == 0 and \
        (spec["uid"], spec["gid"]) != (os.getuid(), os.getgid())


def _owner_ids(spec: Mapping[str, Any]) -> tuple[int, int | None]:
    """(uid, gid) the job's TMPDIR must belong to: the owner's when we are root and
    switch, else ours (gid None: whatever the directory gets)."""
    if spec["switch_user"] and os.geteuid() == 0:
        return int(spec["uid"]), int(spec["gid"])
    return os.geteuid(), None


def _job_groups(spec: Mapping[str, Any], user: str) -> list[int]:
    """The owner's groups and the job's additional group id (sge_conf(5) gid_range)."""
    try:
        groups = os.getgrouplist(user, spec["gid"])
    except OSError as e:
        raise JobFailure(FAILED_BEFORE_JOB, f"initgroups() failed with errno {e.errno}") from e
    addgrp = jobdir.option(spec, "addgrp")
    return groups + [int(addgrp)] if addgrp is not None and addgrp not in groups else groups


@contextmanager
def _as_job_user(spec: Mapping[str, Any], groups: list[int]) -> Iterator[None]:
    """Check and open files with the job owner's rights, as sge_shepherd does, by
    switching only the effective ids; the job itself gets real ids at its start."""
    if not spec["switch_user"] or os.geteuid() != 0:
        yield
        return
    saved = os.getgroups()
    try:
        os.setgroups(groups)
        os.setegid(spec["gid"])
        os.seteuid(spec["uid"])
        yield
    finally:
        os.seteuid(0)
        os.setegid(0)
        os.setgroups(saved)


# ------------------------------------------------------------- runtime: a child's start
#
# Everything that touches a path of the job owner's (the working directory, the output
# files, the program's checks) happens in the child, between fork and exec, as Grid
# Engine's shepherd does it in its "son": a FIFO, a terminal that waits for its carrier or
# a user's FUSE file system can block open() or chdir() for as long as its owner wants,
# and a blocked child is only a process of the job, which h_rt, qdel and the shepherd's
# other requests end like the job itself. The shepherd never waits for it: it forks, and
# learns through a pipe what the child resolved (the output paths) or why it could not
# start (Grid Engine's failure code and message); the pipe closes at exec.

_NEW_OUTPUT_MODE = 0o644  # Grid Engine's, under the job's umask (077 makes it 0600)
_HIGH_FD = 10  # where the child parks its three descriptors before it moves them to 0-2
# what the shepherd catches or Python ignores, back to the defaults before the exec
_CHILD_DEFAULT_SIGNALS = (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT, signal.SIGTTOU,
                          signal.SIGTTIN, signal.SIGTSTP, signal.SIGTERM, signal.SIGUSR1,
                          signal.SIGPIPE, signal.SIGXFSZ, signal.SIGCHLD)

Ids = tuple[int, int, list[int]]  # uid, gid, supplementary groups


@dataclass(frozen=True)
class _ChildPlan:
    """What one child of the shepherd (the job, a prolog, an epilog) does before exec."""
    which: str                   # "job", "prolog", "epilog": for messages
    spec: Mapping[str, Any]
    argv: list[str]
    program: str
    env: Mapping[str, str]
    cwd: str                     # entered with the opener's ids; outputs resolve from it
    home_of: jobdir.HomeOf
    stdin: str                   # opened with the opener's ids
    umask: int
    opener: Ids | None = None    # effective ids for the owner's paths (a root shepherd)
    runner: Ids | None = None    # the ids it runs with (None: ours)
    final_cwd: str | None = None  # where a procedure of another user runs instead
    checks: tuple[tuple[Mapping[str, Any], str], ...] = ()  # (spec, program) to check
    setup: Callable[[], None] | None = None  # limits, nice, CPU set (as root)
    join_fd: int | None = None   # the job cgroup's cgroup.procs
    keep_fds: tuple[int, ...] = field(default=())
    postfixes: tuple[str, str] = ("o", "e")  # default output names (PE procedures: po, pe)
    session: session_relay.SessionRelay | None = None  # stdio: an interactive job's


@dataclass
class _ChildReport:
    """What the shepherd learned of a child's start: the paths it resolved, or why it
    could not start (``failure``: failed code, message); ``done`` once the pipe closed."""
    fd: int | None
    paths: dict[str, str] = field(default_factory=dict)
    failure: tuple[int, str] | None = None
    done: bool = False
    _buffer: bytes = b""

    def read(self, block: bool = False) -> None:
        """Take what the child wrote; ``block`` waits for its end (once the child is
        gone, the pipe is at its end at once)."""
        if self.fd is None or self.done:
            return
        os.set_blocking(self.fd, block)
        while True:
            try:
                chunk = os.read(self.fd, 65536)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                self.done = True
                os.close(self.fd)
                self.fd = None
                self._parse()
                return
            self._buffer += chunk

    def _parse(self) -> None:
        for kind, value in _records(self._buffer):
            if kind == "paths":
                self.paths = {str(k): str(v) for k, v in value.items()}
            elif kind == "fail":
                self.failure = (int(value[0]), str(value[1]))


def _records(data: bytes) -> list[tuple[str, Any]]:
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(data)
    out = []
    try:
        for item in unpacker:
            if isinstance(item, list) and len(item) == 2:
                out.append((str(item[0]), item[1]))
    except (ValueError, msgpack.UnpackException):
        pass
    return out


def _fork_child(plan: _ChildPlan) -> tuple[int, _ChildReport]:
    """Fork the child that runs ``plan``; its pid and its report, at once."""
    read, write = os.pipe2(os.O_CLOEXEC)
    if write < 3:  # (never where the child puts its stdin, stdout and stderr)
        high = fcntl.fcntl(write, fcntl.F_DUPFD_CLOEXEC, _HIGH_FD)
        os.close(write)
        write = high
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        raise
    if pid == 0:  # pragma: no cover - the child's coverage is not collected
        os.close(read)
        _child_main(plan, write)
    os.close(write)
    return pid, _ChildReport(read)


def _report(fd: int, kind: str, value: Any) -> None:
    try:
        os.write(fd, msgpack.packb([kind, value], use_bin_type=True))
    except OSError:
        pass


def _child_main(plan: _ChildPlan, report: int) -> NoReturn:  # pragma: no cover
    """The child: never returns; execs ``plan``'s program or exits 1 after reporting."""
    try:
        try:
            _child_start(plan, report)
        except JobFailure as f:
            _report(report, "fail", [f.failed, str(f)])
        except OSError as e:
            _report(report, "fail", [FAILED_BEFORE_JOB, f"can't start {plan.which} "
                                     f"\"{plan.program}\": {e}"])
        except BaseException as e:  # noqa: BLE001 - the child must never return
            _report(report, "fail", [FAILED_BEFORE_JOB, f"can't start {plan.which}: {e!r}"])
    finally:
        os._exit(1)


def _child_start(plan: _ChildPlan, report: int) -> None:  # pragma: no cover
    for signum in _CHILD_DEFAULT_SIGNALS:
        signal.signal(signum, signal.SIG_DFL)
    signal.set_wakeup_fd(-1)
    os.setsid()  # its own session and process group: the job's, for killpg
    if plan.join_fd is not None:
        try:
            os.write(plan.join_fd, b"0")
        except OSError:
            pass  # outside its cgroup the job is still followed by its process tree
    os.umask(plan.umask)
    env = dict(plan.env)
    with _effective_ids(plan.opener):
        _enter_cwd(plan.cwd)
        if plan.session is not None:
            stdin_fd, out_fd, err_fd = plan.session.child_stdio()
            env.update(session_relay.stdio_variables(plan.cwd))
        else:
            # stdin first: 8.1.9 fails a job whose -i file is missing before it creates
            # the output files
            given = jobdir.input_path(plan.spec, plan.cwd, plan.home_of) \
                if plan.which == "job" else None
            stdin_fd = _open_input(given, plan.stdin)
            out_fd, err_fd = _open_stdio(plan.spec, env, plan.cwd, plan.home_of,
                                         plan.postfixes)
        for check_spec, program in plan.checks:
            _check_program(check_spec, program)
    if plan.setup is not None:
        plan.setup()
    if plan.runner is not None:
        uid, gid, groups = plan.runner
        os.setgroups(groups)
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
    if plan.final_cwd is not None:
        os.chdir(plan.final_cwd)
    parked = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, _HIGH_FD)
              for fd in (stdin_fd, out_fd, err_fd)]
    for target, fd in enumerate(parked):
        os.dup2(fd, target, inheritable=True)
    if plan.session is not None and plan.session.pty:
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)  # the job's controlling terminal
    _report(report, "paths", {k: env[k] for k in jobdir.OUTPUT_VARIABLES if k in env})
    keep = sorted({report, *plan.keep_fds})
    low = 3
    for fd in keep:
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, _max_fd())
    os.execve(plan.program, plan.argv, env)


def _max_fd() -> int:
    try:
        return min(os.sysconf("SC_OPEN_MAX"), 1 << 20)
    except (OSError, ValueError):
        return 1 << 16


@contextmanager
def _effective_ids(ids: Ids | None) -> Iterator[None]:
    """The owner's effective ids for the block (a root child keeps its real ids, to
    change them for good afterwards)."""
    if ids is None:
        yield
        return
    saved = os.getgroups()
    os.setgroups(ids[2])
    os.setegid(ids[1])
    os.seteuid(ids[0])
    try:
        yield
    finally:
        os.seteuid(0)
        os.setegid(0)
        os.setgroups(saved)


def _open_output(path: str) -> int:
    try:
        return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC,
                       _NEW_OUTPUT_MODE)
    except OSError as e:
        raise JobFailure(FAILED_OUTPUT,
                         f"error: can't open output file \"{path}\": {e.strerror}") from e


def _open_input(given: str | None, default: str) -> int:
    """The job's stdin: qsub -i's file (opened as the owner, like -o's) or ``default``."""
    if given is None or given == default:
        return os.open(default, os.O_RDONLY | os.O_CLOEXEC)
    try:
        return os.open(given, os.O_RDONLY | os.O_CLOEXEC)
    except OSError as e:
        raise JobFailure(FAILED_OUTPUT,  # 8.1.9's words (captured)
                         f"error: can't open {given} as dummy input file") from e


def _open_stdio(spec: Mapping[str, Any], env: dict[str, str], cwd: str,
                home_of: jobdir.HomeOf, postfixes: tuple[str, str] = ("o", "e")
                ) -> tuple[int, int]:
    """Open the job's stdout/stderr (in the child, as the job owner) and export their
    paths."""
    out = output_path(spec, "o", cwd, home_of, os.path.isdir, postfixes[0])
    err = out if spec["merge"] else output_path(spec, "e", cwd, home_of, os.path.isdir,
                                                postfixes[1])
    out_fd = _open_output(out)
    err_fd = out_fd if spec["merge"] else _open_output(err)
    stdin_path = jobdir.input_path(spec, cwd, home_of) or \
        ("/dev/null" if stdin_is_devnull(spec) else env["JOB_SCRIPT"])
    env.update(SGE_STDIN_PATH=stdin_path, SGE_STDOUT_PATH=out, SGE_STDERR_PATH=err,
               SGE_CWD_PATH=cwd)
    return out_fd, err_fd


def _enter_cwd(cwd: str) -> None:
    """chdir into the job's working directory, which the job inherits (in the child,
    with the owner's ids)."""
    try:
        os.chdir(cwd)
    except OSError as e:
        missing = e.errno in (errno.ENOENT, errno.ENOTDIR)
        reason = "No such file or directory" if missing else e.strerror
        raise JobFailure(FAILED_CWD, f"error: can't chdir to {cwd}: {reason}") from e


def _check_program(spec: Mapping[str, Any], program: str) -> None:
    if uses_shell(spec) and not os.path.exists(program):
        raise JobFailure(FAILED_SHELL, f"unable to find shell \"{program}\"")
    if not os.access(program, os.X_OK, effective_ids=True):
        raise JobFailure(FAILED_BEFORE_JOB, f"job file \"{program}\" is not executable")


def _opener_ids(spec: Mapping[str, Any], groups: list[int]) -> Ids | None:
    """The owner's ids for reaching the owner's paths, when we are root and switch."""
    if not spec["switch_user"] or os.geteuid() != 0:
        return None
    return int(spec["uid"]), int(spec["gid"]), groups


def _job_plan(spec: Mapping[str, Any], env: dict[str, str], user: str, home: str,
              job_dir: Path, groups: list[int], join_fd: int | None,
              session: session_relay.SessionRelay | None = None) -> _ChildPlan:
    """The job's start: its program per ``shell_start_mode`` (or the starter method),
    limits, nice value and CPU set applied as root, then the owner's ids for good."""
    script = str(job_dir / jobdir.SCRIPT_FILE)
    program, argv = job_argv(spec, script)
    env = dict(env)
    if spec["binary"] and jobdir.option(spec, "noshell") and "/" not in program:
        import shutil  # qsub -shell n: a command name is looked up as execvp does
        program = shutil.which(program, path=env.get("PATH") or os.defpath) or program
    checks: list[tuple[Mapping[str, Any], str]] = [(spec, program)]
    starter = jobdir.option(spec, "starter_method")
    if session is not None:  # qrsh, qlogin: no script, no starter (batch jobs only)
        program, argv, env = session_relay.job_start(spec, user, env)
        checks, starter = [], None
    if starter:
        program, argv = starter_argv(spec, starter, argv)
        env.update(starter_environment(spec))
        checks.append(({**spec, "binary": False, "shell_start_mode": "unix_behavior"},
                       program))
    switch = _switches(spec)
    return _ChildPlan(
        which="job", spec=spec, argv=argv, program=program, env=env,
        cwd=working_dir(spec, home), home_of=_home_lookup(user, home),
        stdin="/dev/null" if stdin_is_devnull(spec) else script,
        umask=int(jobdir.option(spec, "umask")) & 0o777,
        opener=_opener_ids(spec, groups),
        runner=(int(spec["uid"]), int(spec["gid"]), groups) if switch else None,
        checks=tuple(checks), setup=_limits_setup(spec), join_fd=join_fd,
        keep_fds=() if join_fd is None else (join_fd,), session=session)


def _limits_setup(spec: Mapping[str, Any]) -> Callable[[], None] | None:
    """What the job's child does as root before its ids change: limits (a raised hard
    limit needs root), nice (a negative value needs root), CPU set."""
    limits = rlimits.plan({**jobdir.option(spec, "limits"), **jobdir.option(spec, "host_limits")},
                          rlimits.current_limits(), os.geteuid() == 0)
    priority = int(jobdir.option(spec, "priority"))
    cpus = processor_set(jobdir.option(spec, "processors"), os.cpu_count() or 1)
    if not limits and not priority and not cpus:
        return None

    def setup() -> None:
        if priority:
            os.setpriority(os.PRIO_PROCESS, 0, priority)
        if cpus:
            os.sched_setaffinity(0, cpus)
        rlimits.apply(limits)
    return setup


_spawned: dict[int, subprocess.Popen[bytes]] = {}  # method commands (no user path)


def _home_lookup(owner: str, owner_home: str) -> jobdir.HomeOf:
    def home_of(user: str) -> str:
        if user == owner:
            return owner_home
        try:
            return pwd.getpwnam(user).pw_dir
        except KeyError:
            return "~" + user
    return home_of


# ------------------------------------------------------------- runtime: the shepherd

_current_job: dict[str, int] = {}
# whether the shepherd is its descendants' reaper (run_shepherd): then every process the
# job left behind outside its cgroup hangs below the shepherd once the job's first process
# has ended (end_leftovers)
_reaper = {"on": False}


def _forward_signal(signum: int, _frame: Any) -> None:
    """SIGTERM to the shepherd terminates the job instead of orphaning it."""
    pid = _current_job.get("pid")
    if pid:
        try:
            os.killpg(pid, signum)
        except OSError:
            pass


def _ignore(_signum: int, _frame: Any) -> None:
    """Caught and dropped: unlike SIG_IGN, a handler does not pass on to the exec'd job."""


def _install_signal_handlers() -> None:
    for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT, signal.SIGTTOU, signal.SIGTTIN,
                signal.SIGTSTP):
        signal.signal(sig, _ignore)
    signal.signal(signal.SIGTERM, _forward_signal)
    # SIGUSR1 from the execd: a request waits in the job directory (jobdir.write_control).
    # The handler does nothing; the wake-up pipe ends the shepherd's select at once.
    read, write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    _wakeup["read"] = read
    signal.set_wakeup_fd(write, warn_on_full_buffer=False)
    signal.signal(signal.SIGUSR1, _ignore)
    # an orphan of the job ended (re-parented to us, its subreaper): reap it (_JobWatch)
    signal.signal(signal.SIGCHLD, _ignore)


def _owner(spec: Mapping[str, Any]) -> tuple[str, str]:
    """(user name, home directory) of the job owner from the passwd database."""
    lookups = [lambda: pwd.getpwnam(spec["owner"]), lambda: pwd.getpwuid(spec["uid"])]
    if not spec["switch_user"]:
        lookups.append(lambda: pwd.getpwuid(os.getuid()))  # the job runs as we do anyway
    for lookup in lookups:
        try:
            pw = lookup()
            return pw.pw_name, pw.pw_dir
        except KeyError:
            continue
    raise JobFailure(FAILED_BEFORE_JOB, f"can't get password entry for user \"{spec['owner']}\"")


def _make_tmpdir(spec: Mapping[str, Any]) -> str:
    """The job's TMPDIR, new, the owner's, 0700; its path.

    Grid Engine's name ``<job>.<task>.<queue>`` is predictable and its base usually
    world-writable, so it is taken only when ``mkdir`` makes it. Whatever is found there
    (a link, a file, another user's directory, or the owner's own: a job of the same id
    of another cell on this host, whose end would remove it under this job) is left
    alone, and the job gets a fresh directory of an unpredictable name beside it, made
    atomically: a planted entry costs nobody a job, and ``TMPDIR`` says where it is.
    """
    path = tmpdir_path(spec)
    uid, gid = _owner_ids(spec)
    try:
        return safefs.make_new_dir(path, TMPDIR_MODE, uid, gid)
    except safefs.UnsafePath:
        pass
    except OSError as e:
        if e.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EEXIST):
            raise JobFailure(FAILED_EARLY, f"can't make tmpdir {path}: {e.strerror}") from e
    try:
        return safefs.make_unique_dir(path, TMPDIR_MODE, uid, gid)
    except OSError as e:
        raise JobFailure(FAILED_EARLY, f"can't make tmpdir {path}.*: {e.strerror}") from e


HANGUP = "hangup"  # a result's ended_by: the session's client went away
CLEAN_SECONDS = 60.0  # how long a checkpointed job's clean_command may take


def _task_tmpdir(spec: Mapping[str, Any], job_dir: Path) -> tuple[str, bool]:
    """(TMPDIR, whether it is this task's to remove). A parallel task (qrsh -inherit) on
    its job's master host shares the job's TMPDIR, as in 8.1.9, when that is a real
    directory of the job owner's and the job's own task runs here (its directory beside
    ours); anywhere else it gets one of its own, made and removed as a job's."""
    if spec.get("pe_task_id"):
        path = tmpdir_path(spec)
        master = job_dir.parent / f"{spec['job_id']}.{spec['task_id'] or 1}"
        try:
            found = os.lstat(path)
        except OSError:
            found = None
        if found is not None and stat.S_ISDIR(found.st_mode) and \
                found.st_uid == _owner_ids(spec)[0] and (master / jobdir.SPEC_FILE).exists():
            return path, False
    return _make_tmpdir(spec), True


def _remove_tmpdir(spec: Mapping[str, Any], path: str, groups: list[int]) -> None:
    """Remove TMPDIR (the directory made for the job, whichever name it got) with the
    owner's rights: all in it is the owner's, so root follows nothing there. Its top
    then goes as root if the base is not the owner's to change (rmdir never follows a
    link). What cannot be removed stays; never an error."""
    try:
        with _as_job_user(spec, groups):
            safefs.remove_tree(path, _owner_ids(spec)[0])
        if os.path.lexists(path):
            os.rmdir(path)
    except (safefs.UnsafePath, OSError):
        pass


def _prepare_files(job_dir: Path, spec: Mapping[str, Any]) -> None:
    """The PE host file, if there is one (the execd wrote the script, see jobdir)."""
    if spec["pe"] and spec["pe_hostfile"] is not None:
        jobdir.write_atomic(job_dir / jobdir.PE_HOSTFILE, spec["pe_hostfile"].encode(),
                            jobdir.PE_HOSTFILE_MODE, durable=False)


def _start_job(spec: Mapping[str, Any], env: dict[str, str], user: str, home: str,
               job_dir: Path, groups: list[int], cgroup: JobCgroup | None = None,
               session: session_relay.SessionRelay | None = None
               ) -> tuple[int, _ChildReport | None, dict[str, Any] | None]:
    """(pid, its report, None) once the job's child is forked, (0, None, failure) if
    not even that could be done. Whether the job then runs, the report says."""
    join_fd = _join_fd(cgroup)
    try:
        plan = _job_plan(spec, env, user, home, job_dir, groups, join_fd, session)
        if session is not None:
            session.await_size()
            if _switches(spec):
                session.give_tty(int(spec["uid"]))
        pid, report = _fork_child(plan)
        if session is not None:
            session.started(pid)
    except (OSError, JobFailure) as e:
        failed = e.failed if isinstance(e, JobFailure) else FAILED_BEFORE_JOB
        return 0, None, {"failed": failed, "message": f"can't start job: {e}"}
    finally:
        if join_fd is not None:
            os.close(join_fd)
    return pid, report, None


def _job_cgroup(spec: Mapping[str, Any], job_dir: Path) -> JobCgroup | None:
    """The job's own cgroup where the execd has a cgroup v2 subtree (execd.cgroups);
    None leaves the job to the process-tree method."""
    where = jobdir.option(spec, "cgroup")
    if not where:
        return None
    try:
        return JobCgroup.create(Path(where["subtree"]), job_dir.name, where["controllers"],
                                jobdir.option(spec, "limits"))
    except (CgroupError, KeyError, TypeError):
        return None


def _join_fd(cgroup: JobCgroup | None) -> int | None:
    """The job cgroup's ``cgroup.procs`` for the child to join by, if there is one."""
    if cgroup is None:
        return None
    try:
        return cgroup.join_fd()
    except CgroupError:
        return None


def _pidfd(pid: int) -> int | None:
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


class _Measure:
    """What the shepherd has seen of the job's process tree."""

    def __init__(self) -> None:
        self.cpu = 0.0     # highest summed cpu seconds of the tree
        self.mem = 0.0     # integral of vmem (GB) over cpu seconds, as Grid Engine's "mem"
        self.io = 0        # highest summed bytes read and written
        self.vmem = 0
        self.maxvmem = 0

    def add(self, use: proctree.Usage) -> None:
        if use.cpu > self.cpu:
            self.mem += (use.cpu - self.cpu) * use.vmem / GIGABYTE
            self.cpu = use.cpu
        self.io = max(self.io, use.io)
        self.vmem = use.vmem
        self.maxvmem = max(self.maxvmem, use.vmem)

    def so_far(self) -> dict[str, float]:
        """The figures of a running job (jobdir.USAGE_KEYS)."""
        return {"cpu": self.cpu, "mem": self.mem, "io": self.io / GIGABYTE,
                "vmem": float(self.vmem), "maxvmem": float(self.maxvmem)}

    def fields(self, ended_by: str) -> dict[str, Any]:
        return {"cpu": self.cpu, "mem": self.mem, "io": self.io / GIGABYTE,
                "maxvmem": self.maxvmem, "ended_by": ended_by}


class _JobWatch:
    """Waits for the job while enforcing its limits and carrying out the execd's requests
    (execd.control decides, this class measures, signals and runs methods)."""

    def __init__(self, job_dir: Path, spec: Mapping[str, Any], pid: int,
                 env: Mapping[str, str], groups: list[int],
                 cgroup: JobCgroup | None = None, report: _ChildReport | None = None,
                 session: session_relay.SessionRelay | None = None) -> None:
        self.job_dir, self.spec, self.pid, self.env, self.groups = \
            job_dir, spec, pid, env, groups
        self.session = session  # an interactive job's stdio (execd.session_relay)
        self.hung_up: float | None = None  # when its client went away
        self.report = report or _ChildReport(None, done=True)
        self.cgroup = cgroup
        self.joined = False  # the job's first process has been seen in its cgroup
        variables = {**jobdir.procedure_variables(spec, env), "job_pid": str(pid)}
        self.control = Controller.from_spec(spec, variables)
        self.measure = _Measure()
        self.helpers: dict[int, Step] = {}  # method commands running, by pid
        self.start = time.monotonic()

    def run(self) -> tuple[int, Any]:
        """(wait status, rusage) of the job, once its first process has ended."""
        pidfd = _pidfd(self.pid)
        next_sample = time.monotonic()
        next_usage = next_sample + 1.0
        try:
            while True:
                wpid, status, usage = os.wait4(self.pid, os.WNOHANG)
                if wpid == self.pid:
                    self.report.read(block=True)  # at its end: the child is gone
                    return status, usage
                self._follow_start()
                now = time.monotonic() - self.start
                steps: list[Step] = []
                for action in jobdir.take_controls(self.job_dir):
                    steps += self.control.request(action, now)
                # (not the child before its exec: the shepherd's copy is not the job's)
                if self.report.done and time.monotonic() >= next_sample:
                    next_sample = time.monotonic() + SAMPLE_INTERVAL
                    self.measure.add(self._usage())
                    if next_sample >= next_usage:
                        next_usage = next_sample + USAGE_FILE_INTERVAL
                        self._write_usage()
                steps += self._relay(now)
                steps += self.control.tick(now, self.measure.cpu, self.measure.vmem)
                for step in steps:
                    self._carry_out(step)
                self._reap_helpers()
                # orphans of the job re-parented to us (we are their subreaper), reaped
                # as they end: a fork loop leaves one per generation, thousands a
                # second, which unreaped would fill the host's pid space and make every
                # search of its processes slower than the loop (SIGCHLD wakes us)
                _reap_orphans(set(self.helpers) | {self.pid})
                due = self.control.next_due()
                wake = next_sample - time.monotonic() if self.report.done else SAMPLE_INTERVAL
                if due is not None:
                    wake = min(wake, due - (time.monotonic() - self.start))
                _sleep_until_event(pidfd, max(0.0, wake), self.report.fd, self.session)
        finally:
            if pidfd is not None:
                os.close(pidfd)

    def _relay(self, now: float) -> list[Step]:
        """An interactive job's stdio moved; a client gone is a hang-up: SIGHUP, and
        the job is ended as qdel ends it if it is still there a little later."""
        if self.session is None:
            return []
        if self.session.pump():
            self.hung_up = now
            self.control.ended_by = self.control.ended_by or HANGUP  # (the result says so)
            self.signal_tree(signal.SIGHUP)
        if self.hung_up is not None and now - self.hung_up >= session_relay.HANGUP_GRACE:
            self.hung_up = None
            return self.control.request("terminate", now)
        return []

    def _follow_start(self) -> None:
        """Read the child's report; once it has exec'd the job, ``job.pid`` says so
        (the execd's fallback signals it when the shepherd is gone)."""
        if self.report.done:
            return
        self.report.read()
        if self.report.done and self.report.failure is None:
            jobdir.write_pid_file(self.job_dir / jobdir.JOB_PID_FILE, self.pid)

    def _write_usage(self) -> None:
        """The usage so far, for the execd's next load report (qstat -j)."""
        try:
            jobdir.write_usage(self.job_dir, self.measure.so_far())
        except OSError:
            pass  # a full disk costs qstat -j its figures, not the job

    def _tree(self) -> tuple[dict[int, proctree.Proc], set[int]]:
        """The process table and the job's processes: its cgroup's, and its tree's (the
        only ones without a cgroup)."""
        table = proctree.process_table()
        pids = proctree.tree(table, self.pid, os.getpid(), self.helpers)
        if self.cgroup is not None:
            pids |= {p for p in self.cgroup.pids() if p in table}
        return table, pids

    def _measured(self) -> tuple[dict[int, proctree.Proc], set[int]]:
        """The processes a usage sample reads: with a cgroup, the cgroup's alone (every
        process the job started is in it, and the cgroup's own counters hold the cpu and
        I/O of those gone), so that a sample twice a second costs a read per process of
        the job, not one per process of the host (issue 12); without, the tree. A job
        whose first process did not join its cgroup (the child's join may fail) is
        measured by its tree too; a process moved out of the cgroup (by root, or by the
        owner of a delegated tree) is found by the searches of ``end_leftovers`` and of
        signals."""
        if self.cgroup is None:
            return self._tree()
        pids = self.cgroup.pids()
        if not self.joined:  # seen in it, or (gone already) it ran in it: only the job's
            # first process joins the cgroup, the rest of the job is born in it
            self.joined = self.pid in pids or bool(self.cgroup.cpu_seconds())
        if not self.joined:
            return self._tree()
        table = proctree.processes(pids)
        return table, set(table)

    def _usage(self) -> proctree.Usage:
        table, pids = self._measured()
        use = proctree.usage(proctree.with_io(table, pids), pids)
        if self.cgroup is None:
            return use
        # the cgroup counts what every process used, those already gone included
        cpu, io = self.cgroup.cpu_seconds(), self.cgroup.io_bytes()
        return replace(use, cpu=max(use.cpu, cpu or 0.0), io=max(use.io, io or 0))

    def _carry_out(self, step: Step) -> None:
        if step.command:
            self._start_method(step)
        else:
            self.signal_tree(step.signum)

    def signal_tree(self, signum: int) -> None:
        """``signum`` to the job's process group and to every process of its tree."""
        try:
            os.killpg(self.pid, signum)
        except OSError:
            # no such group yet: the child between its fork and its setsid (a qdel taken
            # at the shepherd's first look). The tree below may already show it in its
            # own group, and pass it over as signalled: it gets the signal itself.
            try:
                os.kill(self.pid, signum)
            except OSError:
                pass
        table, pids = self._tree()
        for pid in pids:  # those that left the group; a signal twice may be seen twice
            if table[pid].pgid != self.pid:
                try:
                    os.kill(pid, signum)
                except OSError:
                    pass

    def _start_method(self, step: Step) -> None:
        """A suspend/resume/terminate method command, as the job owner, with the job's
        environment; its output is discarded (Grid Engine's methods write nowhere)."""
        switch = _switches(self.spec)
        ids: dict[str, Any] = ({"user": self.spec["uid"], "group": self.spec["gid"],
                                "extra_groups": self.groups} if switch else {})
        try:
            proc = subprocess.Popen(list(step.command), env=dict(self.env), cwd="/",
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, start_new_session=True,
                                    close_fds=True, **ids)
        except (OSError, subprocess.SubprocessError):
            self._method_failed(step)
            return
        self.helpers[proc.pid] = step
        _spawned[proc.pid] = proc

    def run_clean_command(self) -> None:
        """A checkpointed job's ``clean_command``, as the job owner with the job's
        environment, waited for at most CLEAN_SECONDS (then killed): its status changes
        nothing, as a method's."""
        step = self.control.clean_step()
        if step is None:
            return
        self._start_method(step)
        deadline = time.monotonic() + CLEAN_SECONDS
        while self.helpers and time.monotonic() < deadline:
            self._reap_helpers()
            time.sleep(0.05)
        for pid in list(self.helpers):
            try:
                os.killpg(pid, signal.SIGKILL)  # (its own session: start_new_session)
            except OSError:
                pass
        while self.helpers and time.monotonic() < deadline + 5.0:
            self._reap_helpers()
            time.sleep(0.05)

    def _reap_helpers(self) -> None:
        for pid, step in list(self.helpers.items()):
            try:
                wpid, status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                wpid, status = pid, 0
            if wpid == pid:
                del self.helpers[pid]
                _spawned.pop(pid, None)
                if os.waitstatus_to_exitcode(status) != 0:
                    self._method_failed(step)

    def _method_failed(self, step: Step) -> None:
        """A terminate method that cannot do its work leaves the kill to us."""
        if step.reason == "terminate":
            self.signal_tree(signal.SIGKILL)

    def end_leftovers(self) -> None:
        """After the job's first process ended: kill what is left of its tree (daemons
        it left behind, in its session or re-parented to us) and reap our orphans. With
        a cgroup, every process in it ends, wherever it went."""
        if self.cgroup is not None:
            self.measure.add(self._usage())
            self.cgroup.kill_all()
            peak = self.cgroup.peak_memory()
            if peak is not None:
                self.measure.maxvmem = max(self.measure.maxvmem, peak)
            if self.cgroup.oom_killed() and not self.control.ended_by:
                # memory.max (the smaller of h_vmem and h_rss): the kernel's kill
                limits = jobdir.option(self.spec, "limits")
                self.control.ended_by = "h_vmem" if memory_limit(limits) == \
                    memory_limit({"h_vmem": limits.get("h_vmem")}) else "h_rss"
            if self.joined and _reaper["on"] and not self.cgroup.pids() and \
                    not _unreaped_children(set(self.helpers)):
                # the cgroup is empty, and nothing of the job lives outside it: a process
                # moved out of the cgroup (by root, or by the owner of a delegated tree)
                # would hang below the shepherd now, as a child or a child's descendant,
                # and a child hands its children over before it can be reaped. No search
                # of every process of the host (issue 12: the largest cost of a short
                # job's shepherd).
                return
        self._end_tree()

    def _end_tree(self) -> None:
        """Kill every process left of the job's tree until none is left.

        A few rounds of "search, kill" are not enough: a process that forks and lets its
        parent exit, in a loop, lives for less time than a search of the host's
        processes takes, so the pids a search finds are gone when they are signalled,
        and once the shepherd exits the loop's last process is re-parented to init and
        outlives the job. So, until a search finds nothing:

        - the shepherd's own children (where the loop's processes land, as it is their
          reaper) are stopped as fast as one file can be read (``_stop_children``);
        - every process the search finds is stopped, and its whole process group with
          it: a signal to a group reaches a process that is forking and its new child
          alike (the kernel restarts a fork that a group signal interrupts);
        - once a search finds no process it has not stopped already, they are killed
          (with their groups), and orphans re-parented to the shepherd are reaped.

        Bounded by LEFTOVER_SECONDS (a process in uninterruptible sleep may take its
        time to die; it cannot fork meanwhile).
        """
        deadline = time.monotonic() + LEFTOVER_SECONDS
        pause = 0.001
        frozen: set[int] = set()
        own_group = os.getpgid(0)
        while True:
            self._stop_children()
            _reap_orphans(set(self.helpers))
            table, pids = self._tree()
            pids.discard(self.pid)
            if not pids or time.monotonic() >= deadline:
                break
            # the job's processes are in sessions of the job's own, so are their groups
            groups = {table[pid].pgid for pid in pids} - {0, 1, own_group}
            # (not by the state /proc shows: a process whose main thread has exited
            # shows as a zombie while its other threads run)
            signum = signal.SIGSTOP if pids - frozen else signal.SIGKILL
            if signum == signal.SIGKILL:
                self.measure.add(proctree.usage(table, pids))
            _signal_groups(groups, signum)
            _signal_all(pids, signum)
            frozen = pids
            time.sleep(pause)
            pause = min(pause * 2, 0.05)
        _reap_orphans(set(self.helpers))

    def _stop_children(self) -> None:
        """SIGSTOP the shepherd's children (but its methods) until one look at them
        finds none it has not stopped: a child of a fork loop that got away by forking
        before the signal landed is a child of the shepherd again once its parent has
        exited. Bounded; the searches of ``_end_tree`` do the rest."""
        me, keep, stopped = os.getpid(), set(self.helpers), set()
        for _ in range(STOP_CHILDREN_ROUNDS):
            mine = proctree.children(me)
            if mine is None:
                return
            new = [pid for pid in mine if pid not in keep and pid not in stopped]
            if not new:
                return
            _signal_all(set(new), signal.SIGSTOP)
            stopped.update(new)


def _signal_all(pids: set[int], signum: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, signum)
        except OSError:
            pass


def _signal_groups(groups: set[int], signum: int) -> None:
    for group in groups:
        try:
            os.killpg(group, signum)
        except OSError:
            pass


def _unreaped_children(keep: set[int]) -> bool:
    """Whether the shepherd has a child other than ``keep`` once it has reaped those it
    can. Not the children's states: a process whose main thread has exited shows as a
    zombie while its other threads run, and cannot be reaped until they end."""
    _reap_orphans(keep)
    mine = proctree.children(os.getpid())
    return mine is None or any(pid not in keep for pid in mine)


def _reap_orphans(keep: set[int]) -> None:
    """Reap the children of the shepherd that are not ``keep`` (re-parented orphans)."""
    me = os.getpid()
    mine = proctree.children(me)
    if mine is None:
        mine = [p.pid for p in proctree.process_table().values() if p.ppid == me]
    for pid in mine:
        if pid not in keep:
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass


_wakeup: dict[str, int] = {}


def _sleep_until_event(pidfd: int | None, seconds: float, report: int | None = None,
                       session: session_relay.SessionRelay | None = None) -> None:
    """Sleep until the job exits, a signal arrives (an execd request), its child reports
    (``report``), its session has something to move or ``seconds``."""
    fds = [fd for fd in (pidfd, _wakeup.get("read"), report) if fd is not None]
    writable = []
    if session is not None:
        fds += session.read_fds()
        writable = session.write_fds()
    if pidfd is None:
        seconds = min(seconds, 0.02)
    try:
        ready, _, _ = select.select(fds, writable, [], seconds)
    except InterruptedError:
        return
    if _wakeup.get("read") in ready:
        try:
            os.read(_wakeup["read"], 512)
        except OSError:
            pass


def _procedure_user(spec: Mapping[str, Any], name: str | None
                    ) -> tuple[pwd.struct_passwd, list[int]] | None:
    """The passwd entry and groups of a ``user@`` prolog/epilog when we can switch to
    it; None: run as the job would (the owner, or ourselves)."""
    if name is None or os.geteuid() != 0:
        return None
    try:
        pw = pwd.getpwnam(name)
    except KeyError as e:
        raise JobFailure(FAILED_BEFORE_JOB, f"can't get password entry for user \"{name}\"") from e
    return pw, os.getgrouplist(name, pw.pw_gid)


@dataclass(frozen=True)
class _TaskContext:
    """What the shepherd knows of the task once its TMPDIR is made: for the job's and
    the procedures' environments."""
    spec: Mapping[str, Any]
    user: str
    home: str
    groups: list[int]
    job_dir: Path
    tmpdir: str
    arch: str
    tz: str | None


def _procedure_plan(which: str, ctx: _TaskContext, env: Mapping[str, str], text: str
                    ) -> _ChildPlan:
    """A prolog's or epilog's start. Its output goes to the job's output files, opened
    with the owner's ids; it runs as the owner, or as the ``user@`` it names. One that
    runs with other ids than the owner's (a ``root@`` prolog) gets nothing the owner
    chose: the fixed environment of ``jobdir.procedure_environment`` and ``/`` as its
    working directory (a root process in the owner's directory reads what the owner put
    there: a Python ``-m`` imports from it, git reads its config)."""
    spec = ctx.spec
    procedure_user, argv = jobdir.split_procedure(text)
    argv = jobdir.expand_words(argv, jobdir.procedure_variables(spec, env))
    other = _procedure_user(spec, procedure_user)
    switch = _switches(spec)
    owner_uid = int(spec["uid"]) if switch else os.geteuid()
    runner: Ids | None = (int(spec["uid"]), int(spec["gid"]), ctx.groups) if switch else None
    final_cwd = None
    env = dict(env)
    if other is not None:
        pw, groups = other
        runner = (pw.pw_uid, pw.pw_gid, groups)
        if pw.pw_uid != owner_uid:
            env = jobdir.procedure_environment(
                spec, pw.pw_name, pw.pw_dir, pw.pw_shell or "/bin/sh", ctx.tmpdir,
                str(ctx.job_dir), ctx.arch, ctx.tz)
            final_cwd = "/"
    return _ChildPlan(
        which=which, spec=spec, argv=argv, program=argv[0], env=env,
        cwd=working_dir(spec, ctx.home), home_of=_home_lookup(ctx.user, ctx.home),
        stdin="/dev/null", umask=int(jobdir.option(spec, "umask")) & 0o777,
        opener=_opener_ids(spec, ctx.groups), runner=runner, final_cwd=final_cwd,
        postfixes=jobdir.PE_PROCEDURE_POSTFIXES if which.startswith("pe_") else ("o", "e"))


def _run_procedure(which: str, ctx: _TaskContext, env: dict[str, str], job_dir: Path
                   ) -> dict[str, Any] | None:
    """Run the prolog or epilog to its end; None if it succeeded (or there is none), else
    the failure (failed code, message, action) for the result."""
    field_name, before, _ = jobdir.PROCEDURES[which]
    text = jobdir.option(ctx.spec, field_name)
    if not text:
        return None
    try:
        pid, report = _fork_child(_procedure_plan(which, ctx, env, text))
    except JobFailure as f:
        return {"failed": before, "action": jobdir.QUEUE_ERROR, "message": str(f)}
    except OSError as e:
        return {"failed": before, "action": jobdir.QUEUE_ERROR,
                "message": f"can't start {which}: {e}"}
    code = _wait_procedure(pid, report, job_dir)
    if report.failure is not None:
        return {"failed": before, "action": jobdir.QUEUE_ERROR, "message": report.failure[1]}
    outcome = jobdir.procedure_outcome(which, code, ctx.spec)
    if outcome is None:
        return None
    failed, action = outcome
    return {"failed": failed, "action": action, "exit_status": 0,
            "message": f"exit_status of {which} = {code}"}


def _wait_procedure(pid: int, report: _ChildReport, job_dir: Path) -> int:
    """Wait for a prolog/epilog, never blocked by it (its child may wait in an open() of
    the owner's path); a terminate or kill request ends it (the job is being deleted).
    Its exit status, 128+signal if killed."""
    pidfd = _pidfd(pid)
    try:
        while True:
            wpid, status = os.waitpid(pid, os.WNOHANG)
            if wpid == pid:
                report.read(block=True)
                return _exit_code(-os.WTERMSIG(status) if os.WIFSIGNALED(status)
                                  else os.WEXITSTATUS(status))
            report.read()
            if any(a in ("terminate", "kill", "migrate")
                   for a in jobdir.take_controls(job_dir)):
                try:
                    os.killpg(pid, signal.SIGKILL)
                except OSError:
                    pass
                try:
                    os.kill(pid, signal.SIGKILL)  # (before its setsid: no group yet)
                except OSError:
                    pass
            _sleep_until_event(pidfd, 0.2, report.fd)
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _exit_code(returncode: int) -> int:
    return 128 - returncode if returncode < 0 else returncode


def _run_task(job_dir: Path, spec: Mapping[str, Any]) -> dict[str, Any]:
    start = time.time()
    session = None
    try:
        user, home = _owner(spec)
        groups = _job_groups(spec, user) if _switches(spec) else []
        session = _connect_session(spec)
        tmpdir, own_tmpdir = _task_tmpdir(spec, job_dir)
    except JobFailure as f:
        if session is not None:
            session.fail(str(f))
        early: dict[str, Any] = {"failed": f.failed, "message": str(f)}
        return make_result(spec, pid=0, start=start, end=time.time(), status=0, usage=None,
                           maxvmem=0, failure=early)
    pid, status, usage, measured = 0, NEVER_STARTED_STATUS, None, None
    cgroup, failure = None, None
    try:
        _prepare_files(job_dir, spec)
        ctx = _TaskContext(spec, user, home, groups, job_dir, tmpdir, host_arch(),
                           os.environ.get("TZ"))
        env = job_environment(spec, user, home, tmpdir, str(job_dir), ctx.arch, ctx.tz)
        failure = _run_procedure("prolog", ctx, env, job_dir) or \
            _run_procedure("pe_start", ctx, env, job_dir)  # (sge_pe(5) start_proc_args)
        report = None
        if failure is None:
            cgroup = _job_cgroup(spec, job_dir)
            pid, report, failure = _start_job(spec, env, user, home, job_dir, groups, cgroup,
                                              session)
        if failure is None:
            _current_job["pid"] = pid
            watch = _JobWatch(job_dir, spec, pid, env, groups, cgroup, report, session)
            status, usage = watch.run()
            _current_job.pop("pid", None)
            if session is not None and watch.report.failure is None:
                session.finish_early(status)  # (no-op unless its streams are at the end)
            watch.end_leftovers()
            measured = watch.measure.fields(watch.control.ended_by)
            env.update(watch.report.paths)
            if session is not None and watch.report.failure is None and \
                    not session.finished:
                session.finish(status)  # qrsh returns now, not after the epilog
            if watch.report.failure is not None:  # it never ran: as if not started
                failed, message = watch.report.failure
                failure = {"failed": failed, "message": message}
                pid, status, usage, measured = 0, NEVER_STARTED_STATUS, None, None
            elif watch.report.paths:  # (not a job killed before its exec: it never ran)
                epilog = _run_procedure("pe_stop", ctx, env, job_dir) or \
                    _run_procedure("epilog", ctx, env, job_dir)
                if epilog is not None:
                    failure = {**epilog, "ran": True}
                watch.run_clean_command()  # (checkpoint(5): after the job and epilog)
    finally:
        if session is not None:  # (no-op once finished)
            session.fail(str((failure or {}).get("message") or "the job did not start"))
        if own_tmpdir:
            _remove_tmpdir(spec, tmpdir, groups)
        _remove_cgroup(cgroup)
    return make_result(spec, pid=pid, start=start, end=time.time(), status=status,
                       usage=usage, maxvmem=0, failure=failure, measured=measured)


def _connect_session(spec: Mapping[str, Any]) -> session_relay.SessionRelay | None:
    """An interactive job's connection to its client (None for a batch job)."""
    try:
        return session_relay.connect(spec)
    except session_relay.SessionFailed as err:
        raise JobFailure(FAILED_EARLY, str(err)) from err


def _remove_cgroup(cgroup: JobCgroup | None) -> None:
    """End whatever is left in the job's cgroup and remove it."""
    if cgroup is None:
        return
    try:
        cgroup.kill_all()
        cgroup.remove()
    except CgroupError:
        pass  # the execd's next start of this task empties and replaces it


def notify(socket_path: str | None, name: str) -> None:
    """One datagram to the execd; any error is ignored (it rescans job dirs anyway)."""
    if not socket_path:
        return
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.sendto(name.encode(), socket_path)
    except OSError:
        pass


def run_shepherd(job_dir: Path) -> None:
    """Run the job task described in ``job_dir`` to its end and record the result."""
    job_dir = Path(job_dir)
    jobdir.write_pid_file(job_dir / jobdir.SHEPHERD_PID_FILE, os.getpid())
    _install_signal_handlers()
    _reaper["on"] = proctree.become_subreaper()
    spec: Mapping[str, Any] = {}
    try:
        spec = jobdir.read_spec(job_dir)
        result = _run_task(job_dir, spec)
    except Exception as exc:  # noqa: BLE001 - whatever happens, the execd must get a result
        jobdir.write_atomic(job_dir / jobdir.ERROR_FILE, traceback.format_exc().encode())
        now = time.time()
        result = make_result(spec, pid=0, start=now, end=now, status=0, usage=None, maxvmem=0,
                             failure={"failed": FAILED_EARLY,
                                      "message": f"shepherd error: {exc!r}"[:4096]})
    jobdir.write_result(job_dir, result)
    notify(spec.get("notify_socket"), job_dir.name)


def signal_job(job_dir: Path, signum: int) -> bool:
    """Send ``signum`` to the job's process group; False if the job is not running."""
    found = jobdir.same_process(Path(job_dir) / jobdir.JOB_PID_FILE)
    if found is None:
        return False
    try:
        os.killpg(found[0], signum)
    except OSError:
        return False
    return True


FALLBACK_SIGNALS = {"kill": signal.SIGKILL, "terminate": signal.SIGKILL,
                    "migrate": signal.SIGKILL,
                    "suspend": signal.SIGSTOP, "resume": signal.SIGCONT}


def request_action(job_dir: Path, action: str) -> bool:
    """Ask the task's shepherd to ``action`` (suspend, resume, terminate, kill) its job,
    by a request file and SIGUSR1; the shepherd applies the queue's methods and the
    -notify warnings. Without a live shepherd, the default signal goes to the job's
    process group directly. False when there is nothing left to act on."""
    job_dir = Path(job_dir)
    shepherd = jobdir.live_pid(job_dir / jobdir.SHEPHERD_PID_FILE)
    if shepherd is None:
        return signal_job(job_dir, FALLBACK_SIGNALS[action])
    jobdir.write_control(job_dir, action)
    try:
        os.kill(shepherd, signal.SIGUSR1)
    except OSError:
        return signal_job(job_dir, FALLBACK_SIGNALS[action])
    return True
