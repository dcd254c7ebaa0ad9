"""Benchmark: what the load-sensor plugin host costs a host. Prints figures, asserts nothing.

    python3 -m tests.bench.bench_plugins [--reports 20] [--interval 1.0]
                                         [--plugins tmp_free users gpu] [--fake-gpu]

Runs ``python -m execd.plugin_host`` as the execd would (pipes, one empty line per
report), asks for one warm-up report, then ``--reports`` reports ``--interval`` seconds
apart, and prints the CPU time (user + system, from psutil of the host's pid; programs it
ran and waited for, such as nvidia-smi, counted apart) spent at start-up and per report,
the resulting share of one core, how long a report took to answer, and the host's memory.
``--fake-gpu`` puts a fake ``nvidia-smi`` (a shell script printing two GPUs) first on
PATH, so that the gpu plugin's subprocess is part of the cost; a real nvidia-smi costs
more (tens of milliseconds of its own CPU per call).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO

import psutil

REPO = Path(__file__).resolve().parents[2]

FAKE_SMI = '#!/bin/sh\necho "0, 15102, 16384"\necho "1, 81037, 81920"\n'


def _cpu(proc: psutil.Process) -> tuple[float, float]:
    """(own user+sys, user+sys of its waited-for children) in seconds."""
    t = proc.cpu_times()
    return t.user + t.system, t.children_user + t.children_system


def _report(stdin: IO[bytes], stdout: IO[bytes]) -> list[str]:
    stdin.write(b"\n")
    stdin.flush()
    lines: list[str] = []
    while True:
        raw = stdout.readline()
        if not raw:
            raise RuntimeError(f"the plugin host ended; got {lines}")
        line = raw.decode().rstrip("\n")
        lines.append(line)
        if line == "end":
            return lines


def run(reports: int, interval: float, plugins: list[str], fake_gpu: bool) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    with tempfile.TemporaryDirectory() as tmp:
        if fake_gpu:
            smi = Path(tmp) / "nvidia-smi"
            smi.write_text(FAKE_SMI)
            smi.chmod(0o755)
            env["PATH"] = f"{tmp}{os.pathsep}{env.get('PATH', '')}"
        started = time.monotonic()
        child = subprocess.Popen(
            [sys.executable, "-m", "execd.plugin_host", "--host", "bench", *plugins],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=tmp)
        assert child.stdin is not None and child.stdout is not None
        proc = psutil.Process(child.pid)
        try:
            first = _report(child.stdin, child.stdout)
            first_wall = time.monotonic() - started
            cpu0, kids0 = _cpu(proc)
            t0 = time.monotonic()
            latencies: list[float] = []
            for i in range(reports):
                # Requests on a fixed grid, as the execd's load_report_time would make them.
                delay = t0 + i * interval - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                asked = time.monotonic()
                _report(child.stdin, child.stdout)
                latencies.append(time.monotonic() - asked)
            # Up to the end of the last interval: idle time between reports counts too.
            delay = t0 + reports * interval - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            cpu1, kids1 = _cpu(proc)
            wall = time.monotonic() - t0
            rss = proc.memory_info().rss
            threads = proc.num_threads()
        finally:
            child.stdin.close()  # EOF: the host leaves
            child.wait(timeout=10)

    own = cpu1 - cpu0
    kids = kids1 - kids0
    print(f"plugin host: python -m execd.plugin_host --host bench {' '.join(plugins)}"
          + ("   (fake nvidia-smi on PATH)" if fake_gpu else ""))
    print(f"first report: {len(first) - 2} values: {', '.join(first[1:-1])}")
    print(f"start-up to the first report: {first_wall * 1000:.0f} ms wall, "
          f"{cpu0 * 1000:.0f} ms CPU (interpreter, imports, first reads)")
    print(f"{reports} reports, one per {interval:g} s, over {wall:.1f} s:")
    print(f"  CPU of the host:           {own * 1000:8.1f} ms in all, "
          f"{own / reports * 1000:6.2f} ms per report")
    print(f"  CPU of programs it ran:    {kids * 1000:8.1f} ms in all, "
          f"{kids / reports * 1000:6.2f} ms per report")
    total = own + kids
    print(f"  share of one core:         {total / wall * 100:8.3f} %")
    latencies.sort()
    print(f"  answer time per report:    median {latencies[len(latencies) // 2] * 1000:.1f} ms,"
          f" max {latencies[-1] * 1000:.1f} ms")
    print(f"  host memory: RSS {rss / 2**20:.1f} MiB, {threads} threads")
    print(f"  (the kernel counts CPU time in ticks of {1000 / os.sysconf('SC_CLK_TCK'):g} ms:"
          " more reports, finer figures)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reports", type=int, default=20)
    parser.add_argument("--interval", type=float, default=1.0)
    parser.add_argument("--plugins", nargs="+", default=["tmp_free", "users", "gpu"])
    parser.add_argument("--fake-gpu", action="store_true",
                        help="a fake nvidia-smi first on PATH")
    args = parser.parse_args(argv)
    run(max(args.reports, 1), args.interval, args.plugins, args.fake_gpu)


if __name__ == "__main__":
    main()
