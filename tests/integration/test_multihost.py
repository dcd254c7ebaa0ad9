"""Integration: one qmaster and scheduler, three execds as distinct hosts.

``test_jobs_spread_over_three_hosts`` runs every daemon on loopback, each execd with its
own host name and spool directory and no access to the cell directory (as on a remote
machine), and checks that jobs land on all three hosts without exceeding all.q's 2 slots
per host.

``test_jobs_cross_network_namespaces`` (root only) puts each execd in a network namespace
of its own, joined to the root namespace by a veth pair with addresses from 198.18.0.0/15
(RFC 2544 benchmarking space, never routed), so that execd traffic really crosses
interfaces to a qmaster bound to a non-loopback address.

Daemons are started by this module and stopped by their pids in ``finally`` blocks; the
namespaces and links are deleted the same way, even when a test fails.
"""
from __future__ import annotations

import ipaddress
import os
import pwd
import random
import secrets
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from clients.api import Client, ClientError, job_request
from common import keys
from common.cell import Cell, make_cell_dirs, read_act_qmaster
from tests.cellconf import without_load_thresholds

REPO = Path(__file__).resolve().parents[2]
HOSTS = ["h1", "h2", "h3"]
SLOTS = 2
START_TIMEOUT = 15.0
JOBS_TIMEOUT = 25.0
BENCH_NET = ipaddress.ip_network("198.18.0.0/15")
HOST_SCRIPT = b"#!/bin/sh\necho \"$HOSTNAME $JOB_ID\"\nsleep 1\n"


# ---------------------------------------------------------------- processes and waits

class Daemons:
    """The processes a test started, each logging to ``<dir>/<label>.log``."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, label: str, module: str, args: list[str],
              prefix: list[str] | None = None) -> subprocess.Popen[bytes]:
        log_path = self.log_dir / f"{label}.log"
        cmd = [*(prefix or []), sys.executable, "-m", module,
               "--log-file", str(log_path), *args]
        with log_path.open("ab") as log:
            proc = subprocess.Popen(cmd, cwd=REPO, env=_daemon_env(), stdin=subprocess.DEVNULL,
                                    stdout=log, stderr=log, start_new_session=True)
        self.procs[label] = proc
        return proc

    def check_running(self) -> None:
        dead = {label: p.returncode for label, p in self.procs.items() if p.poll() is not None}
        assert not dead, f"daemons exited early: {dead}\n{self.logs()}"

    def stop_all(self) -> None:
        """SIGTERM every process by pid (execds last started, first stopped), then SIGKILL."""
        for proc in reversed(list(self.procs.values())):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.procs.values():
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)

    def logs(self) -> str:
        """The tail of every daemon's log, for failure messages."""
        out = []
        for path in sorted(self.log_dir.glob("*.log")):
            out.append(f"--- {path.name} ---\n" + path.read_text(errors="replace")[-3000:])
        return "\n".join(out)


def _daemon_env() -> dict[str, str]:
    """The test's environment without a cell: execds must get everything from options."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYGE_ROOT", "PYGE_CELL")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return env


def wait_for(predicate: Callable[[], Any], timeout: float, what: str,
             daemons: Daemons) -> Any:
    """Poll ``predicate`` until it returns something true; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        daemons.check_running()
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}\n{daemons.logs()}")


def _user_name() -> str:
    return pwd.getpwuid(os.getuid()).pw_name


# ---------------------------------------------------------------- the cell

def start_qmaster(daemons: Daemons, cell: Cell, bind_args: list[str]) -> tuple[str, int]:
    """Start qmaster and scheduler of a new cell, whose keys (``pyge keys``) trust the
    execds of HOSTS; (address, port) from act_qmaster."""
    make_cell_dirs(cell)
    keys.ensure_cell_keys(cell, HOSTS)
    daemons.start("qmaster", "qmaster.main",
                  ["--root", str(cell.root), "--cell", cell.name, "--port", "0",
                   "--managers", _user_name(), "--min-uid", "0", "--auto-add-hosts",
                   "--slots", str(SLOTS), *bind_args])
    wait_for(cell.act_qmaster_path.exists, START_TIMEOUT, "act_qmaster", daemons)
    host, port, _ = read_act_qmaster(cell)
    wait_for(lambda: _ping(cell), START_TIMEOUT, "qmaster to answer", daemons)
    daemons.start("scheduler", "scheduler.main", ["--root", str(cell.root), "--cell", cell.name])
    return host, port


def _ping(cell: Cell) -> bool:
    try:
        with Client(cell, timeout=1.0) as client:
            client.request("ping", {})
        return True
    except ClientError:
        return False


