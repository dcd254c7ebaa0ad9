"""Tests of clients.qacct.main against the exact output of SGE 8.1.9's qacct (captured in UTC)."""
from __future__ import annotations

import calendar
import dataclasses
import shlex
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clients.qacct import main as qacct
from common.accounting import HEADER, AccountingRecord, append_records, parse_line

from tests.reference import REFERENCE as REF
LINES = (REF / "accounting-lines.txt").read_text().splitlines()
CASES = ["qacct-j-exit0", "qacct-j-exit3", "qacct-j-binary-args-quirk", "qacct-j-deleted",
         "qacct-j-nonexistent"]


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The reference output was captured with TZ=UTC; qacct prints local times."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def acct(tmp_path: Path) -> Path:
    path = tmp_path / "accounting"
    path.write_text(HEADER + "\n".join(LINES) + "\n")
    return path


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    rc = qacct.main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def _record(**changes: object) -> AccountingRecord:
    base = parse_line(LINES[2])
    assert base is not None
    return dataclasses.replace(base, **changes)


@pytest.mark.parametrize("case", CASES)
def test_reference_output_byte_for_byte(case: str, acct: Path, capsys: pytest.CaptureFixture[str]) -> None:
    command = shlex.split((REF / f"{case}.cmd").read_text().removeprefix("$"))
    assert command[0] == "qacct"
    rc, out, err = _run(capsys, "-f", str(acct), *command[1:])
    assert out == (REF / f"{case}.out").read_text()
    assert err == (REF / f"{case}.err").read_text()
    assert rc == int((REF / f"{case}.rc").read_text())


