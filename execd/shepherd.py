"""The shepherd: runs one job task from its job directory and records how it ended.

Owns, for one task: the TMPDIR, the PE host file, the job environment (as Grid Engine's
execd and sge_shepherd build it), stdout/stderr path resolution, user switching, starting
the job per ``shell_start_mode`` in its own session, waiting for it (``os.wait4``),
sampling ``maxvmem`` and writing ``result.msgpack``. It never talks to the execd except
for one optional datagram at the end, so the job survives an execd restart.

Spec keys (``spec.msgpack``, written by the execd) are listed in ``REQUIRED_KEYS`` and
``OPTIONAL_KEYS`` in execd/jobdir.py, which also holds the pure spec -> job mapping.

A root shepherd reaches nothing of the job owner's with root's rights (docs/security.md):
the working directory, the script on stdin and the output files are entered and opened
with the owner's effective ids, so that the kernel checks the owner's permissions and a
link the owner planted leads only where the owner may go; the TMPDIR, whose name anyone
can predict, is made with execd/safefs.py (a planted entry fails the job) and removed
with the owner's rights.
"""
from __future__ import annotations

import errno
import os
import pwd
import select
import signal
import socket
import subprocess
import time
import traceback
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from execd import jobdir, safefs
from execd.jobdir import (
    FAILED_BEFORE_JOB, FAILED_CWD, FAILED_EARLY, FAILED_OUTPUT, FAILED_SHELL, job_argv,
    job_environment, make_result, output_path, stdin_is_devnull, tmpdir_path, uses_shell,
    working_dir,
)
from execd.load import host_arch

SAMPLE_INTERVAL = 0.5
# Grid Engine makes TMPDIR 0755; nobody but the owner needs it, and what a job keeps
# there (umask 022) would be readable by every user of the host.
TMPDIR_MODE = 0o700
NEVER_STARTED_STATUS = 1 << 8  # wait status of exit(1): a job that could not start


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
    try:
        return os.getgrouplist(user, spec["gid"])
    except OSError as e:
        raise JobFailure(FAILED_BEFORE_JOB, f"initgroups() failed with errno {e.errno}") from e


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


def _open_output(path: str) -> int:
    try:
        return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o644)
    except OSError as e:
        raise JobFailure(FAILED_OUTPUT,
                         f"error: can't open output file \"{path}\": {e.strerror}") from e


def _open_stdio(spec: Mapping[str, Any], env: dict[str, str], cwd: str,
                home_of: jobdir.HomeOf) -> tuple[int, int]:
    """Open the job's stdout/stderr (as the job user) and export their paths."""
    out = output_path(spec, "o", cwd, home_of, os.path.isdir)
    err = out if spec["merge"] else output_path(spec, "e", cwd, home_of, os.path.isdir)
    out_fd = _open_output(out)
    err_fd = out_fd if spec["merge"] else _open_output(err)
    stdin_path = "/dev/null" if stdin_is_devnull(spec) else env["JOB_SCRIPT"]
    env.update(SGE_STDIN_PATH=stdin_path, SGE_STDOUT_PATH=out, SGE_STDERR_PATH=err,
               SGE_CWD_PATH=cwd)
    return out_fd, err_fd


def _enter_cwd(cwd: str) -> None:
    """chdir into the job's working directory, which the job inherits.

    Called with the owner's ids: subprocess's ``cwd=`` would chdir as root, before it
    switches ids, into whatever the path names by then.
    """
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


def _spawn_job(spec: Mapping[str, Any], env: dict[str, str], user: str, home: str,
               job_dir: Path, groups: list[int]) -> int:
    """Start the job in a new session with its owner's ids; its pid.

    subprocess forks in C (vfork where it can), so no Python code runs in the child:
    on this machine class that halves the cost of starting a job. Failures before the
    job runs raise JobFailure with Grid Engine's failure code.
    """
    script = str(job_dir / jobdir.SCRIPT_FILE)
    fds: list[int] = []
    try:
        cwd = working_dir(spec, home)
        with _as_job_user(spec, groups):
            _enter_cwd(cwd)
            fds.append(os.open("/dev/null" if stdin_is_devnull(spec) else script,
                               os.O_RDONLY | os.O_CLOEXEC))
            out_fd, err_fd = _open_stdio(spec, env, cwd, _home_lookup(user, home))
            fds += [out_fd, err_fd]
            program, argv = job_argv(spec, script)
            _check_program(spec, program)
        # Switching ids only when they differ lets subprocess use vfork for our own jobs.
        return _popen(argv, program, env, (fds[0], out_fd, err_fd), spec, groups,
                      _switches(spec))
    finally:
        os.chdir("/")  # the job keeps its working directory; we hold none busy
        for fd in set(fds):
            os.close(fd)


def _popen(argv: list[str], program: str, env: dict[str, str],
           stdio: tuple[int, int, int], spec: Mapping[str, Any], groups: list[int],
           switch: bool) -> int:
    """subprocess.Popen in the shepherd's working directory, the job's by now."""
    ids: dict[str, Any] = ({"user": spec["uid"], "group": spec["gid"], "extra_groups": groups}
                           if switch else {})
    try:
        proc = subprocess.Popen(argv, executable=program, stdin=stdio[0], stdout=stdio[1],
                                stderr=stdio[2], env=env, start_new_session=True,
                                restore_signals=True, close_fds=True,
                                umask=int(jobdir.option(spec, "umask")) & 0o777, **ids)
    except OSError as e:
        raise JobFailure(FAILED_BEFORE_JOB, f"can't start job: {e}") from e
    _spawned[proc.pid] = proc  # the shepherd, not Popen, reaps it (os.wait4)
    return proc.pid


