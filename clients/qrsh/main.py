"""``qrsh``, ``qlogin`` and ``qsh`` (qrsh(1)): an interactive job over the builtin
transport (common.builtin_session).

The command listens on a port of its own, submits the job with ``session`` (its host
name, that port and a fresh token), waits for the job's shepherd to connect back and
prove the token, then relays (clients.qrsh.relay) and exits with the job's exit status.
``-now y`` (the default) refuses the job when the scheduler does not start it at once
(``Your "qrsh" request could not be scheduled, try again later.``, status 1, and the job
is deleted); ``-now n`` waits in qw. ``-verbose`` prints 8.1.9's progress lines (the
submission on stdout, the rest on stderr). Ctrl-C while waiting deletes the job.

``qrsh -inherit`` is another command (a task of a running parallel job):
``clients.qrsh.inherit.main``, imported only when asked for.
"""
from __future__ import annotations

import _socket
import os
import sys

from clients.api import Client, ClientError, checked_jobs, resolvable
from clients.qrsh.options import DEFAULT_NAMES, Request, asks_inherit, parse
from clients.qsub.main import (default_request_texts, job_description, path_alias_texts,
                              with_path_aliases)
from clients.qsub.options import QsubError, unable_to_run
from common.cell import CellNotFound
from common.jobspec import TOKEN_BYTES

# The transport (common.builtin_session, clients.qrsh.relay: hmac, dataclasses, socket,
# termios...) is imported once the job is submitted, while it is being scheduled and
# started (``_late_imports``): its cost is then off the command's critical path.

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

WAITING = "waiting for interactive job to be scheduled ..."
CANCELED = "\nRequest for interactive job has been canceled."
CANT_START = "\nCould not start interactive job."
NO_DISPLAY = "error: no DISPLAY variable found with interactive job "
_WAITING_STATES = ("pending", "hold")


def not_scheduled(kind: str) -> str:
    return f'Your "{kind}" request could not be scheduled, try again later.'


def scheduled(job_id: int) -> str:
    return f"Your interactive job {job_id} has been successfully scheduled."


def establishing(host: str) -> str:
    return f"Establishing builtin session to host {host} ..."


def session_host() -> str:
    """The name the execution host reaches us by: our host name, as 8.1.9's qrsh gives
    it (QRSH_PORT=host:port); loopback when the name does not resolve (a machine whose
    name is in no resolver: its execution hosts can only be itself)."""
    name = _socket.gethostname()
    return name if resolvable(name) else "127.0.0.1"


JSV_REJECTED = "jsv_rejected"  # (the code of a -jsv refusal)


def job_spec(request: Request, port: int, token: bytes) -> dict[str, Any]:
    """The job to submit: qsub's description of a binary job whose command is ours, with
    the session and qrsh's own options (pure but for the submit environment)."""
    job = job_description(request.submit)
    opts = job["opts"]
    command = request.command
    if request.kind == "qsh":
        # (the qmaster runs sge_conf(5) xterm of the execution host instead of "xterm")
        command = ["xterm", "-display", request.display or ""]
    opts["binary"] = True
    # as 8.1.9's (qstat -j): the job's own output travels over the session; a prolog's
    # or epilog's goes nowhere, and the job is not rerun
    opts["stdout_paths"] = opts.get("stdout_paths") or ["/dev/null"]
    opts["stderr_paths"] = opts.get("stderr_paths") or ["/dev/null"]
    opts["rerun"] = False
    # (a login session has no command: the job's script is named as the job by default)
    opts["script_path"] = command[0] if command else DEFAULT_NAMES[request.kind]
    opts["script_args"] = list(command[1:])
    opts["noshell"] = request.noshell
    # the shepherd runs a command (qrsh's, qsh's xterm) or a login shell (qlogin, qrsh
    # without a command: execd.session_relay)
    kind = request.kind if command else "qlogin"
    opts["session"] = {"kind": kind, "host": session_host(), "port": port, "token": token}
    job["script"] = None
    return job


def _err(text: str, newline: bool = True) -> None:
    sys.stderr.write(text + ("\n" if newline else ""))
    sys.stderr.flush()


class _Waiter:
    """What ``accept_session`` asks while it waits: is the job still to come?"""

    def __init__(self, client: Client, job_id: int, request: Request) -> None:
        self.client, self.job_id, self.request = client, job_id, request
        self.refused = False
        self.host: str | None = None
        self.gone = False

    def state(self) -> tuple[str | None, str | None]:
        tasks = self.client.jobs([self.job_id], include_finished=True)["tasks"]
        if not tasks:
            return None, None
        from common.jobstate import NOT_SCHEDULED
        # -now y: the scheduler refused the job in the pass that could not start it
        self.refused = tasks[0].get("deleted_by") == NOT_SCHEDULED
        return str(tasks[0]["state"]), tasks[0].get("host")

    def __call__(self) -> bool:
        state, host = self.state()
        if state is None or state in ("finished", "error", "deleted"):
            self.gone = True
            return False
        if state in _WAITING_STATES:
            return True
        if self.host is None and host:
            self.announce(host)
        return True

    def announce(self, host: str) -> None:
        self.host = host
        if self.request.verbose:
            _err("\n" + scheduled(self.job_id))
            _err(establishing(host))


