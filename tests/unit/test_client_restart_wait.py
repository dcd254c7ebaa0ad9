"""A client on the qmaster's host waits for a restarting qmaster on its Unix socket and
never goes to the CURVE port instead (issue 26, item 8): from there its request would
come from a loopback address, a host no host list names, and be refused. Elsewhere (a
shared cell directory) a socket that does not answer still means: go remote.

The connections are stand-ins: what is tested is which way the client takes and when it
tries again; tests/integration/test_restart_answers.py does it against a live qmaster.
"""
from __future__ import annotations

import _socket
from pathlib import Path
from typing import Any

import pytest

from clients import api
from clients.api import Client, ClientError, is_own_host
from common.cell import Cell
from common.zmtp import ZmtpClosed, ZmtpError


# ---- whose host --------------------------------------------------------------------

def _can_bind(family: int, address: str) -> bool:
    import socket
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.bind((address, 0))
    except OSError:
        return False
    return True


@pytest.mark.parametrize("address", ["127.0.0.1", "127.0.0.53"])
def test_a_loopback_address_is_this_host(address: str) -> None:
    assert is_own_host(address)


def test_ipv6_loopback_is_this_host_where_there_is_one() -> None:
    if not _can_bind(_socket.AF_INET6, "::1"):
        pytest.skip("no IPv6 loopback here")
    assert is_own_host("::1")


def test_our_names_are_this_host(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_socket, "gethostname", lambda: "node1.example.org")
    for name in ("node1", "NODE1", "node1.example.org", "node1.example.org.", "localhost"):
        assert is_own_host(name), name
    for name in ("node2", "node1.other.org", "node10", "", "example"):
        assert not is_own_host(name), name


def test_a_short_host_name_meets_its_fqdn(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_socket, "gethostname", lambda: "vm")
    assert is_own_host("vm.example.org") and is_own_host("VM")
    assert not is_own_host("vm2.example.org")


def test_an_address_of_another_host_is_not_this_host() -> None:
    assert not is_own_host("192.0.2.1")  # TEST-NET-1: nobody's
    assert not is_own_host("2001:db8::1")


# ---- which way a request goes --------------------------------------------------------

class Conn:
    """A connection stand-in: records what was sent, answers with a canned reply."""

    def __init__(self, log: list[str], fail_send: BaseException | None = None) -> None:
        self.log, self.fail_send = log, fail_send
        self.sent: list[bytes] = []

    def send(self, payload: bytes) -> None:
        self.log.append("send")
        if self.fail_send is not None:
            raise self.fail_send
        self.sent.append(payload)

    def recv(self, timeout: float) -> bytes:
        from common import wire
        _, request_id, _ = wire.decode(self.sent[-1])
        return wire.encode("reply", {"epoch": "e"}, request_id)

    def close(self) -> None:
        self.log.append("close")


def _cell(tmp_path: Path, host: str) -> Cell:
    cell = Cell(tmp_path)
    cell.common_dir.mkdir(parents=True)
    cell.act_qmaster_path.write_text(f"{host} 6444 6445\n")
    return cell


