"""Integration: qrsh -inherit on a live cell of two execds (hosts ``<machine>-1`` and
``<machine>-2``), tight integration as sge_pe(5) ``control_slaves`` describes it.

One job of PE ``tight`` (control_slaves TRUE, job_is_first_task TRUE, two slots on each
host) starts tasks from its script: one on the other host (its output comes back through
qrsh, its exit status is qrsh's), one refused on a host it was not granted, one on its
master host (which has one slot left for tasks: the job is the first), and a second one
there, refused for want of a slot while the first still runs. The job then ends and its
running task goes with it. Every task is accounted with its ``pe_taskid``;
``start_proc_args``/``stop_proc_args`` ran before and after the job with their ``$``
words expanded. A job of a PE with control_slaves FALSE is refused its task, and so is
qrsh -inherit outside a job.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from clients.api import Client
from common.accounting import read_records
from deploy.cell import LocalCell
from deploy.shape import host_names
from deploy.cell import machine_name
from qmaster.defaults import pe_defaults
from tests.cellconf import two_host_cell, with_values
from tests.commands import command

TIMEOUT = 30.0
# inside a job: the launcher pyge up wrote where Grid Engine keeps the commands, found
# through the job's own SGE_ROOT and ARC
QRSH = "$SGE_ROOT/bin/$ARC/qrsh -inherit"


@pytest.fixture(scope="module")
def two_hosts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LocalCell, Path]]:
    with two_host_cell(tmp_path_factory.mktemp("pe")) as (local, work):
        with Client(local.cell) as client:
            procs = f"{work}/pe.sh"
            Path(procs).write_text('#!/bin/sh\necho "$@" >> "$(dirname "$0")/pe.log"\n')
            os.chmod(procs, 0o755)
            client.conf_put("pe", "tight", with_values(
                pe_defaults("mpi"), pe_name="tight", slots="99", control_slaves="TRUE",
                job_is_first_task="TRUE", accounting_summary="FALSE",
                allocation_rule="$round_robin",
                start_proc_args=f"{procs} start $pe_hostfile $host $job_owner $job_id "
                                "$job_name $pe $pe_slots $queue",
                stop_proc_args=f"{procs} stop $job_id $pe"), "add")
            client.conf_put("pe", "loose", with_values(
                pe_defaults("mpi"), pe_name="loose", slots="99", control_slaves="FALSE",
                allocation_rule="$round_robin"), "add")
            queue = client.conf_get("queue")["all.q"]
            client.conf_put("queue", "all.q", with_values(
                queue, pe_list="make smp mpi tight loose"), "modify")
        yield local, work


def _env(local: LocalCell) -> dict[str, str]:
    env = dict(os.environ)
    env["PYGE_ROOT"] = str(local.cell.root)
    env["PYGE_CELL"] = local.cell.name
    return env


def qsub(local: LocalCell, *args: str) -> int:
    done = subprocess.run([sys.executable, "-m", "clients.qsub.main", "-terse", *args],
                          capture_output=True, text=True, timeout=30, env=_env(local))
    assert done.returncode == 0, done.stderr
    return int(done.stdout.strip())


def wait_done(local: LocalCell, job_id: int) -> dict[str, Any]:
    with Client(local.cell) as client:
        [task] = client.wait([job_id], timeout=TIMEOUT)[job_id]
    return task


def wait_records(local: LocalCell, job_id: int, count: int) -> list[Any]:
    deadline = time.monotonic() + TIMEOUT
    while True:
        records = [r for r in read_records(local.cell.accounting_path)
                   if r.job_number == job_id]
        if len(records) >= count or time.monotonic() > deadline:
            return records
        time.sleep(0.1)


SCRIPT = """#!/bin/sh
Q="{qrsh}"
master=$(head -1 "$PE_HOSTFILE" | cut -d' ' -f1)
other=$(sed -n 2p "$PE_HOSTFILE" | cut -d' ' -f1)
echo "hosts $master $other"
echo "tmpdir $TMPDIR"
$Q $other 'echo "task on $HOSTNAME of $JOB_ID"; echo "$JOB_NAME ${PE_HOSTFILE:-no} $TMPDIR"; exit 3'
echo "rc $?"
$Q nosuchhost true
echo "rc $?"
$Q -nostdin $master 'echo first $TMPDIR; exec sleep 3599.5' > {work}/first.$JOB_ID &
i=0
while ! grep -q first {work}/first.$JOB_ID 2>/dev/null; do
    i=$((i+1)); [ $i -gt 300 ] && break; sleep 0.1
