"""The web view's HTTP routes, in-process on loopback (clients.web.server): the page and
its files, the JSON routes, the event stream and the bounds (GET only, head size and
time, number of streams)."""
from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from clients.api import ClientError
from clients.web import server as web_server
from clients.web.server import HttpError, WebServer, parse_head
from clients.web.state import WebState

CLUSTER = {"hosts": [{"name": "h1", "alive": True, "load": {"load_avg": "0.5"}}],
           "instances": [{"queue": "all.q", "host": "h1", "slots": 4, "qtype": "BATCH",
                          "alive": True, "states": ""}]}


def make_state() -> WebState:
    st = WebState()
    st.reset({"jobs": [{"job_id": 7, "owner": "ann", "opts": {"job_name": "<b>x</b>"}}],
              "ranges": [{"job_id": 7, "pending": [[1, 1, 1]]}]}, CLUSTER, "e:1")
    st.sample(100.0)
    return st


def run(test: Callable[[WebServer, int], Awaitable[None]], state: WebState | None = None,
        explain: Callable[[int], list[str] | None] | None = None) -> None:
    async def main() -> None:
        server = WebServer(state or make_state(), threading.Lock(),
                           explain or (lambda job_id: ["why"] if job_id == 7 else None))
        await server.start("127.0.0.1", 0)
        assert server.address is not None
        try:
            await asyncio.wait_for(test(server, server.address[1]), 20)
        finally:
            await server.stop()
    asyncio.run(main())


async def fetch(port: int, raw: bytes) -> tuple[int, dict[str, str], bytes]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(raw)
    await writer.drain()
    data = await reader.read()
    writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split(" ")[1]), headers, body


