"""Shepherds started by the launcher on temporary job directories (no qmaster, no execd).

Each test writes a job directory, launches a real shepherd through the zygote and checks
what Grid Engine users would see: environment, output files, exit status, usage.
"""
from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from execd import jobdir
from execd.launcher import Launcher, LauncherError, is_shepherd_alive
from execd.shepherd import signal_job

ME = pwd.getpwuid(os.getuid())
IS_ROOT = os.getuid() == 0


def make_spec(work: Path, **changes: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "job_id": 4242, "task_id": None, "job_name": "testjob", "owner": ME.pw_name,
        "uid": ME.pw_uid, "gid": ME.pw_gid, "group": "g", "binary": False,
        "command": "/submit/dir/testjob.sh", "args": [], "shell": "/bin/sh",
        "shell_start_mode": "posix_compliant", "cwd": str(work), "stdout_path": None,
        "stderr_path": None, "merge": False, "env": {},
        "sge_o": {"HOME": "/home/sub", "LOGNAME": "sub", "PATH": "/usr/bin:/bin",
                  "SHELL": "/bin/bash", "WORKDIR": "/submit/dir", "HOST": "submithost"},
        "queue": "all.q", "host": "node1", "slots": 1, "nhosts": 1, "array": None, "pe": None,
        "pe_hostfile": None, "tmpdir_base": str(work / "tmp"), "switch_user": False,
        "notify_socket": None, "login_shells": [],
    }
    (work / "tmp").mkdir(exist_ok=True)
    spec.update(changes)
    return spec


