"""Many simulated execution hosts in one process, speaking the execd protocol to a qmaster.

    python3 -m tests.bench.fake_execds --root DIR [--cell default] [--hosts 1000]
        [--prefix sim] [--load-interval S] [--run-time S] [--num-proc 4]
        [--ping-interval 2] [--add-hosts [--slots N]] [--log-file F] [--duration S]

Each host (``sim0001`` ... ``sim1000``) is what ``execd/service.py`` is to the qmaster, without
a spool, shepherds or jobs that really run:

- it connects with a CURVE key of its own (``execd-<host>`` in the cell's keys, made here
  with ``common.keys.ensure_cell_keys``, what ``pyge keys --execd HOST`` does), so the
  qmaster's gate proves it to be the execd of that host (``qmaster/gate.py``): no name has
  to resolve, and /etc/hosts is never touched;
- it registers (``register``, with its load and the tasks it still has) and is accepted as an
  execution host by a qmaster started with ``--auto-add-hosts`` (every ``pyge up`` cell:
  it adds the host to the exec hosts, ``@allhosts`` and all.q with a ``[host=N]`` slots
  entry of its own). ``--add-hosts`` adds them first through the client API instead, as an
  administrator would (``@allhosts``' host list, which makes them exec hosts as ``qconf
  -mhgrp`` does, and all.q's slots for every host): use it for hundreds of hosts, whose
  one slots entry each makes every registration slower (see ``add_hosts``);
- it sends load reports every ``--load-interval`` seconds (default: the
  ``load_report_time`` the qmaster answers, as the real execd), the hosts spread evenly over
  the interval, with the load values ``execd/load.py`` formats (arch, num_proc, load_avg,
  np_load_avg, mem_free, ...), a little different per host and per report, and the usage
  so far of its running tasks;
- it pings every ``--ping-interval`` seconds (the real execd's 2 s) and registers again when
  the qmaster's epoch changes (a restarted qmaster) or the qmaster asks for it;
- ``start_job``: ``job_started`` at once, then ``job_finished`` (exit 0, a small usage)
  after ``--run-time`` seconds (default 0: at once; a binary ``sleep N`` job, qsub -b y
  /bin/sleep N, after N seconds); ``signal_job``: ``terminate``/``kill``
  end the run with SIGKILL's result (exit 137, signal 9, failed 100) as the shepherd
  reports a qdel'ed job, ``suspend``/``resume`` stop and restart its clock;
- every message that needs an answer is repeated every 2 s until answered, as the real
  execd does; the answer to ``job_finished`` (or a ``finished_ack``) is the acknowledgement
  after which the task is forgotten.

At most ``--register-burst`` registrations are outstanding at a time (1000 execds of a
real cell do not start in the same millisecond either). The process prints one line
``fake_execds: N hosts registered`` when every host has been accepted, and a status line
every ``--status-every`` seconds. SIGTERM or SIGINT stops it within a quarter of a second;
simulated jobs still running are abandoned (the qmaster takes the hosts for unheard later).
"""
from __future__ import annotations

import argparse
import heapq
import itertools
import os
import random
import resource
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import zmq

from common import keys, wire
from common.cell import Cell, read_act_qmaster
from execd.load import format_load, host_arch

RESEND_SECONDS = 2.0      # execd/service.py RESEND_SECONDS
PING_SECONDS = 2.0        # execd/service.py PING_SECONDS
DEFAULT_REPORT = 40.0     # load_report_time 00:00:40 when the qmaster says nothing
TICK_SECONDS = 0.1        # the loop's longest sleep (a stop is noticed within it)
SWEEP_SECONDS = 0.25      # resends, load reports, pings: checked as often as execd's timers
REGISTER_BURST = 100
KILLED = {"exit_status": 137, "signal": 9, "failed": 100,
          "failed_reason": "assumedly after job"}


