"""The client's end of a builtin session (qrsh, qlogin, qrsh -inherit): relays the local
terminal or pipes to and from the job's shepherd over a proven connection
(common.builtin_session), until the job's exit status comes.

- stdin (unless ``stdin=False``: qrsh -nostdin) goes as STDIN frames, its end as an empty
  one; while the shepherd holds back (a job that does not read), stdin is not read
  further, so that output and signals still flow.
- STDOUT and STDERR frames go to our fd 1 and fd 2, kept apart.
- SIGINT, SIGQUIT, SIGTERM and SIGHUP are sent on as SIGNAL frames (a hang-up of our
  terminal ends the job); with a pty our terminal is raw, so that Ctrl-C, Ctrl-\\ and
  Ctrl-Z reach the job's terminal as characters, and its size goes as WINSIZE first of
  all (the job starts with it) and on each SIGWINCH. The terminal's modes come back
  whatever happens.
- EXIT ends the relay with its status; ERROR prints the shepherd's message (status 1);
  a connection lost before EXIT prints Grid Engine's message (status 1). Our stdout or
  stderr closed by its reader ends us as SIGPIPE would (status 141): the connection
  closes, and the shepherd hangs the job up.
"""
from __future__ import annotations

import fcntl
import os
import select
import signal
import socket
import struct
import sys
import termios
import tty
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from common import builtin_session as bs

FORWARDED = (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP)
SEND_LIMIT = 1 << 18   # bytes waiting for the shepherd before stdin is read no further
LOST_MESSAGE = "error: ending connection before all data received"  # 8.1.9's words
_NATIVE_WINSIZE = struct.Struct("HHHH")


def terminal_size(fd: int) -> bytes | None:
    """A WINSIZE payload of the terminal at ``fd`` (None: not a terminal)."""
    try:
        raw = fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * _NATIVE_WINSIZE.size)
    except OSError:
        return None
    return bs.pack_winsize(*_NATIVE_WINSIZE.unpack(raw))


@contextmanager
def raw_terminal(fd: int, enabled: bool) -> Iterator[None]:
    """``fd``'s terminal in raw mode for the block (a pty session), restored after,
    whatever happens; nothing when ``fd`` is not a terminal."""
    saved = None
    if enabled and os.isatty(fd):
        try:
            saved = termios.tcgetattr(fd)
            tty.setraw(fd, termios.TCSANOW)
        except termios.error:
            saved = None
    try:
        yield
    finally:
        if saved is not None:
            try:
                termios.tcsetattr(fd, termios.TCSAFLUSH, saved)
            except termios.error:
                pass


@contextmanager
def _signals_to_pipe(signums: tuple[int, ...]) -> Iterator[int]:
    """The signals ``signums`` written (as bytes) to a pipe whose read end is yielded;
    the handlers and the wakeup fd come back after."""
    read, write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    saved_handlers: dict[int, Any] = {}
    saved_fd = signal.set_wakeup_fd(write, warn_on_full_buffer=False)
    try:
        for signum in signums:
            saved_handlers[signum] = signal.signal(signum, _noop)
        yield read
    finally:
        for signum, handler in saved_handlers.items():
            signal.signal(signum, handler)
        signal.set_wakeup_fd(saved_fd)
        os.close(read)
        os.close(write)


def _noop(_signum: int, _frame: Any) -> None:
    """A handler that only wakes the relay (through the wakeup fd)."""


