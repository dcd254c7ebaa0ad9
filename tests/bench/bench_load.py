"""Benchmark: what load sensors cost the execd. Prints figures, asserts nothing.

    python3 -m tests.bench.bench_load [--seconds 30] [--sensors 10]

A local cell with one execd reporting every second runs ``--sensors`` external load
sensors (small shell scripts, each answering two values) and the Python plugin host with
every installed plugin (``execd_params LOAD_PLUGINS=all``). After a warm-up, the CPU
time (user + system) of the execd process itself, of its plugin host and of the sensor
processes is measured over ``--seconds`` and printed as a share of one core, next to a
baseline of the same execd without sensors. The issue's goal: the execd under 1 % of a
core with ten sensors and plugins every second.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import psutil

from common.cell import Cell
from deploy.cell import LocalCell
from tests.commands import command

SENSOR = """#!/bin/sh
while read line; do
  [ "$line" = quit ] && exit 0
  echo begin
  echo "HOST:bench_a_N:1"
  echo "HOST:bench_b_N:2"
  echo end
done
"""


def qconf(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(command("qconf") + list(args), env=env, capture_output=True,
                          text=True, timeout=60)
    if done.returncode:
        raise SystemExit(f"qconf {' '.join(args)}: {done.stderr}")
    return done.stdout


def cpu_seconds(proc: psutil.Process) -> float:
    try:
        times = proc.cpu_times()
    except psutil.Error:
        return 0.0
    return times.user + times.system


def execd_pid(local: LocalCell) -> int:
    [pidfile] = list(local.run_dir.glob("execd-*.pid"))
    return int(pidfile.read_text().split()[0])


def measure(pid: int, seconds: float) -> dict[str, float]:
    """CPU seconds per second of the execd, its plugin host and its sensors."""
    execd = psutil.Process(pid)

    def snapshot() -> dict[int, tuple[str, float]]:
        out = {pid: ("execd", cpu_seconds(execd))}
        for child in execd.children(recursive=True):
            try:
                cmd = " ".join(child.cmdline())
            except psutil.Error:
                continue
            kind = "plugins" if "plugin_host" in cmd else \
                "sensors" if "sensor" in cmd else ""
            if kind:
                out[child.pid] = (kind, cpu_seconds(child))
        return out
    before = snapshot()
    time.sleep(seconds)
    after = snapshot()
    shares = {"execd": 0.0, "plugins": 0.0, "sensors": 0.0}
    for child, (kind, used) in after.items():
        shares[kind] += (used - before.get(child, (kind, 0.0))[1]) / seconds
    return shares


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--sensors", type=int, default=10)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="pyge-bench-load-"))
    os.chmod(root, 0o755)
    local = LocalCell(Cell(root))
    try:
        local.up(execds=1, slots=2, port=0, load_interval=1.0)
        env = {**os.environ, "PYGE_ROOT": str(root), "PYGE_CELL": "default",
               "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
        time.sleep(3.0)
        pid = execd_pid(local)
        idle = measure(pid, args.seconds)
        host = os.uname().nodename.split(".")[0]
        scripts = []
        for n in range(args.sensors):
            path = root / f"sensor{n}.sh"
            path.write_text(SENSOR.replace("HOST", host).replace("_N", f"_{n}"))
            path.chmod(0o755)
            scripts.append(str(path))
        conf = root / "global"
        text = qconf(env, "-sconf").split("\n", 1)[1]
        lines = []
        for line in text.splitlines():
            if line.startswith("load_sensor"):
                line = "load_sensor                  " + ",".join(scripts)
            elif line.startswith("execd_params"):
                line = "execd_params                 LOAD_PLUGINS=all"
            lines.append(line)
        conf.write_text("\n".join(lines) + "\n")
        qconf(env, "-Mconf", str(conf))
        time.sleep(5.0)  # the execd takes the configuration with its next report
        loaded = measure(pid, args.seconds)
        values = qconf(env, "-se", host)
        print(f"load sensors: {args.sensors} scripts + plugin host (all plugins), "
              f"a report every second, {args.seconds:g} s measured")
        print(f"  sensor values seen in qconf -se: {values.count('bench_')} "
              f"of {2 * args.sensors}")
        print(f"  execd alone, no sensors:        {100 * idle['execd']:.2f} % of a core")
        print(f"  execd with the sensors:         {100 * loaded['execd']:.2f} % of a core "
              f"(goal: under 1 %)")
        print(f"  plugin host:                    {100 * loaded['plugins']:.2f} % of a core")
        print(f"  the {args.sensors} sensor scripts:          "
              f"{100 * loaded['sensors']:.2f} % of a core")
    finally:
        local.down()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
