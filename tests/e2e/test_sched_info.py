"""qstat -j tells why a pending job waits, in Grid Engine's words (live cell)."""
from __future__ import annotations

import socket
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from clients.api import Client, job_request
from deploy.cell import LocalCell
from tests.cellconf import running_cell
from tests.commands import command

HOST = socket.gethostname().split(".")[0]


@pytest.fixture(scope="module")
def live_cell(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCell]:
    """tests/conftest.py's ``live_cell`` for the whole module (its tests delete their
    jobs and enable what they disabled): one cell start instead of three."""
    root = tmp_path_factory.mktemp("cell")
    with running_cell(root) as local, pytest.MonkeyPatch.context() as env:
        env.setenv("PYGE_ROOT", str(root))
        env.setenv("PYGE_CELL", "default")
        yield local


def qstat(*args: str) -> subprocess.CompletedProcess[str]:
    cmd = command("qstat")
    return subprocess.run(cmd + list(args), capture_output=True, text=True, timeout=30)


def test_scheduling_info_names_the_unmet_request(live_cell: Any) -> None:
    with Client() as client:
        [job_id] = client.submit([job_request("/bin/true", binary=True,
                                              hard_resources={"arch": "nosuch"})])
        try:
            out = qstat("-j", str(job_id)).stdout
            assert (f'scheduling info:            (-l arch=nosuch) cannot run at host "{HOST}" '
                    "because it offers only hl:arch=") in out
        finally:
            client.delete([{"job_id": job_id}])


def test_qstat_F_shows_load_fixed_and_consumable_values(live_cell: Any) -> None:
    out = qstat("-F", "arch,slots,qname").stdout
    assert f"all.q@{HOST}" in out
    assert "\thl:arch=" in out and "\tqf:qname=all.q\n" in out
    assert "\tqc:slots=4\n" in out  # the live cell's 4 slots, none in use


def qmod(*args: str) -> subprocess.CompletedProcess[str]:
    cmd = command("qmod")
    done = subprocess.run(cmd + list(args), capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done


def test_scheduling_info_names_a_disabled_queue_instance(live_cell: Any) -> None:
    qmod("-d", f"all.q@{HOST}")
    try:
        with Client() as client:
            [job_id] = client.submit([job_request("/bin/true", binary=True)])
            try:
                out = qstat("-j", str(job_id)).stdout
                assert (f'scheduling info:            queue instance "all.q@{HOST}" dropped '
                        "because it is disabled") in out, out
                # -qs selects queue instances by state; pending jobs show regardless
                disabled = qstat("-f", "-qs", "d").stdout
                assert f"all.q@{HOST}" in disabled and \
                    [str(job_id)] in [line.split()[:1] for line in disabled.splitlines()]
                in_error = qstat("-f", "-qs", "E").stdout
                assert in_error.startswith("\n###") and "queuename" not in in_error, in_error
            finally:
                client.delete([{"job_id": job_id}])
    finally:
        qmod("-e", f"all.q@{HOST}")
