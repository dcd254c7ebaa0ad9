"""Where a cell lives on disk and how clients and daemons find it.

A cell is the directory ``$PYGE_ROOT/$PYGE_CELL`` (cell name default ``default``), laid out
like Grid Engine's ``$SGE_ROOT/$SGE_CELL``:

- ``common/accounting``   accounting file in Grid Engine's format
- ``common/act_qmaster``  "host request_port event_port" of the running qmaster
- ``spool/qmaster/``      the qmaster's SQLite spool
- ``spool/execd/<host>/`` one directory per execution host (job directories, results)
- ``run/``                pid files and logs of the daemons started by ``pyge up``
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

DEFAULT_CELL = "default"
DEFAULT_PORT = 6444


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
    cell.common_dir.mkdir(parents=True, exist_ok=True)
    tmp = cell.act_qmaster_path.with_suffix(".tmp")
    tmp.write_text(f"{host} {port} {event_port}\n")
    os.replace(tmp, cell.act_qmaster_path)
