"""Jobs in cgroups of their own (execd.cgroups), on real processes, where this machine
delegates a cgroup v2 tree to the user running the tests (root here; an ordinary user
without a delegated tree skips them: the process-tree method then does the work, as
tests/integration/test_job_control.py shows).
"""
from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from execd import jobdir
from execd.cgroups import CgroupError, Subtree, prepare_subtree, release_subtree
from execd.launcher import Launcher
from execd.shepherd import request_action
from tests.integration.cellutil import wait_for
from tests.integration.test_job_control import job_pid, output, start, wait_for_text
from tests.integration.test_shepherd import wait_result


@pytest.fixture(scope="module")
def subtree(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Subtree]:
    try:
        made = prepare_subtree("cgtest", tmp_path_factory.mktemp("spool"))
    except CgroupError as exc:
        pytest.skip(f"no delegated cgroup v2 tree: {exc}")
    yield made
    release_subtree(made)
    assert not made.path.exists()


def cgroup_spec(subtree: Subtree) -> dict[str, Any]:
    return {"cgroup": {"subtree": str(subtree.path),
                       "controllers": sorted(subtree.controllers)}}


def gone(pid: int) -> bool:
    return _task_gone(pid, pid)


def test_the_job_runs_in_its_own_cgroup_which_is_removed_after(
        launcher: Launcher, subtree: Subtree, tmp_path: Path) -> None:
    job_dir = start(launcher, tmp_path, "grep '^0::' /proc/self/cgroup\n",
                    **cgroup_spec(subtree))
    result = wait_result(job_dir)
    assert result["exit_status"] == 0
    cgroup = output(tmp_path).strip().split("::", 1)[1]
    assert cgroup.endswith(f"/{subtree.path.name}/{job_dir.name}"), cgroup
    assert not (subtree.path / job_dir.name).exists()


