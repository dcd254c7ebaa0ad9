"""The job directory: the files an execd and a shepherd exchange, and pid files.

A job directory is the only contract between the execd and a shepherd, so that either can
die and restart without losing the job (as Grid Engine's ``active_jobs/<job>.<task>``):

- ``spec.msgpack``   written by the execd before the launch (what to run, see shepherd.py)
- ``script``         the job script bytes (script jobs only)
- ``shepherd.pid``   "<pid> <start time>" written by the shepherd when it starts
- ``job.pid``        "<pid> <start time>" written once the job has been exec'd
- ``pe_hostfile``    the parallel environment host file, when the job has one
- ``result.msgpack`` exit status and usage, written atomically when the job is over
- ``error``          the shepherd's own error text, if it failed unexpectedly

The directory is the execd's (0755: the job owner reads its script and PE host file in
it, and nobody else can add to it); the spec and the result are the execd's only (0600),
the script is the job owner's (0700). Every file is written under a fresh name
(``O_EXCL | O_NOFOLLOW``) and renamed into place, so nothing planted is written through.

The second half is pure: what a spec means for the job (TMPDIR name, output file
paths with Grid Engine's path aliases, the job environment, the command line, exit
status and failure codes), so that it can be tested without processes.

A pid alone is not an identity (pids are reused), so pid files carry the process start
time from ``/proc/<pid>/stat`` (field 22, clock ticks since boot) and a pid is believed
only when both still match.
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import msgpack

from common import start_record
from execd import safefs

SPEC_FILE = "spec.msgpack"
SCRIPT_FILE = "script"
RESULT_FILE = "result.msgpack"
USAGE_FILE = "usage.msgpack"  # the running job's usage, rewritten by its shepherd
USAGE_KEYS = ("cpu", "mem", "io", "vmem", "maxvmem")
# A job owner controls its processes' summed virtual size (a huge PROT_NONE map, forked
# many times): figures are capped below the wire's bounds, so that no job can make its
# host's reports or its own result unacceptable to the qmaster.
USAGE_MAX = 1e18


def capped(value: float) -> float:
    """A usage figure within [0, USAGE_MAX]."""
    return min(max(float(value), 0.0), USAGE_MAX)
SHEPHERD_PID_FILE = "shepherd.pid"
JOB_PID_FILE = "job.pid"
PE_HOSTFILE = "pe_hostfile"
ERROR_FILE = "error"
JOB_DIR_MODE = 0o755  # the job owner reaches its script and PE host file
PRIVATE_FILE_MODE = 0o600
SCRIPT_MODE = 0o700
PE_HOSTFILE_MODE = 0o644  # read by the job's MPI start-up


def write_atomic(path: Path, data: bytes, mode: int = PRIVATE_FILE_MODE, durable: bool = True,
                 owner: tuple[int, int] | None = None) -> None:
    """Write ``data`` to ``path`` so that readers see either nothing or all of it.

    The data goes to a new file (``O_EXCL | O_NOFOLLOW``, exactly ``mode``, handed to
    ``owner`` = (uid, gid) by ``fchown`` if given) that is then renamed over ``path``;
    a leftover temporary name is unlinked first, which never follows a link.
    ``durable`` also flushes it to disk first (results must survive a host crash; pid
    files need not, they are meaningless after a reboot).
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    uid, gid = owner if owner is not None else (None, None)
    fd = safefs.create_file(tmp, mode, uid, gid)
    try:
        os.write(fd, data)
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)
    os.rename(tmp, path)


def make_job_dir(job_dir: Path) -> None:
    """Make ``job_dir`` (its parent must exist); an existing one must be a real directory
    of ours (a start interrupted before its spec was written), else UnsafePath."""
    safefs.make_dir(job_dir, JOB_DIR_MODE)


