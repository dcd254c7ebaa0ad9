"""Load as a first-class input on a live cell: a load sensor the test controls feeds
values into qhost/qstat/qconf -se and into the scheduler; load thresholds stop and
resume dispatch (state ``a``), suspend thresholds suspend ``nsuspend`` jobs per interval
(state ``A``, jobs ``T``), and subordination suspends queue instances and single tasks.

One cell serves the module (one execd reporting every second, 4 slots). The sensor
reads its values from files in a directory of the test; queues and thresholds are set
with ``qconf`` as an administrator would. Each test puts back what it changed.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from clients.api import Client
from common.cell import Cell
from deploy.cell import LocalCell
from tests.commands import command
from tests.integration.cellutil import hostname, sleeper, wait_for
from tests.cellconf import stop_cell

TIMEOUT = 20.0
SENSOR = """#!/bin/sh
while read line; do
  [ "$line" = quit ] && exit 0
  echo begin
  echo "HOST:scratch_free:$(cat DIR/scratch_free)"
  echo "HOST:sensor_int:17"
  echo "HOST:no_such_complex:42"
  echo "global:global_val:5"
  echo end
done
"""
COMPLEXES = ("scratch_free        scf        MEMORY    <=    YES         NO         0        0\n"
             "sensor_int          si         INT       <=    YES         NO         0        0\n"
             "global_val          gval       INT       <=    YES         NO         0        0\n")


@pytest.fixture(scope="module")
def sensor_dir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="pyge-load-"))
    try:
        os.chmod(path, 0o755)
        (path / "scratch_free").write_text("2G\n")
        script = path / "sensor.sh"
        script.write_text(SENSOR.replace("DIR", str(path)).replace("HOST", hostname()))
        script.chmod(0o755)
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory, sensor_dir: Path) -> Iterator[dict[str, str]]:
    root = tmp_path_factory.mktemp("load")
    os.chmod(root, 0o755)
    local = LocalCell(Cell(root))
    try:
        local.up(execds=1, slots=4, port=0, load_interval=1.0)
        env = {**os.environ, "PYGE_ROOT": str(root), "PYGE_CELL": "default",
               "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
        complexes = root / "complexes"
        complexes.write_text(qconf(env, "-sc") + COMPLEXES)
        qconf(env, "-Mc", str(complexes))
        conf = root / "global"
        text = qconf(env, "-sconf").split("\n", 1)[1]  # without the "#global:" line
        conf.write_text("\n".join(
            f"load_sensor                  {sensor_dir / 'sensor.sh'}"
            if line.startswith("load_sensor") else line for line in text.splitlines()) + "\n")
        qconf(env, "-Mconf", str(conf))
        # these tests set the thresholds they are about; the machine's own load must
        # not get in the way (the default np_load_avg=1.75 would on a busy 2-core CI)
        qconf(env, "-rattr", "queue", "load_thresholds", "NONE", "all.q")
        wait_for(lambda: "hl:scratch_free=2.000G" in run(env, "qhost", "-F", "scratch_free"),
                 TIMEOUT, "the sensor's first values")
        yield env
    finally:
        stop_cell(local)


def run(env: dict[str, str], name: str, *args: str) -> str:
    done = subprocess.run(command(name) + list(args), env=env, capture_output=True,
                          text=True, timeout=60)
    return done.stdout + done.stderr


def qconf(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(command("qconf") + list(args), env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def set_value(sensor_dir: Path, value: str) -> None:
    (sensor_dir / "scratch_free").write_text(value + "\n")


def states(env: dict[str, str], queue: str = "all.q") -> str:
    for line in run(env, "qstat", "-f").splitlines():
        if line.startswith(f"{queue}@"):
            parts = line.split()
            return parts[5] if len(parts) > 5 else ""
    return "?"


def until(probe: Callable[[], Any], what: str) -> Any:
    return wait_for(probe, TIMEOUT, what, interval=0.2)


def submit(env: dict[str, str], count: int, **opts: Any) -> list[int]:
    with Client(Cell(Path(env["PYGE_ROOT"]))) as cl:
        return [cl.submit([sleeper(300, **opts)])[0] for _ in range(count)]


def job_states(env: dict[str, str], ids: list[int]) -> dict[int, str]:
    found = {}
    for line in run(env, "qstat", "-u", "*").splitlines()[2:]:
        parts = line.split()
        if parts and int(parts[0]) in ids:
            found[int(parts[0])] = parts[4]
    return found


def delete_all(env: dict[str, str]) -> None:
    run(env, "qdel", "-u", "*")
    until(lambda: not job_states(env, list(range(1, 10_000))), "every job to go")


def test_sensor_values_are_shown_as_grid_engine_shows_them(env: dict[str, str]) -> None:
    host = hostname()
    qhost = run(env, "qhost", "-F", "scratch_free,sensor_int,global_val").splitlines()
    assert "    Host Resource(s):      gl:global_val=5.000000" in qhost
    assert "   hl:scratch_free=2.000G" in qhost and "   hl:sensor_int=17.000000" in qhost
    qstat = run(env, "qstat", "-F", "scratch_free,sensor_int,global_val").splitlines()
    assert qstat[3:6] == ["\tgl:global_val=5", "\thl:scratch_free=2.000G",
                          "\thl:sensor_int=17"]
    # a name the complex list lacks is kept in the host's load values but not shown
    assert "no_such_complex=42" in qconf(env, "-se", host)
    assert "no_such_complex" not in run(env, "qhost", "-F")
    assert "global_val=5" in qconf(env, "-se", "global")
    # and matching sees them: a request over the sensor's value cannot run
    out = run(env, "qsub", "-w", "p", "-l", "scf=3G", "-b", "y", "/bin/true")
    assert "hl:scratch_free=2.000G" in out and "no suitable queues" in out


def test_a_load_threshold_stops_and_resumes_dispatch(env: dict[str, str],
                                                     sensor_dir: Path) -> None:
    qconf(env, "-rattr", "queue", "load_thresholds", "scratch_free=100M", "all.q")
    try:
        set_value(sensor_dir, "50M")
        until(lambda: states(env) == "a", "state a")
        explained = run(env, "qstat", "-f", "-explain", "a")
        assert "\talarm hl:scratch_free=50M load-threshold=100M\n" in explained
        [job] = submit(env, 1)
        time.sleep(2.0)  # passes run on every event: it would have started by now
        assert job_states(env, [job]) == {job: "qw"}
        assert ('queue instance "all.q@' + hostname() + '" dropped because it is overloaded: '
                "scratch_free=52428800.000000 (no load adjustment) <= 100M") \
            in run(env, "qstat", "-j", str(job))
        set_value(sensor_dir, "2G")
        until(lambda: job_states(env, [job]) == {job: "r"}, "the job to start")
        assert states(env) == ""
    finally:
        qconf(env, "-rattr", "queue", "load_thresholds", "NONE", "all.q")
        set_value(sensor_dir, "2G")
        delete_all(env)


def test_suspend_thresholds_suspend_nsuspend_jobs_per_interval(env: dict[str, str],
                                                              sensor_dir: Path) -> None:
    jobs = submit(env, 3)
    until(lambda: set(job_states(env, jobs).values()) == {"r"}, "three running jobs")
    qconf(env, "-rattr", "queue", "suspend_interval", "0:0:3", "all.q")
    qconf(env, "-rattr", "queue", "suspend_thresholds", "scratch_free=100M", "all.q")
    try:
        set_value(sensor_dir, "50M")
        first = until(lambda: [j for j, s in job_states(env, jobs).items() if s == "T"] or None,
                      "a job suspended by the threshold")
        assert first == [jobs[-1]]  # the most recently started
        assert (f'scheduling info:            queue instance "all.q@{hostname()}" is in '
                "suspend alarm: scratch_free=52428800.000000 (no load adjustment) <= 100M") \
            in run(env, "qstat", "-j", str(first[0]))
        assert states(env) == "A"
        assert "\talarm hl:scratch_free=50M suspend-threshold=100M\n" in \
            run(env, "qstat", "-f", "-explain", "A")
        time.sleep(1.0)  # well within the interval: still only one
        assert sorted(s for s in job_states(env, jobs).values()) == ["T", "r", "r"]
        until(lambda: list(job_states(env, jobs).values()).count("T") == 3, "all three")
        set_value(sensor_dir, "2G")
        resumed = until(lambda: [j for j, s in job_states(env, jobs).items() if s == "r"]
                        or None, "a job resumed")
        assert resumed == [jobs[0]]  # the one suspended last
        until(lambda: set(job_states(env, jobs).values()) == {"r"}, "all resumed")
    finally:
        qconf(env, "-rattr", "queue", "suspend_thresholds", "NONE", "all.q")
        set_value(sensor_dir, "2G")
        delete_all(env)


@pytest.fixture
def low_q(env: dict[str, str], tmp_path: Path) -> Iterator[str]:
    text = qconf(env, "-sq", "all.q")
    lines = ["qname                 low.q" if line.startswith("qname ") else
             "slots                 2" if line.startswith("slots ") else line
             for line in text.splitlines()]
    path = tmp_path / "low.q"
    path.write_text("\n".join(lines) + "\n")
    qconf(env, "-Aq", str(path))
    try:
        yield "low.q"
    finally:
        delete_all(env)
        qconf(env, "-rattr", "queue", "subordinate_list", "NONE", "all.q")
        qconf(env, "-dq", "low.q")


def test_queue_wise_subordination(env: dict[str, str], low_q: str) -> None:
    qconf(env, "-mattr", "queue", "subordinate_list", "low.q=2", "all.q")
    low = submit(env, 2, hard_queues=["low.q"])
    until(lambda: set(job_states(env, low).values()) == {"r"}, "low.q's jobs")
    high = submit(env, 1, hard_queues=["all.q"])
    until(lambda: job_states(env, high) == {high[0]: "r"}, "one all.q job")
    time.sleep(1.5)
    assert states(env, "low.q") == "" and set(job_states(env, low).values()) == {"r"}
    high += submit(env, 1, hard_queues=["all.q"])
    until(lambda: states(env, "low.q") == "S", "low.q suspended")
    until(lambda: set(job_states(env, low).values()) == {"S"}, "its jobs suspended")
    run(env, "qdel", str(high[-1]))
    until(lambda: states(env, "low.q") == "", "low.q back")
    until(lambda: set(job_states(env, low).values()) == {"r"}, "its jobs running")


@pytest.mark.parametrize("action", ["sr", "lr"])
def test_slot_wise_subordination(env: dict[str, str], low_q: str, action: str) -> None:
    qconf(env, "-rattr", "queue", "subordinate_list", f"slots=2(low.q:1:{action})", "all.q")
    low = submit(env, 1, hard_queues=["low.q"])
    until(lambda: job_states(env, low) == {low[0]: "r"}, "the first low.q job")
    time.sleep(1.1)  # a later start time for the second
    low += submit(env, 1, hard_queues=["low.q"])
    until(lambda: set(job_states(env, low).values()) == {"r"}, "both low.q jobs")
    [high] = submit(env, 1, hard_queues=["all.q"])
    victim = low[1] if action == "sr" else low[0]
    until(lambda: job_states(env, low)[victim] == "S", f"job {victim} suspended")
    assert states(env, "low.q") == ""  # slot-wise: no state on the instance
    assert list(job_states(env, low).values()).count("S") == 1
    run(env, "qdel", str(high))
    until(lambda: set(job_states(env, low).values()) == {"r"}, "the job resumed")


def test_a_host_configuration_replaces_the_global_sensor_and_adds_plugins(
        env: dict[str, str], sensor_dir: Path, tmp_path: Path) -> None:
    """sge_conf(5): the host's load_sensor replaces the global one (8.1.9 after an execd
    restart; here with the next report); execd_params LOAD_PLUGINS runs the plugins."""
    host = hostname()
    other = sensor_dir / "other.sh"
    other.write_text("#!/bin/sh\nwhile read l; do [ \"$l\" = quit ] && exit 0; "
                     f"echo begin; echo {host}:sensor_int:99; echo end; done\n")
    other.chmod(0o755)
    local = tmp_path / host
    local.write_text(f"load_sensor {other}\nexecd_params LOAD_PLUGINS=tmp_free\n")
    qconf(env, "-Aconf", str(local))
    try:
        def switched() -> bool:
            shown = qconf(env, "-se", host)
            return "sensor_int=99" in shown and "tmp_free=" in shown \
                and "scratch_free" not in shown
        until(switched, "the host's own sensor and the plugins")
    finally:
        qconf(env, "-dconf", host)
    until(lambda: "scratch_free=2G" in qconf(env, "-se", host)
          and "tmp_free=" not in qconf(env, "-se", host), "the global sensor again")
