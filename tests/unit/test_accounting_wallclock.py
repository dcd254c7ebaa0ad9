"""ru_wallclock of a job the shepherd killed for its h_rt (failed 37): the real time, as
8.1.9 accounts it (tests/data/reference/lists/qacct-j-h_rt.out: failed 37, 4 s)."""
from __future__ import annotations

from common.accounting import read_records
from tests.reference import REFERENCE as REF
from tests.unit.test_qmaster_core import Harness, qm  # noqa: F401 (the fixture)


def _finish(qm: Harness, failed: int, signal: int, exit_status: int) -> int:  # noqa: F811
    qm.register("h1")
    job = qm.submit()
    qm.dispatch(job)
    qm.call("job_started", {"host": "h1", "job_id": job, "task_id": 1, "start_time": 100.0},
            identity=b"execd:h1")
    result = {"exit_status": exit_status, "signal": signal, "failed": failed,
              "start_time": 100.0, "end_time": 104.0}
    qm.call("job_finished", {"host": "h1", "job_id": job, "task_id": 1, "result": result},
            identity=b"execd:h1")
    return job


def test_a_job_killed_for_h_rt_is_accounted_with_its_real_time(qm: Harness) -> None:  # noqa: F811
    captured = (REF / "lists" / "qacct-j-h_rt.out").read_text()
    assert "failed       37  : qmaster enforced h_rt, h_cpu, or h_vmem limit" in captured
    assert "ru_wallclock 4s" in captured
    job = _finish(qm, 37, 9, 137)
    [record] = [r for r in read_records(qm.cell.accounting_path) if r.job_number == job]
    assert (record.failed, record.ru_wallclock) == (37, 4)


def test_a_job_that_failed_before_it_ran_has_none(qm: Harness) -> None:  # noqa: F811
    job = _finish(qm, 26, 0, 1)  # (26: opening its output file failed)
    [record] = [r for r in read_records(qm.cell.accounting_path) if r.job_number == job]
    assert (record.failed, record.ru_wallclock) == (26, 0)