def write_spec(job_dir: Path, spec: Mapping[str, Any], script: bytes | None = None) -> None:
    """Make ``job_dir`` and store the spec and, for script jobs, the script, which
    belongs to the job owner when the shepherd will switch to them.

    Not flushed to disk: after a host crash the job is gone anyway, and the qmaster
    learns that from the execd's registration; only results must outlive a crash.
    """
    make_job_dir(job_dir)
    if script is not None:
        owner = (int(spec["uid"]), int(spec["gid"])) if spec.get("switch_user") else None
        write_atomic(job_dir / SCRIPT_FILE, script, SCRIPT_MODE, durable=False, owner=owner)
    write_atomic(job_dir / SPEC_FILE, msgpack.packb(dict(spec), use_bin_type=True),
                 durable=False)


def read_spec(job_dir: Path) -> dict[str, Any]:
    """The spec the execd wrote, checked against the record (``common.start_record``),
    every optional field at its default (a file of an older execd reads too); a spec
    lacking a field or holding a value of the wrong shape raises ``SpecError`` (a
    ValueError) naming the field."""
    raw = msgpack.unpackb((job_dir / SPEC_FILE).read_bytes(), raw=False)
    return start_record.read_file(raw)


def write_result(job_dir: Path, result: Mapping[str, Any]) -> None:
    """Store the job's result atomically (tmp file + rename)."""
    write_atomic(job_dir / RESULT_FILE, msgpack.packb(dict(result), use_bin_type=True))


def read_result(job_dir: Path) -> dict[str, Any] | None:
    """The job's result, or None while the job has not finished."""
    try:
        data = (job_dir / RESULT_FILE).read_bytes()
    except FileNotFoundError:
        return None
    return msgpack.unpackb(data, raw=False)


def write_usage(job_dir: Path, usage: Mapping[str, float]) -> None:
    """The running job's usage so far (USAGE_KEYS), for the execd's load reports."""
    write_atomic(job_dir / USAGE_FILE,
                 msgpack.packb({k: capped(usage[k]) for k in USAGE_KEYS}, use_bin_type=True),
                 durable=False)  # rewritten every few seconds; a lost one costs nothing


def read_usage(job_dir: Path) -> dict[str, float] | None:
    """The usage the shepherd last wrote, or None (none yet, or not readable)."""
    try:
        data = msgpack.unpackb((job_dir / USAGE_FILE).read_bytes(), raw=False)
        return {k: capped(data[k]) for k in USAGE_KEYS}
    except (OSError, ValueError, TypeError, KeyError, AttributeError,
            msgpack.UnpackException):
        return None