def test_a_process_outside_the_jobs_tree_is_still_the_jobs(launcher: Launcher,
                                                             subtree: Subtree,
                                                             tmp_path: Path) -> None:
    """A process that is not the job's descendant at all (here: the test's own child,
    moved into the job's cgroup) is suspended, counted and ended with the job: the
    process-tree method could not know it."""
    job_dir = start(launcher, tmp_path, "echo ready\nfor i in $(seq 100); do sleep 0.05; done\n",
                    **cgroup_spec(subtree))
    wait_for_text(tmp_path / "testjob.o1", "ready")
    outsider = subprocess.Popen(["sleep", "30"])
    try:
        (subtree.path / job_dir.name / "cgroup.procs").write_text(str(outsider.pid))
        request_action(job_dir, "suspend")
        deadline = time.monotonic() + 5
        while Path(f"/proc/{outsider.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] \
                != "T":
            assert time.monotonic() < deadline, "the outsider was not stopped with the job"
            time.sleep(0.05)
        request_action(job_dir, "resume")
        result = wait_result(job_dir, timeout=20)
        assert result["exit_status"] == 0
        deadline = time.monotonic() + 5
        while outsider.poll() is None:
            assert time.monotonic() < deadline, "the outsider outlived the job"
            time.sleep(0.05)
        assert outsider.returncode == -9
    finally:
        if outsider.poll() is None:
            outsider.kill()
            outsider.wait()


def test_cpu_of_an_orphaned_grandchild_is_counted(launcher: Launcher, subtree: Subtree,
                                                  tmp_path: Path) -> None:
    """A grandchild that burns a second of CPU after its parent left (nobody of the job
    waits for it, so the rusage of the job's first process never includes it) counts in
    the job's ``cpu``. With a cgroup the figure comes from its ``cpu.stat``; the
    process-tree sampling alone usually reaches it too, so this test shows the counting,
    not which of the two did it."""
    burn = "python3 -c 'import time\nt=time.process_time()\nwhile time.process_time()-t<1: pass'"
    script = (f"setsid sh -c \"({burn}; touch {tmp_path}/done) &\"\n"
              f"while [ ! -e {tmp_path}/done ]; do sleep 0.05; done\n")
    job_dir = start(launcher, tmp_path, script, **cgroup_spec(subtree))
    result = wait_result(job_dir, timeout=20)
    assert result["exit_status"] == 0
    assert result["cpu"] >= 0.95, result


def test_kill_ends_every_process_of_the_cgroup(launcher: Launcher, subtree: Subtree,
                                               tmp_path: Path) -> None:
    script = (f"setsid sh -c 'sleep 30 & echo $! > {tmp_path}/daemon; wait' &\n"
              "for i in $(seq 100); do sleep 0.05; done\n")
    job_dir = start(launcher, tmp_path, script, **cgroup_spec(subtree))
    job_pid(job_dir)
    deadline = time.monotonic() + 5
    while not (tmp_path / "daemon").exists():
        assert time.monotonic() < deadline
        time.sleep(0.02)
    daemon = int((tmp_path / "daemon").read_text())
    request_action(job_dir, "kill")
    assert wait_result(job_dir)["signal"] == 9
    deadline = time.monotonic() + 5
    while not gone(daemon):
        assert time.monotonic() < deadline, "a process of the job survived its kill"
        time.sleep(0.02)
    assert jobdir.read_result(job_dir) is not None



def _task_gone(pid: int, tid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


def _running_threads(pid: int) -> int:
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0
    return sum(not _task_gone(pid, int(tid)) for tid in tasks)


def _written_pid(path: Path, timeout: float) -> int:
    """The pid the job writes to ``path``, once it has."""
    text = wait_for(lambda: path.exists() and path.read_text().strip(), timeout,
                    f"a pid in {path.name}", interval=0.02)
    return int(text)


@contextlib.contextmanager
def _sibling_cgroup(subtree: Subtree, job_dir: Path, pid: int) -> Iterator[Path]:
    """A cgroup beside the job's, to move ``pid`` into; ``pid`` is killed if it still
    runs when the test ends, and the cgroup removed."""
    elsewhere = subtree.path / f"elsewhere-{job_dir.name}"
    elsewhere.mkdir()
    try:
        yield elsewhere
    finally:
        if _running_threads(pid):
            os.kill(pid, 9)
        deadline = time.monotonic() + 5
        while elsewhere.exists():
            try:
                elsewhere.rmdir()
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.05)


def test_a_process_moved_out_of_the_cgroup_still_ends_with_the_job(
        launcher: Launcher, subtree: Subtree, tmp_path: Path) -> None:
    """Root, or the owner of a delegated tree, can move a process out of the job's
    cgroup (here: the test, into a sibling cgroup). Once the job's first process has
    ended, such a process hangs below the shepherd, which searches for it and ends it
    although the cgroup is empty."""
    script = (f"sleep 30 & echo $! > {tmp_path}/left\n"
              f"while [ ! -e {tmp_path}/go ]; do sleep 0.05; done\n")
    job_dir = start(launcher, tmp_path, script, **cgroup_spec(subtree))
    left = _written_pid(tmp_path / "left", 5)
    with _sibling_cgroup(subtree, job_dir, left) as elsewhere:
        (elsewhere / "cgroup.procs").write_text(str(left))
        (tmp_path / "go").touch()
        assert wait_result(job_dir, timeout=20)["exit_status"] == 0
        deadline = time.monotonic() + 5
        while not gone(left):
            assert time.monotonic() < deadline, "a process moved out of the cgroup survived"
            time.sleep(0.02)


# A process whose main thread exits while another thread runs on: it shows as a zombie
# and cannot be reaped until the other thread ends. It waits for the test to have moved
# it out of the job's cgroup.
HALF_DEAD = """
import ctypes, os, sys, threading, time
threading.Thread(target=time.sleep, args=(60,)).start()
while not os.path.exists(sys.argv[1]):
    time.sleep(0.02)
ctypes.CDLL(None).pthread_exit(None)
"""


def test_a_moved_process_whose_main_thread_exited_still_ends_with_the_job(
        launcher: Launcher, subtree: Subtree, tmp_path: Path) -> None:
    """It looks like a zombie, but its other thread runs: the shepherd, which cannot
    reap it, searches for it and ends it."""
    (tmp_path / "half_dead.py").write_text(HALF_DEAD)
    script = (f"{sys.executable} {tmp_path}/half_dead.py {tmp_path}/moved & "
              f"echo $! > {tmp_path}/left\n"
              f"while [ ! -e {tmp_path}/go ]; do sleep 0.05; done\n")
    job_dir = start(launcher, tmp_path, script, **cgroup_spec(subtree))
    deadline = time.monotonic() + 10
    left = _written_pid(tmp_path / "left", 10)
    with _sibling_cgroup(subtree, job_dir, left) as elsewhere:
        while _running_threads(left) < 2:  # (its second thread has started)
            assert time.monotonic() < deadline
            time.sleep(0.02)
        (elsewhere / "cgroup.procs").write_text(str(left))
        (tmp_path / "moved").touch()
        while not _task_gone(left, left):  # the main thread has exited
            assert time.monotonic() < deadline
            time.sleep(0.02)
        assert _running_threads(left) == 1
        (tmp_path / "go").touch()
        assert wait_result(job_dir, timeout=20)["exit_status"] == 0
        deadline = time.monotonic() + 5
        while _running_threads(left):
            assert time.monotonic() < deadline, "a half-dead process survived the job"
            time.sleep(0.02)

MOVE_ASIDE = """
import json, os, subprocess, sys
from pathlib import Path
from execd.cgroups import prepare_subtree
base, spool = Path(sys.argv[1]), Path(sys.argv[2])
(base / "cgroup.procs").write_text(str(os.getpid()))
zygote = subprocess.Popen(["sleep", "30"])  # stands for the execd's zygote
try:
    made = prepare_subtree("h", spool, wanted=("hugetlb",))
    cgroup = lambda pid: Path(f"/proc/{pid}/cgroup").read_text().split("0::", 1)[1].strip()
    print(json.dumps({"controllers": sorted(made.controllers), "subtree": str(made.path),
                      "self": cgroup(os.getpid()), "zygote": cgroup(zygote.pid)}))
finally:
    zygote.kill()
    zygote.wait()
"""


def test_an_execd_alone_in_its_cgroup_moves_aside_so_jobs_get_controllers(
        tmp_path: Path) -> None:
    """cgroup v2 lets a non-root cgroup hand controllers down only while it holds no
    process: an execd alone in its (delegated) cgroup moves itself and its children to
    a leaf first. Shown with the hugetlb controller, the one domain controller this
    hybrid machine's unified hierarchy offers."""
    from execd.cgroups import cgroup2_mount
    mount = cgroup2_mount(Path("/proc/self/mountinfo").read_text())
    if mount is None or not os.access(mount, os.W_OK):
        pytest.skip("no writable cgroup v2 root")
    root = Path(mount)
    if "hugetlb" not in (root / "cgroup.controllers").read_text().split():
        pytest.skip("no hugetlb controller in the unified hierarchy")
    had = "hugetlb" in (root / "cgroup.subtree_control").read_text().split()
    base = root / f"pyge-test-{os.getpid()}"
    try:
        (root / "cgroup.subtree_control").write_text("+hugetlb")
        base.mkdir()
        done = subprocess.run([sys.executable, "-c", MOVE_ASIDE, str(base), str(tmp_path)],
                              capture_output=True, text=True, timeout=30,
                              cwd=Path(__file__).parents[2])
        assert done.returncode == 0, done.stderr
        seen = json.loads(done.stdout)
        assert seen["controllers"] == ["hugetlb"], seen
        leaf = f"/{base.name}/pygridengine/{Path(seen['subtree']).name}.daemon"
        assert seen["self"].endswith(leaf) and seen["zygote"].endswith(leaf), seen
    finally:
        for path in sorted(base.glob("**/"), key=lambda p: -len(p.parts)):
            try:
                path.rmdir()
            except OSError:
                pass
        if not had:
            (root / "cgroup.subtree_control").write_text("-hugetlb")