def get(path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode()


def test_the_request_line_is_read_and_only_get_is_served() -> None:
    request = parse_head(b"GET /api/why?job=12&x=1 HTTP/1.1\r\nHost: a\r\n\r\n")
    assert (request.method, request.path, request.query) == \
        ("GET", "/api/why", {"job": ["12"], "x": ["1"]})
    for head, code in [(b"POST / HTTP/1.1\r\n\r\n", 405), (b"HEAD / HTTP/1.1\r\n\r\n", 405),
                       (b"GET /\r\n\r\n", 400), (b"GET http://evil/ HTTP/1.1\r\n\r\n", 400),
                       (b"GET / SPDY/3\r\n\r\n", 400), (b"GET  / HTTP/1.1\r\n\r\n", 400)]:
        with pytest.raises(HttpError) as err:
            parse_head(head)
        assert err.value.code == code, head


def test_the_page_and_its_files_are_served_with_a_strict_policy() -> None:
    async def test(server: WebServer, port: int) -> None:
        code, headers, body = await fetch(port, get("/"))
        assert code == 200 and headers["Content-Type"].startswith("text/html")
        assert b'src="/app.js"' in body and b"http" not in body.replace(b"http-equiv", b"")
        assert headers["Content-Security-Policy"].startswith("default-src 'self'")
        assert headers["X-Content-Type-Options"] == "nosniff"
        code, headers, body = await fetch(port, get("/app.js"))
        assert code == 200 and b"EventSource" in body and b"innerHTML" not in body
        code, _, _ = await fetch(port, get("/style.css"))
        assert code == 200
        code, _, body = await fetch(port, get("/../../etc/passwd"))
        assert code == 404
    run(test)


def test_the_state_route_gives_the_snapshot_and_the_samples() -> None:
    async def test(server: WebServer, port: int) -> None:
        code, headers, body = await fetch(port, get("/api/state"))
        data = json.loads(body)
        assert code == 200 and headers["Content-Type"] == "application/json"
        assert [r["name"] for r in data["pending"]] == ["<b>x</b>"]
        assert data["counts"]["jobs_pending"] == 1 and data["history"] == [[100.0, 0, 1]]
    run(test)


def test_why_reads_a_pending_job_and_refuses_anything_else() -> None:
    async def test(server: WebServer, port: int) -> None:
        code, _, body = await fetch(port, get("/api/why?job=7"))
        assert code == 200 and json.loads(body) == {"job_id": 7, "reasons": ["why"]}
        code, _, body = await fetch(port, get("/api/why?job=8"))
        assert code == 404 and b"job 8 does not wait" in body
        for query in ("", "?job=x", "?job=1&job=2", "?job=-1", "?job=1234567890123"):
            code, _, _ = await fetch(port, get(f"/api/why{query}"))
            assert code == 400, query
    run(test)


def test_other_methods_and_paths_are_refused() -> None:
    async def test(server: WebServer, port: int) -> None:
        code, headers, _ = await fetch(port, b"POST /api/state HTTP/1.1\r\n\r\n")
        assert code == 405 and headers["Allow"] == "GET"
        code, _, _ = await fetch(port, get("/nowhere"))
        assert code == 404
    run(test)


def test_an_oversized_or_slow_head_gets_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(web_server, "HEAD_SECONDS", 0.2)

    async def test(server: WebServer, port: int) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET / HTTP/1.1\r\nX: " + b"a" * (web_server.MAX_HEAD_BYTES + 10))
        await writer.drain()
        assert await reader.read() == b""
        writer.close()
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET / HTTP/1.1\r\n")  # and no more
        assert await reader.read() == b""
        writer.close()
    run(test)


async def read_event(reader: asyncio.StreamReader) -> tuple[str, Any]:
    block = (await reader.readuntil(b"\n\n")).decode()
    fields = dict(line.split(": ", 1) for line in block.strip().split("\n")
                  if not line.startswith(":"))
    return fields["event"], json.loads(fields["data"])


def test_the_stream_pushes_the_state_at_once_and_after_each_change() -> None:
    st = make_state()

    async def test(server: WebServer, port: int) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(get("/events"))
        head = await reader.readuntil(b"\r\n\r\n")
        assert b"200 OK" in head and b"Content-Type: text/event-stream" in head
        assert await read_event(reader) == ("history", [[100.0, 0, 1]])
        kind, first = await read_event(reader)
        assert kind == "state" and first["counts"]["jobs_pending"] == 1
        assert first["sample"] == [100.0, 0, 1]
        with server.lock:
            st.apply({"seq": 2, "kind": "job", "op": "del", "job_id": 7})
        server.notifier()()  # (as the follower's threads call it)
        kind, second = await read_event(reader)
        assert kind == "state" and second["pending"] == [] and second["version"] > first["version"]
        writer.close()
    run(test, st)


def test_streams_are_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(web_server, "MAX_STREAMS", 1)

    async def test(server: WebServer, port: int) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(get("/events"))
        await read_event_after_head(reader)
        code, headers, body = await fetch(port, get("/events"))
        assert code == 503 and b"1 streams are open already" in body
        writer.close()
        await asyncio.sleep(0)
    run(test)


async def read_event_after_head(reader: asyncio.StreamReader) -> None:
    await reader.readuntil(b"\r\n\r\n")
    await read_event(reader)


def test_snapshots_are_made_at_most_once_per_push_period_and_late_changes_are_pushed() -> None:
    st = make_state()

    async def test(server: WebServer, port: int) -> None:
        first = server.current()
        with server.lock:
            st.apply({"seq": 2, "kind": "job", "op": "del", "job_id": 7})
        again = server.current()  # (within PUSH_SECONDS: the one made, and a wake later)
        assert again is first and server._wake_pending
        await asyncio.sleep(web_server.PUSH_SECONDS * 1.5)
        assert not server._wake_pending
        assert server.current()["version"] > first["version"]
    run(test, st)


def test_why_says_when_the_qmaster_cannot_be_read() -> None:
    def explain(job_id: int) -> list[str] | None:
        raise ClientError("unreachable", "unable to contact qmaster")

    async def test(server: WebServer, port: int) -> None:
        code, _, body = await fetch(port, get("/api/why?job=7"))
        assert code == 503 and body == b"unable to contact qmaster\n"
    run(test, explain=explain)
