"""The launcher: a fork server ("zygote") that starts shepherds in about a millisecond.

A fresh Python interpreter per job costs tens of milliseconds; forking a process that has
already imported the shepherd costs about one. ``Launcher.start()`` forks the zygote
(call it before the execd creates threads or a zmq context, since only the forking thread
survives a fork). ``launch(job_dir)`` sends the job directory over a socketpair; the
zygote forks the shepherd, which calls ``setsid``; the zygote ignores SIGCHLD so exited
shepherds are reaped by the kernel, and a shepherd outlives both the execd and the zygote
(init adopts it). The zygote freezes its garbage collector's objects first, so forked
shepherds do not copy every inherited page. The zygote exits when its socket reaches EOF
(``stop()`` or the execd's death).
"""
from __future__ import annotations

import gc
import os
import signal
import socket
import sys
import threading
import time
from pathlib import Path
from typing import NoReturn

from execd import jobdir
from execd.shepherd import run_shepherd

_MAX_MESSAGE = 65536


class LauncherError(Exception):
    """The zygote is not running or could not start a shepherd."""


def is_shepherd_alive(job_dir: Path) -> bool:
    """Whether the shepherd recorded in ``job_dir/shepherd.pid`` still runs.

    The pid file holds the start time of the process, so a reused pid is not mistaken
    for the shepherd; a zombie counts as dead.
    """
    return jobdir.live_pid(Path(job_dir) / jobdir.SHEPHERD_PID_FILE) is not None


def _shepherd_main(job_dir: Path, zygote_sock: socket.socket) -> NoReturn:
    """The shepherd process: detached from the execd's stdio and its zygote socket."""
    code = 1
    try:
        zygote_sock.close()
        os.chdir("/")  # hold no directory of the execd's busy; all job paths are absolute
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.close(null)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the shepherd waits for its job
        run_shepherd(job_dir)
        code = 0
    finally:
        os._exit(code)


def _wrapped_main(job_dir: Path, zygote_sock: socket.socket, wrapper: str) -> NoReturn:
    """sge_conf(5) ``shepherd_cmd``: the administrator's wrapper runs instead of the
    shepherd, given the shepherd's command line as its arguments (a wrapper ends with
    ``exec "$@"``, under a debugger, another environment ...)."""
    try:
        zygote_sock.close()
        os.chdir("/")
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.close(null)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.execv(wrapper, [wrapper, *shepherd_command(job_dir)])
    finally:
        os._exit(127)


def shepherd_command(job_dir: Path) -> list[str]:
    """The command line of a shepherd of its own interpreter (what a wrapper runs)."""
    return [sys.executable, "-m", "execd.launcher", os.fspath(job_dir)]


def _spawn(job_dir: Path, zygote_sock: socket.socket, wrapper: str = "") -> int:
    """Fork a shepherd for ``job_dir`` in a session of its own (or the ``wrapper`` that
    runs it); its pid.

    One fork, not two: the zygote ignores SIGCHLD, so the kernel reaps its exited
    shepherds, and a shepherd whose zygote died is adopted by init and runs on.
    """
    pid = os.fork()
    if pid == 0:
        # The execd may ask for an action (SIGUSR1: a request file waits, execd.shepherd
        # request_action) as soon as the pid file below exists, before the shepherd has
        # its handler: SIGUSR1's default would end it then. Ignored until the handler is
        # installed, the request is not lost: the shepherd takes the file at its first look.
        signal.signal(signal.SIGUSR1, signal.SIG_IGN)
        os.setsid()
        if wrapper:
            _wrapped_main(job_dir, zygote_sock, wrapper)
        _shepherd_main(job_dir, zygote_sock)
    # Written before launch() returns, so the shepherd never looks dead to the execd.
    jobdir.write_pid_file(job_dir / jobdir.SHEPHERD_PID_FILE, pid)
    return pid


def _zygote_main(sock: socket.socket) -> NoReturn:
    """Serve launch requests until EOF, one at a time."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C on the execd: we go at EOF
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)
        # Objects that exist now are never collected, so a forked shepherd's garbage
        # collector does not touch (and copy) every page inherited from the zygote.
        gc.freeze()
        while request := sock.recv(_MAX_MESSAGE):
            try:
                path, _, wrapper = os.fsdecode(request).partition("\0")
                reply = f"ok {_spawn(Path(path), sock, wrapper)}"
            except Exception as e:  # noqa: BLE001 - report every failure to the caller
                reply = f"error {e}"
            sock.send(reply.encode())
    finally:
        os._exit(0)


class Launcher:
    """Client side of the zygote; ``launch`` is thread-safe and takes about 1 ms."""

    def __init__(self) -> None:
        self._sock: socket.socket | None = None
        self._pid: int | None = None
        self._lock = threading.Lock()

    @property
    def zygote_pid(self) -> int | None:
        """Pid of the zygote process while it is started."""
        return self._pid

    def start(self) -> None:
        """Fork the zygote. Call before creating threads or a zmq context."""
        if self._sock is not None:
            raise LauncherError("launcher already started")
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            parent.close()
            _zygote_main(child)
        child.close()
        self._sock, self._pid = parent, pid

    def launch(self, job_dir: Path, wrapper: str = "") -> int:
        """Start a shepherd for ``job_dir`` (through the administrator's ``wrapper``,
        sge_conf(5) shepherd_cmd, when given); its pid (blocking, about 1 ms)."""
        path = os.path.abspath(job_dir)  # the zygote's cwd may differ from ours
        with self._lock:
            if self._sock is None:
                raise LauncherError("launcher not started")
            try:
                self._sock.send(os.fsencode(path + ("\0" + wrapper if wrapper else "")))
                reply = self._sock.recv(_MAX_MESSAGE).decode()
            except OSError as e:
                raise LauncherError(f"zygote unreachable: {e}") from e
        status, _, value = reply.partition(" ")
        if status != "ok":
            raise LauncherError(value or "zygote exited")
        return int(value)

    async def launch_async(self, job_dir: Path) -> int:
        """``launch`` for asyncio code, off the event loop thread."""
        import asyncio  # not at module level: the zygote should stay small
        return await asyncio.to_thread(self.launch, job_dir)

    def stop(self, timeout: float = 2.0) -> None:
        """Close the socket (the zygote exits at EOF) and reap the zygote."""
        with self._lock:
            sock, pid, self._sock, self._pid = self._sock, self._pid, None, None
        if sock is None or pid is None:
            return
        sock.close()
        deadline = time.monotonic() + timeout
        while os.waitpid(pid, os.WNOHANG)[0] == 0:
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return
            time.sleep(0.005)


def _standalone(argv: list[str]) -> int:
    """``python -m execd.launcher JOB_DIR``: a shepherd as its own program, what a
    shepherd_cmd wrapper runs (its session and stdio are the zygote's child's)."""
    if len(argv) != 1:
        sys.stderr.write("usage: python -m execd.launcher JOB_DIR\n")
        return 2
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    run_shepherd(Path(argv[0]))
    return 0


if __name__ == "__main__":
    sys.exit(_standalone(sys.argv[1:]))
