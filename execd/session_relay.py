"""The shepherd's end of an interactive job (qrsh, qlogin) or a ``qrsh -inherit`` task:
what runs instead of files for the job's stdin, stdout and stderr.

When the start record has ``session`` (common.start_record), the shepherd connects back
to its client with ``common.builtin_session.connect_session`` before anything of the
job runs (``connect``), gives the job's child a pty (``pty y``) or three pipes
(``child_stdio``), and relays from its own wait loop (``pump``, never blocking: a client
that reads slowly holds back the job's output, not the shepherd, which must go on
enforcing limits and carrying out qdel and qmod -sj): STDIN frames to the job, its output
as STDOUT and STDERR frames (one STDOUT stream with a pty), SIGNAL frames to the job's
process group, WINSIZE to the pty (TIOCSWINSZ: the kernel tells the job with SIGWINCH).
A client that goes away (the connection lost) is a hang-up: ``pump`` says so and the
shepherd sends SIGHUP and then ends the job as qdel would. At the end ``finish`` sends
the job's exit status (128 + n for a job killed by signal n, as a shell's), or ``fail``
the reason it could not run, and closes.

Only stdio differs from a batch job: limits, cgroups, usage, accounting, suspend and
qdel are the shepherd's usual machinery. ``session_argv`` is what the job runs (pure):
qrsh(1)'s command through the owner's login shell (``<shell> -c "<command> <args>"``, as
8.1.9's qrsh_starter; the command itself with ``-noshell``), or a login shell for qlogin
and for qrsh without a command.
"""
from __future__ import annotations

import fcntl
import grp
import os
import pwd
import select
import socket
import struct
import termios
import time
from collections.abc import Mapping
from typing import Any

from common import builtin_session as bs

OUT_LIMIT = 1 << 18      # bytes waiting for the client before the job's output is held
IN_LIMIT = 1 << 18       # bytes waiting for the job's stdin before the client is held
READ_CHUNK = bs.MAX_PAYLOAD
DRAIN_SECONDS = 5.0      # at the end: how long a client may take nothing before it is dropped
PTY_MODE = 0o620         # the owner reads and writes it, group tty may write (write(1))
DEFAULT_SHELL = "/bin/sh"
SIZE_SECONDS = 2.0       # at most, for a pty client's first frame (its size) before the start
HANGUP_GRACE = 2.0       # seconds a job has after its client's hang-up before it is ended
_NATIVE_WINSIZE = struct.Struct("HHHH")  # struct winsize, host order (TIOCSWINSZ)


class SessionFailed(Exception):
    """The client could not be reached or did not prove the token: the job fails."""


# ------------------------------------------------------------------------------ pure

def uses_pty(spec: Mapping[str, Any]) -> bool:
    """qrsh(1) -pty: as asked, else a pty for a login session (qlogin, qrsh without a
    command) and none for a command."""
    asked = spec.get("pty")
    if asked is not None:
        return bool(asked)
    return not has_command(spec)


def has_command(spec: Mapping[str, Any]) -> bool:
    session = spec.get("session") or {}
    return session.get("kind") in ("qrsh", "qsh") and bool(spec.get("command"))


def session_argv(spec: Mapping[str, Any], login_shell: str) -> tuple[str, list[str]]:
    """(program, argv) of an interactive job. A command runs as 8.1.9's qrsh_starter
    runs it: ``<shell> -c "<command> <arg> ..."`` with the owner's login shell (argv[0]
    its base name; the words are joined with blanks and parsed again by that shell), or
    with ``noshell`` the command itself (found on the job's PATH by the shell-less exec:
    the program is then the bare name and ``execve`` needs a path, so a bare name is
    looked up by the caller, see ``resolve``). Without a command: the login shell as a
    login shell (argv[0] ``-<name>``)."""
    shell = login_shell or DEFAULT_SHELL
    name = os.path.basename(shell)
    if not has_command(spec):
        return shell, ["-" + name]
    words = [str(spec["command"]), *(str(a) for a in spec["args"])]
    if spec.get("noshell"):
        return words[0], words
    return shell, [name, "-c", " ".join(words)]


