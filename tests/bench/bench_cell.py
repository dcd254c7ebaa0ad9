"""Benchmark of a live local cell: prints figures, asserts nothing about time.

    python3 tests/bench/bench_cell.py [--jobs 500] [--pending 10000] [--skip-peers]
                                      [--baseline REV | --no-baseline]

Figures: durable submissions per second through the client library in bulk and through
the ``qsub`` command; submit-to-running latency p50/p99 on an idle cell (taken from the
event stream, so polling does not disturb it); time to drain N ``/bin/true`` jobs on one
execd with 4 slots; qmaster memory with 10,000 pending jobs. When the real Grid Engine or
Slurm peer is running on this machine (see shared/tools), the same drain runs against it
and the ratio is printed; otherwise the ratio is against the figures in their RESULTS.md.

The cost of authentication (issue 8): the bulk rate and the latency are measured for
clients on the qmaster's host (its Unix socket, identity from the kernel) and, where
munge is installed, for a remote client (CURVE port, a MUNGE credential per request,
against a private munged); "without authentication" is the same measurement on the
cell as it was before authentication existed (``--baseline``, default the last commit
without it, checked out into a temporary directory with ``git worktree``), so the
difference is what proving identities costs. Needs the repository's git history.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import zmq

from clients.api import Client, job_request
from common import keys, munge, wire
from common.cell import Cell, read_act_qmaster
from deploy.cell import LocalCell
from tests.bench import peers
from tests.commands import command

QUIET = {"stdout_paths": ["/dev/null"], "stderr_paths": ["/dev/null"]}


def true_job(**opts: Any) -> dict[str, Any]:
    return job_request("/bin/true", binary=True, **QUIET, **opts)


BASELINE = "d601395"  # the last commit before the qmaster authenticated anyone


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
    # The environment's own script, not a version manager's shim or Grid Engine's qsub.
    cmd = command("qsub") + ["-h", "-terse", "-b", "y", "-o", "/dev/null", "-e", "/dev/null",
                             "/bin/true"]
    ids = []
    start = time.perf_counter()
    for _ in range(count):
        ids.append(subprocess.run(cmd, env=env, capture_output=True, text=True,
                                  check=True).stdout.strip())
    elapsed = (time.perf_counter() - start) / count
    subprocess.run(command("qdel") + ids, env=env, capture_output=True, check=False)
    return elapsed


class EventWatch:
    """Times at which tasks reach a state, as the qmaster publishes them."""

    def __init__(self, cell: Cell) -> None:
        host, _, event_port = read_act_qmaster(cell)
        self.sock = zmq.Context.instance().socket(zmq.SUB)
        # the event port admits the scheduler only: the benchmark uses its key
        keys.secure_client(self.sock, keys.daemon_keys(keys.secret_path(cell, keys.SCHEDULER),
                                                       keys.qmaster_public_path(cell)))
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


def latency_samples(client: Client, watch: EventWatch, samples: int) -> list[float]:
    times = []
    for _ in range(samples):
        start = time.perf_counter()
        [job_id] = client.submit([true_job()])
        times.append(watch.wait_state(job_id, "running") - start)
        client.wait([job_id], timeout=30)
    return times


def percentiles(times: list[float]) -> tuple[float, float]:
    times = sorted(times)
    return statistics.median(times), times[max(0, int(len(times) * 0.99) - 1)]


def alternating(cell: Cell, clients: dict[str, Client], rounds: int
                ) -> dict[str, tuple[float, float, float]]:
    """(best bulk rate, latency p50, p99) per client, measured in turns on one cell, so
    that no client is favoured by the cell's state or the machine's moment; the latency
    pools 20 samples per client and round."""
    best = {name: 0.0 for name in clients}
    times: dict[str, list[float]] = {name: [] for name in clients}
    watch = EventWatch(cell)
    try:
        for _ in range(rounds):
            for name, client in clients.items():
                best[name] = max(best[name], bulk_submission_rate(client))
                times[name] += latency_samples(client, watch, 20)
    finally:
        watch.close()
    return {name: (best[name], *percentiles(times[name])) for name in clients}


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
    with contextlib.ExitStack() as stack:
        munge_socket = stack.enter_context(_private_munge(root))
        local = LocalCell(Cell(root))
        local.up(execds=1, slots=4, port=0)
        try:
            with Client(local.cell) as client:
                figures = measure(args, local, client, remote=munge_socket is not None)
        finally:
            local.down()
            shutil.rmtree(root, ignore_errors=True)
    if args.baseline:
        compare_baseline(args.baseline, figures, args.rounds)


@contextlib.contextmanager
def _private_munge(root: Path) -> Iterator[str | None]:
    """A private munged for the remote client's credentials (None without munge); the
    qmaster started after this inherits its socket through PYGE_MUNGE_SOCKET."""
    from tests.munged import munged_skip_reason, private_munged
    if munged_skip_reason() is not None:
        print(f"(no remote-client figures: {munged_skip_reason()})")
        yield None
        return
    with private_munged(root / "munge") as sock:
        saved = os.environ.get(munge.SOCKET_ENV)
        os.environ[munge.SOCKET_ENV] = sock
        try:
            yield sock
        finally:
            if saved is None:
                os.environ.pop(munge.SOCKET_ENV, None)
            else:
                os.environ[munge.SOCKET_ENV] = saved


def remote_client(cell: Cell, local_client: Client) -> Client:
    """A client that talks to the qmaster as a remote one: CURVE and one MUNGE credential
    per request (the loopback address it comes from made a submit host for the purpose)."""
    remote = Client(host="127.0.0.1", port=read_act_qmaster(cell)[1], qmaster_key=keys.
                    read_certificate(keys.qmaster_public_path(cell)).public, timeout=60)
    try:
        remote.request("job_query", {"user": remote.user.to_dict(), "job_ids": []})
    except Exception as err:  # noqa: BLE001 - the host name to add is in the refusal
        local_client.conf_put("submithost", str(err).split('"')[1], None, "add")
    return remote


def compare_baseline(rev: str, figures: dict[str, float], rounds: int) -> None:
    """Run this benchmark's bulk and latency parts on the tree of ``rev`` (in a git
    worktree) and print the difference authentication makes."""
    top = Path(__file__).resolve().parents[2]
    tree = Path(tempfile.mkdtemp(prefix="pyge-baseline-"))
    added = subprocess.run(["git", "-C", str(top), "worktree", "add", "--detach", str(tree),
                            rev], capture_output=True, text=True)
    if added.returncode != 0:
        print(f"(no baseline: git worktree add {rev} failed: {added.stderr.strip()})")
        shutil.rmtree(tree, ignore_errors=True)
        return
    try:
        out = subprocess.run(
            [sys.executable, "-c", _BASELINE_SCRIPT, str(rounds)], cwd=tree, capture_output=True, text=True,
            env={**os.environ, "PYTHONPATH": str(tree)}, timeout=900)
        if out.returncode != 0:
            print(f"(baseline run failed: {out.stderr.strip()[-500:]})")
            return
        base = {k: float(v) for k, v in (line.split("=") for line in out.stdout.split())}
    finally:
        subprocess.run(["git", "-C", str(top), "worktree", "remove", "--force", str(tree)],
                       capture_output=True)
        shutil.rmtree(tree, ignore_errors=True)
    print(f"without authentication ({rev}, same machine, measured now):")
    show("  bulk submission through the library (durable jobs/s)", f"{base['bulk']:,.0f}")
    show("  submit-to-running latency on an idle cell",
         f"p50 {base['p50'] * 1000:.1f} ms, p99 {base['p99'] * 1000:.1f} ms")
    show("  qsub command, per submission", f"{base['qsub'] * 1000:.1f} ms")
    for label, key, better in [("bulk rate", "bulk", "higher"), ("latency p50", "p50", "lower")]:
        change = (figures[key] - base[key]) / base[key] * 100
        cost = -change if better == "higher" else change
        show(f"cost of authentication, local clients, {label}", f"{cost:+.1f} %")
    if "remote_bulk" in figures:
        for label, key, base_key, better in [("bulk rate", "remote_bulk", "bulk", "higher"),
                                             ("latency p50", "remote_p50", "p50", "lower")]:
            change = (figures[key] - base[base_key]) / base[base_key] * 100
            cost = -change if better == "higher" else change
            show(f"cost of authentication, remote clients, {label}", f"{cost:+.1f} %")


# Runs in the baseline tree, in rounds as ``alternating`` does: its own bulk and latency
# parts, printed as key=value.
_BASELINE_SCRIPT = """
import os, shutil, statistics, sys, tempfile, time
from pathlib import Path
from clients.api import Client
from common.cell import Cell
from deploy.cell import LocalCell
from tests.bench import bench_cell as b
root = Path(tempfile.mkdtemp(prefix="pyge-bench-base-"))
os.chmod(root, 0o755)
local = LocalCell(Cell(root))
local.up(execds=1, slots=4, port=0)
try:
    with Client(local.cell) as client:
        bulk, times = 0.0, []
        watch = b.EventWatch(local.cell)
        try:
            for _ in range(int(sys.argv[1])):
                bulk = max(bulk, b.bulk_submission_rate(client))
                for _ in range(20):
                    start = time.perf_counter()
                    [job_id] = client.submit([b.true_job()])
                    times.append(watch.wait_state(job_id, "running") - start)
                    client.wait([job_id], timeout=30)
        finally:
            watch.close()
        times.sort()
        p50, p99 = statistics.median(times), times[max(0, int(len(times) * 0.99) - 1)]
        qsub = b.qsub_command_time(local.cell)
