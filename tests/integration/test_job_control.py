"""Limits, signals, methods, prolog and epilog on real processes (a shepherd, no daemons).

Each test runs a job through the launcher as tests/integration/test_shepherd.py does and
checks what happened to its processes: the signal that ended it, what it caught and
when, ``ps`` states, nice values, CPU sets, and the result the execd would report.
"""
from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from execd import jobdir, proctree
from execd.launcher import Launcher
from execd.shepherd import request_action
from tests.integration.test_shepherd import make_spec, wait_result

PY = sys.executable


def start(launcher: Launcher, work: Path, script: str, job_id: int = 1,
          **changes: Any) -> Path:
    spec = make_spec(work, job_id=job_id, **changes)
    job_dir = work / f"job.{job_id}"
    jobdir.write_spec(job_dir, spec, script.encode())
    launcher.launch(job_dir)
    return job_dir


def job_pid(job_dir: Path, timeout: float = 5.0) -> int:
    deadline = time.monotonic() + timeout
    while not (job_dir / jobdir.JOB_PID_FILE).exists():
        assert time.monotonic() < deadline, "the job did not start"
        time.sleep(0.01)
    found = jobdir.read_pid_file(job_dir / jobdir.JOB_PID_FILE)
    assert found is not None
    return found[0]


def run(launcher: Launcher, work: Path, script: str, job_id: int = 1, timeout: float = 15.0,
        **changes: Any) -> dict[str, Any]:
    return wait_result(start(launcher, work, script, job_id, **changes), timeout)


def output(work: Path, job_id: int = 1) -> str:
    return (work / f"testjob.o{job_id}").read_text()


