"""DRMAA's pure parts: the channel's framing, job templates (attributes, placeholders,
start times, the qsub command line), states and status words, and a session's calls
on a fake cell. The texts are 8.1.9's libdrmaa's (tests/data/reference/drmaa)."""
from __future__ import annotations

import datetime as dt
import json
import threading
from pathlib import Path
from typing import Any, Mapping

import pytest
from hypothesis import given, strategies as st

from clients.drmaa import errors, framing, status, template
from clients.drmaa.errors import DrmaaError
from clients.drmaa.reaper import ends_of
from clients.drmaa.session import Finished, Session, parse_job_id
from clients.drmaa.template import JobTemplate, qsub_argv
from clients.qsub.options import parse_qsub

CAPTURE = json.loads((Path(__file__).parents[1] / "data" / "reference" / "drmaa" /
                      "capture.json").read_text())
NOW = dt.datetime(2026, 11, 28, 9, 30, 0, tzinfo=dt.timezone.utc)


def message(case: str) -> str:
    """A captured error's diagnosis (python-drmaa's text less its "code N: ")."""
    return CAPTURE[case]["message"].split(": ", 1)[1] if ": " in CAPTURE[case]["message"] \
        else ""


# ---- framing ---------------------------------------------------------------------------
@given(st.lists(st.binary(max_size=64), max_size=8))
def test_frames_round_trip_in_any_pieces(fields: list[bytes]) -> None:
    frame = framing.encode(fields)
    buffer = bytearray()
    for i in range(len(frame) - 1):  # (byte by byte: never whole before the last)
        buffer.append(frame[i])
        assert framing.split(buffer) is None
    buffer += frame[-1:] + frame
    assert framing.split(buffer) == fields
    assert framing.split(buffer) == fields and not buffer


def test_a_malformed_frame_is_refused() -> None:
    with pytest.raises(framing.FrameError):
        framing.split(bytearray(b"\x00\x00\x00\x03\x00\x00\x09"))
    with pytest.raises(framing.FrameError):
        framing.split(bytearray((framing.MAX_FRAME + 1).to_bytes(4, "big")))


def test_an_answer_carries_code_diagnosis_and_results() -> None:
    assert framing.split(bytearray(framing.answer(18, "no job", ["a", "é"]))) == \
        [b"18", b"no job", b"a", "é".encode()]


# ---- templates ---------------------------------------------------------------------------
def test_attribute_names_are_8_1_9s_but_submit_as_euid() -> None:
    assert sorted(template.ATTRIBUTE_NAMES) == \
        [n for n in CAPTURE["attribute_names"] if n != "drmaa_submit_as_euid"]
    assert sorted(template.VECTOR_ATTRIBUTE_NAMES) == CAPTURE["vector_attribute_names"]


@pytest.mark.parametrize("name,value,case,code", [
    (template.JS_STATE, "nonsense", "bad_js_state", errors.INVALID_ATTRIBUTE_VALUE),
    (template.JOIN_FILES, "maybe", "bad_join", errors.INVALID_ATTRIBUTE_VALUE),
    ("no_such_attr", "x", "set_bad_attribute", errors.INVALID_ARGUMENT),
    ("drmaa_wct_hlimit", "1:00:00", "set_bad_attribute", errors.INVALID_ARGUMENT),
])
def test_values_refused_as_8_1_9_refuses_them(name: str, value: str, case: str,
                                              code: int) -> None:
    with pytest.raises(DrmaaError) as caught:
        JobTemplate().set(name, value)
    assert (caught.value.code, caught.value.text) == (code, message(case))


def test_an_unset_attribute_has_no_value() -> None:
    with pytest.raises(DrmaaError) as caught:
        JobTemplate().get(template.JOB_NAME)
    assert caught.value.code == errors.INVALID_ATTRIBUTE_VALUE
    assert caught.value.text == message("get_unset_attribute")


def test_env_entries_must_be_name_value() -> None:
    jt = JobTemplate()
    with pytest.raises(DrmaaError) as caught:
        jt.set_vector(template.V_ENV, ["A=1", "B"])
    assert caught.value.code == errors.INVALID_ATTRIBUTE_FORMAT
    jt.set_vector(template.V_ENV, ["A=1,2", "B=x=y"])
    assert template.environment(jt) == {"A": "1,2", "B": "x=y"}