@pytest.fixture
def ways(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The Unix connection's outcomes, in order (an exception to raise or a Conn), and
    what was tried; the remote way records itself and fails."""
    state: dict[str, Any] = {"unix": [], "log": [], "remote": 0}

    def unix(host: str, port: int, timeout: float, *, unix_path: str | None = None) -> Conn:
        assert unix_path is not None
        state["log"].append("connect")
        outcome = state["unix"].pop(0)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    def remote(*args: Any, **kw: Any) -> Any:
        state["remote"] += 1
        raise ConnectionRefusedError(111, "remote way taken")

    import clients.remote
    monkeypatch.setattr(api, "Dealer", unix)
    monkeypatch.setattr(clients.remote, "RemoteDealer", remote)
    monkeypatch.setattr(api, "_qmaster_key", lambda cell: b"k" * 32)
    monkeypatch.setattr(api, "LOCAL_RETRY_SECONDS", 0.001)
    monkeypatch.setattr(api.time, "sleep", lambda seconds: None)
    return state


def test_on_the_qmaster_host_a_dead_socket_is_waited_for(tmp_path: Path,
                                                         ways: dict[str, Any]) -> None:
    answered = Conn(ways["log"])
    ways["unix"] = [ConnectionRefusedError(111, "refused"), FileNotFoundError(2, "gone"),
                    ConnectionResetError(104, "reset"), BrokenPipeError(32, "pipe"),
                    ZmtpClosed("connection closed by the peer"), answered]
    with Client(_cell(tmp_path, "127.0.0.1"), timeout=30) as cl:
        assert cl.request("ping", {}) == {"epoch": "e"}
    assert ways["remote"] == 0
    assert ways["log"].count("connect") == 6 and len(answered.sent) == 1


def test_on_the_qmaster_host_waiting_ends_with_the_timeout(tmp_path: Path,
                                                           ways: dict[str, Any],
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    clock = iter(float(i) for i in range(10_000))
    monkeypatch.setattr(api.time, "monotonic", lambda: next(clock))
    ways["unix"] = [ConnectionRefusedError(111, "refused")] * 100
    with pytest.raises(ClientError) as failed, \
            Client(_cell(tmp_path, "127.0.0.1"), timeout=5) as cl:
        cl.request("ping", {})
    assert failed.value.code == "unreachable"
    assert "unable to contact qmaster using port 6444" in failed.value.message
    assert ways["remote"] == 0 and 1 < ways["log"].count("connect") < 100


def test_a_refusal_in_the_handshake_is_not_waited_out(tmp_path: Path,
                                                      ways: dict[str, Any]) -> None:
    ways["unix"] = [ZmtpError("connection refused by the qmaster: not allowed")]
    with pytest.raises(ClientError) as failed, \
            Client(_cell(tmp_path, "127.0.0.1"), timeout=30) as cl:
        cl.request("ping", {})
    assert "not allowed" in failed.value.message
    assert ways["log"].count("connect") == 1 and ways["remote"] == 0


def test_elsewhere_a_dead_socket_means_the_remote_way(tmp_path: Path,
                                                      ways: dict[str, Any]) -> None:
    ways["unix"] = [ConnectionRefusedError(111, "refused")]
    with pytest.raises(ClientError), Client(_cell(tmp_path, "192.0.2.1"), timeout=30) as cl:
        cl.request("ping", {})
    assert ways["remote"] == 1 and ways["log"].count("connect") == 1


def test_a_request_the_qmaster_could_not_have_read_is_sent_again(
        tmp_path: Path, ways: dict[str, Any]) -> None:
    """The connection broke before the request was written (a killed qmaster): made
    anew, the request goes once more, whole."""
    broken, answered = Conn(ways["log"], BrokenPipeError(32, "pipe")), Conn(ways["log"])
    ways["unix"] = [broken, answered]
    with Client(_cell(tmp_path, "127.0.0.1"), timeout=30) as cl:
        assert cl.request("ping", {}) == {"epoch": "e"}
    assert ways["log"][:5] == ["connect", "send", "close", "connect", "send"]
    assert len(answered.sent) == 1


def test_a_request_whose_answer_is_lost_is_not_sent_again(tmp_path: Path,
                                                          ways: dict[str, Any]) -> None:
    """It may have been carried out: the caller is told, nothing is repeated."""
    class Dies(Conn):
        def recv(self, timeout: float) -> bytes:
            raise ConnectionResetError(104, "reset")
    dying = Dies(ways["log"])
    ways["unix"] = [dying, Conn(ways["log"])]
    with pytest.raises(ClientError) as failed, \
            Client(_cell(tmp_path, "127.0.0.1"), timeout=30) as cl:
        cl.request("submit", {})
    assert failed.value.code == "unreachable"
    assert ways["log"].count("send") == 1 and len(dying.sent) == 1
