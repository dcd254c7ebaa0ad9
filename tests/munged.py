"""A private munged for tests: its own key, socket, pid, seed and log files, stopped after.

``private_munged(directory)`` starts ``munged --foreground`` with a fresh random key and
yields its socket path; credentials it makes are valid only for itself (and for another
munged started with a copy of the same key file). It works as root and as an ordinary
user without ``--force``, because the files are laid out as munged 0.5.x checks them:

- the key file is a regular file owned by the caller, mode 0400, in a directory owned
  by the caller (or root) that neither group nor others can write, nor any ancestor
  (unless sticky, like /tmp);
- the socket's directory passes the same check and is searchable by everyone (``o+x``
  on it and every ancestor: munged refuses "inaccessible" sockets, since every local
  user must be able to reach it);
- the socket path fits in ``sun_path`` (108 bytes with its NUL).

pytest's ``tmp_path`` is under ``/tmp/pytest-of-<user>``, mode 0700, so the socket
usually lands in a short ``mkdtemp`` under /tmp (mode 0755), which is removed after.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket as socketlib
import stat
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["MUNGED", "MungedFailed", "munged_skip_reason", "private_munged", "write_key"]

#: Where Debian's ``munge`` package installs the daemon (not on an ordinary user's PATH).
MUNGED_CANDIDATES = ("/usr/sbin/munged", "/usr/local/sbin/munged")
MUNGED: str | None = shutil.which("munged") or next(
    (p for p in MUNGED_CANDIDATES if os.access(p, os.X_OK)), None)

START_DEADLINE = 10.0   # seconds for munged to answer on its socket
STOP_DEADLINE = 5.0     # seconds between SIGTERM and SIGKILL
_SUN_PATH_MAX = 107     # sizeof(sun_path) - 1 for the NUL


class MungedFailed(RuntimeError):
    """munged did not start; the message carries the end of its log."""


def munged_skip_reason() -> str | None:
    """Why tests that need a private munged can't run here, or None."""
    if MUNGED is None:
        return "munged is not installed (Debian: apt-get install munge)"
    from common import munge
    return munge.unavailable_reason()  # "libmunge.so.2 is not available: <why>" or None


def write_key(path: Path, data: bytes | None = None) -> None:
    """A key file, created 0400 (munged refuses group or other access): ``data``, or
    1024 fresh random bytes."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o400)
    try:
        os.write(fd, os.urandom(1024) if data is None else data)
    finally:
        os.close(fd)


def _is_secure(path: Path) -> bool:
    """munged's path_is_secure: every component owned by root or us, no g/o write
    without the sticky bit."""
    euid = os.geteuid()
    current = path.resolve()
    for part in (current, *current.parents):
        st = os.lstat(part)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid not in (0, euid):
            return False
        if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not st.st_mode & stat.S_ISVTX:
            return False
    return True


def _is_accessible(path: Path) -> bool:
    """munged's path_is_accessible: every component searchable by others."""
    current = path.resolve()
    return all(os.stat(part).st_mode & stat.S_IXOTH for part in (current, *current.parents))


def _answers(sock: str) -> bool:
    s = socketlib.socket(socketlib.AF_UNIX, socketlib.SOCK_STREAM)
    try:
        s.connect(sock)
    except OSError:
        return False
    finally:
        s.close()
    return True


def _log_tail(log: Path, limit: int = 2000) -> str:
    try:
        return log.read_text(errors="replace")[-limit:]
    except OSError:
        return ""


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM by pid, SIGKILL after STOP_DEADLINE; reaps it."""
    if proc.poll() is not None:
        return
    os.kill(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=STOP_DEADLINE)
    except subprocess.TimeoutExpired:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()


@contextmanager
def private_munged(directory: Path, *, key: Path | None = None,
                   extra_args: tuple[str, ...] = ()) -> Iterator[str]:
    """Run a munged of our own for the ``with`` block; yields its socket path.

    State (key, pid, seed, log) goes to a fresh subdirectory of ``directory``; with
    ``key`` given, that key file is copied instead of a new one (two daemons sharing a
    key act as two hosts of one cell). Raises MungedFailed if munged exits or doesn't
    answer within START_DEADLINE.
    """
    if MUNGED is None:
        raise MungedFailed("munged is not installed")
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    scratch: Path | None = None   # the short /tmp directory we made, if any
    proc: subprocess.Popen[bytes] | None = None
    try:
        if _is_secure(directory):
            state = Path(tempfile.mkdtemp(prefix="munged.", dir=directory))
        else:
            # munged would refuse a key under a directory others can write to.
            scratch = Path(tempfile.mkdtemp(prefix="munge.", dir="/tmp"))
            state = scratch
        os.chmod(state, 0o755)
        sock_dir = state
        if len(str(state / "sock")) > _SUN_PATH_MAX or not _is_accessible(state):
            if scratch is None:
                scratch = Path(tempfile.mkdtemp(prefix="munge.", dir="/tmp"))
                os.chmod(scratch, 0o755)
            sock_dir = scratch
        sock = str(sock_dir / "sock")
        key_file = state / "munge.key"
        write_key(key_file, None if key is None else Path(key).read_bytes())
        log = state / "munged.log"
        argv = [MUNGED, "--foreground",
                f"--socket={sock}", f"--key-file={key_file}",
                f"--pid-file={state / 'munged.pid'}", f"--seed-file={state / 'munged.seed'}",
                # In the foreground munged logs to stderr, which goes to this file; the
                # option keeps it off the system's /var/log/munge in any case.
                f"--log-file={log}",
                *extra_args]
        with open(log, "wb") as out:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=subprocess.STDOUT, cwd=state)
        deadline = time.monotonic() + START_DEADLINE
        while not _answers(sock):
            if proc.poll() is not None:
                raise MungedFailed(f"munged exited with status {proc.returncode}: "
                                   f"{' '.join(argv)}\n{_log_tail(log)}")
            if time.monotonic() > deadline:
                raise MungedFailed(f"munged did not answer on {sock} within "
                                   f"{START_DEADLINE:g} s\n{_log_tail(log)}")
            time.sleep(0.01)
        yield sock
    finally:
        if proc is not None:
            _stop(proc)
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
