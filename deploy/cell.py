"""``pyge``: create, start, stop and inspect a local cell.

    pyge up [--root DIR] [--execds N] [--slots N] [--port P] [--load-interval S] [--sample]
    pyge down | status | env   [--root DIR]
    pyge keys [--root DIR] [--execd HOST ...]
    pyge simulate WORKLOAD [options]   (clients.simulate.main, docs/simulate.md)

``keys`` makes the cell's CURVE key pairs that are missing (qmaster, scheduler, and an
execd's for each ``--execd HOST``) and trusts the daemons' public keys (common.keys);
``up`` makes those it needs before it starts a daemon.

``up`` creates the cell if missing and starts whichever of its daemons is not running
(qmaster, scheduler, N execds as distinct host names), waits until they are ready and
says how to point clients at it. The cell remembers what ``up`` was told (its shape,
deploy.shape: ports, execd host names, slots, load interval), so ``pyge up --root DIR``
alone brings back that same cell after any crash; an option given changes the shape and
``up`` says what changed. A new cell whose default port is taken gets a free one. A cell made this way belongs to its creator, who is its
manager and may submit even as root (``min_uid`` 0). Daemons are stopped by the pids
recorded in ``<cell>/run/``, never by name.
"""
from __future__ import annotations

import argparse
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

from common import keys
from common.cell import DEFAULT_CELL, DEFAULT_PORT, Cell, make_cell_dirs, read_act_qmaster
from common.daemon import port_is_free
from deploy.sample import run_sample
from deploy.launchers import write_launchers
from deploy.shape import (DEFAULT_LOAD_INTERVAL, SHAPE_FILE, Shape, ShapeError, host_names,
                          read_shape, resolve, write_shape)

READY_TIMEOUT = 30.0
QMASTER_BIND = "127.0.0.1"  # where a local cell's qmaster listens (pyge-qmaster --bind)


def default_root() -> Path:
    return Path(os.environ.get("PYGE_ROOT") or Path.home() / "pyge-cell")


def _pid_alive(pid_file: Path, marker: str) -> int | None:
    """The recorded pid if that process runs and is the daemon (not a reused pid)."""
    try:
        pid = int(pid_file.read_text().split()[0])
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (OSError, ValueError, IndexError):
        return None
    return pid if marker.encode() in cmdline and not _zombie(pid) else None


def machine_name() -> str:
    """The machine's short host name: the name of a one-execd cell's execd."""
    return socket.gethostname().split(".")[0]


