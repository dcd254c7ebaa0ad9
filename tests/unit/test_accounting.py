"""Tests of common.accounting: the accounting(5) line format of SGE 8.1.9 and file appends."""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from common import accounting
from common.accounting import (
    HEADER,
    AccountingFormatError,
    AccountingRecord,
    append_records,
    parse_line,
    read_records,
    to_line,
)

from tests.reference import REFERENCE as _REFERENCE_DIR

REFERENCE = _REFERENCE_DIR / "accounting-lines.txt"
REFERENCE_LINES = REFERENCE.read_text().splitlines()


def _record(**changes: object) -> AccountingRecord:
    base = AccountingRecord(qname="all.q", hostname="vm", group="g", owner="o",
                            job_name="j", job_number=7)
    return dataclasses.replace(base, **changes)


@pytest.mark.parametrize("line", REFERENCE_LINES)
def test_reference_lines_round_trip(line: str) -> None:
    record = parse_line(line + "\n")
    assert record is not None
    assert record.to_line() == line
    assert to_line(record) == line


def test_reference_line_fields() -> None:
    record = parse_line(REFERENCE_LINES[3])
    assert record is not None
    assert (record.qname, record.hostname, record.group, record.owner) == ("all.q", "vm", "sgeuser", "sgeuser")
    assert (record.job_name, record.job_number, record.account) == ("running_job", 95, "sge")
    assert (record.submission_time, record.start_time, record.end_time) == (1795315065, 1795315140, 1795315144)
    assert (record.failed, record.exit_status, record.ru_wallclock) == (100, 137, 4)
    assert record.ru_maxrss == 4772.0 and record.ru_minflt == 476 and record.ru_nivcsw == 9
    assert (record.project, record.department, record.granted_pe) == ("NONE", "defaultdepartment", "NONE")
    assert (record.slots, record.task_number, record.is_array_task) == (1, 0, False)
    assert record.io == pytest.approx(0.000037) and record.maxvmem == 3534848.0
    assert (record.category, record.pe_taskid, record.arid, record.ar_submission_time) == (
        "-l h_rt=300", "NONE", 0, 0)


@pytest.mark.parametrize("line", ["", "\n", "x", "# Version: 8.1.9\n", "# \n", "#all.q:vm"])
def test_comment_and_short_lines_are_skipped(line: str) -> None:
    assert parse_line(line) is None


def test_float_fields_use_c_percent_f() -> None:
    line = to_line(_record(ru_utime=0.5, ru_maxrss=4828, ru_inblock=3, cpu=1e-7, maxvmem=3690496))
    fields = line.split(":")
    assert fields[14] == "0.500000" and fields[16] == "4828.000000" and fields[24] == "3.000000"
    assert fields[36] == "0.000000" and fields[42] == "3690496.000000"
    assert len(fields) == 45


def test_empty_none_fields_are_written_as_none() -> None:
    fields = to_line(_record(project="", department="", granted_pe="", category="", pe_taskid="")).split(":")
    assert [fields[i] for i in (31, 32, 33, 39, 41)] == ["NONE"] * 5


def test_category_may_contain_colons() -> None:
    record = _record(category="-l h_rt=1:00:00,h_vmem=1G -q all.q", iow=2.5, arid=3)
    line = to_line(record)
    assert line.count(":") == 44 + 2
    assert parse_line(line) == record


@pytest.mark.parametrize("changes", [
    {"job_name": "a:b"}, {"account": "x:y"}, {"owner": "o\nx"}, {"category": "a\nb"},
    {"qname": "#all.q"}, {"pe_taskid": "1.vm:2"}, {"department": "d\r"},
])
def test_unwritable_records_are_refused(changes: dict[str, object]) -> None:
    with pytest.raises(AccountingFormatError):
        to_line(_record(**changes))


def test_negative_priority_wraps_like_a_u64() -> None:
    record = _record(priority=-5)
    line = to_line(record)
    assert line.split(":")[7] == str(2**64 - 5)
    assert parse_line(line) == record


@pytest.mark.parametrize("line, message", [
    ("all.q:vm:g:o:j:7", "fields"),
    (":".join(["x"] * 41), "fields"),
    (REFERENCE_LINES[0].replace(":93:", ":ninety-three:"), "job_number"),
    (REFERENCE_LINES[0].replace(":0.007702:", ":fast:"), "ru_utime"),
])
def test_malformed_lines_raise(line: str, message: str) -> None:
    with pytest.raises(AccountingFormatError, match=message):
        parse_line(line)


def test_lines_of_older_writers_get_defaults() -> None:
    short = ":".join(REFERENCE_LINES[2].split(":")[:42])
    record = parse_line(short)
    assert record is not None
    assert (record.maxvmem, record.arid, record.ar_submission_time) == (0.0, 0, 0)
    assert record.pe_taskid == "NONE" and record.job_number == 92


