"""The execd: registers its host, reports load, starts shepherds, reports results.

Everything the execd must not forget lives in job directories under its spool
(``<spool>/jobs/<job>.<task>``), so that a restarted execd re-attaches to running jobs
and reports results that ended while it or the qmaster was down. Messages to the qmaster
that need an answer (``register``, ``job_started``, ``job_finished``) are repeated until
acknowledged; the qmaster's handlers are idempotent.

The spool and ``jobs/`` are 0755 (job owners reach their job directory); the shepherds'
notify socket is 0600 in a 0700 directory ``<spool>/notify/``: shepherds send as the
execd's user (they are root again when they notify, after the job ended), and job
owners have nothing to say to it. Directories are made and removed with execd/safefs.py.
"""
from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import socket
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import zmq
import zmq.asyncio

from common import conf_params, keys, start_record, wire
from common.cell import MAX_SOCKET_PATH
from common.conf_values import seconds_or
from execd import cgroups as cgroups_mod
from common.objects_conf.cluster import free_gid, gid_ranges
from execd import jobdir, safefs
from execd.launcher import Launcher, LauncherError, is_shepherd_alive
from common.policy import ptf
from execd.load import sample_load, with_sensor_values
from execd.reprioritize import Reprioritizer
from execd.sensors import Answer, SensorSet, sensor_commands
from execd.shepherd import request_action

RESEND_SECONDS = 2.0
RESCAN_SECONDS = 5.0
REMOVAL_WAIT_SECONDS = 0.05
MAX_USAGE_REPORTS = 1 << 16  # the wire's bound on one load report's list
EARLIER_RUN_WAIT_SECONDS = 0.5  # a new run waits for the kill of a run given up
EARLIER_RUN_LIMIT_SECONDS = 60.0
PING_SECONDS = 2.0  # a restarted qmaster (new epoch) is noticed within this time
SENSOR_WAIT_SECONDS = 1.0  # a report waits this long at most for the load sensors
KILL_REPORT_SECONDS = 10.0  # qconf -kej: how long the killed jobs' ends may take to report
LOAD_PLUGINS = "LOAD_PLUGINS"  # execd_params: the Python load-sensor plugins to run
KEPT_DIR = "kept_jobs"  # execd_params KEEP_ACTIVE: where ended jobs' directories go
SPOOL_MODE = 0o755  # job owners traverse the spool to their job directories
NOTIFY_DIR_MODE, NOTIFY_SOCKET_MODE = 0o700, 0o600
LOST_RESULT = {"exit_status": 0, "signal": 0, "failed": 19,
               "failed_reason": "before writing exit_status"}


@dataclass
class Pending:
    msg_type: str
    body: dict[str, Any]
    sent: float = 0.0