def proc_stat_fields(pid: int) -> list[str] | None:
    """Fields 3.. of ``/proc/<pid>/stat`` (index 0 = state, 3 = session, 19 = start time,
    20 = vsize), or None if there is no such process."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read().decode("ascii", "replace")
    except OSError:
        return None
    # The command name (field 2) may contain blanks and parentheses: split after the last ')'.
    return raw[raw.rfind(")") + 2:].split()


def proc_stat(pid: int) -> tuple[str, int] | None:
    """(state letter, start time in clock ticks) of a process, or None if there is none."""
    fields = proc_stat_fields(pid)
    return (fields[0], int(fields[19])) if fields else None


def same_process(path: Path) -> tuple[int, str] | None:
    """(pid, state) if the process recorded in pid file ``path`` exists (even as a zombie)."""
    recorded = read_pid_file(path)
    if recorded is None:
        return None
    stat = proc_stat(recorded[0])
    if stat is None or stat[1] != recorded[1]:
        return None
    return recorded[0], stat[0]


def write_pid_file(path: Path, pid: int) -> None:
    """Record ``pid`` together with its start time, atomically."""
    stat = proc_stat(pid)
    start = stat[1] if stat else 0
    write_atomic(path, f"{pid} {start}\n".encode(), durable=False)


def read_pid_file(path: Path) -> tuple[int, int] | None:
    """(pid, start time) from a pid file, or None if it is missing or unreadable."""
    try:
        pid_text, start_text = path.read_text().split()
        return int(pid_text), int(start_text)
    except (OSError, ValueError):
        return None


CONTROL_PREFIX = "control."


def write_control(job_dir: Path, action: str) -> None:
    """Leave a request (suspend, resume, terminate, kill) for the job's shepherd, which
    takes it when signalled (SIGUSR1) or at its next look."""
    write_atomic(Path(job_dir) / f"{CONTROL_PREFIX}{time.time_ns()}.{action}", b"",
                 durable=False)


def take_controls(job_dir: Path) -> list[str]:
    """The pending requests, oldest first, each removed as it is taken."""
    try:
        names = sorted((n for n in os.listdir(job_dir) if n.startswith(CONTROL_PREFIX)),
                       key=lambda n: int(n.split(".")[1]) if n.split(".")[1].isdigit() else 0)
    except OSError:
        return []
    actions = []
    for name in names:
        try:
            os.unlink(Path(job_dir) / name)
        except OSError:
            continue
        actions.append(name.rsplit(".", 1)[-1])
    return actions


def live_pid(path: Path) -> int | None:
    """The pid recorded in ``path`` if that very process still runs (not a zombie)."""
    found = same_process(path)
    if found is None or found[1] in ("Z", "X"):
        return None
    return found[0]


# ---------------------------------------------------------------- failure codes, defaults

# Grid Engine's failure codes (sge_status(5), accounting(5) "failed") and their texts.
FAILED_REASONS: dict[int, str] = {
    0: "",
    1: "assumedly before job",
    11: "before job",
    25: "rescheduling",
    26: "opening input/output file",
    27: "searching requested shell",
    28: "changing into working directory",
    30: "application error returned",
    37: "qmaster enforced h_rt, h_cpu, or h_vmem limit",
    100: "assumedly after job",
}
FAILED_REASONS.update({7: "before prolog", 8: "in prolog", 9: "before pestart",
                       10: "in pestart", 12: "before pestop", 13: "in pestop",
                       14: "before epilog", 15: "in epilog"})
FAILED_EARLY, FAILED_BEFORE_JOB, FAILED_AGAIN = 1, 11, 25
FAILED_BEFORE_PROLOG, FAILED_PROLOG, FAILED_BEFORE_EPILOG, FAILED_EPILOG = 7, 8, 14, 15
# the procedures around the job, in the order they run: (spec field, failed code before
# it could run, failed code when it failed), sge_status(5)'s codes
PROCEDURES = {"prolog": ("prolog", 7, 8), "pe_start": ("pe_start_proc_args", 9, 10),
              "pe_stop": ("pe_stop_proc_args", 12, 13), "epilog": ("epilog", 14, 15)}
# where a PE procedure's stdout and stderr go by default: <job_name>.po<id>, .pe<id>
PE_PROCEDURE_POSTFIXES = ("po", "pe")
# what the qmaster is to do with a task whose job or procedure ended so (result "action")
RESCHEDULE, JOB_ERROR, QUEUE_ERROR = "reschedule", "job_error", "queue_error"
FAILED_LIMIT, FAILED_SIGNALLED = 37, 100
# killed by the shepherd, or by the kernel over a cgroup's memory.max (h_vmem or h_rss)
LIMIT_KILLS = frozenset({"h_rt", "s_rt", "h_cpu", "h_vmem", "h_rss"})
FAILED_OUTPUT, FAILED_SHELL, FAILED_CWD, FAILED_APPERROR = 26, 27, 28, 30
RESCHEDULE_EXIT_STATUS, APPERROR_EXIT_STATUS = 99, 100

SGE_DEFAULT_PATH = "/usr/local/bin:/bin:/usr/bin"
RSH_COMMAND = "builtin"  # sge_conf(5) rsh_command, the one transport of qrsh -inherit
# the spec's fields (common.start_record is the record: these are derived from it)
REQUIRED_KEYS = start_record.REQUIRED_KEYS
OPTIONAL_KEYS = start_record.OPTIONAL_KEYS  # their defaults are Grid Engine's defaults
SpecError = start_record.SpecError
# the record's schema is built at import, so that the zygote (execd.launcher) holds it
# before it forks a shepherd: a shepherd that built it would first import common.wire
# and common.jobspec, about 10 ms of every job's start
start_record.file_schema()
HomeOf = Callable[[str], str]  # user name -> home directory


def option(spec: Mapping[str, Any], key: str) -> Any:
    """An optional spec value, or Grid Engine's default for it."""
    return spec.get(key, OPTIONAL_KEYS[key])


