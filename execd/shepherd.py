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
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from execd import jobdir, proctree, rlimits, safefs
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
               job_dir: Path, groups: list[int], cgroup: JobCgroup | None = None) -> int:
    """Start the job in a new session with its owner's ids; its pid.

    subprocess forks in C (vfork where it can), so no Python code runs in the child:
    on this machine class that halves the cost of starting a job. Failures before the
    job runs raise JobFailure with Grid Engine's failure code.
    """
    script = str(job_dir / jobdir.SCRIPT_FILE)
    fds: list[int] = []
    join_fd = _join_fd(cgroup)
    if join_fd is not None:
        fds.append(join_fd)
    try:
        cwd = working_dir(spec, home)
        with _as_job_user(spec, groups):
            _enter_cwd(cwd)
            stdin_fd = os.open("/dev/null" if stdin_is_devnull(spec) else script,
                               os.O_RDONLY | os.O_CLOEXEC)
            fds.append(stdin_fd)
            out_fd, err_fd = _open_stdio(spec, env, cwd, _home_lookup(user, home))
            fds += [out_fd, err_fd]
            program, argv = job_argv(spec, script)
            _check_program(spec, program)
            starter = jobdir.option(spec, "starter_method")
            if starter:
                program, argv = starter_argv(spec, starter, argv)
                env.update(starter_environment(spec))
                _check_program({**spec, "binary": False, "shell_start_mode": "unix_behavior"},
                               program)
        return _popen(argv, program, env, (stdin_fd, out_fd, err_fd), spec, groups,
                      _switches(spec), join_fd)
    finally:
        os.chdir("/")  # the job keeps its working directory; we hold none busy
        for fd in set(fds):
            os.close(fd)


def _popen(argv: list[str], program: str, env: dict[str, str],
           stdio: tuple[int, int, int], spec: Mapping[str, Any], groups: list[int],
           switch: bool, join_fd: int | None = None) -> int:
    """subprocess.Popen in the shepherd's working directory, the job's by now.

    A job with limits, a nice value or a processor set gets them in the child before its
    ids change (a raised hard limit or a negative nice value needs root), so that child
    runs Python and switches ids itself; other jobs keep the fast path without Python in
    the child (switching ids only when they differ lets subprocess use vfork). With
    ``join_fd`` (the job's ``cgroup.procs``) the child joins the job's cgroup first.
    """
    setup = _child_setup(spec, groups, switch, join_fd)
    ids: dict[str, Any] = ({"user": spec["uid"], "group": spec["gid"], "extra_groups": groups}
                           if switch and setup is None else {})
    try:
        proc = subprocess.Popen(argv, executable=program, stdin=stdio[0], stdout=stdio[1],
                                stderr=stdio[2], env=env, start_new_session=True,
                                restore_signals=True, close_fds=True,
                                umask=int(jobdir.option(spec, "umask")) & 0o777,
                                preexec_fn=setup, **ids)
    except (OSError, subprocess.SubprocessError) as e:
        raise JobFailure(FAILED_BEFORE_JOB, f"can't start job: {e}") from e
    _spawned[proc.pid] = proc  # the shepherd, not Popen, reaps it (os.wait4)
    return proc.pid


def _child_setup(spec: Mapping[str, Any], groups: list[int], switch: bool,
                 join_fd: int | None = None) -> Callable[[], None] | None:
    """What the job's child does before exec: join its cgroup, limits, nice, CPU set,
    then its ids."""
    limits = rlimits.plan(jobdir.option(spec, "limits"), rlimits.current_limits(),
                          os.geteuid() == 0)
    priority = int(jobdir.option(spec, "priority"))
    cpus = processor_set(jobdir.option(spec, "processors"), os.cpu_count() or 1)
    if not limits and not priority and not cpus and join_fd is None:
        return None
    uid, gid = int(spec["uid"]), int(spec["gid"])

    def setup() -> None:
        if join_fd is not None:
            try:
                os.write(join_fd, b"0")
            except OSError:
                pass  # outside its cgroup the job is still followed by its process tree
        if priority:
            os.setpriority(os.PRIO_PROCESS, 0, priority)
        if cpus:
            os.sched_setaffinity(0, cpus)
        rlimits.apply(limits)
        if switch:
            os.setgroups(groups)
            os.setresgid(gid, gid, gid)
            os.setresuid(uid, uid, uid)
    return setup


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
               job_dir: Path, groups: list[int], cgroup: JobCgroup | None = None
               ) -> tuple[int, dict[str, Any] | None]:
    """(pid, None) once the job runs, (0, failure) if it could not start."""
    try:
        return _spawn_job(spec, env, user, home, job_dir, groups, cgroup), None
    except JobFailure as f:
        return 0, {"failed": f.failed, "message": str(f)}


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
                 cgroup: JobCgroup | None = None) -> None:
        self.job_dir, self.spec, self.pid, self.env, self.groups = \
            job_dir, spec, pid, env, groups
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
                    return status, usage
                now = time.monotonic() - self.start
                steps: list[Step] = []
                for action in jobdir.take_controls(self.job_dir):
                    steps += self.control.request(action, now)
                if time.monotonic() >= next_sample:
                    next_sample = time.monotonic() + SAMPLE_INTERVAL
                    self.measure.add(self._usage())
                    if next_sample >= next_usage:
                        next_usage = next_sample + USAGE_FILE_INTERVAL
                        self._write_usage()
                steps += self.control.tick(now, self.measure.cpu, self.measure.vmem)
                for step in steps:
                    self._carry_out(step)
                self._reap_helpers()
                due = self.control.next_due()
                wake = next_sample - time.monotonic()
                if due is not None:
                    wake = min(wake, due - (time.monotonic() - self.start))
                _sleep_until_event(pidfd, max(0.0, wake))
        finally:
            if pidfd is not None:
                os.close(pidfd)

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
        for _ in range(3):
            table, pids = self._tree()
            pids.discard(self.pid)
            if not pids:
                break
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            self.measure.add(proctree.usage(table, pids))
            time.sleep(0.05)
        _reap_orphans(set(self.helpers))


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


