"""Daemons that ``pyge up`` starts import nothing from the caller's working directory
(issue 26, item 5).

``python -m`` puts the working directory first on ``sys.path``: root running ``pyge up``
in a directory a user can write imported that user's ``psutil.py``, and a ``qmaster/``
package there would have replaced the qmaster itself. Here a directory holds such
modules, each of which leaves a marker when imported; ``pyge up`` runs from it, as a user
types it, a job runs (the execd's fork server and a shepherd import more), and no
marker may appear while every daemon runs. As root the directory belongs to another
user and everyone may write it, as in the attack.
"""
from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from clients.api import Client, job_request
from common.cell import Cell
from tests.cellconf import without_load_thresholds
from tests.commands import command
from tests.identity import other_user_name
from tests.integration.test_pyge_up import cell_dir

# modules and packages the daemons, the fork server or a shepherd import
PLANTED_MODULES = ("psutil", "zmq", "msgpack", "structlog", "sqlite3")
PLANTED_PACKAGES = ("qmaster", "scheduler", "execd", "common")
MARK = ("import os\n"
        "open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "
        "'imported-' + __name__), 'a').close()\n"
        "raise ImportError('a planted module')\n")


@pytest.fixture
def planted() -> Iterator[Path]:
    """A directory of modules that leave a marker when imported (another user's, open
    to all, when we are root)."""
    where = Path(tempfile.mkdtemp(prefix="pyge-planted-", dir="/tmp"))
    for name in PLANTED_MODULES:
        (where / f"{name}.py").write_text(MARK)
    for name in PLANTED_PACKAGES:
        (where / name).mkdir()
        (where / name / "__init__.py").write_text(MARK)
        (where / name / "main.py").write_text(MARK)
    if os.geteuid() == 0:
        user = pwd.getpwnam(other_user_name())
        for path in [where, *where.rglob("*")]:
            os.chown(path, user.pw_uid, user.pw_gid)
    os.chmod(where, 0o777)
    try:
        yield where
    finally:
        shutil.rmtree(where, ignore_errors=True)


@pytest.fixture
def cell_root(tmp_path: Path) -> Iterator[Path]:
    with cell_dir(tmp_path) as root:
        yield root


def _pyge() -> list[str]:
    """The pyge command as a user runs it: its console script (which puts its own bin
    directory first on sys.path); without one, the module run with -P."""
    argv = command("pyge")
    return argv if argv[0] != sys.executable else [sys.executable, "-P", *argv[1:]]


def _markers(where: Path) -> list[str]:
    return sorted(p.name for p in where.rglob("imported-*"))


def test_daemons_started_in_a_planted_directory_import_none_of_it(planted: Path,
                                                                  cell_root: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    up = subprocess.run([*_pyge(), "up", "--root", str(cell_root), "--port", "0"],
                        cwd=planted, env=env, capture_output=True, text=True, timeout=120)
    assert _markers(planted) == [], up.stderr
    assert up.returncode == 0, up.stderr
    without_load_thresholds(Cell(cell_root))  # (a busy test machine must not hold the job)
    with Client(Cell(cell_root), timeout=30) as cl:
        [job_id] = cl.submit([job_request("/bin/true", binary=True)])
        [task] = cl.wait([job_id], timeout=60)[job_id]
    assert (task["exit_status"], task["failed"], task["started"]) == (0, 0, True), task
    status = subprocess.run([*_pyge(), "status", "--root", str(cell_root)], cwd=planted,
                            env=env, capture_output=True, text=True, timeout=60)
    assert status.returncode == 0, status.stdout
    assert _markers(planted) == []
    for pid_file in (cell_root / "default" / "run").glob("*.pid"):
        pid = int(pid_file.read_text().split()[0])
        assert os.readlink(f"/proc/{pid}/cwd") == "/", pid_file.name
