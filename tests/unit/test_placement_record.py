"""What the qmaster's events and snapshot carry of a job (``placement_record``): the
scheduler reads from it exactly the placement view the whole job gives."""
from __future__ import annotations

from typing import Any

from hypothesis import given, settings

from common.jobspec import JOB_OPTIONS, check_job_options
from common.placement.job import PLACEMENT_OPTS, placement_job, placement_record
from tests.strategies import accepted, valid


@settings(max_examples=100, deadline=None)
@given(valid(JOB_OPTIONS).filter(lambda v: accepted(JOB_OPTIONS, v)))
def test_the_record_gives_the_placement_view_of_the_whole_job(drawn: dict[str, Any]) -> None:
    opts = check_job_options(drawn)
    whole = {"job_id": 7, "owner": "alice", "group": "users", "opts": opts,
             "submit_time": 1_700_000_000.0}
    record = placement_record(7, "alice", "users", opts, 1_700_000_000.0)
    assert placement_job(record) == placement_job(whole)
    assert set(record["opts"]) <= set(PLACEMENT_OPTS)


def test_the_record_leaves_out_what_placement_does_not_read() -> None:
    opts = check_job_options({"script_path": "/bin/true", "binary": True, "priority": -3,
                              "env": {"SECRET": "x"}, "hard_resources": {"h_vmem": "1G"}})
    assert placement_record(1, "bob", "staff", opts) == {
        "job_id": 1, "owner": "bob", "group": "staff",
        "opts": {"priority": -3, "hard_resources": {"h_vmem": "1G"}}}