_spawned: dict[int, subprocess.Popen[bytes]] = {}


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
    """The job's TMPDIR, new, the owner's, 0700.

    Its name ``<job>.<task>.<queue>`` is predictable and its base usually world-writable:
    an entry found there is taken only if it is a real directory of the owner (left by an
    earlier run of the same task); a link, a file or another user's directory fails the
    job, as Grid Engine fails a job whose TMPDIR it cannot make.
    """
    path = tmpdir_path(spec)
    uid, gid = _owner_ids(spec)
    try:
        safefs.make_dir(path, TMPDIR_MODE, uid, gid)
    except safefs.UnsafePath as e:
        raise JobFailure(FAILED_EARLY, f"can't make tmpdir {path}: it {e.reason}") from e
    except OSError as e:
        raise JobFailure(FAILED_EARLY, f"can't make tmpdir {path}: {e.strerror}") from e
    return path


def _remove_tmpdir(spec: Mapping[str, Any], path: str, groups: list[int]) -> None:
    """Remove TMPDIR with the owner's rights: all in it is the owner's, so root follows
    nothing there. Its top then goes as root if the base is not the owner's to change
    (rmdir never follows a link). What cannot be removed stays; never an error."""
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
               job_dir: Path, groups: list[int]) -> tuple[int, dict[str, Any] | None]:
    """(pid, None) once the job runs, (0, failure) if it could not start."""
    try:
        return _spawn_job(spec, env, user, home, job_dir, groups), None
    except JobFailure as f:
        return 0, {"failed": f.failed, "message": str(f)}


def session_vmem(sid: int) -> int:
    """Sum of the virtual sizes (bytes) of all processes of session ``sid``."""
    total = 0
    for name in os.listdir("/proc"):
        if name.isdigit():
            fields = jobdir.proc_stat_fields(int(name))
            if fields and len(fields) > 20 and int(fields[3]) == sid:
                total += int(fields[20])
    return total


def _pidfd(pid: int) -> int | None:
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _wait_job(pid: int) -> tuple[int, Any, int]:
    """Wait for the job: (wait status, rusage, maxvmem), sampling vmem meanwhile."""
    pidfd, maxvmem = _pidfd(pid), 0
    next_sample = time.monotonic() + SAMPLE_INTERVAL
    try:
        while True:
            wpid, status, usage = os.wait4(pid, os.WNOHANG)
            if wpid == pid:
                return status, usage, maxvmem
            delay = max(0.0, next_sample - time.monotonic())
            if pidfd is not None:
                select.select([pidfd], [], [], delay)  # wakes at once when the job exits
            else:
                time.sleep(min(delay, 0.02))
            if time.monotonic() >= next_sample:
                maxvmem = max(maxvmem, session_vmem(pid))
                next_sample = time.monotonic() + SAMPLE_INTERVAL
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _run_task(job_dir: Path, spec: Mapping[str, Any]) -> dict[str, Any]:
    start = time.time()
    try:
        missing = [key for key in jobdir.REQUIRED_KEYS if key not in spec]
        if missing:
            raise JobFailure(FAILED_EARLY, f"job spec lacks {', '.join(missing)}")
        user, home = _owner(spec)
        groups = _job_groups(spec, user) if _switches(spec) else []
        tmpdir = _make_tmpdir(spec)
    except JobFailure as f:
        early: dict[str, Any] = {"failed": f.failed, "message": str(f)}
        return make_result(spec, pid=0, start=start, end=time.time(), status=0, usage=None,
                           maxvmem=0, failure=early)
    try:
        _prepare_files(job_dir, spec)
        env = job_environment(spec, user, home, tmpdir, str(job_dir), host_arch(),
                              os.environ.get("TZ"))
        pid, failure = _start_job(spec, env, user, home, job_dir, groups)
        status, usage, maxvmem = NEVER_STARTED_STATUS, None, 0
        if failure is None:
            _current_job["pid"] = pid
            jobdir.write_pid_file(job_dir / jobdir.JOB_PID_FILE, pid)
            status, usage, maxvmem = _wait_job(pid)
            _spawned.pop(pid).returncode = os.waitstatus_to_exitcode(status)
        _current_job.pop("pid", None)
    finally:
        _remove_tmpdir(spec, tmpdir, groups)
    return make_result(spec, pid=pid, start=start, end=time.time(), status=status,
                       usage=usage, maxvmem=maxvmem, failure=failure)


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
    spec: Mapping[str, Any] = {}
    try:
        spec = jobdir.read_spec(job_dir)
        result = _run_task(job_dir, spec)
    except Exception:  # noqa: BLE001 - whatever happens, the execd must get a result
        jobdir.write_atomic(job_dir / jobdir.ERROR_FILE, traceback.format_exc().encode())
        now = time.time()
        result = make_result(spec, pid=0, start=now, end=now, status=0, usage=None, maxvmem=0,
                             failure={"failed": FAILED_EARLY, "message": "shepherd error"})
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
