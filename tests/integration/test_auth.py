"""Attacks on who-is-who, each against a live cell (issue 8): no test here can be made to
pass by writing a different user name into a request.

- a client that names another user (root) in its requests acts as itself;
- a job of an ordinary user on a root execd runs with that user's uid, groups and umask;
- users cannot send what only daemons send (orders, register, job_finished), an unknown
  CURVE key cannot register a host or report a job finished, an execd key speaks for its
  own host only, and an execd talks only to the holder of the qmaster's key;
- remote clients (CURVE port + MUNGE): a request acts as the credential's user; a request
  replayed from a capture, a credential made for another request, an expired one and
  none at all are refused; a host that is no submit host cannot submit.

The MUNGE tests start a munged of their own (tests/munged.py) and skip with the reason
where munge is not installed; tests that act as a second user need root
(tests/identity.py) and skip otherwise. Every daemon started here is stopped by its pid.
"""
from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

import pytest
import zmq

from clients.api import Client, ClientError, current_user, job_request
from common import keys, munge, wire
from common.cell import Cell, read_act_qmaster
from common.model import UserInfo
from deploy.cell import LocalCell
from tests.cellconf import without_load_thresholds
from tests.identity import client_as, needs_root, other_users
from tests.integration.cellutil import hostname, wait_for
from tests.munged import munged_skip_reason, private_munged

REPO = Path(__file__).resolve().parents[2]
ROOT_CLAIM = UserInfo("root", 0, "root", 0, "elsewhere")
ANSWER_TIMEOUT = 10.0


@pytest.fixture(scope="module")
def munge_socket(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str | None]:
    """A private munged's socket (None where munge is not installed)."""
    if munged_skip_reason() is not None:
        yield None
        return
    with private_munged(tmp_path_factory.mktemp("munge")) as sock:
        yield sock


@pytest.fixture(scope="module")
def cell(tmp_path_factory: pytest.TempPathFactory, munge_socket: str | None
         ) -> Iterator[LocalCell]:
    """A ``pyge up`` cell whose qmaster decodes credentials with the private munged. It
    lives in a directory of /tmp that every user may traverse (pytest's own are 0700):
    jobs of other users read their scripts from the execd spool inside it."""
    root = Path(tempfile.mkdtemp(prefix="pyge-authcell-"))
    os.chmod(root, 0o755)
    local = LocalCell(Cell(root))
    saved = os.environ.get(munge.SOCKET_ENV)
    if munge_socket:
        os.environ[munge.SOCKET_ENV] = munge_socket  # the daemons inherit it
    try:
        local.up(execds=1, slots=4, port=0)
        without_load_thresholds(local.cell)  # a busy machine must not hold its jobs back
        yield local
    finally:
        local.down()
        shutil.rmtree(root, ignore_errors=True)
        if saved is None:
            os.environ.pop(munge.SOCKET_ENV, None)
        else:
            os.environ[munge.SOCKET_ENV] = saved


def needs_munge(munge_socket: str | None) -> str:
    if munge_socket is None:
        pytest.skip(munged_skip_reason() or "munged is not available")
    return munge_socket


def held_job(client: Client) -> int:
    [job_id] = client.submit([job_request("/bin/true", binary=True, hold=True)])
    return job_id


def owner_of(client: Client, job_id: int) -> tuple[str, int]:
    [job] = client.jobs([job_id])["jobs"]
    return job["owner"], job["uid"]


def raw_dealer(cell: Cell, own: keys.KeyPair) -> zmq.Socket:
    """A CURVE DEALER on the qmaster's TCP port with key pair ``own``."""
    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    keys.secure_client(sock, keys.ClientKeys(
        own, keys.read_certificate(keys.qmaster_public_path(cell)).public))
    sock.connect(f"tcp://127.0.0.1:{read_act_qmaster(cell)[1]}")
    return sock


def answer(sock: zmq.Socket, frames: list[bytes], request_id: int) -> tuple[str, dict[str, Any]]:
    """Send ``frames``; the answer to ``request_id`` (other messages are skipped)."""
    sock.send_multipart(frames)
    deadline = time.monotonic() + ANSWER_TIMEOUT
    while (left := deadline - time.monotonic()) > 0:
        if not sock.poll(int(left * 1000) + 1):
            break
        msg_type, rid, body = wire.decode(sock.recv_multipart()[-1])
        if rid == request_id:
            return msg_type, body
    raise AssertionError(f"no answer to request {request_id}")