class ExecdService:
    def __init__(self, spool_dir: Path, host: str, qmaster: str, port: int,
                 curve: keys.ClientKeys, *, load_interval: float | None = None,
                 log: Any = None, launcher: Launcher | None = None,
                 cgroups: bool = True, cell: tuple[str, str] | None = None) -> None:
        self.spool_dir, self.host = spool_dir, host
        # (SGE_ROOT, SGE_CELL) of the jobs: the cell this execd serves, so that qsub,
        # qstat and qrsh -inherit work inside a job (None: an execd given only --spool)
        self.cell = cell
        self.use_cgroups = cgroups
        self.cgroups: cgroups_mod.Subtree | None = None
        self.curve = curve
        self.qmaster, self.port = qmaster, port
        self.jobs_dir = spool_dir / "jobs"
        self.notify_path = spool_dir / "notify" / "notify.sock"
        self.load_interval = load_interval
        self.log = log
        self.launcher = launcher or Launcher()
        self.pending: dict[int, Pending] = {}
        self.reported: set[str] = set()
        self.removing: set[str] = set()  # job directories being deleted
        # starts waiting for an earlier run's end: name -> (their dispatch time, since),
        # and the actions the qmaster asked for them meanwhile
        self.waiting: dict[str, tuple[float, float]] = {}
        self.waiting_actions: dict[str, list[str]] = {}
        self.epoch = ""
        self.registered = False
        self._ids = itertools.count(1)
        self._stop = asyncio.Event()
        self._stopping: asyncio.Future[None] | None = None  # qconf -kej: stop once reported
        self._next_load = 0.0
        self._reporting = False
        self._report_task: asyncio.Future[None] | None = None
        self.sensors = SensorSet(host, self._sensor_log)
        self.sensed = Answer()  # the load sensors' last values
        self._sensor_conf: tuple[str, str] | None = None
        # renicing running tasks by their tickets (sched_conf(5) reprioritize_interval)
        self.ptf = Reprioritizer(self._log)
        # the host's sge_conf(5) execd_params and shepherd_cmd as the qmaster last gave them
        self.execd_params = "none"
        self.shepherd_cmd = "none"
        self.gid_range = "65400-65500"
        # the additional group id of each task directory (sge_conf(5) gid_range), built
        # from the directories' specs when first needed (None: not yet)
        self._addgrps: dict[str, int] | None = None

    def stop(self) -> None:
        self._migrate_at_shutdown()
        self._stop.set()

    def _stop_requested(self, kill_jobs: bool) -> None:
        """qconf -ke: stop as on SIGTERM. -kej: kill every job first, then stop once
        their ends are reported (at most KILL_REPORT_SECONDS: the rest are reported when
        the execd starts again, as after any stop)."""
        self._log("info", "stop requested by the qmaster", kill_jobs=kill_jobs)
        if not kill_jobs:
            self.stop()
            return
        for path in self._job_dirs():
            if jobdir.read_result(path) is None:
                job_id, task_id = _ids_of(path)
                self._signal_job({"job_id": job_id, "task_id": task_id, "action": "kill"})
                self._signal_pe_tasks({"job_id": job_id, "task_id": task_id,
                                       "action": "kill"})
        self._stopping = asyncio.ensure_future(self._stop_when_reported())

    async def _stop_when_reported(self) -> None:
        deadline = time.monotonic() + KILL_REPORT_SECONDS
        while self._job_dirs() and time.monotonic() < deadline:
            await asyncio.sleep(0.1)  # (the results come through the notify socket)
        self.stop()

    def _migrate_at_shutdown(self) -> None:
        """Checkpointed jobs whose ``when`` has ``s`` are migrated when the execd shuts
        down (checkpoint(5)): their migr_command and signal, then the kill; their result
        asks for a reschedule, which the qmaster gets when the execd is back. Other jobs
        keep running, found again at the next start."""
        for path in self._job_dirs():
            try:
                if jobdir.read_result(path) is not None:
                    continue
                ckpt = jobdir.read_spec(path).get("ckpt") or {}
                if "s" in str(ckpt.get("when") or ""):
                    request_action(path, "migrate")
            except (OSError, ValueError) as exc:
                self._log("warning", "cannot migrate at shutdown", job=path.name,
                          error=repr(exc))

    # ---- start-up ------------------------------------------------------------------
    def prepare(self) -> None:
        """Call before any thread exists: the launcher forks its zygote here (unless the
        caller started it already, which keeps the zygote small; see execd.main)."""
        if len(str(self.notify_path).encode()) > MAX_SOCKET_PATH:
            raise OSError(f"its notify socket {self.notify_path} would be longer than "
                          f"{MAX_SOCKET_PATH} bytes; use a shorter cell directory")
        safefs.ensure_dir(self.spool_dir, SPOOL_MODE)
        safefs.make_dir(self.jobs_dir, SPOOL_MODE)
        safefs.make_dir(self.notify_path.parent, NOTIFY_DIR_MODE)
        if self.launcher.zygote_pid is None:
            self.launcher.start()
        if self.use_cgroups:
            try:
                self.cgroups = cgroups_mod.prepare_subtree(self.host, self.spool_dir)
                self._log("info", "jobs contained in cgroups", subtree=str(self.cgroups.path),
                          controllers=sorted(self.cgroups.controllers))
                if self.cgroups.slow_joins:
                    self._log("info", "each job waits about 10 ms to join its cgroup: "
                              "mount cgroup2 with favordynmods to start jobs faster")
            except cgroups_mod.CgroupError as exc:
                self._log("info", "jobs followed by their process tree (no cgroups)",
                          reason=str(exc))

    async def run(self) -> None:
        ctx = zmq.asyncio.Context()
        self.sock = ctx.socket(zmq.DEALER)
        # CURVE: the qmaster knows us by our key, and only the holder of the qmaster's
        # secret key can complete the handshake, so start_job and signal_job can come
        # from the qmaster only. No fixed routing id: the qmaster routes to the
        # connection our proven messages arrive on.
        keys.secure_client(self.sock, self.curve)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.sock.setsockopt(zmq.RECONNECT_IVL, 100)
        self.sock.setsockopt(zmq.RECONNECT_IVL_MAX, 2000)
        self.sock.connect(f"tcp://{self.qmaster}:{self.port}")
        notify = self._open_notify_socket()
        self._register()
        try:
            await asyncio.gather(self._receive(), self._timers())
        finally:
            asyncio.get_running_loop().remove_reader(notify.fileno())
            notify.close()
            if self._report_task is not None:  # (it may be stopping a sensor)
                self._report_task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await self._report_task
            await self.sensors.close()
            self.sock.close(0)
            ctx.term()
            self.launcher.stop()
            if self.cgroups is not None:  # kept while jobs of ours still run in it
                cgroups_mod.release_subtree(self.cgroups)

    def _open_notify_socket(self) -> socket.socket:
        try:
            self.notify_path.unlink()
        except FileNotFoundError:
            pass
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        # Bound in a 0700 directory, so nobody can reach it before the chmod either.
        sock.bind(str(self.notify_path))
        os.chmod(self.notify_path, NOTIFY_SOCKET_MODE)
        sock.setblocking(False)
        asyncio.get_running_loop().add_reader(sock.fileno(), self._on_notify, sock)
        return sock

    # ---- requests to the qmaster ---------------------------------------------------
    def _request(self, msg_type: str, body: dict[str, Any]) -> None:
        request_id = next(self._ids)
        self.pending[request_id] = Pending(msg_type, body)
        self._transmit(request_id)

    def _transmit(self, request_id: int) -> None:
        item = self.pending[request_id]
        item.sent = time.monotonic()
        try:
            sent = self.sock.send(wire.encode(item.msg_type, item.body, request_id),
                                  flags=zmq.NOBLOCK)
        except zmq.Again:
            return  # the qmaster is away; resent later
        # an asyncio socket reports "no connection yet" (Again) on the returned future;
        # taking it off the future keeps it from being logged as never retrieved
        if sent is not None:
            sent.add_done_callback(lambda fut: fut.cancelled() or fut.exception())

    def _register(self) -> None:
        self.registered = False
        for rid in [r for r, p in self.pending.items() if p.msg_type in ("register",
                                                                        "load_report")]:
            del self.pending[rid]
        running = [{"job_id": j, "task_id": t,
                    "dispatched": _dispatched(self._job_dir(j, t))}
                   for j, t in self._running_jobs()]
        pe_tasks = [{"job_id": int(j), "task_id": int(t), "seq": int(n),
                     "dispatched": _dispatched(path)}
                    for path in self._pe_dirs() if (path / jobdir.SPEC_FILE).exists()
                    and jobdir.read_result(path) is None
                    for j, t, n in [path.name.split(".")]]
        self._request("register", {"host": self.host, "load": self._load(), "jobs": running,
                                   "global_load": dict(self.sensed.global_values),
                                   "pe_tasks": pe_tasks[:MAX_USAGE_REPORTS]})

    def _running_usage(self) -> list[dict[str, Any]]:
        """The usage so far of each running task (its shepherd's last figures)."""
        out = []
        for path in self._job_dirs():
            usage = jobdir.read_usage(path)
            if usage is None or not (path / jobdir.SPEC_FILE).exists() \
                    or (path / jobdir.RESULT_FILE).exists():
                continue
            job_id, task_id = _ids_of(path)
            out.append({"job_id": job_id, "task_id": task_id,
                        "dispatched": _dispatched(path), **usage})
        return out[:MAX_USAGE_REPORTS]

    def _running_jobs(self) -> list[tuple[int, int]]:
        """Every task this host still has, running or ended but not yet acknowledged:
        the qmaster must not take an ended task whose result is on its way for lost."""
        return [_ids_of(path) for path in self._job_dirs()
                if (path / jobdir.SPEC_FILE).exists()]

    def _job_dirs(self) -> list[Path]:
        try:
            return [p for p in self.jobs_dir.iterdir() if p.is_dir() and _valid_name(p.name)
                    and p.name not in self.removing]
        except FileNotFoundError:
            return []

    # ---- messages from the qmaster -------------------------------------------------
    async def _receive(self) -> None:
        while not self._stop.is_set():
            if not await self.sock.poll(500):
                continue
            frame = await self.sock.recv()
            try:
                msg_type, request_id, body = wire.decode(frame)
            except wire.WireError as err:
                self._log("warning", "refused message", reason=err.message)
                continue
            self._dispatch(msg_type, request_id, body)

    def _dispatch(self, msg_type: str, request_id: int, body: dict[str, Any]) -> None:
        if msg_type in ("reply", "error"):
            self._on_reply(msg_type, request_id, body)
        elif msg_type == "start_job":
            self._start_job(body)
        elif msg_type == "signal_job":
            self._signal_job(body)
            self._signal_pe_tasks(body)
        elif msg_type == "start_pe_task":
            self._start_pe_task(body)
        elif msg_type == "execd_shutdown":  # qconf -ke/-kej (qmaster.daemon_control)
            self._stop_requested(bool(body["kill_jobs"]))
        elif msg_type == "job_tickets":
            if body["reprioritize"]:
                self.ptf.tickets(body["tickets"])
            else:
                self.ptf.configure(False, None, self._job_dirs())

    def _on_reply(self, msg_type: str, request_id: int, body: dict[str, Any]) -> None:
        item = self.pending.pop(request_id, None)
        if item is None:
            return
        if msg_type == "error":
            self._log("warning", "qmaster refused request", request=item.msg_type,
                      reason=body.get("message"))
            if item.msg_type in ("register", "load_report"):
                # a refused load report must not leave the host unheard: register anew
                # (which carries no usage figures) after a pause
                self._retry_register_later()
            return
        if item.msg_type in ("register", "load_report", "ping"):
            self._on_host_reply(item.msg_type, body)
        elif item.msg_type == "job_started" and body.get("known") is False:
            self._end_unknown_run(item.body)
        elif item.msg_type == "pe_task_finished":
            self._forget_dir(self._pe_dir(item.body["job_id"], item.body["task_id"],
                                          item.body["seq"]))
        elif item.msg_type == "job_finished" and item.body.get("dispatched", 0.0) == \
                _dispatched(self._job_dir(item.body["job_id"], item.body["task_id"])):
            # (a late answer about an earlier run must not remove the directory of the
            # run that replaced it)
            self._forget_job(item.body["job_id"], item.body["task_id"])

    def _end_unknown_run(self, started: dict[str, Any]) -> None:
        """The qmaster does not count on the run we started (given up meanwhile): kill
        it, if it is still the run in its directory."""
        self._signal_job({"job_id": started["job_id"], "task_id": started["task_id"],
                          "action": "kill", "dispatched": started.get("dispatched", 0.0)})

    def _retry_register_later(self) -> None:
        asyncio.get_running_loop().call_later(RESEND_SECONDS, self._register)

    def _on_host_reply(self, msg_type: str, body: dict[str, Any]) -> None:
        if body.get("reregister") or (self.epoch and body.get("epoch") != self.epoch):
            self.epoch = str(body.get("epoch", ""))
            self._register()
            return
        self.epoch = str(body.get("epoch", ""))
        if msg_type == "register":
            self.registered = True
            self.reported.clear()
            self._log("info", "registered", epoch=self.epoch)
            self._scan_results()
        if self.load_interval is None:
            report = str(body.get("load_report_time", "00:00:40"))
            self._interval = seconds_or(report, 40.0) or 40.0  # never a busy loop
        if "execd_params" in body:  # (limits, -notify signals, KEEP_ACTIVE of new jobs)
            self.execd_params = str(body["execd_params"])
        if "shepherd_cmd" in body:
            self.shepherd_cmd = str(body["shepherd_cmd"])
        if "gid_range" in body:
            self.gid_range = str(body["gid_range"])
        if "reprioritize" in body:  # sge_conf(5) reprioritize, PTF_MIN/MAX_PRIORITY
            self.ptf.configure(str(body["reprioritize"]).lower() in ("1", "true"),
                               str(body.get("execd_params", "none")), self._job_dirs())
        if "load_sensor" in body:  # (the answers to pings carry no configuration)
            self._configure_sensors(str(body["load_sensor"]),
                                    str(body.get("execd_params", "none")))

    def _configure_sensors(self, load_sensor: str, execd_params: str) -> None:
        """Run the load sensors of the host's configuration (sge_conf(5) load_sensor) and
        the Python load-sensor plugins that ``execd_params LOAD_PLUGINS=a:b`` names."""
        if self._sensor_conf == (load_sensor, execd_params):
            return
        self._sensor_conf = (load_sensor, execd_params)
        programs = {}
        plugins = [p for p in str(conf_params.value("execd_params", execd_params, LOAD_PLUGINS)
                                  or "").split(":") if p]
        if plugins and plugins != ["none"]:
            # -P: nothing from the working directory on sys.path; its own timeout
            # below the execd's wait, so that what it has arrives in time
            programs["plugins"] = [sys.executable, "-P", "-m", "execd.plugin_host",
                                   "--host", self.host,
                                   "--timeout", f"{self._sensor_wait() * 0.8:g}", *plugins]
        self.sensors.configure(sensor_commands(load_sensor), programs)

    def _sensor_wait(self) -> float:
        return min(SENSOR_WAIT_SECONDS, getattr(self, "_interval", 40.0) / 4)

    def _load(self) -> dict[str, str]:
        """This host's load values: measured, then the load sensors' last values."""
        return with_sensor_values(sample_load(), self.sensed.host_values)

    async def _load_report(self) -> None:
        try:
            self.sensed = await self.sensors.collect(self._sensor_wait())
            self._replace_request("load_report", {
                "host": self.host, "load": self._load(), "usage": self._running_usage(),
                "global_load": dict(self.sensed.global_values)})
        except Exception as exc:  # noqa: BLE001 - a report must never end the execd
            self._log("error", "load report failed", error=repr(exc))
        finally:
            self._reporting = False

    def _sensor_log(self, level: str, event: str, **kw: Any) -> None:
        self._log(level, event, **kw)

    # ---- jobs ----------------------------------------------------------------------
    def _job_dir(self, job_id: int, task_id: int) -> Path:
        return self.jobs_dir / f"{job_id}.{task_id}"

    def _start_job(self, body: dict[str, Any]) -> None:
        job_id, task_id = int(body["job_id"]), int(body["task_id"])
        path = self._job_dir(job_id, task_id)
        if path.name in self.removing:
            # a rescheduled task sent back to this host while its earlier run's directory
            # is still being removed: start it once that is done
            asyncio.get_running_loop().call_later(REMOVAL_WAIT_SECONDS, self._start_job, body)
            return
        spec = dict(body["spec"])
        if (path / jobdir.SPEC_FILE).exists():
            if _dispatched(path) == float(spec.get("dispatched") or 0.0):
                self._restarted_start(path, job_id, task_id)
                return
            if jobdir.read_result(path) is None:
                # an earlier run the qmaster gave up while this host was lost, still
                # going: it is killed (its own order may not have come yet) and the new
                # run starts once its end is reported and its directory removed
                self._wait_for_earlier_run(path, body)
                return
            # an earlier run of a rescheduled task that has ended: the qmaster has its
            # result (it would not dispatch the task again otherwise)
            self._remove_tree(path)
            self.reported.discard(path.name)
        spec, script = start_record.file_spec(
            self._with_exec_host_group(body["spec"]), switch_user=os.geteuid() == 0,
            cgroup=({"subtree": str(self.cgroups.path),
                     "controllers": sorted(self.cgroups.controllers)}
                    if self.cgroups is not None else None),
            notify_socket=str(self.notify_path), start_time=time.time(),
            **conf_params.job_settings(self.execd_params), addgrp=self._take_addgrp(path),
            **({"sge_root": self.cell[0], "cell": self.cell[1]} if self.cell else {}))
        waited_actions = self.waiting_actions.pop(path.name, [])
        self.waiting.pop(path.name, None)
        try:
            jobdir.write_spec(path, spec, script)
            self.launcher.launch(path, self._shepherd_wrapper())
        except Exception as exc:  # report, never crash the daemon
            self._log("error", "job start failed", job_id=job_id, task_id=task_id,
                      error=repr(exc))
            self._remove_tree(path)
            if self._addgrps is not None:
                self._addgrps.pop(path.name, None)
            self._request("job_start_failed", {"host": self.host, "job_id": job_id,
                                               "task_id": task_id, "reason": str(exc)})
            return
        self._request("job_started", {"host": self.host, "job_id": job_id,
                                      "task_id": task_id, "start_time": spec["start_time"],
                                      "dispatched": _dispatched(path)})
        for action in waited_actions:  # asked for while it waited (qmod -sj, qdel)
            self._signal_job({"job_id": job_id, "task_id": task_id, "action": action})

    def _restarted_start(self, path: Path, job_id: int, task_id: int) -> None:
        """A repeated start order: confirm, or report the result we already have."""
        if jobdir.read_result(path) is not None:
            self._report_result(path)
        else:
            self._request("job_started", {"host": self.host, "job_id": job_id,
                                          "task_id": task_id, "start_time": _start_time(path),
                                          "dispatched": _dispatched(path)})

    def _signal_job(self, body: dict[str, Any]) -> None:
        path = self._job_dir(int(body["job_id"]), int(body["task_id"]))
        if path.name in self.removing or not (path / jobdir.SPEC_FILE).exists() \
                or jobdir.read_result(path) is not None:
            return  # a task that has already ended
        if body.get("dispatched") and body["dispatched"] != _dispatched(path):
            waiting = self.waiting.get(path.name)
            if waiting is not None and waiting[0] == body["dispatched"]:
                # for the run that waits for this one's end: applied once it starts
                self.waiting_actions.setdefault(path.name, []).append(body["action"])
            return  # about another run than the one here
        try:
            request_action(path, body["action"])
        except OSError as exc:
            self._log("warning", "signal failed", job_id=body["job_id"],
                      action=body["action"], error=repr(exc))

    def _wait_for_earlier_run(self, path: Path, body: dict[str, Any]) -> None:
        """Kill the earlier run and try the start again shortly; a run that will not end
        within EARLIER_RUN_LIMIT_SECONDS fails the start (the qmaster's error state
        says why) rather than keeping the task on its way for ever."""
        first = self.waiting.setdefault(path.name, (float(body["spec"].get("dispatched")
                                                          or 0.0), time.monotonic()))[1]
        if time.monotonic() - first > EARLIER_RUN_LIMIT_SECONDS:
            self.waiting.pop(path.name, None)
            self.waiting_actions.pop(path.name, None)
            job_id, task_id = _ids_of(path)
            self._log("error", "an earlier run would not end", job_id=job_id,
                      task_id=task_id)
            self._request("job_start_failed", {
                "host": self.host, "job_id": job_id, "task_id": task_id,
                "reason": f"an earlier run of job {job_id}.{task_id} on host {self.host} "
                          "would not end"})
            return
        try:
            request_action(path, "kill")
        except OSError as exc:
            self._log("warning", "signal failed", job=path.name, action="kill",
                      error=repr(exc))
        asyncio.get_running_loop().call_later(EARLIER_RUN_WAIT_SECONDS, self._start_job, body)

    def _on_notify(self, sock: socket.socket) -> None:
        while True:
            try:
                name = sock.recv(4096).decode(errors="replace")
            except BlockingIOError:
                return
            if _valid_name(name):
                self._report_result(self.jobs_dir / name)
            elif _valid_pe_name(name):
                self._report_pe_result(self.jobs_dir / name)

    def _report_result(self, path: Path) -> None:
        result = jobdir.read_result(path)
        if result is None or path.name in self.reported or not self.registered:
            return
        self.reported.add(path.name)
        job_id, task_id = _ids_of(path)
        # the job's end on this host is known: its parallel tasks here go with it
        self._signal_pe_tasks({"job_id": job_id, "task_id": task_id, "action": "kill",
                               "dispatched": _dispatched(path)})
        if result.get("failed") and not result.get("pid"):
            # it never ran: say why here too (the directory goes once this is acknowledged)
            self._log("warning", "job failed before it started", job_id=job_id,
                      task_id=task_id, failed=result.get("failed"),
                      reason=str(result.get("error_message") or "")[:500],
                      trace=_last_line(path / jobdir.ERROR_FILE))
        self._request("job_finished", {"host": self.host, "job_id": job_id,
                                       "task_id": task_id, "result": result,
                                       "dispatched": _dispatched(path)})

    def _scan_results(self) -> None:
        """Fallback for lost notifications and for shepherds that died without a result."""
        for path in self._job_dirs() + self._pe_dirs():
            if not (path / jobdir.SPEC_FILE).exists():
                continue
            if jobdir.read_result(path) is None and not is_shepherd_alive(path) \
                    and _older_than(path, 10.0):
                jobdir.write_result(path, {**LOST_RESULT, "end_time": time.time()})
            if _valid_name(path.name):
                self._report_result(path)
            else:
                self._report_pe_result(path)

    # ---- parallel tasks (qrsh -inherit) ----------------------------------------------
    # Each runs under a shepherd of its own in ``jobs/<job>.<task>.<seq>`` beside its
    # job's directory (which a slave host does not have), ``seq`` the task's number in
    # the job (common.pe_tasks); the qmaster keeps the book of them.
    def _pe_dir(self, job_id: int, task_id: int, seq: int) -> Path:
        return self.jobs_dir / f"{job_id}.{task_id}.{seq}"

    def _pe_dirs(self, job_id: int | None = None, task_id: int | None = None) -> list[Path]:
        prefix = f"{job_id}.{task_id}." if job_id is not None else ""
        try:
            return [p for p in self.jobs_dir.iterdir() if _valid_pe_name(p.name)
                    and p.name.startswith(prefix) and p.name not in self.removing
                    and p.is_dir()]
        except FileNotFoundError:
            return []

    def _start_pe_task(self, body: dict[str, Any]) -> None:
        job_id, task_id, seq = int(body["job_id"]), int(body["task_id"]), int(body["seq"])
        path = self._pe_dir(job_id, task_id, seq)
        spec = body["spec"]
        if path.name in self.removing or (path / jobdir.SPEC_FILE).exists() \
                or not spec.get("pe_task_id"):
            return  # (a repeated order: the qmaster sends each once)
        spec, script = start_record.file_spec(
            self._with_exec_host_group(spec), switch_user=os.geteuid() == 0,
            cgroup=({"subtree": str(self.cgroups.path),
                     "controllers": sorted(self.cgroups.controllers)}
                    if self.cgroups is not None else None),
            notify_socket=str(self.notify_path), start_time=time.time(),
            **conf_params.job_settings(self.execd_params), addgrp=self._take_addgrp(path),
            **({"sge_root": self.cell[0], "cell": self.cell[1]} if self.cell else {}))
        try:
            jobdir.write_spec(path, spec, script)
            self.launcher.launch(path, self._shepherd_wrapper())
        except Exception as exc:  # report, never crash the daemon
            self._log("error", "pe task start failed", job_id=job_id, task_id=task_id,
                      pe_task_id=spec["pe_task_id"], error=repr(exc))
            now = time.time()
            jobdir.write_result(path, {"exit_status": 1, "failed": jobdir.FAILED_EARLY,
                                       "failed_reason": jobdir.FAILED_REASONS[
                                           jobdir.FAILED_EARLY],
                                       "error_message": str(exc)[:4096],
                                       "start_time": now, "end_time": now})
            self._report_pe_result(path)

    def _signal_pe_tasks(self, body: dict[str, Any]) -> None:
        """``signal_job``'s action for the job's parallel tasks on this host (of the run
        it names)."""
        for path in self._pe_dirs(int(body["job_id"]), int(body["task_id"])):
            if not (path / jobdir.SPEC_FILE).exists() or jobdir.read_result(path) is not None:
                continue
            if body.get("dispatched") and body["dispatched"] != _dispatched(path):
                continue
            try:
                request_action(path, body["action"])
            except OSError as exc:
                self._log("warning", "signal failed", job=path.name,
                          action=body["action"], error=repr(exc))

    def _report_pe_result(self, path: Path) -> None:
        result = jobdir.read_result(path)
        if result is None or path.name in self.reported or not self.registered:
            return
        try:
            spec = jobdir.read_spec(path)
        except (OSError, ValueError):
            self._remove_tree(path)  # not a task the qmaster could know
            return
        self.reported.add(path.name)
        job_id, task_id, seq = (int(x) for x in path.name.split("."))
        self._request("pe_task_finished", {
            "host": self.host, "job_id": job_id, "task_id": task_id, "seq": seq,
            "pe_task_id": str(spec["pe_task_id"]),
            "result": result, "dispatched": _dispatched(path)})

    def _forget_job(self, job_id: int, task_id: int) -> None:
        self._forget_dir(self._job_dir(job_id, task_id))

    def _forget_dir(self, path: Path) -> None:
        self.reported.discard(path.name)
        if self._addgrps is not None:
            self._addgrps.pop(path.name, None)
        if conf_params.keep_active(self.execd_params) and self._keep_dir(path):
            return
        # Off the event loop: unlinking is slow on file systems mounted with discard.
        # Until it is gone, scans and signals leave the directory alone.
        self.removing.add(path.name)
        done = asyncio.get_running_loop().run_in_executor(None, self._remove_tree, path)
        done.add_done_callback(lambda _: self.removing.discard(path.name))

    # ---- timers --------------------------------------------------------------------
    async def _timers(self) -> None:
        self._interval = self.load_interval or 40.0
        next_scan = time.monotonic() + RESCAN_SECONDS
        next_ping = time.monotonic() + PING_SECONDS
        next_ptf = time.monotonic() + ptf.SCHEDULE_SECONDS
        while not self._stop.is_set():
            await asyncio.sleep(0.25)
            now = time.monotonic()
            for rid, item in list(self.pending.items()):
                if now - item.sent >= RESEND_SECONDS:
                    self._transmit(rid)
            if self.registered and now >= self._next_load and not self._reporting:
                self._next_load = now + self._interval
                self._reporting = True  # (the loop keeps only weak references to tasks)
                self._report_task = asyncio.ensure_future(self._load_report())
            if self.registered and now >= next_ping:
                next_ping = now + PING_SECONDS
                self._replace_request("ping", {})
            if now >= next_ptf:
                next_ptf = now + ptf.SCHEDULE_SECONDS
                try:
                    self.ptf.step(self._job_dirs())
                except Exception as exc:  # noqa: BLE001 - the timers must go on
                    self._log("error", "reprioritizing failed", error=repr(exc))
            if now >= next_scan:
                next_scan = now + RESCAN_SECONDS
                if self.registered:
                    self._scan_results()

    def _replace_request(self, msg_type: str, body: dict[str, Any]) -> None:
        """Send ``msg_type`` anew, dropping an unanswered earlier one of the same type."""
        for rid in [r for r, p in self.pending.items() if p.msg_type == msg_type]:
            del self.pending[rid]
        self._request(msg_type, body)

    def _log(self, level: str, event: str, **kw: Any) -> None:
        if self.log:
            getattr(self.log, level)(event, host=self.host, **kw)

    def _with_exec_host_group(self, spec: dict[str, Any]) -> dict[str, Any]:
        """``spec`` with the primary group the job runs with here (sge_conf(5)
        execd_params USE_QSUB_GID: the submit group, else the owner's in this host's
        passwd database)."""
        import grp
        import pwd
        try:
            passwd_gid: int | None = pwd.getpwnam(str(spec["owner"])).pw_gid
        except KeyError:
            passwd_gid = None

        def group_name(gid: int) -> str | None:
            try:
                return grp.getgrgid(gid).gr_name
            except KeyError:
                return None
        gid, group = conf_params.primary_group(
            self.execd_params, (int(spec["gid"]), str(spec["group"])), passwd_gid, group_name)
        return {**spec, "gid": gid, "group": group}

    def _take_addgrp(self, path: Path) -> int | None:
        """The additional group id of the task that starts in ``path``: the first of
        gid_range no other task of this host holds (sge_conf(5); only a root execd can
        give a job a group). None when the range has none left (logged: the job runs
        without one, its processes found by process tree and cgroup as always)."""
        if os.geteuid() != 0:
            return None
        if self._addgrps is None:
            self._addgrps = {}
            for other in self._job_dirs() + self._pe_dirs():
                try:
                    held = jobdir.read_spec(other).get("addgrp")
                except Exception:  # noqa: BLE001 - an unreadable spec holds none
                    continue
                if isinstance(held, int):
                    self._addgrps[other.name] = held
        self._addgrps.pop(path.name, None)  # (an earlier run's)
        gid = free_gid(gid_ranges(self.gid_range), set(self._addgrps.values()))
        if gid is None:
            self._log("warning", "no free additional group id in gid_range",
                      gid_range=self.gid_range, task=path.name)
            return None
        self._addgrps[path.name] = gid
        return gid

    def _shepherd_wrapper(self) -> str:
        """sge_conf(5) shepherd_cmd ("": none): the administrator's program, run only if
        nobody but root or the execd's user can have put it or what it lies in there
        (execd.safefs); else the start fails in 8.1.9's words."""
        command = self.shepherd_cmd.strip()
        if not command or command.lower() == "none":
            return ""
        problem = safefs.admin_executable_problem(command, os.geteuid())
        if problem is not None:
            raise LauncherError(f"unable to find shepherd wrapper command {command}: "
                                f"{problem}")
        return command

    def _keep_dir(self, path: Path) -> bool:
        """execd_params KEEP_ACTIVE (sge_conf(5), for debugging): the ended job's
        directory is moved aside to ``kept_jobs/<job>.<task>-<time>`` instead of being
        removed (out of the job directory, so that nothing reports it again)."""
        kept = self.spool_dir / KEPT_DIR
        try:
            kept.mkdir(mode=0o755, exist_ok=True)
            if kept.is_symlink() or not kept.is_dir():
                raise OSError(f"{kept} is no directory")
            os.rename(path, kept / f"{path.name}-{time.time():.0f}")  # (the link itself)
        except OSError as exc:
            self._log("warning", "job directory not kept", path=str(path), reason=str(exc))
            return False
        self._log("info", "job directory kept (KEEP_ACTIVE)", path=str(path))
        return True

    def _remove_tree(self, path: Path) -> None:
        """Remove a job directory: only a real directory of ours, links not followed."""
        try:
            safefs.remove_tree(path, os.geteuid())
        except (safefs.UnsafePath, OSError) as exc:
            self._log("warning", "job directory left in place", path=str(path),
                      reason=str(exc))