# ---------------------------------------------------------------- pure: naming and paths

def tmpdir_path(spec: Mapping[str, Any]) -> str:
    """``<tmpdir_base>/<job_id>.<task_id or 1>.<queue>`` as Grid Engine names it."""
    task = spec["task_id"] if spec["task_id"] is not None else 1
    return os.path.join(spec["tmpdir_base"], f"{spec['job_id']}.{task}.{spec['queue']}")


def select_path(path_list: str | None, host: str) -> str | None:
    """The entry of ``[[host]:]path,...`` for ``host``, else the entry without a host."""
    if not path_list:
        return None
    default = None
    for entry in path_list.split(","):
        entry_host, sep, path = entry.partition(":")
        if not sep:
            entry_host, path = "", entry
        if not entry_host:
            default = path if default is None else default
        elif entry_host.split(".")[0] == host.split(".")[0]:
            return path
    return default


def expand_aliases(path: str, spec: Mapping[str, Any], home_of: HomeOf) -> str:
    """Expand ``~``, ``~user`` and $HOME $USER $JOB_ID $JOB_NAME $HOSTNAME $TASK_ID.

    ``home_of(user)`` returns a home directory. As in Grid Engine, $TASK_ID is only
    replaced for array tasks and unknown ``$`` words stay as they are.
    """
    if path.startswith("~"):
        user, sep, rest = path[1:].partition("/")
        path = home_of(user or spec["owner"]) + sep + rest
    words = {"$HOME": home_of(spec["owner"]), "$USER": spec["owner"],
             "$JOB_ID": str(spec["job_id"]), "$JOB_NAME": spec["job_name"],
             "$HOSTNAME": spec["host"]}
    if spec["task_id"] is not None:
        words["$TASK_ID"] = str(spec["task_id"])
    out, i = [], 0
    while i < len(path):
        word = next((w for w in words if path.startswith(w, i)), None) if path[i] == "$" else None
        out.append(words[word] if word else path[i])
        i += len(word) if word else 1
    return "".join(out)


def default_output_name(spec: Mapping[str, Any], postfix: str) -> str:
    """``<job_name>.o<job_id>`` or ``<job_name>.o<job_id>.<task_id>`` (postfix "o"/"e")."""
    name = f"{spec['job_name']}.{postfix}{spec['job_id']}"
    return f"{name}.{spec['task_id']}" if spec["task_id"] is not None else name


def output_path(spec: Mapping[str, Any], which: str, cwd: str, home_of: HomeOf,
                is_dir: Callable[[str], bool], postfix: str | None = None) -> str:
    """The file the job's stdout (``which="o"``) or stderr (``"e"``) goes to.

    Relative paths are taken relative to the job's working directory; no path means the
    working directory; an existing directory gets the default file name inside it
    (``<job_name>.<postfix><job_id>``, postfix ``which`` unless given: a PE procedure's
    is ``po`` / ``pe``).
    """
    raw = select_path(spec["stdout_path" if which == "o" else "stderr_path"], spec["host"])
    path = expand_aliases(raw, spec, home_of) if raw else ""
    if not path:
        path = cwd
    elif not path.startswith("/"):
        path = os.path.join(cwd, path)
    return os.path.join(path, default_output_name(spec, postfix or which)) \
        if is_dir(path) else path


def input_path(spec: Mapping[str, Any], cwd: str, home_of: HomeOf) -> str | None:
    """The file qsub -i names for the job's stdin on this host (relative to the working
    directory, aliases expanded as -o's), or None."""
    raw = select_path(option(spec, "stdin_path"), spec["host"])
    if not raw:
        return None
    path = expand_aliases(raw, spec, home_of)
    return path if path.startswith("/") else os.path.join(cwd, path)


def working_dir(spec: Mapping[str, Any], home: str) -> str:
    """-cwd/-wd directory, else the owner's home directory."""
    return spec["cwd"] or home


# ------------------------------------------------------------- pure: environment, argv