def host_names(count: int, prefix: str = "sim", first: int = 1) -> list[str]:
    width = max(4, len(str(first + count - 1)))
    return [f"{prefix}{i:0{width}d}" for i in range(first, first + count)]


@dataclass
class SimTask:
    job_id: int
    task_id: int
    dispatched: float
    start_time: float
    run_time: float
    end_at: float | None = None          # monotonic time the run ends (None: suspended)
    left: float = 0.0                    # seconds still to run while suspended
    result: dict[str, Any] | None = None  # set when the run has ended

    @property
    def key(self) -> str:
        return f"{self.job_id}.{self.task_id}"


@dataclass
class SimHost:
    index: int
    name: str
    curve: keys.ClientKeys
    sock: Any = None
    registered: bool = False
    registering: bool = False
    epoch: str = ""
    interval: float = DEFAULT_REPORT
    next_load: float = 0.0
    next_ping: float = 0.0
    retry_register: float = 0.0
    pending: dict[int, list[Any]] = field(default_factory=dict)  # rid -> [type, body, sent]
    tasks: dict[str, SimTask] = field(default_factory=dict)
    rng: random.Random = field(default_factory=random.Random)


class FakeExecds:
    """The simulated hosts and their one loop (``run``); see the module text."""

    def __init__(self, cell: Cell, hosts: list[str], *, load_interval: float | None = None,
                 run_time: float = 0.0, num_proc: int = 4, ping_interval: float = PING_SECONDS,
                 register_burst: int = REGISTER_BURST, qmaster: tuple[str, int] | None = None,
                 log: Callable[[str], None] | None = None) -> None:
        self.cell = cell
        self.names = hosts
        self.load_interval = load_interval
        self.run_time = run_time
        self.num_proc = num_proc
        self.ping_interval = ping_interval
        self.register_burst = max(1, register_burst)
        self.qmaster = qmaster
        self.log = log or (lambda text: None)
        self.hosts: list[SimHost] = []
        self.by_sock: dict[Any, SimHost] = {}
        self.ctx: zmq.Context[Any] | None = None
        self.poller = zmq.Poller()
        self._ids = itertools.count(1)
        self._ends: list[tuple[float, int, int, str]] = []  # (end, seq, host index, task key)
        self._seq = itertools.count()
        self._stop = False
        self.arch = host_arch()
        self.counts = {"started": 0, "finished": 0, "signalled": 0, "refused": 0,
                       "registrations": 0, "load_reports": 0}
        self.last_refusal = ""
        self.announced = False

    # ---- set-up ----------------------------------------------------------------------
    def prepare_keys(self) -> None:
        """A CURVE key pair per simulated host, trusted by the qmaster (made if missing)."""
        keys.ensure_cell_keys(self.cell, self.names)

    def open(self) -> None:
        raise_fd_limit()
        if self.qmaster is None:
            host, port, _ = read_act_qmaster(self.cell)
        else:
            host, port = self.qmaster
        self.ctx = zmq.Context()
        self.ctx.set(zmq.MAX_SOCKETS, len(self.names) + 64)
        server = keys.read_certificate(keys.qmaster_public_path(self.cell)).public
        for index, name in enumerate(self.names):
            own = keys.read_secret(keys.secret_path(self.cell, keys.execd_name(name)))
            sim = SimHost(index, name, keys.ClientKeys(own, server),
                          rng=random.Random(index))
            sock = self.ctx.socket(zmq.DEALER)
            keys.secure_client(sock, sim.curve)
            sock.setsockopt(zmq.LINGER, 0)
            sock.setsockopt(zmq.RECONNECT_IVL, 100)
            sock.setsockopt(zmq.RECONNECT_IVL_MAX, 2000)
            sock.connect(f"tcp://{host}:{port}")
            sim.sock = sock
            self.hosts.append(sim)
            self.by_sock[sock] = sim
            self.poller.register(sock, zmq.POLLIN)

    def close(self) -> None:
        for sim in self.hosts:
            if sim.sock is not None:
                self.poller.unregister(sim.sock)
                sim.sock.close(0)
                sim.sock = None
        if self.ctx is not None:
            self.ctx.term()
            self.ctx = None

    def stop(self, *_: Any) -> None:
        self._stop = True

    # ---- the loop --------------------------------------------------------------------
    def run(self, duration: float | None = None,
            status_every: float = 0.0) -> None:
        """Serve until ``stop`` (or ``duration`` seconds); every pass of the loop does a
        bounded amount of work: what has arrived, what is due, then a short poll."""
        deadline = None if not duration else time.monotonic() + duration
        next_status = time.monotonic() + status_every if status_every else None
        next_sweep = 0.0
        while not self._stop:
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                break
            wait = max(0.0, min(TICK_SECONDS, next_sweep - now))
            if self._ends:
                wait = max(0.0, min(wait, self._ends[0][0] - now))
            for sock, _ in self.poller.poll(wait * 1000):
                self._receive(self.by_sock[sock])
            now = time.monotonic()
            self._end_due(now)
            if now >= next_sweep:  # resends, reports, pings, registrations: 4 times a second
                next_sweep = now + SWEEP_SECONDS
                self._timers(now)
                if not self.announced and self.registered_count() == len(self.hosts):
                    self.announced = True
                    print(f"fake_execds: {len(self.hosts)} hosts registered", flush=True)
            if next_status is not None and now >= next_status:
                next_status = now + status_every
                print(f"fake_execds: {self.status()}", flush=True)

    def registered_count(self) -> int:
        return sum(1 for h in self.hosts if h.registered)

    def status(self) -> str:
        c = self.counts
        running = sum(1 for h in self.hosts for t in h.tasks.values() if t.result is None)
        text = (f"{self.registered_count()}/{len(self.hosts)} registered, "
                f"{c['started']} started, {c['finished']} finished, {running} running, "
                f"{c['load_reports']} load reports, {c['registrations']} registrations")
        if c["refused"]:
            text += f", {c['refused']} refused (last: {self.last_refusal})"
        return text

    def _timers(self, now: float) -> None:
        registering = sum(1 for h in self.hosts if h.registering)
        for sim in self.hosts:
            if not sim.registered:
                if not sim.registering and now >= sim.retry_register and \
                        registering < self.register_burst:
                    self._register(sim)
                    registering += 1
            else:
                if now >= sim.next_load:
                    sim.next_load += sim.interval
                    if sim.next_load < now:  # (a stall: no burst of overdue reports)
                        sim.next_load = now + sim.interval
                    self._load_report(sim)
                if self.ping_interval and now >= sim.next_ping:
                    sim.next_ping = now + self.ping_interval
                    self._replace(sim, "ping", {})
            if sim.pending:
                for rid, item in list(sim.pending.items()):
                    if now - item[2] >= RESEND_SECONDS:
                        self._transmit(sim, rid)

    # ---- requests --------------------------------------------------------------------
    def _request(self, sim: SimHost, msg_type: str, body: dict[str, Any]) -> None:
        rid = next(self._ids)
        sim.pending[rid] = [msg_type, body, 0.0]
        self._transmit(sim, rid)

    def _transmit(self, sim: SimHost, rid: int) -> None:
        item = sim.pending[rid]
        item[2] = time.monotonic()
        try:
            sim.sock.send(wire.encode(item[0], item[1], rid), flags=zmq.NOBLOCK)
        except zmq.Again:
            pass  # the qmaster is away: sent again later

    def _replace(self, sim: SimHost, msg_type: str, body: dict[str, Any]) -> None:
        for rid in [r for r, p in sim.pending.items() if p[0] == msg_type]:
            del sim.pending[rid]
        self._request(sim, msg_type, body)

    def _register(self, sim: SimHost) -> None:
        sim.registered, sim.registering = False, True
        for rid in [r for r, p in sim.pending.items() if p[0] in ("register", "load_report",
                                                                    "ping")]:
            del sim.pending[rid]
        held = [{"job_id": t.job_id, "task_id": t.task_id, "dispatched": t.dispatched}
                for t in sim.tasks.values()]
        self.counts["registrations"] += 1
        self._request(sim, "register", {"host": sim.name, "load": self.load(sim),
                                        "jobs": held, "global_load": {}})

    def _load_report(self, sim: SimHost) -> None:
        now = time.time()
        usage = [{"job_id": t.job_id, "task_id": t.task_id, "dispatched": t.dispatched,
                  "cpu": max(0.0, now - t.start_time) * 0.9, "mem": 0.001, "io": 0.0001,
                  "vmem": 8.0e6, "maxvmem": 8.0e6}
                 for t in sim.tasks.values() if t.result is None][:wire_usage_limit()]
        self.counts["load_reports"] += 1
        self._replace(sim, "load_report", {"host": sim.name, "load": self.load(sim),
                                           "usage": usage, "global_load": {}})

    def load(self, sim: SimHost) -> dict[str, str]:
        """Load values as the real execd formats them (execd.load.format_load), a little
        different per host and per report."""
        running = sum(1 for t in sim.tasks.values() if t.result is None)
        base = 0.02 + 0.05 * (sim.index % 7) + 0.5 * running
        jitter = sim.rng.uniform(0.0, 0.05)
        gib = 1024 ** 3
        mem_total = 16 * gib
        return format_load({
            "arch": self.arch, "num_proc": self.num_proc,
            "load": (base + jitter, base + jitter / 2, base),
            "mem_total": mem_total,
            "mem_free": mem_total - gib - (sim.index % 13) * 64 * 1024 ** 2
            - running * 100 * 1024 ** 2,
            "swap_total": 0, "swap_free": 0,
            "cpu": min(100.0, 3.0 + 25.0 * running + jitter * 10),
            "topology": [[1] * self.num_proc]})

    # ---- messages from the qmaster ---------------------------------------------------
    def _receive(self, sim: SimHost) -> None:
        for _ in range(1000):  # bounded: the other hosts get their turn
            try:
                frame = sim.sock.recv(flags=zmq.NOBLOCK)
            except zmq.Again:
                return
            try:
                msg_type, rid, body = wire.decode(frame)
            except wire.WireError as err:
                self.log(f"{sim.name}: refused message: {err.message}")
                continue
            if msg_type in ("reply", "error"):
                self._on_reply(sim, msg_type, rid, body)
            elif msg_type == "start_job":
                self._start_job(sim, body)
            elif msg_type == "signal_job":
                self._signal_job(sim, body)
            elif msg_type == "finished_ack":
                self._acknowledged(sim, int(body["job_id"]), int(body["task_id"]), None)

    def _on_reply(self, sim: SimHost, msg_type: str, rid: int, body: dict[str, Any]) -> None:
        item = sim.pending.pop(rid, None)
        if item is None:
            return
        kind, sent = item[0], item[1]
        if msg_type == "error":
            self.counts["refused"] += 1
            self.last_refusal = f"{kind}: {body.get('message')}"
            self.log(f"{sim.name}: qmaster refused {kind}: {body.get('message')}")
            if kind in ("register", "load_report"):
                sim.registered = sim.registering = False
                sim.retry_register = time.monotonic() + RESEND_SECONDS
            return
        if kind in ("register", "load_report", "ping"):
            self._on_host_reply(sim, kind, body)
        elif kind == "job_started" and body.get("known") is False:
            task = sim.tasks.get(f"{sent['job_id']}.{sent['task_id']}")
            if task is not None and task.dispatched == sent.get("dispatched", 0.0):
                self._end(sim, task, KILLED)  # a run the qmaster gave up: killed
        elif kind == "job_finished":
            self._acknowledged(sim, int(sent["job_id"]), int(sent["task_id"]),
                               float(sent.get("dispatched", 0.0)))

    def _on_host_reply(self, sim: SimHost, kind: str, body: dict[str, Any]) -> None:
        if body.get("reregister") or (sim.epoch and body.get("epoch") != sim.epoch):
            sim.epoch = str(body.get("epoch", ""))
            self._register(sim)
            return
        sim.epoch = str(body.get("epoch", ""))
        if self.load_interval is None and "load_report_time" in body:
            sim.interval = max(1.0, _seconds(str(body["load_report_time"]), DEFAULT_REPORT))
        elif self.load_interval is not None:
            sim.interval = self.load_interval
        if kind == "register":
            first = not sim.registered
            sim.registered, sim.registering = True, False
            if first:  # spread the hosts' reports evenly over the interval
                now = time.monotonic()
                n = max(1, len(self.hosts))
                sim.next_load = now + sim.interval * ((sim.index + 0.5) / n)
                sim.next_ping = now + self.ping_interval * ((sim.index + 0.5) / n)
            for task in sim.tasks.values():  # results not yet acknowledged, again
                if task.result is not None:
                    self._report_finished(sim, task)

    def _acknowledged(self, sim: SimHost, job_id: int, task_id: int,
                      dispatched: float | None) -> None:
        task = sim.tasks.get(f"{job_id}.{task_id}")
        if task is None or task.result is None:
            return
        if dispatched is not None and dispatched != task.dispatched:
            return  # about an earlier run than the one here
        del sim.tasks[task.key]
        for rid in [r for r, p in sim.pending.items() if p[0] == "job_finished"
                    and p[1]["job_id"] == job_id and p[1]["task_id"] == task_id]:
            del sim.pending[rid]

    # ---- jobs ------------------------------------------------------------------------
    def _start_job(self, sim: SimHost, body: dict[str, Any]) -> None:
        job_id, task_id = int(body["job_id"]), int(body["task_id"])
        dispatched = float(body["spec"].get("dispatched") or 0.0)
        key = f"{job_id}.{task_id}"
        task = sim.tasks.get(key)
        if task is not None and task.dispatched == dispatched:
            # a repeated start order: confirm, or report the result we already have
            if task.result is not None:
                self._report_finished(sim, task)
            else:
                self._started(sim, task)
            return
        if task is not None and task.result is None:
            self._end(sim, task, KILLED)  # an earlier run given up: killed first
        task = SimTask(job_id, task_id, dispatched, time.time(),
                       _sleep_seconds(body["spec"], self.run_time))
        sim.tasks[key] = task
        self.counts["started"] += 1
        self._started(sim, task)
        if task.run_time <= 0:
            self._end(sim, task, None)
        else:
            task.end_at = time.monotonic() + task.run_time
            heapq.heappush(self._ends, (task.end_at, next(self._seq), sim.index, key))

    def _started(self, sim: SimHost, task: SimTask) -> None:
        self._request(sim, "job_started", {"host": sim.name, "job_id": task.job_id,
                                           "task_id": task.task_id,
                                           "start_time": task.start_time,
                                           "dispatched": task.dispatched})

    def _signal_job(self, sim: SimHost, body: dict[str, Any]) -> None:
        task = sim.tasks.get(f"{body['job_id']}.{body['task_id']}")
        if task is None or task.result is not None:
            return
        if body.get("dispatched") and body["dispatched"] != task.dispatched:
            return  # about another run than the one here
        self.counts["signalled"] += 1
        action = body["action"]
        if action in ("terminate", "kill"):
            self._end(sim, task, {**KILLED, "ended_by": action if action == "kill" else ""})
        elif action == "suspend" and task.end_at is not None:
            task.left = max(0.0, task.end_at - time.monotonic())
            task.end_at = None
        elif action == "resume" and task.end_at is None and task.run_time > 0:
            task.end_at = time.monotonic() + task.left
            heapq.heappush(self._ends, (task.end_at, next(self._seq), sim.index, task.key))

    def _end_due(self, now: float) -> None:
        for _ in range(10000):  # bounded per loop pass
            if not self._ends or self._ends[0][0] > now:
                return
            end_at, _, index, key = heapq.heappop(self._ends)
            sim = self.hosts[index]
            task = sim.tasks.get(key)
            if task is not None and task.result is None and task.end_at == end_at:
                self._end(sim, task, None)

    def _end(self, sim: SimHost, task: SimTask, how: dict[str, Any] | None) -> None:
        end = time.time()
        wall = max(0.0, end - task.start_time)
        result: dict[str, Any] = {
            "exit_status": 0, "signal": 0, "failed": 0, "failed_reason": "",
            "start_time": task.start_time, "end_time": end, "ru_wallclock": wall,
            "ru_utime": min(wall, 0.001), "ru_stime": min(wall, 0.001), "ru_maxrss": 1200,
            "ru_minflt": 90, "ru_nvcsw": 2, "cpu": min(wall, 0.002), "mem": 0.00001,
            "io": 0.00001, "maxvmem": 8.0e6, "pid": 40000 + (task.job_id % 20000)}
        if how:
            result.update(how)
        task.result = result
        task.end_at = None
        self.counts["finished"] += 1
        self._report_finished(sim, task)

    def _report_finished(self, sim: SimHost, task: SimTask) -> None:
        if not sim.registered:
            return  # sent after the next registration
        for rid in [r for r, p in sim.pending.items() if p[0] == "job_finished"
                    and p[1]["job_id"] == task.job_id and p[1]["task_id"] == task.task_id]:
            del sim.pending[rid]
        self._request(sim, "job_finished", {"host": sim.name, "job_id": task.job_id,
                                            "task_id": task.task_id, "result": task.result,
                                            "dispatched": task.dispatched})


