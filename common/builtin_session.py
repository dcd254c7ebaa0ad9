"""The ``builtin`` transport of ``qrsh``, ``qlogin`` and ``qrsh -inherit``: the client
listens on a TCP port, the shepherd of its job (or of its parallel task) connects back,
both prove that they hold the session's token, and then frames carry the job's stdin,
stdout and stderr (kept apart), the terminal's size, signals and the exit status.

Why a token: anyone on the network can connect to the client's port, and anyone can
listen on a port and wait for a shepherd. The client makes ``TOKEN_BYTES`` random bytes,
sends them with the job over its authenticated link to the qmaster (the job option
``session``, never shown to anyone: ``qmaster`` strips it from every reply), and the
qmaster passes them to the execd in the start record (``common.start_record``:
``session``) over the CURVE link. The handshake is a mutual challenge-response, so
neither side ever sends the token and each proves itself to the other:

1. client -> shepherd: ``MAGIC`` + a fresh nonce ``nc``
2. shepherd -> client: a fresh nonce ``ns`` + HMAC-SHA256(token, "shepherd" ‖ nc ‖ ns)
3. client -> shepherd: HMAC-SHA256(token, "client" ‖ ns ‖ nc)

A peer that fails its proof is dropped (the client goes on listening for the real
shepherd, up to ``MAX_BAD_PEERS``); after the handshake the stream is not encrypted, as
Grid Engine's own builtin transport (docs/security.md says what that leaves open).

After the handshake each direction is a sequence of frames: one kind byte, a 4-byte
big-endian length, the payload (at most ``MAX_PAYLOAD`` bytes). The kinds:

- ``STDIN`` (client -> shepherd): bytes for the job's stdin; an empty payload is EOF.
- ``WINSIZE`` (client -> shepherd): rows, columns, x pixels, y pixels (``pack_winsize``).
- ``SIGNAL`` (client -> shepherd): a signal number for the job (``pack_signal``); only
  ``FORWARDED_SIGNALS`` are accepted.
- ``STDOUT``, ``STDERR`` (shepherd -> client): the job's output; with a pty both come as
  ``STDOUT``.
- ``EXIT`` (shepherd -> client): the exit status qrsh exits with (``pack_exit``), last.
- ``ERROR`` (shepherd -> client): a message (UTF-8) why the job could not be started;
  qrsh prints it and exits 1. Last.

Pure apart from ``listen``, ``accept_session`` and ``connect_session``, which use
blocking sockets with deadlines (no clock of their own beyond ``time.monotonic``).
"""
from __future__ import annotations

import hmac
import os
import select
import signal
import socket
import struct
import time
from dataclasses import dataclass, field
from hashlib import sha256

from common.jobspec import TOKEN_BYTES

MAGIC = b"PYGE-BUILTIN/1\n"
NONCE_BYTES = 16
MAC_BYTES = 32
MAX_PAYLOAD = 1 << 16
HANDSHAKE_SECONDS = 10.0  # one peer's whole handshake
MAX_BAD_PEERS = 64  # connections failing their proof before the client gives up

STDIN, STDOUT, STDERR = b"i", b"o", b"e"
WINSIZE, SIGNAL, EXIT, ERROR = b"w", b"s", b"x", b"!"
CLIENT_KINDS = frozenset({STDIN, WINSIZE, SIGNAL})
SHEPHERD_KINDS = frozenset({STDOUT, STDERR, EXIT, ERROR})
FORWARDED_SIGNALS = frozenset({signal.SIGHUP, signal.SIGINT, signal.SIGQUIT, signal.SIGTERM,
                               signal.SIGKILL, signal.SIGUSR1, signal.SIGUSR2,
                               signal.SIGTSTP, signal.SIGCONT, signal.SIGWINCH})

_HEADER = struct.Struct(">cI")
_WINSIZE = struct.Struct(">HHHH")
_SIGNAL = struct.Struct(">B")
_EXIT = struct.Struct(">B")


class SessionError(Exception):
    """A peer that broke the protocol or failed its proof; the connection is dropped."""