finally:
    local.down()
    shutil.rmtree(root, ignore_errors=True)
print(f"bulk={bulk} p50={p50} p99={p99} qsub={qsub}")
"""


def measure(args: argparse.Namespace, local: LocalCell, client: Client, *,
            remote: bool = False) -> dict[str, float]:
    """The figures; bulk rate and latency first, on a fresh cell, as the baseline takes
    them (and the remote client's right after, on the cell in the same state)."""
    print(f"pygridengine benchmark, {os.cpu_count()} CPUs, one execd with 4 slots")
    clients = {"local": client}
    if remote:
        clients["remote"] = remote_client(local.cell, client)
    try:
        results = alternating(local.cell, clients, args.rounds)
    finally:
        if remote:
            clients["remote"].close()
    bulk, p50, p99 = results["local"]
    print(f"(best bulk rate and pooled latency of {args.rounds} rounds, clients in turns)")
    show("bulk submission through the library (durable jobs/s)", f"{bulk:,.0f}")
    show("submit-to-running latency on an idle cell", f"p50 {p50 * 1000:.1f} ms, "
         f"p99 {p99 * 1000:.1f} ms")
    figures = {"bulk": bulk, "p50": p50, "p99": p99}
    if remote:
        rate, rp50, rp99 = results["remote"]
        show("bulk submission, remote client (CURVE + MUNGE, jobs/s)", f"{rate:,.0f}")
        show("submit-to-running latency, remote client", f"p50 {rp50 * 1000:.1f} ms, "
             f"p99 {rp99 * 1000:.1f} ms")
        figures.update({"remote_bulk": rate, "remote_p50": rp50, "remote_p99": rp99})
    per_qsub = qsub_command_time(local.cell)
    figures["qsub"] = per_qsub
    show("qsub command, per submission", f"{per_qsub * 1000:.1f} ms "
         f"({per_qsub / peers.SGE_QSUB_SECONDS:.2f}x Grid Engine's C qsub, 12 ms)")
    ours = drain(client, args.jobs)
    show(f"drain {args.jobs} /bin/true jobs on 4 slots", f"{ours:.2f} s")
    before, after = memory_with_pending(client, local, args.pending)
    show(f"qmaster RSS idle / with {args.pending:,} pending jobs",
         f"{before / 1024:.1f} MiB / {after / 1024:.1f} MiB")
    if not args.skip_peers:
        compare(ours, args.jobs, peers.sge_drain, "Grid Engine 8.1.9", peers.SGE_DRAIN_SECONDS)
        compare(ours, args.jobs, peers.slurm_drain, "Slurm 22.05", peers.SLURM_DRAIN_SECONDS)
    return figures


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
    p.add_argument("--baseline", default=BASELINE,
                   help="git revision to measure 'without authentication' (default %(default)s)")
    p.add_argument("--no-baseline", dest="baseline", action="store_const", const="")
    p.add_argument("--rounds", type=int, default=3,
                   help="rounds of bulk and latency measurements, clients in turns")
    run(p.parse_args())


if __name__ == "__main__":
    main()
