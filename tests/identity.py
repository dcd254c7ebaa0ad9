"""Acting as another user in tests, the only way the qmaster allows: being that user.

The qmaster takes a local client's uid and gid from the kernel when the client connects
to its Unix socket (qmaster.gate), so a test that needs a second user connects with
that user's effective ids: root switches its effective uid and gid for the moment of
``connect`` and back at once; the connection keeps the identity it was made with.
Without root there is no second user, and such tests skip (``needs_root``).

The users are accounts every Debian system has (``daemon``, ``bin``, ...), so nothing is
added to the machine; a live cell made by ``pyge up`` has ``min_uid`` 0 and accepts them.
"""
from __future__ import annotations

import os
import pwd
from contextlib import contextmanager
from typing import Any, Iterator

import pytest

from clients.api import Client
from common.cell import Cell

# System accounts present on Debian and most Linux systems, in order of preference.
CANDIDATES = ("daemon", "bin", "sys", "games", "man", "lp", "mail", "news", "nobody")

needs_root = pytest.mark.skipif(os.geteuid() != 0,
                                reason="acting as another user needs root")


def _existing_others() -> list[str]:
    me = os.geteuid()
    names = []
    for name in CANDIDATES:
        try:
            if pwd.getpwnam(name).pw_uid != me:
                names.append(name)
        except KeyError:
            continue
    return names


def other_users(count: int) -> list[str]:
    """``count`` existing account names other than ours (skips the test if too few)."""
    names = _existing_others()
    if len(names) < count:
        pytest.skip(f"needs {count} system accounts besides ours")
    return names[:count]


def other_user_name() -> str:
    """One account name other than ours, for module constants (no skip at import: a
    test that acts as it skips in ``client_as`` when it cannot)."""
    names = _existing_others()
    return names[0] if names else "daemon"


@contextmanager
def effective_ids(uid: int, gid: int) -> Iterator[None]:
    """Our effective uid and gid are ``uid``/``gid`` inside the block (root only)."""
    os.setegid(gid)
    try:
        os.seteuid(uid)
        try:
            yield
        finally:
            os.seteuid(0)
    finally:
        os.setegid(0)


class UserClient(Client):
    """A client whose every connection is made with another user's effective ids.

    The cell may lie below a directory only we can enter (pytest's temporary
    directories are 0700): the socket is reached through a descriptor on its directory,
    opened by us, so that only the socket's own directory must admit the user.
    """

    def __init__(self, cell: Cell, name: str, timeout: float) -> None:
        super().__init__(cell, timeout=timeout)
        entry = pwd.getpwnam(name)
        self._user_ids = (entry.pw_uid, entry.pw_gid)
        self._dir_fd = os.open(cell.qmaster_socket_path.parent, os.O_PATH | os.O_DIRECTORY)
        self.socket_path = f"/proc/self/fd/{self._dir_fd}/{cell.qmaster_socket_path.name}"

    def _open(self, timeout: float) -> Any:
        with effective_ids(*self._user_ids):
            return super()._open(timeout)

    def __del__(self) -> None:
        try:
            os.close(self._dir_fd)
        except (OSError, AttributeError):
            pass


def client_as(cell: Cell, name: str, timeout: float = 10.0) -> Client:
    """A client that acts as user ``name`` (root only; the test skips otherwise)."""
    if os.geteuid() != 0:
        pytest.skip("acting as another user needs root")
    return UserClient(cell, name, timeout)
