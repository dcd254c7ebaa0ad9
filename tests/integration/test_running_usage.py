"""A running job's usage so far reaches ``qstat -j`` (its ``usage`` line), as in 8.1.9
(tests/data/reference/control/*.qstat-j.out): the shepherd writes it, the execd sends it
with each load report, the qmaster keeps it on the task."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from clients.api import job_request
from tests.integration.cellutil import client, running_cell, tasks_by_job, wait_for

BURN = ("import time\nt = time.process_time()\nwhile time.process_time() - t < 1.5: pass\n"
        "b = bytearray(60 << 20)\ntime.sleep(20)\n")


def test_qstat_j_shows_the_usage_of_a_running_job(tmp_path: Path) -> None:
    with running_cell(tmp_path, load_interval=0.5) as local, client(local) as cl:
        program = tmp_path / "burner.py"
        program.write_text(BURN)
        [job_id] = cl.submit([job_request(sys.executable, [str(program)], binary=True,
                                          job_name="burner")])
        try:
            def usage() -> dict[str, float] | None:
                [task] = tasks_by_job(cl, [job_id])[job_id]
                found = task.get("usage") or {}
                return found if found.get("cpu", 0) >= 1.4 and \
                    found.get("maxvmem", 0) > 60e6 else None
            seen = wait_for(usage, 20, "the running job's usage")
            assert seen["vmem"] > 60e6 and seen["mem"] > 0
            env = {**os.environ, "PYGE_ROOT": str(tmp_path), "PYGE_CELL": "default"}
            out = subprocess.run([sys.executable, "-m", "clients.qstat", "-j", str(job_id)],
                                 env=env, capture_output=True, text=True, timeout=30).stdout
            [line] = [x for x in out.splitlines() if x.startswith("usage ")]
            assert line.startswith("usage         1:            cpu=00:00:0"), line
            assert "maxvmem=N/A" not in line and "vmem=N/A" not in line, line
        finally:
            cl.delete([{"job_id": job_id}])
