"""sched_conf(5) ``schedd_job_info`` and ``qconf -tsm`` through the real qconf and qstat on
a live cell (qmaster, scheduler, one execd): with ``false`` qstat -j says that the
collection is off instead of giving reasons, a bad value is refused at -Msconf in 8.1.9's
words, and ``qconf -tsm`` appends a run log to the cell's ``common/schedd_runlog``.
The pure parts are tests/unit/test_sched_info.py's. The queue instance is disabled so
that the job waits for a reason known in advance; each test restores what it changed."""
from __future__ import annotations

import getpass
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from clients.api import Client, job_request
from common.cell import Cell
from tests.commands import command

TURNED_OFF = ("scheduling info:            "
              "(Collecting of scheduler job information is turned off)\n")


def run(env: dict[str, str], name: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command(name) + list(args), env=env, capture_output=True,
                          text=True, timeout=60)


def set_sconf(client: Client, **values: str) -> dict[str, str]:
    pairs = client.conf_get("sconf")["global"]
    old = {k: v for k, v in pairs if k in values}
    client.conf_put("sconf", "global", [[k, values.get(k, v)] for k, v in pairs], "modify")
    return old


@pytest.fixture
def waiting_job(env: dict[str, str], client: Client) -> Iterator[tuple[int, str]]:
    """A job that waits because every queue instance is disabled; its reason line."""
    done = run(env, "qmod", "-d", "all.q")
    assert done.returncode == 0, done.stderr
    [job_id] = client.submit([job_request("/bin/true", binary=True)])
    try:
        lines = run(env, "qstat", "-j", str(job_id)).stdout
        found = re.search(r'queue instance "[^"]+" dropped because it is disabled', lines)
        assert found, lines
        yield job_id, found.group(0)
    finally:
        client.delete([{"job_id": job_id}])
        run(env, "qmod", "-e", "all.q")


def test_schedd_job_info_false_turns_qstat_j_reasons_off(
        env: dict[str, str], client: Client, waiting_job: tuple[int, str]) -> None:
    job_id, reason = waiting_job
    old = set_sconf(client, schedd_job_info="false")
    try:
        shown = run(env, "qstat", "-j", str(job_id))
        assert shown.returncode == 0, shown.stderr
        assert shown.stdout.endswith(TURNED_OFF), shown.stdout
        assert reason not in shown.stdout
        summary = run(env, "qstat", "-j")
        assert summary.stdout == TURNED_OFF + "\n"
        set_sconf(client, schedd_job_info=f"job_list {job_id + 1000}")
        listed = run(env, "qstat", "-j", str(job_id)).stdout
        assert listed.endswith("scheduling info:            "
                               "(Scheduler job information not available for every job)\n")
    finally:
        set_sconf(client, **old)
    assert run(env, "qstat", "-j", str(job_id)).stdout.endswith(reason + "\n")
    assert run(env, "qstat", "-j").stdout == ""


def test_msconf_refuses_a_bad_schedd_job_info(env: dict[str, str], client: Client,
                                              tmp_path: Path) -> None:
    shown = run(env, "qconf", "-ssconf").stdout
    bad = tmp_path / "sconf"
    bad.write_text(re.sub(r"(?m)^schedd_job_info\s+.*$", "schedd_job_info  maybe", shown))
    done = run(env, "qconf", "-Msconf", str(bad))
    assert done.returncode != 0
    assert 'attribute "schedd_job_info " is not a valid parameter' in done.stderr
    assert dict(client.conf_get("sconf")["global"])["schedd_job_info"] == "true"


def test_qconf_tsm_writes_the_run_log(env: dict[str, str], cell: Cell,
                                      waiting_job: tuple[int, str]) -> None:
    job_id, reason = waiting_job
    runlog = cell.common_dir / "schedd_runlog"
    before = runlog.read_text() if runlog.exists() else ""
    done = run(env, "qconf", "-tsm")
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert re.fullmatch(rf"{re.escape(getpass.getuser())}@\S+ triggers scheduler "
                        r"monitoring\n", done.stderr), done.stderr
    text = runlog.read_text()
    assert text.startswith(before)
    lines = [line.split("|", 1)[1] for line in text[len(before):].splitlines()]
    assert lines[0] == "-------------START-SCHEDULER-RUN-------------"
    assert f"Job {job_id} {reason}" in lines
    assert lines[-1] == "--------------STOP-SCHEDULER-RUN-------------"
