"""qconf's daemon control on a live cell (one cell for the module): the qmaster lists
its scheduler (-secl, -sss); -ks stops the scheduler process, -kej kills the execd's
job and stops the execd, -km stops the qmaster after answering; each daemon ends by its
own stop path (its SIGTERM's). The answers' words: tests/unit/test_daemon_control.py."""
from __future__ import annotations

from collections.abc import Iterator

import pytest

from clients.api import ClientError
from deploy.cell import LocalCell
from tests.integration.cellutil import (client, hostname, is_dead, pid_of, running_cell,
                                        sleeper, wait_for, wait_state)


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCell]:
    with running_cell(tmp_path_factory.mktemp("daemons")) as cell:
        yield cell


def test_ks_kej_and_km_stop_the_daemons(local: LocalCell) -> None:
    host = hostname()
    with client(local) as cl:
        listed = wait_for(lambda: cl.daemon_control("secl")["out"][2:] or None, 15,
                          "the scheduler to be listed")
        assert listed[0].split()[:2] == ["1", "scheduler"]
        assert cl.daemon_control("sss")["status"] == 0
        [job_id] = cl.submit([sleeper(300)])
        wait_state(local, job_id, "running")
        scheduler = pid_of(local, "scheduler")
        assert cl.daemon_control("ks")["err"] == ["sent shutdown notification to scheduler"]
        wait_for(lambda: is_dead(scheduler), 15, "the scheduler to stop")
        assert cl.daemon_control("secl")["out"][2:] == []
        execd = pid_of(local, f"execd-{host}")
        assert cl.daemon_control("kej", [host])["err"] == [
            f"sent shutdown and kill notification to  execd host {host}"]
        wait_for(lambda: is_dead(execd), 20, "the execd to stop")
        # its job was killed, and its end reported before the execd stopped
        [task] = cl.wait([job_id], timeout=10)[job_id]
        assert task["signal"] or task["exit_status"] != 0, task
        qmaster = pid_of(local, "qmaster")
        assert cl.daemon_control("km")["err"] == [f"{cl.user.name}@{host} kills qmaster"]
        wait_for(lambda: is_dead(qmaster), 15, "the qmaster to stop")
    with client(local, timeout=1.0) as gone, pytest.raises(ClientError):  # (nobody answers)
        gone.daemon_control("secl")