def test_default_file_is_the_cells(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    common = tmp_path / "mycell" / "common"
    common.mkdir(parents=True)
    (common / "accounting").write_text("\n".join(LINES) + "\n")
    monkeypatch.setenv("PYGE_ROOT", str(tmp_path))
    monkeypatch.setenv("PYGE_CELL", "mycell")
    rc, out, err = _run(capsys, "-j", "92")
    assert (rc, err) == (0, "")
    assert out == (REF / "qacct-j-exit0.out").read_text()


def test_without_cell_or_file(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("PYGE_ROOT", "SGE_ROOT"):
        monkeypatch.delenv(name, raising=False)
    assert _run(capsys, "-j", "92") == (1, "", "error: Please set the environment variable PYGE_ROOT.\n")


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "nothing"
    rc, out, err = _run(capsys, "-f", str(path))
    assert (rc, out, err) == (1, "no jobs running since startup\n", f"{path}: No such file or directory\n")


def test_summary_without_options(acct: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # wallclock 0+0+1+4, utime 0.022783, stime 0.028826, cpu 0.051609, io 0.000074 GB.
    rc, out, err = _run(capsys, "-f", str(acct))
    title = ("    WALLCLOCK         UTIME         STIME           CPU             MEMORY"
             "                 IO                IOW")
    assert (rc, err) == (0, "")
    assert out == ("Total System Usage\n" + title + "\n" + "=" * 112 + "\n"
                   + "            5         0.023         0.029         0.052"
                   + "              0.000              0.000              0.000\n")


def test_bare_j_lists_every_record_then_the_summary(acct: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _run(capsys, "-f", str(acct), "-j")
    assert rc == 0
    assert out.splitlines().count("=" * 62) == 4
    assert out.index("jobnumber    93") < out.index("jobnumber    94") < out.index("jobnumber    92")
    assert "\nTotal System Usage\n" in out


def test_j_with_name_pattern(acct: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _run(capsys, "-f", str(acct), "-j", "acct_*")
    assert rc == 0 and out.count("jobname") == 3 and "running_job" not in out
    assert "Total System Usage" not in out
    assert _run(capsys, "-f", str(acct), "-j", "nosuch") == (1, "", "error: job name nosuch not found\n")


def test_owner_table_groups_and_sorts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "accounting"
    append_records(path, [_record(owner="zoe", ru_wallclock=10), _record(owner="al", ru_wallclock=3),
                          _record(owner="zoe", ru_wallclock=5, cpu=1.25)])
    rc, out, _ = _run(capsys, "-f", str(path), "-o")
    lines = out.splitlines()
    assert rc == 0 and lines[0].startswith("OWNER     WALLCLOCK")  # width len("OWNER") + 1
    assert lines[1] == "=" * (6 + 112)
    assert lines[2].split() == ["al", "3", "0.007", "0.006", "0.013", "0.000", "0.000", "0.000"]
    assert lines[3].split()[:5] == ["zoe", "15", "0.014", "0.012", "1.263"]
    assert len(lines) == 4


def test_chosen_owner_sets_column_width(acct: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _run(capsys, "-f", str(acct), "-o", "sgeuser")
    lines = out.splitlines()
    assert lines[0].startswith("OWNER       WALLCLOCK")  # width len("sgeuser") + 1
    assert lines[2].startswith("sgeuser             5")
    assert _run(capsys, "-f", str(acct), "-o", "nobody")[1].count("\n") == 2  # no row at wallclock 0


def test_queue_value_lists_host_and_queue(acct: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _run(capsys, "-f", str(acct), "-q", "all.q")
    lines = out.splitlines()
    assert lines[0].startswith("HOST CLUSTER QUEUE     WALLCLOCK")
    assert lines[2].startswith("vm   all.q                     5")
    assert _run(capsys, "-f", str(acct), "-q", "other.q")[1].count("\n") == 2
    assert "vm   all.q" in _run(capsys, "-f", str(acct), "-q", "all.q@vm")[1]


def test_numeric_columns(acct: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(capsys, "-f", str(acct), "-slots", "-ar")[1].splitlines()
    # "%5u" values make both columns 6 wide; AR's title uses the SLOTS width.
    assert out[0].startswith("SLOTS AR        WALLCLOCK")
    assert out[2].startswith("    1     0             5")


def test_array_tasks_and_t(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "accounting"
    append_records(path, [_record(job_number=100, task_number=t) for t in range(1, 6)])
    rc, out, _ = _run(capsys, "-f", str(path), "-j", "100", "-t", "2-4:2")
    assert rc == 0
    assert [line for line in out.splitlines() if line.startswith("taskid")] == [
        "taskid       2                   ", "taskid       4                   "]
    assert _run(capsys, "-f", str(path), "-j", "100", "-t", "7") == (
        1, "", "error: Job-array tasks 100.7-7:1 not found\n")
    assert _run(capsys, "-f", str(path), "-j", "acct_ok", "-t", "9-9")[2] == (
        'error: Job-array tasks "acct_ok".9-9:1 not found\n')


def test_failed_and_signal_texts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "accounting"
    append_records(path, [_record(failed=1, exit_status=143), _record(failed=23, exit_status=1)])
    out = _run(capsys, "-f", str(path), "-j", "92")[1].splitlines()
    assert "failed       1   : assumedly before job" in out
    assert "exit_status  143                  (Terminated)" in out
    assert "failed       23  : invalid execution state" in out
    assert "exit_status  1                   " in out


def test_arid_and_times(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "accounting"
    append_records(path, [_record(arid=12, ar_submission_time=86400 * 3, start_time=0, end_time=0)])
    out = _run(capsys, "-f", str(path), "-j", "92")[1].splitlines()
    assert "arid         12                  " in out
    assert "ar_sub_time  Sun Jan  4 00:00:00 1970" in out
    assert "start_time   -/-" in out and "end_time     -/-" in out


@pytest.mark.parametrize("value, text", [
    (0, "0.000B"), (1023, "1023.000B"), (4828, "4.715KB"), (3534848, "3.371MB"),
    (3 * 1024.0**3, "3.000GB"), (1024.0**4, "1.000TB"), (-10, "10.000B"), (-2048, "-2.000KB"),
])
def test_format_memory(value: float, text: str) -> None:
    assert qacct.format_memory(value) == text


def test_selection_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "accounting"
    append_records(path, [
        _record(job_number=1, group="a", project="p1", account="acc", granted_pe="mpi", slots=4),
        _record(job_number=2, hostname="OtherHost", department="d2", pe_taskid="1.vm", arid=5),
    ])

    def jobs(*args: str) -> list[str]:
        out = _run(capsys, "-f", str(path), "-j", *args)[1]
        return [line.split()[1] for line in out.splitlines() if line.startswith("jobnumber")]

    assert jobs("-g", "a") == ["1"] and jobs("-P", "p1") == ["1"] and jobs("-A", "acc") == ["1"]
    assert jobs("-pe", "mpi") == ["1"] and jobs("-slots", "4") == ["1"] and jobs("-D", "d2") == ["2"]
    assert jobs("-h", "otherhost") == ["2"] and jobs("-ar", "5") == ["2"] and jobs("-m") == ["1"]
    assert jobs("-q", "all.q@Other*") == ["2"] and jobs("-u", "sgeuser") == ["1", "2"]


def test_time_selection(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    day = 86400
    path = tmp_path / "accounting"
    append_records(path, [_record(job_number=n, start_time=n * day, end_time=n * day + day // 2)
                          for n in (1, 2, 3)])

    def jobs(*args: str, now: float = 10 * day) -> list[str]:
        assert qacct.run(["-f", str(path), "-j", *args], now) == 0
        return [line.split()[1] for line in capsys.readouterr()[0].splitlines() if line.startswith("jobnumber")]

    assert jobs("-b", "197001030000") == ["2", "3"]  # started on Jan 2, 3 and 4, 1970
    assert jobs("-e", "7001030000") == ["1", "2"]
    assert jobs("-b", "7001020100", "-d", "1") == ["2"]
    assert jobs("-e", "197001041100", "-d", "1") == ["3"]
    assert jobs("-d", "8", now=10 * day) == ["2", "3"]
    assert jobs("-E", "-b", "197001031300") == ["3"]  # ended at noon
    assert jobs("-E", "-e", "7001021200") == ["1"]
    assert jobs("-b", "01030000") == ["2", "3"]  # no year: the year of "now", 1970
    assert jobs("-b", "01030000", now=400 * day) == []  # ... or 1971


@pytest.mark.parametrize("text, stamp", [
    ("202611220238", 1795315080), ("2611220238.45", 1795315125), ("7001010000", 0),
])
def test_parse_date_time(text: str, stamp: int) -> None:
    assert qacct.parse_date_time(text, 0) == stamp


def test_parse_date_time_without_year_uses_the_current_one() -> None:
    now = calendar.timegm((2030, 6, 1, 0, 0, 0))
    assert qacct.parse_date_time("01020304", now) == calendar.timegm((2030, 1, 2, 3, 4, 0))


@pytest.mark.parametrize("text, message", [
    ("", "no date specified"), ("2611220238.4", "Invalid format of seconds field."),
    ("261122023", "Invalid format of date/hour-minute field."),
    ("2613220238", "Invalid month specification."), ("2611320238", "Invalid day specification."),
    ("2611222438", "Invalid hour specification."), ("2611220260", "Invalid minute specification."),
    ("2611220238.60", "Invalid seconds specification."),
])
def test_parse_date_time_errors(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=f"^{message}$".replace(".", r"\.")):
        qacct.parse_date_time(text, 0)


@settings(max_examples=60, deadline=None)
@given(st.datetimes(datetime(1971, 1, 1), datetime(2037, 12, 31)))
def test_parse_date_time_round_trip(moment: datetime) -> None:
    time.tzset()  # hypothesis runs outside the function fixture's setup, TZ is already UTC
    stamp = int(moment.replace(tzinfo=timezone.utc).timestamp())
    assert qacct.parse_date_time(moment.strftime("%Y%m%d%H%M.%S"), 0) == stamp


def test_help_goes_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _run(capsys, "-help")
    assert (rc, err) == (0, "")
    assert out.startswith("SGE 8.1.9\nusage: qacct [options]\n [-ar [ar_id]]                     list [matching]")
    assert " [-j [job_id|job_name|pattern]]    list all [matching] jobs\n" in out
    assert out.endswith(" queue                             [cluster_queue|queue_instance|queue_domain|pattern]\n"
                        "\n [-fmt plain|json]                 output format (json: not in 8.1.9)\n")


@pytest.mark.parametrize("args, message", [
    (["-x"], ""), (["-b"], ""), (["-d", "x"], ""), (["-f"], ""), (["-t"], "-t option must have a list of task id ranges\n"),
    (["-j", "1", "-t", "x"], "invalid list of task id ranges: x\n"), (["-b", "13"], "\nInvalid format of date/hour-minute field.\n"),
    (["-ar", "x"], "invalid advance reservation id, must be an unsigned integer\n"),
])
def test_bad_options_print_usage_to_stderr(args: list[str], message: str, acct: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _run(capsys, "-f", str(acct), *args) if args != ["-f"] else _run(capsys, *args)
    assert (rc, out) == (1, "")
    assert err == message + qacct.USAGE


def test_t_requires_j_with_a_value(acct: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _run(capsys, "-f", str(acct), "-t", "1-2")
    assert (rc, out) == (1, "")
    assert err == "error: -t option requires -j option with an argument\n" + qacct.USAGE


class _Selecting:
    """What qacct -l asks of the qmaster: the instances offering the list (a stand-in)."""

    def __init__(self, instances: list[str] | None) -> None:
        self.instances, self.asked = instances, []  # type: ignore[var-annotated]

    def __enter__(self) -> "_Selecting":
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def cluster(self, *, select: str) -> dict[str, object]:
        self.asked.append(select)
        if self.instances is None:
            return {"selected": {"instances": [], "hosts": [],
                                 "error": 'unknown resource "nosuch"'}}
        return {"selected": {"instances": self.instances, "hosts": []}}


def test_l_keeps_the_records_of_the_instances_offering_it(
        acct: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """8.1.9 (tests/data/reference/lists/qacct-l-*): the records of the queue instances
    offering the list; none: the summary's header alone; unknown: its error, exit 1."""
    import clients.api
    lists = REF / "lists"
    every = _run(capsys, "-f", str(acct))
    qmaster = _Selecting(sorted({f"{r.split(':')[0]}@{r.split(':')[1]}" for r in LINES}))
    monkeypatch.setattr(clients.api, "connect_or_exit", lambda prog: qmaster)
    assert _run(capsys, "-f", str(acct), "-l", "arch=lx-amd64") == every
    assert qmaster.asked == ["arch=lx-amd64"]
    qmaster.instances = []
    assert _run(capsys, "-f", str(acct), "-l", "arch=foo") == (
        0, (lists / "qacct-l-foo.out").read_text(), "")
    qmaster.instances = None
    assert _run(capsys, "-f", str(acct), "-l", "nosuch=1") == (
        1, "", (lists / "qacct-l-unknown.err").read_text())


def test_invalid_entries_are_reported_and_skipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "accounting"
    path.write_text(HEADER + LINES[0] + "\n# note\nbroken:line\n\n" + LINES[2] + "\n")
    rc, out, err = _run(capsys, "-f", str(path), "-j", "92")
    assert rc == 0 and "jobnumber    92" in out
    assert err == "error: ignoring invalid entry in line 2\n"


def test_reads_standard_input(monkeypatch: pytest.MonkeyPatch, acct: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with acct.open() as stream:
        monkeypatch.setattr("sys.stdin", stream)
        rc, out, _ = _run(capsys, "-f", "-", "-j", "95")
    assert rc == 0 and out == (REF / "qacct-j-deleted.out").read_text()
