"""Attacks of a job owner on the shepherd that runs their job (issue 26), each with a real
shepherd launched on a temporary job directory (no daemons), as tests/integration/
test_shepherd.py runs them:

- a ``root@`` prolog must get none of the owner's variables (LD_PRELOAD, BASH_ENV, ENV,
  PYTHONPATH, IFS) and a fixed PATH: the owner's library and scripts would run as root;
- a FIFO at ``-o`` must not hold the shepherd: h_rt and qdel end the job, a prolog's
  output opening too;
- a process that forks and lets its parent exit, in a loop, must not outlive its job
  without cgroups, at qdel or at h_rt;
- output files follow the job's umask.
"""
from __future__ import annotations

import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from execd.launcher import Launcher, is_shepherd_alive
from execd.shepherd import request_action
from tests.integration.test_job_control import start
from tests.integration.test_shepherd import (  # noqa: F401 - nobody_work: a fixture
    IS_ROOT, nobody_work, owner_spec, read_env, run_job, wait_result)

needs_root = pytest.mark.skipif(not IS_ROOT, reason="a root shepherd and a second user")


def shepherd_gone(job_dir: Path, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while is_shepherd_alive(job_dir):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


# ------------------------------------------------------------------ 1. a root prolog

EVIL_C = r"""
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
__attribute__((constructor)) static void evil(void) {
    char path[4096];
    snprintf(path, sizeof path, "%s/preloaded-%d", MARKERS, (int)geteuid());
    close(open(path, O_WRONLY | O_CREAT, 0644));
}
"""


def attack_variables(work: Path) -> dict[str, str]:
    """The variables a job owner sets with -v so that a root process runs their code,
    with the files they name made in ``work``: each leaves a marker ``<what>-<euid>`` in
    ``work`` when it runs (LD_PRELOAD only where a C compiler is)."""
    (work / "x.sh").write_text(f'touch "{work}/bash_env-$(id -u)"\n')
    py = work / "py"
    py.mkdir()
    (py / "sitecustomize.py").write_text(
        f"import os\nopen('{work}/python-%d' % os.geteuid(), 'w').close()\n")
    env = {"BASH_ENV": str(work / "x.sh"), "ENV": str(work / "x.sh"),
           "PYTHONPATH": str(py), "IFS": "/"}
    if shutil.which("cc"):
        (work / "evil.c").write_text(EVIL_C)
        subprocess.run(["cc", "-shared", "-fPIC", f'-DMARKERS="{work}"', "-o",
                        str(work / "evil.so"), str(work / "evil.c")], check=True)
        env["LD_PRELOAD"] = str(work / "evil.so")
    return env


def _attack_env(work: Path) -> dict[str, str]:
    """``attack_variables`` and a PATH through ``work``, its files nobody's."""
    env = {**attack_variables(work), "PATH": f"{work}:/usr/bin:/bin"}
    for path in work.rglob("*"):
        os.chown(path, pwd.getpwnam("nobody").pw_uid, -1)
    return env


def _prolog(directory: Path) -> Path:
    """A site's root prolog: bash, records its environment where only root writes, runs
    Python (as site prologs do)."""
    prolog = directory / "prolog.sh"
    prolog.write_text(f"#!/bin/bash\nenv > {directory}/prolog.env\npwd > {directory}/prolog.pwd\n"
                      f"python3 -c pass\n")
    prolog.chmod(0o755)
    return prolog


@needs_root
def test_a_root_prolog_gets_nothing_the_owner_chose(
        launcher: Launcher, nobody_work: tuple[Path, pwd.struct_passwd]) -> None:
    work, nobody = nobody_work
    env = _attack_env(work)
    site = Path(tempfile.mkdtemp(prefix="pyge-site-"))  # root's, 0700
    try:
        prolog = _prolog(site)
        result = run_job(launcher, work, "python3 -c pass\n", shell="/bin/bash", env=env,
                         prolog=f"root@{prolog}", **owner_spec(nobody))
        assert result["failed"] == 0, result
        # the attack is real: the owner's own job runs the owner's code (as the owner) ...
        mine = {p.name for p in work.iterdir()}
        assert f"bash_env-{nobody.pw_uid}" in mine and f"python-{nobody.pw_uid}" in mine
        if "LD_PRELOAD" in env:
            assert f"preloaded-{nobody.pw_uid}" in mine
        # ... and none of it ran as root
        assert not {"bash_env-0", "python-0", "preloaded-0"} & mine, mine
        seen = read_env(site / "prolog.env")
        for name in ("LD_PRELOAD", "BASH_ENV", "ENV", "PYTHONPATH", "IFS"):
            assert name not in seen, name
        assert seen["PATH"] == "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
        assert (seen["HOME"], seen["USER"], seen["LOGNAME"]) == ("/root", "root", "root")
        assert (seen["JOB_ID"], seen["QUEUE"]) == ("4242", "all.q")
        assert seen["SGE_STDOUT_PATH"] == str(work / "testjob.o4242")
        assert (site / "prolog.pwd").read_text() == "/\n"
    finally:
        shutil.rmtree(site)


@needs_root
def test_a_prolog_of_the_owner_keeps_the_job_environment(
        launcher: Launcher, nobody_work: tuple[Path, pwd.struct_passwd]) -> None:
    """Only procedures of other ids are cleaned: the owner's own (no ``user@``, or the
    owner named) gets the job's environment, as in Grid Engine."""
    work, nobody = nobody_work
    prolog = work / "prolog.sh"
    prolog.write_text(f"#!/bin/sh\nenv > {work}/prolog.env\n")
    prolog.chmod(0o755)
    result = run_job(launcher, work, "true\n", env={"MINE": "1", "PYTHONPATH": "/x"},
                     prolog=f"nobody@{prolog}", **owner_spec(nobody))
    assert result["failed"] == 0, result
    seen = read_env(work / "prolog.env")
    assert (seen["MINE"], seen["PYTHONPATH"]) == ("1", "/x")
    assert seen["PATH"] == f"{work}/tmp/4242.1.all.q:/usr/local/bin:/bin:/usr/bin"
    assert seen["HOME"] == nobody.pw_dir


# ------------------------------------------------------------- 4a. a FIFO at -o

@pytest.mark.parametrize("end", ["h_rt", "terminate"])
def test_a_fifo_at_the_output_path_does_not_hold_the_shepherd(
        launcher: Launcher, tmp_path: Path, end: str) -> None:
    """Nobody ever reads the FIFO: the job's open() waits for ever, in the job's child;
    h_rt (or qdel) ends the job, and the shepherd writes its result and exits."""
    os.mkfifo(tmp_path / "fifo")
    limits = {"h_rt": 1.0} if end == "h_rt" else {}
    job_dir = start(launcher, tmp_path, "echo never\n", stdout_path=str(tmp_path / "fifo"),
                    merge=True, limits=limits)
    if end == "terminate":
        time.sleep(0.3)
        assert request_action(job_dir, "terminate")
    result = wait_result(job_dir, timeout=15)
    assert result["ended_by"] == end and result["signal"] == 9, result
    assert result["failed"] == (37 if end == "h_rt" else 100)
    assert shepherd_gone(job_dir)
    assert stat.S_ISFIFO((tmp_path / "fifo").lstat().st_mode)  # left as it was


def test_a_job_ended_before_its_exec_runs_no_epilog(launcher: Launcher,
                                                    tmp_path: Path) -> None:
    """Its epilog would wait on the same FIFO: the job never ran, so, as for a job that
    could not start, there is none, and the result comes at h_rt."""
    os.mkfifo(tmp_path / "fifo")
    epilog = tmp_path / "epilog.sh"
    epilog.write_text(f"#!/bin/sh\ntouch {tmp_path}/epilog-ran\n")
    epilog.chmod(0o755)
    job_dir = start(launcher, tmp_path, "echo never\n", stdout_path=str(tmp_path / "fifo"),
                    merge=True, limits={"h_rt": 1.0}, epilog=str(epilog))
    result = wait_result(job_dir, timeout=15)
    assert result["ended_by"] == "h_rt" and result["failed"] == 37, result
    assert shepherd_gone(job_dir) and not (tmp_path / "epilog-ran").exists()


def test_a_fifo_at_the_output_path_does_not_hold_a_prolog(launcher: Launcher,
                                                          tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    prolog = tmp_path / "prolog.sh"
    prolog.write_text("#!/bin/sh\necho prolog\n")
    prolog.chmod(0o755)
    job_dir = start(launcher, tmp_path, "echo never\n", stdout_path=str(tmp_path / "fifo"),
                    merge=True, prolog=str(prolog))
    time.sleep(0.3)
    assert request_action(job_dir, "terminate")
    result = wait_result(job_dir, timeout=15)
    assert result["action"] == "queue_error" and result["failed"] == 8, result
    assert shepherd_gone(job_dir)


# ------------------------------------------------ 4b. a fork loop without cgroups

ESCAPE = """
import os, sys
os.setsid()
open(sys.argv[1] + ".group", "w").write(str(os.getpgid(0)))
hop = sys.argv[2] == "hop"
while True:
    if os.fork():
        os._exit(0)   # the parent leaves; its child goes on, re-parented
    if hop:
        os.setpgid(0, 0)  # a process group of its own, each time
    os.utime(sys.argv[1])  # (for the test: the loop still runs)
"""


def beats(heartbeat: Path) -> bool:
    """Whether the fork loop still runs: its heartbeat file's time moves."""
    before = heartbeat.stat().st_mtime_ns
    time.sleep(0.5)
    return heartbeat.stat().st_mtime_ns != before


def stopped_or_running(marker: str) -> list[int]:
    """Processes of the loop found by a search (a stopped one stays to be found)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
            state = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if marker.encode() in cmdline and state != "Z":
            found.append(int(name))
    return found


def end_loop(heartbeat: Path, marker: str) -> None:
    """(After a failed test: the loop would run for ever.) Its first process group
    takes a group signal atomically; a hopping loop is caught by searches."""
    try:
        os.killpg(int(Path(f"{heartbeat}.group").read_text()), 9)
    except (OSError, ValueError):
        pass
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        pids = stopped_or_running(marker)
        if not pids and not beats(heartbeat):
            return
        for pid in pids:
            try:
                os.kill(pid, 9)
            except OSError:
                pass


@pytest.mark.parametrize("end", ["h_rt", "terminate", "exit"])
@pytest.mark.parametrize("kind", ["loop", "hop"])
def test_a_fork_loop_ends_with_its_job_without_cgroups(launcher: Launcher, tmp_path: Path,
                                                       end: str, kind: str) -> None:
    script, heartbeat = tmp_path / "escape.py", tmp_path / "heartbeat"
    script.write_text(ESCAPE)
    heartbeat.touch()
    job = (f"{sys.executable} {script} {heartbeat} {kind} &\n" +
           ("sleep 1\n" if end == "exit" else "sleep 60\n"))
    limits = {"h_rt": 1.5} if end == "h_rt" else {}
    try:
        job_dir = start(launcher, tmp_path, job, limits=limits)  # no "cgroup": its tree
        deadline = time.monotonic() + 10
        while not beats(heartbeat):
            assert time.monotonic() < deadline, "the fork loop did not start"
        if end == "terminate":
            assert request_action(job_dir, "terminate")
        result = wait_result(job_dir, timeout=60)
        assert result["ended_by"] == ("" if end == "exit" else end), result
        assert shepherd_gone(job_dir)
        assert not beats(heartbeat), "the fork loop outlived its job"
        assert not stopped_or_running(str(script)), "a process of the loop outlived its job"
    finally:
        end_loop(heartbeat, str(script))


# ---------------------------------------------------------------- 7. the umask

@pytest.mark.parametrize("umask, mode", [(0o077, 0o600), (0o022, 0o644), (0o027, 0o640)])
def test_output_files_follow_the_job_umask(launcher: Launcher, tmp_path: Path,
                                           umask: int, mode: int) -> None:
    run_job(launcher, tmp_path, "echo out; echo err >&2\n", umask=umask)
    for name in ("testjob.o4242", "testjob.e4242"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == mode, name


@needs_root
def test_qsub_i_reads_only_what_the_owner_may_read(
        launcher: Launcher, nobody_work: tuple[Path, pwd.struct_passwd]) -> None:
    """qsub -i names a user's path: the shepherd opens it with the owner's ids, so a
    root-only file fails the job (26) instead of feeding it to the job."""
    work, nobody = nobody_work
    secret = work / "secret"
    secret.write_text("root only\n")
    secret.chmod(0o600)
    out = run_job(launcher, work, None, binary=True, command="/bin/cat",
                  stdin_path=str(secret), **owner_spec(nobody))
    assert (out["failed"], out["failed_reason"]) == (26, "opening input/output file")
    assert f"can't open {secret} as dummy input file" in out["error_message"]
    assert not (work / "testjob.o4242").exists()
