"""A live cell's mail (sge_conf(5) ``mailer``, qsub -m/-M) through a mailer script that
records what it is given, and a job that uses the q* commands with no set-up of its own
(the cell from SGE_ROOT/SGE_CELL of its environment), as 8.1.9's jobs do.

One module cell (tests/e2e/conftest.py); every wait has a deadline on an event (a file
the mailer wrote, a job's state), never a fixed sleep.
"""
from __future__ import annotations

import getpass
import stat
import sysconfig
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from clients.api import Client, job_request
from common.cell import Cell

T = TypeVar("T")
RECORDER = """#!/bin/sh
# one file per call: the arguments, then what came on stdin
f={out}/mail.$$
{{ for a in "$@"; do echo "arg=$a"; done; echo "--- stdin"; cat; }} > $f.tmp
mv $f.tmp $f
"""


def until(what: Callable[[], T | None], timeout: float = 20.0) -> T:
    deadline = time.monotonic() + timeout
    while True:
        got = what()
        if got:
            return got
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def set_global(client: Client, **values: str) -> None:
    pairs = [[k, values.pop(k, v)] for k, v in client.conf_get("conf")["global"]]
    client.conf_put("conf", "global", pairs + [[k, v] for k, v in values.items()], "modify")


def mails(out: Path) -> dict[str, list[str]]:
    """subject -> the recipients it went to, from the recorder's files."""
    found: dict[str, list[str]] = {}
    for path in out.glob("mail.*"):
        if path.suffix == ".tmp":
            continue
        args = [line[4:] for line in path.read_text().split("--- stdin")[0].splitlines()
                if line.startswith("arg=")]
        found.setdefault(args[1], []).append(args[2])
    return found


def state(client: Client, job_id: int) -> str:
    tasks = client.jobs([job_id], include_finished=True)["tasks"]
    return tasks[0]["state"] if tasks else ""


def qmod(client: Client, action: str, job_id: int) -> None:
    client.request("qmod", {"user": client.user.to_dict(),
                            "items": [{"action": action, "scope": "job", "ref": str(job_id)}]})


def test_mail_for_begin_end_abort_and_suspend(cell: Cell, client: Client,
                                              tmp_path: Path) -> None:
    out = tmp_path / "mails"
    out.mkdir()
    for path in (tmp_path, out):
        path.chmod(0o755)
    mailer = tmp_path / "mailer.sh"
    mailer.write_text(RECORDER.format(out=out))
    mailer.chmod(stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
    old = client.conf_get("conf")["global"]
    set_global(client, mailer=str(mailer))
    try:
        go = tmp_path / "go"
        wait_go = f"while [ ! -e {go} ]; do sleep 0.05; done"
        [ends] = client.submit([job_request("/bin/sh", ["-c", f"'{wait_go}'"], binary=True,
                                            job_name="ends", mail_options="bes")])
        [dies] = client.submit([job_request("/bin/sleep", ["600"], binary=True,
                                            job_name="dies", mail_options="a",
                                            mail_list=["someone@example.org"])])
        me = f"{getpass.getuser()}@"
        until(lambda: f"Job {ends} (ends) Started" in mails(out))
        assert mails(out)[f"Job {ends} (ends) Started"][0].startswith(me)
        qmod(client, "suspend", ends)
        until(lambda: f"Job {ends} (ends) Suspended" in mails(out))
        qmod(client, "unsuspend", ends)
        until(lambda: f"Job {ends} (ends) Continued" in mails(out))
        go.touch()
        until(lambda: f"Job {ends} (ends) Complete" in mails(out))
        until(lambda: state(client, dies) == "running")
        client.delete([{"job_id": dies}])
        until(lambda: f"Job {dies} (dies) Aborted" in mails(out))
        got = mails(out)
        assert got[f"Job {dies} (dies) Killed"] == got[f"Job {dies} (dies) Aborted"] == \
            ["someone@example.org"]
        assert not any(f"Job {dies} (dies) Started" == s for s in got)  # (-m a only)
        complete = next(p for p in out.glob("mail.*")
                        if f"arg=Job {ends} (ends) Complete" in p.read_text())
        assert " Exit Status      = 0\n" in complete.read_text()
    finally:
        client.conf_put("conf", "global", old, "modify")


def test_a_job_submits_a_job_and_lists_jobs_with_no_set_up(cell: Cell, client: Client,
                                                           tmp_path: Path) -> None:
    """The job's environment has no PYGE_ROOT: only the SGE_ROOT/SGE_CELL 8.1.9 gives
    every job. 8.1.9's PATH has no q* commands (and a login shell's /etc/profile resets
    PATH, -V or not): the job names them by their full path. The inner qsub -V proves
    the same user the outer job runs as."""
    scripts = sysconfig.get_path("scripts")
    tmp_path.chmod(0o755)
    listing = tmp_path / "qstat.out"
    body = (f"env | grep -c ^PYGE_ > {tmp_path}/pyge.count; "
            f"{scripts}/qsub -V -terse -b y -N inner /bin/true > {tmp_path}/inner.id && "
            f"{scripts}/qstat -j $JOB_ID > {listing} 2>&1")
    [outer] = client.submit([job_request("/bin/sh", ["-c", f"'{body}'"], binary=True,
                                         job_name="outer",
                                         stdout_paths=[str(tmp_path / "o")],
                                         stderr_paths=[str(tmp_path / "e")])])
    [task] = client.wait([outer], timeout=30)[outer]
    assert task["exit_status"] == 0, (tmp_path / "e").read_text()
    assert (tmp_path / "pyge.count").read_text().strip() == "0"
    inner = int((tmp_path / "inner.id").read_text().strip())
    [inner_task] = client.wait([inner], timeout=30)[inner]
    assert inner_task["exit_status"] == 0 and inner_task["started"], inner_task
    [job] = client.jobs([inner], include_finished=True)["jobs"]
    assert job["owner"] == getpass.getuser()
    assert f"job_number:                 {outer}" in listing.read_text()
