"""Benchmark of a live local cell: prints figures, asserts nothing about time.

    python3 tests/bench/bench_cell.py [--jobs 500] [--pending 10000] [--skip-peers]

Figures: durable submissions per second through the client library in bulk and through
the ``qsub`` command; submit-to-running latency p50/p99 on an idle cell (taken from the
event stream, so polling does not disturb it); time to drain N ``/bin/true`` jobs on one
execd with 4 slots; qmaster memory with 10,000 pending jobs. When the real Grid Engine or
Slurm peer is running on this machine (see shared/tools), the same drain runs against it
and the ratio is printed; otherwise the ratio is against the figures in their RESULTS.md.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import zmq

from clients.api import Client, job_request
from common import wire
from common.cell import Cell, read_act_qmaster
from deploy.cell import LocalCell
from tests.bench import peers

QUIET = {"stdout_paths": ["/dev/null"], "stderr_paths": ["/dev/null"]}


def true_job(**opts: Any) -> dict[str, Any]:
    return job_request("/bin/true", binary=True, **QUIET, **opts)


def bulk_submission_rate(client: Client, total: int = 5000, per_request: int = 500) -> float:
    start = time.perf_counter()
    ids: list[int] = []
    for _ in range(total // per_request):
        ids += client.submit([true_job(hold=True) for _ in range(per_request)])
    elapsed = time.perf_counter() - start
    client.delete([{"job_id": j} for j in ids])
    return total / elapsed


def compile_packages() -> None:
    """Byte-compile the project as an installation would (PYTHONDONTWRITEBYTECODE in the
    environment would otherwise make every qsub start recompile its modules)."""
    import compileall
    top = Path(__file__).resolve().parents[2]
    for package in ("common", "clients"):
        compileall.compile_dir(str(top / package), quiet=1)


def qsub_command_time(cell: Cell, count: int = 50) -> float:
    compile_packages()
    env = dict(os.environ, PYGE_ROOT=str(cell.root), PYGE_CELL=cell.name)
    # The interpreter's own script, not a version manager's shim in front of it.
    qsub = Path(sys.executable).parent / "qsub"
    cmd = [str(qsub) if qsub.exists() else "qsub", "-h", "-terse", "-b", "y", "-o", "/dev/null",
           "-e", "/dev/null", "/bin/true"]
    ids = []
    start = time.perf_counter()
    for _ in range(count):
        ids.append(subprocess.run(cmd, env=env, capture_output=True, text=True,
                                  check=True).stdout.strip())
    elapsed = (time.perf_counter() - start) / count
    subprocess.run(["qdel", *ids], env=env, capture_output=True, check=False)
    return elapsed


class EventWatch:
    """Times at which tasks reach a state, as the qmaster publishes them."""

    def __init__(self, cell: Cell) -> None:
        host, _, event_port = read_act_qmaster(cell)
        self.sock = zmq.Context.instance().socket(zmq.SUB)
        self.sock.setsockopt(zmq.SUBSCRIBE, wire.TOPIC_EVENTS)
        self.sock.connect(f"tcp://{host}:{event_port}")
        time.sleep(0.2)

    def wait_state(self, job_id: int, state: str, timeout: float = 10.0) -> float:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.sock.poll(100):
                continue
            _, payload = wire.decode_published(self.sock.recv_multipart())
            for event in payload["events"]:
                obj = event.get("obj") or {}
                if event["kind"] == "task" and obj.get("job_id") == job_id and \
                        obj.get("state") == state:
                    return time.perf_counter()
        raise TimeoutError(f"job {job_id} never reached {state}")

    def close(self) -> None:
        self.sock.close(0)


def latency(client: Client, watch: EventWatch, samples: int = 60) -> tuple[float, float]:
    times = []
    for _ in range(samples):
        start = time.perf_counter()
        [job_id] = client.submit([true_job()])
        times.append(watch.wait_state(job_id, "running") - start)
        client.wait([job_id], timeout=30)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.99) - 1]


def drain(client: Client, jobs: int) -> float:
    start = time.perf_counter()
    ids = client.submit([true_job() for _ in range(jobs)])
    results = client.wait(ids, timeout=600)
    elapsed = time.perf_counter() - start
    failed = [j for j, tasks in results.items() if tasks[0]["exit_status"] != 0]
    if failed:
        print(f"  warning: {len(failed)} jobs did not exit 0")
    return elapsed


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def memory_with_pending(client: Client, local: LocalCell, pending: int) -> tuple[int, int]:
    pid = int((local.run_dir / "qmaster.pid").read_text())
    before = rss_kib(pid)
    ids: list[int] = []
    for _ in range(pending // 1000):
        ids += client.submit([true_job(hold=True) for _ in range(1000)])
    after = rss_kib(pid)
    client.delete([{"job_id": j} for j in ids])
    return before, after


def show(label: str, value: str) -> None:
    print(f"{label:<58} {value}")


def run(args: argparse.Namespace) -> None:
    root = Path(tempfile.mkdtemp(prefix="pyge-bench-"))
    os.chmod(root, 0o755)
    local = LocalCell(Cell(root))
    local.up(execds=1, slots=4, port=0)
    try:
        with Client(local.cell) as client:
            measure(args, local, client)
    finally:
        local.down()
        shutil.rmtree(root, ignore_errors=True)


def measure(args: argparse.Namespace, local: LocalCell, client: Client) -> None:
    print(f"pygridengine benchmark, {os.cpu_count()} CPUs, one execd with 4 slots")
    show("bulk submission through the library (durable jobs/s)",
         f"{bulk_submission_rate(client):,.0f}")
    per_qsub = qsub_command_time(local.cell)
    show("qsub command, per submission", f"{per_qsub * 1000:.1f} ms "
         f"({per_qsub / peers.SGE_QSUB_SECONDS:.2f}x Grid Engine's C qsub, 12 ms)")
    watch = EventWatch(local.cell)
    try:
        p50, p99 = latency(client, watch)
    finally:
        watch.close()
    show("submit-to-running latency on an idle cell", f"p50 {p50 * 1000:.1f} ms, "
         f"p99 {p99 * 1000:.1f} ms")
    ours = drain(client, args.jobs)
    show(f"drain {args.jobs} /bin/true jobs on 4 slots", f"{ours:.2f} s")
    before, after = memory_with_pending(client, local, args.pending)
    show(f"qmaster RSS idle / with {args.pending:,} pending jobs",
         f"{before / 1024:.1f} MiB / {after / 1024:.1f} MiB")
    if not args.skip_peers:
        compare(ours, args.jobs, peers.sge_drain, "Grid Engine 8.1.9", peers.SGE_DRAIN_SECONDS)
        compare(ours, args.jobs, peers.slurm_drain, "Slurm 22.05", peers.SLURM_DRAIN_SECONDS)


def compare(ours: float, jobs: int, runner: Callable[[int], float | None], name: str,
            baseline: float) -> None:
    theirs = runner(jobs)
    source = "measured now"
    if theirs is None:
        theirs, source = baseline * jobs / 500, "RESULTS.md baseline, not running here"
    show(f"drain ratio vs {name}", f"{theirs / ours:.1f}x faster "
         f"({name}: {theirs:.1f} s, {source})")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--jobs", type=int, default=500)
    p.add_argument("--pending", type=int, default=10000)
    p.add_argument("--skip-peers", action="store_true")
    run(p.parse_args())


if __name__ == "__main__":
    main()