def _task_variables(spec: Mapping[str, Any]) -> dict[str, str]:
    if spec["task_id"] is None or not spec["array"]:
        return dict.fromkeys(("SGE_TASK_ID", "SGE_TASK_FIRST", "SGE_TASK_LAST",
                              "SGE_TASK_STEPSIZE"), "undefined")
    first, last, step = spec["array"]
    return {"SGE_TASK_ID": str(spec["task_id"]), "SGE_TASK_FIRST": str(first),
            "SGE_TASK_LAST": str(last), "SGE_TASK_STEPSIZE": str(step)}


def job_environment(spec: Mapping[str, Any], user: str, home: str, tmpdir: str,
                    job_dir: str, arch: str, tz: str | None = None) -> dict[str, str]:
    """The environment Grid Engine gives a job, before the output paths are known.

    Order matters as in the execd: -v/-V variables first, then Grid Engine's own
    variables overwrite them (PATH gets TMPDIR in front of the user's or default PATH).
    """
    # a variable named without a value (``-v NAME`` with NAME unset, and the TERM that
    # qsub always sends) is set empty, as 8.1.9's shepherd does
    env = {str(k): "" if v is None else str(v) for k, v in spec["env"].items()}
    env["PATH"] = f"{tmpdir}:{env.get('PATH', SGE_DEFAULT_PATH)}"
    if spec["cwd"]:
        env["PWD"] = spec["cwd"]
    env.update(grid_engine_variables(spec, user, home, tmpdir, job_dir, arch, tz))
    env.update({f"SGE_O_{k}": str(v) for k, v in spec["sge_o"].items()})
    return env


def grid_engine_variables(spec: Mapping[str, Any], user: str, home: str, tmpdir: str,
                          job_dir: str, arch: str, tz: str | None = None) -> dict[str, str]:
    """The variables Grid Engine itself sets for a job (whatever ``-v`` asked for),
    without PATH, PWD and the submitter's ``SGE_O_*``."""
    script = spec["command"] if spec["binary"] else os.path.join(job_dir, SCRIPT_FILE)
    env = {
        "REQNAME": spec["job_name"], "SGE_CELL": option(spec, "cell"), "HOME": home, "USER": user,
        "LOGNAME": user, "JOB_NAME": spec["job_name"], "JOB_SCRIPT": script,
        "REQUEST": spec["job_name"], "HOSTNAME": spec["host"], "QUEUE": spec["queue"],
        "JOB_ID": str(spec["job_id"]), **_task_variables(spec), "ENVIRONMENT": "BATCH",
        "ARC": arch, "SGE_ARCH": arch, "NQUEUES": str(option(spec, "nqueues")),
        "NSLOTS": str(spec["slots"]), "NHOSTS": str(spec["nhosts"]),
        "RESTARTED": str(option(spec, "restarted")), "TMPDIR": tmpdir, "TMP": tmpdir,
        "SGE_ACCOUNT": option(spec, "account"), "SHELL": spec["shell"], "SGE_JOB_SPOOL_DIR": job_dir,
    }
    if option(spec, "pe_task_id"):  # a qrsh -inherit task: 8.1.9's names
        env["JOB_SCRIPT"] = "QRSH"
        env["QRSH_COMMAND"] = " ".join([spec["command"], *(str(a) for a in spec["args"])])
    if tz:
        env["TZ"] = tz
    if option(spec, "sge_root"):
        env["SGE_ROOT"] = option(spec, "sge_root")
    if spec["pe"]:
        env["PE"] = spec["pe"]
        if spec.get("pe_hostfile", "") is not None:  # (a parallel task has none: 8.1.9)
            env["PE_HOSTFILE"] = os.path.join(job_dir, PE_HOSTFILE)
        # 8.1.9 names the cluster's rsh_command to a parallel job and its tasks (qrsh
        # -inherit's transport); only the builtin one is supported here
        # (docs/compatibility.md)
        env["SGE_RSH_COMMAND"] = RSH_COMMAND
    return {str(k): str(v) for k, v in env.items()}


