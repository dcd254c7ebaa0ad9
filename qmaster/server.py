"""The qmaster daemon loop: receive a batch of requests, apply, commit, then answer.

Requests that arrive together are handled one after another against the store, their
changes collected in one ``Batch``; the batch is committed to the spool in one transaction
(group commit), and only then are the replies sent, the events published with consecutive
sequence numbers, the execd messages sent and the accounting records appended.
"""
from __future__ import annotations

import asyncio
import fcntl
import gc
import os
import shutil
import sqlite3
import tempfile
import time
import uuid
from collections import deque
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

import zmq
import zmq.asyncio

from common import jsv, keys, reporting, wire
from common.jobspec import JobSpecError, check_submitted_job
from common.userinfo import UserInfo
from common.model import Job, Task
from common.cell import MAX_SOCKET_PATH, Cell, write_act_qmaster
from common.daemon import port_is_free
from qmaster import (accounting_log, alter, array_deps, daemon_control, event_feed,
                     execd_link, gate, metrics,
                     jobs, orders, pe_tasks, policy_view, queue_control, sched_monitor,
                     usage_book)
from qmaster.conf import requests as conf_requests
from qmaster.conf import userset as conf_userset
from qmaster.auto_suspend import heartbeat
from qmaster.ar import handlers as ar_handlers
from qmaster.jsv import MAX_WAITING as JSV_MAX_WAITING, ServerJsv, timeout_of as jsv_timeout_of
from qmaster.metrics import MetricsServer
from qmaster.placement_view import instances_of
from qmaster.reporting import ReportingWriter, share_tree_rows_now
from qmaster.ar.lifecycle import ArClock, advance as advance_ars, settle as settle_ars
from qmaster.policy_objects import auto_user_actions, expired_auto_users
from qmaster.log_limit import LimitedLog
from qmaster.mail import MailSender
from qmaster.lost_hosts import (lost_host_policy, lost_hosts, lost_task_actions, queue_rerun,
                                unheard_hosts)
from qmaster.context import DEFERRED, Ctx, RequestError, Services
from qmaster.host_rights import require_submit_host
from qmaster.defaults import (bootstrap, ensure_complexes, ensure_global_host,
                              ensure_execd_spool_dir, ensure_host_lists, ensure_usersets)
from qmaster.spool import SqliteSpool
from qmaster.store import Batch, Store

Handler = Callable[[Ctx], dict[str, Any]]


@dataclass(frozen=True)
class Incoming:
    """One received message: the peer's routing id, the ZAP User-Id libzmq attached to
    its connection (qmaster.gate.Peer), a remote client's MUNGE credential, the request."""

    identity: bytes
    user_id: str | None
    credential: bytes | None
    payload: bytes

    @classmethod
    def from_frames(cls, frames: list[zmq.Frame]) -> "Incoming | None":
        """None for a frame count no peer of ours sends ([id, payload] or, from a remote
        client, [id, credential, payload])."""
        if len(frames) not in (2, 3):
            return None
        return cls(frames[0].bytes, frames[-1].get("User-Id"),
                   frames[1].bytes if len(frames) == 3 else None, frames[-1].bytes)


class Turns:
    """Received messages taken in turn by sender (routing id): each sender's in the order
    it sent them, one sender's after another's. A flood of one connection's requests
    (2000 waits) is then interleaved with everybody else's, slice by slice, instead of
    answered before them (issue 26)."""

    def __init__(self, received: list[Incoming]) -> None:
        self.queues: dict[bytes, deque[Incoming]] = {}
        self.add(received)

    def add(self, received: list[Incoming]) -> None:
        for incoming in received:
            self.queues.setdefault(incoming.identity, deque()).append(incoming)

    def __bool__(self) -> bool:
        return bool(self.queues)

    def __len__(self) -> int:
        return sum(len(queue) for queue in self.queues.values())

    def next(self) -> Incoming:
        """The next sender's next message (the sender goes to the back of the turns)."""
        identity = next(iter(self.queues))
        queue = self.queues.pop(identity)
        incoming = queue.popleft()
        if queue:
            self.queues[identity] = queue
        return incoming


HANDLERS: dict[str, Handler] = {
    "ping": lambda ctx: {"epoch": ctx.services.epoch, "start_time": ctx.services.start_time},
    "submit": jobs.handle_submit,
    "delete": jobs.handle_delete,
    "hold": jobs.handle_hold,
    "release": jobs.handle_release,
    "alter": alter.handle_alter,
    "qmod": queue_control.handle_qmod,
    "wait": jobs.handle_wait,
    "events": event_feed.handle_events,
    "job_query": jobs.handle_job_query,
    "cluster_query": conf_requests.handle_cluster_query,
    "conf_get": conf_requests.handle_conf_get,
    "conf_put": conf_requests.handle_conf_put,
    "conf_del": conf_requests.handle_conf_del,
    "userset_entries": conf_userset.handle_userset_entries,
    "clear_usage": usage_book.handle_clear_usage,
    "trigger_monitor": sched_monitor.handle_trigger_monitor,
    "daemon_control": daemon_control.handle_daemon_control,
    "usage_query": usage_book.handle_usage_query,
    "share_tree_query": policy_view.handle_share_tree_query,
    "execd_conf": execd_link.handle_execd_conf,
    "register": execd_link.handle_register,
    "load_report": execd_link.handle_load_report,
    "job_started": execd_link.handle_job_started,
    "job_finished": execd_link.handle_job_finished,
    "job_start_failed": execd_link.handle_job_start_failed,
    "pe_task_start": pe_tasks.handle_pe_task_start,
    "pe_task_finished": pe_tasks.handle_pe_task_finished,
    "ar_submit": ar_handlers.handle_ar_submit,
    "ar_query": ar_handlers.handle_ar_query,
    "ar_delete": ar_handlers.handle_ar_delete,
    "snapshot": orders.handle_snapshot,
    "orders": orders.handle_orders,
}

