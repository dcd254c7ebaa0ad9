"""A live cell for an end-to-end module (qmaster, scheduler, one 4-slot execd), with the
environment its console scripts need and a client of it; stopped after the module.
Modules that define ``env`` themselves (around tests/conftest.py's ``module_cell_env``)
keep their own."""
from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from clients.api import Client
from common.cell import Cell
from deploy.cell import LocalCell
from tests.cellconf import stop_cell, without_load_thresholds

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cell(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cell]:
    root = tmp_path_factory.mktemp("e2ecell")
    os.chmod(root, 0o755)
    local = LocalCell(Cell(root))
    try:
        local.up(execds=1, slots=4, port=0)
        without_load_thresholds(local.cell)
        yield local.cell
    finally:
        stop_cell(local)


@pytest.fixture(scope="module")
def env(cell: Cell) -> dict[str, str]:
    return {**os.environ, "PYGE_ROOT": str(cell.root), "PYGE_CELL": cell.name,
            "PYTHONPATH": str(REPO)}


@pytest.fixture(scope="module")
def client(cell: Cell) -> Iterator[Client]:
    with Client(cell) as c:
        yield c
