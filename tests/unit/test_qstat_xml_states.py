"""qstat's listings (-xml, -f -xml, -g d, plain) for every state a job task can be in,
against 8.1.9's captures (tests/data/reference/lists/qstat-*-s-*: one cell holding a
finished job, a job deleted while running, a suspended job, an array with running,
pending and deleted tasks, a held job, a held array and a job in error).

The captured cell also held other users' jobs: the comparison keeps the <job_list>
elements (or table lines) of the jobs built here, in 8.1.9's order, but for the finished
jobs (-s z), which 8.1.9 lists in the order they finished and pygridengine by job id
(docs/compatibility.md)."""
from __future__ import annotations

import calendar
import re
import time
from typing import Any

import pytest

from tests.reference import REFERENCE as REF
from tests.unit.test_qstat_listing import listing
from tests.unit.test_views import job, task

LISTS = REF / "lists"
OURS = {233, 234, 235, 236, 237, 238, 241, 244}


@pytest.fixture(autouse=True)
def _in_utc(utc: None) -> None:
    """Times as the captures show them (UTC)."""


def at(clock: str) -> float:
    return float(calendar.timegm(time.strptime(f"2026-11-28 {clock}", "%Y-%m-%d %H:%M:%S")))


def states_reply() -> dict[str, Any]:
    """The captured cell's jobs 233-244 as the qmaster's query gives them (with -s z)."""
    running = {"queue": "all.q", "host": "vm", "granted": [["all.q", "vm", 1]]}
    jobs = [job(233, "done1", at("06:53:13")), job(234, "run1", at("06:53:13")),
            job(235, "susp1", at("06:53:13")),
            job(236, "arr", at("06:53:14"), array=[1, 4, 1]),
            job(237, "held1", at("06:53:14"), hold=True),
            job(238, "err1", at("06:53:15"), cwd="/nonexistent/dir"),
            job(241, "arr2", at("06:54:02"), array=[1, 3, 1]),
            job(244, "harr", at("06:54:02"), array=[1, 2, 1], hold=True)]
    tasks = [task(233, state="finished", end_time=at("06:53:16")),
             task(234, state="finished", deleted_by="sgeuser", start_time=at("06:53:17")),
             task(235, state="suspended", suspend_reasons=["job"], start_time=at("06:53:17"),
                  **running),
             task(236, 1, "running", start_time=at("06:53:17"), **running),
             task(236, 2, "running", start_time=at("06:53:21"), **running),
             task(237, state="hold", holds=["u"]),
             task(238, state="error", error_reason="can't chdir"),
             task(241, 1, "running", start_time=at("06:54:05"), **running)]
    ranges = [{"job_id": 236, "deleted": [[3, 4, 1]], "deleted_by": "sgeuser"},
              {"job_id": 241, "pending": [[2, 3, 1]]},
              {"job_id": 244, "pending": [[1, 2, 1]], "holds": ["u"]}]
    # the policy's figures of 8.1.9's capture (finished jobs: none, held tasks: 0)
    priorities = {235: {"prio": 0.75}, 236: {"prio": 0.5}, 237: {"prio": 0.0},
                  238: {"prio": 0.45833}, 241: {"prio": 0.1625, "task_prio": {1: 0.5}},
                  244: {"prio": 0.0}}
    return {"jobs": jobs, "tasks": tasks, "ranges": ranges, "priorities": priorities}


def _job_number(block: str) -> int:
    return int(re.search(r"<JB_job_number>(\d+)<", block).group(1))  # type: ignore[union-attr]


def _zombies_by_id(items: list[str], is_zombie: list[bool], job_id: list[int]) -> list[str]:
    """``items`` with the finished jobs' ones (at the end) by job id."""
    kept = [i for i, z in zip(items, is_zombie) if not z]
    return kept + [i for _, i in sorted((j, i) for i, z, j in zip(items, is_zombie, job_id) if z)]


def job_lists(text: str) -> list[str]:
    """The <job_list> elements of the jobs built here."""
    blocks = re.findall(r'^ *<job_list state="\w+">\n.*?</job_list>$', text, re.M | re.S)
    ours = [b for b in blocks if _job_number(b) in OURS]
    return _zombies_by_id(ours, ['state="zombie"' in b for b in ours],
                          [_job_number(b) for b in ours])


def table_lines(text: str) -> list[str]:
    ours = [line for line in text.splitlines()
            if line[:7].strip().isdigit() and int(line[:7]) in OURS]
    return _zombies_by_id(ours, [line[40:45].strip() == "z" for line in ours],
                          [int(line[:7]) for line in ours])


@pytest.mark.parametrize("name", ["qstat-xml-s-prsz", "qstat-xml-s-z", "qstat-xml-s-s",
                                  "qstat-xml-g-d", "qstat-f-xml-s-z"])
