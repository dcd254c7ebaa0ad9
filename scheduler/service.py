"""The scheduler process: subscribe, mirror, run passes on events, send orders.

Clone pattern: subscribe to the event stream first, then ask for a snapshot, then apply
the buffered and later events whose sequence number follows the snapshot's. A gap in the
sequence, a new qmaster epoch or a missing heartbeat makes it start over from a snapshot.
Passes run when an event could change the outcome, at most once per ``min_interval``,
and when the next planned instant arrives (a reservation's start, an advance
reservation's start or end: a timer, not polling). With ``params MONITOR=1`` each pass
appends its plan to the schedule file (``common.schedule_file``).
"""
from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import stat
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import zmq
import zmq.asyncio

from common import keys, wire
from common.placement.dispatch import (PassInput, PassStats, dispatch_pass, not_scheduled,
                                       waiting_for_time)
from common.placement.inputs import policy_conf
from common.policy.inputs import order_ranks
from common.schedule_file import SEPARATOR, schedule_block
from scheduler.mirror import Mirror

HEARTBEAT_TIMEOUT = 3.5
REQUEST_TIMEOUT = 5.0
SAFETY_PASS_SECONDS = 10.0
# the qmaster lists the scheduler as an event client while it hears from it (qconf -secl,
# -sss: qmaster.event_clients.SILENT_SECONDS); an idle scheduler sends no other request
PING_SECONDS = 5.0
RESTART_PAUSE = 2.0  # after a session ended by an unexpected error
SCHEDULE_FILE = "schedule"  # <root>/<cell>/common/schedule (sched_conf(5) params MONITOR)


class Resync(Exception):
    """The mirror can no longer be trusted; rebuild it from a snapshot."""


