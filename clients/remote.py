"""A client's connection to a qmaster on another host: CURVE-encrypted, MUNGE-signed.

Clients on the qmaster's host use its Unix socket (``common.zmtp``), where the kernel
says who they are. From elsewhere, the connection is a CURVE client of the qmaster's
TCP port with a key made for this connection only: CURVE encrypts the traffic and makes
the qmaster prove its key (read from ``<cell>/common/keys/qmaster.key``), and every
request travels with a MUNGE credential of its digest (``wire.credential_payload``),
from which the qmaster takes the user's uid and gid (qmaster.gate). Importing pyzmq is
paid only here, by remote clients.
"""
from __future__ import annotations

import time

import zmq

from common import keys, munge, wire


class RemoteError(ConnectionError):
    """No credential could be made, or the connection failed."""


class RemoteDealer:
    """The same interface as ``common.zmtp.Dealer``: ``send``, ``recv``, ``answered``,
    ``close``."""

    def __init__(self, host: str, port: int, qmaster_key: bytes, timeout: float,
                 munge_socket: str | None = None) -> None:
        self._munge_socket = munge_socket
        self._ctx = zmq.Context.instance()
        self._sock = self._ctx.socket(zmq.DEALER)
        # a key pair of this connection's only; a random routing id (keys.secure_client)
        keys.secure_client(self._sock, keys.ClientKeys(keys.new_pair(), qmaster_key))
        self._sock.setsockopt(zmq.LINGER, 0)
        self._sock.setsockopt(zmq.MAXMSGSIZE, wire.MAX_MESSAGE_BYTES)
        self._sock.connect(f"tcp://{host}:{port}")

    def send(self, payload: bytes) -> None:
        try:
            credential = munge.encode(wire.credential_payload(payload),
                                      socket=self._munge_socket)
        except munge.MungeError as err:
            raise RemoteError(f"can't make a MUNGE credential: {err.message}") from None
        self._sock.send_multipart([credential, payload])

    def recv(self, timeout: float) -> bytes:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            if self._sock.poll(int(left * 1000) + 1):
                return self._sock.recv_multipart()[-1]
        raise TimeoutError("no answer in time")

    def answered(self, timeout: float) -> bool:
        # (a negative timeout would make zmq wait for ever)
        return bool(self._sock.poll(max(0, int(timeout * 1000))))

    def close(self) -> None:
        self._sock.close(0)
