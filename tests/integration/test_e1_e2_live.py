"""Examples E1 and E2 of the 2003 complex attribute specification, end to end on a live
cell, checked through ``qstat -F`` before, while and after the jobs run.

E1 (per-slot fixed value): queue q1 offers 5 slots and ``t01 <= 20``; a 4-slot job with
``-l t01=10`` fits, afterwards q1 offers 1 slot and still ``t01 <= 20``.

E2 (per-slot consumable): q2 offers 5 slots, q3 1 and q4 3, each ``t02 <= 40``; a 4-slot
job with ``-l t02=20`` gets two slots in q2 and one in q3 and q4, which then offer
``t02`` 0, 20 and 20 and 3, 0 and 2 slots. The same job also takes ``lic=1`` of a
license-style per-job (``JOB``) consumable of the global host, debited once, not four
times. Everything is handed back when the jobs are deleted. The job itself sees
``NSLOTS``, ``NHOSTS`` and its ``PE_HOSTFILE``.
"""
from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Any

from clients.api import Client
from deploy.cell import LocalCell, machine_name
from qmaster.defaults import exechost_defaults, pe_defaults, queue_defaults
from tests.cellconf import with_values
from tests.commands import command

TIMEOUT = 20.0
COMPLEXES = (["t01", "t01", "INT", "<=", "YES", "NO", "0", "0"],
             ["t02", "t02", "INT", "<=", "YES", "YES", "0", "0"],
             ["lic", "lic", "INT", "<=", "YES", "JOB", "0", "0"])


def qstat_f(queue: str) -> dict[str, str]:
    """``qstat -F t01,t02,lic,slots -q queue``: {"qc:t02": "40", ...} of the one instance."""
    cmd = command("qstat")
    out = subprocess.run(cmd + ["-F", "t01,t02,lic,slots", "-q", queue], capture_output=True,
                         text=True, timeout=30, check=True).stdout
    values = {}
    for line in out.splitlines():
        if line.startswith("\t"):
            source, _, value = line.strip().partition("=")
            values[source] = value
    return values


def qsub(*args: str) -> int:
    cmd = command("qsub")
    done = subprocess.run(cmd + ["-terse", *args], capture_output=True, text=True,
                          timeout=30)
    assert done.returncode == 0, done.stderr
    return int(done.stdout.strip())


def configure(client: Client, host: str) -> None:
    for row in COMPLEXES:
        client.conf_put("complex", row[0], [row], "add")
    client.conf_put("exechost", "global", with_values(exechost_defaults("global"),
                                                complex_values="lic=1"), "modify")
    client.conf_put("pe", "e1", with_values(pe_defaults("smp"), pe_name="e1"), "add")
    client.conf_put("pe", "e2", with_values(pe_defaults("mpi"), pe_name="e2"), "add")
    queues = {"q1": ("5", "t01=20", "e1"), "q2": ("5", "t02=40", "e2"),
              "q3": ("1", "t02=40", "e2"), "q4": ("3", "t02=40", "e2")}
    # no load thresholds, like the live cell's all.q: e1's four slots raise np_load_avg
    # by its load adjustment, and on a busy machine that passed 1.75 and held e2 back
    for seq, (name, (slots, values, pe)) in enumerate(queues.items()):
        client.conf_put("queue", name, queue_defaults(
            name, hostlist=host, slots=slots, complex_values=values, pe_list=pe,
            seq_no=str(seq), load_thresholds="NONE"), "add")


def wait_running(client: Client, job_ids: list[int]) -> dict[int, dict[str, Any]]:
    deadline = time.monotonic() + TIMEOUT
    while True:
        tasks = {int(t["job_id"]): t for t in client.jobs(job_ids)["tasks"]}
        if all(t["state"] == "running" for t in tasks.values()) or \
                time.monotonic() > deadline:
            return tasks
        time.sleep(0.2)


def wait_for(predicate: Any) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.2)


def test_e1_and_e2_on_a_live_cell(live_cell: LocalCell, tmp_path: Path) -> None:
    host = machine_name()
    os.chmod(tmp_path, 0o777)
    with Client(live_cell.cell) as client:
        configure(client, host)
        before = {q: qstat_f(q) for q in ("q1", "q2", "q3", "q4")}
        assert before["q1"] == {"qf:t01": "20", "qc:slots": "5", "gc:lic": "1"}
        assert [before[q]["qc:t02"] for q in ("q2", "q3", "q4")] == ["40"] * 3

        script = tmp_path / "show.sh"
        script.write_text('echo "$NSLOTS $NHOSTS"\ncat "$PE_HOSTFILE"\nsleep 60\n')
        out = tmp_path / "e2.out"
        e1 = qsub("-pe", "e1", "4", "-l", "t01=10", "-o", "/dev/null", "-j", "y",
                  "-b", "y", "/bin/sleep", "60")
        e2 = qsub("-pe", "e2", "4", "-l", "t02=20,lic=1", "-o", str(out), "-j", "y",
                  str(script))
        try:
            tasks = wait_running(client, [e1, e2])
            assert [tasks[e1]["state"], tasks[e2]["state"]] == ["running", "running"]
            assert tasks[e1]["granted"] == [["q1", host, 4]]
            assert sorted(tasks[e2]["granted"]) == [["q2", host, 2], ["q3", host, 1],
                                                    ["q4", host, 1]]
            assert tasks[e2]["granted_pe"] == "e2"
            during = {q: qstat_f(q) for q in ("q1", "q2", "q3", "q4")}
            assert during["q1"] == {"qf:t01": "20", "qc:slots": "1", "gc:lic": "0"}
            assert [(during[q]["qc:t02"], during[q]["qc:slots"])
                    for q in ("q2", "q3", "q4")] == [("0", "3"), ("20", "0"), ("20", "2")]
            wait_for(lambda: out.exists() and host in out.read_text())
            lines = out.read_text().splitlines()
            assert lines[0] == "4 1"
            assert sorted(lines[1:]) == sorted([f"{host} 2 q2@{host} UNDEFINED",
                                                f"{host} 1 q3@{host} UNDEFINED",
                                                f"{host} 1 q4@{host} UNDEFINED"])
        finally:
            client.delete([{"job_id": e1}, {"job_id": e2}])
        # both jobs end as their execd reports it, each in its own time
        wait_for(lambda: {q: qstat_f(q) for q in ("q1", "q2", "q3", "q4")} == before)
        after = {q: qstat_f(q) for q in ("q1", "q2", "q3", "q4")}
        assert after == before