# What a prolog, epilog or method gets when it runs with other ids than the job owner's
# (a ``root@`` prolog): sge_conf(5) lets such a procedure run "with the same environment
# as the job", but nothing the job owner chose may reach a process of another user. The
# loader (LD_PRELOAD, LD_LIBRARY_PATH, GCONV_PATH ...), shells (BASH_ENV, ENV, IFS,
# SHELLOPTS), interpreters (PYTHONPATH, PERL5LIB, RUBYOPT ...) and every other program
# read variables of their own; no list of dangerous names can be complete, so this is an
# allowlist: Grid Engine's own variables (values it computed, never a -v/-V variable of
# the same name), a fixed PATH, and HOME, USER, LOGNAME and SHELL of the procedure's user
# (a root Python reads $HOME/.local, a shell escape runs $SHELL).
PROCEDURE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# The submitter's SGE_O_* are Grid Engine's documented context (a prolog staging files
# uses SGE_O_WORKDIR, SGE_O_HOST): their names are fixed here, so no program reads them
# as its own setting; their values are data the submitter chose, as JOB_NAME is.
PROCEDURE_SUBMIT_VARIABLES = ("HOME", "LOGNAME", "PATH", "SHELL", "MAIL", "TZ", "HOST",
                              "WORKDIR")
# The output paths, set once they are known (shepherd); the job's values, as Grid Engine's.
OUTPUT_VARIABLES = ("SGE_STDIN_PATH", "SGE_STDOUT_PATH", "SGE_STDERR_PATH", "SGE_CWD_PATH")


def procedure_environment(spec: Mapping[str, Any], user: str, home: str, shell: str,
                          tmpdir: str, job_dir: str, arch: str,
                          tz: str | None = None) -> dict[str, str]:
    """The fixed, cleaned environment of a procedure that does not run as the job owner:
    ``user`` (home ``home``, login shell ``shell``) is the procedure's user."""
    env = grid_engine_variables(spec, user, home, tmpdir, job_dir, arch, tz)
    env.update({f"SGE_O_{k}": str(v) for k, v in spec["sge_o"].items()
                if k in PROCEDURE_SUBMIT_VARIABLES})
    env.update(PATH=PROCEDURE_PATH, SHELL=shell)
    return env


def _shell_argv0(spec: Mapping[str, Any]) -> str:
    base = os.path.basename(spec["shell"])
    return f"-{base}" if base in option(spec, "login_shells") else base


def job_argv(spec: Mapping[str, Any], script: str) -> tuple[str, list[str]]:
    """(program to exec, argv) for the job, as sge_shepherd's start_command builds them.

    Binary jobs run as ``<shell> -c "<command> <arg> <arg> "``: Grid Engine 8.1.9 joins
    the arguments with blanks and lets the shell parse them again, so that
    ``qsub -b y /bin/sh -c 'exit 3'`` runs ``sh -c exit 3`` and exits 0. We keep this so
    that jobs behave as they do under Grid Engine (quotes, $VARS, redirections).
    """
    args = [str(a) for a in spec["args"]]
    mode = spec["shell_start_mode"]
    if spec["binary"] and option(spec, "noshell"):  # qsub -shell n: the command itself
        return spec["command"], [spec["command"], *args]
    if spec["binary"]:
        joined = spec["command"] + " " + "".join(f"{a} " for a in args)
        return spec["shell"], [_shell_argv0(spec), "-c", joined]
    if mode == "script_from_stdin":
        return spec["shell"], [_shell_argv0(spec), "-s", *args]
    if mode == "unix_behavior":
        return script, [script, *args]
    return spec["shell"], [_shell_argv0(spec), script, *args]


def starter_argv(spec: Mapping[str, Any], starter: str, argv: list[str]
                 ) -> tuple[str, list[str]]:
    """(program, argv) with a ``starter_method``: it runs instead of the shell and gets
    the job's script (or command) and arguments; the shell is named in
    ``SGE_STARTER_SHELL_PATH``."""
    words = starter.split()
    if spec["binary"]:
        job_words = [spec["command"], *(str(a) for a in spec["args"])]
    elif spec["shell_start_mode"] == "unix_behavior":
        job_words = argv
    elif spec["shell_start_mode"] == "script_from_stdin":
        job_words = argv[2:]
    else:
        job_words = argv[1:]
    return words[0], [*words, *job_words]