class _ClientRelay:
    def __init__(self, conn: socket.socket, fds: tuple[int, int, int], stdin: bool,
                 pty: bool, write: Callable[[int, bytes], None]) -> None:
        self.conn, self.fds, self.pty, self.write = conn, fds, pty, write
        self.reader = bs.FrameReader(bs.SHEPHERD_KINDS)
        self.outgoing = bytearray()
        self.stdin_open = stdin
        self.status: int | None = None
        if pty:  # first, always: the shepherd waits for it to start the job (0 x 0:
            # no terminal here, the pty keeps its own size)
            size = terminal_size(fds[0]) or terminal_size(fds[1]) or bs.pack_winsize(0, 0)
            self.outgoing += bs.frame(bs.WINSIZE, size)
        if not stdin:
            self.outgoing += bs.frame(bs.STDIN)

    def run(self, wake: int) -> int:
        self.conn.setblocking(False)
        while self.status is None:
            reads = [self.conn.fileno(), wake]
            if self.stdin_open and len(self.outgoing) < SEND_LIMIT:
                reads.append(self.fds[0])
            writes = [self.conn.fileno()] if self.outgoing else []
            try:
                ready, writable, _ = select.select(reads, writes, [])
            except InterruptedError:
                continue
            if wake in ready:
                self._signals(wake)
            if self.fds[0] in ready and self.stdin_open:
                self._stdin()
            if writable:
                self._send()
            if self.conn.fileno() in ready and not self._receive():
                break
        if self.status is None:
            self.write(self.fds[2], (LOST_MESSAGE + "\n").encode())
            return 1
        return self.status

    def _signals(self, wake: int) -> None:
        try:
            got = os.read(wake, 512)
        except (BlockingIOError, InterruptedError):
            return
        for signum in got:
            if signum == signal.SIGWINCH:
                size = terminal_size(self.fds[0]) or terminal_size(self.fds[1])
                if size is not None:
                    self.outgoing += bs.frame(bs.WINSIZE, size)
            elif signum in FORWARDED:
                self.outgoing += bs.frame(bs.SIGNAL, bs.pack_signal(signum))
        self._send()

    def _stdin(self) -> None:
        try:
            data = os.read(self.fds[0], bs.MAX_PAYLOAD)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self.stdin_open = False
        self.outgoing += bs.frame(bs.STDIN, data)  # (an empty frame: the end)
        self._send()

    def _send(self) -> None:
        while self.outgoing:
            try:
                sent = self.conn.send(self.outgoing)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                self.outgoing.clear()  # the shepherd is gone: _receive says so
                return
            del self.outgoing[:sent]

    def _receive(self) -> bool:
        """Handle what came; False when the connection ended."""
        try:
            data = self.conn.recv(1 << 16)
        except (BlockingIOError, InterruptedError):
            return True
        except OSError:
            return False
        if not data:
            return False
        try:
            frames = self.reader.feed(data)
        except bs.SessionError:
            return False
        for kind, payload in frames:
            if kind in (bs.STDOUT, bs.STDERR):
                try:
                    self.write(self.fds[1] if kind == bs.STDOUT else self.fds[2], payload)
                except BrokenPipeError:
                    self.status = 128 + signal.SIGPIPE
                    return True
            elif kind == bs.EXIT:
                try:
                    self.status = bs.unpack_exit(payload)
                except bs.SessionError:
                    return False
                return True
            elif kind == bs.ERROR:
                self.write(self.fds[2], payload.decode("utf-8", "replace").rstrip("\n")
                           .encode() + b"\n")
                self.status = 1
                return True
        return True


def _write_all(fd: int, data: bytes) -> None:
    """Write ``data`` whole to ``fd`` (blocking); BrokenPipeError when its reader has
    gone, other errors drop it."""
    view = memoryview(data)
    while view:
        try:
            done = os.write(fd, view)
        except BlockingIOError:
            select.select([], [fd], [])
            continue
        except InterruptedError:
            continue
        except BrokenPipeError:
            raise
        except OSError:
            return
        view = view[done:]


def run_client(conn: socket.socket, *, stdin: bool = True, pty: bool = False,
               fds: tuple[int, int, int] = (0, 1, 2),
               write: Callable[[int, bytes], None] = _write_all) -> int:
    """Relay between ``fds`` (stdin, stdout, stderr) and the job over ``conn`` until it
    ends; the status qrsh exits with. ``conn`` is closed at the end."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    relay = _ClientRelay(conn, fds, stdin, pty, write)
    signums = FORWARDED + ((signal.SIGWINCH,) if pty else ())
    try:
        with _signals_to_pipe(signums) as wake, raw_terminal(fds[0], pty):
            return relay.run(wake)
    finally:
        conn.close()
