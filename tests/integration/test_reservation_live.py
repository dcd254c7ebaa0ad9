"""Resource reservation on a live cell (issue 28): a four-slot ``-R y`` job is not starved
by a continuous stream of one-slot jobs, while a short job that ends in time backfills.

The cell's four slots are taken by three fillers (sleep 6, ``h_rt`` 8) and one quick job
(sleep 1, ``h_rt`` 3). ``params DURATION_OFFSET=0`` keeps the planned ends at start +
``h_rt`` so the test lasts seconds. The wide job (``-pe smp 4 -R y``) gets a reservation at
the fillers' planned end (the schedule file, ``params MONITOR=1``, shows it as RESERVING);
then one-slot jobs without an end time arrive one after the other: none of them may take
a slot the reservation needs, so the wide job starts when the fillers end, before any of
them. A job with ``h_rt`` 2, submitted once the quick job has ended, fits before the
reservation's start and runs on the slot the quick job left.
"""
from __future__ import annotations

import subprocess
import time
from typing import Any

from clients.api import Client
from deploy.cell import LocalCell
from tests.commands import command
from tests.integration.cellutil import sleeper, tasks_by_job, wait_for

STREAM_LIMIT = 60  # one-slot jobs at most (the stream stops when the wide job runs)


def set_sconf(cl: Client, **values: str) -> None:
    pairs = cl.conf_get("sconf")["global"]
    cl.conf_put("sconf", "global", [[k, values.get(k, v)] for k, v in pairs], "modify")


def first_task(cl: Client, job_id: int) -> dict[str, Any]:
    return (tasks_by_job(cl, [job_id]).get(job_id) or [{}])[0]


def qstat_j(job_id: int) -> str:
    done = subprocess.run(command("qstat") + ["-j", str(job_id)], capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout


def started(task: dict[str, Any]) -> bool:
    return bool(task.get("start_time")) or task.get("state") in ("running", "finished")


def test_a_wide_reserving_job_is_not_starved_and_a_short_job_backfills(
        live_cell: LocalCell) -> None:
    schedule = live_cell.cell.common_dir / "schedule"
    with Client(live_cell.cell) as cl:
        set_sconf(cl, max_reservation="10", default_duration="INFINITY",
                  params="MONITOR=1,DURATION_OFFSET=0")
        fillers = cl.submit([sleeper(6, job_name="filler", hard_resources={"h_rt": "8"})
                             for _ in range(3)])
        [quick] = cl.submit([sleeper(1, job_name="quick", hard_resources={"h_rt": "3"})])
        wait_for(lambda: all(started(first_task(cl, j)) for j in [*fillers, quick]), 30,
                 "the fillers and the quick job to start")
        [wide] = cl.submit([sleeper(1, job_name="wide", pe=("smp", 4, 4), reserve=True,
                                    hard_resources={"h_rt": "5"})])
        wait_for(lambda: schedule.exists() and f"\n{wide}:1:RESERVING:" in schedule.read_text(),
                 30, "the wide job's reservation in the schedule file")
        stream: list[int] = []
        short: int | None = None
        kept_back = ""  # qstat -j of a stream job while the quick job's slot is free
        deadline = time.monotonic() + 60
        while not started(first_task(cl, wide)) and time.monotonic() < deadline \
                and len(stream) < STREAM_LIMIT:
            stream += cl.submit([sleeper(30, job_name="stream")])
            if short is None and first_task(cl, quick).get("state") in (None, "finished"):
                kept_back = qstat_j(stream[-1])
                [short] = cl.submit([sleeper(1, job_name="short",
                                             hard_resources={"h_rt": "2"})])
            time.sleep(0.3)
        wait_for(lambda: started(first_task(cl, wide)), 30, "the wide job to start")
        assert short is not None, "the quick job never ended"
        wait_for(lambda: started(first_task(cl, short)), 30, "the short job to start")
        wide_task, short_task = first_task(cl, wide), first_task(cl, short)
        streamed = {j: first_task(cl, j) for j in stream}
        # the short job backfilled: it ran before the wide job, on the quick job's slot
        assert short_task["start_time"] < wide_task["start_time"], (short_task, wide_task)
        # none of the stream (no end time) started before the wide job
        early = [j for j, t in streamed.items() if t.get("start_time")
                 and t["start_time"] < wide_task["start_time"]]
        assert early == [], (early, wide_task)
        assert len(stream) >= 3  # a stream did arrive while the wide job waited
        # 8.1.9's reason for a job a free slot would take into the reservation's window
        assert "(-l NONE) cannot run in queue \"all.q@" in kept_back, kept_back
        assert "because it offers only qc:slots=0.000000 due to a reservation" in kept_back
        text = schedule.read_text()
        assert f"\n{wide}:1:RESERVING:" in text and ":P:smp:slots:4.000000\n" in text
        cl.delete([{"job_id": j} for j in [*fillers, quick, wide, short, *stream]])