def starter_environment(spec: Mapping[str, Any]) -> dict[str, str]:
    """The ``SGE_STARTER_*`` variables queue_conf(5) gives a starter method."""
    login = os.path.basename(spec["shell"]) in option(spec, "login_shells")
    return {"SGE_STARTER_SHELL_PATH": spec["shell"],
            "SGE_STARTER_SHELL_START_MODE": spec["shell_start_mode"],
            "SGE_STARTER_USE_LOGIN_SHELL": "true" if login else "false"}


def processor_set(text: str | None, cpu_count: int) -> set[int]:
    """The CPUs of a ``processors`` value (``0-3,8``) that this host has; empty for
    UNDEFINED, NONE or a set naming no CPU of the host (the job then runs anywhere)."""
    if not text or text.strip().upper() in ("UNDEFINED", "NONE"):
        return set()
    cpus: set[int] = set()
    for part in text.replace(" ", ",").split(","):
        low, _, high = part.partition("-")
        try:
            first, last = int(low), int(high or low)
        except ValueError:
            return set()
        cpus.update(range(first, last + 1))
    return {c for c in cpus if 0 <= c < cpu_count}


def uses_shell(spec: Mapping[str, Any]) -> bool:
    """Whether the job is started through ``spec["shell"]`` (unix_behavior scripts are
    not, nor binary jobs of qsub -shell n)."""
    if spec["binary"]:
        return not option(spec, "noshell")
    return spec["shell_start_mode"] != "unix_behavior"


def exit_fields(status: int) -> tuple[int, int]:
    """(exit_status, signal) from a wait status: 128+signal for a killed job."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        return 128 + sig, sig
    return os.waitstatus_to_exitcode(status) & 0xFF, 0


def exit_failure(spec: Mapping[str, Any], exit_status: int, sig: int, ended_by: str = "") -> int:
    """Failure code for a job that ran: exit 99 reschedules, exit 100 is an app error;
    a job killed by a signal ended "assumedly after job" (100), by the shepherd for its
    h_rt, s_rt, h_cpu or h_vmem limit 37, as 8.1.9 accounts them."""
    if sig:
        return FAILED_LIMIT if ended_by in LIMIT_KILLS else FAILED_SIGNALLED
    if exit_status == RESCHEDULE_EXIT_STATUS and not option(spec, "forbid_reschedule"):
        return FAILED_AGAIN
    if exit_status == APPERROR_EXIT_STATUS and not option(spec, "forbid_apperror"):
        return FAILED_APPERROR
    return 0


def exit_action(failed: int) -> str:
    """The job's own exit 99 reschedules it, exit 100 puts it in error state."""
    return {FAILED_AGAIN: RESCHEDULE, FAILED_APPERROR: JOB_ERROR}.get(failed, "")


def procedure_outcome(which: str, exit_status: int, spec: Mapping[str, Any] | None = None
                      ) -> tuple[int, str] | None:
    """(failed code, action) for a prolog or epilog that exited with ``exit_status``,
    None when it succeeded: 99 reschedules the job, 100 puts it in error state (unless
    the spec's qmaster_params FORBID_RESCHEDULE / FORBID_APPERROR say no), anything
    else the queue instance (queue_conf(5) prolog, epilog)."""
    spec = spec or {}
    if exit_status == 0:
        return None
    if exit_status == RESCHEDULE_EXIT_STATUS and not option(spec, "forbid_reschedule"):
        return FAILED_AGAIN, RESCHEDULE  # (8.1.9 accounts these as the job's own)
    if exit_status == APPERROR_EXIT_STATUS and not option(spec, "forbid_apperror"):
        return FAILED_APPERROR, JOB_ERROR
    return PROCEDURES[which][2], QUEUE_ERROR


def split_procedure(text: str) -> tuple[str | None, list[str]]:
    """``[user@]path args`` of a prolog or epilog as (user or None, argv)."""
    words = text.split()
    user, sep, path = words[0].partition("@")
    if sep and not user.startswith("/"):
        return user, [path, *words[1:]]
    return None, words


