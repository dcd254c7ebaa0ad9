"""common.reporting: reporting_params and the records of the reporting file, word for
word against 8.1.9's (tests/data/reference/reporting/reporting.out: jobs 28 ok, 29
bad, 30 held and deleted, 31 an array of two, 32 deleted while running)."""
from __future__ import annotations

from pathlib import Path

import pytest

from common import reporting
from common.conffile import ConfError

REF = Path(__file__).resolve().parents[1] / "data" / "reference" / "reporting"
LINES = (REF / "reporting.out").read_text().splitlines() + \
    (REF / "reporting_suspend_error.out").read_text().splitlines()


ID_FIELD = {"new_job": 3, "job_log": 4, "acct": 7}


def captured(job_id: int, kind: str) -> list[list[str]]:
    rows = [line.split(":") for line in LINES if not line.startswith("#")]
    return [row for row in rows if row[1] == kind and row[ID_FIELD[kind]] == str(job_id)]


def facts(job_id: int, name: str, *, array: bool = False) -> reporting.JobFacts:
    return reporting.job_facts(job_id, {}, name=name, owner="sgeuser", group="sgeuser",
                               submit_time=1795849437, is_array=array)


def test_header_as_8_1_9() -> None:
    assert "\n".join(LINES[:4]) + "\n" == reporting.HEADER


def test_new_job() -> None:
    [want] = captured(28, "new_job")
    assert reporting.new_job_line(1795849437, facts(28, "ok")).split(":") == want


def steps(job_id: int, name: str, states: list[dict[str, object]], *,
          array: bool = False) -> list[list[str]]:
    """job_log fields but the times, for the published task states in order."""
    log = reporting.JobLogState()
    job = facts(job_id, name, array=array)
    out = [reporting.job_log_line(1, job, "pending", -1, "", "sgeuser", "vm", "new job")]
    for state in states:
        out += log.steps(1, job, {"task_id": 1, **state}, "vm")
    return [_cut(line.split(":")) for line in out]


def _cut(fields: list[str]) -> list[str]:
    """From the event on, without the submission time (the capture's jobs differ)."""
    return fields[3:12] + fields[13:]


def without_times(job_id: int) -> list[list[str]]:
    return [_cut(fields) for fields in captured(job_id, "job_log")]


def test_job_log_of_a_job_that_ran() -> None:
    got = steps(28, "ok", [{"state": "transferring"}, {"state": "running"},
                           {"state": "running"},  # (published again: nothing)
                           {"state": "finished", "host": "vm"}])
    want = without_times(28)
    assert got == want


def test_job_log_of_a_held_job_deleted() -> None:
    got = steps(30, "held", [{"state": "finished", "deleted_by": "sgeuser"}])
    assert got == without_times(30)


def test_job_log_of_a_running_job_deleted() -> None:
    got = steps(32, "run", [{"state": "transferring"}, {"state": "running"},
                            {"state": "deleted", "deleted_by": "sgeuser"},
                            {"state": "finished", "deleted_by": "sgeuser", "host": "vm"}])
    assert got == without_times(32)


def test_array_tasks_carry_their_ids() -> None:
    got = steps(31, "arr", [{"state": "transferring"}], array=True)
    assert got[1][2] == "1"
    got = steps(28, "ok", [{"state": "transferring"}])
    assert got[1][2] == "0"


def test_acct_line() -> None:
    [want] = captured(28, "acct")
    line = ":".join(want[2:])
    assert reporting.acct_line(int(want[0]), line).split(":") == want


def test_fields_cannot_break_a_line() -> None:
    line = reporting.new_job_line(1, reporting.job_facts(
        1, {}, name="a:b\nc", owner="u", group="g", submit_time=0, is_array=False))
    assert "\n" not in line and line.split(":")[6] == "a_b c"


def test_params() -> None:
    assert reporting.parse_params(reporting.DEFAULT) == reporting.ReportingParams()
    got = reporting.parse_params("accounting=false reporting=true flush_time=00:00:01 "
                                 "joblog=true sharelog=00:00:00")
    assert got == reporting.ReportingParams(False, True, 1.0, True, 0.0)
    for bad in ("reporting=maybe", "flush_time=soon", "nosuch=1"):
        with pytest.raises(ConfError, match="error parsing value"):
            reporting.parse_params(bad)
    got = reporting.parse_params("sharelog=00:10:00 log_consumables=true")
    assert (got.sharelog, got.log_consumables) == (600.0, True)


def test_job_log_of_a_suspended_job() -> None:
    """qmod -sj/-usj by the owner (8.1.9 names who; we name the owner, docs)."""
    got = steps(33, "susp", [{"state": "transferring"}, {"state": "running"},
                             {"state": "suspended"}, {"state": "running"},
                             {"state": "finished", "host": "vm"}])
    assert got == without_times(33)


