"""Where an execd spools when it is not told (``--spool``): ``execd_spool_dir`` of its
host's configuration (host-local over global) and its host name, asked of the qmaster
before anything else, as 8.1.9's execd reads its configuration first.

The one request (``execd_conf``) goes over the execd's own CURVE connection; it is sent
again every ``RETRY_SECONDS`` until the qmaster answers (it may be starting), as the
execd waits for ``act_qmaster`` already: an execd must not guess its spool, which holds
the jobs it runs.
"""
from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any, Callable

from common import keys, wire

RETRY_SECONDS = 2.0


class SpoolConfError(Exception):
    """The qmaster refused to say (the message says why)."""


def fetch_spool(qmaster: str, port: int, curve: keys.ClientKeys, host: str,
                log: Callable[[str], None] | None = None) -> Path:
    """The spool directory of ``host``'s execd, as the qmaster's configuration says."""
    import zmq
    ctx = zmq.Context()
    sock = ctx.socket(zmq.DEALER)
    try:
        keys.secure_client(sock, curve)
        sock.setsockopt(zmq.LINGER, 0)
        sock.connect(f"tcp://{qmaster}:{port}")
        for attempt in itertools.count(1):
            sock.send(wire.encode("execd_conf", {"host": host}, attempt))
            if sock.poll(int(RETRY_SECONDS * 1000)):
                reply = _answer(sock, attempt)
                if reply is not None:
                    return Path(str(reply["spool"]))
            elif log is not None and attempt == 3:
                log(f"waiting for the qmaster at {qmaster}:{port} to say where to spool")
        raise AssertionError("unreachable")
    finally:
        sock.close(0)
        ctx.term()


def _answer(sock: Any, request_id: int) -> dict[str, Any] | None:
    """The reply to ``request_id`` among what arrived (older attempts' replies skipped)."""
    import zmq
    while sock.poll(0):
        msg_type, rid, body = wire.decode(sock.recv(zmq.NOBLOCK))
        if msg_type == "error":
            raise SpoolConfError(str(body.get("message", "refused")))
        if msg_type == "reply" and rid == request_id:
            return body
    return None