def _free_port() -> int:
    """A TCP port nobody listens on now (the kernel's choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((QMASTER_BIND, 0))
        return int(probe.getsockname()[1])


class LocalCell:
    def __init__(self, cell: Cell) -> None:
        self.cell = cell
        self.run_dir = cell.run_dir
        self._procs: dict[str, subprocess.Popen[bytes]] = {}
        self.changes: list[str] = []   # what the options of the last up() changed
        self.notes: list[str] = []     # what else the last up() has to say

    def daemons(self) -> list[tuple[str, str, Path]]:
        """(label, module, pid file) of every daemon recorded for this cell."""
        out = [("qmaster", "qmaster.main", self.run_dir / "qmaster.pid"),
               ("scheduler", "scheduler.main", self.run_dir / "scheduler.pid")]
        for pid_file in sorted(self.run_dir.glob("execd-*.pid")):
            out.append((pid_file.stem, "execd.main", pid_file))
        return out

    def _start(self, label: str, module: str, args: list[str]) -> int:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        log = (self.run_dir / f"{label}.log").open("ab")
        # -P (safe_path): "python -m" would put the caller's working directory first on
        # the daemon's sys.path, and root starting a cell from a directory a user can
        # write would import that user's psutil.py. The daemon runs in "/" as well, so
        # that a relative PYTHONPATH entry names nothing of the caller's either.
        cmd = [sys.executable, "-P", "-m", module, "--root", os.path.abspath(self.cell.root),
               "--cell", self.cell.name,
               "--log-file", os.path.abspath(self.run_dir / f"{label}.log"), *args]
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                cwd="/", start_new_session=True)
        (self.run_dir / f"{label}.pid").write_text(f"{proc.pid}\n")
        self._procs[label] = proc
        return proc.pid

    def up(self, execds: int | None = None, slots: int | None = None,
           port: int | None = None, load_interval: float | None = None) -> list[str]:
        """Start whatever of the cell's shape is not running; the daemons started.

        Options left None take the cell's remembered shape (deploy.shape); given ones
        change it, and ``self.changes`` says how (``self.notes``: what else to know). A
        start that fails leaves the cell as it was: act_qmaster, the spool and the shape
        change only once the new qmaster has bound its ports."""
        stored = self._stored_shape()
        try:
            shape, self.changes = resolve(stored, machine_name(), execds=execds, slots=slots,
                                          port=port, load_interval=load_interval,
                                          default_port=DEFAULT_PORT)
        except ShapeError as err:
            raise SystemExit(f"pyge: {err}") from None
        self.notes = []
        started = []
        # Before any daemon: the qmaster's spool must be 0700 from its first byte on.
        make_cell_dirs(self.cell)
        # $SGE_ROOT/bin/$ARC/qrsh and the others, where Open MPI looks (deploy.launchers)
        try:
            write_launchers(self.cell.root)
        except OSError as err:
            self.notes.append(f"no launchers in {self.cell.root}/bin: {err}")
        keys.ensure_cell_keys(self.cell, list(shape.execds))
        if not _pid_alive(self.run_dir / "qmaster.pid", "qmaster.main"):
            if stored is None and port is None and not port_is_free(QMASTER_BIND, shape.port):
                free = _free_port()
                self.notes.append(f"port {shape.port} is in use by another program; this new "
                                  f"cell uses port {free} (pyge up --port P chooses another)")
                shape = replace(shape, port=free)
            user = _user_name()
            fresh = not self.cell.act_qmaster_path.exists()
            self._start("qmaster", "qmaster.main",
                        ["--port", str(shape.port), "--event-port", str(shape.event_port),
                         "--managers", user, "--min-uid", "0",
                         "--auto-add-hosts", "--slots", str(shape.slots)])
            started.append("qmaster")
            if fresh:
                # No act_qmaster yet: the scheduler and the execds wait for the one this
                # qmaster writes, so they start meanwhile instead of after it (their
                # start-up overlaps the qmaster's). With an act_qmaster of an earlier
                # run they would read its old ports: then they start once it is ready.
                started += self._start_others(shape)
            try:
                self._wait_qmaster()
            except SystemExit:
                self._stop_started(started)  # (the qmaster's failure leaves nothing running)
                raise
            _, bound, event_bound = read_act_qmaster(self.cell)
            shape = replace(shape, port=bound, event_port=event_bound)
        elif port and stored is not None and port != stored.port:
            self.notes.append("the qmaster is running on its old port; the new one applies "
                              "when it starts again (pyge down, then pyge up)")
        write_shape(self.cell.path, shape)
        started += self._start_others(shape)
        for pid_file in sorted(self.run_dir.glob("execd-*.pid")):
            if pid_file.stem[len("execd-"):] not in shape.execds and \
                    _pid_alive(pid_file, "execd.main"):
                self.notes.append(f"{pid_file.stem} still runs but is no longer part of the "
                                  "cell's shape; pyge down stops it")
        self._wait_hosts(list(shape.execds))
        return started

    def _stop_started(self, labels: list[str]) -> None:
        """End the daemons of ``labels`` this object started, and forget their pids."""
        for label in labels:
            pid = self._own_pid(label)
            if pid is not None:
                _terminate(pid)
            proc = self._procs.pop(label, None)
            if proc is not None:
                proc.poll()
            (self.run_dir / f"{label}.pid").unlink(missing_ok=True)

    def _start_others(self, shape: Shape) -> list[str]:
        """Start the scheduler and the execds of ``shape`` that do not run (a daemon
        this object started and that still runs counts as running); their labels."""
        started = []
        if self._own_pid("scheduler") is None and \
                not _pid_alive(self.run_dir / "scheduler.pid", "scheduler.main"):
            self._start("scheduler", "scheduler.main", [])
            started.append("scheduler")
        for host in shape.execds:
            label = f"execd-{host}"
            if self._own_pid(label) is None and \
                    not _pid_alive(self.run_dir / f"{label}.pid", "execd.main"):
                self._start(label, "execd.main", ["--hostname", host, "--load-interval",
                                                  f"{shape.load_interval:g}"])
                started.append(label)
        return started

    def _stored_shape(self) -> Shape | None:
        """The remembered shape; for a cell made before shapes were remembered, the one
        its act_qmaster and pid files show."""
        try:
            stored = read_shape(self.cell.path)
        except ShapeError as err:
            raise SystemExit(f"pyge: {self.cell.path / SHAPE_FILE}: {err}; fix or remove "
                             "it (pyge up then makes it anew from its options)") from None
        if stored is not None:
            return stored
        try:
            _, port, event_port = read_act_qmaster(self.cell)
        except (OSError, IndexError, ValueError):
            return None
        hosts = tuple(sorted(p.stem[len("execd-"):] for p in self.run_dir.glob("execd-*.pid")))
        return Shape(port=port, event_port=event_port,
                     execds=hosts or host_names(1, machine_name()), slots=0,
                     load_interval=DEFAULT_LOAD_INTERVAL)

    def _wait_qmaster(self) -> None:
        from clients.api import Client, ClientError
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            proc = self._procs.get("qmaster")
            if proc is not None and proc.poll() is not None:
                raise SystemExit("pyge: the qmaster exited: " + self._last_error("qmaster")
                                 + f"\npyge: the cell is as it was; see {self.run_dir}/"
                                 "qmaster.log")
            try:
                with Client(self.cell, timeout=1.0) as client:
                    client.request("ping", {})
                    return
            except ClientError:
                time.sleep(0.1)
        raise SystemExit(f"pyge: qmaster did not come up; see {self.run_dir}/qmaster.log")

    def _last_error(self, label: str) -> str:
        try:
            lines = (self.run_dir / f"{label}.log").read_text().strip().splitlines()
        except OSError:
            return "no log"
        return lines[-1] if lines else "empty log"

    def _wait_hosts(self, hosts: list[str]) -> None:
        from clients.api import Client, ClientError
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            try:
                with Client(self.cell, timeout=2.0) as client:
                    alive = {h["name"] for h in client.cluster()["hosts"] if h["alive"]}
                if set(hosts) <= alive:
                    return
            except ClientError:
                pass
            time.sleep(0.1)
        raise SystemExit(f"pyge: execds did not register; see {self.run_dir}/execd-*.log")

    def down(self) -> list[str]:
        stopped = []
        for label, module, pid_file in reversed(self.daemons()):
            pid = self._own_pid(label) or _pid_alive(pid_file, module)
            if pid is not None:
                _terminate(pid)
                stopped.append(label)
            proc = self._procs.pop(label, None)
            if proc is not None:
                proc.poll()  # reap our own child, so no zombie stays behind
            pid_file.unlink(missing_ok=True)
        return stopped

    def _own_pid(self, label: str) -> int | None:
        """A daemon this object started and that still runs: known without /proc, which
        may not show its command line yet right after the start."""
        proc = self._procs.get(label)
        if proc is None or proc.poll() is not None:
            return None
        return proc.pid

    def status(self) -> list[tuple[str, int | None]]:
        return [(label, _pid_alive(pid_file, module))
                for label, module, pid_file in self.daemons()]


def _terminate(pid: int, timeout: float = 10.0) -> None:
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not Path(f"/proc/{pid}").exists() or _zombie(pid):
            return
        time.sleep(0.05)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return True


def _user_name() -> str:
    import pwd
    return pwd.getpwuid(os.getuid()).pw_name


def env_lines(cell: Cell, drmaa_library: str | None = None) -> str:
    """``pyge env``'s lines; ``drmaa_library``: this installation's libdrmaa.so
    (``clients.drmaa.library_path``), for python-drmaa and other DRMAA programs."""
    lines = f"export PYGE_ROOT={cell.root}\nexport PYGE_CELL={cell.name}\n"
    if drmaa_library is not None:
        lines += f"export DRMAA_LIBRARY_PATH={shlex.quote(drmaa_library)}\n"
    return lines


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="pyge", description="manage a local pygridengine cell")
    sub = p.add_subparsers(dest="command", required=True)
    for name in ("up", "down", "status", "env", "keys"):
        sp = sub.add_parser(name)
        sp.add_argument("--root", type=Path, default=default_root())
        sp.add_argument("--cell", default=os.environ.get("PYGE_CELL", DEFAULT_CELL))
        if name == "up":  # None: the cell's remembered shape (a new cell: the defaults)
            sp.add_argument("--execds", type=int, default=None,
                            help="number of execds (default 1)")
            sp.add_argument("--slots", type=int, default=None,
                            help="slots per host in all.q (default: number of CPUs)")
            sp.add_argument("--port", type=int, default=None,
                            help=f"the qmaster's port (default {DEFAULT_PORT}, or a free one "
                                 "when that is taken)")
            sp.add_argument("--load-interval", type=float, default=None,
                            help="seconds between an execd's load reports (default 10)")
            sp.add_argument("--metrics-port", type=int, default=None, metavar="P",
                            help="serve the qmaster's /metrics on 127.0.0.1:P (0: off); "
                                 "kept in qmaster_params METRICS_PORT")
            sp.add_argument("--sample", action="store_true",
                            help="run a sample job and print its output")
        if name == "keys":
            sp.add_argument("--execd", action="append", default=[], metavar="HOST",
                            help="make (if missing) and trust the key of HOST's execd")
    # listed here for --help; main() hands its arguments to clients.simulate.main, which
    # is imported only then (it loads the dispatch pass and the policy)
    sub.add_parser("simulate", add_help=False,
                   help="replay a workload through the pass and the policy on a virtual "
                        "clock (pyge simulate --help)")
    sub.add_parser("web", add_help=False,
                   help="serve a live, read-only web view of the cell on 127.0.0.1 "
                        "(pyge web --help)")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["simulate"]:
        from clients.simulate.main import main as simulate
        return simulate(argv[1:])
    if argv[:1] == ["web"]:  # (its server and threads are loaded only then)
        from clients.web.main import main as web
        return web(argv[1:], default_root())
    args = parser().parse_args(argv)
    cell = Cell(args.root.resolve(), args.cell)
    local = LocalCell(cell)
    if args.command == "env":
        from clients.drmaa import library_path
        drmaa = library_path()
        if drmaa is None:  # (pip shows the build's own warning only with -v)
            print("# DRMAA: libdrmaa.so was not built (no C compiler when pygridengine "
                  "was installed): no DRMAA_LIBRARY_PATH", file=sys.stderr)
        sys.stdout.write(env_lines(cell, drmaa))
        return 0
    if args.command == "status":
        return _status(local, cell)
    if args.command == "keys":
        return _keys(cell, args.execd)
    if args.command == "down":
        stopped = local.down()
        print("stopped: " + (", ".join(stopped) if stopped else "nothing was running"))
        return 0
    started = local.up(args.execds, args.slots, args.port, args.load_interval)
    for change in local.changes:
        print(f"changed {change}")
    for note in local.notes:
        print(f"note: {note}")
    host, port, _ = read_act_qmaster(cell)
    print(f"cell {cell.path}: qmaster {host}:{port}; started: "
          f"{', '.join(started) if started else 'nothing (all running)'}")
    if args.metrics_port is not None:
        problem = set_metrics_port(cell, args.metrics_port)
        if problem:
            print(f"pyge: {problem}", file=sys.stderr)
            return 1
        print(f"metrics: http://127.0.0.1:{args.metrics_port}/metrics" if args.metrics_port
              else "metrics: off")
    print(f"point clients at it with:  eval \"$(pyge env --root {cell.root})\"")
    if args.sample:
        return run_sample(cell)
    return 0


def with_param(params: str, name: str, value: str | None) -> str:
    """A ``qmaster_params`` value (``A=1,B=2`` or ``none``) with ``name`` set to
    ``value`` (None: removed), the other keys kept in their order."""
    from common.conf_params import with_key
    return with_key(params, name, value)


def set_metrics_port(cell: Cell, port: int) -> str | None:
    """Turn the running qmaster's /metrics endpoint on at ``port`` (0: off), through the
    global configuration's ``qmaster_params``; the problem, if any."""
    from clients.api import Client, ClientError
    if not 0 <= port < 65536:
        return f"--metrics-port must be a TCP port number, not {port}"
    try:
        with Client(cell) as client:
            conf = [list(pair) for pair in client.conf_get("conf")["global"]]
            for pair in conf:
                if pair[0] == "qmaster_params":
                    pair[1] = with_param(pair[1], "METRICS_PORT", str(port) if port else None)
                    break
            else:
                conf.append(["qmaster_params", f"METRICS_PORT={port}" if port else "none"])
            client.conf_put("conf", "global", conf, "modify")
    except ClientError as err:
        return f"metrics port not set: {err.message}"
    from qmaster.metrics import DEFAULT_BIND
    if port and not _listening(DEFAULT_BIND, port, METRICS_START_SECONDS):
        return (f"the qmaster did not open 127.0.0.1:{port} for /metrics within "
                f"{METRICS_START_SECONDS:g} s (is the port taken? see its log)")
    return None