def _late_imports() -> None:
    import clients.qrsh.relay  # noqa: F401 - (and common.builtin_session with it)


def _listen() -> Any:
    """Our listening socket on all of the host's addresses (``_socket``'s: ``socket``
    is imported later, see ``_late_imports``)."""
    sock = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    sock.bind(("", 0))
    sock.listen(16)
    return sock


def _submit(client: Client, request: Request, port: int, token: bytes) -> int:
    spec = job_spec(request, port, token)
    if request.submit.jsv:  # -jsv: as qsub's (clients.jsv; the session is not shown to it)
        from clients.qsub.main import client_jsvs
        try:
            spec["opts"] = client_jsvs(request.submit.jsv, spec["opts"], client, request.kind)
        except ClientError as err:  # (8.1.9's qrsh prints the JSV's text alone)
            raise ClientError(JSV_REJECTED, err.message) from None
        request.submit.job_name = spec["opts"].get("job_name") or request.submit.job_name
    reply = client.request("submit", {"user": client.user.to_dict(),
                                      "jobs": checked_jobs([spec])},
                           while_waiting=_late_imports)
    job_id = int(reply["job_ids"][0])
    notes = (reply.get("notes") or [{}])[0]
    if notes.get("unable"):
        raise ClientError("rejected", "\n".join(notes.get("lines", [])))
    if request.verbose:
        print(f'Your job {job_id} ("{request.submit.job_name}") has been submitted',
              flush=True)
        _err(WAITING, newline=False)
    return job_id


def _delete(client: Client, job_id: int) -> None:
    try:
        client.delete([{"job_id": job_id}])
    except ClientError:
        pass


def run(request: Request) -> int:
    if request.kind == "qsh" and not request.display:
        _err(NO_DISPLAY)
        return 1
    raw = _listen()
    token = os.urandom(TOKEN_BYTES)
    client = Client()
    job_id = None
    try:
        job_id = _submit(client, request, raw.getsockname()[1], token)
        import socket
        from common import builtin_session as bs
        listener = socket.socket(fileno=raw.detach())
        waiter = _Waiter(client, job_id, request)
        try:
            conn = bs.accept_session(listener, token, keep_waiting=waiter)
        finally:
            listener.close()
    except KeyboardInterrupt:  # Ctrl-C before the job started: it goes
        if job_id is not None:
            _delete(client, job_id)
        _err(CANCELED)
        return 1
    if conn is None:
        if waiter.refused:
            _err(not_scheduled(request.kind))
        else:
            _err(CANT_START)
        return 1
    if request.verbose and waiter.host is None:
        waiter.announce(waiter.state()[1] or "")
    from clients.qrsh.relay import run_client
    pty = request.submit.pty
    if pty is None:
        pty = not request.command
    return run_client(conn, stdin=request.stdin, pty=pty)


def main(argv: list[str] | None = None, kind: str | None = None) -> int:
    """qrsh, qlogin or qsh (``kind``; by default the name we are run by)."""
    argv = sys.argv[1:] if argv is None else argv
    if kind is None:
        kind = os.path.basename(sys.argv[0])
        kind = kind if kind in DEFAULT_NAMES else "qrsh"
    if kind == "qrsh" and asks_inherit(argv):
        from clients.qrsh.inherit import main as inherit_main  # (helper p-pe's)
        return inherit_main(argv)
    cwd = os.getcwd()
    home = os.environ.get("HOME", "/")
    try:
        request = parse(kind, argv, cwd=cwd, environ=dict(os.environ), home=home,
                        default_files=default_request_texts(cwd, home))
        if not request.submit.help:  # sge_aliases(5), as qsub reads them
            with_path_aliases(request.submit, path_alias_texts(kind), program=kind)
    except QsubError as err:
        _err(err.message.rstrip("\n"))
        return err.exit_code
    for line in request.submit.warnings:
        print(line)
    if request.submit.help:
        from clients.qsub.usage import usage
        sys.stdout.write(usage(kind))
        return 0
    try:
        return run(request)
    except (ClientError, CellNotFound) as err:
        message = err.message if isinstance(err, ClientError) else str(err)
        rejected = isinstance(err, ClientError) and err.code == JSV_REJECTED
        _err(message if rejected else unable_to_run(message))
        return 1
    except Exception as err:  # (builtin_session is imported late: its SessionError)
        if type(err).__name__ != "SessionError":
            raise
        _err(f"error: {err}")
        return 1


if __name__ == "__main__":
    import clients  # (as the launcher, clients/scripts/)
    clients.run(main)
