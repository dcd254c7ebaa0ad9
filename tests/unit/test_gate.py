"""The qmaster's gate (qmaster/gate.py) and the cell's keys (common/keys.py), as pure
functions: which connection is whom, what each may send, and the key files."""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
import zmq
import zmq.auth
import zmq.utils.z85
from hypothesis import given
from hypothesis import strategies as st

from common import keys
from common.cell import Cell
from common.model import UserInfo
from common.wire import MESSAGE_SCHEMAS
from qmaster import gate

SCHED = keys.new_pair()
EXECD_H1 = keys.new_pair()
TRUSTED = {SCHED.public: keys.TrustedDaemon(keys.SCHEDULER),
           EXECD_H1.public: keys.TrustedDaemon("execd", "h1")}


def curve(pair: keys.KeyPair) -> list[bytes]:
    """ZAP's credentials frame of a CURVE client: its public key, 32 raw bytes."""
    return [zmq.utils.z85.decode(pair.public)]


# ---- zap_decision --------------------------------------------------------------------------

def test_unix_peers_are_local_users_with_the_kernels_ids() -> None:
    peer = gate.zap_decision(gate.REQUESTS_DOMAIN, "localhost:1001:100:4242", b"NULL", [],
                             TRUSTED)
    assert peer == gate.Peer(gate.LOCAL, 1001, 100)


@pytest.mark.parametrize("address", ["", "127.0.0.1", "localhost", "localhost:1:2",
                                     "localhost:a:1:2", "x:1:-1:2"])
def test_a_null_peer_without_readable_credentials_is_refused(address: str) -> None:
    assert gate.zap_decision(gate.REQUESTS_DOMAIN, address, b"NULL", [], TRUSTED) is None


def test_trusted_keys_are_their_daemons_other_keys_remote_clients() -> None:
    def decide(pair: keys.KeyPair, domain: bytes = gate.REQUESTS_DOMAIN) -> gate.Peer | None:
        return gate.zap_decision(domain, "198.18.0.7", b"CURVE", curve(pair), TRUSTED)
    assert decide(SCHED) == gate.Peer(gate.SCHEDULER, host="198.18.0.7")  # (qconf -sss)
    assert decide(EXECD_H1) == gate.Peer(gate.EXECD, host="h1")
    assert decide(keys.new_pair()) == gate.Peer(gate.REMOTE, host="198.18.0.7")


def test_the_event_port_admits_the_scheduler_only() -> None:
    def decide(mechanism: bytes, creds: list[bytes], address: str = "127.0.0.1"
               ) -> gate.Peer | None:
        return gate.zap_decision(gate.EVENTS_DOMAIN, address, mechanism, creds, TRUSTED)
    assert decide(b"CURVE", curve(SCHED)) == gate.Peer(gate.SCHEDULER, host="127.0.0.1")
    assert decide(b"CURVE", curve(EXECD_H1)) is None
    assert decide(b"CURVE", curve(keys.new_pair())) is None
    assert decide(b"NULL", [], "localhost:0:0:1") is None


@pytest.mark.parametrize("mechanism,creds", [
    (b"PLAIN", [b"root", b"secret"]), (b"GSSAPI", [b"x"]), (b"CURVE", []),
    (b"CURVE", [b"short"]), (b"CURVE", [b"\0" * 32, b"\0" * 32])])
def test_other_mechanisms_and_malformed_credentials_are_refused(mechanism: bytes,
                                                                creds: list[bytes]) -> None:
    assert gate.zap_decision(gate.REQUESTS_DOMAIN, "127.0.0.1", mechanism, creds,
                             TRUSTED) is None


def test_an_unknown_domain_is_refused() -> None:
    assert gate.zap_decision(b"other", "localhost:0:0:1", b"NULL", [], TRUSTED) is None
    assert gate.zap_decision(b"", "127.0.0.1", b"CURVE", curve(SCHED), TRUSTED) is None


@given(kind=st.sampled_from(sorted(gate.ALLOWED)), uid=st.integers(-1, 2**32),
       gid=st.integers(-1, 2**32), host=st.text(max_size=40))
def test_peer_texts_round_trip(kind: str, uid: int, gid: int, host: str) -> None:
    peer = gate.Peer(kind, uid, gid, host)
    assert gate.Peer.from_text(peer.text()) == peer


@given(st.text(max_size=60))
def test_any_other_user_id_is_no_peer(text: str) -> None:
    peer = gate.Peer.from_text(text)
    assert peer is None or peer.text() == text


# ---- refusal ---------------------------------------------------------------------------

def test_each_kind_may_send_its_own_messages_only() -> None:
    kinds = {gate.LOCAL: gate.Peer(gate.LOCAL, 5, 5), gate.REMOTE: gate.Peer(gate.REMOTE),
             gate.EXECD: gate.Peer(gate.EXECD, host="h1"), gate.SCHEDULER: gate.Peer(gate.SCHEDULER)}
    for msg_type in MESSAGE_SCHEMAS:
        for kind, peer in kinds.items():
            why = gate.refusal(peer, msg_type, {"host": "h1"})
            assert (why is None) == (msg_type in gate.ALLOWED[kind]), (kind, msg_type, why)
    assert gate.refusal(kinds[gate.LOCAL], "orders", {}) == \
        'denied: request "orders" needs the scheduler\'s key'
    assert gate.refusal(kinds[gate.SCHEDULER], "job_finished", {}) == \
        'denied: request "job_finished" needs the key of an execution daemon'
    assert gate.refusal(kinds[gate.EXECD], "submit", {}) == \
        'denied: request "submit" needs a user\'s connection'