def test_every_job_list_element_is_grid_engines(name: str) -> None:
    argv = (LISTS / f"{name}.cmd").read_text().split()[1:]
    text, _ = listing(["-u", "*", *argv], states_reply())
    assert job_lists(text) == job_lists((LISTS / f"{name}.out").read_text())


def test_finished_jobs_are_zombies_in_the_xml() -> None:
    """nipype's SGE plugin waits for state="zombie" (issue 31)."""
    text, _ = listing(["-u", "*", "-xml", "-s", "z"], states_reply())
    assert {m for m in re.findall(r'<job_list state="(\w+)">', text)} == {"zombie"}


def test_the_table_with_every_state_is_grid_engines() -> None:
    text, _ = listing(["-u", "*", "-s", "prsz"], states_reply())
    assert table_lines(text) == table_lines((LISTS / "qstat-s-prsz.out").read_text())


# ---- -g t: a line per slot with the master column (captured with jobs 295 (serial),
# 297 (-pe smp 2), 298 (-t 1-2: task 1 running, 2 waiting) and another user's 299)

G_T_JOBS = {295, 297, 298}


def g_t_reply() -> dict[str, Any]:
    running = {"queue": "all.q", "host": "vm"}
    jobs = [job(295, "tjob", at("07:11:40")), job(297, "pejob", at("07:12:30"), pe=["smp", 2, 2]),
            job(298, "tarr", at("07:12:40"), array=[1, 2, 1])]
    tasks = [task(295, state="running", start_time=at("07:11:49"),
                  granted=[["all.q", "vm", 1]], **running),
             task(297, state="running", start_time=at("07:12:41"), slots=2,
                  granted=[["all.q", "vm", 2]], **running),
             task(298, 1, "running", start_time=at("07:12:41"), granted=[["all.q", "vm", 1]],
                  **running)]
    ranges = [{"job_id": 298, "pending": [[2, 2, 1]]}]
    priorities = {295: {"prio": 0.5}, 297: {"prio": 1.0},
                  298: {"prio": 0.19687, "task_prio": {1: 0.5}}}
    return {"jobs": jobs, "tasks": tasks, "ranges": ranges, "priorities": priorities}


def _g_t_lines(text: str) -> list[str]:
    """The lines of jobs 295-298: job lines and the continuation lines after them."""
    out, ours = [], False
    for line in text.splitlines():
        if line[:7].strip().isdigit():
            ours = int(line[:7]) in G_T_JOBS
        elif not line.startswith(" " * 60):
            ours = False
            continue
        if ours:
            out.append(line)
    return out


@pytest.mark.parametrize("name", ["qstat-g-t-pe", "qstat-g-t-f"])
def test_g_t_is_grid_engines(name: str) -> None:
    text, _ = listing(["-u", "*", *(LISTS / f"{name}.cmd").read_text().split()[1:]], g_t_reply())
    captured = (LISTS / f"{name}.out").read_text()
    assert _g_t_lines(text) == _g_t_lines(captured)
    assert text.splitlines()[:2] == captured.splitlines()[:2]  # the header (master column)


@pytest.mark.parametrize("name", ["qstat-g-t-xml", "qstat-g-t-f-xml"])
def test_g_t_xml_is_grid_engines(name: str) -> None:
    global OURS
    text, _ = listing(["-u", "*", *(LISTS / f"{name}.cmd").read_text().split()[1:]], g_t_reply())
    saved, OURS = OURS, G_T_JOBS
    try:
        assert job_lists(text) == job_lists((LISTS / f"{name}.out").read_text())
    finally:
        OURS = saved


def test_g_t_lines_of_a_job_on_two_instances_and_of_a_pe_whose_master_holds_no_slot() -> None:
    """8.1.9's sge_print_jobs_queue: one more line at the master instance when the PE's
    job_is_first_task is FALSE; a line repeats the job's columns only after another
    task's line (so the SLAVE lines in b.q@vm right after the master's continue them)."""
    from clients.views import qstat as v
    reply = g_t_reply()
    reply["jobs"][1]["opts"]["pe"] = ["mpi", 3, 3]
    reply["tasks"][1].update(slots=3, granted=[["all.q", "vm", 2], ["b.q", "vm", 1]])
    reply["conf"] = {"pe": {"mpi": [["pe_name", "mpi"], ["job_is_first_task", "FALSE"]]}}
    text, client = listing(["-u", "*", "-g", "t"], reply)
    assert "conf_get pe" in client.calls
    lines = [line for line in _g_t_lines(text) if "297" in line[:7] or line.startswith(" " * 60)]
    assert [(line[:7].strip(), line[66:96].strip(), line[97:103].strip()) for line in lines] == [
        ("297", "all.q@vm", "MASTER"), ("", "all.q@vm", "SLAVE"), ("", "all.q@vm", "SLAVE"),
        ("", "b.q@vm", "SLAVE")]
    rows = v.continued([{"job_id": 1, "task_id": None, "master_label": "MASTER"},
                        {"job_id": 2, "task_id": None, "master_label": "MASTER"},
                        {"job_id": 1, "task_id": None, "master_label": "SLAVE"}])
    assert [r["continuation"] for r in rows] == [False, False, False]


