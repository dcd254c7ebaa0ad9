"""Limits, exit statuses 99/100 and prolog failures through the console scripts of a live
cell (qsub, qconf, qacct, qstat), with what Grid Engine 8.1.9 showed for the same cases
(tests/data/reference/control/FINDINGS.md):

- ``-l h_rt`` exceeded: killed, accounted ``failed 37 : qmaster enforced h_rt, h_cpu, or
  h_vmem limit``, exit status 137;
- exit 99: rescheduled (``Rq``) and run again, each run accounted ``failed 25``;
- exit 100: error state ``Eqw``, accounted ``failed 30 : application error returned``;
- a prolog exiting 1: the queue instance in error state ``E``, the job pending again.
"""
from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from tests.commands import command
from tests.e2e.test_qconf import HOST, qconf


@pytest.fixture(scope="module")
def env(module_cell_env: dict[str, str]) -> dict[str, str]:
    return module_cell_env


def run(env: dict[str, str], name: str, *args: str) -> str:
    done = subprocess.run(command(name) + list(args), env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, (name, args, done.stdout, done.stderr)
    return done.stdout


def submit(env: dict[str, str], tmp: Path, *args: str) -> int:
    return int(run(env, "qsub", "-terse", "-o", str(tmp), "-e", str(tmp), *args).strip())


def accounting(env: dict[str, str], job_id: int, records: int = 1,
               timeout: float = 30.0) -> list[dict[str, str]]:
    """The job's qacct records once there are ``records`` of them."""
    deadline = time.monotonic() + timeout
    while True:
        done = subprocess.run(command("qacct") + ["-j", str(job_id)], env=env,
                              capture_output=True, text=True, timeout=30)
        blocks = [b for b in done.stdout.split("=" * 62) if "qname" in b]
        if len(blocks) >= records:
            return [dict((line[:13].strip(), line[13:].strip()) for line in b.splitlines()
                         if line.strip()) for b in blocks]
        assert time.monotonic() < deadline, done.stdout + done.stderr
        time.sleep(0.2)


def test_h_rt_kills_and_is_accounted_like_grid_engine(env: dict[str, str],
                                                      tmp_path: Path) -> None:
    job_id = submit(env, tmp_path, "-b", "y", "-l", "h_rt=0:0:1", "sleep", "30")
    [record] = accounting(env, job_id)
    assert record["failed"] == "37  : qmaster enforced h_rt, h_cpu, or h_vmem limit"
    assert record["exit_status"].split()[0] == "137"
    # the real time, as 8.1.9 (issue 31; tests/data/reference/lists/qacct-j-h_rt.out)
    assert int(record["ru_wallclock"].rstrip("s")) >= 1


def test_exit_99_reschedules_and_exit_100_is_an_error_state(env: dict[str, str],
                                                            tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    script = tmp_path / "twice.sh"  # exit 99 on the first run, 0 on the second
    script.write_text(f"#!/bin/sh\nif [ -e {marker} ]; then exit 0; fi\n"
                      f"touch {marker}\nexit 99\n")
    again = submit(env, tmp_path, str(script))
    records = accounting(env, again, records=2)
    assert [r["failed"].split()[0] for r in records] == ["25", "0"]
    broken = submit(env, tmp_path, "-b", "y", "sh", "-c", "'exit 100'")
    [record] = accounting(env, broken)
    assert record["failed"] == "30  : application error returned"
    deadline = time.monotonic() + 10
    while "Eqw" not in (listing := run(env, "qstat")):
        assert time.monotonic() < deadline, listing
        time.sleep(0.2)
    assert [line.split()[4] for line in listing.splitlines() if
            line.split()[:1] == [str(broken)]] == ["Eqw"]
    run(env, "qdel", str(broken))


def test_a_failing_prolog_puts_the_queue_instance_in_error(env: dict[str, str],
                                                           tmp_path: Path) -> None:
    prolog = tmp_path / "prolog.sh"
    prolog.write_text("#!/bin/sh\nexit 1\n")
    prolog.chmod(0o755)
    tmp_path.chmod(0o755)
    assert qconf(env, "-mattr", "queue", "prolog", str(prolog), "all.q")[2] == 0
    try:
        job_id = submit(env, tmp_path, "-b", "y", "true")
        [record] = accounting(env, job_id)
        assert record["failed"] == "8   : in prolog"
        deadline = time.monotonic() + 10
        while not run(env, "qstat", "-f").split(f"all.q@{HOST}")[1].split("\n")[0] \
                .rstrip().endswith("E"):
            assert time.monotonic() < deadline
            time.sleep(0.2)
        pending = [line.split() for line in run(env, "qstat").splitlines()
                   if line.split()[:1] == [str(job_id)]]
        assert pending and pending[0][4] == "qw"
        explained = run(env, "qstat", "-f", "-explain", "E").split(f"all.q@{HOST}")[1]
        assert explained.split("\n")[1] == (f"\tqueue all.q marked QERROR as result of job "
                                             f"{job_id}'s failure at host {HOST}")
    finally:
        qconf(env, "-mattr", "queue", "prolog", "NONE", "all.q")
        subprocess.run(command("qmod") + ["-c", "all.q"], env=env, capture_output=True,
                       timeout=30)
        subprocess.run(command("qdel") + ["-u", "*"], env=env, capture_output=True, timeout=30)


def test_host_overrides_of_shell_and_tmpdir_reach_the_job(env: dict[str, str],
                                                          tmp_path: Path) -> None:
    """``shell`` and ``tmpdir`` with ``[host=value]``: the job on that host gets the
    host's value (posix_compliant: the script runs under the queue's shell)."""
    base = tmp_path / "scratch"
    base.mkdir()
    tmp_path.chmod(0o755)
    base.chmod(0o1777)
    changes = {"shell": f"/bin/false,[{HOST}=/bin/bash]",
               "tmpdir": f"/nonexistent,[{HOST}={base}]",
               "shell_start_mode": "posix_compliant"}
    before = {name: run(env, "qconf", "-sq", "all.q").split(f"\n{name} ")[1].split("\n")[0]
              .strip() for name in changes}
    for name, value in changes.items():
        assert qconf(env, "-mattr", "queue", name, value, "all.q")[2] == 0
    try:
        script = tmp_path / "where.sh"
        script.write_text('echo "shell=${BASH_VERSION:+bash}"\necho "tmpdir=$TMPDIR"\n')
        job_id = submit(env, tmp_path, str(script))
        [record] = accounting(env, job_id)
        assert record["failed"].split()[0] == "0", record
        out = (tmp_path / f"where.sh.o{job_id}").read_text().splitlines()
        assert out[0] == "shell=bash", out
        assert out[1].startswith(f"tmpdir={base}/{job_id}.1."), out
    finally:
        for name, value in before.items():
            qconf(env, "-mattr", "queue", name, value, "all.q")


def test_accounting_has_the_measured_cpu_and_memory_of_every_process(
        env: dict[str, str], tmp_path: Path) -> None:
    """A busy grandchild killed by qdel: its CPU time and memory integral are in the
    record (measured over the job's processes; rusage of the job's shell never sees
    them), as 8.1.9 accounts ``cpu``, ``mem`` and ``io`` of the whole job."""
    script = tmp_path / "busy.sh"
    script.write_text("python3 -c 'import time\nt = time.process_time()\n"
                      "while time.process_time() - t < 1.5: pass\ntime.sleep(30)'\n")
    job_id = submit(env, tmp_path, str(script))
    deadline = time.monotonic() + 20
    while "cpu=00:00:01" not in run(env, "qstat", "-j", str(job_id)) and \
            time.monotonic() < deadline:
        time.sleep(0.5)  # the running usage comes with the execd's load reports
    time.sleep(0.5)
    run(env, "qdel", str(job_id))
    [record] = accounting(env, job_id)
    assert float(record["cpu"].rstrip("s")) >= 1.4, record
    assert record["mem"] != "0.000Bs", record
    assert float(record["ru_utime"].rstrip("s")) < 1.0, record  # the shell's own rusage
