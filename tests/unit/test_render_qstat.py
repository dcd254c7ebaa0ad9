"""Byte-for-byte checks of clients.render.qstat against the Grid Engine 8.1.9 reference output."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, strategies as st

from clients.render import qstat as rq

from tests.reference import REFERENCE as REF
SUBMIT = 1795315065.0  # 2026-11-22 02:37:45 UTC
START = 1795315140.0   # 2026-11-22 02:39:00 UTC
HOLD_SUBMIT = 1795315063.0


@pytest.fixture(autouse=True)
def _in_utc(utc: None) -> None:
    """Every test here renders times as the reference shows them (UTC)."""



def ref(name: str) -> str:
    return (REF / name).read_text()


def job(job_id: int, name: str, state: str, **extra: Any) -> dict[str, Any]:
    row = {"job_id": job_id, "task_id": None, "prio": 0.5, "name": name, "owner": "sgeuser",
           "state": state, "submit_time": SUBMIT, "start_time": None, "queue": None, "slots": 1,
           "master": True, "hard_resources": {}, "soft_resources": {}, "hard_queues": [],
           "soft_queues": [], "pe": None, "pe_range": None, "granted_pe": None, "full_name": name,
           "pending_tasks": None, "project": None, "department": "defaultdepartment",
           "binding": "NONE"}
    row.update(extra)
    return row


def running_rows() -> list[dict[str, Any]]:
    run = {"start_time": START, "queue": "all.q@vm"}
    return [job(95, "running_job", "r", hard_resources={"h_rt": "300"}, **run),
            job(97, "array_job", "r", task_id=1, **run),
            job(97, "array_job", "r", task_id=2, **run)]


def pending_rows() -> list[dict[str, Any]]:
    return [job(96, "pending_job", "qw", hard_resources={"arch": "sparc64"}),
            job(97, "array_job", "qw", pending_tasks="3"),
            job(78, "true", "hqw", prio=0.0, submit_time=HOLD_SUBMIT)]


def queue(jobs: list[dict[str, Any]]) -> dict[str, Any]:
    return {"name": "all.q@vm", "qtype": "BIP", "used": 3, "resv": 0, "total": 4,
            "load_avg": 2.0166015625, "arch": "lx-amd64", "states": "", "jobs": jobs}


def test_plain_table_matches_reference() -> None:
    out = rq.render_job_table(running_rows() + pending_rows())
    assert out == ref("qstat.out")
    assert out == ref("qstat-u-all.out")


def test_pending_only_table_matches_reference() -> None:
    assert rq.render_job_table(pending_rows()) == ref("qstat-s-p.out")


def test_resources_table_matches_reference() -> None:
    assert rq.render_job_table(running_rows() + pending_rows(), show_resources=True) == ref("qstat-r.out")


def test_empty_table_prints_nothing() -> None:
    assert rq.render_job_table([]) == ""
    assert rq.render_full([], []) == ""


def test_full_listing_matches_reference() -> None:
    for row in running_rows():
        row["queue"] = "all.q@vm"
    assert rq.render_full([queue(running_rows())], pending_rows()) == ref("qstat-f.out")


def test_full_xml_matches_reference() -> None:
    assert rq.render_full_xml([queue(running_rows())], pending_rows()) == ref("qstat-f-xml.out")


def test_table_xml_matches_reference() -> None:
    assert rq.render_job_table_xml(running_rows(), pending_rows()) == ref("qstat-xml.out")


def test_cluster_queue_summary_matches_reference() -> None:
    cq = {"name": "all.q", "load": 1.008301, "used": 3, "resv": 0, "available": 1, "total": 4,
          "temp_disabled": 0, "manual_intervention": 0}
    assert rq.render_cluster_queue_summary([cq]) == ref("qstat-g-c.out")


def test_cluster_queue_summary_extended_columns() -> None:
    cq = {"name": "all.q", "load": None, "used": 0, "resv": 0, "available": 0, "total": 4,
          "temp_disabled": 4, "manual_intervention": 0, "disabled_manual": 4}
    lines = rq.render_cluster_queue_summary([cq], extended=True).splitlines()
    assert lines[0].endswith("cdsuE      s     A     S     C     u     a     d     D     c     o     E")
    assert lines[1] == "-" * 146
    assert lines[2].startswith("all.q" + " " * 25 + "    -NA-      0")
    assert lines[2].split()[-11:] == ["0", "0", "0", "0", "0", "0", "4", "0", "0", "0", "0"]


# ------------------------------------------------------------------ qstat -j

def env(extra: list[list[Any]] | None = None) -> list[list[Any]]:
    prefix = "__SGE_PREFIX__O_"
    return ([[prefix + "HOME", "/home/sgeuser"], [prefix + "LOGNAME", "sgeuser"],
             [prefix + "PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],
             [prefix + "SHELL", "/bin/bash"], ["TERM", None], [prefix + "HOST", "vm"],
             [prefix + "WORKDIR", "/home/sgeuser"]] + (extra or []))


OVERLOAD = {"number": 27, "global": True, "message":
            'queue instance "all.q@vm" dropped because it is overloaded: np_load_avg=1.758301 '
            "(= 1.008301 + 0.50 * 3.000000 with nproc=2) >= 1.75"}


def detail(job_number: int, name: str, args: list[str], **extra: Any) -> dict[str, Any]:
    devnull = [{"path": "/dev/null", "host": None, "file_host": None}]
    d = {"job_number": job_number, "exec_file": f"job_scripts/{job_number}", "submission_time": SUBMIT,
         "owner": "sgeuser", "uid": 1001, "group": "sgeuser", "gid": 1001, "env_list": env(),
         "account": "sge", "stderr_path_list": devnull, "stdout_path_list": devnull,
         "mail_list": [["sgeuser", "vm"]], "notify": False, "job_name": name, "jobshare": 0,
         "job_args": args, "script_file": "/bin/sleep", "binding": "NONE", "job_type": ["binary"],
         "scheduling_info": [OVERLOAD], "nurg": 0.5}
    d.update(extra)
    return d


def running_task(task_id: int, **usage: float) -> dict[str, Any]:
    return {"task_id": task_id, "status": 128, "start_time": START, "ntix": 0.5, "usage": usage}


def running_detail() -> dict[str, Any]:
    h_rt = {"name": "h_rt", "value": "300", "valtype": 3, "doubleval": 300.0}
    return detail(95, "running_job", ["300"], hard_resource_list=[h_rt], ja_tasks=[running_task(1)])


def test_job_detail_running_matches_reference() -> None:
    assert rq.render_job_detail([running_detail()]) == ref("qstat-j-running.out")


def test_job_detail_pending_matches_reference() -> None:
    arch = {"name": "arch", "value": "sparc64", "valtype": 1, "doubleval": 0.0}
    job_msg = {"number": 0, "global": False,
               "message": '(-l arch=sparc64) cannot run at host "vm" because it offers only hl:arch=lx-amd64'}
    d = detail(96, "pending_job", ["1"], hard_resource_list=[arch], scheduling_info=[job_msg, OVERLOAD])
    assert rq.render_job_detail([d]) == ref("qstat-j-pending.out")


def test_job_detail_array_matches_reference() -> None:
    tasks = [running_task(1, io=0.00004, vmem=3.516 * 1024 ** 2, maxvmem=3.516 * 1024 ** 2),
             running_task(2, io=0.00004, vmem=3.527 * 1024 ** 2, maxvmem=3.527 * 1024 ** 2)]
    d = detail(97, "array_job", ["300"], job_array_tasks="1-3:1", ja_tasks=tasks)
    assert rq.render_job_detail([d]) == ref("qstat-j-array.out")


def test_job_detail_xml_matches_reference() -> None:
    assert rq.render_job_detail_xml([running_detail()]) == ref("qstat-j-running-xml.out")


def test_jobs_not_found_matches_reference() -> None:
    assert rq.render_jobs_not_found(["999999"]) == ref("qstat-j-nonexistent.err")
    assert rq.render_jobs_not_found(["1", "2"]) == "Following jobs do not exist: \n1, 2\n"


def test_job_detail_optional_lines() -> None:
    d = detail(5, "opts", ["a", "b"], cwd="/tmp/w", merge_stderr=True, restart=False, pe="smp",
               pe_range="4", project="proj", priority=-10, mail_options="eb", reserve=True,
               hard_queue_list=["all.q", "b.q"], jid_predecessor_list=[3, 4],
               jid_request_list=["3", "four"], ja_task_concurrency=2, checkpoint_attr="sx",
               soft_resource_list=[{"name": "mem_free", "value": "1G"}], job_type=[],
               env_list=env([["FOO", "bar"], ["EMPTY", ""]]), scheduling_info=[])
    out = rq.render_job_detail([d])
    for line in ("cwd:                        /tmp/w", "merge:                      y",
                 "restart:                    n", "parallel environment:  smp range: 4",
                 "project:                    proj", "priority:                   -10",
                 "mail_options:               be", "reserve:                    y",
                 "hard_queue_list:            all.q,b.q", "jid_predecessor_list:       3,4",
                 "jid_predecessor_list (req): 3,four", "maximum concurrency:        2",
                 "checkpoint_attr:            sx    ", "soft resource_list:         mem_free=1G",
                 "job_args:                   a,b", "job_type:                   NONE",
                 "env_list:                   TERM=NONE,FOO=bar,EMPTY"):
        assert line + "\n" in out, line
    assert out.index("cwd:") < out.index("stderr_path_list:") < out.index("merge:")
    assert "scheduling info" not in out


def test_job_detail_several_jobs_each_with_separator() -> None:
    out = rq.render_job_detail([running_detail(), running_detail()])
    assert out == ref("qstat-j-running.out") * 2


def test_job_detail_error_reason_and_big_task_ids() -> None:
    task = running_task(123456, cpu=90061.0, mem=1.5)
    task["messages"] = ["first", "second"]
    out = rq.render_job_detail([detail(7, "x", ["1"], ja_tasks=[task], scheduling_info=[])])
    assert "usage    123456:            cpu=25:01:01, mem=1.50000 GB s" in out
    assert "binding  123456:            NONE\n" in out
    assert "error reason     123456:      first\n" + " " * 17 + "123456:      second\n" in out


# ------------------------------------------------------------------ edge cases

def test_long_names_are_truncated_and_big_ids_widen() -> None:
    row = job(123456789, "a_very_long_job_name", "r", owner="someone_with_long_name",
              start_time=START, queue="averyveryverylongqueuename.q@host.example.com", slots=128)
    line = rq.render_job_table([row]).splitlines()[2]
    assert line.startswith("123456789 0.50000 a_very_lon someone_with r     11/22/2026 02:39:00 ")
    assert " averyveryverylongqueuename.q@h   128 " in line


def test_pending_array_range_in_task_column() -> None:
    row = job(12, "arr", "qw", pending_tasks="3-10:1")
    assert rq.render_job_table([row]).splitlines()[2].endswith("    1 3-10:1")


def test_extended_table_layout() -> None:
    row = job(95, "running_job", "r", start_time=START, queue="all.q@vm", ntckts=0.5,
              cpu=3661.0, mem=0.25, io=None, tickets=100, share=0.5)
    lines = rq.render_job_table([row, job(96, "p", "qw")], extended=True).splitlines()
    assert lines[0] == ("job-ID  prior   ntckts  name       user         project          department "
                        "state cpu        mem     io      tckts ovrts otckt ftckt stckt share queue"
                        + " " * 26 + "slots ja-task-ID ")
    assert lines[1] == "-" * (113 + 79)
    assert lines[2] == ("     95 0.50000 0.50000 running_jo sgeuser      NA               defaultdep"
                        " r     0:01:01:01 0.25000 NA        100     0     0     0     0 0.50  "
                        "all.q@vm                           1        ")
    assert "qw                            " in lines[3]


def test_full_listing_with_several_queues_and_states() -> None:
    q1 = queue([])
    q2 = dict(queue([]), name="b.q@vm", load_avg=None, arch=None, states="au", explain=["alarm"])
    out = rq.render_full([q1, q2], [])
    assert out.count("-" * 81 + "\n") == 2
    assert "b.q@vm                         BIP   0/3/4          -NA-     -NA-          au\n\talarm\n" in out
    assert "PENDING" not in out


def test_xml_escaping_quirk_and_extended_fields() -> None:
    row = job(5, "a<b&'c\"", "qw", ntckts=0.25, share=0.5)
    out = rq.render_job_table_xml([], [row], extended=True)
    assert "<JB_name>a%lt;b&amp;&apos;c&quot;</JB_name>" in out
    assert "<JAT_ntix>0.25000</JAT_ntix>" in out and "<JB_project></JB_project>" in out
    assert "<JAT_share>0.50000</JAT_share>" in out and "JB_submission_time" not in out


def test_empty_xml_documents_keep_sections() -> None:
    out = rq.render_job_table_xml([], [])
    assert out.splitlines()[2:6] == ["  <queue_info>", "  </queue_info>", "  <job_info>", "  </job_info>"]


@given(st.floats(min_value=0, max_value=2 ** 50))
def test_format_memory_unit_and_precision(value: float) -> None:
    text = rq.format_memory(value)
    unit = text[-1] if text[-1] in "KMGT" else ""
    number = float(text.rstrip("KMGT"))
    assert len(text.rstrip("KMGT").split(".")[1]) == 3
    assert abs(number * 1024 ** " KMGT".index(unit or " ") - value) <= 0.0005 * 1024 ** " KMGT".index(unit or " ")
    assert number < 1024.0005 or unit == "T"


@given(st.integers(min_value=0, max_value=10 ** 7))
def test_format_hms_round_trips(seconds: int) -> None:
    h, m, s = (int(part) for part in rq.format_hms(seconds).split(":"))
    assert h * 3600 + m * 60 + s == seconds and m < 60 and s < 60


def test_full_extended_and_resources() -> None:
    out = rq.render_full([queue(running_rows()[:1])], pending_rows()[:1], extended=True, show_resources=True)
    lines = out.splitlines()
    assert lines[1] == "-" * (81 + 108)
    assert "\n" + "#" * 186 + "\n - PENDING JOBS" in out
    assert lines[3].startswith("     95 0.50000 0.00000 running_jo sgeuser      NA               defaultdep r     ")
    assert lines[4:7] == ["       Full jobname:     running_job", "       Master Queue:     all.q@vm",
                          "       Hard Resources:   h_rt=300 (0.000000)"]


def test_resources_block_optional_lines() -> None:
    row = job(7, "pe_job", "r", start_time=START, queue="all.q@vm", slots=4, pe="smp", pe_range="2-4",
              granted_pe="smp", granted_pe_slots=4, hard_resources={"h_vmem": "1G", "arch": "lx-amd64"},
              hard_resource_urgency={"h_vmem": 4000.0}, soft_resources={"mem_free": "2G"},
              hard_queues=["all.q", "b.q"], predecessors=[1, 2], binding=None)
    block = rq.resource_lines(row)
    assert block == ("       Full jobname:     pe_job\n"
                     "       Master Queue:     all.q@vm\n"
                     "       Requested PE:     smp 2-4\n"
                     "       Granted PE:       smp 4\n"
                     "       Hard Resources:   h_vmem=1G (4000.000000)\n"
                     "                         arch=lx-amd64 (0.000000)\n"
                     "       Soft Resources:   mem_free=2G\n"
                     "       Hard requested queues: all.q, b.q\n"
                     "       Predecessor Jobs: 1, 2\n")


def test_g_c_counts_states_that_pass_by_themselves_apart_from_manual_ones() -> None:
    """8.1.9's columns: aoACDS (alarms, calendars, subordination) and cdsuE."""
    from clients.views.qstat import cluster_queue_summary
    hosts = [{"name": "h", "alive": True, "load": {"np_load_avg": "0.5"}}]
    instances = [{"queue": "q", "host": "h", "slots": 2, "used": 0, "alive": True,
                  "states": states} for states in ("a", "S", "CD", "d", "aE", "")]
    [cq] = cluster_queue_summary({"hosts": hosts, "instances": instances})
    assert (cq["temp_disabled"], cq["manual_intervention"], cq["available"]) == (6, 4, 2)
