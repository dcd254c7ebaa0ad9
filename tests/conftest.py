"""Shared fixtures: a live local cell on free loopback ports, stopped after the test."""
from __future__ import annotations

import os
import socket
import sys
from pathlib import Path
from typing import Iterator

import pytest
from hypothesis import settings

from deploy.cell import LocalCell
from tests.cellconf import running_cell


# No timed assertions, hypothesis's included: its default deadline (200 ms an example)
# failed a 0.1 ms property on a busy machine (a first call that waited for the CPU:
# FlakyFailure). A test that needs a bound on its time says so in its own settings.
settings.register_profile("pygridengine", deadline=None)
settings.load_profile("pygridengine")


# The packages whose modules the daemons and commands the tests start import.
PACKAGES = ("clients", "common", "deploy", "execd", "qmaster", "scheduler")


def pytest_sessionstart(session: pytest.Session) -> None:
    """Compile this checkout's modules once, when the environment forbids writing
    bytecode (PYTHONDONTWRITEBYTECODE, as container images set it): the suite starts
    thousands of Python processes (daemons, commands, shepherds), and each of them would
    otherwise compile every module it imports from source again: half a second more for
    each daemon here. Nothing is compiled that is up to date; a checkout that cannot be
    written is left as it is."""
    if not sys.dont_write_bytecode:
        return
    import compileall
    root = Path(__file__).resolve().parents[1]
    for package in PACKAGES:
        try:
            compileall.compile_dir(root / package, quiet=2, workers=0)
        except OSError:
            return


def _hostname() -> str:
    return socket.gethostname().split(".")[0]


@pytest.fixture
def live_cell(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
              ) -> Iterator[LocalCell]:
    """A running cell (qmaster, scheduler, one execd with 4 slots) in a fresh directory.

    The environment points clients at it (PYGE_ROOT/PYGE_CELL) for the test's duration.
    """
    root = tmp_path_factory.mktemp("cell")
    with running_cell(root) as local:
        monkeypatch.setenv("PYGE_ROOT", str(root))
        monkeypatch.setenv("PYGE_CELL", "default")
        yield local


@pytest.fixture
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Local time is UTC, as when the Grid Engine reference outputs were captured."""
    import time
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture(scope="module")
def module_cell_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """One running cell shared by a test module, as the environment its console scripts
    need (PYGE_ROOT, PYGE_CELL, PYTHONPATH to this checkout); stopped after the module."""
    root = tmp_path_factory.mktemp("modcell")
    with running_cell(root):
        yield {**os.environ, "PYGE_ROOT": str(root), "PYGE_CELL": "default",
               "PYTHONPATH": str(Path(__file__).resolve().parents[1])}


@pytest.fixture(scope="session", autouse=True)
def cgroups_left_behind() -> Iterator[None]:
    """Execd subtrees the tests' cells made in this machine's cgroup v2 tree (as root) and
    left when a test killed an execd with SIGKILL: removed at the end if empty."""
    from execd.cgroups import SUBTREE, cgroup2_mount, own_cgroup

    def subtrees() -> tuple[Path | None, set[Path]]:
        try:
            mount = cgroup2_mount(Path("/proc/self/mountinfo").read_text())
            own = own_cgroup(Path("/proc/self/cgroup").read_text())
        except OSError:
            return None, set()
        if mount is None or own is None:
            return None, set()
        parent = Path(mount) / own.lstrip("/") / SUBTREE
        return parent, {p for p in parent.glob("*/") if p.is_dir()}

    _, before = subtrees()
    yield
    parent, after = subtrees()
    for path in sorted(after - before, key=lambda p: p.name.endswith(".daemon")):
        for level in sorted(path.glob("**/"), key=lambda p: -len(p.parts)):
            try:
                level.rmdir()  # fails for anything with a process in it: left alone
            except OSError:
                pass
    if parent is not None and not before:
        try:
            parent.rmdir()
        except OSError:
            pass


@pytest.fixture(scope="session", autouse=True)
def bare_commands_fail(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Stand-ins for every command name first on PATH, which fail loudly: a test must run
    the commands of the installation under test (tests.commands), never whatever a
    machine has on PATH (Grid Engine's own qstat, on a site trying both)."""
    from tests.commands import ENTRY_MODULES
    stand_ins = tmp_path_factory.mktemp("bare-commands")
    for name in ENTRY_MODULES:
        path = stand_ins / name
        path.write_text("#!/bin/sh\necho \"a test ran '$0' by its bare name; use "
                        "tests.commands.command()\" >&2\nexit 99\n")
        path.chmod(0o755)
    old = os.environ.get("PATH", "")
    os.environ["PATH"] = f"{stand_ins}:{old}"
    yield
    os.environ["PATH"] = old
