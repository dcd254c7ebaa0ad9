"""``qrsh -inherit [-nostdin] [-noshell] [-V] [-v var[=value],...] [-cwd] [-verbose] host
command [args]``: start a task of the job we run in on one of its hosts (sge_pe(5)
``control_slaves``), as MPI libraries start their daemons.

The job is named by the environment a job gets (``JOB_ID``, ``SGE_TASK_ID``): outside a
job the command is refused in 8.1.9's words. The client makes a session token, listens
(``common.builtin_session``), asks the qmaster for the task (``pe_task_start``: the
qmaster checks the job, its owner, its PE, the host and the slots there, and orders the
host's execd to run the task under a shepherd of its own), waits for that shepherd to
connect back and prove the token, and relays stdin, stdout, stderr and signals
(``clients.qrsh.relay``) until the task ends: its exit status is ours.

The command runs as 8.1.9 runs it without ``-noshell``: its words joined with blanks and
given to the owner's shell (``sh -c``), which is what Open MPI's ``' orted' -mca ess
'"env"' ...`` relies on; with ``-noshell`` the command itself with its arguments. ``-V`` passes our whole environment to the task, ``-v`` the
variables named; without them the task has the job's (``qsub -v/-V``) variables.
"""
from __future__ import annotations

import os
import socket
import sys
from dataclasses import dataclass, field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

PROGRAM = "qrsh"
# How long the client waits for the task's shepherd to connect back once the qmaster
# accepted the task (it checks meanwhile that the job still runs).
CONNECT_SECONDS = 60.0
# 8.1.9's words (tests/data/reference/pe)
NO_JOB_ID = 'error: "qrsh" called with option "-inherit", but "JOB_ID" not set in environment'
FAILED = "error: executing task of job {job_id} failed: {why}"
NO_TASK_ID = 'missing "SGE_TASK_ID" in environment'
BAD_JOB_ID = 'error: invalid job id "{value}" in environment variable JOB_ID'
NO_COMMAND = "error: qrsh -inherit needs a host and a command"
STARTING = 'Starting server daemon at host "{host}"'  # -verbose, on stderr
STARTED = 'Server daemon successfully started with task id "{task}"'
NEVER_CONNECTED = "the task did not connect back within {seconds:g} seconds"
USAGE_EXIT = 1


@dataclass
class InheritOptions:
    host: str = ""
    command: str = ""
    args: list[str] = field(default_factory=list)
    stdin: bool = True
    export_all: bool = False
    variables: dict[str, str | None] = field(default_factory=dict)
    cwd: bool = False
    verbose: bool = False
    noshell: bool = False  # the command itself, not through the owner's shell


class UsageError(Exception):
    """A command line qrsh -inherit cannot read (message in Grid Engine's words)."""


def parse(argv: list[str]) -> InheritOptions:
    """The options before the host (``-inherit`` itself may be among them), the host,
    the command and its arguments (taken as they are, options or not)."""
    opts = InheritOptions()
    words = list(argv)
    while words and words[0].startswith("-"):
        word = words.pop(0)
        if word == "-inherit":
            continue
        if word == "-nostdin":
            opts.stdin = False
        elif word == "-V":
            opts.export_all = True
        elif word == "-v":
            if not words:
                raise UsageError("error: option \"-v\" needs an argument")
            opts.variables.update(_variables(words.pop(0)))
        elif word == "-cwd":
            opts.cwd = True
        elif word == "-verbose":
            opts.verbose = True
        elif word == "-noshell":
            opts.noshell = True
        elif word in ("-pty", "-now"):  # (accepted as 8.1.9 does; a task has no pty)
            if words:
                words.pop(0)
        else:
            raise UsageError(f"error: unknown option \"{word}\"")
    if len(words) < 2:
        raise UsageError(NO_COMMAND)
    opts.host, opts.command, opts.args = words[0], words[1], words[2:]
    return opts


def _variables(text: str) -> dict[str, str | None]:
    """``-v var[=value],...``: a variable without a value takes ours (qsub(1))."""
    out: dict[str, str | None] = {}
    for item in text.split(","):
        name, sep, value = item.partition("=")
        if name:
            out[name] = value if sep else os.environ.get(name)
    return out


def job_of(environ: Mapping[str, str]) -> tuple[int, int] | str:
    """(job id, task id) from a job's environment (``SGE_TASK_ID`` "undefined" for a job
    that is not an array: its task 1), or the refusal."""
    value = environ.get("JOB_ID")
    if not value:
        return NO_JOB_ID
    try:
        job_id = int(value)
    except ValueError:
        return BAD_JOB_ID.format(value=value)
    if job_id < 1:
        return BAD_JOB_ID.format(value=value)
    task = environ.get("SGE_TASK_ID")
    if task is None:
        return FAILED.format(job_id=job_id, why=NO_TASK_ID)
    return job_id, int(task) if task.isdigit() and int(task) > 0 else 1


def task_environment(opts: InheritOptions, environ: Mapping[str, str]
                     ) -> dict[str, str | None]:
    """What the task gets on top of the job's variables: -V all of ours, -v those named."""
    env: dict[str, str | None] = dict(environ) if opts.export_all else {}
    env.update(opts.variables)
    return env


def reachable_name() -> str:
    """How the task's shepherd reaches us: our host name when it resolves, else the
    loopback address (a machine whose name does not resolve runs its execds here)."""
    from clients.api import resolvable
    name = socket.gethostname()
    return name if resolvable(name) else "127.0.0.1"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not os.environ.get("JOB_ID"):  # (8.1.9 says so before it looks at the rest)
        print(NO_JOB_ID, file=sys.stderr)
        return 1
    try:
        opts = parse(args)
    except UsageError as err:
        print(str(err), file=sys.stderr)
        return USAGE_EXIT
    job = job_of(os.environ)
    if isinstance(job, str):
        print(job, file=sys.stderr)
        return 1
    return run(opts, *job)


def run(opts: InheritOptions, job_id: int, task_id: int) -> int:
    from clients.api import Client, ClientError
    from common import builtin_session as bs
    token = bs.new_token()
    listener = bs.listen()
    try:
        session = {"kind": "qrsh", "host": reachable_name(),
                   "port": listener.getsockname()[1], "token": token}
        body = {"job_id": job_id, "task_id": task_id, "host": opts.host,
                "command": opts.command, "args": opts.args, "session": session,
                "env": task_environment(opts, os.environ),
                "cwd": os.getcwd() if opts.cwd else None, "noshell": opts.noshell}
        if opts.verbose:
            print(STARTING.format(host=opts.host), file=sys.stderr)
        try:
            with Client() as client:
                reply = client.request("pe_task_start", {"user": client._user(), **body})
        except ClientError as err:
            # (the qmaster's refusal says "executing task of job ... failed: ...")
            print(f"error: {err.message}", file=sys.stderr)
            return 1
        if opts.verbose:
            print(STARTED.format(task=reply.get("pe_task_id")), file=sys.stderr)
        try:
            conn = bs.accept_session(listener, token, timeout=CONNECT_SECONDS)
        except bs.SessionError as err:
            print(FAILED.format(job_id=job_id, why=err), file=sys.stderr)
            return 1
    finally:
        listener.close()
    if conn is None:
        print(FAILED.format(job_id=job_id, why=NEVER_CONNECTED.format(
            seconds=CONNECT_SECONDS)), file=sys.stderr)
        return 1
    from clients.qrsh.relay import run_client
    return run_client(conn, stdin=opts.stdin, pty=False)


if __name__ == "__main__":
    sys.exit(main())