def parsed(jt: JobTemplate, bulk: tuple[int, int, int] | None = None) -> Any:
    argv = qsub_argv(jt, home="/home/u", now=NOW, bulk=bulk)
    return parse_qsub(argv, script_text=None, cwd="/tmp", environ={}, home="/home/u")


def full_template() -> JobTemplate:
    jt = JobTemplate()
    for name, value in [(template.REMOTE_COMMAND, "/bin/sh"), (template.JOB_NAME, "drm"),
                        (template.JS_STATE, "drmaa_hold"), (template.JOIN_FILES, "y"),
                        (template.WD, "$drmaa_hd_ph$/work"), (template.BLOCK_EMAIL, "1"),
                        (template.OUTPUT_PATH, ":$drmaa_wd_ph$/out.$drmaa_incr_ph$"),
                        (template.ERROR_PATH, "otherhost:/tmp/err"),
                        (template.INPUT_PATH, ":$drmaa_hd_ph$/in"),
                        (template.START_TIME, "2027/01/02 03:04:05 +01:00"),
                        (template.NATIVE_SPECIFICATION, "-m be")]:
        jt.set(name, value)
    jt.set_vector(template.V_ARGV, ["-c", "echo 'a b'; exit 3"])
    jt.set_vector(template.V_EMAIL, ["a@x", "b@y"])
    return jt


def test_a_template_is_the_qsub_command_line_it_stands_for() -> None:
    opts = parsed(full_template(), bulk=(1, 9, 2))
    assert (opts.binary, opts.use_shell) == (True, False)  # 8.1.9: binary,noshell
    assert opts.script_path == "/bin/sh" and opts.script_args == ["-c", "echo 'a b'; exit 3"]
    assert (opts.job_name, opts.hold, opts.merge_output) == ("drm", True, True)
    assert opts.cwd == "/home/u/work"
    assert opts.stdout_paths == ["/home/u/work/out.$TASK_ID"]
    assert opts.stderr_paths == ["otherhost:/tmp/err"]
    assert opts.stdin_paths == ["/home/u/in"]
    assert opts.mail_options == "" and opts.mail_list == ["a@x", "b@y"]  # (-m be blocked)
    assert tuple(opts.array) == (1, 9, 2)
    assert opts.start_time == "202701020204.05"  # 03:04:05 at +01:00, in UTC (NOW's zone)


def test_a_single_jobs_index_placeholder_is_undefined() -> None:
    jt = JobTemplate()
    jt.set(template.REMOTE_COMMAND, "/bin/true")
    jt.set(template.OUTPUT_PATH, ":/tmp/o.$drmaa_incr_ph$")
    assert parsed(jt).stdout_paths == ["/tmp/o.undefined"]


def test_the_native_specification_is_read_by_qsubs_parser() -> None:
    jt = JobTemplate()
    jt.set(template.REMOTE_COMMAND, "job.sh")
    jt.set(template.NATIVE_SPECIFICATION, "-b n -l h_rt=0:10:0 -q all.q -N native")
    jt.set(template.JOB_NAME, "attribute")
    argv = qsub_argv(jt, home="/h", now=NOW)
    opts = parse_qsub(argv, script_text="#!/bin/sh\n", cwd="/tmp", environ={}, home="/h")
    assert not opts.binary and opts.hard_resources == {"h_rt": "0:10:0"}
    assert opts.hard_queues == ["all.q"] and opts.job_name == "attribute"


def test_a_native_specification_names_no_command() -> None:
    jt = JobTemplate()
    jt.set(template.REMOTE_COMMAND, "/bin/echo")
    jt.set_vector(template.V_ARGV, ["a"])
    jt.set(template.NATIVE_SPECIFICATION, "-N x other")
    opts = parsed(jt)
    with pytest.raises(DrmaaError) as caught:
        template.check_command(template.command_line(jt), opts.script_path, opts.script_args)
    assert caught.value.code == errors.DENIED_BY_DRM and '"other"' in caught.value.text


