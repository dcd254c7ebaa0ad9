"""Pure parts of qconf, qdel, qhold and qrls: Grid Engine 8.1.9's error lines for object
files, the task id lists of qdel, the hold bookkeeping of qhold/qrls, the qmaster's
refusal texts."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clients.jobctl import JobView, format_task_ids, targets, usage_text
from clients.joblist import job_does_not_exist, parse_job_selection
from clients.qconf.main import QconfError, Session
from clients.qconf.main import run as qconf_run
from clients.qconf.files import FileError, parse_object_text, read_object_file
from clients.qconf.help import HELP, HELP_WITH_FMT
from clients.qdel import result_lines, unknown_line
from clients.qhold import HoldCommand, changed_tasks, split_hold_types
from common.objects_conf import render_object, template
from qmaster.conf.requests import already_exists, does_not_exist


def _text(kind: str, name: str, extra: str = "", drop: str = "") -> str:
    text = render_object(kind, template(kind, name)) + "\n" + extra
    return "".join(ln + "\n" for ln in text.splitlines() if not drop or not ln.startswith(drop))


def _lines(kind: str, text: str, path: str = "/f", modify: bool = False) -> list[str]:
    with pytest.raises(FileError) as err:
        parse_object_text(kind, text, path, modify=modify)
    return err.value.lines


# ---- qconf object files ---------------------------------------------------------------
def test_queue_file_errors() -> None:
    assert _lines("queue", _text("queue", "q", "bogus_attr 1\n")) == [
        'error: unknown attribute name "bogus_attr"', 'error: error reading file: "/f"']
    slots = _text("queue", "q").replace("slots                 1", "slots abc")
    assert _lines("queue", slots) == [
        'error: error parsing unsigned long value from string "abc"',
        'error: Error during parsing of attribute value "abc"', 'error: error reading file: "/f"']
    assert _lines("queue", _text("queue", "q", drop="seq_no")) == [
        'error: required attribute "seq_no" is missing']


def test_pe_exechost_and_hostgroup_trailers() -> None:
    assert _lines("pe", _text("pe", "p", drop="urgency_slots")) == [
        'error: required attribute "urgency_slots" is missing', "error reading in file"]
    slots = _text("pe", "p").replace("slots              0", "slots abc")
    assert _lines("pe", slots) == ['error: error parsing unsigned long value from string "abc"',
                                   'error: error reading file: "/f"', "error reading in file"]
    assert _lines("exechost", _text("exechost", "h", "load_medium 1\n")) == [
        'error: unknown attribute name "load_medium"', 'error: error reading file: "/f"',
        "invalid format"]
    assert _lines("hostgroup", "group_name @g\nbogus 1\n", modify=True)[-1] == \
        'Host group file "/f" is not correct'
    assert _lines("hostgroup", "group_name @g\nbogus 1\n")[-1] == 'error: error reading file: "/f"'


def test_object_checks_come_without_the_reader_line() -> None:
    text = _text("pe", "p").replace("$pe_slots", "$weird")
    lines = _lines("pe", text)
    assert lines[0].startswith('error: parameter allocation_rule of pe "p"')
    assert lines[1:] == ["error reading in file"]


def test_file_that_cannot_be_opened(tmp_path: Path) -> None:
    path = str(tmp_path / "nope")
    with pytest.raises(FileError) as err:
        read_object_file("queue", path)
    assert err.value.lines == [
        f'error: error opening file "{path}" for reading: No such file or directory']
    (tmp_path / "ok").write_text(_text("queue", "ok.q"))
    assert dict(read_object_file("queue", str(tmp_path / "ok")))["qname"] == "ok.q"


def test_qmaster_refusal_texts() -> None:
    assert already_exists("queue", "all.q") == 'cluster queue "all.q" already exists'
    assert already_exists("exechost", "h") == 'exechost "h" already exists'
    assert does_not_exist("exechost", "h") == 'denied: execution host "h" does not exist'
    assert does_not_exist("hgrp", "@x") == 'denied: host group "@x" does not exist'
    assert does_not_exist("operator", "u") == 'denied: operator "u" does not exist'


# ---- qdel -------------------------------------------------------------------------------
@pytest.mark.parametrize("ids, text", [([2, 3], "2,3"), ([1, 4], "1,4"), ([5], "5"),
                                       ([3, 1, 2], "1-3:1"), ([1, 2, 3, 5, 6], "1-3:1,5,6")])
def test_task_id_lists(ids: list[int], text: str) -> None:
    assert format_task_ids(ids) == text


def _ids_of(text: str) -> set[int]:
    out: set[int] = set()
    for part in text.split(","):
        low, _, high = part.partition("-")
        out.update(range(int(low), int(high.split(":")[0] if high else low) + 1))
    return out


@given(st.sets(st.integers(1, 60), min_size=1))
def test_task_id_lists_name_exactly_the_ids(ids: set[int]) -> None:
    assert _ids_of(format_task_ids(sorted(ids))) == ids


def _view(job_id: int, owner: str = "me", name: str = "j", states: dict[int, str] | None = None,
          holds: dict[int, set[str]] | None = None, array: bool = False) -> JobView:
    states = states or {1: "pending"}
    return JobView(job_id, owner, name, array, states, holds or {t: set() for t in states})


def test_deletion_lines() -> None:
    views = {41: _view(41, states={1: "deleted"}), 42: _view(42, states={1: "running"}),
             4: _view(4, array=True, states={t: "pending" for t in range(1, 5)})}
    results: list[dict[str, Any]] = [
        {"job_id": 41, "task_id": None, "result": "registered"},
        {"job_id": 42, "task_id": None, "result": "registered"},
        {"job_id": 4, "task_id": 2, "result": "deleted"},
        {"job_id": 4, "task_id": 3, "result": "deleted"},
        {"job_id": 9, "task_id": None, "result": "deleted"}]
    assert result_lines("me", results, views) == ([
        "job 41 is already in deletion", "me has registered the job 42 for deletion",
        "me has deleted job-array tasks 2,3 of job 4", "me has deleted job 9"], False)
    one = [{"job_id": 4, "task_id": 2, "result": "deleted"},
           {"job_id": 7, "task_id": None, "result": "denied"}]
    assert result_lines("me", one, views) == ([
        "me has deleted job-array task 4.2",
        'me - you do not have the necessary privileges to delete the job "7"'], True)


def test_names_stand_for_the_callers_jobs() -> None:
    views = {1: _view(1, "me", "build"), 2: _view(2, "you", "build"), 3: _view(3, "me", "x")}
    [target] = targets(parse_job_selection(["build"]), "me", views)
    assert target.body == {"job_id": 1}
    [target] = targets(parse_job_selection(["-bogus"]), "me", views)
    assert target.unknown and unknown_line(target) == \
        "The job -bogus of user(s) me does not exist"
    found = targets(parse_job_selection(["-u", "you", "b*"]), "me", views)
    assert [t.body for t in found] == [{"job_id": 2}]
    [target] = targets(parse_job_selection(["-u", "nobody"]), "me", views)
    assert unknown_line(target) == \
        "There is no job registered for the following users: nobody"
    # qhold/qrls: 8.1.9's "qhold -u root" of no job (exit 3)
    assert job_does_not_exist(target.item, target.users) == \
        "The job * of user(s) nobody does not exist"


def test_usage_block() -> None:
    text = usage_text("qx", "   [-help]   help\n", "hold_list   u\n")
    assert text.startswith("SGE 8.1.9\nusage: qx [options] job_task_list\n   [-help]   help\n\n"
                           "hold_list   u\njob_task_list ")
    assert text.endswith("user_list               user[,user,...]\n")


# ---- qhold / qrls ---------------------------------------------------------------------
def test_hold_type_options() -> None:
    assert split_hold_types(["5"]) == (["u"], ["5"])
    assert split_hold_types(["-h", "uo", "-u", "me"]) == (["u", "o"], ["-u", "me"])
    for bad in (["-bogus"], ["-f", "5"], ["-h", "x", "5"]):
        with pytest.raises(ValueError, match='^qalter: invalid option argument "'):
            split_hold_types(bad)


def test_changed_tasks() -> None:
    view = _view(6, array=True, states={1: "hold", 2: "pending", 3: "finished"},
                 holds={1: {"u"}, 2: set(), 3: set()})
    assert changed_tasks(view, "u", add=True) == [2]
    assert changed_tasks(view, "u", add=False) == [1]
    assert changed_tasks(view, "u", add=True, selected=[1]) == []


class _FakeClient:
    """The little of ``Client`` a hold decision needs."""

    def __init__(self, user: str, operators: list[str]) -> None:
        self.user = SimpleNamespace(name=user)
        self.operators = operators

    def conf_get(self, kind: str) -> list[str]:
        return self.operators if kind == "operator" else []


def _decide(add: bool, hold: str, result: str, view: JobView,
            operators: tuple[str, ...] = ()) -> tuple[list[str], int]:
    command = HoldCommand([hold], add)
    answers = {hold: [{"job_id": view.job_id, "result": result, "task_ids": None}]}
    return command.decide(_FakeClient("me", list(operators)), view, view.job_id, answers)


def test_hold_decisions() -> None:
    mine = _view(5, holds={1: {"u"}}, states={1: "hold"})
    theirs = _view(1, owner="you", holds={1: {"u"}}, states={1: "hold"})
    assert _decide(True, "u", "modified", mine) == ([], 0)
    assert _decide(False, "u", "modified", mine) == (["modified hold of job 5"], 0)
    assert _decide(True, "u", "denied", theirs) == (
        ['denied: "me" must be at least owner of job 1 to change job attributes'], 18)
    assert _decide(True, "o", "denied", mine) == (
        ['denied: "me" must be operator to set operator hold'], 10)
    assert _decide(False, "o", "denied", mine) == ([], 0)  # nothing to remove
    assert _decide(True, "s", "denied", theirs, operators=("me",)) == (
        ['denied: "me" must be manager to set manager hold'], 10)


# ---- qconf command line (no qmaster needed) ----------------------------------------------
def _no_qmaster() -> Any:
    raise AssertionError("the command line alone decides this")


def test_qconf_command_line_errors(capsys: pytest.CaptureFixture[str]) -> None:
    session = Session(_no_qmaster)
    assert qconf_run([], session) == 1
    out, err = capsys.readouterr()
    assert out == "" and err == HELP + "ERROR! no option argument\n"
    assert qconf_run(["-sql", "-help"], session) == 0
    assert capsys.readouterr() == (HELP_WITH_FMT, "")  # 8.1.9's, then -fmt's line
    with pytest.raises(QconfError) as missing:
        qconf_run(["-Aq"], session)
    assert missing.value.message == f'error: no option argument provided to "-Aq"\n{HELP}'
    with pytest.raises(QconfError) as bogus:
        qconf_run(["-bogus"], session)
    assert bogus.value.message == 'error: invalid option argument "-bogus"\nUsage: qconf -help'