class SchedulerService:
    def __init__(self, host: str, port: int, event_port: int, curve: keys.ClientKeys, *,
                 min_interval: float = 0.0,
                 log: Any = None,
                 resolve: Callable[[], tuple[str, int, int]] | None = None,
                 schedule_path: Path | None = None) -> None:
        self.unevaluable: dict[int, str] = {}  # job id -> why the pass skips it
        self.host, self.port, self.event_port = host, port, event_port
        self.curve = curve  # both sockets are CURVE clients of the qmaster (qmaster.gate)
        self.resolve = resolve  # re-reads the qmaster's address (act_qmaster) on resync
        self.min_interval = min_interval
        self.log = log
        self.mirror: Mirror | None = None
        # task key -> (task version, granted, PE) of orders the qmaster has not settled
        self.inflight: dict[str, tuple[int, list[list[Any]], str | None]] = {}
        self._ids = itertools.count(1)
        self._dirty = True
        self._last_pass = 0.0
        self._last_beat = time.monotonic()
        self._last_ping = time.monotonic()
        self._stop = asyncio.Event()
        self.passes = 0
        self._last_empty_log = 0.0
        self.schedule_path = schedule_path  # None: no schedule file (no cell directory)
        self._wake_at: float | None = None  # epoch of the next planned instant
        self._unreadable_ars: set[int] = set()

    def stop(self) -> None:
        self._stop.set()

    async def run(self) -> None:
        """Sessions with the qmaster until ``stop``; a stop cancels the session at once,
        even while it waits for an answer or for the qmaster to come back."""
        ctx = zmq.asyncio.Context()
        stopping = asyncio.ensure_future(self._stop.wait())
        try:
            while not self._stop.is_set():
                session = asyncio.ensure_future(self._session_then_pause(ctx))
                await asyncio.wait({session, stopping}, return_when=asyncio.FIRST_COMPLETED)
                if not session.done():
                    session.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await session
        finally:
            stopping.cancel()
            ctx.term()

    async def _session_then_pause(self, ctx: zmq.asyncio.Context) -> None:
        try:
            await self._session(ctx)
        except Resync as why:
            self._log("resync", reason=str(why))
            await asyncio.sleep(0.2)
        except Exception as err:  # a bug must not spin: say what broke, then start again
            if self.log:
                self.log.exception("session failed", error=repr(err))
            await asyncio.sleep(RESTART_PAUSE)

    async def _session(self, ctx: zmq.asyncio.Context) -> None:
        if self.resolve is not None:
            try:
                self.host, self.port, self.event_port = self.resolve()
            except (OSError, IndexError, ValueError):
                pass  # keep the last address; the qmaster may be restarting
        if not self.port:  # (pyge up starts a fresh cell's scheduler beside its qmaster)
            await asyncio.sleep(0.1)
            raise Resync("qmaster address not known yet")
        sub = ctx.socket(zmq.SUB)
        req = ctx.socket(zmq.DEALER)
        for sock in (sub, req):
            sock.setsockopt(zmq.LINGER, 0)
            keys.secure_client(sock, self.curve)
        sub.setsockopt(zmq.SUBSCRIBE, b"")
        sub.setsockopt(zmq.RCVHWM, 0)
        sub.connect(f"tcp://{self.host}:{self.event_port}")
        req.connect(f"tcp://{self.host}:{self.port}")
        try:
            await self._sync(sub, req)
            await self._loop(sub, req)
        finally:
            sub.close(0)
            req.close(0)

    async def _request(self, req: zmq.asyncio.Socket, msg_type: str, body: dict[str, Any]
                       ) -> dict[str, Any]:
        request_id = next(self._ids)
        await req.send(wire.encode(msg_type, body, request_id))
        deadline = time.monotonic() + REQUEST_TIMEOUT
        while (left := deadline - time.monotonic()) > 0:
            if not await req.poll(left * 1000):
                break
            rtype, rid, rbody = wire.decode(await req.recv())
            if rid != request_id:
                continue
            if rtype == "error":
                raise Resync(f"{msg_type} refused: {rbody.get('message')}")
            return rbody
        raise Resync(f"no answer to {msg_type}")

    async def _sync(self, sub: zmq.asyncio.Socket, req: zmq.asyncio.Socket) -> None:
        await asyncio.sleep(0.05)  # let the subscription reach the publisher
        snap = await self._request(req, "snapshot", {})
        self.mirror = Mirror.from_snapshot(snap)
        parts = 1
        while snap.get("next") is not None:  # the other parts (qmaster.store.snapshot_part)
            snap = await self._request(req, "snapshot", {"after": snap["next"]})
            if snap.get("epoch") != self.mirror.epoch:
                raise Resync("qmaster restarted during the snapshot")
            self.mirror.add_part(snap)
            parts += 1
        self.inflight.clear()
        self._dirty = True
        self._last_beat = time.monotonic()
        self._log("mirror built", seq=self.mirror.seq, jobs=len(self.mirror.jobs),
                  parts=parts)

    async def _loop(self, sub: zmq.asyncio.Socket, req: zmq.asyncio.Socket) -> None:
        while not self._stop.is_set():
            timeout = self._next_wait()
            if await sub.poll(timeout * 1000):
                self._on_published(await sub.recv_multipart())
                while await sub.poll(0):
                    self._on_published(await sub.recv_multipart())
            if time.monotonic() - self._last_beat > HEARTBEAT_TIMEOUT:
                raise Resync("missed heartbeats")
            if time.monotonic() - self._last_ping >= PING_SECONDS and not self._stop.is_set():
                await self._request(req, "ping", {})  # (qmaster.event_clients: still here)
                self._last_ping = time.monotonic()
            if self._due():
                await self._pass(req)

    def _next_wait(self) -> float:
        if self._dirty:
            return max(0.0, self._last_pass + self.min_interval - time.monotonic())
        wait = min(1.0, max(0.0, self._last_pass + SAFETY_PASS_SECONDS - time.monotonic()))
        if self._wake_at is not None:
            wait = min(wait, max(0.0, self._wake_at - time.time()))
        return wait

    def _due(self) -> bool:
        if self._wake_at is not None and time.time() >= self._wake_at:
            self._wake_at = None  # the plan's next instant: what it planned may start now
            self._dirty = True
        now = time.monotonic()
        if now - self._last_pass >= SAFETY_PASS_SECONDS:
            return True
        return self._dirty and now - self._last_pass >= self.min_interval

    def _on_published(self, frames: list[bytes]) -> None:
        assert self.mirror is not None
        topic, payload = wire.decode_published(frames)
        if payload.get("epoch") != self.mirror.epoch:
            raise Resync("qmaster restarted")
        if topic == wire.TOPIC_SHUTDOWN:  # qconf -ks/-kt scheduler/-kec 1: as on SIGTERM
            self._log("stop requested by the qmaster")
            self.stop()
            return
        if topic == wire.TOPIC_HEARTBEAT:
            self._last_beat = time.monotonic()
            if int(payload.get("seq", 0)) > self.mirror.seq:
                raise Resync("events missed before heartbeat")
            return
        for event in payload.get("events", []):
            seq = int(event["seq"])
            if seq <= self.mirror.seq:
                continue
            if seq != self.mirror.seq + 1:
                raise Resync(f"gap in event sequence: {self.mirror.seq} -> {seq}")
            if self.mirror.apply(event):
                self._dirty = True
            self._settle_inflight(event)

    def _settle_inflight(self, event: dict[str, Any]) -> None:
        if event["kind"] == "task" and event["key"] in self.inflight:
            version = self.inflight[event["key"]][0]
            obj = event.get("obj") or {}
            if event["op"] == "del" or int(obj.get("version", 0)) > version:
                del self.inflight[event["key"]]
        elif event["kind"] == "order_refused":
            self.inflight.pop(event["key"], None)

    async def _pass(self, req: zmq.asyncio.Socket) -> None:
        assert self.mirror is not None
        self._dirty = False
        self._last_pass = time.monotonic()
        inflight_used: dict[tuple[str, str], int] = {}
        for _, granted, _ in self.inflight.values():
            for queue, host, slots in granted:
                inflight_used[(queue, host)] = inflight_used.get((queue, host), 0) + int(slots)
        policy = policy_conf(self.mirror.conf)
        # with planning on, a pass runs even when no slot is free now: it keeps the
        # reservations (qstat -j, the schedule file) and the timer of the next instant
        planning = policy.max_reservation > 0 or bool(self.mirror.ars)
        self._report_unreadable_ars()
        if not (self.mirror.has_pending() or (planning and policy.monitor)) or \
                (not planning and self.mirror.free_slots(inflight_used) <= 0
                 and not self.mirror.has_immediate_pending()):
            self._wake_at = None
            if policy.monitor:
                self._append_schedule(SEPARATOR + "\n")
            return
        stats = PassStats()
        try:
            inp = self.mirror.pass_input(exclude=set(self.inflight),
                                         inflight={k: (g, pe) for k, (_, g, pe)
                                                   in self.inflight.items()})
            for key, slots in inflight_used.items():
                inp.used[key] = inp.used.get(key, 0) + slots
            inp.order = self._policy_order(self.mirror.free_slots(inflight_used))
            orders = dispatch_pass(inp, stats)
            refused_now = not_scheduled(inp, orders)
            took = time.monotonic() - self._last_pass
            self._wake_at = next_instant(inp, stats, time.time())
            if policy.monitor:
                self._append_schedule(schedule_block(inp, stats.reservations, orders))
        except Exception as exc:  # noqa: BLE001 - a bad pass must not end the session:
            # restarting it would only meet the same data again; the next event retries
            if self.log:
                self.log.error("pass failed", error=repr(exc), exc_info=True)
            return
        finally:  # jobs the mirror could not read, and jobs the pass could not place
            self._report_unevaluable({**self.mirror.unreadable, **stats.unevaluable})
        self.passes += 1
        if not orders and not refused_now:  # logged, at most every 10 s: idle passes come often
            if time.monotonic() - self._last_empty_log >= SAFETY_PASS_SECONDS:
                self._last_empty_log = time.monotonic()
                self._log("pass", considered=stats.considered, orders=0,
                          reservations=len(stats.reservations), seconds=round(took, 4))
            return
        for order in orders:
            task_key = f"{order['job_id']}.{order['task_id']}"
            self.inflight[task_key] = (order["task_version"], order["granted"],
                                       order.get("pe"))
        body: dict[str, Any] = {"orders": orders, "pass_seconds": took}
        if refused_now:
            body["not_scheduled"] = refused_now
            self._log("immediate jobs not scheduled", job_ids=refused_now)
        reply = await self._request(req, "orders", body)
        for refused in reply.get("refused", []):
            order = refused.get("order") or {}
            self.inflight.pop(f"{order.get('job_id')}.{order.get('task_id')}", None)
            # e.g. a cap (maxujobs, -tc) the qmaster saw reached before this view did
            self._log("order refused", job_id=order.get("job_id"),
                      task_id=order.get("task_id"), reason=refused.get("reason"))
        self._log("pass", considered=stats.considered, orders=len(orders),
                  seconds=round(took, 4),
                  refused=len(reply.get("refused", [])))

    def _policy_order(self, free_slots: int) -> dict[int, int] | None:
        """The policy's order of the pending jobs now; None (``-p``, then job id) when the
        policy fails: a bug there must not stop every job from starting."""
        assert self.mirror is not None
        try:
            return order_ranks(self.mirror.policy(time.time(), free_slots))
        except Exception as exc:  # noqa: BLE001 - logged; the pass goes on without it
            if self.log:
                self.log.error("policy failed", error=repr(exc), exc_info=True)
            return None

    def _append_schedule(self, text: str) -> None:
        """Append one pass to the schedule file, as 8.1.9 does (never truncated: the
        administrator removes it); a full disk or a refused file must not stop
        dispatching (logged)."""
        if self.schedule_path is None:
            return
        try:
            append_regular(self.schedule_path, text)
        except OSError as err:
            if self.log:
                self.log.error("schedule file not written", path=str(self.schedule_path),
                               error=str(err))

    def _report_unreadable_ars(self) -> None:
        """Log each advance reservation whose record the pass cannot read, once: its
        slots are not guarded until a readable record comes."""
        assert self.mirror is not None
        for ar_id, why in self.mirror.unreadable_ars.items():
            if ar_id not in self._unreadable_ars and self.log:
                self.log.error("advance reservation skipped: unreadable record",
                               ar_id=ar_id, error=why)
        self._unreadable_ars = set(self.mirror.unreadable_ars)

    def _report_unevaluable(self, found: dict[int, str]) -> None:
        """Log each job the pass had to skip, once (until the scheduler restarts)."""
        for job_id, why in found.items():
            if job_id not in self.unevaluable and self.log:
                self.log.error("job skipped: the pass cannot evaluate it", job_id=job_id,
                               error=why)
            self.unevaluable[job_id] = why

    def _log(self, event: str, **kw: Any) -> None:
        if self.log:
            self.log.info(event, **kw)


_APPEND = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def append_regular(path: Path, text: str) -> None:
    """Append ``text`` in one write to ``path`` (made 0644 if missing), refusing what the
    qmaster's run log refuses (qmaster.sched_monitor.append_safely): a symbolic link, a
    FIFO or anything but a regular file, a file of another owner, a second hard link."""
    fd = os.open(path, _APPEND, 0o644)
    try:
        seen = os.fstat(fd)
        if not stat.S_ISREG(seen.st_mode) or seen.st_uid != os.geteuid() or \
                seen.st_nlink != 1:
            raise OSError(f"{path}: not a regular file of ours with one name")
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def next_instant(inp: PassInput, stats: PassStats, now: float) -> float | None:
    """The earliest future instant the plan changes at without an event: a reservation's
    start, an advance reservation's start or end, a pending job's ``-a`` time (None:
    none)."""
    times: Sequence[float] = [found.start for found in stats.reservations] + \
        [when for ar in inp.ars for when in (ar.start, ar.end)] + waiting_for_time(inp)
    future = [when for when in times if now < when < float("inf")]
    return min(future) if future else None