def test_job_log_of_a_job_set_in_error() -> None:
    got = steps(34, "err", [{"state": "transferring"}, {"state": "running"},
                            {"state": "error", "host": "vm"}])
    assert got == without_times(34)
    # (ours fails from transferring: the execd had it, as 8.1.9's "delivered" says)
    got = steps(34, "err", [{"state": "transferring"}, {"state": "error", "host": "vm"}])
    assert got == without_times(34)


# ---- qmaster.reporting: the writer -------------------------------------------------------
def _writer(tmp_path: Path, text: str) -> tuple[object, list[str]]:
    from qmaster.reporting import ReportingWriter
    complaints: list[str] = []
    writer = ReportingWriter(tmp_path / "reporting", "qm",
                             lambda event, **kw: complaints.append(event))
    writer.configure(text)
    return writer, complaints


def _job(job_id: int) -> object:
    from common.model import Job
    return Job(job_id=job_id, owner="u", uid=1000, group="g", gid=1000, submit_time=5.0,
               opts={"job_name": "j", "array": None}, sge_o={}, script=None, umask=0o22)


class FakeStore:
    """What the writer reads of the qmaster's store."""

    def __init__(self, jobs: dict[int, object] | None = None) -> None:
        self.jobs = jobs or {}
        self.ars: dict[int, dict[str, object]] = {}
        self.hosts: dict[str, object] = {}
        self.conf: dict[str, dict[str, object]] = {"exechost": {}}
        self.qi_states: dict[str, dict[str, str]] = {}
        self.used_slots: dict[tuple[str, str], int] = {}


def test_writer_buffers_until_flush_time(tmp_path: Path) -> None:
    writer, _ = _writer(tmp_path, "reporting=true joblog=true flush_time=00:00:10")
    jobs = {7: _job(7)}
    writer.seed([3])  # (there before the start: no new_job)
    events = [{"kind": "job", "op": "put", "key": "3"}, {"kind": "job", "op": "put", "key": "7"},
              {"kind": "task", "op": "put", "key": "7.1",
               "obj": {"job_id": 7, "task_id": 1, "state": "transferring"}}]
    writer.note_batch(100.0, events, ["all.q:h:g:u:j:7:sge"], FakeStore(jobs))
    writer.flush_due(100.0)   # (10 s since the start of time: due)
    text = (tmp_path / "reporting").read_text()
    assert text.startswith(reporting.HEADER)
    kinds = [line.split(":")[1:4] for line in text.splitlines()[4:]]
    assert kinds == [["acct", "all.q", "h"], ["new_job", "5", "7"], ["job_log", "100", "pending"],
                     ["job_log", "100", "sent"]]
    writer.note_batch(105.0, [{"kind": "job", "op": "put", "key": "7"}], ["x"],
                      FakeStore(jobs))
    writer.flush_due(105.0)   # (5 s after the last flush: kept)
    assert len((tmp_path / "reporting").read_text().splitlines()) == 8
    writer.flush_due(105.0, force=True)  # (a clean stop)
    assert (tmp_path / "reporting").read_text().splitlines()[-1] == "105:acct:x"


def test_writer_off_and_never_through_a_link(tmp_path: Path) -> None:
    writer, complaints = _writer(tmp_path, reporting.DEFAULT)  # reporting=false
    writer.note_batch(1.0, [{"kind": "job", "op": "put", "key": "7"}], ["x"],
                      FakeStore({7: _job(7)}))
    writer.flush_due(1.0, force=True)
    assert not (tmp_path / "reporting").exists()
    writer, complaints = _writer(tmp_path, "reporting=true flush_time=00:00:00")
    (tmp_path / "target").write_text("")
    (tmp_path / "reporting").symlink_to(tmp_path / "target")
    writer.note_batch(1.0, [], ["x"], FakeStore())
    writer.flush_due(1.0)
    assert (tmp_path / "target").read_text() == "" and complaints == ["reporting file not written"]


def test_a_job_submitted_while_reporting_was_off_is_no_new_job_later(tmp_path: Path) -> None:
    writer, _ = _writer(tmp_path, reporting.DEFAULT)  # reporting=false
    jobs = {7: _job(7), 8: _job(8)}
    writer.note_batch(1.0, [{"kind": "job", "op": "put", "key": "7"}], [], FakeStore(jobs))
    writer.configure("reporting=true flush_time=00:00:00")
    # job 7 changed (qalter), job 8 submitted: only 8 is a new job
    writer.note_batch(2.0, [{"kind": "job", "op": "put", "key": "7"},
                            {"kind": "job", "op": "put", "key": "8"}], [], FakeStore(jobs))
    writer.flush_due(2.0, force=True)
    lines = (tmp_path / "reporting").read_text().splitlines()[4:]
    assert [line.split(":")[1:4] for line in lines] == [["new_job", "5", "8"]]
