"""The start record as a real shepherd reads it (common.start_record, execd.jobdir.read_spec):
a spec file that lacks a field fails the job at once, accounted ``failed 1`` with the
reason naming the field, rather than running with whatever was missing taken as unset;
a spec with a limit in any form the submission accepted runs under that limit."""
from __future__ import annotations

import resource
from pathlib import Path

from execd import jobdir
from execd.launcher import Launcher
from tests.integration.test_shepherd import make_spec, run_job, wait_result


def test_a_spec_lacking_a_required_field_fails_the_job(launcher: Launcher,
                                                       tmp_path: Path) -> None:
    spec = make_spec(tmp_path)
    del spec["uid"]  # (write_spec stores what it is given; the reader checks)
    job_dir = tmp_path / "job.1"
    jobdir.write_spec(job_dir, spec, b"touch ran\n")
    launcher.launch(job_dir)
    result = wait_result(job_dir)
    assert result["failed"] == 1 and result["exit_status"] == 1, result
    assert "job spec: uid: missing field" in result["error_message"], result
    assert not (tmp_path / "ran").exists()


def test_the_limits_of_the_record_are_the_jobs_rlimits(launcher: Launcher,
                                                       tmp_path: Path) -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    wanted = 1 << 30  # -l h_vmem=0x40000000, as the start spec carries it
    if hard != resource.RLIM_INFINITY and hard < wanted:
        wanted = hard  # (an unprivileged shepherd keeps a lower hard limit of its own)
    result = run_job(launcher, tmp_path, "ulimit -v\n", limits={"h_vmem": float(1 << 30)})
    assert result["failed"] == 0, result
    assert (tmp_path / "testjob.o4242").read_text().strip() == str(wanted // 1024)
