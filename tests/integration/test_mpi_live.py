"""Integration: Open MPI (Debian's openmpi-bin) under tight integration on a live cell of
two execds, hosts ``<machine>-1`` and ``<machine>-2``.

``mpirun -np 4`` inside a job of a PE with ``control_slaves TRUE`` is given no host file
and no option of its own: it finds the cell from the job's environment (``SGE_ROOT``,
``ARC``, ``PE_HOSTFILE``, ``JOB_ID``) and starts one ``orted`` per host with
``qrsh -inherit -nostdin -V <host> ' orted' ...`` (``$SGE_ROOT/bin/$ARC/qrsh``, which
``pyge up`` writes: deploy.launchers). The two execd host names do not resolve, so
Open MPI takes them for two remote hosts although both run on this machine; the ranks on
one machine share its host name, so its shared-memory transport (vader, which names its
segments by host name) is turned off in the job (``OMPI_MCA_btl=^vader``, see
/work/findings29-mpi.md). The ranks print the host their task runs on (the task's
``HOSTNAME``); the orteds are tasks of the job, each accounted with its ``pe_taskid``;
``qdel`` of a job whose ranks still run ends them all, on both hosts.

Skipped, with the reason, when ``mpirun`` is not installed (``.ci/run`` installs it when
it runs as root).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from clients.api import Client
from common.accounting import read_records
from deploy.cell import LocalCell, machine_name
from deploy.launchers import launcher_dir
from deploy.shape import host_names
from execd.load import host_arch
from qmaster.defaults import pe_defaults
from tests.cellconf import two_host_cell, with_values

TIMEOUT = 60.0
MPIRUN = shutil.which("mpirun")
pytestmark = pytest.mark.skipif(MPIRUN is None, reason="Open MPI's mpirun is not installed "
                                "(Debian: apt-get install openmpi-bin)")
RANKS = 'echo "rank $OMPI_COMM_WORLD_RANK of $OMPI_COMM_WORLD_SIZE on $HOSTNAME"'
SLEEP = "3597.5"  # (a figure no other process of this machine sleeps)


@pytest.fixture(scope="module")
def mpi_cell(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LocalCell, Path]]:
    with two_host_cell(tmp_path_factory.mktemp("mpi")) as (local, work):
        with Client(local.cell) as client:
            # what Open MPI's documentation asks of a Grid Engine PE
            client.conf_put("pe", "ompi", with_values(
                pe_defaults("mpi"), pe_name="ompi", slots="99", control_slaves="TRUE",
                job_is_first_task="FALSE", accounting_summary="FALSE",
                allocation_rule="$round_robin"), "add")
            queue = client.conf_get("queue")["all.q"]
            client.conf_put("queue", "all.q", with_values(queue, pe_list="make smp mpi ompi"),
                            "modify")
        yield local, work


def _qrsh_dir(local: LocalCell, work: Path) -> Path:
    """Where the job finds qrsh: the cell's launcher (pyge up), ahead of any other qrsh
    on PATH (Open MPI takes the first on PATH, then $SGE_ROOT/bin/$ARC)."""
    ours = launcher_dir(local.cell.root, host_arch())
    assert (ours / "qrsh").exists(), "pyge up wrote no launcher of qrsh"
    return ours


def _prelude(local: LocalCell, work: Path) -> str:
    """The job script's start: our qrsh first on PATH (the job's shell is a login shell,
    whose profile sets PATH anew; this machine may have Grid Engine's own qrsh in
    /usr/bin), as a user of a cell does."""
    return f"#!/bin/sh\nPATH={_qrsh_dir(local, work)}:$PATH; export PATH\n"


def qsub(local: LocalCell, work: Path, *args: str) -> int:
    env = {**os.environ, "PYGE_ROOT": str(local.cell.root), "PYGE_CELL": local.cell.name}
    variables = "OMPI_MCA_btl=^vader,OMPI_ALLOW_RUN_AS_ROOT=1,OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
    done = subprocess.run([sys.executable, "-m", "clients.qsub.main", "-terse", "-pe",
                           "ompi", "4", "-v", variables, "-j", "y", "-wd", str(work),
                           *args], capture_output=True, text=True, timeout=30, env=env)
    assert done.returncode == 0, done.stderr
    return int(done.stdout.strip())


def test_mpirun_starts_its_ranks_as_tasks_of_the_job(mpi_cell: tuple[LocalCell, Path]
                                                     ) -> None:
    local, work = mpi_cell
    script = work / "ranks.sh"
    script.write_text(f"{_prelude(local, work)}mpirun -np 4 sh -c '{RANKS}'\n"
                      "echo \"mpirun $?\"\n")
    out = work / "ranks.out"
    job_id = qsub(local, work, "-o", str(out), str(script))
    with Client(local.cell) as client:
        [task] = client.wait([job_id], timeout=TIMEOUT)[job_id]
    text = out.read_text()
    h1, h2 = host_names(2, machine_name())
    ranks = sorted(line.split() for line in text.splitlines() if line.startswith("rank "))
    assert [(r[1], r[3]) for r in ranks] == [(str(n), "4") for n in range(4)], text
    # by slot: two ranks on each host, the first two on the PE host file's first host
    on = {r[1]: r[5] for r in ranks}
    assert on["0"] == on["1"] != on["2"] == on["3"] and {on["0"], on["2"]} == {h1, h2}, text
    assert "mpirun 0" in text, text
    assert task["exit_status"] == 0, task
    records = _records(local, job_id, 3)
    assert sorted(r.pe_taskid for r in records) == \
        sorted(["NONE", f"1.{h1}", f"2.{h2}"]) or \
        sorted(r.pe_taskid for r in records) == sorted(["NONE", f"1.{h2}", f"2.{h1}"]), records
    assert {r.hostname for r in records if r.pe_taskid != "NONE"} == {h1, h2}


def test_qdel_ends_every_rank(mpi_cell: tuple[LocalCell, Path]) -> None:
    local, work = mpi_cell
    script = work / "sleep.sh"
    script.write_text(f"{_prelude(local, work)}mpirun -np 4 sleep {SLEEP}\n")
    job_id = qsub(local, work, "-o", str(work / "sleep.out"), str(script))
    _wait(lambda: len(_pids(f"^sleep {SLEEP}")) == 4, "four ranks running")
    orteds = _of_job(_pids("^orted "), job_id)
    assert len(orteds) == 2
    with Client(local.cell) as client:
        client.delete([{"job_id": job_id}])
        client.wait([job_id], timeout=TIMEOUT)
    _wait(lambda: not _pids(f"^sleep {SLEEP}") and not _of_job(orteds, job_id),
          "no rank left")
    records = _records(local, job_id, 3)
    assert len([r for r in records if r.pe_taskid != "NONE"]) == 2, records


def _records(local: LocalCell, job_id: int, count: int) -> list:
    deadline = time.monotonic() + TIMEOUT
    while True:
        records = [r for r in read_records(local.cell.accounting_path)
                   if r.job_number == job_id]
        if len(records) >= count or time.monotonic() > deadline:
            return records
        time.sleep(0.1)


def _pids(pattern: str) -> list[str]:
    found = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True)
    return found.stdout.split()


def _of_job(pids: list[str], job_id: int) -> list[str]:
    """The processes among ``pids`` that run with the job's JOB_ID (tasks of the job)."""
    mine = []
    for pid in pids:
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if f"JOB_ID={job_id}".encode() in environ:
            mine.append(pid)
    return mine


def _wait(probe, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + TIMEOUT
    while not probe():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)