def test_no_remote_command_is_8_1_9s_refusal() -> None:
    with pytest.raises(DrmaaError) as caught:
        qsub_argv(JobTemplate(), home="/h", now=NOW)
    assert (caught.value.code, caught.value.text) == (errors.DENIED_BY_DRM,
                                                      message("run_no_command"))


@pytest.mark.parametrize("value,expected", [
    ("10:15", "202611281015.00"), ("10:15:30", "202611281015.30"),
    ("29 10:15", "202611291015.00"), ("12/29 10:15", "202612291015.00"),
    ("27/01/05 00:00", "202701050000.00"), ("2030/01/05 00:00 -02:30", "203001050230.00")])
def test_start_times(value: str, expected: str) -> None:
    assert template.start_time_argument(value, NOW) == expected


VALUES = json.loads((Path(__file__).parents[1] / "data" / "reference" / "drmaa" /
                     "capture_values.json").read_text())


@pytest.mark.parametrize("name,value", [
    (template.BLOCK_EMAIL, "1"), (template.BLOCK_EMAIL, "0"), (template.BLOCK_EMAIL, "y"),
    (template.BLOCK_EMAIL, "maybe"), (template.START_TIME, "tomorrow"),
    (template.START_TIME, "10:15"), (template.JOB_CATEGORY, "no_such_category")])
def test_values_judged_when_the_job_runs_as_8_1_9_judges_them(name: str, value: str) -> None:
    """8.1.9 takes these values as they are set and refuses a bad one at drmaa_run_job."""
    jt = JobTemplate()
    jt.set(template.REMOTE_COMMAND, "/bin/true")
    jt.set(name, value)  # (never refused here: "set ..." is ok in the capture)
    assert VALUES[f"set {name}={value}"] == {"ok": None}
    expected = VALUES[f"run {name}={value}"]
    if "ok" in expected:
        parsed(jt)
        return
    with pytest.raises(DrmaaError) as caught:
        qsub_argv(jt, home="/h", now=NOW)
    assert (caught.value.code, f"code 17: {caught.value.text}") == \
        (errors.DENIED_BY_DRM, expected["message"])


@pytest.mark.parametrize("value", ["10", "1:5", "2026/13/01 10:00"])
def test_bad_start_times(value: str) -> None:
    with pytest.raises(DrmaaError) as caught:
        template.start_time_argument(value, NOW)
    assert caught.value.text == template.BAD_DATE


def test_bulk_ranges_are_checked() -> None:
    template.check_bulk(1, 1, 1)
    for bad in [(0, 3, 1), (3, 1, 1), (1, 3, 0)]:
        with pytest.raises(DrmaaError) as caught:
            template.check_bulk(*bad)
        assert caught.value.text == message("bulk_bad_range")


# ---- states and status words -------------------------------------------------------------
@pytest.mark.parametrize("task,state", [
    ({"state": "pending"}, status.QUEUED_ACTIVE),
    ({"state": "hold", "holds": ["u"]}, status.USER_ON_HOLD),
    ({"state": "hold", "holds": ["s"]}, status.SYSTEM_ON_HOLD),
    ({"state": "hold", "holds": ["u", "o"]}, status.USER_SYSTEM_ON_HOLD),
    ({"state": "running"}, status.RUNNING), ({"state": "transferring"}, status.RUNNING),
    ({"state": "suspended", "suspend_reasons": ["job"]}, status.USER_SUSPENDED),
    ({"state": "suspended", "suspend_reasons": ["queue"]}, status.SYSTEM_SUSPENDED),
    ({"state": "suspended", "suspend_reasons": ["job", "threshold"]},
     status.USER_SYSTEM_SUSPENDED),
    ({"state": "error"}, status.FAILED),
    ({"state": "finished", "exit_status": 3}, status.DONE),
    ({"state": "finished", "exit_status": 137, "deleted_by": "u"}, status.FAILED),
])
def test_job_states(task: dict[str, Any], state: int) -> None:
    assert status.job_state(task) == state


def flags(word: int) -> dict[str, Any]:
    return {"hasExited": bool(word & status.EXITED), "hasSignal": bool(word & status.SIGNALED),
            "wasAborted": bool(word & status.ABORTED),
            "hasCoreDump": bool(word & status.COREDUMP),
            "exitStatus": word >> 8 & 0xff}