def test_integer_fields_written_as_doubles_are_truncated() -> None:
    fields = REFERENCE_LINES[0].split(":")
    fields[13] = "4.750000"  # ru_wallclock as a double, as some writers print it
    record = parse_line(":".join(fields))
    assert record is not None and record.ru_wallclock == 4


def test_append_creates_file_with_header(tmp_path: Path) -> None:
    path = tmp_path / "common" / "accounting"
    first = parse_line(REFERENCE_LINES[0])
    assert first is not None
    assert append_records(path, [first]) == 1
    assert path.read_text() == HEADER + REFERENCE_LINES[0] + "\n"
    assert HEADER == "# Version: 8.1.9\n# \n# DO NOT MODIFY THIS FILE MANUALLY!\n# \n"


def test_append_adds_to_existing_file_without_header(tmp_path: Path) -> None:
    path = tmp_path / "accounting"
    records = [parse_line(line) for line in REFERENCE_LINES]
    append_records(path, records[:1])  # type: ignore[list-item]
    append_records(path, records[1:])  # type: ignore[list-item]
    assert path.read_text() == HEADER + "\n".join(REFERENCE_LINES) + "\n"
    assert read_records(path) == records


def test_append_of_nothing_creates_no_file(tmp_path: Path) -> None:
    path = tmp_path / "accounting"
    assert append_records(path, []) == 0
    assert not path.exists()


def test_append_fsyncs_file_and_new_directory_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(accounting.os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    append_records(tmp_path / "accounting", [_record()])
    assert len(synced) == 2  # the file, then its directory (new entry)
    append_records(tmp_path / "accounting", [_record()])
    assert len(synced) == 3


def test_failed_append_leaves_file_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "accounting"
    append_records(path, [_record()])
    before = path.read_bytes()
    with pytest.raises(AccountingFormatError):
        append_records(path, [_record(job_number=8), _record(job_name="bad:name")])
    assert path.read_bytes() == before


def test_read_records_rejects_bad_lines(tmp_path: Path) -> None:
    path = tmp_path / "accounting"
    path.write_text(HEADER + REFERENCE_LINES[0] + "\nnot a record\n")
    with pytest.raises(AccountingFormatError):
        read_records(path)


# ---------------------------------------------------------------- generated records

_TEXT = st.text(st.characters(blacklist_characters=":\n\r", blacklist_categories=("Cs",)), max_size=12)
_NAME = _TEXT.filter(lambda s: not s.startswith("#"))
_NONE_TEXT = _TEXT.filter(lambda s: s != "")
_U32 = st.integers(0, 2**32 - 1)
_U64 = st.integers(0, 2**63 - 1)
# "%f" keeps six decimals: values with at most six decimals survive the trip exactly.
_DOUBLE = st.integers(0, 10**15).map(lambda n: n / 1e6)


def _strategy_for(name: str, kind: str) -> st.SearchStrategy[object]:
    if name == "qname":
        return _NAME
    if name == "category":
        return st.text(st.characters(blacklist_characters="\n\r", blacklist_categories=("Cs",)),
                       min_size=1, max_size=30)
    if kind == "str":
        return _NONE_TEXT if name in accounting._NONE_FIELDS else _TEXT
    if kind == "float":
        return _DOUBLE
    if name == "priority":
        return st.integers(-1023, 1024)
    return _U64 if name.startswith("ru_") else _U32


RECORDS = st.builds(AccountingRecord, **{
    name: _strategy_for(name, kind) for name, kind in accounting._FIELDS})


@settings(max_examples=80, deadline=None)
@given(RECORDS)
def test_generated_records_round_trip(record: AccountingRecord) -> None:
    line = to_line(record)
    assert "\n" not in line
    assert parse_line(line + "\n") == record


@settings(max_examples=40, deadline=None)
@given(RECORDS, st.lists(st.floats(0, 1e12, allow_nan=False), min_size=9, max_size=9))
def test_line_text_is_stable_for_any_double(record: AccountingRecord, doubles: list[float]) -> None:
    names = [name for name, kind in accounting._FIELDS if kind == "float"]
    record = dataclasses.replace(record, **dict(zip(names, doubles)))
    line = to_line(record)
    again = parse_line(line)
    assert again is not None and to_line(again) == line


@settings(max_examples=15, deadline=None)
@given(st.lists(RECORDS, max_size=5))
def test_append_then_read_gives_the_records(tmp_path_factory: pytest.TempPathFactory,
                                            records: list[AccountingRecord]) -> None:
    path = tmp_path_factory.mktemp("acct") / "accounting"
    append_records(path, records)
    assert read_records(path) == records if records else not path.exists()
