"""sched_conf(5) ``schedd_job_info`` and the run log of ``qconf -tsm``
(common.sched_info, qmaster.sched_monitor), against Grid Engine 8.1.9's texts and the
run logs captured from it (tests/data/reference/policy/g7-*schedd_runlog.txt)."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from clients.api import ClientError
from clients.render.qstat_job import render_global_messages, render_job_detail
from common.placement.caps import INSTANCES_REASON, USER_LIMIT_REASON
from common.sched_info import (BAD_JOB_LIST, BAD_PARAMETER, NO_MESSAGES, NOT_EVERY_JOB,
                               TURNED_OFF, JobInfo, JobInfoError, PendingJob, RunningGrant,
                               parse_job_info, run_log_lines, stamp)
from tests.unit.test_cap_orders import set_conf
from tests.unit.test_qmaster_core import ALICE, ROOT, Harness

REFERENCE = Path(__file__).resolve().parents[1] / "data" / "reference" / "policy"


# ------------------------------------------------------------------ schedd_job_info

def test_the_three_forms_of_the_setting() -> None:
    assert parse_job_info("true") == JobInfo("true")
    assert parse_job_info(" false ") == JobInfo("false")
    listed = parse_job_info("job_list 3-5,9")
    assert listed.mode == "job_list"
    assert [j for j in range(1, 12) if listed.collects(j)] == [3, 4, 5, 9]
    assert [j for j in range(1, 12) if parse_job_info("job_list 2-10:4").collects(j)] == [2, 6, 10]
    assert parse_job_info("job_list 1 7").collects(7)  # blanks separate too


@pytest.mark.parametrize("value, refusal", [
    ("TRUE", BAD_PARAMETER),  # 8.1.9 compares the words case-sensitively (strcmp)
    ("yes", BAD_PARAMETER), ("", BAD_PARAMETER),
    ("job_list", BAD_JOB_LIST), ("job_list abc", BAD_JOB_LIST),
    ("job_list 0", BAD_JOB_LIST), ("job_list 5-", BAD_JOB_LIST)])
def test_values_8_1_9_refuses(value: str, refusal: str) -> None:
    with pytest.raises(JobInfoError) as err:
        parse_job_info(value)
    assert str(err.value) == refusal


@given(st.lists(st.integers(1, 200), min_size=1, max_size=8), st.integers(1, 250))
def test_a_job_list_collects_exactly_its_ids(ids: list[int], job_id: int) -> None:
    info = parse_job_info("job_list " + ",".join(map(str, ids)))
    assert info.collects(job_id) == (job_id in ids)


def test_global_messages_of_each_setting() -> None:
    assert JobInfo("false").global_messages() == [TURNED_OFF]
    assert JobInfo("job_list", ((1, 1, 1),)).global_messages() == [NOT_EVERY_JOB]
    assert JobInfo("true").global_messages() == []
    assert JobInfo("true").global_messages(any_messages=False) == [NO_MESSAGES]


def test_qstat_j_shows_the_global_message_before_the_jobs_lines() -> None:
    from clients.views.detail import job_detail
    job = {"job_id": 7, "owner": "alice", "uid": 1001, "group": "users", "gid": 100,
           "submit_time": 0.0,
           "opts": {"job_name": "sleep", "binary": True, "command": "/bin/sleep"}}
    detail = job_detail(job, [], [job], ["queue instance \"all.q@vm\" dropped because it is full"],
                        [NOT_EVERY_JOB])
    text = render_job_detail([detail])
    assert text.endswith(
        "scheduling info:            (Scheduler job information not available for every job)\n"
        "                            queue instance \"all.q@vm\" dropped because it is full\n")
    off = render_job_detail([job_detail(job, [], [job], [], [TURNED_OFF])])
    assert off.endswith("scheduling info:            "
                        "(Collecting of scheduler job information is turned off)\n")
    assert render_job_detail([job_detail(job, [], [job], [], [])]).count("scheduling info") == 0


def test_qstat_j_without_jobs_prints_the_global_messages_then_an_empty_line() -> None:
    assert render_global_messages([TURNED_OFF]) == (
        "scheduling info:            (Collecting of scheduler job information is turned off)"
        "\n\n")
    assert render_global_messages([]) == ""


# ------------------------------------------------------------------ the run log

def _utc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "UTC")  # the captures were taken on a machine in UTC
    time.tzset()


@pytest.fixture(autouse=True)
def _restore_tz() -> object:
    yield
    time.tzset()


def _g7_maxujobs_run() -> list[str]:
    """g7: maxujobs 1; 53 (sgeuser, dispatched 22 s before) and 55 (sgeuser2, 8 s before)
    run, 54 (sgeuser) is dropped by the cap."""
    now = 1795823995
    grants = [RunningGrant(53, 1, "all.q", "vm", 1, now - 22),
              RunningGrant(55, 1, "all.q", "vm", 1, now - 8)]
    job54 = PendingJob(54, (USER_LIMIT_REASON,), (USER_LIMIT_REASON,), placed=False)
    return run_log_lines(grants, [job54], JobInfo(), 450, now)


def _g7_tc_run() -> list[str]:
    """g7: job 56 -t 1-4 after qalter -tc 2: tasks 1, 2 run, 3 and 4 are held back."""
    now = 1795824029
    grants = [RunningGrant(56, 1, "all.q", "vm", 1, now - 16),
              RunningGrant(56, 2, "all.q", "vm", 1, now - 8)]
    job56 = PendingJob(56, (INSTANCES_REASON,), placed=False)
    return run_log_lines(grants, [job56], JobInfo(), 450, now)


def test_the_run_logs_8_1_9_wrote(monkeypatch: pytest.MonkeyPatch) -> None:
    _utc(monkeypatch)
    first = stamp(_g7_maxujobs_run(), 1795823995)
    assert first == (REFERENCE / "g7-schedd_runlog.txt").read_text()
    both = first + stamp(_g7_tc_run(), 1795824029)  # appended per qconf -tsm
    assert both == (REFERENCE / "g7-tc-schedd_runlog.txt").read_text()


def test_load_corrections_decay_and_add_up_per_host() -> None:
    grants = [RunningGrant(1, 1, "all.q", "a", 2, 1000 - 225),  # half decayed, 2 slots
              RunningGrant(2, 1, "all.q", "a", 1, 1000),
              RunningGrant(3, 1, "all.q", "b", 1, 1000 - 451)]  # decayed: not listed
    lines = run_log_lines(grants, [], JobInfo(), 450, 1000)
    assert lines[1:3] == [
        "JOB 1.1 [2] in queue all.q@a increased absolute lc of host a by 100 to 100",
        "JOB 2.1 [1] in queue all.q@a increased absolute lc of host a by 100 to 200"]
    assert len(lines) == 6  # start, two, no pending jobs, no messages at all, stop
    assert lines[-2] == NO_MESSAGES
    assert run_log_lines(grants, [], JobInfo(), 0, 1000)[1] == \
        "no pending jobs to perform scheduling on"  # decay time 0: no corrections


def test_the_setting_decides_which_jobs_are_logged() -> None:
    jobs = [PendingJob(5, ('queue instance "all.q@a" dropped because it is full',)),
            PendingJob(6, ('queue instance "all.q@a" dropped because it is full',))]
    listed = run_log_lines([], jobs, parse_job_info("job_list 6"), 450, 0)
    assert listed == ["-------------START-SCHEDULER-RUN-------------",
                      'Job 6 queue instance "all.q@a" dropped because it is full',
                      NOT_EVERY_JOB, "--------------STOP-SCHEDULER-RUN-------------"]
    off = run_log_lines([], jobs, JobInfo("false"), 450, 0)
    assert off[1:-1] == [TURNED_OFF]


# ------------------------------------------------------------------ through the qmaster

@pytest.fixture
def qm(tmp_path: Path) -> Harness:
    h = Harness(tmp_path, auto_add_hosts=True, default_slots=1)
    h.call("register", {"host": "h1", "load": {"num_proc": "1", "np_load_avg": "0.10"},
                        "jobs": []}, identity=b"execd:h1")
    h.server.cell.common_dir.mkdir(parents=True, exist_ok=True)
    return h


def _explain(qm: Harness, *job_ids: int) -> dict[str, object]:
    return qm.call("job_query", {"user": ALICE.to_dict(), "job_ids": list(job_ids),
                                 "explain": True})


def test_schedd_job_info_decides_what_qstat_j_gets(qm: Harness) -> None:
    running, waiting, other = qm.submit(), qm.submit(), qm.submit()
    qm.dispatch(running)
    full = 'queue instance "all.q@h1" dropped because it is full'
    reply = _explain(qm, waiting, other)
    assert reply["scheduling_info"] == {waiting: [full], other: [full]}
    assert reply["scheduling_globals"] == []
    set_conf(qm, "sconf", schedd_job_info="false")
    reply = _explain(qm, waiting, other)
    assert reply["scheduling_info"] == {}
    assert reply["scheduling_globals"] == [TURNED_OFF]
    set_conf(qm, "sconf", schedd_job_info=f"job_list {other}")
    reply = _explain(qm, waiting, other)
    assert reply["scheduling_info"] == {other: [full]}
    assert reply["scheduling_globals"] == [NOT_EVERY_JOB]


@pytest.mark.parametrize("value, refusal", [("maybe", BAD_PARAMETER),
                                            ("job_list x", BAD_JOB_LIST)])
def test_a_bad_value_is_refused_at_msconf(qm: Harness, value: str, refusal: str) -> None:
    with pytest.raises(Exception, match=refusal):
        set_conf(qm, "sconf", schedd_job_info=value)
    conf = dict(qm.call("conf_get", {"user": ROOT.to_dict(), "kind": "sconf"})
                ["objects"]["global"])
    assert conf["schedd_job_info"] == "true"


def test_tsm_appends_a_run_log_of_now(qm: Harness) -> None:
    set_conf(qm, "sconf", maxujobs="1")
    first, second = qm.submit(), qm.submit()
    qm.dispatch(first)
    reply = qm.call("trigger_monitor", {"user": ROOT.to_dict()})
    assert reply["message"] == f"root@{ROOT.host} triggers scheduler monitoring"
    qm.call("trigger_monitor", {"user": ROOT.to_dict()})
    path = qm.server.cell.common_dir / "schedd_runlog"
    lines = [line.split("|", 1)[1] for line in path.read_text().splitlines()]
    run = lines[:len(lines) // 2]
    assert lines == run + run  # appended per request
    assert run[0] == "-------------START-SCHEDULER-RUN-------------"
    assert run[1].startswith(f"JOB {first}.1 [1] in queue all.q@h1 increased absolute lc "
                             "of host h1 by ")
    assert run[2:] == [f"Job {second} job dropped because of user limitations",
                       "no pending jobs to perform scheduling on",
                       f"Job {second} job dropped because of user limitations",
                       "--------------STOP-SCHEDULER-RUN-------------"]
    assert oct(path.stat().st_mode & 0o777) == "0o644"


def test_tsm_needs_a_manager(qm: Harness) -> None:
    with pytest.raises(RuntimeError, match="^starting scheduler monitoring requires "
                                           "manager privileges$"):
        qm.call("trigger_monitor", {"user": ALICE.to_dict()})
    assert not (qm.server.cell.common_dir / "schedd_runlog").exists()


def test_tsm_writes_through_no_planted_link(qm: Harness, tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    runlog = qm.server.cell.common_dir / "schedd_runlog"
    runlog.symlink_to(victim)
    with pytest.raises(RuntimeError, match="cannot write the scheduler run log"):
        qm.call("trigger_monitor", {"user": ROOT.to_dict()})
    runlog.unlink()
    os.link(victim, runlog)  # a second name of a file the qmaster may write
    with pytest.raises(RuntimeError, match="more than one name"):
        qm.call("trigger_monitor", {"user": ROOT.to_dict()})
    runlog.unlink()
    os.mkfifo(runlog)  # would block a plain open for writing
    with pytest.raises(RuntimeError, match="cannot write the scheduler run log"):
        qm.call("trigger_monitor", {"user": ROOT.to_dict()})
    assert victim.read_text() == "keep\n"


def test_a_run_log_explains_a_bounded_number_of_jobs(qm: Harness,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from qmaster import sched_monitor
    monkeypatch.setattr(sched_monitor, "MAX_LISTED_JOBS", 2)
    running, *waiting = [qm.submit() for _ in range(4)]
    qm.dispatch(running)
    lines = sched_monitor.monitor_lines(qm.server.store, time.time())
    full = 'queue instance "all.q@h1" dropped because it is full'
    assert lines[2:] == [f"Job {waiting[0]} {full}", f"Job {waiting[1]} {full}",
                         "1 more pending jobs are not listed: a run log lists the first 2",
                         "--------------STOP-SCHEDULER-RUN-------------"]


# ------------------------------------------------------------------ qconf -tsm's words

class _TsmClient:
    def __init__(self, refusal: tuple[str, str] | None = None) -> None:
        self.refusal = refusal

    def trigger_monitor(self) -> dict[str, str]:
        if self.refusal:
            raise ClientError(*self.refusal)
        return {"message": "root@vm triggers scheduler monitoring"}


@pytest.mark.parametrize("refusal, stderr, status", [
    (None, "root@vm triggers scheduler monitoring\n", 0),  # g7-qconf-tsm
    # 8.1.9's refusal is a warning: qconf prints it and exits 0
    (("denied", "starting scheduler monitoring requires manager privileges"),
     "starting scheduler monitoring requires manager privileges\n", 0),
    (("error", "cannot write the scheduler run log /x: is not a regular file"),
     "cannot write the scheduler run log /x: is not a regular file\n", 1)])
def test_qconf_tsm_prints_the_answer_on_stderr(refusal: tuple[str, str] | None, stderr: str,
                                               status: int,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    from clients.qconf.main import Session, run as qconf_run
    client = _TsmClient(refusal)
    assert qconf_run(["-tsm"], Session(lambda: client)) == status
    assert capsys.readouterr() == ("", stderr)
