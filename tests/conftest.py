"""Shared fixtures: a live local cell on free loopback ports, stopped after the test."""
from __future__ import annotations

import os
import socket
from typing import Iterator

import pytest

from common.cell import Cell
from deploy.cell import LocalCell


def _hostname() -> str:
    return socket.gethostname().split(".")[0]


@pytest.fixture
def live_cell(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
              ) -> Iterator[LocalCell]:
    """A running cell (qmaster, scheduler, one execd with 4 slots) in a fresh directory.

    The environment points clients at it (PYGE_ROOT/PYGE_CELL) for the test's duration.
    """
    root = tmp_path_factory.mktemp("cell")
    os.chmod(root, 0o755)
    local = LocalCell(Cell(root))
    try:
        local.up(execds=1, slots=4, port=0)
        monkeypatch.setenv("PYGE_ROOT", str(root))
        monkeypatch.setenv("PYGE_CELL", "default")
        yield local
    finally:
        local.down()


@pytest.fixture
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Local time is UTC, as when the Grid Engine reference outputs were captured."""
    import time
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()