def denied(result: tuple[str, dict[str, Any]]) -> str:
    msg_type, body = result
    assert msg_type == "error" and body["code"] == "denied", result
    return str(body["message"])


# ---- local users ---------------------------------------------------------------------

def test_a_client_that_names_root_acts_as_itself(cell: LocalCell) -> None:
    """As root: a connection made as another user, stating root; as an ordinary user:
    the caller itself, stating root."""
    if os.geteuid() == 0:
        [name] = other_users(1)
        client = client_as(cell.cell, name)
    else:
        name, client = current_user().name, Client(cell.cell)
    entry = pwd.getpwnam(name)
    with client:
        client.user = ROOT_CLAIM
        job_id = held_job(client)
        assert owner_of(client, job_id) == (name, entry.pw_uid)
        if os.geteuid() == 0:  # (an ordinary user made the cell: it is its manager)
            with pytest.raises(ClientError, match=f'denied: "{name}" must be manager'):
                client.conf_put("manager", name, None, "add")
        client.delete([{"job_id": job_id}])


@needs_root
def test_a_job_runs_with_its_owners_uid_groups_and_umask(cell: LocalCell) -> None:
    [name] = other_users(1)
    entry = pwd.getpwnam(name)
    outdir = Path(tempfile.mkdtemp(prefix="pyge-auth-"))
    try:
        os.chmod(outdir, 0o777)
        out = outdir / "ids.out"
        job = job_request("ids.sh", script=b"#!/bin/sh\nid -u\nid -G\numask\n",
                          stdout_paths=[str(out)], merge_output=True)
        job["umask"] = 0o027
        with client_as(cell.cell, name) as client:
            client.user = ROOT_CLAIM
            [job_id] = client.submit([job])
            [task] = client.wait([job_id], timeout=30)[job_id]
        assert task["exit_status"] == 0, (task, out.read_text() if out.exists() else "")
        uid, groups, mask = out.read_text().split("\n")[:3]
        assert int(uid) == entry.pw_uid
        # the owner's groups and, as in 8.1.9, one of gid_range's (65400-65500 by
        # default) that marks the job's processes (sge_conf(5) gid_range)
        own = set(os.getgrouplist(name, entry.pw_gid))
        extra = {int(g) for g in groups.split()} - own
        assert own <= {int(g) for g in groups.split()}
        assert len(extra) == 1 and 65400 <= extra.pop() <= 65500
        assert mask == "0027"
        assert out.stat().st_uid == entry.pw_uid
    finally:
        for path in outdir.iterdir():
            path.unlink()
        outdir.rmdir()


def test_users_cannot_send_what_daemons_send(cell: LocalCell) -> None:
    host = hostname()
    with Client(cell.cell) as client:
        [job_id] = client.submit([job_request("/bin/sleep", ["30"], binary=True)])
        for msg_type, body, needs in [
                ("orders", {"orders": [{"type": "dispatch", "job_id": job_id, "task_id": 1,
                                        "task_version": 1,
                                        "granted": [["all.q", host, 1]]}]},
                 "the scheduler's key"),
                ("snapshot", {}, "the scheduler's key"),
                ("register", {"host": "phantom", "load": {}, "jobs": []},
                 "the key of an execution daemon"),
                ("job_finished", {"host": host, "job_id": job_id, "task_id": 1,
                                  "result": {"exit_status": 0}},
                 "the key of an execution daemon")]:
            with pytest.raises(ClientError) as refused:
                client.request(msg_type, body)
            assert refused.value.message == f'denied: request "{msg_type}" needs {needs}'
        hosts = {h["name"] for h in client.cluster()["hosts"]}
        assert "phantom" not in hosts
        client.delete([{"job_id": job_id}])


# ---- daemons --------------------------------------------------------------------------

def test_an_unknown_key_can_neither_register_nor_report(cell: LocalCell) -> None:
    host = hostname()
    with Client(cell.cell) as client:
        [job_id] = client.submit([job_request("/bin/sleep", ["30"], binary=True)])
        wait_for(lambda: client.jobs([job_id])["tasks"][0]["state"] == "running", 20,
                 "the job to run")
        stranger = raw_dealer(cell.cell, keys.new_pair())
        try:
            assert denied(answer(stranger, [wire.encode(
                "register", {"host": "phantom", "load": {}, "jobs": []}, 1)], 1)) == \
                'denied: request "register" needs the key of an execution daemon'
            assert denied(answer(stranger, [wire.encode(
                "job_finished", {"host": host, "job_id": job_id, "task_id": 1,
                                 "result": {"exit_status": 0}}, 2)], 2)).startswith(
                'denied: request "job_finished" needs the key')
        finally:
            stranger.close(0)
        own = keys.read_secret(keys.secret_path(cell.cell, keys.execd_name(host)))
        execd = raw_dealer(cell.cell, own)  # the real execd's key: its own host only
        try:
            assert denied(answer(execd, [wire.encode(
                "register", {"host": "phantom", "load": {}, "jobs": []}, 3)], 3)) == \
                f'denied: the execution daemon of host "{host}" may not speak for host ' \
                '"phantom"'
        finally:
            execd.close(0)
        assert client.jobs([job_id])["tasks"][0]["state"] == "running"
        assert "phantom" not in {h["name"] for h in client.cluster()["hosts"]}
        client.delete([{"job_id": job_id}])


