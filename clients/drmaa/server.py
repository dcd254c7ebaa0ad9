"""The DRMAA agent's channels: the session's channel from libdrmaa.so (descriptor
``--fd``), served call by call on the main thread, and the channels of blocking calls
(drmaa_wait, drmaa_synchronize), each handed over by an ``attach`` call and served on a
thread of its own. The first call must be ``init``; ``exit``, or the end of the session
channel (the program ended), ends the agent. Framing: clients.drmaa.framing."""
from __future__ import annotations

import argparse
import os
import socket
import threading
import traceback

from clients.drmaa import errors, framing
from clients.drmaa.session import BLOCKING_CALLS, Session

READ_BYTES = 1 << 16
MAX_FDS = 8


class Channel:
    """Frames from one socket, with the descriptors that came along (attach)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buffer = bytearray()
        self.fds: list[int] = []

    def next_call(self) -> list[bytes] | None:
        """The next request's fields; None when the other end has closed."""
        while (fields := framing.split(self.buffer)) is None:
            data, fds, _flags, _addr = socket.recv_fds(self.sock, READ_BYTES, MAX_FDS)
            self.fds += fds
            if not data:
                return None
            self.buffer += data
        return fields

    def answer(self, code: int, diagnosis: str, results: list[str]) -> None:
        self.sock.sendall(framing.answer(code, diagnosis, results))


def handle(session: Session, fields: list[bytes]) -> tuple[int, str, list[str]]:
    """A call's answer; an unexpected failure in the agent is INTERNAL_ERROR (with
    its traceback's last line), never the end of the agent."""
    call, args = framing.text(fields[0]), [framing.text(f) for f in fields[1:]]
    try:
        return session.handle(call, args)
    except Exception as exc:  # noqa: BLE001 - the program must get an answer
        last = traceback.format_exception_only(type(exc), exc)[-1].strip()
        return errors.INTERNAL_ERROR, f"DRMAA agent: {last}", []


def serve_blocking(session: Session, fd: int) -> None:
    """One blocking call on its own channel, then the channel is closed."""
    with socket.socket(fileno=fd) as sock:
        channel = Channel(sock)
        try:
            fields = channel.next_call()
            if not fields:
                return
            if framing.text(fields[0]) not in BLOCKING_CALLS:
                channel.answer(errors.INVALID_ARGUMENT, "not a blocking call", [])
                return
            channel.answer(*handle(session, fields))
        except (OSError, framing.FrameError):
            return  # the caller is gone


def open_session(contact: str) -> tuple[int, str, Session | None]:
    """``init``: (code, diagnosis, session)."""
    if contact:
        return (errors.INVALID_CONTACT_STRING,
                "each drmaa_init starts a session of its own: contact strings of "
                "earlier sessions are not taken", None)
    from clients.api import Client, ClientError
    from clients.drmaa.backend import ClientBackend
    from clients.drmaa.reaper import ReaperThread, TaskFollower
    from clients.drmaa.session import Finished
    from common.cell import CellNotFound, cell_from_env
    try:
        cell = cell_from_env()
        client = Client(cell)
    except (CellNotFound, ClientError) as err:
        return errors.DRMS_INIT_FAILED, getattr(err, "message", str(err)), None
    home = os.environ.get("HOME") or os.path.expanduser("~")
    backend = ClientBackend(client)
    session: Session | None = None

    def report(job_id: int, ends: dict[int, Finished]) -> None:
        if session is not None:
            session.job_finished(job_id, ends)

    def report_task(job_id: int, task_id: int, end: Finished) -> None:
        if session is not None:
            session.task_finished(job_id, task_id, end)

    def connect(kind: type[Client]) -> Client:
        return kind(cell)  # (each thread a connection of its own)

    reaper = ReaperThread(connect, report, follower=TaskFollower(connect, report_task))
    session = Session(backend, reaper, home=home,
                      contact=f"session={socket.gethostname()}.{os.getpid()}")
    reaper.start()
    return errors.SUCCESS, "", session


def serve(sock: socket.socket) -> None:
    channel = Channel(sock)
    session: Session | None = None
    while (fields := channel.next_call()) is not None:
        call = framing.text(fields[0]) if fields else ""
        if session is None:
            if call != "init":
                channel.answer(errors.NO_ACTIVE_SESSION, "No active session", [])
                continue
            code, diagnosis, session = open_session(
                framing.text(fields[1]) if len(fields) > 1 else "")
            channel.answer(code, diagnosis, [session.contact] if session else [])
            continue
        if call == "exit":
            channel.answer(errors.SUCCESS, "", [])
            return
        if call == "attach":
            if not channel.fds:
                channel.answer(errors.INTERNAL_ERROR, "attach without a descriptor", [])
                continue
            threading.Thread(target=serve_blocking, args=(session, channel.fds.pop(0)),
                             daemon=True).start()
            channel.answer(errors.SUCCESS, "", [])
            continue
        if call in BLOCKING_CALLS:
            channel.answer(errors.INTERNAL_ERROR, f"{call} needs a channel of its own", [])
            continue
        channel.answer(*handle(session, fields))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m clients.drmaa",
                                     description="the DRMAA agent libdrmaa.so starts")
    parser.add_argument("--fd", type=int, required=True,
                        help="the descriptor of the session's channel")
    args = parser.parse_args(argv)
    sock = socket.socket(fileno=args.fd)
    try:
        serve(sock)
    except (OSError, framing.FrameError):
        pass  # the program's end of the channel failed: so does the session
    # the daemon threads (the reaper, blocking calls) end with the process
    os._exit(0)
