"""qstat's policy columns (clients.render.qstat): -urg, -pri, -ext and their combinations,
laid out as 8.1.9's qstat.c prints them (its printf formats: nurg/npprior/ntckts %7.5f,
urg/rrcontr/wtcontr/dlcontr OPTI_PRINT8, ppri %5d, the deadline column, the rulers), and
the -xml forms (JB_nurg, JB_urg..., JB_nppri, JB_priority)."""
from __future__ import annotations

from typing import Any

import pytest

from clients.render import qstat as rq

SUBMIT = 1795315065.0  # 2026-11-22 02:37:45 UTC
DEADLINE = 1795400000.0  # 2026-11-23 02:13:20 UTC


@pytest.fixture(autouse=True)
def _in_utc(utc: None) -> None:
    """Times in UTC."""


def row(**extra: Any) -> dict[str, Any]:
    return {"job_id": 12, "task_id": None, "prio": 0.60500, "name": "sleeper",
            "owner": "alice", "state": "qw", "submit_time": SUBMIT, "start_time": None,
            "queue": None, "slots": 4, "nurg": 0.71, "npprior": 0.25, "ntckts": 0.5,
            "urg": 4153.0, "rrcontr": 4000.0, "wtcontr": 153.0, "dlcontr": 0.0,
            "ppri": -100, "deadline": None, "project": None, "department": "defaultdepartment",
            "tickets": 0, "ovrts": 0, "otckt": 0, "ftckt": 0, "stckt": 0, "share": 0.0,
            **extra}


QUEUE = " " * 30


def test_urg_header_and_line() -> None:
    text = rq.render_job_table([row()], urgency=True)
    head, ruler, line = text.splitlines()
    assert head == ("job-ID  prior   nurg    urg      rrcontr  wtcontr  dlcontr  name       "
                    "user         state submit/start at      deadline           queue"
                    "                          slots ja-task-ID ")
    assert ruler == "-" * (93 + 20 + 64)
    assert line == ("     12 0.60500 0.71000     4153     4000      153        0 sleeper    "
                    "alice        qw    11/22/2026 02:37:45 " + " " * 20 + QUEUE + "     4 "
                    + " " * 7)


def test_a_deadline_and_large_urgencies() -> None:
    line = rq.render_job_table([row(deadline=DEADLINE, urg=3.6e9, dlcontr=3.6e9)],
                               urgency=True).splitlines()[2]
    assert "  3.6e+09     4000      153  3.6e+09 " in line
    assert "qw    11/22/2026 02:37:45 11/23/2026 02:13:20 " in line


def test_pri_header_and_line() -> None:
    head, ruler, line = rq.render_job_table([row()], priority=True).splitlines()
    assert head == ("job-ID  prior   nurg    npprior ntckts   ppri name       user         "
                    "state submit/start at     queue                          slots ja-task-ID ")
    assert ruler == "-" * (93 + 20 + 35)
    assert line == ("     12 0.60500 0.71000 0.25000 0.50000  -100 sleeper    alice        "
                    "qw    11/22/2026 02:37:45 " + QUEUE + "     4 " + " " * 7)


def test_ext_with_pri_shows_the_submit_time_again() -> None:
    head, ruler, line = rq.render_job_table([row()], extended=True, priority=True).splitlines()
    assert head.startswith("job-ID  prior   nurg    npprior ntckts   ppri name       user"
                           "         project          department state submit/start at     cpu")
    assert ruler == "-" * (93 + 20 + 79 + 35)
    assert line.startswith("     12 0.60500 0.71000 0.25000 0.50000  -100 sleeper    alice"
                           "        NA               defaultdep qw    11/22/2026 02:37:45 ")


def test_urg_and_pri_together() -> None:
    head = rq.render_job_table([row()], urgency=True, priority=True).splitlines()[0]
    assert head.startswith("job-ID  prior   nurg    npprior ntckts  urg      rrcontr  wtcontr"
                           "  dlcontr   ppri name ")
    line = rq.render_job_table([row()], urgency=True, priority=True).splitlines()[2]
    assert line.startswith("     12 0.60500 0.71000 0.25000 0.50000     4153     4000      153"
                           "        0  -100 sleeper ")


def test_full_listing_lines_have_the_columns_without_a_queue() -> None:
    text = rq.render_full([], [row()], urgency=True)
    assert text.splitlines()[-1] == (
        "     12 0.60500 0.71000     4153     4000      153        0 sleeper    alice        "
        "qw    11/22/2026 02:37:45 " + " " * 20 + "    4 " + " " * 7)


def test_xml_forms() -> None:
    text = rq.render_job_table_xml([], [row(deadline=DEADLINE)], urgency=True, priority=True)
    for expected in ("<JAT_prio>0.60500</JAT_prio>", "<JB_nurg>0.71000</JB_nurg>",
                     "<JB_urg>4153</JB_urg>", "<JB_rrcontr>4000</JB_rrcontr>",
                     "<JB_wtcontr>153</JB_wtcontr>", "<JB_dlcontr>0</JB_dlcontr>",
                     "<JB_nppri>0.25000</JB_nppri>", "<JB_priority>-100</JB_priority>",
                     "<JB_submission_time>2026-11-22T02:37:45</JB_submission_time>",
                     "<JB_deadline>2026-11-23T02:13:20</JB_deadline>"):
        assert expected in text
    order = [line.strip().split(">")[0] for line in text.splitlines()]
    assert order.index("<JB_dlcontr") < order.index("<JB_nppri") < order.index("<JB_name")
    plain = rq.render_job_table_xml([], [row()])
    assert "JB_nurg" not in plain and "JB_nppri" not in plain and "JAT_ntix" not in plain
