"""Both ends of a builtin session with a real shepherd (no qmaster, no execd): the
shepherd of a job whose start record has ``session`` connects back to a listening client
(execd.session_relay) and the client relays (clients.qrsh.relay.run_client).

The client's stdio are files and pipes of the test; the job's exit status is qrsh's.
"""
from __future__ import annotations

import fcntl
import os
import pwd
import signal
import socket
import struct
import tempfile
import termios
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from clients.qrsh.relay import LOST_MESSAGE, run_client
from common import builtin_session as bs
from execd import jobdir
from execd.launcher import Launcher
from tests.identity import needs_root, other_user_name
from tests.integration.test_shepherd import make_spec, wait_result


class Session:
    """A listening client and the job directory of its job."""

    def __init__(self, launcher: Launcher, work: Path, job_id: int, argv: list[str],
                 **changes: Any) -> None:
        self.listener = bs.listen("127.0.0.1")
        self.token = bs.new_token()
        session = {"kind": "qrsh", "host": "127.0.0.1",
                   "port": self.listener.getsockname()[1], "token": self.token}
        spec = make_spec(work, job_id=job_id, binary=True, command=argv[0], args=argv[1:],
                         noshell=True, session=session, **changes)
        self.job_dir = work / f"job.{job_id}"
        jobdir.write_spec(self.job_dir, spec, None)
        launcher.launch(self.job_dir)
        self.out = tempfile.TemporaryFile()
        self.err = tempfile.TemporaryFile()

    def run(self, stdin_data: bytes | None = b"", *, stdin: bool = True,
            pty: bool = False) -> int:
        conn = bs.accept_session(self.listener, self.token, timeout=10)
        assert conn is not None
        read, write = os.pipe()
        if stdin_data is not None:
            threading.Thread(target=_feed, args=(write, stdin_data), daemon=True).start()
        try:
            return run_client(conn, stdin=stdin, pty=pty,
                              fds=(read, self.out.fileno(), self.err.fileno()))
        finally:
            os.close(read)
            if stdin_data is None:
                os.close(write)

    def output(self) -> tuple[bytes, bytes]:
        return _read(self.out), _read(self.err)

    def close(self) -> None:
        self.listener.close()
        self.out.close()
        self.err.close()


def _feed(fd: int, data: bytes) -> None:
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def _read(f: Any) -> bytes:
    f.seek(0)
    return f.read()


@pytest.fixture()
def session(launcher: Launcher, tmp_path: Path) -> Iterator[Any]:
    made: list[Session] = []

    def make(argv: list[str], job_id: int = 1, **changes: Any) -> Session:
        s = Session(launcher, tmp_path, job_id, argv, **changes)
        made.append(s)
        return s
    yield make
    for s in made:
        s.close()


def test_exit_status_stdin_and_streams_kept_apart(session: Any) -> None:
    s = session(["/bin/sh", "-c", "cat; echo to-err >&2; exit 7"])
    assert s.run(b"x\n" * 50000) == 7
    out, err = s.output()
    assert out == b"x\n" * 50000 and err == b"to-err\n"
    result = wait_result(s.job_dir)
    assert result["exit_status"] == 7 and result["failed"] == 0


def test_nostdin_sends_end_of_input_at_once(session: Any) -> None:
    s = session(["/bin/sh", "-c", "cat; echo done"])
    assert s.run(None, stdin=False) == 0
    assert s.output() == (b"done\n", b"")


def test_a_signal_of_the_client_ends_the_job_as_a_shell_reports_it(session: Any) -> None:
    s = session(["/bin/sh", "-c", "echo up; exec sleep 30"])
    timer = threading.Thread(target=_interrupt_when, args=(s, b"up\n"), daemon=True)
    timer.start()
    assert s.run(None) == 128 + signal.SIGINT
    result = wait_result(s.job_dir)
    assert (result["exit_status"], result["signal"]) == (130, signal.SIGINT)


def _interrupt_when(s: Session, seen: bytes) -> None:
    """SIGINT to ourselves (the client) once the job has written ``seen``."""
    deadline = time.monotonic() + 10
    while _read_at(s.out) != seen and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(os.getpid(), signal.SIGINT)


def _read_at(f: Any) -> bytes:
    return os.pread(f.fileno(), 1024, 0)


