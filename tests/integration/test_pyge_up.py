"""``pyge up --root DIR`` is safe to repeat after any crash and on any machine: it brings
back the cell it made (ports, execd hosts), a start that fails leaves the cell as it
was, and a new cell next to a program that holds the default port takes another one.
Everything goes through the ``pyge`` console script, as a user runs it."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from clients.api import Client, job_request
from common.cell import DEFAULT_PORT, Cell, read_act_qmaster
from deploy.cell import LocalCell, machine_name
from tests.commands import command
from tests.integration.cellutil import is_dead, wait_for


def pyge(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command("pyge") + list(args), capture_output=True, text=True,
                          timeout=120)


@contextmanager
def cell_dir(_tmp: Path) -> Iterator[Path]:
    """A cell directory whose daemons are always stopped after the test: a short one, as
    a user's would be (the execds' Unix socket paths must stay under 108 bytes, and
    pytest's directory names for these tests are long)."""
    root = Path(tempfile.mkdtemp(prefix="pyge-up-", dir="/tmp"))
    os.chmod(root, 0o755)
    try:
        yield root
    finally:
        LocalCell(Cell(root)).down()
        shutil.rmtree(root, ignore_errors=True)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def holding(port: int, patience: float = 0.0) -> Iterator[socket.socket | None]:
    """A listener on ``port`` (None when something else holds it, ``patience`` seconds
    long: a killed daemon's port may take a moment to be released)."""
    deadline = time.monotonic() + patience
    while True:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
            sock.listen()
            break
        except OSError:
            sock.close()
            if time.monotonic() >= deadline:
                yield None
                return
            time.sleep(0.1)
    try:
        yield sock
    finally:
        sock.close()


def pids(root: Path) -> dict[str, int]:
    return {p.stem: int(p.read_text().split()[0])
            for p in (root / "default" / "run").glob("*.pid")}


def alive_hosts(root: Path) -> set[str]:
    with Client(Cell(root), timeout=5) as client:
        return {h["name"] for h in client.cluster()["hosts"] if h["alive"]}


def held_jobs(root: Path) -> set[int]:
    with Client(Cell(root), timeout=5) as client:
        return {int(j["job_id"]) for j in client.jobs()["jobs"]}


def test_a_killed_daemon_comes_back_in_the_same_shape(tmp_path: Path) -> None:
    port = free_port()
    hosts = {f"{machine_name()}-{i}" for i in (1, 2, 3)}
    with cell_dir(tmp_path) as root:
        made = pyge("up", "--root", str(root), "--execds", "3", "--port", str(port))
        assert made.returncode == 0, made.stderr
        act = read_act_qmaster(Cell(root))
        assert act[1] == port
        with Client(Cell(root), timeout=5) as client:
            jobs = set(client.submit([job_request("/bin/true", binary=True, hold=True)
                                      for _ in range(3)]))
        for label in ["qmaster", "scheduler", *(f"execd-{h}" for h in sorted(hosts))]:
            pid = pids(root)[label]
            os.kill(pid, signal.SIGKILL)
            wait_for(lambda: is_dead(pid), 10, f"{label} to die")
            again = pyge("up", "--root", str(root))
            assert again.returncode == 0, (label, again.stdout, again.stderr)
            assert "changed" not in again.stdout, again.stdout
            assert f"started: {label}" in again.stdout, again.stdout
            assert read_act_qmaster(Cell(root)) == act, label
            assert set(pids(root)) == {"qmaster", "scheduler"} | {f"execd-{h}" for h in hosts}
            wait_for(lambda: alive_hosts(root) == hosts or None, 20, f"hosts after {label}")
            assert held_jobs(root) == jobs


def test_a_start_that_fails_leaves_the_cell_as_it_was(tmp_path: Path) -> None:
    with cell_dir(tmp_path) as root:
        assert pyge("up", "--root", str(root), "--port", str(free_port())).returncode == 0
        cell = Cell(root)
        act_before = cell.act_qmaster_path.read_bytes()
        port = read_act_qmaster(cell)[1]
        qmaster = pids(root)["qmaster"]
        os.kill(qmaster, signal.SIGKILL)
        wait_for(lambda: is_dead(qmaster), 10, "the qmaster to die")
        with holding(port, patience=10) as taken:
            assert taken is not None
            failed = pyge("up", "--root", str(root))
        assert failed.returncode != 0
        assert f"port {port}" in failed.stderr and "--port" in failed.stderr, failed.stderr
        assert "the cell is as it was" in failed.stderr
        assert cell.act_qmaster_path.read_bytes() == act_before
        # once the port is free again, the same cell comes back on it
        again = pyge("up", "--root", str(root))
        assert again.returncode == 0, again.stderr
        assert cell.act_qmaster_path.read_bytes() == act_before


def test_a_second_qmaster_on_the_same_spool_is_refused(tmp_path: Path) -> None:
    with cell_dir(tmp_path) as root:
        assert pyge("up", "--root", str(root), "--port", str(free_port())).returncode == 0
        act_before = Cell(root).act_qmaster_path.read_bytes()
        second = subprocess.run([sys.executable, "-m", "qmaster.main", "--root", str(root),
                                 "--port", "0"], capture_output=True, text=True, timeout=60)
        assert second.returncode != 0
        assert "another qmaster is running" in second.stderr, second.stderr
        assert Cell(root).act_qmaster_path.read_bytes() == act_before


def test_a_new_cell_next_to_a_program_on_the_default_port_takes_another(
        tmp_path: Path) -> None:
    with holding(DEFAULT_PORT), cell_dir(tmp_path) as root:
        made = pyge("up", "--root", str(root))
        assert made.returncode == 0, made.stderr
        port = read_act_qmaster(Cell(root))[1]
        assert port != DEFAULT_PORT
        assert f"port {DEFAULT_PORT} is in use by another program; this new cell uses port " \
               f"{port}" in made.stdout, made.stdout
        # and it is the cell's port from now on
        again = pyge("up", "--root", str(root))
        assert again.returncode == 0 and read_act_qmaster(Cell(root))[1] == port


def test_an_explicit_option_changes_the_shape_and_says_so(tmp_path: Path) -> None:
    with cell_dir(tmp_path) as root:
        assert pyge("up", "--root", str(root), "--port", str(free_port())).returncode == 0
        changed = pyge("up", "--root", str(root), "--load-interval", "2")
        assert changed.returncode == 0, changed.stderr
        assert "changed load interval: 10 s -> 2 s" in changed.stdout
        bad = pyge("up", "--root", str(root), "--execds", "0")
        assert bad.returncode != 0 and "--execds must be at least 1" in bad.stderr


@pytest.mark.parametrize("text", ["{broken", '{"port": 1}'])
def test_a_damaged_shape_file_is_named_not_guessed(tmp_path: Path, text: str) -> None:
    with cell_dir(tmp_path) as root:
        (root / "default").mkdir()
        (root / "default" / "pyge-shape.json").write_text(text)
        bad = pyge("up", "--root", str(root))
        assert bad.returncode != 0 and "pyge-shape.json" in bad.stderr, bad.stderr
