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

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

DEFAULT_CELL = "default"
DEFAULT_PORT = 6444
MAX_SOCKET_PATH = 107  # sun_path holds 108 bytes with the terminating NUL
PUBLIC_DIR_MODE = 0o755
PUBLIC_FILE_MODE = 0o644
QMASTER_SPOOL_MODE = 0o700


class CellNotFound(Exception):
    """Raised when no cell can be located from the environment."""


def posix_join(*parts: str) -> str:
    """``str(PurePosixPath(*parts))`` without importing pathlib (issue 12: every command
    finds its cell, and pathlib with its imports costs a command's start-up about 4 ms):
    an absolute part starts again, empty and "." components go, "//" at the start stays
    (POSIX leaves its meaning to the system), "..", links and case are left alone."""
    root = ""
    names: list[str] = []
    for part in parts:
        if part.startswith("/"):
            root = "//" if part.startswith("//") and not part.startswith("///") else "/"
            names = []
        names += [name for name in part.split("/") if name and name != "."]
    return root + "/".join(names) or "."


class Cell:
    """The cell ``root/name``; the properties name its files and directories as Paths.

    Made like the frozen dataclass it was (same constructor, equality, hash, repr and
    immutability) but as a plain class: clients find their cell at every start, where
    building a dataclass (about 1 ms, and ``inspect``) and importing pathlib would cost
    more than the rest of their work. ``root`` may be given as text (``cell_from_env``)
    and becomes a Path when it is first asked for; ``file`` gives the text of a path
    inside the cell without pathlib.
    """

    __slots__ = ("_root", "name")

    def __init__(self, root: Path | str, name: str = DEFAULT_CELL) -> None:
        object.__setattr__(self, "_root", root)
        object.__setattr__(self, "name", name)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")  # frozen

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def __repr__(self) -> str:
        return f"Cell(root={self.root!r}, name={self.name!r})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (self.root, self.name) == (other.root, other.name)  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((self.root, self.name))

    def __reduce__(self) -> tuple[type[Cell], tuple[Path | str, str]]:
        return Cell, (self._root, self.name)  # (pickle and copy: no setattr on a frozen cell)

    @property
    def root(self) -> Path:
        root = self._root
        if isinstance(root, str):
            from pathlib import Path  # (the daemons' and pyge's use: not at a client's start)
            root = Path(root)
            object.__setattr__(self, "_root", root)
        return root

    def file(self, *parts: str) -> str:
        """The text of ``path / parts...`` (what ``str()`` of the Path would give)."""
        return posix_join(os.fspath(self._root), self.name, *parts)

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
        raise CellNotFound("neither PYGE_ROOT nor SGE_ROOT is set")
    name = env.get("PYGE_CELL") or env.get("SGE_CELL") or DEFAULT_CELL
    return Cell(root, name)


def read_act_qmaster(cell: Cell) -> tuple[str, int, int]:
    """(host, request port, event port) of the cell's qmaster as it last recorded them."""
    with open(cell.file("common", "act_qmaster")) as f:  # (text: no pathlib for clients)
        text = f.read().split()
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