def _sleep_until_event(pidfd: int | None, seconds: float) -> None:
    """Sleep until the job exits, a signal arrives (an execd request) or ``seconds``."""
    fds = [fd for fd in (pidfd, _wakeup.get("read")) if fd is not None]
    if pidfd is None:
        seconds = min(seconds, 0.02)
    try:
        ready, _, _ = select.select(fds, [], [], seconds)
    except InterruptedError:
        return
    if _wakeup.get("read") in ready:
        try:
            os.read(_wakeup["read"], 512)
        except OSError:
            pass


def _procedure_user(spec: Mapping[str, Any], name: str | None
                    ) -> tuple[int, int, list[int]] | None:
    """(uid, gid, groups) of a ``user@`` prolog/epilog when we can switch to it; None:
    run as the job would (the owner, or ourselves)."""
    if name is None or os.geteuid() != 0:
        return None
    try:
        pw = pwd.getpwnam(name)
    except KeyError as e:
        raise JobFailure(FAILED_BEFORE_JOB, f"can't get password entry for user \"{name}\"") from e
    return pw.pw_uid, pw.pw_gid, os.getgrouplist(name, pw.pw_gid)


def _run_procedure(which: str, spec: Mapping[str, Any], env: dict[str, str], user: str,
                   home: str, groups: list[int], job_dir: Path) -> dict[str, Any] | None:
    """Run the prolog or epilog to its end; None if it succeeded (or there is none), else
    the failure (failed code, message, action) for the result.

    It runs with the job's environment and working directory, its output appended to the
    job's output files, as the job owner or the ``user@`` it names.
    """
    text = jobdir.option(spec, which)
    if not text:
        return None
    before = jobdir.FAILED_BEFORE_PROLOG if which == "prolog" else jobdir.FAILED_BEFORE_EPILOG
    fds: list[int] = []
    try:
        procedure_user, argv = jobdir.split_procedure(text)
        argv = jobdir.expand_words(argv, jobdir.procedure_variables(spec, env))
        ids = _procedure_user(spec, procedure_user)
        with _as_job_user(spec, groups):
            cwd = working_dir(spec, home)
            _enter_cwd(cwd)
            out_fd, err_fd = _open_stdio(spec, env, cwd, _home_lookup(user, home))
            fds += [out_fd, err_fd]
        if ids is None and _switches(spec):
            ids = (int(spec["uid"]), int(spec["gid"]), groups)
        switch: dict[str, Any] = ({"user": ids[0], "group": ids[1], "extra_groups": ids[2]}
                                  if ids is not None else {})
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out_fd,
                                    stderr=err_fd, env=env, start_new_session=True,
                                    close_fds=True, **switch)
        except (OSError, subprocess.SubprocessError) as e:
            return {"failed": before, "action": jobdir.QUEUE_ERROR,
                    "message": f"can't start {which} \"{argv[0]}\": {e}"}
    except JobFailure as f:
        return {"failed": before, "action": jobdir.QUEUE_ERROR, "message": str(f)}
    finally:
        os.chdir("/")
        for fd in set(fds):
            os.close(fd)
    code = _wait_procedure(proc, job_dir)
    outcome = jobdir.procedure_outcome(which, code)
    if outcome is None:
        return None
    failed, action = outcome
    return {"failed": failed, "action": action, "exit_status": 0,
            "message": f"exit_status of {which} = {code}"}


def _wait_procedure(proc: subprocess.Popen[bytes], job_dir: Path) -> int:
    """Wait for a prolog/epilog; a terminate or kill request ends it (the job is being
    deleted). Its exit status, 128+signal if killed."""
    while True:
        try:
            return _exit_code(proc.wait(timeout=0.2))
        except subprocess.TimeoutExpired:
            pass
        if any(a in ("terminate", "kill") for a in jobdir.take_controls(job_dir)):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass


def _exit_code(returncode: int) -> int:
    return 128 - returncode if returncode < 0 else returncode


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
    pid, status, usage, measured = 0, NEVER_STARTED_STATUS, None, None
    cgroup = None
    try:
        _prepare_files(job_dir, spec)
        env = job_environment(spec, user, home, tmpdir, str(job_dir), host_arch(),
                              os.environ.get("TZ"))
        failure = _run_procedure("prolog", spec, env, user, home, groups, job_dir)
        if failure is None:
            cgroup = _job_cgroup(spec, job_dir)
            pid, failure = _start_job(spec, env, user, home, job_dir, groups, cgroup)
        if failure is None:
            _current_job["pid"] = pid
            jobdir.write_pid_file(job_dir / jobdir.JOB_PID_FILE, pid)
            watch = _JobWatch(job_dir, spec, pid, env, groups, cgroup)
            status, usage = watch.run()
            _spawned.pop(pid).returncode = os.waitstatus_to_exitcode(status)
            _current_job.pop("pid", None)
            watch.end_leftovers()
            measured = watch.measure.fields(watch.control.ended_by)
            epilog = _run_procedure("epilog", spec, env, user, home, groups, job_dir)
            if epilog is not None:
                failure = {**epilog, "ran": True}
    finally:
        _remove_tmpdir(spec, tmpdir, groups)
        _remove_cgroup(cgroup)
    return make_result(spec, pid=pid, start=start, end=time.time(), status=status,
                       usage=usage, maxvmem=0, failure=failure, measured=measured)


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
