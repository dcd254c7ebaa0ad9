"""Tests of clients.joblist: task ranges, job selections, qdel/qhold/qrls texts."""
from __future__ import annotations

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clients import joblist as jl
from clients.joblist import JobRef, RangeError

from tests.reference import REFERENCE

QDEL_OUT = """sgeuser has registered the job 95 for deletion
sgeuser has deleted job 96
sgeuser has registered the job-array task 97.1 for deletion
sgeuser has registered the job-array task 97.2 for deletion
sgeuser has deleted job 97
sgeuser has deleted job 78
"""


def range_error(spec: str, **kw: bool) -> str:
    with pytest.raises(RangeError) as info:
        jl.parse_task_range(spec, **kw)
    return info.value.message


# ---------------------------------------------------------------- ranges
@pytest.mark.parametrize("spec, expected", [
    ("3", (3, 3, 1)), ("1-3", (1, 3, 1)), ("5-1", (1, 5, 1)), ("1-10:2", (1, 10, 2)),
    ("UNDEFINED", None), ("1-", None), ("-", None),
])
def test_task_ranges(spec: str, expected: jl.TaskRange | None) -> None:
    assert jl.parse_task_range(spec) == expected


def test_open_ranges_where_allowed() -> None:
    assert jl.parse_task_range("2-", step_allowed=False, inf_allowed=True) == (2, 9999999, 1)
    assert jl.parse_task_range("-", step_allowed=False, inf_allowed=True) == (1, 9999999, 1)
    assert jl.parse_task_range("-4", step_allowed=False, inf_allowed=True) == (1, 4, 1)


def test_range_errors() -> None:
    assert range_error("abc") == ("Numerical value invalid!\nThe initial portion of "
                                  'string "abc" contains no decimal number')
    assert range_error("1-10:0") == "Negative or zero step in range is not allowed"
    assert range_error("1-10:-2") == "Negative or zero step in range is not allowed"
    assert range_error("2-4:2", step_allowed=False) == 'Range specifier "4:2" has unknown trailer ":2"'
    assert range_error("1-3x") == 'Range specifier "3x" has unknown trailer "x"'
    # Grid Engine's own quirk: "-m" is refused wherever a step is allowed
    assert range_error("-5") == 'Range specifier "-5" has unknown trailer "5"'


def test_range_lists() -> None:
    assert jl.parse_range_list("1-3,7") == [(1, 3, 1), (7, 7, 1)]
    assert jl.parse_range_list("UNDEFINED") == []
    with pytest.raises(RangeError, match='unexpected range following "UNDEFINED"'):
        jl.parse_range_list("UNDEFINED,3")


def test_correct_end_and_format() -> None:
    assert jl.correct_end((1, 9, 3)) == (1, 7, 3)
    assert jl.format_task_range((1, 10, 2)) == "1-10:2"
    assert list(jl.task_ids((1, 7, 3))) == [1, 4, 7]


@given(st.integers(1, 10**6), st.integers(0, 10**5), st.integers(1, 500))
def test_ranges_round_trip_through_format(first: int, span: int, step: int) -> None:
    task_range = (first, first + span, step)
    assert jl.parse_task_range(jl.format_task_range(task_range)) == task_range


@given(st.lists(st.tuples(st.integers(1, 999), st.integers(0, 99), st.integers(1, 9)),
                min_size=1, max_size=5))
def test_range_lists_round_trip(ranges: list[tuple[int, int, int]]) -> None:
    normal = [(a, a + b, s) for a, b, s in ranges]
    text = ",".join(jl.format_task_range(r) for r in normal)
    assert jl.parse_range_list(text) == normal


# ---------------------------------------------------------------- job selections
def test_job_refs() -> None:
    assert jl.parse_job_ref("95") == JobRef("95")
    assert jl.parse_job_ref("97.1-2") == JobRef("97", [(1, 2, 1)])
    assert jl.parse_job_ref("97.1-9:3") == JobRef("97", [(1, 7, 3)])
    assert jl.parse_job_ref("my_job") == JobRef("my_job")
    # Grid Engine's lenient trailer test reads "5.2" as the range 5-2
    assert jl.parse_job_ref("1.5.2") == JobRef("1", [(2, 5, 1)])
    assert jl.parse_job_ref("job*").is_id is False and jl.parse_job_ref("5").is_id


@pytest.mark.parametrize("item", ["5x", "5.x", "0", "5.", "1.-"])
def test_invalid_job_refs(item: str) -> None:
    with pytest.raises(RangeError) as info:
        jl.parse_job_ref(item)
    assert info.value.message == f'ERROR! "{item}" is an invalid job-task identifier'
    assert info.value.status == 2


