"""The qmaster daemon loop: receive a batch of requests, apply, commit, then answer.

Requests that arrive together are handled one after another against the store, their
changes collected in one ``Batch``; the batch is committed to the spool in one transaction
(group commit), and only then are the replies sent, the events published with consecutive
sequence numbers, the execd messages sent and the accounting records appended.
"""
from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import replace
from typing import Any, Callable

import zmq
import zmq.asyncio

from common import wire
from common.conf_values import seconds_or
from common.cell import Cell, write_act_qmaster
from qmaster import (accounting_log, alter, config_handlers, execd_link, jobs, orders,
                     userset_handlers)
from qmaster.context import DEFERRED, Ctx, RequestError, Services
from qmaster.defaults import bootstrap, ensure_complexes, ensure_global_host, ensure_usersets
from qmaster.spool import SqliteSpool
from qmaster.store import Batch, Store

Handler = Callable[[Ctx], dict[str, Any]]

HANDLERS: dict[str, Handler] = {
    "ping": lambda ctx: {"epoch": ctx.services.epoch},
    "submit": jobs.handle_submit,
    "delete": jobs.handle_delete,
    "hold": jobs.handle_hold,
    "release": jobs.handle_release,
    "alter": alter.handle_alter,
    "wait": jobs.handle_wait,
    "job_query": jobs.handle_job_query,
    "cluster_query": config_handlers.handle_cluster_query,
    "conf_get": config_handlers.handle_conf_get,
    "conf_put": config_handlers.handle_conf_put,
    "conf_del": config_handlers.handle_conf_del,
    "userset_entries": userset_handlers.handle_userset_entries,
    "register": execd_link.handle_register,
    "load_report": execd_link.handle_load_report,
    "job_started": execd_link.handle_job_started,
    "job_finished": execd_link.handle_job_finished,
    "job_start_failed": execd_link.handle_job_start_failed,
    "snapshot": orders.handle_snapshot,
    "orders": orders.handle_orders,
}

MAX_BATCH = 500
HEARTBEAT_SECONDS = 1.0