def wait_result(job_dir: Path, timeout: float = 10.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while (result := jobdir.read_result(job_dir)) is None:
        assert time.monotonic() < deadline, f"no result in {job_dir}"
        time.sleep(0.005)
    return result


def run_job(launcher: Launcher, work: Path, script: str | None = None,
            **changes: Any) -> dict[str, Any]:
    spec = make_spec(work, **changes)
    job_dir = work / f"job.{spec['job_id']}.{spec['task_id']}"
    jobdir.write_spec(job_dir, spec, script.encode() if script is not None else None)
    launcher.launch(job_dir)
    return wait_result(job_dir)


def read_env(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)


ENV_SCRIPT = "#!/bin/sh\nenv\n"


def test_job_environment(launcher: Launcher, tmp_path: Path) -> None:
    result = run_job(launcher, tmp_path, ENV_SCRIPT, env={"FOO": "bar", "JOB_ID": "1"},
                     slots=4, nhosts=2)
    assert result["exit_status"] == 0 and result["failed"] == 0
    env = read_env(tmp_path / "testjob.o4242")
    tmpdir = str(tmp_path / "tmp" / "4242.1.all.q")
    assert env["FOO"] == "bar"
    assert env["JOB_ID"] == "4242"  # Grid Engine's variables win over -v
    assert env["JOB_NAME"] == env["REQUEST"] == "testjob"
    for name in ("SGE_TASK_ID", "SGE_TASK_FIRST", "SGE_TASK_LAST", "SGE_TASK_STEPSIZE"):
        assert env[name] == "undefined"
    assert (env["NSLOTS"], env["NHOSTS"], env["QUEUE"]) == ("4", "2", "all.q")
    assert env["HOSTNAME"] == "node1"
    assert (env["USER"], env["LOGNAME"], env["HOME"]) == (ME.pw_name, ME.pw_name, ME.pw_dir)
    assert env["TMPDIR"] == env["TMP"] == tmpdir
    assert env["PATH"] == f"{tmpdir}:/usr/local/bin:/bin:/usr/bin"
    assert env["SHELL"] == "/bin/sh"
    assert env["ENVIRONMENT"] == "BATCH"
    assert env["SGE_O_WORKDIR"] == "/submit/dir" and env["SGE_O_HOST"] == "submithost"
    assert env["JOB_SCRIPT"] == str(tmp_path / "job.4242.None" / "script")
    assert env["SGE_STDOUT_PATH"] == str(tmp_path / "testjob.o4242")
    assert env["SGE_STDERR_PATH"] == str(tmp_path / "testjob.e4242")
    assert env["SGE_CWD_PATH"] == env["PWD"] == str(tmp_path)
    assert not Path(tmpdir).exists()  # removed when the job is over


def test_array_task_variables_and_output_names(launcher: Launcher, tmp_path: Path) -> None:
    run_job(launcher, tmp_path, ENV_SCRIPT + "echo oops >&2\n", task_id=5, array=[1, 9, 2])
    env = read_env(tmp_path / "testjob.o4242.5")
    assert [env[f"SGE_TASK_{n}"] for n in ("ID", "FIRST", "LAST", "STEPSIZE")] == \
        ["5", "1", "9", "2"]
    assert env["TMPDIR"].endswith("/4242.5.all.q")
    assert (tmp_path / "testjob.e4242.5").read_text() == "oops\n"


def test_path_from_user_env_keeps_tmpdir_first(launcher: Launcher, tmp_path: Path) -> None:
    run_job(launcher, tmp_path, ENV_SCRIPT, env={"PATH": "/opt/x/bin:/usr/bin"})
    env = read_env(tmp_path / "testjob.o4242")
    assert env["PATH"] == f"{env['TMPDIR']}:/opt/x/bin:/usr/bin"


def test_output_directory_file_and_relative_path(launcher: Launcher, tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    failed = run_job(launcher, tmp_path, "echo out\n", stdout_path=str(tmp_path / "logs"),
                     stderr_path="errs/my.err")
    assert failed["failed"] == 26  # no directory is created for a missing path
    assert not (tmp_path / "errs").exists()
    (tmp_path / "errs").mkdir()
    run_job(launcher, tmp_path, "echo out; echo err >&2\n", job_id=4243,
            stdout_path=str(tmp_path / "logs"), stderr_path="errs/my.err")
    assert (tmp_path / "logs" / "testjob.o4243").read_text() == "out\n"
    assert (tmp_path / "errs" / "my.err").read_text() == "err\n"


def test_path_aliases(launcher: Launcher, tmp_path: Path) -> None:
    pattern = str(tmp_path / "$JOB_NAME-$JOB_ID-$TASK_ID-$USER-$HOSTNAME.log")
    run_job(launcher, tmp_path, "echo hi\n", task_id=3, array=[1, 3, 1], stdout_path=pattern)
    assert (tmp_path / f"testjob-4242-3-{ME.pw_name}-node1.log").read_text() == "hi\n"
    run_job(launcher, tmp_path, "echo plain\n", stdout_path=str(tmp_path / "t.$TASK_ID"))
    assert (tmp_path / "t.$TASK_ID").read_text() == "plain\n"  # not an array job: kept


def test_host_specific_output_path(launcher: Launcher, tmp_path: Path) -> None:
    paths = f"othernode:{tmp_path}/other.out,node1:{tmp_path}/mine.out,{tmp_path}/any.out"
    run_job(launcher, tmp_path, "echo x\n", stdout_path=paths)
    assert (tmp_path / "mine.out").read_text() == "x\n"
    assert not (tmp_path / "other.out").exists() and not (tmp_path / "any.out").exists()


def test_merge_stderr_into_stdout(launcher: Launcher, tmp_path: Path) -> None:
    result = run_job(launcher, tmp_path, "echo one\necho two >&2\necho $SGE_STDERR_PATH\n",
                     merge=True, stderr_path=str(tmp_path / "ignored"))
    out = tmp_path / "testjob.o4242"
    assert out.read_text() == f"one\ntwo\n{out}\n"
    assert not (tmp_path / "testjob.e4242").exists() and not (tmp_path / "ignored").exists()
    assert result["failed"] == 0


def test_exit_status_and_result_fields(launcher: Launcher, tmp_path: Path) -> None:
    before = time.time()
    result = run_job(launcher, tmp_path, "sleep 0.6\nexit 3\n")
    assert (result["exit_status"], result["signal"], result["failed"]) == (3, 0, 0)
    assert before <= result["start_time"] < result["end_time"] <= time.time()
    assert result["ru_wallclock"] == pytest.approx(result["end_time"] - result["start_time"])
    assert result["ru_wallclock"] >= 0.6
    assert result["maxvmem"] > 0  # sampled at least once while the job ran
    assert result["ru_maxrss"] > 0 and result["pid"] > 0
    for key in ("ru_utime", "ru_stime", "ru_minflt", "ru_majflt", "ru_inblock", "ru_oublock",
                "ru_nvcsw", "ru_nivcsw"):
        assert result[key] >= 0
    job_dir = tmp_path / "job.4242.None"
    assert not list(job_dir.glob(".*.tmp"))  # written by rename
    assert jobdir.read_pid_file(job_dir / jobdir.JOB_PID_FILE)[0] == result["pid"]


def test_exit_99_reschedules_and_100_is_an_application_error(launcher: Launcher,
                                                             tmp_path: Path) -> None:
    assert run_job(launcher, tmp_path, "exit 99\n")["failed"] == 25
    assert run_job(launcher, tmp_path, "exit 100\n", job_id=2)["failed"] == 30
    assert run_job(launcher, tmp_path, "exit 100\n", job_id=3, forbid_apperror=True)["failed"] == 0


def test_cwd_and_home_as_working_directory(launcher: Launcher, tmp_path: Path) -> None:
    run_job(launcher, tmp_path, "pwd\n", stdout_path=str(tmp_path / "pwd.out"))
    assert (tmp_path / "pwd.out").read_text() == f"{tmp_path}\n"
    run_job(launcher, tmp_path, "pwd\n", job_id=2, cwd=None,
            stdout_path=str(tmp_path / "home.out"), stderr_path="/dev/null")
    assert (tmp_path / "home.out").read_text() == f"{os.path.realpath(ME.pw_dir)}\n" or \
        (tmp_path / "home.out").read_text() == f"{ME.pw_dir}\n"


def test_binary_job_args_are_rejoined_like_grid_engine(launcher: Launcher,
                                                      tmp_path: Path) -> None:
    result = run_job(launcher, tmp_path, None, binary=True, command="/bin/sh",
                     args=["-c", "exit 3"])
    assert result["exit_status"] == 0  # sh -c exit 3, as in qacct-j-binary-args-quirk
    run_job(launcher, tmp_path, None, job_id=2, binary=True, command="/bin/echo",
            args=["a  b", "$JOB_ID"], login_shells=["sh"])
    assert (tmp_path / "testjob.o2").read_text() == "a b 2\n"


def test_login_shell_argv0(launcher: Launcher, tmp_path: Path) -> None:
    run_job(launcher, tmp_path, None, binary=True, command="echo", args=["$0"],
            login_shells=["bash", "sh"], env={"HOME": "/nonexistent"})
    assert (tmp_path / "testjob.o4242").read_text().splitlines()[-1] == "-sh"


def test_unix_behavior_honours_the_hash_bang_line(launcher: Launcher, tmp_path: Path) -> None:
    script = "#!/bin/cat\necho not run by a shell\n"
    run_job(launcher, tmp_path, script, shell_start_mode="unix_behavior")
    assert (tmp_path / "testjob.o4242").read_text() == script
    run_job(launcher, tmp_path, script, job_id=2, shell_start_mode="posix_compliant")
    assert (tmp_path / "testjob.o2").read_text() == "not run by a shell\n"


def test_script_from_stdin(launcher: Launcher, tmp_path: Path) -> None:
    run_job(launcher, tmp_path, 'echo "$0 $# $1"\necho "$SGE_STDIN_PATH"\n',
            shell_start_mode="script_from_stdin", args=["first", "second"])
    script = tmp_path / "job.4242.None" / "script"
    assert (tmp_path / "testjob.o4242").read_text() == f"sh 2 first\n{script}\n"


def test_script_arguments(launcher: Launcher, tmp_path: Path) -> None:
    run_job(launcher, tmp_path, 'echo "$#|$1|$2"\n', args=["a b", "c"])
    assert (tmp_path / "testjob.o4242").read_text() == "2|a b|c\n"


def test_failures_before_the_job(launcher: Launcher, tmp_path: Path) -> None:
    out = run_job(launcher, tmp_path, "echo x\n", stdout_path="/nonexistent/dir/out")
    assert (out["failed"], out["failed_reason"], out["exit_status"]) == \
        (26, "opening input/output file", 1)
    assert "can't open output file \"/nonexistent/dir/out\"" in out["error_message"]
    shell = run_job(launcher, tmp_path, "echo x\n", job_id=2, shell="/no/such/sh")
    assert (shell["failed"], shell["failed_reason"]) == (27, "searching requested shell")
    cwd = run_job(launcher, tmp_path, "echo x\n", job_id=3, cwd=str(tmp_path / "missing"))
    assert (cwd["failed"], cwd["failed_reason"]) == (28, "changing into working directory")
    assert not (tmp_path / "job.2.None" / jobdir.JOB_PID_FILE).exists()
    assert not list((tmp_path / "tmp").iterdir())


def test_signals_reach_the_whole_process_group(launcher: Launcher, tmp_path: Path) -> None:
    results = {}
    for job_id, sig in ((1, signal.SIGKILL), (2, signal.SIGTERM)):
        spec = make_spec(tmp_path, job_id=job_id)
        job_dir = tmp_path / f"job{job_id}"
        jobdir.write_spec(job_dir, spec, b"sleep 30 &\nsleep 30\n")
        launcher.launch(job_dir)
        while not (job_dir / jobdir.JOB_PID_FILE).exists():
            time.sleep(0.005)
        assert is_shepherd_alive(job_dir)
        assert signal_job(job_dir, sig)
        results[sig] = wait_result(job_dir, timeout=5)
        assert not signal_job(job_dir, sig)
        assert not is_shepherd_alive(job_dir) or wait_gone(job_dir)
    assert (results[signal.SIGKILL]["exit_status"], results[signal.SIGKILL]["signal"]) == (137, 9)
    assert (results[signal.SIGTERM]["exit_status"], results[signal.SIGTERM]["signal"]) == (143, 15)
    assert results[signal.SIGKILL]["failed"] == 100  # 8.1.9: "assumedly after job"


def wait_gone(job_dir: Path) -> bool:
    deadline = time.monotonic() + 5
    while is_shepherd_alive(job_dir):
        assert time.monotonic() < deadline
        time.sleep(0.005)
    return True


def test_tmpdir_is_created_for_the_job_and_removed(launcher: Launcher, tmp_path: Path) -> None:
    run_job(launcher, tmp_path, 'touch "$TMPDIR/scratch" && ls -ld "$TMPDIR" | cut -c1-10\n')
    assert (tmp_path / "testjob.o4242").read_text() == "drwx------\n"  # the owner's only
    assert not (tmp_path / "tmp" / "4242.1.all.q").exists()


def test_pe_hostfile_and_notification(launcher: Launcher, tmp_path: Path) -> None:
    sock_path = str(tmp_path / "notify.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(sock_path)
        sock.settimeout(5)
        run_job(launcher, tmp_path, 'echo "$PE" ; cat "$PE_HOSTFILE"\n', pe="smp", slots=2,
                pe_hostfile="node1 2 all.q@node1 UNDEFINED\n", notify_socket=sock_path)
        assert sock.recv(4096) == b"job.4242.None"
    assert (tmp_path / "testjob.o4242").read_text() == "smp\nnode1 2 all.q@node1 UNDEFINED\n"


def test_missing_notify_socket_is_ignored(launcher: Launcher, tmp_path: Path) -> None:
    result = run_job(launcher, tmp_path, "exit 0\n", notify_socket=str(tmp_path / "nobody"))
    assert result["exit_status"] == 0


def test_pid_files_guard_against_pid_reuse(tmp_path: Path) -> None:
    pid_file = tmp_path / jobdir.SHEPHERD_PID_FILE
    jobdir.write_pid_file(pid_file, os.getpid())
    assert is_shepherd_alive(tmp_path)
    pid, start = jobdir.read_pid_file(pid_file)
    pid_file.write_text(f"{pid} {start + 1}\n")  # same pid, another process's start time
    assert not is_shepherd_alive(tmp_path)
    (tmp_path / jobdir.SHEPHERD_PID_FILE).unlink()
    assert not is_shepherd_alive(tmp_path)


def test_launch_without_zygote_raises(tmp_path: Path) -> None:
    with pytest.raises(LauncherError):
        Launcher().launch(tmp_path)


def test_stop_ends_the_zygote_but_not_its_shepherds(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    own = Launcher()
    own.start()
    zygote = own.zygote_pid
    job_dir = tmp_path / "job"
    jobdir.write_spec(job_dir, make_spec(tmp_path), b"sleep 0.3\nexit 5\n")
    monkeypatch.chdir(tmp_path)
    own.launch(Path("job"))  # relative to the caller's directory
    own.stop()
    assert own.zygote_pid is None and not Path(f"/proc/{zygote}").exists()
    assert is_shepherd_alive(job_dir)
    assert wait_result(job_dir)["exit_status"] == 5
    with pytest.raises(LauncherError):
        own.launch(job_dir)


async def test_launch_from_asyncio(launcher: Launcher, tmp_path: Path) -> None:
    job_dir = tmp_path / "job"
    jobdir.write_spec(job_dir, make_spec(tmp_path), b"exit 4\n")
    pid = await launcher.launch_async(job_dir)
    assert pid > 0 and wait_result(job_dir)["exit_status"] == 4


LAUNCH_AND_HANG = """
import sys, time
from pathlib import Path
from execd.launcher import Launcher
launcher = Launcher()
launcher.start()
print(launcher.zygote_pid, launcher.launch(Path(sys.argv[1])), flush=True)
time.sleep(60)
"""


def test_shepherd_survives_the_launching_process(tmp_path: Path) -> None:
    job_dir = tmp_path / "job"
    jobdir.write_spec(job_dir, make_spec(tmp_path), b"sleep 0.5\nexit 7\n")
    proc = subprocess.Popen([sys.executable, "-c", LAUNCH_AND_HANG, str(job_dir)],
                            stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[2],
                            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    zygote_pid, shepherd_pid = (int(x) for x in proc.stdout.readline().split())
    os.kill(zygote_pid, signal.SIGKILL)
    proc.kill()
    proc.wait()
    proc.stdout.close()
    assert is_shepherd_alive(job_dir)
    assert wait_result(job_dir)["exit_status"] == 7
    assert jobdir.read_pid_file(job_dir / jobdir.SHEPHERD_PID_FILE)[0] == shepherd_pid


@pytest.mark.skipif(not IS_ROOT, reason="switching users needs root")
def test_switch_user_to_nobody(launcher: Launcher) -> None:
    nobody = pwd.getpwnam("nobody")
    work = Path(tempfile.mkdtemp(prefix="pyge-shepherd-"))
    try:
        work.chmod(0o777)
        result = run_job(launcher, work, None, binary=True, command="id",
                         args=["-u;", "id", "-g;", "id", "-G;", "echo", "$USER", "$HOME"],
                         owner="nobody", uid=nobody.pw_uid, gid=nobody.pw_gid,
                         switch_user=True)
        out = work / "testjob.o4242"
        assert result["exit_status"] == 0, result
        gid = str(nobody.pw_gid)
        assert out.read_text().splitlines() == [str(nobody.pw_uid), gid, gid,
                                                f"nobody {nobody.pw_dir}"]
        assert out.stat().st_uid == nobody.pw_uid
    finally:
        shutil.rmtree(work)


# ------------------------------------------------------------ paths users can plant
# The TMPDIR name <job>.<task>.<queue> is predictable and usually lies in a world-writable
# directory; output paths lie in the owner's directories. A root shepherd must neither
# follow nor adopt what a user put there (see docs/security.md).

def owner_spec(user: pwd.struct_passwd) -> dict[str, Any]:
    """Spec fields for a job of ``user`` that a root shepherd switches to."""
    return {"owner": user.pw_name, "uid": user.pw_uid, "gid": user.pw_gid,
            "switch_user": True}


@pytest.fixture
def nobody_work() -> Iterator[tuple[Path, pwd.struct_passwd]]:
    """A work directory like /tmp (outside root's 0700 tmp_path) where nobody's jobs
    write their output; the job directories and the TMPDIR base in it stay root's."""
    work = Path(tempfile.mkdtemp(prefix="pyge-safety-"))
    try:
        work.chmod(0o1777)
        yield work, pwd.getpwnam("nobody")
    finally:
        shutil.rmtree(work)


def mode_and_owner(path: Path) -> tuple[int, int, int]:
    st = path.lstat()
    return stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid


def private_tmpdir(output: Path, planted: Path) -> str:
    """The TMPDIR the job printed first: beside the planted entry, a new name."""
    tmpdir = output.read_text().splitlines()[0]
    assert tmpdir.startswith(f"{planted}.") and len(tmpdir) == len(str(planted)) + 17
    assert not os.path.lexists(tmpdir)  # removed after the job
    return tmpdir


@pytest.mark.parametrize("planted", ["symlink", "file"])
def test_a_planted_tmpdir_is_left_and_the_job_gets_another(launcher: Launcher,
                                                           tmp_path: Path,
                                                           planted: str) -> None:
    victim = tmp_path / "victim"
    victim.mkdir(mode=0o750)
    tmpdir = tmp_path / "tmp" / "4242.1.all.q"
    (tmp_path / "tmp").mkdir()
    if planted == "symlink":
        tmpdir.symlink_to(victim)
    else:
        tmpdir.write_text("not a directory\n")
    before = mode_and_owner(victim)
    result = run_job(launcher, tmp_path, 'echo "$TMPDIR"; echo "$TMP"; '
                     'touch "$TMPDIR/owned" && stat -c %a "$TMPDIR"\n')
    assert (result["failed"], result["exit_status"]) == (0, 0), result
    made = private_tmpdir(tmp_path / "testjob.o4242", tmpdir)
    assert (tmp_path / "testjob.o4242").read_text().splitlines()[1:] == [made, "700"]
    assert list(victim.iterdir()) == [] and mode_and_owner(victim) == before
    assert tmpdir.is_symlink() == (planted == "symlink")  # left as it was


def test_the_owners_own_directory_at_the_tmpdir_path_is_not_shared(launcher: Launcher,
                                                                   tmp_path: Path) -> None:
    """A directory of the owner at the path (a job of the same id of another cell on this
    host, still running) is neither used nor removed: the job gets its own TMPDIR."""
    (tmp_path / "tmp").mkdir()
    other = tmp_path / "tmp" / "4242.1.all.q"
    other.mkdir(mode=0o700)
    (other / "theirs").write_text("the other job's\n")
    result = run_job(launcher, tmp_path, 'echo "$TMPDIR"; ls "$TMPDIR"\n')
    assert (result["failed"], result["exit_status"]) == (0, 0), result
    private_tmpdir(tmp_path / "testjob.o4242", other)
    assert (tmp_path / "testjob.o4242").read_text().splitlines()[1:] == []  # empty, new
    assert (other / "theirs").read_text() == "the other job's\n"  # left as it was


@pytest.mark.skipif(not IS_ROOT, reason="a root shepherd and a second user")
def test_root_does_not_chown_a_planted_tmpdir_symlink(
        launcher: Launcher, nobody_work: tuple[Path, pwd.struct_passwd]) -> None:
    work, nobody = nobody_work
    secret = Path(tempfile.mkdtemp(prefix="pyge-root-only-"))  # root's, 0700
    try:
        (secret / "key").write_text("root's secret\n")
        (work / "tmp").mkdir()
        (work / "tmp" / "4242.1.all.q").symlink_to(secret)
        result = run_job(launcher, work, 'echo "$TMPDIR"; cat "$TMPDIR/key"\n',
                         **owner_spec(nobody))
        assert mode_and_owner(secret) == (0o700, 0, 0)  # not handed to nobody
        assert mode_and_owner(secret / "key")[1:] == (0, 0)
        assert result["failed"] == 0, result  # the job ran, in a TMPDIR of its own
        private_tmpdir(work / "testjob.o4242", work / "tmp" / "4242.1.all.q")
        assert "secret" not in (work / "testjob.o4242").read_text()
    finally:
        shutil.rmtree(secret)


@pytest.mark.skipif(not IS_ROOT, reason="a root shepherd and a second user")
def test_root_does_not_adopt_a_tmpdir_of_another_user(
        launcher: Launcher, nobody_work: tuple[Path, pwd.struct_passwd]) -> None:
    work, nobody = nobody_work
    (work / "tmp").mkdir()
    foreign = work / "tmp" / "4242.1.all.q"
    foreign.mkdir(mode=0o700)  # root's, as if another user's job had left it
    (foreign / "data").write_text("not nobody's\n")
    result = run_job(launcher, work, 'echo "$TMPDIR"; cat "$TMPDIR/data"\n',
                     **owner_spec(nobody))
    assert mode_and_owner(foreign) == (0o700, 0, 0)
    assert (foreign / "data").read_text() == "not nobody's\n"
    assert result["failed"] == 0, result
    private_tmpdir(work / "testjob.o4242", foreign)
    assert "not nobody's" not in (work / "testjob.o4242").read_text()


@pytest.mark.skipif(not IS_ROOT, reason="a root shepherd and a second user")
def test_root_makes_a_private_tmpdir_for_the_owner(
        launcher: Launcher, nobody_work: tuple[Path, pwd.struct_passwd]) -> None:
    work, nobody = nobody_work
    result = run_job(launcher, work, 'stat -c "%u %g %a" "$TMPDIR"\n', **owner_spec(nobody))
    assert result["failed"] == 0, result
    assert (work / "testjob.o4242").read_text() == \
        f"{nobody.pw_uid} {nobody.pw_gid} 700\n"
    assert not (work / "tmp" / "4242.1.all.q").exists()


@pytest.mark.skipif(not IS_ROOT, reason="a root shepherd and a second user")
def test_an_output_symlink_of_the_owner_cannot_reach_root_files(
        launcher: Launcher, nobody_work: tuple[Path, pwd.struct_passwd]) -> None:
    work, nobody = nobody_work
    protected = work / "root-only"
    protected.mkdir()
    target = protected / "passwd-like"
    target.write_text("root:x:0:0\n")
    target.chmod(0o644)
    outdir = work / "home"  # the owner's directory, where the owner plants the link
    outdir.mkdir()
    os.chown(outdir, nobody.pw_uid, nobody.pw_gid)
    link = outdir / "out"
    os.symlink(target, link)
    os.lchown(link, nobody.pw_uid, nobody.pw_gid)
    for job_id, changes in ((1, {"stdout_path": str(link)}),
                            (2, {"stderr_path": str(link), "stdout_path": str(outdir)})):
        result = run_job(launcher, work, "echo pwned; echo pwned >&2\n", job_id=job_id,
                         cwd=str(outdir), **changes, **owner_spec(nobody))
        assert result["failed"] == 26, result
        assert "Permission denied" in result["error_message"]
    assert target.read_text() == "root:x:0:0\n"
    assert mode_and_owner(target) == (0o644, 0, 0)


def test_an_output_symlink_of_the_owner_is_followed(launcher: Launcher,
                                                    tmp_path: Path) -> None:
    """-o may name the owner's own link (Grid Engine appends to an existing file)."""
    (tmp_path / "logs").mkdir()
    real = tmp_path / "logs" / "real.out"
    real.write_text("earlier\n")
    (tmp_path / "out").symlink_to(real)
    result = run_job(launcher, tmp_path, "echo later\n", stdout_path=str(tmp_path / "out"))
    assert result["failed"] == 0, result
    assert real.read_text() == "earlier\nlater\n"


def test_tmpdir_removal_does_not_follow_links_out_of_it(launcher: Launcher,
                                                       tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "sub").mkdir(parents=True)
    (outside / "keep").write_text("keep\n")
    (outside / "sub" / "keep").write_text("keep\n")
    script = (f'ln -s {outside} "$TMPDIR/dirlink"\n'
              f'ln -s {outside}/keep "$TMPDIR/filelink"\n'
              f'mkdir "$TMPDIR/deep" && ln -s {outside}/sub "$TMPDIR/deep/sublink"\n'
              # read-only directories, as Go's module cache makes them, go as well
              'mkdir "$TMPDIR/ro" && touch "$TMPDIR/ro/f" && chmod 0500 "$TMPDIR/ro"\n')
    result = run_job(launcher, tmp_path, script)
    assert result["failed"] == 0 and result["exit_status"] == 0, result
    assert not (tmp_path / "tmp" / "4242.1.all.q").exists()
    assert (outside / "keep").read_text() == (outside / "sub" / "keep").read_text() == "keep\n"


def test_tmpdir_replaced_by_a_link_is_not_followed_at_removal(launcher: Launcher,
                                                              tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep").write_text("keep\n")
    script = f'mv "$TMPDIR" "$TMPDIR.moved" && ln -s {outside} "$TMPDIR"\n'
    result = run_job(launcher, tmp_path, script)
    assert result["failed"] == 0 and result["exit_status"] == 0, result
    assert (outside / "keep").read_text() == "keep\n"
    assert (tmp_path / "tmp" / "4242.1.all.q").is_symlink()  # refused, left alone


# ------------------------------------------------------------ the pure spec -> job mapping

def pure_spec(**changes: Any) -> dict[str, Any]:
    spec = {"job_id": 17, "task_id": None, "job_name": "sim", "owner": "alice", "host": "node1",
            "stdout_path": None, "stderr_path": None, "cwd": None, "array": None,
            "binary": False, "command": "/home/alice/sim.sh", "args": [], "shell": "/bin/sh",
            "shell_start_mode": "posix_compliant", "login_shells": ["sh"], "queue": "all.q",
            "tmpdir_base": "/tmp"}
    spec.update(changes)
    return spec


def homes(user: str) -> str:
    return {"alice": "/home/alice", "bob": "/u/bob"}.get(user, "~" + user)


def test_default_output_goes_to_home_without_cwd() -> None:
    spec = pure_spec()
    cwd = jobdir.working_dir(spec, "/home/alice")
    assert jobdir.output_path(spec, "o", cwd, homes, lambda p: p == cwd) == "/home/alice/sim.o17"
    spec = pure_spec(task_id=3, cwd="/data/run")
    cwd = jobdir.working_dir(spec, "/home/alice")
    assert jobdir.output_path(spec, "e", cwd, homes, lambda p: p == cwd) == "/data/run/sim.e17.3"


def test_aliases_and_tilde() -> None:
    spec = pure_spec(task_id=2)
    assert jobdir.expand_aliases("~/out/$JOB_NAME.$TASK_ID", spec, homes) == \
        "/home/alice/out/sim.2"
    assert jobdir.expand_aliases("~bob/x", spec, homes) == "/u/bob/x"
    assert jobdir.expand_aliases("$HOME/$USER/$HOSTNAME/$JOB_ID/$OTHER", spec, homes) == \
        "/home/alice/alice/node1/17/$OTHER"
    assert jobdir.expand_aliases("$TASK_ID", pure_spec(), homes) == "$TASK_ID"


def test_tmpdir_names() -> None:
    assert jobdir.tmpdir_path(pure_spec()) == "/tmp/17.1.all.q"
    assert jobdir.tmpdir_path(pure_spec(task_id=9)) == "/tmp/17.9.all.q"


def test_command_lines_per_start_mode() -> None:
    script = "/spool/job/script"
    assert jobdir.job_argv(pure_spec(args=["a"]), script) == ("/bin/sh", ["-sh", script, "a"])
    assert jobdir.job_argv(pure_spec(shell_start_mode="unix_behavior"), script) == \
        (script, [script])
    assert jobdir.job_argv(pure_spec(shell_start_mode="script_from_stdin", args=["x"],
                                     login_shells=[]), script) == ("/bin/sh", ["sh", "-s", "x"])
    binary = pure_spec(binary=True, command="/bin/sh", args=["-c", "exit 3"],
                       shell_start_mode="unix_behavior")
    assert jobdir.job_argv(binary, script) == ("/bin/sh", ["-sh", "-c", "/bin/sh -c exit 3 "])


def test_exit_status_of_killed_and_exited_jobs() -> None:
    assert jobdir.exit_fields(3 << 8) == (3, 0)
    assert jobdir.exit_fields(signal.SIGKILL) == (137, 9)


paths = st.text(st.characters(blacklist_characters=",:$~\x00"), min_size=1)


@given(paths)
def test_paths_without_aliases_stay_as_they_are(path: str) -> None:
    assert jobdir.expand_aliases(path, pure_spec(), homes) == path
    assert jobdir.select_path(path, "node1") == path


@given(paths, paths)
def test_host_entries_only_apply_on_their_host(mine: str, default: str) -> None:
    path_list = f"node1:{mine},{default}"
    assert jobdir.select_path(path_list, "node1") == mine
    assert jobdir.select_path(path_list, "node1.example.com") == mine
    assert jobdir.select_path(path_list, "node2") == default
    assert jobdir.select_path(f":{mine}", "node2") == mine


def test_the_job_runs_with_the_umask_of_its_submitter(launcher: Launcher,
                                                        tmp_path: Path) -> None:
    """The spec's umask (the submitter's, docs/compatibility.md); 022 without one."""
    for umask, expected in ((0o077, "0077"), (None, "0022")):
        work = tmp_path / f"u{expected}"
        work.mkdir()
        changes = {} if umask is None else {"umask": umask}
        result = run_job(launcher, work, "#!/bin/sh\numask\ntouch made\n", **changes)
        assert result["exit_status"] == 0, result
        assert (work / "testjob.o4242").read_text().strip() == expected
        assert stat.S_IMODE((work / "made").stat().st_mode) == 0o666 & ~int(expected, 8)


def test_stdin_from_the_file_of_qsub_i(launcher: Launcher, tmp_path: Path) -> None:
    """qsub -i: the job reads the file (relative to its working directory, -o's aliases
    expanded) instead of /dev/null; SGE_STDIN_PATH names it; a file that cannot be
    opened fails the job before it starts (8.1.9's failure 26)."""
    (tmp_path / "in.4242").write_text("from the file\n")
    run_job(launcher, tmp_path, None, binary=True, command="/bin/cat",
            stdin_path="in.$JOB_ID")
    assert (tmp_path / "testjob.o4242").read_text() == "from the file\n"
    run_job(launcher, tmp_path, 'cat; echo "$SGE_STDIN_PATH"\n', job_id=2,
            stdin_path=f"node1:{tmp_path}/in.4242")
    assert (tmp_path / "testjob.o2").read_text() == f"from the file\n{tmp_path}/in.4242\n"
    out = run_job(launcher, tmp_path, None, job_id=3, binary=True, command="/bin/cat",
                  stdin_path="/nonexistent/in")
    assert (out["failed"], out["failed_reason"]) == (26, "opening input/output file")
    # 8.1.9: "error: can't open /tmp/x as dummy input file", before any output file
    assert "error: can't open /nonexistent/in as dummy input file" in out["error_message"]
    assert not (tmp_path / "testjob.o3").exists()


def test_shell_n_runs_a_binary_command_without_the_shell(launcher: Launcher,
                                                         tmp_path: Path) -> None:
    """qsub -b y -shell n: the command is executed itself (no shell expands $JOB_ID or
    rejoins the arguments); a command name is looked up in the job's PATH."""
    run_job(launcher, tmp_path, None, binary=True, command="echo", args=["a  b", "$JOB_ID"],
            noshell=True, env={"PATH": "/usr/bin:/bin"})
    assert (tmp_path / "testjob.o4242").read_text() == "a  b $JOB_ID\n"
