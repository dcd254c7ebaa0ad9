"""The web view's HTTP/1.1 server (asyncio, one request per connection, GET only).

Routes: ``/`` and the page's static files (package data, ``static/``), ``/api/state``
(the snapshot and the plot's samples as JSON), ``/api/why?job=N`` (a pending job's
``qstat -j`` reasons, read on demand) and ``/events``, the Server-Sent Events stream: a
``state`` event at once and after every change (at most every ``PUSH_SECONDS``), a
comment line every ``KEEPALIVE_SECONDS`` when nothing changes.

Bounds: a request head is at most ``MAX_HEAD_BYTES`` and must come within
``HEAD_SECONDS``; at most ``MAX_STREAMS`` streams and ``MAX_CONNECTIONS`` connections
at once (more get 503, or are closed); a stream whose reader does not take what is sent
within ``WRITE_SECONDS`` is closed. A snapshot is made and encoded at most once per
``PUSH_SECONDS``, whatever the number of streams.
"""
from __future__ import annotations

import asyncio
import json
import threading
import time
from importlib import resources
from typing import Any, Callable

from clients.api import ClientError
from clients.web.state import WebState
from common import http_lite
from common.http_lite import MAX_HEAD_BYTES, HttpError, Request, parse_head
HEAD_SECONDS = 5.0
MAX_STREAMS = 64
MAX_CONNECTIONS = 128
WRITE_SECONDS = 10.0
PUSH_SECONDS = 0.25
KEEPALIVE_SECONDS = 15.0
STATIC = {"/": ("index.html", "text/html; charset=utf-8"),
          "/app.js": ("app.js", "text/javascript; charset=utf-8"),
          "/style.css": ("style.css", "text/css; charset=utf-8")}
SECURITY_HEADERS = ("X-Content-Type-Options: nosniff\r\n"
                    "Content-Security-Policy: default-src 'self'; img-src 'self' data:\r\n"
                    "Referrer-Policy: no-referrer\r\nX-Frame-Options: DENY\r\n")


def response(code: int, reason: str, content_type: str, body: bytes, extra: str = "") -> bytes:
    return http_lite.response(code, reason, content_type, body,
                              f"Cache-Control: no-store\r\n{SECURITY_HEADERS}{extra}")


def json_response(data: Any) -> bytes:
    return response(200, "OK", "application/json", json.dumps(data).encode())


def static_files() -> dict[str, tuple[bytes, str]]:
    """The page's files from the package (read once)."""
    folder = resources.files("clients.web") / "static"
    return {route: ((folder / name).read_bytes(), ctype)
            for route, (name, ctype) in STATIC.items()}