# ------------------------------------------------------------------- pure: the handshake

def new_token() -> bytes:
    """A fresh session token (the client's, sent with the job)."""
    return os.urandom(TOKEN_BYTES)


def _mac(token: bytes, role: bytes, first: bytes, second: bytes) -> bytes:
    return hmac.new(token, role + first + second, sha256).digest()


def client_hello() -> tuple[bytes, bytes]:
    """(what the client sends first, its nonce)."""
    nonce = os.urandom(NONCE_BYTES)
    return MAGIC + nonce, nonce


def shepherd_answer(token: bytes, hello: bytes) -> tuple[bytes, bytes]:
    """(the shepherd's answer to ``hello``, the client's nonce); SessionError when
    ``hello`` is not a client's hello."""
    if len(hello) != len(MAGIC) + NONCE_BYTES or not hello.startswith(MAGIC):
        raise SessionError("not a builtin session hello")
    client_nonce = hello[len(MAGIC):]
    nonce = os.urandom(NONCE_BYTES)
    return nonce + _mac(token, b"shepherd", client_nonce, nonce), client_nonce


def client_proof(token: bytes, client_nonce: bytes, answer: bytes) -> bytes:
    """The client's proof after checking the shepherd's ``answer``; SessionError when
    the shepherd does not hold the token."""
    if len(answer) != NONCE_BYTES + MAC_BYTES:
        raise SessionError("short answer")
    nonce, mac = answer[:NONCE_BYTES], answer[NONCE_BYTES:]
    if not hmac.compare_digest(mac, _mac(token, b"shepherd", client_nonce, nonce)):
        raise SessionError("the peer does not hold the session token")
    return _mac(token, b"client", nonce, client_nonce)


def check_client(token: bytes, client_nonce: bytes, answer: bytes, proof: bytes) -> None:
    """The shepherd's check of the client's ``proof`` (``answer`` is what it sent)."""
    nonce = answer[:NONCE_BYTES]
    if len(proof) != MAC_BYTES or \
            not hmac.compare_digest(proof, _mac(token, b"client", nonce, client_nonce)):
        raise SessionError("the client does not hold the session token")


# ---------------------------------------------------------------------- pure: frames