def test_an_execd_speaks_for_its_own_host_only() -> None:
    peer = gate.Peer(gate.EXECD, host="h1")
    for msg_type in ("execd_conf", "register", "load_report", "job_started", "job_finished",
                     "job_start_failed"):
        assert gate.refusal(peer, msg_type, {"host": "h1"}) is None
        assert gate.refusal(peer, msg_type, {"host": "h2"}) == (
            'denied: the execution daemon of host "h1" may not speak for host "h2"')


def test_no_peer_may_send_what_only_the_qmaster_sends() -> None:
    for msg_type in ("reply", "error", "start_job", "signal_job"):
        assert all(msg_type not in allowed for allowed in gate.ALLOWED.values())


# ---- Gate.user -------------------------------------------------------------------------

def users(table: dict[int, str]) -> gate.Gate:
    return gate.Gate("qm", lookup=lambda uid, gid: (
        UserInfo(table[uid], uid, f"g{gid}", gid) if uid in table else None))


def test_a_local_user_is_who_the_kernel_says() -> None:
    g = users({1001: "alice"})
    assert g.user(gate.Peer(gate.LOCAL, 1001, 100), None, b"x") == \
        UserInfo("alice", 1001, "g100", 100, "qm")


def test_a_local_uid_the_qmaster_does_not_know_is_refused() -> None:
    with pytest.raises(gate.Refused, match='user id 4242 is unknown on the qmaster host "qm"'):
        users({}).user(gate.Peer(gate.LOCAL, 4242, 4242), None, b"x")


def test_a_local_request_with_a_credential_is_refused() -> None:
    with pytest.raises(gate.Refused, match="local request carries no credential"):
        users({0: "root"}).user(gate.Peer(gate.LOCAL, 0, 0), b"MUNGE:...", b"x")


def test_a_remote_request_without_credential_is_refused() -> None:
    with pytest.raises(gate.Refused, match='request from "198.18.0.9" carries no MUNGE'):
        users({0: "root"}).user(gate.Peer(gate.REMOTE, host="198.18.0.9"), None, b"x")


def test_user_lookups_are_cached_for_a_while() -> None:
    calls: list[int] = []
    now = [0.0]

    def lookup(uid: int, gid: int) -> UserInfo:
        calls.append(uid)
        return UserInfo("u", uid, "g", gid)
    g = gate.Gate("qm", clock=lambda: now[0], lookup=lookup)
    for _ in range(3):
        g.user(gate.Peer(gate.LOCAL, 7, 7), None, b"")
    now[0] += gate.USER_CACHE_SECONDS + 1
    g.user(gate.Peer(gate.LOCAL, 7, 7), None, b"")
    assert calls == [7, 7]


# ---- key files -------------------------------------------------------------------------

def test_certificates_are_zeromqs_format(tmp_path: Path) -> None:
    pair = keys.new_pair()
    keys.write_certificate(tmp_path / "a.key_secret", pair)
    keys.write_certificate(tmp_path / "a.key", keys.KeyPair(pair.public))
    assert zmq.auth.load_certificate(tmp_path / "a.key_secret") == (pair.public, pair.secret)
    assert zmq.auth.load_certificate(tmp_path / "a.key") == (pair.public, None)
    assert keys.read_certificate(tmp_path / "a.key_secret") == pair
    assert stat.S_IMODE(os.stat(tmp_path / "a.key_secret").st_mode) == 0o600
    assert stat.S_IMODE(os.stat(tmp_path / "a.key").st_mode) == 0o644


def test_a_link_at_the_temporary_name_is_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.write_text("untouched")
    (tmp_path / f".x.key_secret.{os.getpid()}.tmp").symlink_to(target)
    with pytest.raises(FileExistsError):
        keys.write_certificate(tmp_path / "x.key_secret", keys.new_pair())
    assert target.read_text() == "untouched"


@pytest.mark.parametrize("text", ["", "curve\n    public-key = \"short\"\n",
                                  "metadata\ncurve\n    secret-key = \"" + "a" * 40 + "\"\n"])
def test_files_that_are_not_certificates_are_refused(tmp_path: Path, text: str) -> None:
    (tmp_path / "bad.key").write_text(text)
    with pytest.raises(keys.KeyFileError, match="not a CURVE certificate"):
        keys.read_certificate(tmp_path / "bad.key")