def test_an_execd_talks_only_to_the_holder_of_the_qmasters_key(cell: LocalCell,
                                                                tmp_path: Path) -> None:
    """An impostor qmaster (a CURVE server with a key of its own) hears nothing from an
    execd that knows the real qmaster's public key; given the impostor's public key
    instead, the same execd registers with it at once (the test can tell)."""
    impostor = keys.new_pair()
    ctx = zmq.Context.instance()
    router = ctx.socket(zmq.ROUTER)
    router.setsockopt(zmq.LINGER, 0)
    router.setsockopt(zmq.CURVE_SERVER, 1)
    router.setsockopt(zmq.CURVE_SECRETKEY, impostor.secret)
    port = router.bind_to_random_port("tcp://127.0.0.1")
    keys.write_certificate(tmp_path / "impostor.key", keys.KeyPair(impostor.public))
    host = hostname()
    secret = keys.secret_path(cell.cell, keys.execd_name(host))

    def heard_with(qmaster_key: Path, spool: Path, wait: float) -> bool:
        proc = subprocess.Popen(
            [sys.executable, "-m", "execd.main", "--hostname", host, "--qmaster",
             f"127.0.0.1:{port}", "--spool", str(spool), "--key-file", str(secret),
             "--qmaster-key", str(qmaster_key)], cwd=REPO, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            return bool(router.poll(int(wait * 1000)))
        finally:
            os.killpg(proc.pid, 15)
            proc.wait(10)
    try:
        assert not heard_with(keys.qmaster_public_path(cell.cell), tmp_path / "s1", 3.0)
        assert heard_with(tmp_path / "impostor.key", tmp_path / "s2", 15.0)
    finally:
        router.close(0)


# ---- remote clients: CURVE and MUNGE ---------------------------------------------------

def remote_client(cell: Cell) -> Client:
    port = read_act_qmaster(cell)[1]
    return Client(host="127.0.0.1", port=port, timeout=ANSWER_TIMEOUT,
                  qmaster_key=keys.read_certificate(keys.qmaster_public_path(cell)).public)


def test_a_remote_request_acts_as_its_credentials_user(cell: LocalCell,
                                                       munge_socket: str | None) -> None:
    """From a host that is no submit host nothing is allowed; made one, a remote submit
    belongs to the credential's user, whatever the request says."""
    needs_munge(munge_socket)
    me = current_user()
    remote = remote_client(cell.cell)
    remote.user = ROOT_CLAIM if me.uid else UserInfo("daemon", 1, "daemon", 1, "x")
    local = Client(cell.cell)
    with remote, local:
        with pytest.raises(ClientError) as refused:
            remote.submit([job_request("/bin/true", binary=True, hold=True)])
        message = refused.value.message
        assert message.startswith('denied: host "') and "submit" in message, message
        peer_host = message.split('"')[1]  # what the qmaster resolved 127.0.0.1 to
        local.conf_put("submithost", peer_host, None, "add")
        try:
            job_id = held_job(remote)
            assert owner_of(local, job_id) == (me.name, me.uid)
            local.delete([{"job_id": job_id}])
        finally:
            local.conf_del("submithost", peer_host)


def test_a_request_replayed_from_a_capture_is_refused(cell: LocalCell,
                                                      munge_socket: str | None) -> None:
    sock_path = needs_munge(munge_socket)
    payload = wire.encode("ping", {}, 7)
    captured = [munge.encode(wire.credential_payload(payload), socket=sock_path), payload]
    sock = raw_dealer(cell.cell, keys.new_pair())
    other = raw_dealer(cell.cell, keys.new_pair())  # the replay comes on another connection
    try:
        assert answer(sock, captured, 7)[0] == "reply"
        assert denied(answer(other, captured, 7)) == \
            "denied: MUNGE credential refused: Replayed credential"
        assert denied(answer(sock, captured, 7)) == \
            "denied: MUNGE credential refused: Replayed credential"
    finally:
        sock.close(0)
        other.close(0)


def test_a_credential_made_for_another_request_is_refused(cell: LocalCell,
                                                          munge_socket: str | None) -> None:
    sock_path = needs_munge(munge_socket)
    harmless = wire.encode("ping", {}, 1)
    wanted = wire.encode("conf_put", {"user": current_user().to_dict(), "kind": "manager",
                                      "name": "intruder", "data": None, "mode": "add"}, 1)
    cred = munge.encode(wire.credential_payload(harmless), socket=sock_path)
    sock = raw_dealer(cell.cell, keys.new_pair())
    try:
        assert denied(answer(sock, [cred, wanted], 1)) == \
            "denied: the MUNGE credential was made for another request"
        assert denied(answer(sock, [wanted], 1)) == \
            'denied: request from "127.0.0.1" carries no MUNGE credential'
        expiring = munge.encode(wire.credential_payload(harmless), socket=sock_path, ttl=1)
        time.sleep(2.2)  # MUNGE counts whole seconds: past the TTL for certain
        assert denied(answer(sock, [expiring, harmless], 1)) == \
            "denied: MUNGE credential refused: Expired credential"
    finally:
        sock.close(0)
    with Client(cell.cell) as client:
        assert "intruder" not in client.conf_get("manager")


def test_a_credential_of_another_munge_key_is_refused(cell: LocalCell, tmp_path: Path,
                                                      munge_socket: str | None) -> None:
    needs_munge(munge_socket)
    payload = wire.encode("ping", {}, 3)
    with private_munged(tmp_path) as foreign:  # another cell's key
        cred = munge.encode(wire.credential_payload(payload), socket=foreign)
    sock = raw_dealer(cell.cell, keys.new_pair())
    try:
        assert denied(answer(sock, [cred, payload], 3)).startswith(
            "denied: MUNGE credential refused: ")
    finally:
        sock.close(0)


def test_min_uid_applies_to_the_proven_uid(cell: LocalCell) -> None:
    """min_uid above our uid refuses our jobs, whatever uid the request states."""
    me = os.geteuid()
    with Client(cell.cell) as client:
        rows = client.conf_get("conf")["global"]
        raised = [[k, str(me + 1) if k == "min_uid" else v] for k, v in rows]
        client.conf_put("conf", "global", raised, "modify")
        try:
            client.user = UserInfo("someone", me + 5000, "someone", os.getegid(), "x")
            with pytest.raises(ClientError) as refused:
                held_job(client)
            assert refused.value.message == (
                f"job rejected: your user id {me} is lower than minimum user id {me + 1} "
                "of cluster configuration")
        finally:
            client.conf_put("conf", "global", rows, "modify")
        client.delete([{"job_id": held_job(client)}])


def test_routing_ids_claimed_in_advance_neither_crash_nor_capture(cell: LocalCell) -> None:
    """libzmq numbers the peers that bring no routing id from a counter; unseeded, its
    start is the same in every process (0x00e43c9869 for the qmaster's socket order),
    and a connection given an id that another peer claimed first made libzmq abort the
    qmaster. The qmaster seeds it, and our own clients and daemons bring random ids."""
    base = 0xE43C9869
    ctx = zmq.Context.instance()
    holders = []
    try:
        for k in range(64):  # the ids the next 64 connections would have had
            sock = ctx.socket(zmq.DEALER)
            sock.setsockopt(zmq.LINGER, 0)
            sock.setsockopt(zmq.ROUTING_ID, b"\x00" + (base + k).to_bytes(4, "big"))
            sock.connect(f"ipc://{cell.cell.qmaster_socket_path}")
            holders.append(sock)
        time.sleep(0.5)
        for request_id in range(1, 11):  # newcomers without an id of their own
            sock = ctx.socket(zmq.DEALER)
            sock.setsockopt(zmq.LINGER, 0)
            sock.connect(f"ipc://{cell.cell.qmaster_socket_path}")
            holders.append(sock)
            assert answer(sock, [wire.encode("ping", {}, request_id)], request_id)[0] == "reply"
    finally:
        for sock in holders:
            sock.close(0)
    pid = int((cell.run_dir / "qmaster.pid").read_text())
    assert dict(cell.status())["qmaster"] == pid
    with Client(cell.cell) as client:
        assert client.request("ping", {})