def frame(kind: bytes, payload: bytes = b"") -> bytes:
    """One frame; ValueError for a payload over ``MAX_PAYLOAD`` (split it first)."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError("payload too long")
    return _HEADER.pack(kind, len(payload)) + payload


def frames(kind: bytes, data: bytes) -> list[bytes]:
    """``data`` as frames of ``kind`` of at most ``MAX_PAYLOAD`` bytes (none for b"")."""
    return [frame(kind, data[i:i + MAX_PAYLOAD]) for i in range(0, len(data), MAX_PAYLOAD)]


@dataclass
class FrameReader:
    """Splits a byte stream into (kind, payload) frames, refusing kinds the peer may not
    send and payloads over ``MAX_PAYLOAD`` (so a peer's frame costs at most that)."""

    accepted: frozenset[bytes]
    _buffer: bytearray = field(default_factory=bytearray)

    def feed(self, data: bytes) -> list[tuple[bytes, bytes]]:
        self._buffer += data
        out = []
        while len(self._buffer) >= _HEADER.size:
            kind, length = _HEADER.unpack_from(self._buffer)
            if kind not in self.accepted:
                raise SessionError(f"unexpected frame kind {kind!r}")
            if length > MAX_PAYLOAD:
                raise SessionError("frame too long")
            end = _HEADER.size + length
            if len(self._buffer) < end:
                break
            out.append((kind, bytes(self._buffer[_HEADER.size:end])))
            del self._buffer[:end]
        return out

    @property
    def pending(self) -> int:
        """Bytes of an incomplete frame held."""
        return len(self._buffer)


def pack_winsize(rows: int, cols: int, xpixel: int = 0, ypixel: int = 0) -> bytes:
    return _WINSIZE.pack(rows, cols, xpixel, ypixel)


def unpack_winsize(payload: bytes) -> tuple[int, int, int, int]:
    if len(payload) != _WINSIZE.size:
        raise SessionError("bad window size")
    rows, cols, xpixel, ypixel = _WINSIZE.unpack(payload)
    return rows, cols, xpixel, ypixel


def pack_signal(signum: int) -> bytes:
    return _SIGNAL.pack(signum)


def unpack_signal(payload: bytes) -> int:
    """The signal a client asks for; SessionError for one not in ``FORWARDED_SIGNALS``."""
    if len(payload) != _SIGNAL.size:
        raise SessionError("bad signal")
    signum = _SIGNAL.unpack(payload)[0]
    if signum not in FORWARDED_SIGNALS:
        raise SessionError(f"signal {signum} is not forwarded")
    return signum


def pack_exit(status: int) -> bytes:
    """qrsh's exit status (0..255: 128 + n for a job killed by signal n, as a shell's)."""
    return _EXIT.pack(status & 0xFF)


def unpack_exit(payload: bytes) -> int:
    if len(payload) != _EXIT.size:
        raise SessionError("bad exit status")
    return _EXIT.unpack(payload)[0]


# ---------------------------------------------------------------- sockets: both ends

def listen(address: str = "") -> socket.socket:
    """The client's listening socket on an ephemeral port of ``address`` (all of the
    host's addresses by default: the execution host may reach it by any of them)."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.bind((address, 0))
    sock.listen(16)
    return sock


def _recv_exact(sock: socket.socket, count: int, deadline: float) -> bytes:
    data = b""
    while len(data) < count:
        left = deadline - time.monotonic()
        if left <= 0:
            raise SessionError("handshake timed out")
        ready, _, _ = select.select([sock], [], [], left)
        if not ready:
            continue
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise SessionError("peer closed during the handshake")
        data += chunk
    return data


def _client_handshake(conn: socket.socket, token: bytes) -> None:
    deadline = time.monotonic() + HANDSHAKE_SECONDS
    hello, nonce = client_hello()
    conn.sendall(hello)
    answer = _recv_exact(conn, NONCE_BYTES + MAC_BYTES, deadline)
    conn.sendall(client_proof(token, nonce, answer))


def accept_session(listener: socket.socket, token: bytes, timeout: float | None = None,
                   keep_waiting: object = None) -> socket.socket | None:
    """The client's end: the first connection whose peer proves it holds ``token``
    (peers that fail are closed; after ``MAX_BAD_PEERS`` of them SessionError), or None
    when ``timeout`` seconds pass first. ``keep_waiting``, if given, is called (no
    arguments) about every half second and stops the wait with None when it returns
    false (qrsh: the job was deleted before it started)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    bad = 0
    while True:
        wait = 0.5 if deadline is None else min(0.5, deadline - time.monotonic())
        if wait <= 0:
            return None
        ready, _, _ = select.select([listener], [], [], wait)
        if not ready:
            if callable(keep_waiting) and not keep_waiting():
                return None
            continue
        conn, _ = listener.accept()
        try:
            _client_handshake(conn, token)
        except (SessionError, OSError):
            conn.close()
            bad += 1
            if bad >= MAX_BAD_PEERS:
                raise SessionError("too many peers failed the session's proof") from None
            continue
        return conn


def connect_session(host: str, port: int, token: bytes,
                    timeout: float = HANDSHAKE_SECONDS) -> socket.socket:
    """The shepherd's end: connected to the client and both proven; SessionError (or
    OSError) when the client cannot be reached or does not hold ``token``."""
    conn = socket.create_connection((host, port), timeout=timeout)
    try:
        conn.settimeout(None)
        deadline = time.monotonic() + timeout
        hello = _recv_exact(conn, len(MAGIC) + NONCE_BYTES, deadline)
        answer, client_nonce = shepherd_answer(token, hello)
        conn.sendall(answer)
        check_client(token, client_nonce, answer, _recv_exact(conn, MAC_BYTES, deadline))
    except BaseException:
        conn.close()
        raise
    return conn
