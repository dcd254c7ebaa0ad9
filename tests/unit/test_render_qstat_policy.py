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
                     "<JB_rrcontr>4000</JB_rrcontr>",
                     "<JB_wtcontr>153</JB_wtcontr>", "<JB_dlcontr>0</JB_dlcontr>",
                     "<JB_nppri>0.25000</JB_nppri>", "<JB_priority>-100</JB_priority>",
                     "<JB_submission_time>2026-11-22T02:37:45</JB_submission_time>",
                     "<JB_deadline>2026-11-23T02:13:20</JB_deadline>"):
        assert expected in text
    assert "JB_urg" not in text  # (8.1.9 leaves the sum out of -xml)
    order = [line.strip().split(">")[0] for line in text.splitlines()]
    assert order.index("<JB_nppri") < order.index("<JB_nurg") < order.index("<JB_dlcontr") \
        < order.index("<JB_priority") < order.index("<JB_name")
    plain = rq.render_job_table_xml([], [row()])
    assert "JB_nurg" not in plain and "JB_nppri" not in plain and "JAT_ntix" not in plain


# --------------------------------------------------------------------------- 8.1.9's text
# Captured from the real 8.1.9 (the oracle's tests/data/reference/policy/, groups 1 and 2:
# g1-qstat-urg, g1-qstat-pri, g1-qstat-ext, g2-qstat-urg-dl, g1-qstat-pri-xml), the
# figures typed into rows: what the renderer makes of them must be the capture.

T1, T2, T3 = 1795823530.0, 1795823573.0, 1795823601.0  # 23:52:10, 23:52:53, 23:53:21


def g1_rows() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    def r(job_id: int, name: str, prio: float, nurg: float, urg: float, rr: float, wt: float,
          slots: int = 1, **extra: Any) -> dict[str, Any]:
        return row(job_id=job_id, name=name, owner="sgeuser", prio=prio, nurg=nurg,
                   npprior=0.5, ntckts=0.5, ppri=0, urg=urg, rrcontr=rr, wtcontr=wt,
                   dlcontr=0.0, submit_time=T1, slots=slots, **extra)
    running = [r(6, "run1", 0.5, 0.5, 5.37e10, 5.37e10, 4, state="r", start_time=T1,
                 queue="all.q@vm")]
    pending = [r(9, "vmem1G", 0.75, 1.0, 1.07e11, 1.07e11, 3),
               r(8, "pe2", 0.25, 0.0, 2003, 2000, 3, slots=2),
               r(7, "plain", 0.25, 0.0, 1003, 1000, 3)]
    return running, pending


G1_URG = """\
job-ID  prior   nurg    urg      rrcontr  wtcontr  dlcontr  name       user         state submit/start at      deadline           queue                          slots ja-task-ID 
---------------------------------------------------------------------------------------------------------------------------------------------------------------------------------
      6 0.50000 0.50000 5.37e+10 5.37e+10        4        0 run1       sgeuser      r     11/27/2026 23:52:10                     all.q@vm                           1        
      9 0.75000 1.00000 1.07e+11 1.07e+11        3        0 vmem1G     sgeuser      qw    11/27/2026 23:52:10                                                        1        
      8 0.25000 0.00000     2003     2000        3        0 pe2        sgeuser      qw    11/27/2026 23:52:10                                                        2        
      7 0.25000 0.00000     1003     1000        3        0 plain      sgeuser      qw    11/27/2026 23:52:10                                                        1        
"""

G1_PRI = """\
job-ID  prior   nurg    npprior ntckts   ppri name       user         state submit/start at     queue                          slots ja-task-ID 
----------------------------------------------------------------------------------------------------------------------------------------------------
      6 0.50000 0.50000 0.50000 0.50000     0 run1       sgeuser      r     11/27/2026 23:52:10 all.q@vm                           1        
      9 0.75000 1.00000 0.50000 0.50000     0 vmem1G     sgeuser      qw    11/27/2026 23:52:10                                    1        
      8 0.25000 0.00000 0.50000 0.50000     0 pe2        sgeuser      qw    11/27/2026 23:52:10                                    2        
      7 0.25000 0.00000 0.50000 0.50000     0 plain      sgeuser      qw    11/27/2026 23:52:10                                    1        
"""

G1_EXT = """\
job-ID  prior   ntckts  name       user         project          department state cpu        mem     io      tckts ovrts otckt ftckt stckt share queue                          slots ja-task-ID 
------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------
      6 0.50000 0.50000 run1       sgeuser      NA               defaultdep r     NA         NA      NA          0     0     0     0     0 0.00  all.q@vm                           1        
      9 0.75000 0.50000 vmem1G     sgeuser      NA               defaultdep qw                                   0     0     0     0     0 0.00                                     1        
      8 0.25000 0.50000 pe2        sgeuser      NA               defaultdep qw                                   0     0     0     0     0 0.00                                     2        
      7 0.25000 0.50000 plain      sgeuser      NA               defaultdep qw                                   0     0     0     0     0 0.00                                     1        
"""

G2_URG_DL = """\
     18 0.75003 0.00007  3601002     1000        2  3600000 dlpast     sgeuser      qw    11/27/2026 23:53:21 11/27/2026 23:48:00                                    1        
     17 0.75000 0.00000     5125     1000        2     4124 dlyes      sgeuser      qw    11/27/2026 23:53:21 11/28/2026 00:08:00                                    1        
"""

G1_PRI_XML_PENDING = """\
    <job_list state="pending">
      <JB_job_number>9</JB_job_number>
      <JAT_prio>0.75000</JAT_prio>
      <JAT_ntix>0.50000</JAT_ntix>
      <JB_nppri>0.50000</JB_nppri>
      <JB_nurg>1.00000</JB_nurg>
      <JB_priority>0</JB_priority>
      <JB_name>vmem1G</JB_name>
      <JB_owner>sgeuser</JB_owner>
      <state>qw</state>
      <JB_submission_time>2026-11-27T23:52:10</JB_submission_time>
      <queue_name></queue_name>
      <slots>1</slots>
    </job_list>
"""


def test_8_1_9s_urg_pri_and_ext_listings() -> None:
    running, pending = g1_rows()
    assert rq.render_job_table(running + pending, urgency=True) == G1_URG
    assert rq.render_job_table(running + pending, priority=True) == G1_PRI
    ext = [dict(r, cpu=None, mem=None, io=None) for r in running + pending]
    assert rq.render_job_table(ext, extended=True) == G1_EXT


def test_8_1_9s_deadline_column() -> None:
    rows = [row(job_id=18, name="dlpast", owner="sgeuser", prio=0.75003, nurg=0.00007,
                urg=3601002.0, rrcontr=1000.0, wtcontr=2.0, dlcontr=3600000.0,
                submit_time=T3, deadline=1795823280.0, slots=1),
            row(job_id=17, name="dlyes", owner="sgeuser", prio=0.75, nurg=0.0, urg=5125.0,
                rrcontr=1000.0, wtcontr=2.0, dlcontr=4124.0, submit_time=T3,
                deadline=1795824480.0, slots=1)]
    text = rq.render_job_table(rows, urgency=True)
    assert "".join(text.splitlines(keepends=True)[2:]) == G2_URG_DL


def test_8_1_9s_pri_xml() -> None:
    running, pending = g1_rows()
    text = rq.render_job_table_xml(running, pending, priority=True)
    assert G1_PRI_XML_PENDING in text