def procedure_variables(spec: Mapping[str, Any], env: Mapping[str, str]) -> dict[str, str]:
    """Values of the ``$`` words sge_conf(5) allows in prolog, epilog and method command
    lines (``$job_pid`` is added once the job runs)."""
    return {"host": spec["host"], "job_owner": spec["owner"], "job_id": str(spec["job_id"]),
            "job_name": spec["job_name"], "queue": spec["queue"],
            "processors": option(spec, "processors") or "UNDEFINED",
            "stdin_path": env.get("SGE_STDIN_PATH", "/dev/null"),
            "stdout_path": env.get("SGE_STDOUT_PATH", ""),
            "stderr_path": env.get("SGE_STDERR_PATH", ""),
            "ja_task_id": str(spec["task_id"] or 0),
            "pe_hostfile": env.get("PE_HOSTFILE", ""), "pe": spec["pe"] or "",
            "pe_slots": str(spec["slots"]), "sge_root": option(spec, "sge_root") or "",
            "sge_cell": option(spec, "cell")}


def expand_words(argv: list[str], variables: Mapping[str, str]) -> list[str]:
    """``$name`` replaced in each word by its value (longest names first)."""
    names = sorted(variables, key=len, reverse=True)
    out = []
    for word in argv:
        for name in names:
            word = word.replace(f"${name}", variables[name])
        out.append(word)
    return out


def stdin_is_devnull(spec: Mapping[str, Any]) -> bool:
    """Only script_from_stdin script jobs read the script on stdin."""
    return bool(spec["binary"]) or spec["shell_start_mode"] != "script_from_stdin"


def _usage_fields(usage: Any) -> dict[str, float | int]:
    names = ("ru_maxrss", "ru_minflt", "ru_majflt", "ru_inblock", "ru_oublock", "ru_nvcsw",
             "ru_nivcsw")
    fields: dict[str, float | int] = {n: (getattr(usage, n) if usage else 0) for n in names}
    fields["ru_utime"] = usage.ru_utime if usage else 0.0
    fields["ru_stime"] = usage.ru_stime if usage else 0.0
    return fields


def make_result(spec: Mapping[str, Any], *, pid: int, start: float, end: float, status: int,
                usage: Any, maxvmem: int, failure: Mapping[str, Any] | None,
                measured: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ``result.msgpack`` map. ``failure``: failed, message and action of a job that
    could not run or whose prolog/epilog failed; ``measured``: what the shepherd saw of
    the process tree (cpu, mem, io, maxvmem, ended_by)."""
    extra = dict(measured or {})
    if failure and failure.get("ran"):  # an epilog failed after the job ran
        exit_status, sig = exit_fields(status)
    elif failure:  # 8.1.9: 0 after a prolog, 1 when the shepherd could not start the job
        exit_status, sig = int(failure.get("exit_status", 1)), 0
    else:
        exit_status, sig = exit_fields(status)
    if failure:
        failed, message = int(failure["failed"]), str(failure["message"])
        action = str(failure.get("action") or "")
    else:
        failed = exit_failure(spec, exit_status, sig, str(extra.get("ended_by", "")))
        message, action = "", exit_action(failed)
        if extra.get("ended_by") == "migrate":  # (execd.control.MIGRATED) it runs again
            action = RESCHEDULE
    fields = _usage_fields(usage)
    cpu = max(float(extra.pop("cpu", 0.0)), fields["ru_utime"] + fields["ru_stime"])
    return {"exit_status": exit_status, "signal": sig, "failed": failed,
            "failed_reason": FAILED_REASONS.get(failed, ""), "error_message": message,
            "action": action, "start_time": start, "end_time": end,
            "ru_wallclock": end - start, **fields, "cpu": capped(cpu),
            "mem": capped(extra.get("mem", 0.0)), "io": capped(extra.get("io", 0.0)),
            "maxvmem": capped(max(maxvmem, int(extra.get("maxvmem", 0)))),
            "ended_by": str(extra.get("ended_by", "")), "pid": pid}