def test_job_selection() -> None:
    sel = jl.parse_job_selection(["95,96", "97", "-t", "1-2", "all", "-u", "a,b", "-u", "c", "-f"])
    assert sel.refs == [JobRef("95"), JobRef("96"), JobRef("97", [(1, 2, 1)]), JobRef("all")]
    assert (sel.users, sel.force, sel.help) == (["a", "b", "c"], True, False)
    assert jl.parse_job_selection(["-help"]).help


def test_job_selection_errors() -> None:
    with pytest.raises(RangeError, match="found lonely '-t 1-2' option"):
        jl.parse_job_selection(["-t", "1-2"])
    with pytest.raises(RangeError, match="-t option must have a list of task id ranges"):
        jl.parse_job_selection(["5", "-t"])
    with pytest.raises(RangeError, match="-t option only allows one range specification"):
        jl.parse_job_selection(["5", "-t", "1-2,5"])


@given(st.lists(st.one_of(st.integers(1, 10**6).map(str),
                          st.text(string.ascii_letters + "_*", min_size=1, max_size=8)),
                min_size=1, max_size=6))
def test_job_lists_round_trip(items: list[str]) -> None:
    assert [r.target for r in jl.parse_job_selection([",".join(items)]).refs] == items
    assert jl.parse_wc_job_list(",".join(items)) == items


def test_wc_job_list_error() -> None:
    with pytest.raises(RangeError) as info:
        jl.parse_wc_job_list("")
    assert info.value.message == 'Wrong jid_hold list format "" specified to -hold_jid option'


# ---------------------------------------------------------------- messages
def test_reference_qdel_output() -> None:
    lines = [jl.registered_job_deletion("sgeuser", 95), jl.deleted_job("sgeuser", 96),
             jl.registered_task_deletion("sgeuser", 97, 1),
             jl.registered_task_deletion("sgeuser", 97, 2),
             jl.deleted_job("sgeuser", 97), jl.deleted_job("sgeuser", 78)]
    assert "\n".join(lines) + "\n" == QDEL_OUT
    if REFERENCE.is_dir():
        assert (REFERENCE / "qdel.out").read_text() == QDEL_OUT


def test_deletion_messages() -> None:
    assert jl.deleted_task("u", 5, 2) == "u has deleted job-array task 5.2"
    assert jl.deleted_tasks("u", 5, (1, 3, 1)) == "u has deleted job-array tasks 1-3:1 of job 5"
    assert jl.forced_job_deletion("u", 5) == "u forced the deletion of job 5"
    assert jl.forced_task_deletion("u", 5, 1) == "u forced the deletion of job-array task 5.1"
    assert jl.force_needs_manager("u") == '"u" - forcing a job deletion requires manager privileges'
    assert jl.already_in_deletion(5) == "job 5 is already in deletion"
    assert jl.no_delete_privileges("sgeuser", 5) == (
        'sgeuser - you do not have the necessary privileges to delete the job "5"')


def test_unknown_job_messages() -> None:
    assert jl.job_does_not_exist("5") == 'denied: job "5" does not exist'
    assert jl.job_does_not_exist("5", ["a", "b"]) == "The job 5 of user(s) a,b does not exist"
    assert jl.tasks_do_not_exist("5", (3, 3, 1)) == 'job "5" task "3" does not exist'
    assert jl.tasks_do_not_exist("5", (1, 3, 1)) == (
        'job "5" task id range "1-3:1" comprises no tasks')
    assert jl.tasks_do_not_exist("5", (3, 3, 1), ["a"]) == (
        'job "5" task "3" does not exist for user(s) a')
    assert jl.tasks_do_not_exist("5", (1, 3, 1), ["a"]) == (
        'job "5" task id range "1-3:1" comprises no tasks under user(s) a')
    assert jl.no_jobs_for_users(["x"] * 21).endswith(",x,...")
    assert jl.THERE_ARE_NO_JOBS == "There are no jobs registered"


def test_hold_messages() -> None:
    assert jl.hold_modified(5) == "modified hold of job 5"
    assert jl.hold_modified(5, 2) == "modified hold of job-array task 5.2"
    assert jl.hold_denied("bob", 5, "u", remove=False) == (
        'denied: "bob" must be at least owner of job 5 to set user hold')
    assert jl.hold_denied("bob", 5, "u", remove=True) == (
        'denied: "bob" must be at least owner of job 5 to remove user hold')
    assert jl.hold_denied("bob", 5, "o", remove=False) == 'denied: "bob" must be operator to set operator hold'
    assert jl.hold_denied("bob", 5, "s", remove=True) == 'denied: "bob" must be manager to remove manager hold'


def test_qstat_unknown_jobs() -> None:
    text = jl.jobs_do_not_exist(["999999"])
    assert text == "Following jobs do not exist: \n999999"
    if REFERENCE.is_dir():
        assert (REFERENCE / "qstat-j-nonexistent.err").read_text() == text + "\n"
    assert jl.jobs_do_not_exist(["1", "2"]).endswith("\n1, 2")
