"""A minimal ZMTP 3 DEALER over a plain TCP socket, for short-lived clients.

Importing pyzmq costs a command-line client about a third of its start-up time; a
client that sends one request and reads one reply needs only a sliver of ZeroMQ's wire
protocol (ZMTP 3.0, RFC 23, NULL security): the 64-byte greeting, the READY handshake
with ``Socket-Type: DEALER``, and single-frame messages. The qmaster's ROUTER cannot tell
this peer from a pyzmq DEALER. Daemons keep using pyzmq.

Clients on the qmaster's host connect to its Unix-domain socket (``unix_path``): the
qmaster learns who they are from the kernel, so NULL security is all they need. A
refusal during the handshake (ZMTP's ERROR command) is raised with its reason.

Only ``_socket``, the C module under ``socket``, is imported at start-up: ``socket`` itself
builds enums of every constant and loads ``selectors`` (about 2 ms of each command's
start). The TCP path, which needs ``create_connection``, imports it when it is taken.
"""
from __future__ import annotations

import _socket
import os
import time

SIGNATURE = b"\xff" + b"\x00" * 8 + b"\x7f"
GREETING = SIGNATURE + b"\x03\x00" + b"NULL".ljust(20, b"\x00") + b"\x00" + b"\x00" * 31
FLAG_MORE, FLAG_LONG, FLAG_COMMAND = 0x01, 0x02, 0x04
MAX_FRAME = 256 * 1024 * 1024


class ZmtpError(ConnectionError):
    """The peer broke the protocol or the connection."""


class ZmtpClosed(ZmtpError):
    """The peer closed the connection (end of file): nothing else went wrong."""


def _ready_command() -> bytes:
    """READY with our socket type and a routing id of 16 random bytes: the qmaster
    answers by routing id, and one that libzmq made up for us would be a counter that
    another peer could claim first (docs/security.md)."""
    body = b"\x05READY"
    for name, value in ((b"Socket-Type", b"DEALER"),
                        (b"Identity", b"c" + os.urandom(16))):
        body += bytes([len(name)]) + name + len(value).to_bytes(4, "big") + value
    return _frame(body, FLAG_COMMAND)


def _frame(body: bytes, flags: int = 0) -> bytes:
    if len(body) > 255:
        return bytes([flags | FLAG_LONG]) + len(body).to_bytes(8, "big") + body
    return bytes([flags, len(body)]) + body


class Dealer:
    """One connection to a ROUTER; ``request`` sends a message and returns the next reply."""

    def __init__(self, host: str, port: int, timeout: float, *,
                 unix_path: str | None = None) -> None:
        self.sock: _socket.socket
        if unix_path is None:
            import socket  # (only the TCP path needs create_connection)
            self.sock = socket.create_connection((host, port), timeout=timeout)
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        else:
            self.sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
            self.sock.settimeout(timeout)
            try:
                self.sock.connect(unix_path)
            except OSError:
                self.sock.close()
                raise
        self._buf = b""
        self._deadline = time.monotonic() + timeout
        self.sock.sendall(GREETING + _ready_command())
        greeting = self._read(64)
        if greeting[0] != 0xFF or greeting[9] & 0x01 != 0x01 or greeting[10] < 3:
            raise ZmtpError("peer is not a ZMTP 3 endpoint")
        flags, body = self._read_frame()
        if flags & FLAG_COMMAND and body.startswith(b"\x05ERROR") and len(body) > 6:
            reason = body[7:7 + body[6]].decode(errors="replace")
            raise ZmtpError(f"connection refused by the qmaster: {reason}")
        if not flags & FLAG_COMMAND or not body.startswith(b"\x05READY"):
            raise ZmtpError("peer did not complete the handshake")

    def send(self, payload: bytes) -> None:
        self.sock.sendall(_frame(payload))

    def recv(self, timeout: float) -> bytes:
        """The next complete message (its frames joined), or TimeoutError."""
        self._deadline = time.monotonic() + timeout
        parts: list[bytes] = []
        while True:
            flags, body = self._read_frame()
            if flags & FLAG_COMMAND:
                continue  # e.g. PING; nothing a one-request client must answer
            parts.append(body)
            if not flags & FLAG_MORE:
                return b"".join(parts) if len(parts) == 1 else parts[-1]

    def buffered(self) -> bool:
        """Whether bytes already read wait here (the socket may then have nothing more
        to read, though a message is at hand): a caller that selects on ``sock`` before
        ``recv`` asks this first."""
        return bool(self._buf)

    def close(self) -> None:
        self.sock.close()

    def _read_frame(self) -> tuple[int, bytes]:
        flags = self._read(1)[0]
        if flags & FLAG_LONG:
            size = int.from_bytes(self._read(8), "big")
        else:
            size = self._read(1)[0]
        if size > MAX_FRAME:
            raise ZmtpError(f"frame of {size} bytes is too large")
        return flags, self._read(size)

    def _read(self, count: int) -> bytes:
        while len(self._buf) < count:
            left = self._deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer in time")
            self.sock.settimeout(left)
            chunk = self.sock.recv(max(65536, count - len(self._buf)))
            if not chunk:
                raise ZmtpClosed("connection closed by the peer")
            self._buf += chunk
        data, self._buf = self._buf[:count], self._buf[count:]
        return data