done
$Q $master echo second
echo "rc $?"
"""


def test_qrsh_inherit_tasks_of_a_job(two_hosts: tuple[LocalCell, Path]) -> None:
    local, work = two_hosts
    script = work / "job.sh"
    script.write_text(SCRIPT.replace("{qrsh}", QRSH).replace("{work}", str(work)))
    out = work / "job.out"
    job_id = qsub(local, "-pe", "tight", "4", "-o", str(out), "-j", "y", "-wd", str(work),
                  "-N", "tightjob", str(script))
    task = wait_done(local, job_id)
    text = out.read_text()
    h1, h2 = host_names(2, machine_name())
    lines = text.splitlines()
    master, other = lines[0].split()[1:]
    assert {master, other} == {h1, h2}, text
    assert f"task on {other} of {job_id}" in lines, text
    at = lines.index(f"task on {other} of {job_id}")
    # 8.1.9: a task is "petask", has no PE_HOSTFILE; TMPDIR: on the master host the
    # job's own (below), elsewhere one of its own (here beside the job's: both "hosts"
    # share this machine's /tmp, where the job's name is taken)
    tmpdir = lines[1].split()[1]
    name, no_hostfile, its_tmpdir = lines[at + 1].split()
    assert (name, no_hostfile) == ("petask", "no"), text
    assert its_tmpdir.startswith(f"{tmpdir}.") and not os.path.exists(its_tmpdir), text
    assert lines[at + 2] == "rc 3", text
    assert (work / f"first.{job_id}").read_text() == f"first {tmpdir}\n"
    assert f"error: executing task of job {job_id} failed: failed sending task to " \
           "execd@nosuchhost: can't resolve host name" in lines, text
    assert "first" not in lines and "second" not in lines, text
    assert lines[-1] == "rc 1", text
    assert f'error: executing task of job {job_id} failed: execution daemon on host ' \
           f'"{master}" didn\'t accept task' in lines, text
    assert task["exit_status"] == 0, task
    # every task accounted, the one still running when the job ended too
    records = wait_records(local, job_id, 3)
    by_task = {r.pe_taskid: r for r in records}
    assert sorted(by_task) == sorted(["NONE", f"1.{other}", f"2.{master}"]), records
    assert by_task[f"1.{other}"].exit_status == 3
    assert by_task[f"1.{other}"].hostname == other
    assert by_task[f"2.{master}"].hostname == master
    # qacct -j shows them all, as ordinary records (8.1.9: qacct-j-10.out)
    qacct = subprocess.run(command("qacct") + ["-j", str(job_id)], capture_output=True,
                           text=True, timeout=30, env=_env(local))
    assert qacct.stdout.count("=" * 62 + "\n") == 3, qacct.stdout + qacct.stderr
    log = (work / "pe.log").read_text().splitlines()
    words = log[0].split()
    assert words[0] == "start", log
    assert words[2:] == [master, _user(), str(job_id), "tightjob", "tight", "4", "all.q"], log
    assert words[1].endswith(f"/{job_id}.1/pe_hostfile"), log
    assert log[1] == f"stop {job_id} tight", log
    _no_process_left("sleep 3599.5")


def test_a_pe_without_control_slaves_starts_no_task(two_hosts: tuple[LocalCell, Path]
                                                   ) -> None:
    local, work = two_hosts
    script = work / "loose.sh"
    script.write_text(f"#!/bin/sh\n{QRSH} $HOSTNAME true\necho \"rc $?\"\n")
    out = work / "loose.out"
    job_id = qsub(local, "-pe", "loose", "2", "-o", str(out), "-j", "y", str(script))
    wait_done(local, job_id)
    text = out.read_text()
    assert f"error: executing task of job {job_id} failed: execution daemon on host " \
           f'"{machine_name()}' in text, text
    assert text.splitlines()[-1] == "rc 1", text


def test_qrsh_inherit_outside_a_job() -> None:
    env = {k: v for k, v in os.environ.items() if k != "JOB_ID"}
    done = subprocess.run(command("qrsh") + ["-inherit", "somehost", "true"],
                          capture_output=True, text=True, timeout=30, env=env)
    assert done.returncode == 1
    assert done.stderr == 'error: "qrsh" called with option "-inherit", but "JOB_ID" not ' \
                          "set in environment\n"


def _user() -> str:
    import pwd
    return pwd.getpwuid(os.getuid()).pw_name


def _no_process_left(pattern: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while True:
        found = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True)
        if not found.stdout.strip() or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert not found.stdout.strip(), f"left running: {found.stdout}"


def _state(pid: str) -> str:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0]
    except OSError:
        return ""


def test_tasks_are_suspended_and_ended_with_their_job(two_hosts: tuple[LocalCell, Path]
                                                      ) -> None:
    """A task whose qrsh client is not the job's (8.1.9 lets any process of the owner
    name the job by JOB_ID) lives on its own: only the job's signals reach it."""
    local, work = two_hosts
    go = work / "go"
    script = work / "waits.sh"
    script.write_text(f"#!/bin/sh\nwhile [ ! -e {go} ]; do sleep 0.1; done\n")
    job_id = qsub(local, "-pe", "tight", "4", "-o", "/dev/null", "-j", "y", str(script))
    with Client(local.cell) as client:
        deadline = time.monotonic() + TIMEOUT
        while True:
            [task] = client.jobs([job_id])["tasks"]
            if task["state"] == "running" or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        other = next(h for _, h, _ in task["granted"] if h != task["host"])
        env = {**_env(local), "JOB_ID": str(job_id), "SGE_TASK_ID": "undefined"}
        qrsh = subprocess.Popen(command("qrsh") + ["-inherit", "-nostdin", other,
                                                   "echo up; exec sleep 3598.25"], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert qrsh.stdout is not None and qrsh.stdout.readline() == "up\n"
            [pid] = _pids_of("^sleep 3598.25")
            # qstat -t: the running task in the job query and on a SLAVE line (issue 31)
            listed = client.jobs([job_id], pe_tasks=True)["pe_tasks"]
            assert [r["pe_task_id"] for r in listed] == ["1." + other], listed
            shown = subprocess.run(command("qstat") + ["-t"], env=_env(local), text=True,
                                   capture_output=True, timeout=TIMEOUT).stdout
            assert any("SLAVE" in line and f" 1.{other} " in line
                       for line in shown.splitlines()), shown
            client.request("qmod", {"user": client._user(), "items": [
                {"action": "suspend", "scope": "job", "ref": str(job_id)}]})
            _until(lambda: _state(pid) == "T", "the task stopped")
            client.request("qmod", {"user": client._user(), "items": [
                {"action": "unsuspend", "scope": "job", "ref": str(job_id)}]})
            _until(lambda: _state(pid) in ("S", "R"), "the task running again")
            go.touch()
            assert qrsh.wait(timeout=TIMEOUT) == 137, qrsh.stderr.read()  # type: ignore
        finally:
            if qrsh.poll() is None:
                qrsh.kill()
                qrsh.wait()
    _no_process_left("sleep 3598.25")
    records = wait_records(local, job_id, 2)
    assert sorted(r.pe_taskid for r in records) == ["1." + other, "NONE"], records


def _pids_of(pattern: str) -> list[str]:
    return subprocess.run(["pgrep", "-f", pattern], capture_output=True,
                          text=True).stdout.split()


def _until(probe: Any, what: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not probe():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_a_failing_start_proc_args_fails_the_job_as_8_1_9s(two_hosts: tuple[LocalCell, Path]
                                                           ) -> None:
    """sge_pe(5) start_proc_args exiting 3: the job does not run, goes back to qw with
    8.1.9's error reason, and the queue instance is set in error (tests/data/reference/pe
    qstat-j-startfail.out, qstat-explain-after-startfail.out). Cleared afterwards."""
    local, work = two_hosts
    fails = work / "fails.sh"
    fails.write_text("#!/bin/sh\nexit 3\n")
    fails.chmod(0o755)
    ran = work / "ran"
    with Client(local.cell) as client:
        client.conf_put("pe", "failing", with_values(pe_defaults("mpi"), pe_name="failing",
                                               slots="99", start_proc_args=str(fails)), "add")
        queue = client.conf_get("queue")["all.q"]
        client.conf_put("queue", "all.q", with_values(queue, pe_list="tight loose failing"),
                        "modify")
        host = host_names(2, machine_name())[0]  # (one host: no second try elsewhere)
        job_id = qsub(local, "-pe", "failing", "1", "-q", f"all.q@{host}", "-o", "/dev/null",
                      "-j", "y", "-b", "y", "touch", str(ran))
        try:
            deadline = time.monotonic() + TIMEOUT
            while True:
                [task] = client.jobs([job_id])["tasks"]
                if task.get("error_reason") or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
            # (qstat -j does not show a requeued task's error reason yet: the API does)
            assert (task["state"], task["error_reason"]) == \
                ("pending", "exit_status of pe_start = 3"), task
            listing = subprocess.run(command("qstat") + ["-f", "-explain", "E"],
                                     capture_output=True, text=True, env=_env(local)).stdout
            assert f"queue all.q marked QERROR as result of job {job_id}'s failure at " \
                f"host {host}" in listing, listing
            assert not ran.exists()
        finally:
            client.delete([{"job_id": job_id}])
            client.request("qmod", {"user": client._user(), "items": [
                {"action": "clear", "scope": "queue", "ref": "all.q"}]})
