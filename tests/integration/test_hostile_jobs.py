"""Issue 26's attacks of an ordinary user on the execution host, against a live cell.

A cell of its own (qmaster, scheduler, one execd started without cgroups, so that jobs are
followed by their process tree alone) where an ordinary user (``tests.identity``: a
system account, as root; else ourselves, and the parts that need a second user skip):

1. submits with ``-v LD_PRELOAD=<own library>``, ``BASH_ENV``, ``ENV``, ``PYTHONPATH``,
   ``IFS`` to a queue whose prolog is ``root@...``: nothing of the user's runs as root;
4a. sends output to a FIFO nobody reads: the job ends at ``h_rt``, and at ``qdel``;
4b. leaves a process that forks and lets its parent exit, in a loop: it ends with the job
    at ``h_rt`` and at ``qdel``;
6. plants a link, a file and a directory of their own at the TMPDIR paths of another
   user's next jobs: those jobs run, each in a private TMPDIR;
7. submits under umask 077: the output is 0600;

and the cell still answers and runs a job afterwards.
"""
from __future__ import annotations

import os
import pwd
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from clients.api import Client, job_request
from common.accounting import read_records
from deploy.cell import LocalCell
from tests.commands import command
from tests.identity import client_as, needs_root, other_users
from tests.integration.cellutil import (client, hostname, is_dead, pid_of, running_cell,
                                        true_job, wait_for)
from tests.integration.test_shepherd_security import (ESCAPE, attack_variables, beats,
                                                       end_loop)

IS_ROOT = os.geteuid() == 0
# an interpreter every user may run (ours may lie below a directory only we can enter)
PYTHON = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable


@pytest.fixture(scope="module")
def cell() -> Iterator[LocalCell]:
    """The live cell, its execd replaced by one that uses no cgroups. Its root is where
    every user can reach the job directories (pytest's temporary directories are 0700)."""
    root = Path(tempfile.mkdtemp(prefix="pyge-hostile-cell-"))
    try:
        with _no_cgroup_cell(root) as local:
            yield local
    finally:
        shutil.rmtree(root, ignore_errors=True)