MAX_BATCH = 500
# how long one turn of the loop takes in new arrivals between its slices; after it, what
# is still queued is worked through and the loop's other tasks (the heartbeat) run
TURN_SECONDS = 0.5
# A batch is committed and answered once its requests have taken this long, and the rest
# of what was received goes on in the next: one user's flood of requests (2000 waits at
# once) holds up another's answer by about this much, not by the whole flood (issue 26).
BATCH_SECONDS = 0.02
HEARTBEAT_SECONDS = 1.0
# an appended accounting record is fsynced at the first batch or heartbeat this long after
# it was appended (its spooled copy keeps it durable meanwhile)
ACCOUNTING_SYNC_SECONDS = 0.5
STOP_MAIL_SECONDS = 5.0  # how long a stopping qmaster waits for its mailers
STOP_ANSWER_SECONDS = 0.2  # qconf -km: its answer leaves before the sockets close
LOCK_FILE = "qmaster.lock"  # in the spool directory, held by the running qmaster


class QmasterServer:
    def __init__(self, cell: Cell, *, host: str, bind: str = "127.0.0.1", port: int = 0,
                 event_port: int = 0, managers: list[str] | None = None,
                 auto_add_hosts: bool = False, default_slots: int = 0,
                 min_uid: int | None = None, munge_socket: str | None = None,
                 key_file: Path | None = None, trusted_keys: Path | None = None,
                 log: Any = None) -> None:
        self.cell, self.host, self.bind = cell, host, bind
        self.port, self.event_port = port, event_port
        # every line goes through the rate limit: most can be caused by a user
        # (refused frames, failing requests, submissions), and the rest are rare
        log = self.log = LimitedLog(log) if log is not None else None
        self.spool = SqliteSpool(cell.qmaster_spool_dir)
        self.store = Store()
        self.services = Services(epoch=uuid.uuid4().hex, qmaster_host=host,
                                 auto_add_hosts=auto_add_hosts,
                                 default_slots=default_slots, log=log,
                                 runlog_path=cell.common_dir / sched_monitor.RUNLOG_NAME)
        # qconf -km and -ks/-kt/-kec (qmaster.daemon_control) act through these
        self.services.stop_server = self._stop_after_answer
        self.services.publish = lambda frames: self.pub.send_multipart(frames)
        self.gate = gate.Gate(host, munge_socket)
        self.key_file = key_file or keys.secret_path(cell, "qmaster")
        self.trusted_keys = trusted_keys or keys.trusted_dir(cell)
        self._zap: gate.ZapHandler | None = None
        self._managers = managers or []
        self._min_uid = min_uid
        self._acct_written: list[str] = []  # their spooled copies go with the next batch
        self._acct_unsynced = accounting_log.Unsynced(cell.accounting_path,
                                                      ACCOUNTING_SYNC_SECONDS)
        self._stop = asyncio.Event()
        self.started = time.time()  # hosts get max_unheard from here to report
        self.suspend_steps: dict[str, float] = {}  # instance -> its last threshold step
        self._lock_fd: int | None = None  # the spool's lock, held while running
        self.mail = MailSender(log)  # runs the mailer for committed mails (qmaster.mail)
        # jsv_url's verifier: one child, submissions wait for it in tasks of their own
        self.jsv = ServerJsv(os.fspath(cell.root), cell.name, self._jsv_log)
        self._jsv_tasks: set[asyncio.Task[None]] = set()
        # reporting_params: the reporting file (qmaster.reporting)
        self.reporting = ReportingWriter(cell.common_dir / reporting.FILE_NAME, host, self._warn)
        # qmaster_params METRICS_PORT/METRICS_BIND: the /metrics endpoint (qmaster.metrics)
        self.metrics_server = MetricsServer(self._metrics_text, self._warn)
        self._metrics_wanted: tuple[str, int] | None = None

    # ---- start-up ------------------------------------------------------------------
    def load(self) -> None:
        """Read the spool into the store (with defaults and fixes for older spools)."""
        started = time.monotonic()
        self._load()
        self.reporting.seed(self.store.jobs, self.store.ars, self.store.active_tasks())
        self._info("spool loaded", jobs=len(self.store.jobs),
                   seconds=round(time.monotonic() - started, 3))

    def _load(self) -> None:
        objects, meta = self.spool.load()
        self.store.load(objects, meta)
        for kind, key, why in self.services.usage.load(objects):  # (share tree usage)
            self.store.set_aside[(kind, key)] = why
        batch = Batch()
        self._move_aside(objects, batch)
        if not self.store.conf["queue"] and not self.store.lists["manager"]:
            bootstrap(self.store, batch, self._managers, self._min_uid)
        ensure_complexes(self.store, batch)  # spools written before the list was stored
        ensure_usersets(self.store, batch)  # and before access lists were
        ensure_global_host(self.store, batch)  # and before the global host was
        ensure_host_lists(self.store, batch, self.host)  # and before host lists were
        execd_spool = self.cell.path / "spool" / "execd"  # (Cell.execd_spool_dir's parent)
        ensure_execd_spool_dir(self.store, batch, str(execd_spool), execd_spool.is_dir())
        settle_ars(self.store, batch)  # ARs whose last job ended while it ended
        self.spool.commit(batch.txn)
        self.store.forget_journal()
        self._recover_accounting()
        self._ar_wake = asyncio.Event()
        self.services.ar_clock = ArClock(self._ar_wake.set)
        self.services.ar_clock.rebuild(self.store.ars.values())

    def _move_aside(self, objects: dict[str, dict[str, Any]], batch: Batch) -> None:
        """Spooled objects that did not load move to kind ``aside:<kind>`` (kept for a
        person to look at, out of the way of every later start) and are reported."""
        for (kind, key), why in sorted(self.store.set_aside.items()):
            batch.txn.put(f"aside:{kind}", key, {"why": why, "object": objects[kind][key]})
            batch.txn.delete(kind, key)
            self._error("spooled object set aside", kind=kind, key=key, error=why)

    def _recover_accounting(self) -> None:
        pending = self.store.pending_accounting
        self.store.pending_accounting = {}
        try:
            accounting_log.recover(self.cell.accounting_path, list(pending.values()),
                                   self._bad_record)
        except OSError as exc:  # they stay spooled, for the next start
            self._error("accounting records not recovered", error=repr(exc),
                        path=str(self.cell.accounting_path))
            return
        self._acct_written = list(pending)

    def _bind(self, ctx: zmq.asyncio.Context) -> None:
        """The request socket: the Unix socket for local clients (ids from the kernel),
        then the CURVE port; the event port: CURVE, the scheduler only (qmaster.gate).
        libzmq takes a socket's security options when an endpoint is bound, so the Unix
        endpoint is bound before the CURVE options are set."""
        pair = keys.ensure_pair(self.cell, "qmaster")[0] if self.key_file == \
            keys.secret_path(self.cell, "qmaster") else keys.read_secret(self.key_file)
        self._zap = gate.ZapHandler(zmq.Context.shadow(ctx.underlying), self.trusted_keys,
                                    self._warn)
        self._zap.start()
        self.router = ctx.socket(zmq.ROUTER)
        # Routing ids are the peers' to choose: none may take over another's (handover
        # off), and execds are reached by the routes their proven messages came by.
        self.router.setsockopt(zmq.ROUTER_HANDOVER, 0)
        self.router.setsockopt(zmq.ROUTER_MANDATORY, 1)
        self.router.setsockopt(zmq.MAXMSGSIZE, wire.MAX_MESSAGE_BYTES)
        self.router.setsockopt(zmq.LINGER, 0)
        self.router.setsockopt(zmq.ZAP_DOMAIN, gate.REQUESTS_DOMAIN)
        self.socket_path = _bind_local(self.router, self.cell.qmaster_socket_path)
        self.pub = ctx.socket(zmq.PUB)
        self.pub.setsockopt(zmq.LINGER, 0)
        self.pub.setsockopt(zmq.SNDHWM, 100000)
        self.pub.setsockopt(zmq.ZAP_DOMAIN, gate.EVENTS_DOMAIN)
        for sock in (self.router, self.pub):
            sock.setsockopt(zmq.CURVE_SERVER, 1)
            sock.setsockopt(zmq.CURVE_PUBLICKEY, pair.public)
            sock.setsockopt(zmq.CURVE_SECRETKEY, pair.secret)
        self.port = _bind(self.router, self.bind, self.port)
        self.event_port = _bind(self.pub, self.bind, self.event_port)

    async def run(self, ready: Callable[[], None] | None = None) -> None:
        """Serve until stopped. A start that cannot have the cell (another qmaster holds
        its spool) or its ports ends before it changes anything: the spool is loaded and
        act_qmaster rewritten only once every port is bound."""
        self._lock_spool()
        seed_routing_ids()
        zctx = zmq.asyncio.Context()
        for port in (self.port, self.event_port):
            if port and not port_is_free(self.bind, port):
                zctx.term()
                raise SystemExit(f"pyge-qmaster: port {port} on {self.bind} is in use by "
                                 "another program; choose another with --port "
                                 "(pyge up --port)")
        try:
            self._bind(zctx)
        except zmq.ZMQError as err:
            zctx.destroy(linger=0)
            raise SystemExit(f"pyge-qmaster: cannot listen on {self.bind}: {err}; choose "
                             "another port with --port (pyge up --port)") from None
        # Loading makes every spooled job's objects at once, all of which live on: the
        # cyclic collector would walk that growing heap again and again (about 40 % of a
        # restart with 100,000 jobs), and once more at its first run after the load. It
        # is off while loading, and what the load made is then frozen out of its view:
        # the store holds no reference cycles, and a job that ends is freed by its count.
        gc.disable()
        try:
            self.load()
        finally:
            gc.freeze()
            gc.enable()
        address = self.host if self.bind in ("*", "0.0.0.0") else self.bind
        write_act_qmaster(self.cell, address, self.port, self.event_port)
        self._info("qmaster started", port=self.port, event_port=self.event_port)
        if ready:
            ready()
        await self._follow_metrics_conf()
        beat = asyncio.create_task(self._heartbeat())
        ar_timer = asyncio.create_task(self._ar_timer())
        try:
            await self._serve()
        finally:
            beat.cancel()
            ar_timer.cancel()
            await self.metrics_server.stop()
            self.router.close(0)
            self.pub.close(0)
            if self._zap is not None:
                self._zap.stop()
            zctx.term()
            for task in list(self._jsv_tasks):  # (submissions still at the JSV: unanswered)
                task.cancel()
            await self.jsv.close()
            await self.mail.drain(STOP_MAIL_SECONDS)  # (queued mails, a while at most)
            self._sync_accounting(force=True)
            self.reporting.flush_due(time.time(), force=True)
            self._spool_usage()
            self.spool.close()
            self._info("qmaster stopped")

    def stop(self) -> None:
        self._stop.set()

    def _stop_after_answer(self) -> None:
        """qconf -km: stop as on SIGTERM once the answer has left. The sockets close
        without lingering, so the stop waits a moment for libzmq to send what is queued."""
        try:
            asyncio.get_running_loop().call_later(STOP_ANSWER_SECONDS, self.stop)
        except RuntimeError:  # (not serving: a test's server without its loop)
            self.stop()

    def _lock_spool(self) -> None:
        """Hold the spool's lock for the qmaster's life: one qmaster per cell."""
        path = self.cell.qmaster_spool_dir / LOCK_FILE
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise SystemExit(f"pyge-qmaster: another qmaster is running on the spool of "
                             f"cell {self.cell.path}") from None
        self._lock_fd = fd

    # ---- the loop ------------------------------------------------------------------
    async def _serve(self) -> None:
        stop_wait = asyncio.create_task(self._stop.wait())
        while not self._stop.is_set():
            recv = asyncio.ensure_future(self.router.recv_multipart(copy=False))
            done, _ = await asyncio.wait({recv, stop_wait}, return_when=asyncio.FIRST_COMPLETED)
            if recv not in done:
                recv.cancel()
                break
            self._process(self._incoming([recv.result()] + self._drain()))

    def _incoming(self, frames: list[list[zmq.Frame]]) -> list[Incoming]:
        received = [Incoming.from_frames(f) for f in frames]
        if None in received:
            self._warn("dropped message with unexpected frame count")
        return [r for r in received if r is not None]

    def _fresh(self, limit: int) -> list[Incoming]:
        """What arrived while a batch was worked on, at most ``limit`` messages (nothing
        from a stand-in socket)."""
        if limit <= 0 or not isinstance(self.router, zmq.Socket):
            return []
        return self._incoming(self._drain(limit))

    def _drain(self, limit: int = MAX_BATCH) -> list[list[bytes]]:
        out: list[list[bytes]] = []
        while len(out) < limit:
            try:
                # an asyncio socket hands a NOBLOCK receive back as a finished future
                out.append(self.router.recv_multipart(flags=zmq.NOBLOCK,  # type: ignore[attr-defined]
                                                      copy=False).result())
            except zmq.Again:
                break
        return out

    def _process(self, received: list[Incoming]) -> None:
        batch = Batch()
        self._sync_accounting()
        for name in self._acct_written:
            batch.txn.delete("acct", name)
        self._acct_written = []
        replies: list[tuple[bytes, bytes]] = []
        now = time.time()
        started = time.monotonic()
        turns = Turns(received)
        turn_ends = started + TURN_SECONDS  # (then back to the event loop: the heartbeat)
        while turns:
            if (replies or batch.txn or batch.events) and \
                    time.monotonic() - started > BATCH_SECONDS:
                self._after_handlers(batch, now)
                self._commit_and_send(batch, replies)
                batch, replies, now, started = Batch(), [], time.time(), time.monotonic()
                if started < turn_ends:  # what came meanwhile joins the turns
                    turns.add(self._fresh(MAX_BATCH - len(turns)))
            incoming = turns.next()
            identity = incoming.identity
            try:
                msg = self._proven(incoming, wire.decode(incoming.payload,
                                                         from_user=_from_user(incoming)))
            except wire.WireError as err:
                self._warn("refused message", code=err.code, reason=err.message)
                replies.append((identity, wire.encode("error", {"code": err.code,
                                                                "message": err.message},
                                                      err.request_id)))
                continue
            if msg[0] == "snapshot" and (batch.txn or batch.events):
                # A snapshot must reflect exactly the events published before it.
                self._after_handlers(batch, now)
                self._commit_and_send(batch, replies)
                batch, replies = Batch(), []
            reply = self._handle(batch, identity, msg, now)
            if reply is not None:
                replies.append((identity, reply))
        self._after_handlers(batch, now)
        self._commit_and_send(batch, replies)

    def _proven(self, incoming: Incoming, msg: tuple[str, int, dict[str, Any]]
                ) -> tuple[str, int, dict[str, Any]]:
        """The message with its sender proven (qmaster.gate): a user request's ``user``
        is replaced by who really sent it; an execd's connection becomes its host's route.
        A refusal is raised as a WireError with code ``denied``."""
        msg_type, request_id, body = msg
        if msg_type not in HANDLERS:
            return msg  # no peer may send it: answered unknown_type, whoever it is
        try:
            peer = self.gate.peer(incoming.user_id)
            why = gate.refusal(peer, msg_type, body)
            if why is not None:
                raise gate.Refused(why)
            if peer.kind in (gate.LOCAL, gate.REMOTE):
                user = self.gate.user(peer, incoming.credential, incoming.payload)
                body = {**body, "user": user.to_dict()}
            elif incoming.credential is not None:
                raise gate.Refused("denied: a daemon's request carries no credential")
        except gate.Refused as err:
            raise wire.WireError("denied", str(err), request_id) from None
        if peer.kind == gate.EXECD:
            self.services.execd_routes[peer.host] = incoming.identity
        elif peer.kind == gate.SCHEDULER:  # (qmaster.event_clients: -secl, -sss, -kec)
            if msg_type == "snapshot" and body.get("after") is None:
                self.services.event_clients.registered(self._peer_host(peer.host),
                                                       time.time())
            else:
                self.services.event_clients.heard(time.time())
        return msg_type, request_id, body

    def _peer_host(self, address: str) -> str:
        """A daemon's host name from its address: the qmaster's own for a loopback one."""
        import ipaddress
        if not address:
            return self.host
        try:
            if ipaddress.ip_address(address).is_loopback:
                return self.host
        except ValueError:
            pass
        return self.gate.host_name(address)

    def _handle(self, batch: Batch, identity: bytes, msg: tuple[str, int, dict[str, Any]],
                now: float, *, verified: list[str] | None = None) -> bytes | None:
        """The reply to one request (None: it waits). ``verified``: the names of the jobs
        of a submission the server JSV accepted, told back (it may have renamed them)."""
        msg_type, request_id, body = msg
        if msg_type == "submit" and verified is None:
            url = self.store.conf_value("conf", "global", "jsv_url", "none")
            if url.strip().lower() not in ("", "none"):
                return self._submit_to_jsv(identity, request_id, body, url)
        handler = HANDLERS.get(msg_type)
        self.services.metrics.request(msg_type if handler is not None else "unknown")
        if handler is None:
            return wire.encode("error", {"code": "unknown_type",
                                         "message": f"{msg_type} is not a request"}, request_id)
        ctx = Ctx(self.store, batch, self.services, identity, request_id, now, body)
        point = self.store.savepoint(batch)
        waiters = self.services.waiters.savepoint()
        try:
            result = handler(ctx)
        except RequestError as err:  # refused: whatever the handler changed is taken back
            self._rollback(batch, point, waiters)
            return wire.encode("error", {"code": err.code, "message": err.message}, request_id)
        except Exception as exc:  # noqa: BLE001 - a handler bug must not take the daemon down
            # wire.decode checked every field of the body, so this is our bug: logged with
            # its trace, refused as internal, and nothing of it stays.
            self._rollback(batch, point, waiters)
            self._error("handler failed", msg_type=msg_type, error=repr(exc),
                        exc_info=True)
            return wire.encode("error", {"code": "internal", "message": f"internal error: "
                                         f"{type(exc).__name__}"}, request_id)
        if result is DEFERRED:
            return None
        if verified is not None and "job_ids" in result:
            result = {**result, "job_names": verified}
        return wire.encode("reply", result, request_id)

    # ---- jsv_url: a submission waits for the JSV in a task of its own (qmaster.jsv) ------
    def _submit_to_jsv(self, identity: bytes, request_id: int, body: dict[str, Any],
                       url: str) -> bytes | None:
        """None once the submission waits for the server JSV; the refusal when it may not
        (not from a submit host, or too many waiting)."""
        try:
            require_submit_host(self.store, UserInfo.from_dict(body.get("user") or {}))
        except RequestError as err:
            return wire.encode("error", {"code": err.code, "message": err.message}, request_id)
        if self.jsv.waiting >= JSV_MAX_WAITING:
            return wire.encode("error", {"code": "busy", "message": "denied: too many "
                                         "submissions wait for the JSV, try again later"},
                               request_id)
        timeout = jsv_timeout_of(self.store.conf_value("conf", "global", "qmaster_params", ""))
        task = asyncio.get_running_loop().create_task(
            self._verify_submit(identity, request_id, body, url, timeout))
        self._jsv_tasks.add(task)
        task.add_done_callback(self._jsv_tasks.discard)
        return None

    async def _verify_submit(self, identity: bytes, request_id: int, body: dict[str, Any],
                             url: str, timeout: float) -> None:
        try:
            await self._verified_submit(identity, request_id, body, url, timeout)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - as _handle: our bug, logged, refused
            self._error("JSV verification failed", error=repr(exc), exc_info=True)
            self._send(identity, wire.encode("error", {
                "code": "internal", "message": f"internal error: {type(exc).__name__}"},
                request_id))

    async def _verified_submit(self, identity: bytes, request_id: int, body: dict[str, Any],
                               url: str, timeout: float) -> None:
        user = UserInfo.from_dict(body.get("user") or {})
        specs = body["jobs"]
        checked = []
        for index, spec in enumerate(specs):
            params = jsv.job_params(spec["opts"], context="server", client="qmaster",
                                    user=user.name, group=user.group)
            verdict = await self.jsv.verify(url, timeout, params, spec["opts"].get("env") or {})
            for level, text in verdict.logs:  # (8.1.9: into the messages file)
                self._jsv_log("JSV log", level=level, text=text[:1024])
            message = verdict.message
            if verdict.accepted:
                try:
                    opts = jsv.apply_changes(spec["opts"], verdict.params, verdict.env)
                    checked.append(check_submitted_job({**spec, "opts": opts}))
                    continue
                except jsv.JsvError as err:
                    message = str(err)
                except JobSpecError as err:
                    message = err.text
            if len(specs) > 1:
                message = f"jobs[{index}]: {message}"
            self._jsv_log("JSV rejected job", user=user.name, reason=message[:1024])
            self._send(identity, wire.encode("error", {"code": "denied", "message": message},
                                             request_id))
            return
        # verified: the submission goes on as any other, in a batch of its own
        batch, now = Batch(), time.time()
        reply = self._handle(batch, identity, ("submit", request_id, {**body, "jobs": checked}),
                             now, verified=[spec["opts"]["job_name"] for spec in checked])
        self._after_handlers(batch, now)
        self._commit_and_send(batch, [(identity, reply)] if reply is not None else [])

    def _jsv_log(self, event: str, **kw: Any) -> None:
        self._info(event, **kw)

    def _rollback(self, batch: Batch, point: Any, waiters: int) -> None:
        self.store.rollback(batch, point)
        self.services.waiters.rollback(waiters)

    def _after_handlers(self, batch: Batch, now: float) -> None:
        self._release_array_dependents(batch, now)
        done = 0
        while done < len(batch.finished_jobs):
            job_id = batch.finished_jobs[done]
            done += 1
            ctx = Ctx(self.store, batch, self.services, b"", 0, now, {})
            point = self.store.savepoint(batch)
            try:
                jobs.release_dependents(ctx, job_id)
            except Exception as exc:  # noqa: BLE001 - the finished job stays finished
                self.store.rollback(batch, point)
                self._error("releasing dependent jobs failed", job_id=job_id,
                            error=repr(exc), exc_info=True)

    def _release_array_dependents(self, batch: Batch, now: float) -> None:
        """-hold_jid_ad: the tasks waiting on the tasks and jobs this batch finished."""
        if not self.store.ad_successors or not (batch.finished_tasks or batch.finished_jobs):
            return
        ctx = Ctx(self.store, batch, self.services, b"", 0, now, {})
        point = self.store.savepoint(batch)
        try:
            array_deps.release_array_dependents(ctx, list(batch.finished_tasks),
                                                list(batch.finished_jobs))
        except Exception as exc:  # noqa: BLE001 - the finished tasks stay finished
            self.store.rollback(batch, point)
            self._error("releasing array dependent tasks failed", error=repr(exc),
                        exc_info=True)

    def _commit_and_send(self, batch: Batch, replies: list[tuple[bytes, bytes]]) -> None:
        self._flush_usage(batch)
        if batch.txn:
            began = time.monotonic()
            self.spool.commit(batch.txn)
            self.services.metrics.commit_time.observe(time.monotonic() - began)
        else:
            self.spool.commit(batch.txn)
        self.store.forget_journal()
        params = self._reporting_params()
        if batch.accounting and not params.accounting:  # (accounting=false: no file)
            self._acct_written.extend(accounting_log.record_key(r) for r in batch.accounting)
        elif batch.accounting:  # (durable in the spool already: the file is synced later)
            self._acct_unsynced.append(batch.accounting, time.monotonic(), self._bad_record)
        # (also while reporting is off: what is made meanwhile is no new object later)
        now = time.time()
        self.reporting.note_batch(now, batch.events, [
            accounting_log.writable(r, self._bad_record).to_line()
            for r in batch.accounting] if params.reporting else [], self.store)
        self.reporting.flush_due(now)
        for identity, reply in replies:
            self._send(identity, reply)
        self._publish(batch.events)
        for out in batch.outbox:
            if not out.identity:  # an execd that has not spoken since we started
                self._warn("execd not connected, message not sent", msg_type=out.msg_type,
                           host=out.body.get("spec", {}).get("host", ""),
                           job_id=out.body.get("job_id"))
                continue
            self._send(out.identity, wire.encode(out.msg_type, out.body))
        self._answer_waiters(batch)
        if batch.mails:  # (committed: what they tell has happened)
            self.mail.send(batch.mails, self.store.conf_value("conf", "global", "mailer"))
        actions, self.services.after_commit[:] = list(self.services.after_commit), []
        for action in actions:  # (qmaster.daemon_control: a stop, once answered)
            action()

    def _reporting_params(self) -> reporting.ReportingParams:
        self.reporting.configure(self.store.conf_value("conf", "global", "reporting_params",
                                                       reporting.DEFAULT))
        return self.reporting.params

    def _sharelog(self) -> None:
        """reporting_params sharelog: the share tree's nodes every interval (none
        without a tree)."""
        now = time.time()
        self._reporting_params()
        if not self.reporting.sharelog_due(now):
            return
        try:
            rows = share_tree_rows_now(self.store, self.services, now)
        except Exception as exc:  # noqa: BLE001 - the heartbeat must go on
            self._error("share tree not logged", error=repr(exc), exc_info=True)
            rows = []
        self.reporting.note_sharelog(now, rows)

    def _flush_usage(self, batch: Batch, *, force: bool = False) -> None:
        """The share tree usage booked since the last flush, spooled and published with
        this batch when due (qmaster.usage_book: every few seconds, and after a task
        ended)."""
        book = self.services.usage
        now = time.time()
        book.constants(self.store.conf, now)  # (a changed halftime: decayed up to now)
        if force or book.due(now):
            book.flush(batch.txn, batch.event, now, self.store.active)

    def _spool_usage(self) -> None:
        """At a clean stop: the usage not yet flushed goes to the spool (unpublished:
        the event socket is closed)."""
        batch = Batch()
        self.services.usage.flush(batch.txn, batch.event, time.time(), self.store.active)
        try:
            self.spool.commit(batch.txn)
        except sqlite3.Error as exc:
            self._error("usage not spooled at stop", error=repr(exc))

    def _sync_accounting(self, *, force: bool = False) -> None:
        """Make the appended accounting records durable ACCOUNTING_SYNC_SECONDS after the
        oldest of them, at the first batch or heartbeat after that (so within about
        ACCOUNTING_SYNC_SECONDS + HEARTBEAT_SECONDS): the records then synced may leave
        the spool with the next batch."""
        try:
            done = self._acct_unsynced.synced(time.monotonic(), force=force)
        except OSError as exc:  # (kept, and tried again at the next batch)
            self._error("accounting file not synced", path=str(self.cell.accounting_path),
                        error=repr(exc))
            return
        self._acct_written.extend(accounting_log.record_key(r) for r in done)

    def _publish(self, events: list[dict[str, Any]]) -> None:
        if not events:
            return
        for event in events:
            self.services.seq += 1
            event["seq"] = self.services.seq
        self.store.event_seq = self.services.seq
        self.services.policy_view.note_events(events)  # (qstat's policy figures)
        if self.services.event_feed is not None:  # (someone subscribed: qmaster.event_feed)
            self.services.event_feed.note(events, time.time(), self.store.job_finished)
            self._answer_event_polls()
        self.pub.send_multipart(wire.encode_event_batch(self.services.epoch, events))

    def _answer_event_polls(self) -> None:
        """Answer the event subscriptions that have news or whose time is up."""
        for identity, request_id, answer in event_feed.answer_polls(
                self.services.event_feed, self.store, self.services.epoch, time.time()):
            self._send(identity, wire.encode("reply", answer, request_id))

    def _send(self, identity: bytes, payload: bytes) -> None:
        try:
            sent = self.router.send_multipart([identity, payload], flags=zmq.NOBLOCK)
        except zmq.ZMQError as exc:
            self._unreachable(identity, exc)
            return
        # An asyncio socket reports a failed send (peer gone) on the returned future.
        if sent is not None:
            sent.add_done_callback(lambda fut: self._send_done(identity, fut))

    def _send_done(self, identity: bytes, fut: Any) -> None:
        if not fut.cancelled() and fut.exception() is not None:
            self._unreachable(identity, fut.exception())

    def _unreachable(self, identity: bytes, exc: BaseException) -> None:
        self._warn("peer unreachable", peer=identity[:40].decode(errors="replace"),
                   error=str(exc))

    def _answer_waiters(self, batch: Batch) -> None:
        """Answer the waits whose last job finished in this batch: one answer made per
        set of jobs, sent to every request that waits on it."""
        waiters = self.services.waiters
        waiters.forget_journal()
        if not batch.finished_jobs:
            return
        for waiter in waiters.finished(set(batch.finished_jobs)):
            ctx = Ctx(self.store, batch, self.services, b"", 0, 0.0, {})
            body = {"jobs": jobs.job_results(ctx, set(waiter.job_ids)), "unknown": []}
            for identity, request_id in waiter.requests:
                self._send(identity, wire.encode("reply", body, request_id))

    def _trim_finished(self) -> None:
        """Forget the finished jobs ``finished_jobs`` does not keep (sge_conf(5))."""
        batch = Batch()
        point = self.store.savepoint(batch)
        try:
            self.store.trim_finished(batch)
        except Exception as exc:  # noqa: BLE001 - the heartbeat must go on
            self.store.rollback(batch, point)
            self._error("forgetting finished jobs failed", error=repr(exc), exc_info=True)
            return
        self._commit_and_send(batch, [])

    # ---- /metrics (qmaster.metrics) -------------------------------------------------
    async def _follow_metrics_conf(self) -> None:
        """Start, move or stop the /metrics endpoint as ``qmaster_params`` METRICS_PORT
        and METRICS_BIND say. A port that cannot be had is logged once, and tried again
        when the configuration changes."""
        wanted = metrics.address(self.store.conf_value("conf", "global", "qmaster_params",
                                                       "none"))
        if wanted == self._metrics_wanted:
            return
        self._metrics_wanted = wanted
        await self.metrics_server.stop()
        if wanted is None:
            return
        try:
            await self.metrics_server.start(*wanted)
        except OSError as err:
            self._error("metrics endpoint not started", bind=wanted[0], port=wanted[1],
                        error=str(err))
            return
        self._info("metrics endpoint", address=list(self.metrics_server.address or ()))

    def _metrics_text(self, openmetrics: bool) -> str:
        return metrics.exposition(self.services.metrics, self.store,
                                  instances_of(self.store), self.services.start_time,
                                  openmetrics)

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            self._sync_accounting()  # (an idle qmaster's too)
            await self._follow_metrics_conf()
            if self.services.event_feed is not None:  # (subscriptions whose time is up)
                self._answer_event_polls()
            self._sharelog()
            self.reporting.flush_due(time.time())
            stopping = self.jsv.idle(self.store.conf_value("conf", "global", "jsv_url", "none"))
            if stopping is not None:  # (kept until done, as the other JSV tasks)
                self._jsv_tasks.add(stopping)
                stopping.add_done_callback(self._jsv_tasks.discard)
            if self.services.usage.due(time.time()):  # (usage booked by the last reports)
                self._commit_and_send(Batch(), [])
            if self.store.finished_excess():  # (finished_jobs lowered, or jobs just ended)
                self._trim_finished()
            self.pub.send_multipart(wire.encode_heartbeat(self.services.epoch,
                                                          self.services.seq))
            try:
                self._check_hosts()
            except Exception as exc:  # noqa: BLE001 - the heartbeat must go on
                self._error("checking hosts failed", error=repr(exc), exc_info=True)
            try:
                self._check_suspensions()
            except Exception as exc:  # noqa: BLE001 - the heartbeat must go on
                self._error("checking suspend thresholds failed", error=repr(exc),
                            exc_info=True)
            try:
                self._check_auto_users()
            except Exception as exc:  # noqa: BLE001 - the heartbeat must go on
                self._error("deleting automatic user objects failed", error=repr(exc),
                            exc_info=True)
            try:
                self._send_tickets()
            except Exception as exc:  # noqa: BLE001 - the heartbeat must go on
                self._error("sending tickets to the execds failed", error=repr(exc),
                            exc_info=True)

    def _send_tickets(self) -> None:
        """Every reprioritize_interval: each execd the tickets of its running tasks
        (qmaster.reprioritize)."""
        now = time.time()
        due = self.services.ticket_sender.messages(
            self.store.conf, now, self.store.active_tasks(),
            lambda: self.services.policy_view.result(self.store, now, self.services.seq,
                                                     self.services.usage))
        for host, body in due.items():
            identity = self.services.execd_routes.get(host, b"")
            if identity:  # (an execd not connected gets the next list)
                self._send(identity, wire.encode("job_tickets", body))

    def _check_hosts(self) -> None:
        """Hosts not heard of for max_unheard become unknown (queue state ``u``); the
        jobs of hosts unknown for reschedule_unknown more are rescheduled or ended
        (qmaster.lost_hosts). Each change applies whole or not at all, as a request's."""
        policy = lost_host_policy(self.store.conf)
        now = time.time()
        hosts = list(self.store.hosts.values())
        stale = unheard_hosts(hosts, now, self.started, policy)
        lost = lost_hosts(hosts, now, self.started, policy)
        actions = lost_task_actions(self.store.active_tasks(), self.store.jobs, lost, policy,
                                    self._queue_rerun, self._checkpoint_r) if lost else []
        if not stale and not actions:
            return
        batch = Batch()
        for name in stale:
            self.store.put_host(batch, replace(self.store.hosts[name], alive=False))
            self._warn("host unheard, marked unknown", host=name)
        for task, action in actions:
            point = self.store.savepoint(batch)
            try:
                execd_link.end_lost_task(Ctx(self.store, batch, self.services, b"", 0, now, {}),
                                         task, action)
            except Exception as exc:  # noqa: BLE001 - one task must not stop the others
                self.store.rollback(batch, point)
                self._error("giving up a lost run failed", job_id=task.job_id,
                            task_id=task.task_id, host=task.host, error=repr(exc),
                            exc_info=True)
        self._after_handlers(batch, now)  # dependents of jobs that ended here
        self._commit_and_send(batch, [])

    async def _ar_timer(self) -> None:
        """Sleeps until the AR clock's earliest entry is due (qmaster.ar.lifecycle), or
        until an earlier one is added; then moves the ARs whose time has come."""
        while True:
            due = self.services.ar_clock.next_due()
            delay = None if due is None else max(0.0, due - time.time())
            try:
                await asyncio.wait_for(self._ar_wake.wait(), delay)
            except asyncio.TimeoutError:
                pass
            self._ar_wake.clear()
            try:
                self._check_ars()
            except Exception as exc:  # noqa: BLE001 - the timer must go on
                self._error("advancing advance reservations failed", error=repr(exc),
                            exc_info=True)
                await asyncio.sleep(HEARTBEAT_SECONDS)  # (not in a loop of failures)

    def _check_ars(self, now: float | None = None) -> None:
        """Advance reservations whose start or end has come (qmaster.ar.lifecycle)."""
        clock = self.services.ar_clock
        now = time.time() if now is None else now
        due_at = clock.next_due() if clock is not None else None
        if due_at is None or due_at > now:
            return
        batch = Batch()
        ctx = Ctx(self.store, batch, self.services, b"", 0, now, {})
        point = self.store.savepoint(batch)
        try:
            advance_ars(ctx, clock, clock.due(now))
        except Exception:
            self.store.rollback(batch, point)
            raise
        self._after_handlers(batch, now)
        self._commit_and_send(batch, [])

    def _check_suspensions(self) -> None:
        """Suspend thresholds, subordination and calendars (qmaster.auto_suspend): all
        steps of a second in one batch."""
        batch = Batch()
        ctx = Ctx(self.store, batch, self.services, b"", 0, time.time(), {})
        point = self.store.savepoint(batch)
        try:
            heartbeat(ctx, self.suspend_steps, datetime.now())
        except Exception:
            self.store.rollback(batch, point)
            raise
        if batch.events or batch.outbox:
            self._commit_and_send(batch, [])

    def _check_auto_users(self) -> None:
        """sge_conf(5) auto_user_delete_time: automatic user objects whose time has come
        are deleted when their user has no job (qmaster.policy_objects)."""
        now = time.time()
        expired = expired_auto_users(self.store.conf, now)
        if not expired:
            return
        owners = {o for o, (count, _) in self.store.active_jobs.items() if count}
        delete, keep = auto_user_actions(self.store.conf, expired, owners, now)
        batch = Batch()
        for name in delete:
            self.store.delete_conf(batch, "user", name)
            self._info("automatic user object deleted", user=name)
        for name, pairs in keep.items():
            self.store.put_conf(batch, "user", name, pairs)
        self._commit_and_send(batch, [])

    def _checkpoint_r(self, job: Job) -> bool:
        """A checkpointed job whose ``when`` has ``r`` (rescheduled from a lost host)."""
        from common.objects_conf.ckpt import effective_when  # (lost hosts only)
        name = job.opts.get("checkpoint_name")
        pairs = (self.store.conf.get("ckpt") or {}).get(name) if name else None
        return pairs is not None and "r" in effective_when(
            pairs, job.opts.get("checkpoint_occasion"))

    def _queue_rerun(self, task: Task) -> bool:
        """The ``rerun`` of the task's queue on its host."""
        return queue_rerun(self.store.conf, task.queue or "", task.host or "")

    def _bad_record(self, record: dict[str, Any], why: str) -> None:
        self._error("accounting record replaced by a safe one", job_id=record.get("job_number"),
                    task_id=record.get("task_number"), error=why)

    # ---- logging -------------------------------------------------------------------
    def _info(self, event: str, **kw: Any) -> None:
        if self.log:
            self.log.info(event, **kw)

    def _warn(self, event: str, **kw: Any) -> None:
        if self.log:
            self.log.warning(event, **kw)

    def _error(self, event: str, **kw: Any) -> None:
        if self.log:
            self.log.error(event, **kw)