def resolve(program: str, path: str) -> str:
    """``program`` as execve needs it: a name without a slash searched in ``path`` (the
    job's PATH) as execvp does; unchanged when not found (the exec then fails with its
    own error)."""
    if "/" in program:
        return program
    for directory in (path or "").split(":"):
        candidate = os.path.join(directory or ".", program)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return program


def stdio_variables(cwd: str) -> dict[str, str]:
    """``SGE_STD*_PATH`` of an interactive job, whose stdio is its session's."""
    return {"SGE_STDIN_PATH": "/dev/null", "SGE_STDOUT_PATH": "/dev/null",
            "SGE_STDERR_PATH": "/dev/null", "SGE_CWD_PATH": cwd}


def exit_status(wait_status: int) -> int:
    """qrsh's exit status from the job's wait status: its exit code, 128 + n when
    killed by signal n (as a shell reports it)."""
    if os.WIFSIGNALED(wait_status):
        return 128 + os.WTERMSIG(wait_status)
    return os.waitstatus_to_exitcode(wait_status) & 0xFF


# --------------------------------------------------------------------------- runtime

def job_start(spec: Mapping[str, Any], user: str, env: Mapping[str, str]
              ) -> tuple[str, list[str], dict[str, str]]:
    """(program, argv, environment) of an interactive job of ``user``."""
    try:
        shell = pwd.getpwnam(user).pw_shell or DEFAULT_SHELL
    except KeyError:
        shell = DEFAULT_SHELL
    program, argv = session_argv(spec, shell)
    env = dict(env)
    env["SHELL"] = shell
    return resolve(program, env.get("PATH", "")), argv, env


def connect(spec: Mapping[str, Any]) -> SessionRelay | None:
    """The relay of ``spec``'s session, connected and proven (None: a batch job);
    SessionFailed with Grid Engine's kind of message when the client cannot be
    reached."""
    session = spec.get("session")
    if not session:
        return None
    host, port = str(session["host"]), int(session["port"])
    try:
        conn = bs.connect_session(host, port, bytes(session["token"]))
    except (bs.SessionError, OSError) as err:
        raise SessionFailed(f"can't connect to the qrsh client at {host}:{port}: "
                            f"{getattr(err, 'strerror', None) or err}") from err
    return SessionRelay(conn, uses_pty(spec))


