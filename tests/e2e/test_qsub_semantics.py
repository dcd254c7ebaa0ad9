"""qsub's options that change what happens to the job, against a live cell (one module
cell): -a (the job starts at its time: the scheduler wakes then), -hold_jid_ad (task i
after task i), -i with -shell n (the job's stdin, the command without a shell). The
words and the rules are checked against 8.1.9 in tests/unit/test_array_deps.py,
test_qsub_verify.py and test_dispatch.py."""
from __future__ import annotations

import subprocess
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from clients.api import Client, job_request
from tests.commands import command


def qsub(env: dict[str, str], *argv: str, cwd: Path | None = None) -> str:
    proc = subprocess.run(command("qsub") + list(argv), env=env, text=True, cwd=cwd,
                          capture_output=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def states(client: Client, job: int) -> dict[int, str]:
    return {t["task_id"]: t["state"] for t in client.jobs([job], include_finished=True)["tasks"]}


def wait_for(check: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def test_a_job_waits_for_its_start_time(env: dict[str, str], client: Client) -> None:
    at = (datetime.now() + timedelta(seconds=3)).replace(microsecond=0)
    job = int(qsub(env, "-terse", "-a", at.strftime("%m%d%H%M.%S"), "-b", "y", "/bin/true"))
    assert states(client, job) == {1: "pending"}  # qw: no hold, as 8.1.9's
    detail = subprocess.run(command("qstat") + ["-j", str(job)], env=env, text=True,
                            capture_output=True, timeout=30).stdout
    assert f"execution_time:             {at.strftime('%a %b %d %H:%M:%S %Y')}" in detail
    [task] = client.wait([job], timeout=30)[job]
    started = client.jobs([job], include_finished=True)["tasks"][0]
    assert task["exit_status"] == 0
    assert (started.get("start_time") or started.get("dispatch_time") or 0) >= at.timestamp()


def test_task_i_runs_after_task_i(client: Client) -> None:
    first = client.submit([job_request("/bin/true", binary=True, array=[1, 2, 1],
                                       hold=True)])[0]
    second = client.submit([job_request("/bin/true", binary=True, array=[1, 2, 1],
                                        hold_jid_ad=[str(first)])])[0]
    assert states(client, second) == {1: "hold", 2: "hold"}
    client.release([{"job_id": first, "tasks": [[1, 1, 1]]}])
    wait_for(lambda: states(client, second).get(1) == "finished")
    assert states(client, second)[2] == "hold" and states(client, first)[2] == "hold"
    client.release([{"job_id": first}])
    client.wait([second], timeout=30)


def test_stdin_file_and_a_command_without_shell(env: dict[str, str], client: Client,
                                                tmp_path: Path) -> None:
    (tmp_path / "in").write_text("read from -i\n")
    tmp_path.chmod(0o755)
    (tmp_path / "in").chmod(0o644)
    out = tmp_path / "out"
    job = int(qsub(env, "-terse", "-cwd", "-i", "in", "-o", str(out), "-j", "y",
                   "-shell", "n", "-b", "y", "cat", "-", cwd=tmp_path))
    client.wait([job], timeout=30)
    wait_for(out.exists)
    assert out.read_text() == "read from -i\n"


def test_qalter_h_holds_and_releases_as_qhold(env: dict[str, str], client: Client) -> None:
    job = client.submit([job_request("/bin/true", binary=True, hold=True,
                                     hard_resources={"arch": "nosuch"})])[0]
    run = [*command("qalter")]
    released = subprocess.run(run + ["-h", "U", str(job)], env=env, text=True,
                              capture_output=True, timeout=30)
    assert released.returncode == 0, released.stderr
    assert states(client, job) == {1: "pending"}
    held = subprocess.run(run + ["-h", "u", "-N", "renamed", str(job)], env=env, text=True,
                          capture_output=True, timeout=30)
    assert held.returncode == 0, held.stderr
    assert f"modified job name of job {job}" in held.stdout
    assert states(client, job) == {1: "hold"}
    client.delete([{"job_id": job}])


def test_sge_aliases_map_the_cwd_and_sge_o_workdir(env: dict[str, str], client: Client,
                                                   cell: Any, tmp_path: Path) -> None:
    """sge_aliases(5): the cell's file maps the -cwd directory for the execution host and
    SGE_O_WORKDIR for the submit host (here both: ``*``)."""
    tmp_path.chmod(0o755)
    source, target = tmp_path / "automount" / "from", tmp_path / "to"
    source.mkdir(parents=True)
    target.mkdir()
    for path in (source.parent, source, target):
        path.chmod(0o777)
    (source / "job.sh").write_text("pwd\necho $SGE_O_WORKDIR\n")
    aliases = Path(cell.file("common", "sge_aliases"))
    aliases.write_text(f"# src-path sub-host exec-host replacement\n"
                       f"{tmp_path}/automount/from * * {tmp_path}/to\n")
    try:
        out = tmp_path / "out"
        job = int(qsub(env, "-terse", "-cwd", "-o", str(out), "-j", "y", "job.sh", cwd=source))
        client.wait([job], timeout=30)
        wait_for(lambda: out.exists() and len(out.read_text().split()) == 2)
        assert out.read_text().split() == [str(target), str(target)]
        aliases.write_text("/only/two words\n")
        bad = subprocess.run(command("qsub") + ["-cwd", "job.sh"], env=env, text=True,
                             cwd=source, capture_output=True, timeout=30)
        assert (bad.returncode, bad.stderr.splitlines()[0]) == (
            7, f'qsub: invalid syntax of path alias file "{aliases}"')
    finally:
        aliases.unlink()