def _sleep_seconds(spec: dict[str, Any], default: float) -> float:
    """How long a job runs here: ``N`` for a binary ``sleep N`` (qsub -b y /bin/sleep N),
    else ``default`` (--run-time)."""
    if spec.get("binary") and os.path.basename(str(spec.get("command"))) == "sleep":
        try:
            return max(0.0, float(spec["args"][0]))
        except (IndexError, ValueError, TypeError):
            pass
    return default


def wire_usage_limit() -> int:
    return 1 << 16  # the wire's bound on one load report's usage list


def _seconds(text: str, default: float) -> float:
    """``hh:mm:ss`` or seconds (sge_types(5) time) as seconds."""
    try:
        parts = [float(p or 0) for p in text.split(":")]
    except ValueError:
        return default
    total = 0.0
    for part in parts:
        total = total * 60 + part
    return total or default


def raise_fd_limit() -> None:
    """One TCP connection per simulated host: the soft limit up to the hard one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):
            pass


def add_hosts(cell: Cell, hosts: list[str], slots: int) -> None:
    """Make ``hosts`` execution hosts before they register, as an administrator would:
    ``qconf -mhgrp @allhosts`` with them added (Grid Engine makes the members of a host
    group execution hosts) and ``qconf -mattr queue slots N all.q`` (the queue's value
    for every host without a value of its own), through the client API, in two requests.

    A qmaster started with ``--auto-add-hosts`` adds each registering host itself, and
    gives all.q one ``[host=N]`` slots entry per host; 1000 such entries make every later
    registration slow (each builds the queue instances, which parse that list per host),
    which is why the benchmark adds its simulated hosts this way."""
    from clients.api import Client
    from common.objects_conf.queue import format_host_overrides, parse_host_overrides
    with Client(cell, timeout=300) as client:
        groups = client.conf_get("hgrp")
        pairs = dict(map(tuple, groups.get("@allhosts") or [["hostlist", "NONE"]]))
        members = [] if pairs.get("hostlist", "NONE") == "NONE" else pairs["hostlist"].split()
        known = set(members)
        wanted = members + [h for h in hosts if h not in known]
        if wanted != members:
            client.conf_put("hgrp", "@allhosts", [["group_name", "@allhosts"],
                                                  ["hostlist", " ".join(wanted)]],
                            "add" if "@allhosts" not in groups else "modify")
        queue = client.conf_get("queue").get("all.q")
        if queue is not None and slots:
            rows, changed = [], False
            names = set(hosts)
            for key, value in queue:
                if key == "slots":
                    base, overrides = parse_host_overrides(value)
                    kept = {h: v for h, v in overrides.items() if h not in names}
                    new = format_host_overrides(str(slots), kept)
                    changed, value = new != value, new
                rows.append([key, value])
            if changed:
                client.conf_put("queue", "all.q", rows, "modify")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="fake_execds", description=__doc__.splitlines()[0])
    p.add_argument("--root", type=Path, default=os.environ.get("PYGE_ROOT"),
                   help="cell root directory (default $PYGE_ROOT)")
    p.add_argument("--cell", default=os.environ.get("PYGE_CELL", "default"))
    p.add_argument("--hosts", type=int, default=1000, help="simulated hosts (default 1000)")
    p.add_argument("--prefix", default="sim", help="host name prefix (default sim)")
    p.add_argument("--first", type=int, default=1, help="number of the first host")
    p.add_argument("--load-interval", type=float, default=None,
                   help="seconds between a host's load reports (default: the qmaster's "
                        "load_report_time)")
    p.add_argument("--run-time", type=float, default=0.0,
                   help="seconds a job runs (default 0: it ends at once)")
    p.add_argument("--num-proc", type=int, default=4, help="num_proc each host reports")
    p.add_argument("--ping-interval", type=float, default=PING_SECONDS,
                   help="seconds between a host's pings (the real execd's 2; 0: none)")
    p.add_argument("--register-burst", type=int, default=REGISTER_BURST,
                   help="registrations outstanding at a time")
    p.add_argument("--add-hosts", action="store_true",
                   help="add the hosts through the client API before they register "
                        "(@allhosts, all.q slots): needed without --auto-add-hosts, and "
                        "much faster with hundreds of hosts")
    p.add_argument("--slots", type=int, default=4, help="all.q slots per host (--add-hosts)")
    p.add_argument("--qmaster", default=None, help="host:port (default: act_qmaster)")
    p.add_argument("--log-file", type=Path, default=None)
    p.add_argument("--status-every", type=float, default=0.0,
                   help="print a status line every S seconds (0: never)")
    p.add_argument("--duration", type=float, default=0.0,
                   help="stop after S seconds (0: when signalled)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if not args.root:
        raise SystemExit("fake_execds: give --root or set PYGE_ROOT")
    cell = Cell(Path(args.root).resolve(), args.cell)
    log_file = args.log_file.open("a", buffering=1) if args.log_file else None

    def log(text: str) -> None:
        print(f"{time.strftime('%H:%M:%S')} {text}", file=log_file or sys.stderr)

    qmaster = None
    if args.qmaster:
        h, _, p = args.qmaster.rpartition(":")
        qmaster = (h, int(p))
    names = host_names(args.hosts, args.prefix, args.first)
    sims = FakeExecds(cell, names, load_interval=args.load_interval, run_time=args.run_time,
                      num_proc=args.num_proc, ping_interval=args.ping_interval,
                      register_burst=args.register_burst, qmaster=qmaster, log=log)
    signal.signal(signal.SIGTERM, sims.stop)
    signal.signal(signal.SIGINT, sims.stop)
    sims.prepare_keys()
    if args.add_hosts:
        add_hosts(cell, names, args.slots)
    sims.open()
    try:
        sims.run(args.duration or None, args.status_every)
    finally:
        sims.close()
        print(f"fake_execds: stopped; {sims.status()}", flush=True)
        if log_file:
            log_file.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