def test_status_words_are_8_1_9s() -> None:
    exited, ran = status.status_word({"exit_status": 3, "started": True})
    captured = CAPTURE["info_exit3"]
    assert ran and flags(exited) == {k: captured[k] for k in flags(exited)}
    killed, ran = status.status_word({"exit_status": 137, "signal": 9, "deleted": True,
                                      "started": True})
    captured = CAPTURE["info_terminated_running"]
    assert ran and flags(killed) == {k: captured[k] for k in flags(killed)}
    never, ran = status.status_word({"exit_status": None, "deleted": True, "started": False})
    assert not ran and never == status.ABORTED  # drmaa_wait: NO_RUSAGE
    signaled, ran = status.status_word({"exit_status": 139, "signal": 11, "started": True})
    assert signaled == status.SIGNALED | 11 << 16


def test_usage_lines_name_8_1_9s_figures() -> None:
    task = {"task_id": 1, "start_time": 100.0, "end_time": 104.5,
            "usage": {"cpu": 1.25, "ru_utime": 1.0, "maxvmem": 4096, "ended_by": "x"}}
    lines = status.usage_lines(task, {"exit_status": 3, "signal": 0}, 99.0)
    names = [line.split("=")[0] for line in lines]
    assert set(names) <= set(CAPTURE["rusage_keys"])
    assert "cpu=1.2500" in lines and "ru_wallclock=4.5000" in lines
    assert "exit_status=3.0000" in lines and "submission_time=99.0000" in lines
    assert names == [n for n in status.RUSAGE_NAMES if n in names]


def test_ends_of_a_bulk_job() -> None:
    results = [{"task_id": 1, "exit_status": 0, "signal": 0, "failed": 0, "deleted": False,
                "started": True},
               {"task_id": 2, "exit_status": None, "signal": 0, "failed": 0,
                "deleted": True, "started": False}]
    ends = ends_of(results, [{"task_id": 1, "usage": {"cpu": 0.5}}], 10.0)
    assert ends[1].word == status.EXITED and "cpu=0.5000" in (ends[1].usage or [])
    assert ends[2].usage is None and ends[2].state == status.FAILED


# ---- a session on a fake cell -------------------------------------------------------------
class FakeCell:
    def __init__(self) -> None:
        self.next_id = 100
        self.submitted: list[tuple[list[str], Mapping[str, str]]] = []
        self.records: dict[int, list[dict[str, Any]]] = {}
        self.controls: list[tuple[int, int, int | None]] = []

    def submit(self, argv: list[str], env: Mapping[str, str], command: list[str]
               ) -> tuple[int, list[int]]:
        self.next_id += 1
        self.submitted.append((argv, env))
        tasks = [1, 2, 3] if "-t" in argv else [1]
        self.records[self.next_id] = [{"task_id": t, "state": "pending"} for t in tasks]
        return self.next_id, tasks

    def tasks(self, job_id: int) -> list[dict[str, Any]] | None:
        return self.records.get(job_id)

    def control(self, action: int, job_id: int, task_id: int | None) -> None:
        if job_id not in self.records:
            raise DrmaaError(errors.INVALID_JOB, errors.NO_SUCH_JOB)
        self.controls.append((action, job_id, task_id))


class Watched(list):
    def watch(self, job_id: int) -> None:
        self.append(job_id)

    def follow_tasks(self) -> None:
        self.append("follow")


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def new_session() -> tuple[Session, FakeCell, Watched]:
    cell, watched = FakeCell(), Watched()
    return Session(cell, watched, home="/h", clock=Clock(), now=lambda: NOW), cell, watched


def call(session: Session, name: str, *args: str) -> tuple[int, str, list[str]]:
    return session.handle(name, list(args))


def submitted(session: Session, bulk: bool = False) -> list[str]:
    [handle] = call(session, "jt_new")[2]
    assert call(session, "set", handle, template.REMOTE_COMMAND, "/bin/true")[0] == 0
    if bulk:
        return call(session, "run_bulk", handle, "1", "3", "1")[2]
    return call(session, "run", handle)[2]