# ---- -t: the parallel tasks (captured with job 300: -pe smp 2 running one qrsh -inherit
# task 1.vm; job 301: -pe make 2, whose job_is_first_task is FALSE, no tasks)

T_JOBS = {300, 301}


def t_reply() -> dict[str, Any]:
    running = {"queue": "all.q", "host": "vm", "start_time": at("07:16:13")}
    jobs = [job(300, "petask", at("07:16:00"), pe=["smp", 2, 2]),
            job(301, "makejob", at("07:16:00"), pe=["make", 2, 2])]
    tasks = [task(300, state="running", slots=2, granted=[["all.q", "vm", 2]],
                  usage={"cpu": 0.0, "mem": 0.00001, "io": 0.00065}, **running),
             task(301, state="running", slots=2, granted=[["all.q", "vm", 2]], **running)]
    pe_tasks = [{"job_id": 300, "task_id": 1, "pe_task_id": "1.vm", "host": "vm",
                 "queue": "all.q", "started": at("07:16:14")}]
    return {"jobs": jobs, "tasks": tasks, "pe_tasks": pe_tasks,
            "priorities": {300: {"prio": 0.75}, 301: {"prio": 0.75}},
            "conf": {"pe": {"smp": [["job_is_first_task", "TRUE"]],
                            "make": [["job_is_first_task", "FALSE"]]}}}


def _t_lines(text: str) -> list[str]:
    global G_T_JOBS
    saved, G_T_JOBS = G_T_JOBS, T_JOBS
    try:
        return _g_t_lines(text)
    finally:
        G_T_JOBS = saved


@pytest.mark.parametrize("name", ["qstat-t-petasks", "qstat-g-t-petasks", "qstat-t-f-petasks"])
def test_t_shows_the_parallel_tasks_as_8_1_9(name: str) -> None:
    argv = (LISTS / f"{name}.cmd").read_text().split()[1:]
    text, _ = listing(["-u", "*", *argv], t_reply())
    captured = (LISTS / f"{name}.out").read_text()
    # the pe task's usage is not known here: NA where 8.1.9 has the execd's figures
    expected = [line.replace("r     00:00:00 0.00000 0.00003 ", "r     NA         NA      NA      ")
                for line in _t_lines(captured)]
    assert _t_lines(text) == expected
    if "-f" not in argv:
        assert text.splitlines()[:2] == captured.splitlines()[:2]


def test_the_job_query_gives_the_running_parallel_tasks_by_number() -> None:
    from types import SimpleNamespace

    from common import wire
    from common.model import Task
    from common.pe_tasks import PeBook, Running
    from qmaster.jobs import _pe_task_records
    master = Task(job_id=300, task_id=1)
    book = PeBook(tasks={"2.h2": Running(2, "h2", "all.q", 6.0),
                         "1.vm": Running(1, "vm", "all.q", 5.0)})
    store = SimpleNamespace(pe_books={master.key: book})
    assert [r["pe_task_id"] for r in _pe_task_records(store, [master, Task(301, 1)])] == \
        ["1.vm", "2.h2"]  # type: ignore[arg-type]
    from clients.api import current_user
    frame = wire.encode("job_query", {"user": current_user().to_dict(), "pe_tasks": True})
    assert wire.decode(frame)[2]["pe_tasks"] is True


def test_f_lists_finished_jobs_in_a_block_of_their_own() -> None:
    text, _ = listing(["-u", "*", "-f", "-s", "prsz"], states_reply())
    captured = (LISTS / "qstat-f-s-z.out").read_text()
    title = " --  FINISHED JOBS  -  FINISHED JOBS  -  FINISHED JOBS  -  FINISHED JOBS  --  "
    assert title in captured.splitlines()
    ours = text.split(title + "\n" + "#" * 76 + "\n")[1]

    def done(block: str) -> list[str]:  # (233, 234: finished then as when captured)
        return [line for line in block.splitlines() if line[:7].strip() in ("233", "234")]
    assert done(ours) == done(captured.split(title)[1]) and len(done(ours)) == 2
    assert text.index(" - PENDING JOBS - ") < text.index(title)
