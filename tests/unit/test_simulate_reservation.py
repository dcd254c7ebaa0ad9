"""``pyge simulate`` with resource reservation: the same workload with and without
``max_reservation``, on the real planning pass (a wide ``-R y`` job amid a stream of
narrow jobs), and the figures by job width."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from clients.simulate import config as cfg
from clients.simulate.engine import simulate
from clients.simulate.metrics import report
from clients.simulate.render import text
from clients.simulate.workload import SimJob, Workload


WIDE = 2


def stream(reserve: bool) -> Workload:
    """One 4-slot job (job 2, -R y when ``reserve``) submitted at 5 s amid one-slot jobs
    of 100 s (h_rt 100) submitted every 25 s for an hour (job ids in submission order:
    first come, first served puts the wide job before every later one)."""
    jobs = [SimJob(job_id=n if n == 1 else n + 1, submit=(n - 1) * 25.0, run_time=100.0,
                   owner="narrow", hard_resources={"h_rt": "100"}) for n in range(1, 146)]
    jobs.append(SimJob(job_id=WIDE, submit=5.0, run_time=100.0, owner="wide", slots=4,
                       pe="mpi", hard_resources={"h_rt": "100"}, reserve=reserve))
    return Workload(tuple(sorted(jobs, key=lambda j: j.submit)))


def config(max_reservation: int) -> cfg.SimConfig:
    base = cfg.new_cell(1, 4)
    return replace(base, policy=replace(base.policy, max_reservation=max_reservation))


def wide_wait(result) -> float:  # type: ignore[no-untyped-def]
    return result.runs[WIDE].wait


def test_without_reservation_the_wide_job_waits_for_the_stream_to_end() -> None:
    result = simulate(stream(reserve=True), config(0), None)
    # the narrow jobs keep at least one slot busy until the stream dries up
    assert wide_wait(result) > 3000


def test_with_reservation_the_wide_job_starts_once_the_running_jobs_end() -> None:
    result = simulate(stream(reserve=True), config(10), None)
    assert wide_wait(result) <= 200
    runs = list(result.runs.values())
    for instant in {r.start for r in runs}:  # never more than the cell holds
        assert sum(r.job.slots for r in runs if r.start <= instant < r.end) <= 4
    # a job without -R y gets no reservation, whatever max_reservation says
    assert wide_wait(simulate(stream(reserve=False), config(10), None)) > 3000


def test_the_report_shows_waits_by_job_width() -> None:
    figures = report(simulate(stream(reserve=True), config(10), None), config(10))
    rows = {r.name: r for r in figures.widths}
    assert rows["2+ slots"].jobs == 1 and rows["2+ slots"].max_wait <= 200
    assert rows["1 slot"].jobs == 145
    assert "JOB_WIDTH" in text(figures)


def test_pyge_simulate_reserve_from(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from clients.simulate.main import main
    swf = tmp_path / "w.swf"
    lines = ["; a stream of one-processor jobs and one of four, numbered by submission"]
    submits = sorted([((n - 1) * 25, 1) for n in range(1, 60)] + [(5, 4)])
    for number, (submit, procs) in enumerate(submits, 1):
        lines.append(f"{number} {submit} -1 100 {procs} -1 -1 {procs} 100 -1 1 "
                     f"{1 if procs == 1 else 2} 1 -1 -1 -1 -1 -1")
    swf.write_text("\n".join(lines) + "\n")
    assert main([str(swf), "--hosts", "1", "--slots", "4", "--no-policy", "--json",
                 "--reserve-from", "2", "--set", "max_reservation=5"]) == 0
    widths = {row["name"]: row for row in json.loads(capsys.readouterr().out)["widths"]}
    assert widths["2+ slots"]["max_wait"] <= 200
    assert main([str(swf), "--hosts", "1", "--slots", "4", "--no-policy", "--json"]) == 0
    widths = {row["name"]: row for row in json.loads(capsys.readouterr().out)["widths"]}
    assert widths["2+ slots"]["max_wait"] > 1000  # without reservation: starved