EXIT0 = Finished(status.EXITED, ["cpu=0.0000"], status.DONE)


def test_a_job_runs_ends_and_is_reaped_once() -> None:
    session, cell, watched = new_session()
    [job] = submitted(session)
    assert job == "101" and watched == [101]
    assert call(session, "job_ps", job) == (0, "", [str(status.QUEUED_ACTIVE)])
    assert call(session, "wait", job, "0") == (errors.EXIT_TIMEOUT, message("wait_timeout"),
                                               [])
    session.job_finished(101, {1: EXIT0})
    assert call(session, "job_ps", job) == (0, "", [str(status.DONE)])
    assert call(session, "wait", job, "-1") == (0, "", ["101", "1", "cpu=0.0000"])
    assert call(session, "wait", job, "0")[:2] == (errors.INVALID_JOB, message("wait_again"))
    assert call(session, "job_ps", job)[:2] == (errors.INVALID_JOB,
                                                message("ps_after_reaped"))


def test_wait_for_any_and_a_job_that_never_ran() -> None:
    session, cell, _ = new_session()
    assert call(session, "wait", "DRMAA_JOB_IDS_SESSION_ANY", "0")[0] == errors.INVALID_JOB
    submitted(session)
    session.job_finished(101, {1: Finished(status.ABORTED, None, status.FAILED)})
    assert call(session, "wait", "DRMAA_JOB_IDS_SESSION_ANY", "5") == \
        (errors.NO_RUSAGE, message("wait_terminated_pending"), ["101", str(status.ABORTED)])


def test_a_wait_ends_when_another_thread_reports_the_end() -> None:
    session, cell, _ = new_session()
    [job] = submitted(session)
    answers: list[Any] = []
    waiter = threading.Thread(target=lambda: answers.append(call(session, "wait", job, "-1")))
    waiter.start()
    session.job_finished(101, {1: EXIT0})
    waiter.join(30)
    assert answers == [(0, "", ["101", "1", "cpu=0.0000"])]


def test_a_timeout_that_expires_is_exit_timeout() -> None:
    session, cell, _ = new_session()
    [job] = submitted(session)
    clock = session._clock
    assert isinstance(clock, Clock)
    def later() -> None:  # the clock moves past the deadline; the waiter wakes up
        clock.now = 10.0
        with session._changed:
            session._changed.notify_all()
    ticker = threading.Timer(0.05, later)
    ticker.start()
    code, text, _ = call(session, "wait", job, "2")
    ticker.join()
    assert (code, text) == (errors.EXIT_TIMEOUT, message("wait_timeout"))


def test_bulk_jobs_are_waited_for_task_by_task() -> None:
    session, cell, _ = new_session()
    ids = submitted(session, bulk=True)
    assert ids == ["101.1", "101.2", "101.3"]
    assert "-t" in cell.submitted[0][0]
    assert call(session, "synchronize", "0", "0", *ids)[0] == errors.EXIT_TIMEOUT
    session.job_finished(101, {t: EXIT0 for t in (1, 2, 3)})
    assert call(session, "synchronize", "0", "0", *ids) == (0, "", [])
    assert call(session, "wait", "101.2", "0")[2][0] == "101.2"
    assert call(session, "wait", "DRMAA_JOB_IDS_SESSION_ANY", "0")[2][0] == "101.1"
    assert call(session, "synchronize", "0", "1", "DRMAA_JOB_IDS_SESSION_ALL") == (0, "", [])
    assert call(session, "wait", "101.3", "0")[0] == errors.INVALID_JOB
    assert call(session, "wait", "101", "0")[0] == errors.INVALID_JOB  # (a bulk job's id)


