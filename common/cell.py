"""Where a cell lives on disk and how clients and daemons find it.

A cell is the directory ``$PYGE_ROOT/$PYGE_CELL`` (cell name default ``default``), laid out
like Grid Engine's ``$SGE_ROOT/$SGE_CELL``:

- ``common/accounting``   accounting file in Grid Engine's format
- ``common/act_qmaster``  "host request_port event_port" of the running qmaster
- ``common/qmaster.sock`` the qmaster's Unix socket for clients on its host
- ``common/keys/``        the qmaster's public CURVE key (``common.keys``)
- ``keys/``               secret keys and the daemon keys the qmaster trusts (0700)
- ``spool/qmaster/``      the qmaster's SQLite spool
- ``spool/execd/<host>/`` one directory per execution host (job directories, results)
- ``run/``                pid files and logs of the daemons started by ``pyge up``

Modes (docs/security.md): ``spool/qmaster/`` is 0700, since the SQLite spool holds every
job's script and environment; the cell, ``common/`` (read by every user's clients:
act_qmaster, accounting, sge_request), ``spool/`` and ``spool/execd/`` (job owners
traverse them to their job directories) are 0755 when this module makes them.
"""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

DEFAULT_CELL = "default"
DEFAULT_PORT = 6444
MAX_SOCKET_PATH = 107  # sun_path holds 108 bytes with the terminating NUL
PUBLIC_DIR_MODE = 0o755
PUBLIC_FILE_MODE = 0o644
QMASTER_SPOOL_MODE = 0o700


class CellNotFound(Exception):
    """Raised when no cell can be located from the environment."""


@dataclass(frozen=True)
class Cell:
    root: Path
    name: str = DEFAULT_CELL

    @property
    def path(self) -> Path:
        return self.root / self.name

    @property
    def common_dir(self) -> Path:
        return self.path / "common"

    @property
    def accounting_path(self) -> Path:
        return self.common_dir / "accounting"

    @property
    def act_qmaster_path(self) -> Path:
        return self.common_dir / "act_qmaster"

    @property
    def qmaster_socket_path(self) -> Path:
        """The qmaster's Unix-domain socket for clients on its host (qmaster.gate)."""
        return self.common_dir / "qmaster.sock"

    @property
    def qmaster_spool_dir(self) -> Path:
        return self.path / "spool" / "qmaster"

    def execd_spool_dir(self, host: str) -> Path:
        return self.path / "spool" / "execd" / host

    @property
    def run_dir(self) -> Path:
        return self.path / "run"


def cell_from_env(environ: dict[str, str] | None = None) -> Cell:
    """The cell named by ``PYGE_ROOT`` / ``PYGE_CELL`` (``SGE_ROOT`` / ``SGE_CELL`` as fallback)."""
    env = os.environ if environ is None else environ
    root = env.get("PYGE_ROOT") or env.get("SGE_ROOT")
    if not root:
        raise CellNotFound("PYGE_ROOT is not set")
    name = env.get("PYGE_CELL") or env.get("SGE_CELL") or DEFAULT_CELL
    return Cell(Path(root), name)


def read_act_qmaster(cell: Cell) -> tuple[str, int, int]:
    """(host, request port, event port) of the cell's qmaster as it last recorded them."""
    text = cell.act_qmaster_path.read_text().split()
    return text[0], int(text[1]), int(text[2])


def write_act_qmaster(cell: Cell, host: str, port: int, event_port: int) -> None:
    """Record the qmaster's address, readable by every user's clients (whatever the
    qmaster's umask), atomically.

    The qmaster calls this once it has opened its spool, so this is also where a spool
    that the qmaster made itself (started without ``pyge up``) is closed to others.
    """
    _make_public_dir(cell.common_dir)
    close_qmaster_spool(cell)
    tmp = cell.common_dir / f".act_qmaster.{os.getpid()}.tmp"
    tmp.unlink(missing_ok=True)  # a leftover of a crash; unlink never follows a link
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                 PUBLIC_FILE_MODE)
    try:
        os.fchmod(fd, PUBLIC_FILE_MODE)
        os.write(fd, f"{host} {port} {event_port}\n".encode())
    finally:
        os.close(fd)
    os.replace(tmp, cell.act_qmaster_path)


def make_cell_dirs(cell: Cell) -> None:
    """Make the cell's directories, each with its mode; close an existing qmaster spool.

    Directories that exist keep their modes (an administrator may have narrowed them),
    except the qmaster spool: if it is ours, it becomes 0700 whatever it was.
    """
    for directory in (cell.root, cell.path, cell.common_dir, cell.path / "spool",
                      cell.path / "spool" / "execd"):
        _make_public_dir(directory)
    try:
        cell.qmaster_spool_dir.mkdir(mode=QMASTER_SPOOL_MODE)
    except FileExistsError:
        pass
    close_qmaster_spool(cell)


def close_qmaster_spool(cell: Cell) -> None:
    """chmod 0700 the qmaster spool if it exists and is ours (not another user's)."""
    try:
        st = os.stat(cell.qmaster_spool_dir)
    except FileNotFoundError:
        return
    if st.st_uid == os.geteuid() and stat.S_IMODE(st.st_mode) != QMASTER_SPOOL_MODE:
        os.chmod(cell.qmaster_spool_dir, QMASTER_SPOOL_MODE)


def _make_public_dir(directory: Path) -> None:
    """Make ``directory`` (and missing parents) 0755 whatever the umask; leave existing
    ones as they are."""
    if directory.exists():
        return
    _make_public_dir(directory.parent)
    try:
        directory.mkdir()
    except FileExistsError:
        return
    os.chmod(directory, PUBLIC_DIR_MODE)