def test_a_pty_joins_the_streams_and_is_the_jobs_terminal(session: Any) -> None:
    s = session(["/bin/sh", "-c", "test -t 0 && test -t 1 && echo tty; "
                 "stty size; echo err >&2; exit 3"], pty=True)
    assert s.run(None, pty=True) == 3
    out, err = s.output()
    assert out.replace(b"\r\n", b"\n").startswith(b"tty\n") and b"err" in out
    assert err == b""


def test_a_client_that_goes_away_hangs_the_job_up(session: Any) -> None:
    s = session(["/bin/sh", "-c", "trap 'echo hup >&2; exit 5' HUP; echo up; "
                 "while :; do sleep 0.05; done"])
    conn = bs.accept_session(s.listener, s.token, timeout=10)
    assert conn is not None
    reader = bs.FrameReader(bs.SHEPHERD_KINDS)
    got: list[tuple[bytes, bytes]] = []
    while (bs.STDOUT, b"up\n") not in got:
        got += reader.feed(conn.recv(100))
    conn.close()
    result = wait_result(s.job_dir)
    assert result["exit_status"] == 5


def test_a_client_that_cannot_be_reached_fails_the_job(launcher: Launcher,
                                                         tmp_path: Path) -> None:
    listener = bs.listen("127.0.0.1")
    port = listener.getsockname()[1]
    listener.close()  # nobody listens there now
    session = {"kind": "qrsh", "host": "127.0.0.1", "port": port, "token": bs.new_token()}
    spec = make_spec(tmp_path, binary=True, command="/bin/true", args=[], session=session)
    job_dir = tmp_path / "job.1"
    jobdir.write_spec(job_dir, spec, None)
    launcher.launch(job_dir)
    result = wait_result(job_dir)
    assert result["failed"] == jobdir.FAILED_EARLY
    assert "can't connect to the qrsh client" in result["error_message"]


def test_a_job_that_cannot_start_says_why(session: Any, tmp_path: Path) -> None:
    s = session(["/bin/true"], cwd=str(tmp_path / "missing"))
    assert s.run(None) == 1
    out, err = s.output()
    assert out == b"" and b"can't chdir to" in err


def test_a_lost_connection_is_reported_in_grid_engines_words(tmp_path: Path) -> None:
    mine, theirs = socket.socketpair()
    theirs.sendall(bs.frame(bs.STDOUT, b"partial"))
    theirs.close()
    with open(tmp_path / "out", "w+b") as out, open(tmp_path / "err", "w+b") as err:
        assert run_client(mine, stdin=False, fds=(0, out.fileno(), err.fileno())) == 1
        assert (_read(out), _read(err)) == (b"partial", (LOST_MESSAGE + "\n").encode())


@needs_root
def test_a_root_shepherd_gives_the_job_owner_its_terminal(session: Any) -> None:
    owner = pwd.getpwnam(other_user_name())
    s = session(["/bin/sh", "-c", 'stat -c %u "$(tty)"; id -u'], pty=True, switch_user=True,
                owner=owner.pw_name, uid=owner.pw_uid, gid=owner.pw_gid, cwd="/")
    assert s.run(None, pty=True) == 0
    assert s.output()[0].split() == [str(owner.pw_uid).encode()] * 2


def test_a_reader_that_goes_away_ends_the_client_and_the_job(session: Any) -> None:
    # (finite, so that a client that went on without its reader ends with 3, not 141)
    s = session(["/bin/sh", "-c", "trap 'exit 9' HUP; i=0; "
                 "while [ $i -lt 1000000 ]; do echo y; i=$((i+1)); done; exit 3"])
    conn = bs.accept_session(s.listener, s.token, timeout=10)
    assert conn is not None
    read, write = os.pipe()
    os.close(read)  # (as `qrsh yes | head -1` once head has exited)
    try:
        assert run_client(conn, stdin=False, fds=(0, write, s.err.fileno())) == \
            128 + signal.SIGPIPE
    finally:
        os.close(write)
    assert wait_result(s.job_dir)["exit_status"] == 9


def test_the_terminals_size_goes_to_the_jobs_pty(session: Any) -> None:
    s = session(["/bin/sh", "-c", "stty size"], pty=True)
    conn = bs.accept_session(s.listener, s.token, timeout=10)
    assert conn is not None
    master, slave = os.openpty()  # our "terminal"
    try:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 33, 101, 0, 0))
        assert run_client(conn, pty=True, fds=(slave, s.out.fileno(), s.err.fileno())) == 0
        assert termios.tcgetattr(slave)[3] & termios.ICANON  # (its modes are back)
    finally:
        os.close(master)
        os.close(slave)
    assert s.output()[0].strip() == b"33 101"
