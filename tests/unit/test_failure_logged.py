"""Why a task failed is in the qmaster's log (issue 26, item 8): a shepherd's reason for
an early failure travels in its result, and the execd's job directory that also held it
is removed once the qmaster acknowledges the result, so the qmaster's "finished" line
says it, with the job id."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.unit.test_qmaster_core import Harness


class Lines:
    """A structlog stand-in that keeps what is logged."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, dict[str, Any]]] = []

    def info(self, event: str, **kw: Any) -> None:
        self.lines.append((event, kw))

    warning = error = info


def _finished(tmp_path: Path, result: dict[str, Any]) -> dict[str, Any]:
    log = Lines()
    qm = Harness(tmp_path, auto_add_hosts=True, default_slots=2, log=log)
    qm.register("h1")
    job = qm.submit()
    qm.dispatch(job)
    qm.call("job_finished", {"host": "h1", "job_id": job, "task_id": 1, "result": result},
            identity=b"execd:h1")
    [line] = [kw for event, kw in log.lines if event == "finished"]
    assert line["job_id"] == job and line["task_id"] == 1
    return line


def test_an_early_failure_is_logged_with_the_shepherds_reason(tmp_path: Path) -> None:
    line = _finished(tmp_path, {
        "exit_status": 1, "signal": 0, "failed": 1, "failed_reason": "assumedly before job",
        "error_message": "can't make tmpdir /tmp/1.1.all.q: it is a symbolic link",
        "start_time": 1.0, "end_time": 1.01, "pid": 0})
    assert line["failed"] == 1
    assert line["reason"] == "can't make tmpdir /tmp/1.1.all.q: it is a symbolic link"


def test_a_job_that_ended_well_has_no_reason(tmp_path: Path) -> None:
    line = _finished(tmp_path, {"exit_status": 0, "signal": 0, "failed": 0,
                                "start_time": 1.0, "end_time": 2.0, "pid": 7})
    assert line["failed"] == 0 and "reason" not in line
