"""sge_conf(5) execd_params on a live cell: the host limits S_/H_DESCRIPTORS reach the
job, KEEP_ACTIVE keeps an ended job's directory (under the execd's kept_jobs/); and
shepherd_cmd, the administrator's wrapper around the shepherd."""
from __future__ import annotations

import os
import signal
import tempfile
from pathlib import Path
from typing import Iterator

import pytest

from clients.api import Client, job_request
from tests.identity import client_as, needs_root, other_user_name
from tests.integration.cellutil import (LocalCell, client, hostname, is_dead, pid_of,
                                        restart, running_cell, wait_for)


@pytest.fixture(scope="module")
def cell(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCell]:
    with running_cell(tmp_path_factory.mktemp("execd_params"), load_interval=1.0) as local:
        yield local


def set_global(cl: Client, name: str, value: str) -> None:
    pairs = cl.conf_get("conf")["global"]
    cl.conf_put("conf", "global", [[k, value if k == name else v] for k, v in pairs],
                "modify")


def set_execd_params(cl: Client, value: str) -> None:
    set_global(cl, "execd_params", value)


def run_job(cl: Client, script: Path, command: str) -> int:
    script.write_text(command + "\n")
    script.chmod(0o755)
    [job_id] = cl.submit([job_request("/bin/sh", [str(script)], binary=True,
                                      job_name="params", stdout_paths=["/dev/null"],
                                      stderr_paths=["/dev/null"])])
    [task] = cl.wait([job_id], timeout=15)[job_id]
    assert task["exit_status"] == 0, task
    return job_id


def test_descriptor_limits_and_keep_active(cell: LocalCell, tmp_path: Path) -> None:
    os.chmod(tmp_path, 0o777)
    out = tmp_path / "limits"
    kept = cell.cell.execd_spool_dir(hostname()) / "kept_jobs"
    with client(cell) as cl:
        set_execd_params(cl, "S_DESCRIPTORS=100,H_DESCRIPTORS=200,KEEP_ACTIVE=true")
        try:
            def limited() -> list[str] | None:
                # (the execd has the new value with its next load report's answer)
                run_job(cl, tmp_path / "job.sh", f"(ulimit -Sn; ulimit -Hn) > {out}")
                found = out.read_text().split()
                return found if found == ["100", "200"] else None
            wait_for(limited, 20, "the host's descriptor limits in the job")
            job = run_job(cl, tmp_path / "job.sh", "true")
            wait_for(lambda: [p for p in kept.glob(f"{job}.1-*") if p.is_dir()] or None, 15,
                     "the ended job's directory kept")
        finally:
            set_execd_params(cl, "none")


def test_shepherd_cmd_runs_the_shepherd_through_the_wrapper(cell: LocalCell,
                                                             tmp_path: Path) -> None:
    os.chmod(tmp_path, 0o755)
    marker = tmp_path / "wrapped"
    wrapper = tmp_path / "wrap.sh"
    wrapper.write_text(f'#!/bin/sh\necho "$@" >> {marker}\nexec "$@"\n')
    wrapper.chmod(0o755)
    with client(cell) as cl:
        set_global(cl, "shepherd_cmd", str(wrapper))
        try:
            def wrapped() -> bool:
                run_job(cl, tmp_path / "job.sh", "true")
                return marker.exists() and "-m execd.launcher" in marker.read_text()
            wait_for(wrapped, 20, "a job's shepherd started by the wrapper")
        finally:
            set_global(cl, "shepherd_cmd", "none")


@needs_root
def test_gid_range_gives_each_job_an_additional_group(cell: LocalCell) -> None:
    # (a directory the job's owner, another user, can reach: pytest's are root's 0700)
    with tempfile.TemporaryDirectory() as shared:
        os.chmod(shared, 0o777)
        _addgrp_of_another_users_job(cell, Path(shared))