@contextmanager
def _no_cgroup_cell(root: Path) -> Iterator[LocalCell]:
    with running_cell(root) as local:
        label = f"execd-{hostname()}"
        old = pid_of(local, label)
        os.kill(old, signal.SIGTERM)
        wait_for(lambda: is_dead(old) or None, 15, "the execd to stop")
        log = (local.run_dir / f"{label}.log").open("ab")
        proc = subprocess.Popen(
            [sys.executable, "-m", "execd.main", "--root", str(local.cell.root),
             "--cell", local.cell.name, "--log-file", str(local.run_dir / f"{label}.log"),
             "--hostname", hostname(), "--load-interval", "10", "--cgroups", "off"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
            cwd="/")
        (local.run_dir / f"{label}.pid").write_text(f"{proc.pid}\n")  # pyge down stops it
        try:
            with client(local) as cl:
                [job_id] = cl.submit([true_job(job_name="nocgroups")])
                [task] = cl.wait([job_id], timeout=30)[job_id]
            assert task["exit_status"] == 0, task
            yield local
        finally:
            if proc.poll() is None:
                proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            log.close()


@pytest.fixture(scope="module")
def attacker(cell: LocalCell) -> Iterator[tuple[str, Path]]:
    """The attacking user's name and a directory of theirs (as root: a system account)."""
    name = other_users(1)[0] if IS_ROOT else pwd.getpwuid(os.getuid()).pw_name
    home = Path(tempfile.mkdtemp(prefix="pyge-attacker-"))
    home.chmod(0o1777)
    try:
        yield name, home
    finally:
        shutil.rmtree(home, ignore_errors=True)


def as_user(cell: LocalCell, name: str) -> Client:
    return client_as(cell.cell, name) if IS_ROOT else client(cell)


def owned(path: Path, name: str) -> Path:
    if IS_ROOT:
        entry = pwd.getpwnam(name)
        os.chown(path, entry.pw_uid, entry.pw_gid)
    return path


def script_job(name: str, text: str, workdir: Path, **opts: Any) -> dict[str, Any]:
    return job_request(f"{name}.sh", script=text.encode(), job_name=name, cwd=str(workdir),
                       **opts)


def accounted(cell: LocalCell, job_id: int, timeout: float = 60.0) -> Any:
    def probe() -> Any:
        path = cell.cell.accounting_path
        if not path.exists():
            return None
        return next((r for r in read_records(path) if r.job_number == job_id), None)
    return wait_for(probe, timeout, f"the accounting record of job {job_id}", 0.1)


def gone_from_listing(cell: LocalCell, job_id: int, timeout: float = 30.0) -> None:
    def probe() -> bool:
        with client(cell) as cl:
            return all(t.get("state") == "finished"
                       for t in cl.jobs([job_id], include_finished=True)["tasks"])
    wait_for(probe, timeout, f"job {job_id} to leave the listing", 0.2)


def qconf(cell: LocalCell, *args: str) -> None:
    env = {**os.environ, "PYGE_ROOT": str(cell.cell.root), "PYGE_CELL": cell.cell.name}
    done = subprocess.run(command("qconf") + list(args), env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, (args, done.stdout, done.stderr)


# ------------------------------------------------------------------ 1. a root prolog

@needs_root
def test_a_root_prolog_runs_nothing_of_the_user(cell: LocalCell,
                                                attacker: tuple[str, Path]) -> None:
    name, home = attacker
    env = attack_variables(home)
    for path in home.rglob("*"):
        owned(path, name)
    site = Path(tempfile.mkdtemp(prefix="pyge-site-"))  # root's, 0700
    prolog = site / "prolog.sh"
    prolog.write_text(f"#!/bin/bash\nenv > {site}/prolog.env\npython3 -c pass\n")
    prolog.chmod(0o755)
    qconf(cell, "-mattr", "queue", "prolog", f"root@{prolog}", "all.q")
    try:
        with as_user(cell, name) as cl:
            [job_id] = cl.submit([script_job("preload", "true\n", home, env=env,
                                             merge_output=True)])
        record = accounted(cell, job_id)
        assert (record.failed, record.exit_status) == (0, 0), record
        made = {p.name for p in home.iterdir()}
        assert not {"bash_env-0", "python-0", "preloaded-0"} & made, made
        seen = dict(line.split("=", 1) for line in
                    (site / "prolog.env").read_text().splitlines() if "=" in line)
        assert not {"LD_PRELOAD", "BASH_ENV", "ENV", "PYTHONPATH", "IFS"} & set(seen)
        assert seen["PATH"] == "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    finally:
        qconf(cell, "-mattr", "queue", "prolog", "NONE", "all.q")
        shutil.rmtree(site)


# ------------------------------------------------------------- 4a. a FIFO at -o

def test_a_fifo_at_the_output_ends_at_h_rt_and_at_qdel(cell: LocalCell,
                                                       attacker: tuple[str, Path]) -> None:
    name, home = attacker
    fifo = home / "fifo"
    os.mkfifo(fifo)
    owned(fifo, name)
    with as_user(cell, name) as cl:
        [limited] = cl.submit([script_job("fifo_hrt", "echo x\n", home,
                                          stdout_paths=[str(fifo)], merge_output=True,
                                          hard_resources={"h_rt": "3"})])
        [deleted] = cl.submit([script_job("fifo_qdel", "echo x\n", home,
                                          stdout_paths=[str(fifo)], merge_output=True)])
        wait_for(lambda: any(t.get("state") == "running" for t in cl.jobs([deleted])["tasks"]),
                 30, "the FIFO job to run", 0.2)
        cl.delete([{"job_id": deleted}])
    record = accounted(cell, limited)
    assert record.failed == 37 and record.exit_status == 137, record
    accounted(cell, deleted)
    gone_from_listing(cell, deleted)  # not left "dr"
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


# ------------------------------------------------ 4b. a fork loop without cgroups

@pytest.mark.parametrize("end", ["h_rt", "qdel"])
def test_a_fork_loop_ends_with_its_job(cell: LocalCell, attacker: tuple[str, Path],
                                       end: str) -> None:
    name, home = attacker
    script, heartbeat = home / f"escape-{end}.py", home / f"heartbeat-{end}"
    script.write_text(ESCAPE)
    heartbeat.touch()
    owned(script, name)
    owned(heartbeat, name)
    resources = {"h_rt": "3"} if end == "h_rt" else {}
    try:
        with as_user(cell, name) as cl:
            [job_id] = cl.submit([script_job(
                f"loop_{end}", f"{PYTHON} {script} {heartbeat} loop &\nsleep 60\n",
                home, hard_resources=resources, merge_output=True)])
            deadline = time.monotonic() + 30
            while not beats(heartbeat):
                assert time.monotonic() < deadline, ("the fork loop did not start", [
                    (p.name, p.read_text()) for p in home.glob(f"loop_{end}.o*")])
            if end == "qdel":
                cl.delete([{"job_id": job_id}])
        record = accounted(cell, job_id)
        assert record.exit_status == 137, record
        gone_from_listing(cell, job_id)
        assert not beats(heartbeat), "the fork loop outlived its job"
    finally:
        end_loop(heartbeat, str(script))


# ------------------------------------------------------- 6. planted TMPDIRs

def test_planted_tmpdirs_do_not_cost_the_victim_its_jobs(cell: LocalCell,
                                                         attacker: tuple[str, Path]) -> None:
    name, home = attacker
    victim_out = Path(tempfile.mkdtemp(prefix="pyge-victim-"))
    planted: list[Path] = []
    try:
        with client(cell) as victim:
            [first] = victim.submit([true_job(job_name="probe")])
            victim.wait([first], timeout=30)
            kinds = ["symlink", "file"] + (["directory"] if IS_ROOT else [])
            for offset, kind in enumerate(kinds, start=1):  # the victim's next job ids
                path = Path(f"/tmp/{first + offset}.1.all.q")
                planted.append(path)
                if kind == "symlink":
                    path.symlink_to(home)
                elif kind == "file":
                    path.write_text("planted\n")
                else:
                    path.mkdir()
                if IS_ROOT:
                    owned_ids = pwd.getpwnam(name)
                    os.lchown(path, owned_ids.pw_uid, owned_ids.pw_gid)
            jobs = [script_job(f"victim{i}", 'echo "$TMPDIR"; touch "$TMPDIR/mine"\n',
                               victim_out, merge_output=True) for i in range(len(kinds))]
            ids = victim.submit(jobs)
            assert ids == [first + i for i in range(1, len(kinds) + 1)]
            done = victim.wait(ids, timeout=60)
        for job_id, path in zip(ids, planted):
            [task] = done[job_id]
            assert task["exit_status"] == 0, task
            out = (victim_out / f"victim{job_id - first - 1}.o{job_id}").read_text()
            tmpdir = out.splitlines()[0]
            assert tmpdir.startswith(f"{path}.") and not os.path.lexists(tmpdir)
            assert os.path.lexists(path)  # what was planted is left alone
        assert not list(home.glob("mine"))
    finally:
        for path in planted:
            if path.is_dir() and not path.is_symlink():
                path.rmdir()
            elif os.path.lexists(path):
                path.unlink()
        shutil.rmtree(victim_out)


# ------------------------------------------------------------------ 7. the umask

def test_output_under_umask_077_is_the_owner_s_alone(cell: LocalCell,
                                                     attacker: tuple[str, Path]) -> None:
    name, home = attacker
    job = script_job("private", "echo secret\n", home, merge_output=True)
    job["umask"] = 0o077
    with as_user(cell, name) as cl:
        [job_id] = cl.submit([job])
        [task] = cl.wait([job_id], timeout=30)[job_id]
    assert task["exit_status"] == 0, task
    assert stat.S_IMODE((home / f"private.o{job_id}").stat().st_mode) == 0o600


# --------------------------------------------------------- the cell afterwards

def test_the_cell_still_answers_and_runs_jobs(cell: LocalCell) -> None:
    with client(cell) as cl:
        [job_id] = cl.submit([true_job(job_name="after")])
        [task] = cl.wait([job_id], timeout=30)[job_id]
    assert task["exit_status"] == 0, task
    leftover = [p for p in (cell.cell.execd_spool_dir(hostname()) / "jobs").iterdir()
                if p.name != f"{job_id}.1"]
    wait_for(lambda: not [p for p in leftover if p.exists()] or None, 30,
             "the job directories to be removed (a shepherd still running?)")