def wait_for_text(path: Path, text: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not (path.exists() and text in path.read_text()):
        assert time.monotonic() < deadline, f"{text!r} never appeared in {path}"
        time.sleep(0.02)


def tree_states(job_dir: Path) -> set[str]:
    """The ps state letters of the job's processes (its session)."""
    pid = job_pid(job_dir)
    found = jobdir.read_pid_file(job_dir / jobdir.SHEPHERD_PID_FILE)
    assert found is not None
    table = proctree.process_table()
    return {table[p].state for p in proctree.tree(table, pid, found[0]) if p in table}


def wait_states(job_dir: Path, wanted: set[str], timeout: float = 5.0) -> set[str]:
    deadline = time.monotonic() + timeout
    while (states := tree_states(job_dir)) != wanted:
        assert time.monotonic() < deadline, f"states {states}, wanted {wanted}"
        time.sleep(0.02)
    return states


# ---- wall clock --------------------------------------------------------------------

def test_h_rt_kills_the_job_at_its_wall_clock_limit(launcher: Launcher, tmp_path: Path) -> None:
    result = run(launcher, tmp_path, "sleep 20\n", limits={"h_rt": 1.0})
    assert (result["signal"], result["exit_status"]) == (9, 137)
    assert (result["ended_by"], result["failed"]) == ("h_rt", 37)  # as 8.1.9 accounts it
    assert 1.0 <= result["ru_wallclock"] < 5.0


def test_s_rt_warns_with_sigusr1_then_kills_after_notify(launcher: Launcher,
                                                         tmp_path: Path) -> None:
    script = ("trap 'echo usr1 $(date +%s.%N)' USR1\necho start $(date +%s.%N)\n"
              + LOOP)
    result = run(launcher, tmp_path, script, limits={"s_rt": 1.0}, notify=1.0)
    words = dict(line.split() for line in output(tmp_path).splitlines())
    assert 0.9 <= float(words["usr1"]) - float(words["start"]) < 3.0
    assert (result["signal"], result["ended_by"]) == (9, "s_rt")
    assert 2.0 <= result["ru_wallclock"] < 6.0  # s_rt + notify


# ---- the whole tree ----------------------------------------------------------------

ALLOCATE = f"{PY} -c 'import time; b = bytearray(70 << 20); time.sleep(20)'"
HALF = f"{PY} -c 'import time; b = bytearray(45 << 20); time.sleep(20)'"
LOOP = "for i in $(seq 200); do sleep 0.05; done\n"  # bounded: a failed test leaves no job


def test_h_vmem_is_enforced_over_a_tree_of_two_processes(launcher: Launcher,
                                                         tmp_path: Path) -> None:
    # each process stays under h_vmem (setrlimit lets it), together they exceed it
    result = run(launcher, tmp_path, f"{ALLOCATE} &\n{ALLOCATE} &\nwait\n",
                 limits={"h_vmem": 150e6, "s_vmem": 150e6})
    assert (result["signal"], result["ended_by"]) == (9, "h_vmem")
    assert result["maxvmem"] > 150e6
    assert result["mem"] >= 0 and result["cpu"] > 0


def test_s_vmem_sends_sigxcpu_which_the_job_may_catch(launcher: Launcher,
                                                      tmp_path: Path) -> None:
    # s_vmem is each process's soft address space limit too: two processes under it
    script = f"trap 'echo xcpu; kill %1 %2; exit 3' XCPU\n{HALF} &\n{HALF} &\n{LOOP}"
    result = run(launcher, tmp_path, script, limits={"s_vmem": 100e6})
    assert result["exit_status"] == 3 and "xcpu" in output(tmp_path)


def test_h_vmem_is_also_each_process_address_space_limit(launcher: Launcher,
                                                         tmp_path: Path) -> None:
    script = (f"{PY} -c 'b = bytearray(300 << 20)' 2>/dev/null || echo refused\n"
              "ulimit -v; ulimit -H -v\n")
    result = run(launcher, tmp_path, script, limits={"h_vmem": 200 * 1024 * 1024})
    assert result["exit_status"] == 0
    assert output(tmp_path).split() == ["refused", "204800", "204800"]


def test_h_fsize_stops_a_writer_with_sigxfsz(launcher: Launcher, tmp_path: Path) -> None:
    result = run(launcher, tmp_path, f"exec dd if=/dev/zero of={tmp_path}/big bs=1k count=5000\n",
                 limits={"h_fsize": 1024 * 1024})
    assert result["signal"] == signal.SIGXFSZ
    assert (tmp_path / "big").stat().st_size == 1024 * 1024


# (SIGXCPU may come again, from the kernel's soft limit and from the shepherd's own
# check: once caught, the rest are ignored, else one during the exit would end the job)
BUSY = ("import signal, sys, time\n"
        "signal.signal(signal.SIGXCPU, lambda *_: (signal.signal(signal.SIGXCPU, "
        "signal.SIG_IGN), print(\"xcpu\"), sys.exit(3)))\n"
        "end = time.time() + 10\nwhile time.time() < end: pass\n")


def test_s_cpu_sends_sigxcpu_to_a_busy_job(launcher: Launcher, tmp_path: Path) -> None:
    script = f"exec {PY} -c '{BUSY}'\n"
    result = run(launcher, tmp_path, script, limits={"s_cpu": 1.0})
    assert result["exit_status"] == 3 and output(tmp_path).strip() == "xcpu"
    assert result["cpu"] >= 0.9  # the kernel counts in ticks; SIGXCPU came at 1 s


def test_h_cpu_ends_a_busy_job(launcher: Launcher, tmp_path: Path) -> None:
    result = run(launcher, tmp_path, f"exec {PY} -c '{BUSY}'\n", limits={"h_cpu": 1.0})
    assert result["signal"] in (signal.SIGKILL, signal.SIGXCPU)
    assert 0.9 <= result["cpu"] < 4.0  # the kernel counts in ticks


def test_limits_per_process_are_set_with_setrlimit(launcher: Launcher, tmp_path: Path) -> None:
    script = "ulimit -S -s; ulimit -H -s; ulimit -S -c; ulimit -H -c; ulimit -S -d; ulimit -H -d\n"
    run(launcher, tmp_path, script, limits={"s_stack": 8 << 20, "h_stack": 16 << 20,
                                            "h_core": 0.0, "s_data": 100 << 20})
    assert output(tmp_path).split() == ["8192", "16384", "0", "0", "102400", "unlimited"]


# ---- the execd's requests: suspend, resume, terminate, -notify -----------------------

def test_suspend_and_resume_stop_and_continue_every_process(launcher: Launcher,
                                                            tmp_path: Path) -> None:
    job_dir = start(launcher, tmp_path, "sleep 20 &\nsleep 20\n")
    wait_states(job_dir, {"S"})
    assert request_action(job_dir, "suspend")
    wait_states(job_dir, {"T"})
    assert request_action(job_dir, "resume")
    wait_states(job_dir, {"S"})
    assert request_action(job_dir, "terminate")
    assert wait_result(job_dir)["signal"] == 9


def test_notify_sends_usr1_before_suspend_and_usr2_before_kill(launcher: Launcher,
                                                               tmp_path: Path) -> None:
    script = ("trap 'echo usr1 $(date +%s.%N)' USR1\ntrap 'echo usr2 $(date +%s.%N)' USR2\n"
              + LOOP)
    job_dir = start(launcher, tmp_path, script, notify_job=True, notify=1.0)
    job_pid(job_dir)
    time.sleep(0.2)
    asked = time.time()
    request_action(job_dir, "suspend")
    wait_for_text(tmp_path / "testjob.o1", "usr1")
    wait_states(job_dir, {"T"})
    stopped = time.time()
    request_action(job_dir, "resume")
    deadline = time.monotonic() + 5
    while "T" in tree_states(job_dir):  # running again (sleeping or on a CPU)
        assert time.monotonic() < deadline, "the job was not resumed"
        time.sleep(0.02)
    request_action(job_dir, "terminate")
    result = wait_result(job_dir)
    killed = time.time()
    lines = [line.split() for line in output(tmp_path).splitlines()]
    assert [w[0] for w in lines] == ["usr1", "usr2"]
    assert float(lines[0][1]) - asked < 0.9 and stopped - asked >= 0.9
    assert killed - float(lines[1][1]) >= 0.9
    assert result["signal"] == 9


def test_terminate_method_script_gets_its_variables(launcher: Launcher, tmp_path: Path) -> None:
    method = tmp_path / "terminate.sh"
    method.write_text("#!/bin/sh\necho \"$@\" > \"$0.args\"\nkill -TERM \"$1\"\n")
    method.chmod(0o755)
    job_dir = start(launcher, tmp_path, "sleep 20\n",
                    terminate_method=f"{method} $job_pid $job_id $job_owner $queue $host $job_name")
    pid = job_pid(job_dir)
    request_action(job_dir, "terminate")
    result = wait_result(job_dir)
    assert result["signal"] == signal.SIGTERM
    args = (tmp_path / "terminate.sh.args").read_text().split()
    assert args == [str(pid), "1", os.environ.get("USER") or make_spec(tmp_path)["owner"],
                    "all.q", "node1", "testjob"]


def test_suspend_method_may_name_a_signal(launcher: Launcher, tmp_path: Path) -> None:
    script = "trap 'echo tstp' TSTP\n" + LOOP
    job_dir = start(launcher, tmp_path, script, suspend_method="SIGTSTP")
    job_pid(job_dir)
    time.sleep(0.2)
    request_action(job_dir, "suspend")
    wait_for_text(tmp_path / "testjob.o1", "tstp")
    request_action(job_dir, "kill")
    assert wait_result(job_dir)["signal"] == 9


def test_processes_left_behind_are_ended_with_the_job(launcher: Launcher, tmp_path: Path) -> None:
    script = f"setsid sh -c 'sleep 20 & echo $! > {tmp_path}/daemon' &\nsleep 0.3\nexit 0\n"
    result = run(launcher, tmp_path, script)
    assert result["exit_status"] == 0
    pid = int((tmp_path / "daemon").read_text())
    deadline = time.monotonic() + 3
    while Path(f"/proc/{pid}").exists() and proctree.process_table().get(pid, None) \
            and proctree.process_table()[pid].state not in ("Z", "X"):
        assert time.monotonic() < deadline, "the job's daemon survived the job"
        time.sleep(0.02)


# ---- start-up: priority, processors, starter, prolog, epilog --------------------------

def test_priority_is_the_jobs_nice_value(launcher: Launcher, tmp_path: Path) -> None:
    run(launcher, tmp_path, "cut -d' ' -f19 /proc/$$/stat\n", priority=7)
    assert output(tmp_path).strip() == str(min(19, os.getpriority(os.PRIO_PROCESS, 0) + 7))


def test_processors_bind_the_job(launcher: Launcher, tmp_path: Path) -> None:
    run(launcher, tmp_path, "grep Cpus_allowed_list /proc/$$/status\n", processors="0")
    assert output(tmp_path).split() == ["Cpus_allowed_list:", "0"]


def test_starter_method_runs_instead_of_the_shell(launcher: Launcher, tmp_path: Path) -> None:
    starter = tmp_path / "starter.sh"
    starter.write_text("#!/bin/sh\necho starter \"$@\"\n"
                       "echo $SGE_STARTER_SHELL_PATH $SGE_STARTER_SHELL_START_MODE "
                       "$SGE_STARTER_USE_LOGIN_SHELL\nexec /bin/sh \"$@\"\n")
    starter.chmod(0o755)
    result = run(launcher, tmp_path, "echo job $1\n", starter_method=str(starter), args=["a1"])
    lines = output(tmp_path).splitlines()
    assert lines[0] == f"starter {tmp_path}/job.1/script a1"
    assert lines[1:] == ["/bin/sh posix_compliant false", "job a1"]
    assert result["exit_status"] == 0


def write_procedure(path: Path, status: int) -> str:
    path.write_text(f"#!/bin/sh\necho {path.name} $JOB_ID \"$@\"\nexit {status}\n")
    path.chmod(0o755)
    return str(path)


@pytest.mark.parametrize("status, failed, action", [  # failed codes as 8.1.9 accounts them
    (0, 0, ""), (99, 25, "reschedule"), (100, 30, "job_error"), (1, 8, "queue_error")])
def test_prolog_exit_status_decides(launcher: Launcher, tmp_path: Path, status: int,
                                    failed: int, action: str) -> None:
    prolog = write_procedure(tmp_path / "prolog", status)
    result = run(launcher, tmp_path, "echo job ran\n", prolog=f"{prolog} $job_id $queue")
    assert (result["failed"], result["action"]) == (failed, action)
    ran = ["job ran"] if status == 0 else []
    assert output(tmp_path).splitlines() == ["prolog 1 1 all.q", *ran]


@pytest.mark.parametrize("status, failed, action", [
    (0, 0, ""), (99, 25, "reschedule"), (100, 30, "job_error"), (2, 15, "queue_error")])
def test_epilog_runs_after_the_job(launcher: Launcher, tmp_path: Path, status: int,
                                   failed: int, action: str) -> None:
    epilog = write_procedure(tmp_path / "epilog", status)
    result = run(launcher, tmp_path, "echo job ran\nexit 4\n", epilog=epilog)
    assert output(tmp_path).splitlines() == ["job ran", "epilog 1"]
    assert (result["exit_status"], result["action"]) == (4, action)
    assert result["failed"] == failed


def test_a_missing_prolog_is_a_queue_error(launcher: Launcher, tmp_path: Path) -> None:
    result = run(launcher, tmp_path, "echo job ran\n", prolog=str(tmp_path / "none"))
    assert (result["failed"], result["action"]) == (7, "queue_error")
    assert not (tmp_path / "testjob.o1").read_text()


def test_job_exit_99_and_100_ask_for_rescheduling_and_error(launcher: Launcher,
                                                            tmp_path: Path) -> None:
    assert run(launcher, tmp_path, "exit 99\n")["action"] == "reschedule"
    assert run(launcher, tmp_path, "exit 100\n", job_id=2)["action"] == "job_error"
    assert run(launcher, tmp_path, "exit 3\n", job_id=3)["action"] == ""


def test_a_terminate_request_ends_a_running_prolog(launcher: Launcher, tmp_path: Path) -> None:
    prolog = tmp_path / "prolog"
    prolog.write_text("#!/bin/sh\nsleep 20\n")
    prolog.chmod(0o755)
    job_dir = start(launcher, tmp_path, "echo job ran\n", prolog=str(prolog))
    time.sleep(0.3)
    jobdir.write_control(job_dir, "terminate")
    result = wait_result(job_dir)
    assert result["action"] == "queue_error" and "job ran" not in output(tmp_path)


def test_the_table_of_some_processes_and_the_children_of_one() -> None:
    """What a usage sample of a job in a cgroup reads (its processes alone) and how the
    shepherd finds its orphans to reap (its children) without reading every process."""
    import subprocess
    child = subprocess.Popen(["sleep", "30"])
    try:
        gone = max(proctree.process_table()) + 100_000  # (beyond any pid in use now)
        table = proctree.processes([child.pid, os.getpid(), gone])
        assert set(table) == {child.pid, os.getpid()}
        assert table[child.pid].ppid == os.getpid()
        mine = proctree.children(os.getpid())
        if mine is not None:  # (None: a kernel without CONFIG_PROC_CHILDREN)
            assert child.pid in mine
        assert proctree.children(gone) is None
    finally:
        child.kill()
        child.wait()


def test_a_job_that_did_not_join_its_cgroup_is_measured_by_its_tree(tmp_path: Path) -> None:
    """The child's join of the job's cgroup may fail (the job still runs): its usage
    samples then read its process tree, so that h_vmem and h_cpu still apply."""
    import subprocess
    from execd.shepherd import _JobWatch

    class EmptyCgroup:  # a cgroup the job never joined
        def pids(self) -> set[int]:
            return set()

        def cpu_seconds(self) -> float:
            return 0.0

        def io_bytes(self) -> int:
            return 0

    job = subprocess.Popen([PY, "-c", "x = bytearray(64 << 20); import time; time.sleep(30)"])
    try:
        deadline = time.monotonic() + 10
        watch = _JobWatch(tmp_path, make_spec(tmp_path), job.pid, {}, [],
                          EmptyCgroup())  # type: ignore[arg-type]
        while (use := watch._usage()).vmem < 64 << 20:
            assert time.monotonic() < deadline, use
            time.sleep(0.05)
        assert not watch.joined
    finally:
        job.kill()
        job.wait()
