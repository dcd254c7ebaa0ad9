"""The builtin transport's handshake and frames (common.builtin_session)."""
from __future__ import annotations

import socket
import threading

import pytest
from hypothesis import given, strategies as st

from common import builtin_session as bs


def _shepherd(port: int, token: bytes, out: dict[str, object]) -> None:
    try:
        out["conn"] = bs.connect_session("127.0.0.1", port, token, timeout=5)
    except (bs.SessionError, OSError) as err:
        out["error"] = err


def test_both_ends_prove_the_token() -> None:
    token = bs.new_token()
    listener = bs.listen("127.0.0.1")
    out: dict[str, object] = {}
    thread = threading.Thread(target=_shepherd, args=(listener.getsockname()[1], token, out))
    thread.start()
    conn = bs.accept_session(listener, token, timeout=5)
    thread.join()
    assert conn is not None and "conn" in out
    shepherd = out["conn"]
    assert isinstance(shepherd, socket.socket)
    shepherd.sendall(bs.frame(bs.STDOUT, b"hi") + bs.frame(bs.EXIT, bs.pack_exit(3)))
    reader = bs.FrameReader(bs.SHEPHERD_KINDS)
    got: list[tuple[bytes, bytes]] = []
    while len(got) < 2:
        got += reader.feed(conn.recv(100))
    assert got == [(bs.STDOUT, b"hi"), (bs.EXIT, bytes([3]))]
    for s in (conn, shepherd, listener):
        s.close()


def test_a_peer_without_the_token_is_dropped_and_the_client_keeps_listening() -> None:
    token = bs.new_token()
    listener = bs.listen("127.0.0.1")
    port = listener.getsockname()[1]
    impostor: dict[str, object] = {}
    real: dict[str, object] = {}
    first = threading.Thread(target=_shepherd, args=(port, bs.new_token(), impostor))
    first.start()
    first.join(timeout=0)  # (connects before the real one: accepted first)

    def later() -> None:
        first.join()
        _shepherd(port, token, real)
    second = threading.Thread(target=later)
    second.start()
    conn = bs.accept_session(listener, token, timeout=10)
    second.join()
    assert conn is not None
    assert isinstance(impostor.get("error"), (bs.SessionError, OSError))
    assert "conn" in real
    for s in (conn, real["conn"], listener):
        s.close()  # type: ignore[union-attr]


def test_a_client_without_the_token_is_refused_by_the_shepherd() -> None:
    token = bs.new_token()
    hello, nonce = bs.client_hello()
    answer, client_nonce = bs.shepherd_answer(token, hello)
    with pytest.raises(bs.SessionError):
        bs.client_proof(bs.new_token(), nonce, answer)  # the shepherd fails the client's check
    proof = bs.client_proof(token, nonce, answer)
    bs.check_client(token, client_nonce, answer, proof)
    with pytest.raises(bs.SessionError):
        bs.check_client(token, client_nonce, answer, bytes(len(proof)))


def test_accept_gives_up_after_its_timeout() -> None:
    listener = bs.listen("127.0.0.1")
    assert bs.accept_session(listener, bs.new_token(), timeout=0.05) is None
    assert bs.accept_session(listener, bs.new_token(), keep_waiting=lambda: False) is None
    listener.close()


def test_frames_refuse_what_the_peer_may_not_send() -> None:
    with pytest.raises(bs.SessionError):
        bs.FrameReader(bs.CLIENT_KINDS).feed(bs.frame(bs.EXIT, b"\x00"))
    with pytest.raises(bs.SessionError):
        bs.FrameReader(bs.CLIENT_KINDS).feed(b"i" + (bs.MAX_PAYLOAD + 1).to_bytes(4, "big"))
    with pytest.raises(bs.SessionError):
        bs.unpack_signal(bytes([9 + 100]))
    assert bs.unpack_signal(bs.pack_signal(2)) == 2
    assert bs.unpack_winsize(bs.pack_winsize(24, 80)) == (24, 80, 0, 0)


@given(st.lists(st.tuples(st.sampled_from(sorted(bs.SHEPHERD_KINDS)),
                          st.binary(max_size=300))), st.integers(1, 50))
def test_frames_survive_any_split(items: list[tuple[bytes, bytes]], cut: int) -> None:
    stream = b"".join(bs.frame(k, p) for k, p in items)
    reader = bs.FrameReader(bs.SHEPHERD_KINDS)
    got = []
    for i in range(0, len(stream), cut):
        got += reader.feed(stream[i:i + cut])
    assert got == items and reader.pending == 0