def execd_args(cell: Cell, host: str, qmaster: str, spool: Path) -> list[str]:
    """An execd with no access to the cell: its key and the qmaster's public key are
    copies beside its spool, as an administrator would install them on another host."""
    key_dir = spool.parent / f"keys-{host}"
    key_dir.mkdir(mode=0o700, exist_ok=True)
    secret = key_dir / "execd.key_secret"
    shutil.copy2(keys.secret_path(cell, keys.execd_name(host)), secret)
    shutil.copy2(keys.qmaster_public_path(cell), key_dir / "qmaster.key")
    return ["--hostname", host, "--qmaster", qmaster, "--spool", str(spool),
            "--load-interval", "1", "--key-file", str(secret),
            "--qmaster-key", str(key_dir / "qmaster.key")]


def wait_hosts_alive(client: Client, daemons: Daemons) -> None:
    def alive() -> bool:
        return set(HOSTS) <= {h["name"] for h in client.cluster()["hosts"] if h["alive"]}
    wait_for(alive, START_TIMEOUT, f"execds {HOSTS} to register", daemons)


def submit_host_jobs(client: Client, outdir: Path, count: int) -> dict[int, Path]:
    """Submit ``count`` script jobs printing ``$HOSTNAME $JOB_ID``; job id -> output file."""
    outs = [outdir / f"job{i}.out" for i in range(count)]
    requests = [job_request("host.sh", script=HOST_SCRIPT, job_name=f"mh{i}", cwd=str(outdir),
                            stdout_paths=[str(out)], merge_output=True)
                for i, out in enumerate(outs)]
    return dict(zip(client.submit(requests), outs))


def run_and_check(client: Client, outdir: Path, count: int, daemons: Daemons) -> dict[str, int]:
    """Run ``count`` jobs; check exit status, output and slots; jobs per host."""
    outputs = submit_host_jobs(client, outdir, count)
    results = client.wait(list(outputs), timeout=JOBS_TIMEOUT)
    for [result] in results.values():
        assert result["exit_status"] == 0 and not result["failed"], (result, daemons.logs())
    tasks = client.jobs(list(outputs), include_finished=True)["tasks"]
    assert sorted(t["job_id"] for t in tasks) == sorted(outputs)
    for task in tasks:
        text = outputs[task["job_id"]].read_text()
        assert text == f"{task['host']} {task['job_id']}\n", (task, text)
    assert max(_max_concurrency(tasks).values()) <= SLOTS, _max_concurrency(tasks)
    return _jobs_per_host(tasks)