class SessionRelay:
    """One connected session: the child's stdio ends and the relay's buffers."""

    def __init__(self, conn: socket.socket, pty: bool) -> None:
        self.conn = conn
        conn.setblocking(False)
        self.pty = pty
        self.reader = bs.FrameReader(bs.CLIENT_KINDS)
        self.to_client = bytearray()
        self.to_job = bytearray()
        self.stdin_eof = False       # the client sent EOF: close (or ^D) once written
        self.lost = False            # the client went away
        self.finished = False
        self.sized = False           # the client's first WINSIZE has come
        self.job_pgid = 0
        self._child_fds: list[int] = []
        # the shepherd's ends: (fd, frame kind) we read, and the job's stdin
        self.outputs: dict[int, bytes] = {}
        self.stdin_fd: int | None = None
        if pty:
            master, slave = os.openpty()
            os.set_blocking(master, False)
            os.set_inheritable(master, False)
            self.master = master
            self.outputs[master] = bs.STDOUT
            self.stdin_fd = master
            self._child_fds = [slave]
        else:
            self.master = None
            in_r, in_w = os.pipe2(os.O_CLOEXEC)
            out_r, out_w = os.pipe2(os.O_CLOEXEC)
            err_r, err_w = os.pipe2(os.O_CLOEXEC)
            for fd in (in_w, out_r, err_r):
                os.set_blocking(fd, False)
            self.stdin_fd = in_w
            self.outputs[out_r] = bs.STDOUT
            self.outputs[err_r] = bs.STDERR
            self._child_fds = [in_r, out_w, err_w]

    # --- the child's side

    def await_size(self) -> None:
        """With a pty, the client's first frame is its terminal's size: taken before the
        job starts, so that the job sees it from its first instruction (at most
        ``SIZE_SECONDS``; a client that sends nothing gets the pty's own size)."""
        deadline = time.monotonic() + SIZE_SECONDS
        while self.pty and not self.sized and not self.lost:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            ready, _, _ = select.select([self.conn], [], [], left)
            if ready:
                self._from_client()

    def child_stdio(self) -> tuple[int, int, int]:
        """The descriptors the job's child makes its 0, 1 and 2."""
        if self.pty:
            return self._child_fds[0], self._child_fds[0], self._child_fds[0]
        return self._child_fds[0], self._child_fds[1], self._child_fds[2]

    def give_tty(self, uid: int) -> None:
        """Make the pty the job owner's (a root shepherd), as login(1) does."""
        if not self.pty or os.geteuid() != 0:
            return
        name = os.ttyname(self._child_fds[0])
        try:
            gid = grp.getgrnam("tty").gr_gid
        except KeyError:
            gid = -1
        os.chown(name, uid, gid)
        os.chmod(name, PTY_MODE)

    def started(self, pid: int) -> None:
        """The child is forked: close our copies of its ends (so that the job's exit
        ends its output streams); ``pid`` is its process group (it calls setsid)."""
        self.job_pgid = pid
        for fd in self._child_fds:
            os.close(fd)
        self._child_fds = []

    # --- the wait loop

    def read_fds(self) -> list[int]:
        fds = [] if self.lost or len(self.to_job) >= IN_LIMIT else [self.conn.fileno()]
        if len(self.to_client) < OUT_LIMIT and not self.lost:
            fds += list(self.outputs)
        return fds

    def write_fds(self) -> list[int]:
        fds = [self.conn.fileno()] if self.to_client and not self.lost else []
        if self.to_job and self.stdin_fd is not None:
            fds.append(self.stdin_fd)
        return fds

    def pump(self) -> bool:
        """Move what is ready, never blocking; True when the client has just been found
        gone (the caller hangs the job up)."""
        was_lost = self.lost
        self._from_client()
        self._to_job()
        self._from_job()
        self._to_client()
        return self.lost and not was_lost

    def _from_client(self) -> None:
        if self.lost or len(self.to_job) >= IN_LIMIT:
            return
        try:
            data = self.conn.recv(READ_CHUNK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._lose()
            return
        try:
            frames = self.reader.feed(data)
        except bs.SessionError:
            self._lose()
            return
        for kind, payload in frames:
            try:
                self._apply(kind, payload)
            except bs.SessionError:
                continue  # a signal we do not forward, a bad size: dropped

    def _apply(self, kind: bytes, payload: bytes) -> None:
        if kind == bs.STDIN:
            if not payload:
                self.stdin_eof = True
            elif not self.stdin_eof:
                self.to_job += payload
        elif kind == bs.SIGNAL:
            self.signal_job(bs.unpack_signal(payload))
        elif kind == bs.WINSIZE and self.master is not None:
            rows, cols, xpixel, ypixel = bs.unpack_winsize(payload)
            self.sized = True
            if not rows and not cols:
                return  # (no terminal on the client's side)
            try:
                fcntl.ioctl(self.master, termios.TIOCSWINSZ,
                            _NATIVE_WINSIZE.pack(rows, cols, xpixel, ypixel))
            except OSError:
                pass

    def signal_job(self, signum: int) -> None:
        if self.job_pgid:
            try:
                os.killpg(self.job_pgid, signum)
            except OSError:
                pass

    def _to_job(self) -> None:
        if self.stdin_fd is None:
            return
        while self.to_job:
            try:
                done = os.write(self.stdin_fd, self.to_job[:READ_CHUNK])
            except (BlockingIOError, InterruptedError):
                return
            except OSError:  # the job closed its stdin: what it did not read is dropped
                self.to_job.clear()
                self._close_stdin()
                return
            del self.to_job[:done]
        if self.stdin_eof:
            if self.pty:
                # a terminal's end of input is its EOF character at a line's start
                try:
                    os.write(self.stdin_fd, b"\x04")
                except OSError:
                    pass
                self.stdin_eof = False  # once
            else:
                self._close_stdin()

    def _close_stdin(self) -> None:
        if not self.pty and self.stdin_fd is not None:
            os.close(self.stdin_fd)
            self.stdin_fd = None

    def _from_job(self) -> None:
        for fd, kind in list(self.outputs.items()):
            if len(self.to_client) >= OUT_LIMIT:
                return
            self._read_output(fd, kind)

    def _read_output(self, fd: int, kind: bytes) -> bool:
        """Read one chunk of the job's output; False at its end (closed)."""
        try:
            data = os.read(fd, READ_CHUNK)
        except (BlockingIOError, InterruptedError):
            return True
        except OSError:  # a pty whose last slave is closed: EIO
            data = b""
        if not data:
            del self.outputs[fd]
            if fd != self.master:
                os.close(fd)
            return False
        if not self.lost:
            self.to_client += bs.frame(kind, data)
        return True

    def _to_client(self) -> None:
        while self.to_client and not self.lost:
            try:
                sent = self.conn.send(self.to_client)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                self._lose()
                return
            del self.to_client[:sent]

    def _lose(self) -> None:
        self.lost = True
        self.to_client.clear()

    # --- the end

    def finish_early(self, wait_status: int) -> bool:
        """Right after the job's end: when its output streams are at their end already
        (no process of the job holds them), its last output and EXIT go now, before
        the search for what it left behind (qrsh returns that much sooner); True if so.
        Else what could be read is kept and ``finish`` sends the rest later."""
        for fd, kind in list(self.outputs.items()):
            while fd in self.outputs:
                try:
                    data = os.read(fd, READ_CHUNK)
                except (BlockingIOError, InterruptedError):
                    return False  # held open: by what the job left behind
                except OSError:
                    data = b""
                if not data:
                    del self.outputs[fd]
                    if fd != self.master:
                        os.close(fd)
                elif not self.lost:
                    self.to_client += bs.frame(kind, data)
        self.finish(wait_status)
        return True

    def finish(self, wait_status: int) -> None:
        """After the job's end (and its leftovers'): its last output, then EXIT."""
        self._drain()
        self._send_last(bs.frame(bs.EXIT, bs.pack_exit(exit_status(wait_status))))

    def fail(self, message: str) -> None:
        """The job did not run: ERROR with ``message``."""
        if not self.finished:
            self._drain()
            self._send_last(bs.frame(bs.ERROR, message.encode("utf-8", "replace")
                                     [:bs.MAX_PAYLOAD]))

    def _drain(self) -> None:
        """The job's last output to the client: until its streams end, and for as long as
        the client takes it (``DRAIN_SECONDS`` without progress: it is given up)."""
        for fd in self._child_fds:  # (a job that never started: its ends are ours)
            os.close(fd)
        self._child_fds = []
        deadline = time.monotonic() + DRAIN_SECONDS
        while self.outputs and not self.lost and time.monotonic() < deadline:
            if len(self.to_client) >= OUT_LIMIT:
                deadline = self._flush(deadline)
                continue
            ready, _, _ = select.select(list(self.outputs), [], [],
                                        max(0.0, deadline - time.monotonic()))
            for fd in ready:
                if fd in self.outputs:
                    self._read_output(fd, self.outputs[fd])
            self._to_client()

    def _flush(self, deadline: float) -> float:
        """Wait until the client takes some of what waits for it (or ``deadline``); the
        deadline, moved on when it took something."""
        try:
            select.select([], [self.conn], [], max(0.0, deadline - time.monotonic()))
        except (OSError, ValueError):
            return deadline
        waiting = len(self.to_client)
        self._to_client()
        return time.monotonic() + DRAIN_SECONDS if len(self.to_client) < waiting \
            else deadline

    def _send_last(self, last: bytes) -> None:
        if not self.lost:
            self.to_client += last
            deadline = time.monotonic() + DRAIN_SECONDS
            while self.to_client and not self.lost and time.monotonic() < deadline:
                deadline = self._flush(deadline)
        self.close()

    def close(self) -> None:
        """Close everything of the session (idempotent)."""
        self.finished = True
        for fd in [*self.outputs, *self._child_fds]:
            try:
                os.close(fd)
            except OSError:
                pass
        if self.stdin_fd is not None and self.stdin_fd not in self.outputs:
            try:
                os.close(self.stdin_fd)
            except OSError:
                pass
        self.outputs, self._child_fds, self.stdin_fd = {}, [], None
        try:
            self.conn.close()
        except OSError:
            pass

