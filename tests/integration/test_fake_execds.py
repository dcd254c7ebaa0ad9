"""The benchmark's simulated execution hosts (tests/bench/fake_execds.py) against a real
cell: three hosts register with CURVE keys of their own and are alive exec hosts in
``qhost``; a job sent to one of them finishes there (and is accounted on that host); a
``qdel``'ed job running on one ends as the shepherd reports a killed job; SIGTERM stops the
process at once. No real Grid Engine or Slurm is needed."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from common.accounting import read_records
from deploy.cell import LocalCell
from tests.commands import command
from tests.integration.cellutil import (client, sleeper, true_job, wait_accounted, wait_for,
                                        wait_state)

TOP = Path(__file__).absolute().parents[2]
HOSTS = ["sim0001", "sim0002", "sim0003"]


def test_simulated_hosts_register_run_and_stop(live_cell: LocalCell) -> None:
    local = live_cell
    lines: list[str] = []
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.bench.fake_execds", "--root", str(local.cell.root),
         "--cell", local.cell.name, "--hosts", "3", "--load-interval", "1"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, cwd=str(TOP))
    assert proc.stdout is not None
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout or []), daemon=True)
    reader.start()
    try:
        with client(local) as cl:
            wait_for(lambda: set(HOSTS) <= {h["name"] for h in cl.cluster()["hosts"]
                                             if h["alive"]}, 15, "the simulated hosts")
            qhost = subprocess.run(command("qhost"), capture_output=True, text=True,
                                   env=dict(os.environ), timeout=30)
            shown = qhost.stdout + qhost.stderr
            rows = {line.split()[0]: line.split() for line in qhost.stdout.splitlines()[3:]
                    if line.split()}
            for host in HOSTS:  # NCPU from the simulated load report
                assert host in rows and rows[host][2] == "4", shown

            [done] = cl.submit([true_job(hard_queues=["all.q@sim0002"])])
            [task] = cl.wait([done], timeout=15)[done]
            assert task["exit_status"] == 0 and task["started"], task
            wait_accounted(local, [done])
            [record] = [r for r in read_records(local.cell.accounting_path)
                        if r.job_number == done]
            assert record.hostname == "sim0002" and record.exit_status == 0

            [running] = cl.submit([sleeper(600, hard_queues=["all.q@sim0003"])])
            wait_state(local, running, "running")
            cl.delete([{"job_id": running}])
            [killed] = cl.wait([running], timeout=15)[running]
            assert killed["signal"] == 9 and killed["exit_status"] == 137, killed
            # load reports keep the hosts alive
            assert all(h["alive"] for h in cl.cluster()["hosts"] if h["name"] in HOSTS)
        # (announced at the simulator's first sweep after the last registration: up to
        # a quarter of a second, which the work above may take less than)
        wait_for(lambda: any("3 hosts registered" in line for line in lines), 10,
                 "the simulator's announcement")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=5) == 0
        reader.join(timeout=5)
        assert any("3 hosts registered" in line for line in lines), lines
        assert any("stopped" in line and "1 running" not in line for line in lines), lines
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