def _jobs_per_host(tasks: list[dict[str, Any]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for task in tasks:
        out[task["host"]] = out.get(task["host"], 0) + 1
    return out


def _max_concurrency(tasks: list[dict[str, Any]]) -> dict[str, int]:
    """The most tasks that ran at once on each host, from their start and end times."""
    out: dict[str, int] = {}
    for host in {t["host"] for t in tasks}:
        # an end sorts before a start at the same instant: the slot was free again
        edges = sorted([(t["start_time"], 1) for t in tasks if t["host"] == host] +
                       [(t["end_time"], -1) for t in tasks if t["host"] == host])
        level = peak = 0
        for _, step in edges:
            level += step
            peak = max(peak, level)
        out[host] = peak
    return out


# ---------------------------------------------------------------- test 1: loopback

def test_jobs_spread_over_three_hosts(tmp_path: Path) -> None:
    cell = Cell(tmp_path / "root")
    daemons = Daemons(tmp_path)
    try:
        host, port = start_qmaster(daemons, cell, [])
        assert host == "127.0.0.1"  # the default --bind is what act_qmaster records
        for name in HOSTS:
            daemons.start(f"execd-{name}", "execd.main",
                          execd_args(cell, name, f"{host}:{port}", tmp_path / f"spool-{name}"))
        with Client(cell, timeout=10.0) as client:
            wait_hosts_alive(client, daemons)
            without_load_thresholds(client)
            per_host = run_and_check(client, tmp_path, 12, daemons)
        assert set(per_host) == set(HOSTS), per_host
        assert sum(per_host.values()) == 12
        for name in HOSTS:  # each execd kept its jobs in its own spool directory
            assert (tmp_path / f"spool-{name}" / "jobs").is_dir()
    finally:
        daemons.stop_all()


# ---------------------------------------------------------------- test 2: namespaces

def _run(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=10)


def _used_networks() -> list[ipaddress.IPv4Network]:
    """Every IPv4 network already configured in the root namespace."""
    out = subprocess.run(["ip", "-o", "-4", "addr", "show"], check=True, capture_output=True,
                         text=True, timeout=10).stdout
    return [ipaddress.ip_interface(line.split()[3]).network for line in out.splitlines()]


def free_blocks(count: int) -> list[ipaddress.IPv4Network]:
    """``count`` random /30 networks of 198.18.0.0/15 that overlap nothing configured."""
    used = _used_networks()
    blocks: list[ipaddress.IPv4Network] = []
    while len(blocks) < count:
        offset = random.randrange(BENCH_NET.num_addresses // 4) * 4
        block = ipaddress.ip_network(f"{BENCH_NET.network_address + offset}/30")
        if not any(block.overlaps(n) for n in used + blocks):
            blocks.append(block)
    return blocks


class NetHost:
    """One simulated machine: a network namespace and a veth pair to the root namespace."""

    def __init__(self, tag: str, index: int, block: ipaddress.IPv4Network) -> None:
        self.ns = f"pyge-{tag}-h{index}"
        self.root_if, self.ns_if = f"pg{tag}r{index}", f"pg{tag}n{index}"
        self.gateway, self.address = (str(a) for a in list(block.hosts())[:2])
        self.created = False

    def create(self) -> None:
        _run("netns", "add", self.ns)
        self.created = True
        _run("link", "add", self.root_if, "type", "veth", "peer", "name", self.ns_if,
             "netns", self.ns)
        _run("addr", "add", f"{self.gateway}/30", "dev", self.root_if)
        _run("link", "set", self.root_if, "up")
        _run("-n", self.ns, "link", "set", "lo", "up")
        _run("-n", self.ns, "addr", "add", f"{self.address}/30", "dev", self.ns_if)
        _run("-n", self.ns, "link", "set", self.ns_if, "up")
        # the qmaster listens on the first host's gateway address: reach it via our own
        _run("-n", self.ns, "route", "add", str(BENCH_NET), "via", self.gateway)

    def delete(self) -> None:
        """Remove the namespace (which takes its veth end and so the pair with it)."""
        if self.created:
            subprocess.run(["ip", "netns", "del", self.ns], capture_output=True, timeout=10)
        if Path(f"/sys/class/net/{self.root_if}").exists():
            subprocess.run(["ip", "link", "del", self.root_if], capture_output=True, timeout=10)

    def rx_packets(self) -> int:
        return int(Path(f"/sys/class/net/{self.root_if}/statistics/rx_packets").read_text())


@pytest.fixture
def net_hosts() -> Iterator[list[NetHost]]:
    if os.geteuid() != 0:
        pytest.skip("network namespaces need root (ip netns add)")
    if shutil.which("ip") is None:
        pytest.skip("the ip command is missing (apt-get install -y iproute2)")
    tag = secrets.token_hex(3)
    hosts = [NetHost(tag, i, block) for i, block in enumerate(free_blocks(len(HOSTS)), 1)]
    try:
        for host in hosts:
            host.create()
        yield hosts
    finally:
        for host in hosts:
            host.delete()


def _net_namespace(pid: int) -> str:
    return os.readlink(f"/proc/{pid}/ns/net")


def test_jobs_cross_network_namespaces(tmp_path: Path, net_hosts: list[NetHost]) -> None:
    cell = Cell(tmp_path / "root")
    daemons = Daemons(tmp_path)
    try:
        qmaster_addr = net_hosts[0].gateway
        host, port = start_qmaster(daemons, cell, ["--bind", qmaster_addr])
        assert host == qmaster_addr  # act_qmaster records a specific bind address
        procs = [daemons.start(f"execd-{name}", "execd.main",
                               execd_args(cell, name, f"{qmaster_addr}:{port}",
                                          tmp_path / f"spool-{name}"),
                               prefix=["ip", "netns", "exec", net.ns])
                 for name, net in zip(HOSTS, net_hosts)]
        rx_before = [net.rx_packets() for net in net_hosts]
        with Client(cell, timeout=10.0) as client:
            wait_hosts_alive(client, daemons)
            without_load_thresholds(client)
            per_host = run_and_check(client, tmp_path, 2 * len(HOSTS), daemons)
        assert set(per_host) == set(HOSTS), per_host
        namespaces = {_net_namespace(p.pid) for p in procs}
        assert len(namespaces) == 3 and _net_namespace(os.getpid()) not in namespaces
        for net, before in zip(net_hosts, rx_before):
            assert net.rx_packets() > before, f"no traffic from {net.ns} on {net.root_if}"
    finally:
        daemons.stop_all()
