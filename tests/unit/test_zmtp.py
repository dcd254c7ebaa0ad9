"""The minimal ZMTP DEALER against a real pyzmq ROUTER: handshake, small and large frames."""
from __future__ import annotations

import threading

import pytest
import zmq

from common.zmtp import Dealer, ZmtpError


def echo_router(sock: zmq.Socket, count: int) -> None:
    for _ in range(count):
        identity, payload = sock.recv_multipart()
        sock.send_multipart([identity, payload[::-1]])


@pytest.mark.parametrize("size", [0, 1, 255, 256, 70_000, 3_000_000])
def test_round_trip_through_a_router(size: int) -> None:
    ctx = zmq.Context.instance()
    router = ctx.socket(zmq.ROUTER)
    router.setsockopt(zmq.LINGER, 0)
    port = router.bind_to_random_port("tcp://127.0.0.1")
    server = threading.Thread(target=echo_router, args=(router, 2), daemon=True)
    server.start()
    try:
        dealer = Dealer("127.0.0.1", port, timeout=5)
        payload = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
        for _ in range(2):
            dealer.send(payload)
            assert dealer.recv(5) == payload[::-1]
        dealer.close()
        server.join(5)
    finally:
        router.close(0)


def test_refuses_a_peer_that_is_not_zmtp() -> None:
    import socket
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]

    def talk_nonsense() -> None:
        conn, _ = listener.accept()
        conn.sendall(b"HTTP/1.0 400 Bad Request\r\n" + b"x" * 64)
        conn.close()

    threading.Thread(target=talk_nonsense, daemon=True).start()
    with pytest.raises(ZmtpError):
        Dealer("127.0.0.1", port, timeout=5)
    listener.close()


def test_no_answer_is_a_timeout() -> None:
    ctx = zmq.Context.instance()
    router = ctx.socket(zmq.ROUTER)
    router.setsockopt(zmq.LINGER, 0)
    port = router.bind_to_random_port("tcp://127.0.0.1")
    try:
        dealer = Dealer("127.0.0.1", port, timeout=5)
        dealer.send(b"hello")
        with pytest.raises(TimeoutError):
            dealer.recv(0.2)
        dealer.close()
    finally:
        router.close(0)