def test_a_bulk_jobs_tasks_end_one_by_one() -> None:
    from clients.drmaa.reaper import task_end
    session, cell, watched = new_session()
    ids = submitted(session, bulk=True)
    assert watched == ["follow", 101]  # (subscribed before the job was submitted)
    event = {"kind": "task", "op": "put", "state": "finished", "job_id": 101, "task_id": 2,
             "exit_status": 4, "signal": 0, "failed": 0, "deleted_by": None,
             "start_time": 10.0, "end_time": 12.5}
    end = task_end(event)
    assert end is not None and "ru_wallclock=2.5000" in (end.usage or [])
    assert task_end({**event, "state": "running"}) is None
    session.task_finished(101, 2, end)
    assert call(session, "wait", "DRMAA_JOB_IDS_SESSION_ANY", "0")[2][:2] == \
        ["101.2", str(status.EXITED | 4 << 8)]
    assert call(session, "wait", ids[0], "0")[0] == errors.EXIT_TIMEOUT
    session.task_finished(101, 2, EXIT0)  # (reaped: the job's answer changes nothing)
    session.job_finished(101, {t: EXIT0 for t in (1, 2, 3)})
    assert call(session, "synchronize", "0", "1", ids[0], ids[2]) == (0, "", [])
    assert call(session, "wait", ids[1], "0")[0] == errors.INVALID_JOB
    assert call(session, "job_ps", "101")[0] == errors.INVALID_JOB  # (all reaped)


def test_a_large_bulk_job_is_reaped_task_by_task_in_the_order_they_ended() -> None:
    """Each wait costs what it names, not the session's size (a 20,000-task bulk job
    reaped with DRMAA_JOB_IDS_SESSION_ANY: every task once, in the order they ended)."""
    session, cell, _ = new_session()
    cell.submit = lambda argv, env, command: (7, list(range(1, 20_001)))  # type: ignore
    [handle] = call(session, "jt_new")[2]
    call(session, "set", handle, template.REMOTE_COMMAND, "/bin/true")
    ids = call(session, "run_bulk", handle, "1", "20000", "1")[2]
    assert len(ids) == 20_000
    for task in range(20_000, 0, -1):
        session.task_finished(7, task, EXIT0)
    reaped = [call(session, "wait", "DRMAA_JOB_IDS_SESSION_ANY", "0")[2][0]
              for _ in range(20_000)]
    assert reaped == [f"7.{t}" for t in range(20_000, 0, -1)]
    assert call(session, "wait", "DRMAA_JOB_IDS_SESSION_ANY", "0")[0] == errors.INVALID_JOB


def test_control_names_jobs_tasks_and_the_whole_session() -> None:
    session, cell, _ = new_session()
    [job] = submitted(session)
    ids = submitted(session, bulk=True)
    assert call(session, "control", ids[1], "0") == (0, "", [])
    assert call(session, "control", "DRMAA_JOB_IDS_SESSION_ALL", "4") == (0, "", [])
    assert cell.controls == [(0, 102, 2), (4, 101, None), (4, 102, None)]
    assert call(session, "control", "555", "4")[0] == errors.INVALID_JOB
    assert call(session, "control", job, "9")[0] == errors.INVALID_ARGUMENT


def test_job_ids_that_are_no_job_ids() -> None:
    assert parse_job_id("17") == (17, None) and parse_job_id("17.4") == (17, 4)
    session, _, _ = new_session()
    assert call(session, "job_ps", "abc")[:2] == (errors.INVALID_ARGUMENT,
                                                  message("ps_garbage"))
    assert call(session, "job_ps", "999999")[:2] == (errors.INVALID_JOB,
                                                     message("ps_unknown"))


def test_templates_come_and_go() -> None:
    session, _, _ = new_session()
    [handle] = call(session, "jt_new")[2]
    assert call(session, "setv", handle, template.V_ARGV, "a", "b") == (0, "", [])
    assert call(session, "getv", handle, template.V_ARGV) == (0, "", ["a", "b"])
    assert call(session, "set", handle, template.JOB_NAME, "n") == (0, "", [])
    assert call(session, "get", handle, template.JOB_NAME) == (0, "", ["n"])
    assert call(session, "names")[2] == list(template.ATTRIBUTE_NAMES)
    assert call(session, "jt_delete", handle) == (0, "", [])
    assert call(session, "get", handle, template.JOB_NAME)[0] == errors.INVALID_ARGUMENT
    assert call(session, "no_such_call")[0] == errors.INTERNAL_ERROR
    assert call(session, "get", handle)[0] == errors.INVALID_ARGUMENT  # (too few fields)