class WebServer:
    """Serves ``state`` (guarded by ``lock``); ``explain(job_id)`` reads one job's
    reasons (blocking: run in a thread). ``wake`` must be called in the loop after each
    change (``notifier`` gives a function that any thread may call)."""

    def __init__(self, state: WebState, lock: threading.Lock,
                 explain: Callable[[int], list[str] | None]) -> None:
        self.state, self.lock, self.explain = state, lock, explain
        self.files = static_files()
        self._server: asyncio.base_events.Server | None = None
        self._connections = 0
        self._streams: set[asyncio.Queue[None]] = set()
        self._encoded: tuple[int, bytes] | None = None
        self._snapshot: dict[str, Any] | None = None
        self._snapshot_at = 0.0
        self._wake_pending = False
        self.address: tuple[str, int] | None = None

    async def start(self, bind: str, port: int) -> None:
        self._server = await asyncio.start_server(self._serve, bind, port,
                                                  limit=MAX_HEAD_BYTES)
        self.address = self._server.sockets[0].getsockname()[:2]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            for queue in self._streams:
                queue.put_nowait(None) if queue.empty() else None
            self._server = None

    def notifier(self) -> Callable[[], None]:
        loop = asyncio.get_running_loop()

        def notify() -> None:
            try:
                loop.call_soon_threadsafe(self.wake)
            except RuntimeError:
                pass  # the loop is closed: the process is ending
        return notify

    def wake(self) -> None:
        for queue in self._streams:
            if queue.empty():
                queue.put_nowait(None)

    # ---- one connection --------------------------------------------------------------
    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._connections >= MAX_CONNECTIONS:
            writer.close()
            return
        self._connections += 1
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), HEAD_SECONDS)
            try:
                request = parse_head(head)
                if request.path == "/events":
                    await self._stream(writer)
                    return
                answer = await self._answer(request)
            except HttpError as err:
                answer = http_lite.error_response(err, SECURITY_HEADERS)
            writer.write(answer)
            await asyncio.wait_for(writer.drain(), WRITE_SECONDS)
        except (asyncio.TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError,
                ConnectionError):
            pass  # a slow, short or oversized request, or a reader gone: nothing more
        finally:
            self._connections -= 1
            writer.close()

    async def _answer(self, request: Request) -> bytes:
        if request.path in self.files:
            body, ctype = self.files[request.path]
            return response(200, "OK", ctype, body)
        if request.path == "/api/state":
            snap = self.current()
            with self.lock:
                history = self.state.history_lists()
            return json_response({**snap, "history": history})
        if request.path == "/api/why":
            return json_response(await self._why(request))
        raise HttpError(404, "Not Found", "not found\n")

    async def _why(self, request: Request) -> dict[str, Any]:
        values = request.query.get("job", [])
        if len(values) != 1 or not values[0].isdigit() or len(values[0]) > 12:
            raise HttpError(400, "Bad Request", "job=N: one job id\n")
        job_id = int(values[0])
        try:
            reasons = await asyncio.to_thread(self.explain, job_id)
        except ClientError as err:
            raise HttpError(503, "Service Unavailable", f"{err.message}\n") from None
        if reasons is None:
            raise HttpError(404, "Not Found", f"job {job_id} does not wait\n")
        return {"job_id": job_id, "reasons": reasons}

    # ---- the event stream ------------------------------------------------------------
    async def _stream(self, writer: asyncio.StreamWriter) -> None:
        if len(self._streams) >= MAX_STREAMS:
            raise HttpError(503, "Service Unavailable",
                            f"{MAX_STREAMS} streams are open already\n", "Retry-After: 10\r\n")
        queue: asyncio.Queue[None] = asyncio.Queue(maxsize=1)
        self._streams.add(queue)
        try:
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                         b"Cache-Control: no-store\r\nConnection: close\r\n" +
                         SECURITY_HEADERS.encode() + b"\r\n" + self._history_event())
            await asyncio.wait_for(writer.drain(), WRITE_SECONDS)
            while self._server is not None:
                writer.write(self._state_event())
                await asyncio.wait_for(writer.drain(), WRITE_SECONDS)
                while True:
                    try:
                        await asyncio.wait_for(queue.get(), KEEPALIVE_SECONDS)
                        break
                    except asyncio.TimeoutError:
                        writer.write(b": keepalive\n\n")
                        await asyncio.wait_for(writer.drain(), WRITE_SECONDS)
                await asyncio.sleep(PUSH_SECONDS)  # changes that come together, pushed once
        finally:
            self._streams.discard(queue)

    def _history_event(self) -> bytes:
        with self.lock:
            history = self.state.history_lists()
        return b"event: history\ndata: " + json.dumps(history).encode() + b"\n\n"

    def current(self) -> dict[str, Any]:
        """The snapshot (with the plot's last ``sample``), made at most once per
        PUSH_SECONDS however many streams and requests ask; a stream given one older
        than the state is woken again then."""
        now = time.monotonic()
        with self.lock:
            version = self.state.version
            if self._snapshot is not None and self._snapshot["version"] != version \
                    and now - self._snapshot_at < PUSH_SECONDS:
                self._wake_later()
            elif self._snapshot is None or self._snapshot["version"] != version:
                snap = self.state.snapshot()
                history = self.state.history
                snap["sample"] = history[-1].to_list() if history else None
                self._snapshot, self._snapshot_at = snap, now
            return self._snapshot

    def _state_event(self) -> bytes:
        """The snapshot as an SSE event, encoded once for all streams."""
        snap = self.current()
        if self._encoded is None or self._encoded[0] != snap["version"]:
            self._encoded = (snap["version"],
                             b"event: state\ndata: " + json.dumps(snap).encode() + b"\n\n")
        return self._encoded[1]

    def _wake_later(self) -> None:
        if not self._wake_pending:
            self._wake_pending = True
            asyncio.get_running_loop().call_later(PUSH_SECONDS, self._late_wake)

    def _late_wake(self) -> None:
        self._wake_pending = False
        self.wake()