def _addgrp_of_another_users_job(cell: LocalCell, shared: Path) -> None:
    out = shared / "groups"
    script = shared / "job.sh"
    script.write_text(f"id -G > {out}\n")
    script.chmod(0o755)
    with client(cell) as cl, client_as(cell.cell, other_user_name()) as user:
        set_global(cl, "gid_range", "65432-65433")
        try:
            def grouped() -> bool:
                [job_id] = user.submit([job_request(
                    "/bin/sh", [str(script)], binary=True, job_name="groups",
                    stdout_paths=["/dev/null"], stderr_paths=["/dev/null"])])
                [task] = user.wait([job_id], timeout=15)[job_id]
                assert task["exit_status"] == 0, task
                return "65432" in out.read_text().split()
            wait_for(grouped, 20, "the job's additional group id from gid_range")
        finally:
            set_global(cl, "gid_range", "65400-65500")


@needs_root
def test_use_qsub_gid_runs_the_job_with_the_submit_group(cell: LocalCell) -> None:
    """sge_conf(5): without USE_QSUB_GID a job runs with its owner's primary group of the
    execution host's passwd database, with it with the group it was submitted with."""
    import pwd
    name = other_user_name()
    passwd_gid = pwd.getpwnam(name).pw_gid
    other_gid = next(gid for gid in (100, 60, 10, 4242) if gid != passwd_gid)
    with tempfile.TemporaryDirectory() as shared:
        os.chmod(shared, 0o777)
        out = Path(shared) / "gid"
        script = Path(shared) / "job.sh"
        script.write_text(f"id -g >> {out}\n")
        script.chmod(0o755)
        with client(cell) as cl, client_as(cell.cell, name) as user:
            user._user_ids = (pwd.getpwnam(name).pw_uid, other_gid)  # (as after newgrp)

            def run() -> str:
                [job_id] = user.submit([job_request(
                    "/bin/sh", [str(script)], binary=True, job_name="gid",
                    stdout_paths=["/dev/null"], stderr_paths=["/dev/null"])])
                [task] = user.wait([job_id], timeout=15)[job_id]
                assert (task["exit_status"], task["failed"]) == (0, 0), task
                return out.read_text().split()[-1]
            assert run() == str(passwd_gid)
            set_execd_params(cl, "USE_QSUB_GID=true")
            try:
                wait_for(lambda: run() == str(other_gid), 20, "the job in its submit group")
            finally:
                set_execd_params(cl, "none")


def _restart_execd(local: LocalCell) -> None:
    pid = pid_of(local, f"execd-{hostname()}")
    os.kill(pid, signal.SIGTERM)
    wait_for(lambda: is_dead(pid) or None, 15, "the execd to stop")
    restart(local)


def test_execd_spool_dir_is_where_a_starting_execd_spools(cell: LocalCell,
                                                          tmp_path: Path) -> None:
    """The host-local execd_spool_dir moves the execd's spool at its next start (8.1.9:
    <execd_spool_dir>/<host>); without one it is the global value, the cell's own."""
    alt = tmp_path / "alt"
    with client(cell) as cl:
        assert dict(map(tuple, cl.conf_get("conf")["global"]))["execd_spool_dir"] == \
            str(cell.cell.execd_spool_dir(hostname()).parent)
        cl.conf_put("conf", hostname(), [["execd_spool_dir", str(alt)]], "add")
    try:
        _restart_execd(cell)
        wait_for(lambda: (alt / hostname() / "notify" / "notify.sock").exists() or None, 15,
                 "the execd's notify socket in the configured spool")
        with client(cell) as cl:
            run_job(cl, tmp_path / "job.sh", "true")
    finally:
        with client(cell) as cl:
            cl.conf_del("conf", hostname())
        _restart_execd(cell)
    sock = cell.cell.execd_spool_dir(hostname()) / "notify" / "notify.sock"
    wait_for(lambda: sock.exists() or None, 15, "the execd back in the cell's spool")