# ---- the reaper on a fake connection -------------------------------------------------------
class FakeWaits:
    """A WaitChannel and a query Client in one: the waits sent, the answers to give."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, int]] = []   # (request id, job id)
        self.answers: list[tuple[str, int, dict[str, Any]]] = []
        self.closed = False

    def send_wait(self, job_id: int) -> int:
        self.sent.append((len(self.sent) + 1, job_id))
        return len(self.sent)

    def next_answer(self, timeout: float) -> tuple[str, int, dict[str, Any]] | None:
        return self.answers.pop(0) if self.answers else None

    def jobs(self, job_ids: list[int], include_finished: bool) -> dict[str, Any]:
        return {"jobs": [{"submit_time": 5.0}],
                "tasks": [{"task_id": 1, "usage": {"cpu": 2.0}}]}

    def close(self) -> None:
        self.closed = True


def reaper_on(fakes: list[FakeWaits], reported: list[Any]) -> Any:
    from clients.drmaa.reaper import ReaperThread
    clock = Clock()
    reaper = ReaperThread(lambda cls: fakes.pop(0),
                          lambda job, ends: reported.append((job, ends)), clock)
    return reaper, clock


def test_the_reaper_waits_once_per_job_and_reports_its_end() -> None:
    first, query = FakeWaits(), FakeWaits()
    reported: list[Any] = []
    reaper, clock = reaper_on([first, query], reported)
    reaper.watch(7)
    reaper.watch(8)
    reaper.step()
    assert first.sent == [(1, 7), (2, 8)]
    first.answers.append(("reply", 2, {"jobs": {"8": [{"task_id": 1, "exit_status": 2,
                                                       "signal": 0, "started": True}]}}))
    reaper.step()
    [(job, ends)] = reported
    assert job == 8 and ends[1].word == status.EXITED | 2 << 8
    assert "cpu=2.0000" in ends[1].usage and "submission_time=5.0000" in ends[1].usage
    # refused waits are sent again one at a time: after a while when none of ours is
    # outstanding, else when one of ours is answered
    first.answers.append(("error", 1, {"code": "denied", "message": "too many"}))
    reaper.step()
    reaper.watch(9)
    first.answers.append(("error", 3, {"code": "denied", "message": "too many"}))
    reaper.step()
    reaper.step()
    assert first.sent == [(1, 7), (2, 8), (3, 9)]
    clock.now = 1.0
    reaper.step()
    reaper.step()
    assert first.sent[3:] == [(4, 7)]  # (one, not both)
    first.answers.append(("reply", 4, {"jobs": {"7": []}}))
    reaper.step()
    assert first.sent[4:] == [(5, 9)] and [job for job, _ in reported] == [8, 7]


def test_the_reaper_sends_every_wait_again_on_a_new_connection() -> None:
    first, second, query = FakeWaits(), FakeWaits(), FakeWaits()
    reaper, _ = reaper_on([first, second, query], [])
    for job in (3, 4):
        reaper.watch(job)
    reaper.step()
    reaper._drop()  # (what run does when the connection failed)
    assert first.closed
    reaper.step()
    assert sorted(job for _, job in second.sent) == [3, 4]


# ---- the backend's reading of the qmaster's answers ---------------------------------------
class FakeClient:
    """What ClientBackend.control asks of a Client: canned answers."""

    def __init__(self, results: list[dict[str, Any]], answers: list[dict[str, Any]]) -> None:
        from clients.api import User
        self.user = User("me", 1000, "me", 1000, "host")
        self.results, self.answers = results, answers

    def delete(self, targets: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return self.results

    hold = release = lambda self, targets, hold_type: self.results  # noqa: E731

    def request(self, msg_type: str, body: dict[str, Any]) -> dict[str, Any]:
        assert msg_type == "qmod" and body["items"][0]["scope"] == "job"
        return {"answers": self.answers}


@pytest.mark.parametrize("action,results,answers,code", [
    (4, [{"job_id": 5, "result": "denied", "owner": "other"}], [], errors.AUTH_FAILURE),
    (2, [{"job_id": 5, "result": "denied", "owner": "other"}], [], errors.AUTH_FAILURE),
    (4, [{"target": {"job_id": 5}, "result": "unknown"}], [], errors.INVALID_JOB),
    (0, [], [{"text": 'me - you have no permission to modify job "5"', "error": True}],
     errors.AUTH_FAILURE),
    (0, [], [{"text": 'invalid queue or job "5"', "error": True}], errors.INVALID_JOB),
    (0, [], [{"text": "Modify operation can not be applied on job-array task 5.1 in "
                      "pending/hold state", "error": False}],
     errors.SUSPEND_INCONSISTENT_STATE),
    (1, [], [{"text": "me - job 5 is already unsuspended", "error": False}],
     errors.RESUME_INCONSISTENT_STATE),
])
def test_control_refusals(action: int, results: list[dict[str, Any]],
                          answers: list[dict[str, Any]], code: int) -> None:
    from clients.drmaa.backend import ClientBackend
    backend = ClientBackend(FakeClient(results, answers))  # type: ignore[arg-type]
    with pytest.raises(DrmaaError) as caught:
        backend.control(action, 5, None)
    assert caught.value.code == code


def test_control_that_is_done() -> None:
    from clients.drmaa.backend import ClientBackend
    backend = ClientBackend(FakeClient([{"job_id": 5, "result": "deleted"}],  # type: ignore[arg-type]
                                       [{"text": "me - suspended job 5"}]))
    backend.control(4, 5, None)
    backend.control(0, 5, None)


# ---- nothing the program sends ends the agent ---------------------------------------------
CALL_NAMES = st.sampled_from(["jt_new", "jt_delete", "set", "get", "setv", "getv", "names",
                              "vector_names", "run", "run_bulk", "job_ps", "control", "wait",
                              "synchronize", "nonsense", ""])
FIELDS = st.lists(st.one_of(st.sampled_from(["1", "0", "-1", "101", "101.2", "abc",
                                             "DRMAA_JOB_IDS_SESSION_ANY",
                                             "DRMAA_JOB_IDS_SESSION_ALL",
                                             *template.ATTRIBUTE_NAMES,
                                             *template.VECTOR_ATTRIBUTE_NAMES]),
                            st.text(max_size=12)), max_size=5)


@given(st.lists(st.tuples(CALL_NAMES, FIELDS), max_size=12))
def test_any_calls_get_an_answer(calls: list[tuple[str, list[str]]]) -> None:
    """Whatever the calls and their fields, each gets a DRMAA code (waits: at once)."""
    session, _, _ = new_session()
    submitted(session)
    for name, fields in calls:
        if name in ("wait", "synchronize") and len(fields) > 1:
            fields = [fields[0], "0", *fields[2:]] if name == "wait" else ["0", *fields[1:]]
        code, text, results = session.handle(name, fields)
        assert 0 <= code <= errors.NO_MORE_ELEMENTS and isinstance(text, str)
        assert all(isinstance(r, str) for r in results)


@given(st.dictionaries(st.sampled_from([template.JOB_NAME, template.OUTPUT_PATH,
                                        template.ERROR_PATH, template.INPUT_PATH,
                                        template.WD, template.NATIVE_SPECIFICATION,
                                        template.START_TIME]),
                       st.text(max_size=20)),
       st.lists(st.text(max_size=10), max_size=3))
def test_any_template_is_a_job_or_a_refusal(attrs: dict[str, str], args: list[str]) -> None:
    """A template becomes qsub's options or a DRMAA refusal or qsub's refusal (which the
    backend passes on as DENIED_BY_DRM), never anything else."""
    from clients.qsub.options import QsubError
    jt = JobTemplate()
    jt.set(template.REMOTE_COMMAND, "/bin/true")
    jt.set_vector(template.V_ARGV, args)
    for name, value in attrs.items():
        try:
            jt.set(name, value)
        except DrmaaError:
            continue
    try:
        opts = parsed(jt)
        template.check_command(template.command_line(jt), opts.script_path,
                               opts.script_args)  # (what the backend checks)
    except (DrmaaError, QsubError):
        return
    assert [opts.script_path, *opts.script_args] == ["/bin/true", *args]
    assert opts.binary or "-b" in attrs.get(template.NATIVE_SPECIFICATION, "")