METRICS_START_SECONDS = 5.0  # the qmaster follows its configuration every second


def _listening(host: str, port: int, within: float) -> bool:
    """Whether something accepts connections on host:port within ``within`` seconds."""
    deadline = time.monotonic() + within
    while True:
        try:
            socket.create_connection((host, port), timeout=1.0).close()
            return True
        except OSError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.1)


def _keys(cell: Cell, execd_hosts: list[str]) -> int:
    try:
        made = keys.ensure_cell_keys(cell, execd_hosts)
    except (keys.KeyFileError, OSError) as err:
        print(f"pyge: {err}", file=sys.stderr)
        return 1
    for name in ["qmaster", keys.SCHEDULER, *(keys.execd_name(h) for h in execd_hosts)]:
        state = "made" if name in made else "kept"
        print(f"{name:<24} {state}: {keys.secret_path(cell, name)}")
    print(f"qmaster public key: {keys.qmaster_public_path(cell)}")
    return 0


def _status(local: LocalCell, cell: Cell) -> int:
    rows = local.status()
    if not rows:
        print(f"no daemons recorded for cell {cell.path}")
        return 1
    for label, pid in rows:
        print(f"{label:<24} {'running, pid ' + str(pid) if pid else 'not running'}")
    return 0 if all(pid for _, pid in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