def _from_user(incoming: Incoming) -> bool:
    """Whether a frame came on a user's connection (not a daemon's key): its cost is
    bounded before it is unpacked (wire.decode)."""
    peer = gate.Peer.from_text(incoming.user_id or "")
    return peer is None or peer.kind not in (gate.EXECD, gate.SCHEDULER)


def seed_routing_ids() -> None:
    """Seed the C library's ``rand()`` from the system's randomness before libzmq makes
    a socket. libzmq draws the first routing id a ROUTER gives to peers that bring none
    from ``rand()``, and counts up from it; unseeded, that start is the same in every
    process, so a peer could claim the ids that later connections will get (a collision
    makes libzmq abort the qmaster) or a route it should not have (docs/security.md)."""
    import ctypes
    import secrets
    libc = ctypes.CDLL(None)
    libc.srand(ctypes.c_uint(secrets.randbits(32)))


def _bind_local(sock: zmq.asyncio.Socket, path: Path) -> Path:
    """Bind the Unix endpoint at ``path``, connectable by every local user (who they
    are is the kernel's to say); a leftover socket file of an earlier run is replaced."""
    # (it is bound first as <dir>/.sXXXXXXXX/s, a name of the same length)
    if len(str(path).encode()) > MAX_SOCKET_PATH:
        raise SystemExit(f"error: the qmaster's socket path {path} is longer than "
                         f"{MAX_SOCKET_PATH} bytes; use a shorter cell directory")
    # Bound and opened to every user inside a fresh directory of our own, then renamed
    # into place: the chmod never meets a name someone else could have replaced.
    private = Path(tempfile.mkdtemp(prefix=".s", dir=path.parent))
    try:
        sock.bind(f"ipc://{private / 's'}")
        os.chmod(private / "s", 0o666)
        os.replace(private / "s", path)
    finally:
        shutil.rmtree(private, ignore_errors=True)
    return path


def _bind(sock: zmq.asyncio.Socket, addr: str, port: int) -> int:
    if port:
        sock.bind(f"tcp://{addr}:{port}")
        return port
    return sock.bind_to_random_port(f"tcp://{addr}")