def test_the_cells_keys_and_whom_the_qmaster_trusts(tmp_path: Path) -> None:
    cell = Cell(tmp_path)
    cell.path.mkdir()
    made = keys.ensure_cell_keys(cell, ["h1", "h2.example.org"])
    assert made == ["qmaster", "scheduler", "execd-h1", "execd-h2.example.org"]
    assert keys.ensure_cell_keys(cell, ["h1"]) == []  # kept, not made again
    assert stat.S_IMODE(os.stat(keys.keys_dir(cell)).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(keys.trusted_dir(cell)).st_mode) == 0o700
    trusted = keys.trusted_daemons(keys.trusted_dir(cell))
    assert sorted((d.role, d.host) for d in trusted.values()) == [
        ("execd", "h1"), ("execd", "h2.example.org"), ("scheduler", "")]
    qmaster = keys.read_secret(keys.secret_path(cell, "qmaster"))
    assert keys.read_certificate(keys.qmaster_public_path(cell)).public == qmaster.public
    assert qmaster.public not in trusted  # the qmaster's own key admits nobody
    for name in ("scheduler", "execd-h1"):
        pair = keys.read_secret(keys.secret_path(cell, name))
        assert pair.public in trusted


def test_stray_files_in_the_trusted_directory_trust_nobody(tmp_path: Path) -> None:
    pair = keys.new_pair()
    for name in ("qmaster.key", "execd-.key", "notes.txt", ".execd-h1.key", "other.key"):
        keys.write_certificate(tmp_path / name, keys.KeyPair(pair.public))
    (tmp_path / "execd-h9.key").write_text("garbage")
    assert keys.trusted_daemons(tmp_path) == {}
    assert keys.trusted_daemons(tmp_path / "missing") == {}


def test_pyge_keys_makes_what_is_missing_and_keeps_the_rest(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from deploy.cell import main
    assert main(["keys", "--root", str(tmp_path), "--execd", "node1"]) == 0
    first = capsys.readouterr().out.splitlines()
    assert [line.split()[:2] for line in first[:3]] == [
        ["qmaster", "made:"], ["scheduler", "made:"], ["execd-node1", "made:"]]
    assert main(["keys", "--root", str(tmp_path), "--execd", "node1",
                 "--execd", "node2"]) == 0
    second = capsys.readouterr().out.splitlines()
    assert [line.split()[:2] for line in second[:4]] == [
        ["qmaster", "kept:"], ["scheduler", "kept:"], ["execd-node1", "kept:"],
        ["execd-node2", "made:"]]
    trusted = keys.trusted_daemons(keys.trusted_dir(Cell(tmp_path)))
    assert sorted(d.host for d in trusted.values()) == ["", "node1", "node2"]


# ---- the host a remote peer is ------------------------------------------------------------

@pytest.mark.parametrize("names,domain,expected", [
    (("node1.example.org", ["198.18.0.5"]), "example.org", "node1"),
    (("node1", ["198.18.0.5"]), "", "node1"),
    (("node1.example.org.", ["198.18.0.5"]), "EXAMPLE.org", "node1"),
    # a PTR record the peer's owner wrote, in a domain of theirs: the address, not "vm"
    (("vm.evil.example", ["198.18.0.5"]), "example.org", "198.18.0.5"),
    (("vm.evil.example", ["198.18.0.5"]), "", "198.18.0.5"),
    # a name in our domain that does not resolve back to the peer: the address
    (("vm.example.org", ["198.18.0.1"]), "example.org", "198.18.0.5"),
    (None, "example.org", "198.18.0.5"),
])
def test_a_remote_peer_is_named_only_by_a_forward_confirmed_name_of_our_domain(
        names: tuple[str, list[str]] | None, domain: str, expected: str) -> None:
    assert gate.peer_host("198.18.0.5", names, domain) == expected


def test_keys_others_may_write_are_not_trusted(tmp_path: Path) -> None:
    pair = keys.new_pair()
    trusted = tmp_path / "trusted"
    trusted.mkdir(mode=0o700)
    keys.write_certificate(trusted / "scheduler.key", keys.KeyPair(pair.public))
    assert len(keys.trusted_daemons(trusted)) == 1
    os.chmod(trusted / "scheduler.key", 0o666)
    assert keys.trusted_daemons(trusted) == {}
    os.chmod(trusted / "scheduler.key", 0o644)
    os.chmod(trusted, 0o777)
    assert keys.trusted_daemons(trusted) == {}
    os.chmod(trusted, 0o700)
    (trusted / "execd-h1.key").symlink_to(trusted / "scheduler.key")
    assert sorted(d.role for d in keys.trusted_daemons(trusted).values()) == ["scheduler"]


def test_daemons_connect_with_routing_ids_nobody_can_guess() -> None:
    """The qmaster routes to an execd by the routing id its proven messages came with:
    16 random bytes each time (libzmq's own would be a counter others can claim)."""
    ctx = zmq.Context.instance()
    curve = keys.ClientKeys(keys.new_pair(), keys.new_pair().public)
    ids = []
    for _ in range(2):
        sock = ctx.socket(zmq.DEALER)
        try:
            keys.secure_client(sock, curve)
            ids.append(sock.getsockopt(zmq.ROUTING_ID))
        finally:
            sock.close(0)
    assert all(len(i) == 17 and i[:1] == b"r" for i in ids) and ids[0] != ids[1]