class QmasterServer:
    def __init__(self, cell: Cell, *, host: str, bind: str = "127.0.0.1", port: int = 0,
                 event_port: int = 0, managers: list[str] | None = None,
                 auto_add_hosts: bool = False, default_slots: int = 0,
                 min_uid: int | None = None, log: Any = None) -> None:
        self.cell, self.host, self.bind = cell, host, bind
        self.port, self.event_port = port, event_port
        self.log = log
        self.spool = SqliteSpool(cell.qmaster_spool_dir)
        self.store = Store()
        self.services = Services(epoch=uuid.uuid4().hex, auto_add_hosts=auto_add_hosts,
                                 default_slots=default_slots, log=log)
        self._managers = managers or []
        self._min_uid = min_uid
        self._acct_written: list[str] = []
        self._stop = asyncio.Event()

    # ---- start-up ------------------------------------------------------------------
    def load(self) -> None:
        objects, meta = self.spool.load()
        self.store.load(objects, meta)
        batch = Batch()
        self._move_aside(objects, batch)
        if not self.store.conf["queue"] and not self.store.lists["manager"]:
            bootstrap(self.store, batch, self._managers, self._min_uid)
        ensure_complexes(self.store, batch)  # spools written before the list was stored
        ensure_usersets(self.store, batch)  # and before access lists were
        ensure_global_host(self.store, batch)  # and before the global host was
        self.spool.commit(batch.txn)
        self.store.forget_journal()
        self._recover_accounting()

    def _move_aside(self, objects: dict[str, dict[str, Any]], batch: Batch) -> None:
        """Spooled objects that did not load move to kind ``aside:<kind>`` (kept for a
        person to look at, out of the way of every later start) and are reported."""
        for (kind, key), why in sorted(self.store.set_aside.items()):
            batch.txn.put(f"aside:{kind}", key, {"why": why, "object": objects[kind][key]})
            batch.txn.delete(kind, key)
            self._error("spooled object set aside", kind=kind, key=key, error=why)

    def _recover_accounting(self) -> None:
        pending = self.store.pending_accounting
        missing = accounting_log.recover_pending(self.cell.accounting_path,
                                                 list(pending.values()), self._bad_record)
        if missing:
            accounting_log.write_records(self.cell.accounting_path, missing)
        self._acct_written = list(pending)
        self.store.pending_accounting = {}

    def _bind(self, ctx: zmq.asyncio.Context) -> None:
        self.router = ctx.socket(zmq.ROUTER)
        self.router.setsockopt(zmq.ROUTER_HANDOVER, 1)
        self.router.setsockopt(zmq.ROUTER_MANDATORY, 1)
        self.router.setsockopt(zmq.MAXMSGSIZE, wire.MAX_MESSAGE_BYTES)
        self.router.setsockopt(zmq.LINGER, 0)
        self.pub = ctx.socket(zmq.PUB)
        self.pub.setsockopt(zmq.LINGER, 0)
        self.pub.setsockopt(zmq.SNDHWM, 100000)
        self.port = _bind(self.router, self.bind, self.port)
        self.event_port = _bind(self.pub, self.bind, self.event_port)
        address = self.host if self.bind in ("*", "0.0.0.0") else self.bind
        write_act_qmaster(self.cell, address, self.port, self.event_port)

    async def run(self, ready: Callable[[], None] | None = None) -> None:
        self.load()
        zctx = zmq.asyncio.Context()
        self._bind(zctx)
        self._info("qmaster started", port=self.port, event_port=self.event_port)
        if ready:
            ready()
        beat = asyncio.create_task(self._heartbeat())
        try:
            await self._serve()
        finally:
            beat.cancel()
            self.router.close(0)
            self.pub.close(0)
            zctx.term()
            self.spool.close()

    def stop(self) -> None:
        self._stop.set()

    # ---- the loop ------------------------------------------------------------------
    async def _serve(self) -> None:
        stop_wait = asyncio.create_task(self._stop.wait())
        while not self._stop.is_set():
            recv = asyncio.ensure_future(self.router.recv_multipart())
            done, _ = await asyncio.wait({recv, stop_wait}, return_when=asyncio.FIRST_COMPLETED)
            if recv not in done:
                recv.cancel()
                break
            frames_list = [recv.result()] + self._drain()
            self._process(frames_list)

    def _drain(self) -> list[list[bytes]]:
        out: list[list[bytes]] = []
        while len(out) < MAX_BATCH:
            try:
                # an asyncio socket hands a NOBLOCK receive back as a finished future
                out.append(self.router.recv_multipart(flags=zmq.NOBLOCK).result())  # type: ignore[attr-defined]
            except zmq.Again:
                break
        return out

    def _process(self, frames_list: list[list[bytes]]) -> None:
        batch = Batch()
        for name in self._acct_written:
            batch.txn.delete("acct", name)
        self._acct_written = []
        replies: list[tuple[bytes, bytes]] = []
        now = time.time()
        for frames in frames_list:
            if len(frames) != 2:
                self._warn("dropped message with unexpected frame count", frames=len(frames))
                continue
            identity, payload = frames
            try:
                msg = wire.decode(payload)
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

    def _handle(self, batch: Batch, identity: bytes, msg: tuple[str, int, dict[str, Any]],
                now: float) -> bytes | None:
        msg_type, request_id, body = msg
        handler = HANDLERS.get(msg_type)
        if handler is None:
            return wire.encode("error", {"code": "unknown_type",
                                         "message": f"{msg_type} is not a request"}, request_id)
        ctx = Ctx(self.store, batch, self.services, identity, request_id, now, body)
        point = self.store.savepoint(batch)
        waiters = len(self.services.waiters)
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
        return wire.encode("reply", result, request_id)

    def _rollback(self, batch: Batch, point: Any, waiters: int) -> None:
        self.store.rollback(batch, point)
        del self.services.waiters[waiters:]

    def _after_handlers(self, batch: Batch, now: float) -> None:
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

    def _commit_and_send(self, batch: Batch, replies: list[tuple[bytes, bytes]]) -> None:
        self.spool.commit(batch.txn)
        self.store.forget_journal()
        if batch.accounting:
            accounting_log.write_records(self.cell.accounting_path, batch.accounting,
                                         self._bad_record)
            self._acct_written.extend(f"{r['job_number']}.{r['task_number'] or 1}"
                                      for r in batch.accounting)
        for identity, reply in replies:
            self._send(identity, reply)
        self._publish(batch.events)
        for out in batch.outbox:
            self._send(out.identity, wire.encode(out.msg_type, out.body))
        self._answer_waiters(batch)

    def _publish(self, events: list[dict[str, Any]]) -> None:
        if not events:
            return
        for event in events:
            self.services.seq += 1
            event["seq"] = self.services.seq
        self.pub.send_multipart(wire.encode_event_batch(self.services.epoch, events))

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
        if not batch.finished_jobs or not self.services.waiters:
            return
        still = []
        finished = set(batch.finished_jobs)
        for waiter in self.services.waiters:
            waiter.unfinished -= finished
            if not waiter.unfinished:
                ctx = Ctx(self.store, batch, self.services, b"", 0, 0.0, {})
                body = {"jobs": jobs.job_results(ctx, waiter.job_ids), "unknown": []}
                self._send(waiter.identity, wire.encode("reply", body, waiter.request_id))
            else:
                still.append(waiter)
        self.services.waiters = still

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            self.pub.send_multipart(wire.encode_heartbeat(self.services.epoch,
                                                          self.services.seq))
            self._check_hosts()

    def _check_hosts(self) -> None:
        """Hosts not heard of for max_unheard become unknown (queue state ``u``)."""
        unheard = self.store.conf_value("conf", "global", "max_unheard", "00:05:00")
        limit = seconds_or(unheard, 300.0)
        now = time.time()
        stale = [h for h in self.store.hosts.values() if h.alive and now - h.load_time > limit]
        if not stale:
            return
        batch = Batch()
        for host in stale:
            self.store.put_host(batch, replace(host, alive=False))
            self._warn("host unheard, marked unknown", host=host.name)
        self._commit_and_send(batch, [])

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


def _bind(sock: zmq.asyncio.Socket, addr: str, port: int) -> int:
    if port:
        sock.bind(f"tcp://{addr}:{port}")
        return port
    return sock.bind_to_random_port(f"tcp://{addr}")

