"""A limit in any form Grid Engine accepts bounds the job, on a live cell (issue 26, item 4).

The attack: ``qsub -l h_vmem=1e9`` and ``-l h_vmem=0x40000000`` were accepted and stored,
but the start spec's own parser refused them and read "no limit", so the job ran with an
unlimited address space. Now submission, ``qconf`` and the start spec read limit values
with one parser (common.limits); a value none accepts is refused where it is written.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.commands import command
from tests.e2e.test_job_limits import accounting, run, submit
from tests.e2e.test_qconf import qconf

LIMITS_SCRIPT = "#!/bin/sh\ngrep 'Max address space' /proc/self/limits\n"


@pytest.fixture(scope="module")
def env(module_cell_env: dict[str, str]) -> dict[str, str]:
    return module_cell_env


def address_space_limit(env: dict[str, str], tmp_path: Path, *args: str) -> list[str]:
    """The job's RLIMIT_AS (soft, hard) as /proc/self/limits shows it."""
    script = tmp_path / "limits.sh"
    script.write_text(LIMITS_SCRIPT)
    job_id = submit(env, tmp_path, *args, str(script))
    [record] = accounting(env, job_id)
    assert record["failed"].split()[0] == "0", record
    line = (tmp_path / f"limits.sh.o{job_id}").read_text()
    return line.split()[3:5]


@pytest.mark.parametrize("value,bytes_", [("0x40000000", "1073741824"),
                                          ("1e9", "1000000000"), ("1G", "1073741824")])
def test_h_vmem_in_every_accepted_form_sets_rlimit_as(env: dict[str, str], tmp_path: Path,
                                                      value: str, bytes_: str) -> None:
    assert address_space_limit(env, tmp_path, "-l", f"h_vmem={value}") == [bytes_, bytes_]


def test_a_queues_limit_in_hex_bounds_its_jobs(env: dict[str, str], tmp_path: Path) -> None:
    assert qconf(env, "-mattr", "queue", "h_vmem", "0x40000000", "all.q")[2] == 0
    try:
        assert address_space_limit(env, tmp_path) == ["1073741824", "1073741824"]
        # a request below the queue's value wins, whatever form either is in
        assert address_space_limit(env, tmp_path, "-l", "h_vmem=5e8") == \
            ["500000000", "500000000"]
    finally:
        assert qconf(env, "-mattr", "queue", "h_vmem", "INFINITY", "all.q")[2] == 0


def test_a_value_no_parser_reads_is_refused_where_it_is_written(env: dict[str, str],
                                                                tmp_path: Path) -> None:
    done = subprocess.run(command("qsub") + ["-b", "y", "-l", "h_vmem=1e9x", "/bin/true"],
                          env=env, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (
        1, 'Unable to run job: attribute "h_vmem" is not a memory value\nExiting.\n')
    out, err, rc = qconf(env, "-mattr", "queue", "h_vmem", "lots", "all.q")
    assert rc != 0 and 'value for attribute h_vmem "lots" is not memory' in out + err
    assert "h_vmem                INFINITY" in run(env, "qconf", "-sq", "all.q")