def _valid_name(name: str) -> bool:
    parts = name.split(".")
    return len(parts) == 2 and all(p.isdigit() for p in parts)


def _valid_pe_name(name: str) -> bool:
    parts = name.split(".")
    return len(parts) == 3 and all(p.isdigit() for p in parts)


def _ids_of(path: Path) -> tuple[int, int]:
    job, task = path.name.split(".")
    return int(job), int(task)


def _start_time(path: Path) -> float:
    try:
        return float(jobdir.read_spec(path)["start_time"])
    except (OSError, ValueError, KeyError, TypeError):
        return time.time()


def _dispatched(path: Path) -> float:
    """The dispatch time of the run a job directory holds (0.0: unknown)."""
    try:
        return float(jobdir.read_spec(path).get("dispatched") or 0.0)
    except (OSError, ValueError, TypeError, AttributeError):
        return 0.0


def _last_line(path: Path) -> str:
    """The last line of a shepherd's traceback file ("" without one): a regular file of
    the shepherd's in the execd's job directory, opened without following a link or
    waiting on anything."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return ""
    with open(fd, "rb") as f:
        try:
            f.seek(max(0, os.fstat(fd).st_size - 4096))
            lines = f.read(4096).decode(errors="replace").strip().splitlines()
        except OSError:
            return ""
    return lines[-1][:500] if lines else ""


def _older_than(path: Path, seconds: float) -> bool:
    try:
        return time.time() - path.stat().st_mtime > seconds
    except OSError:
        return False
