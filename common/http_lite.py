"""The small HTTP/1.1 of the read-only endpoints (the qmaster's /metrics, the web view):
one request per connection, a bounded head, answers built whole.

Pure: the parse of a request head and the bytes of an answer. The servers (qmaster.metrics,
clients.web.server) read the head with asyncio within their own bounds and close the
connection after the answer.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import parse_qs, unquote, urlsplit

MAX_HEAD_BYTES = 8192  # a longer request head is not read (the connection is closed)
MAX_QUERY_FIELDS = 8
HEAD_END = b"\r\n\r\n"


class HttpError(Exception):
    """A request refused with ``code`` (the answer's ``text``, ``extra`` header lines)."""

    def __init__(self, code: int, reason: str, text: str, extra: str = "") -> None:
        super().__init__(text)
        self.code, self.reason, self.text, self.extra = code, reason, text, extra


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    query: dict[str, list[str]] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)  # names in lower case


def parse_head(head: bytes, methods: tuple[str, ...] = ("GET",)) -> Request:
    """The request of an HTTP/1.x head; HttpError for a malformed one (400), another
    method than ``methods`` (405) or a target that is no path (400)."""
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise HttpError(400, "Bad Request", "bad request\n")
    method, target, _ = parts
    if method not in methods:
        raise HttpError(405, "Method Not Allowed", f"only {', '.join(methods)}\n",
                        f"Allow: {', '.join(methods)}\r\n")
    split = urlsplit(target)
    if split.scheme or split.netloc or not split.path.startswith("/"):
        raise HttpError(400, "Bad Request", "bad request target\n")
    headers = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if sep:
            headers[name.strip().lower()] = value.strip()
    return Request(method, unquote(split.path),
                   parse_qs(split.query, max_num_fields=MAX_QUERY_FIELDS), headers)


def response(code: int, reason: str, content_type: str, body: bytes, extra: str = "", *,
             length: int | None = None) -> bytes:
    """A whole answer; ``length`` tells another Content-Length than the body's (HEAD)."""
    head = (f"HTTP/1.1 {code} {reason}\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {len(body) if length is None else length}\r\n"
            f"Connection: close\r\n{extra}\r\n")
    return head.encode() + body


def error_response(err: HttpError, extra: str = "") -> bytes:
    return response(err.code, err.reason, "text/plain; charset=utf-8", err.text.encode(),
                    err.extra + extra)
