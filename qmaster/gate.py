"""Who a message comes from, proven, and what that peer may send: the qmaster's gate.

The qmaster's request socket has two kinds of endpoints (docs/security.md):

- a Unix-domain socket, ``<cell>/common/qmaster.sock``, for clients on the qmaster's
  host. ZeroMQ's ZAP handler (below) is told the peer's uid and gid, which libzmq reads
  from the kernel (``SO_PEERCRED``) when the connection is made: the client cannot
  choose them.
- a TCP port with CURVE security: every peer proves the key it connects with. Keys the
  cell trusts (``common.keys``) belong to the scheduler or to the execd of one host;
  any other key is a remote client, and each of its requests must carry a MUNGE
  credential (``common.munge``) whose payload is the SHA-256 digest of the request and
  whose uid and gid are the requester's.

The ZAP handler runs in a thread of its own, answers each new connection with a
``Peer`` encoded in ZAP's User-Id, and libzmq attaches that text to every message of the
connection. ``Gate.identify`` turns a received message into the requester: the user
(name, uid, gid, group and host, never taken from the request body), or the daemon,
and ``refusal`` says what a peer may not send. The event port admits the scheduler only.
``daemon_control`` (qconf -km -ke -ks ...) is a user's request like the others: who may
stop which daemon is the handler's rule (qmaster.daemon_control: managers only, checked
before anything is done).

Pure parts (``zap_decision``, ``Peer`` texts, ``refusal``) take
data in and give data out; the thread, the password database and munged are at the edges.
"""
from __future__ import annotations

import grp
import pwd
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import zmq
import zmq.utils.z85

from common import keys, munge, wire
from common.model import UserInfo

ZAP_ENDPOINT = "inproc://zeromq.zap.01"
REQUESTS_DOMAIN = b"pyge-requests"
EVENTS_DOMAIN = b"pyge-events"

LOCAL, REMOTE, EXECD, SCHEDULER = "local", "remote", "execd", "scheduler"

USER_MESSAGES = frozenset({"ping", "submit", "job_query", "cluster_query", "delete", "hold",
                           "release", "alter", "wait", "conf_get", "conf_put", "conf_del",
                           "userset_entries", "qmod", "clear_usage", "usage_query",
                           "share_tree_query", "trigger_monitor", "ar_submit", "ar_query",
                           "ar_delete", "pe_task_start", "events", "daemon_control"})
EXECD_MESSAGES = frozenset({"ping", "execd_conf", "register", "load_report", "job_started",
                            "job_finished", "job_start_failed", "pe_task_finished"})
SCHEDULER_MESSAGES = frozenset({"ping", "snapshot", "orders"})
ALLOWED = {LOCAL: USER_MESSAGES, REMOTE: USER_MESSAGES, EXECD: EXECD_MESSAGES,
           SCHEDULER: SCHEDULER_MESSAGES}
USER_CACHE_SECONDS = 60.0
HOST_CACHE_SECONDS = 300.0


@dataclass(frozen=True)
class Peer:
    """A connection's proven identity (whatever its messages later claim).

    ``local``: a client on the qmaster's host, ``uid``/``gid`` from the kernel;
    ``remote``: a client elsewhere, ``host`` its address (who it is comes with each
    request's credential); ``execd``: the execution daemon of ``host``;
    ``scheduler``: the scheduler (``host`` the address it connects from).
    """

    kind: str
    uid: int = -1
    gid: int = -1
    host: str = ""

    def text(self) -> str:
        """The ZAP User-Id that carries this peer to every message of its connection."""
        return f"{self.kind}:{self.uid}:{self.gid}:{self.host}"

    @classmethod
    def from_text(cls, text: str) -> "Peer | None":
        parts = text.split(":", 3)
        if len(parts) != 4 or parts[0] not in ALLOWED:
            return None
        try:
            return cls(parts[0], int(parts[1]), int(parts[2]), parts[3])
        except ValueError:
            return None


def zap_decision(domain: bytes, address: str, mechanism: bytes, credentials: list[bytes],
                 trusted: dict[bytes, keys.TrustedDaemon]) -> Peer | None:
    """The peer a new connection is, or None to refuse it (pure).

    ``address`` is libzmq's: for a Unix-domain peer ``<name>:<uid>:<gid>:<pid>`` with the
    ids the kernel reported at connect time, for TCP the peer's IP address. A NULL
    connection can only come from the Unix socket (the TCP endpoint is a CURVE server);
    on the event port only the scheduler is let in.
    """
    if mechanism == b"NULL":
        if domain != REQUESTS_DOMAIN:
            return None
        parts = address.rsplit(":", 3)
        if len(parts) != 4 or not all(p.isdigit() for p in parts[1:]):
            return None  # libzmq could not read the peer's credentials
        return Peer(LOCAL, int(parts[1]), int(parts[2]))
    if mechanism != b"CURVE" or len(credentials) != 1 or len(credentials[0]) != 32:
        return None
    daemon = trusted.get(zmq.utils.z85.encode(credentials[0]))
    if domain == EVENTS_DOMAIN:
        return Peer(SCHEDULER, host=address) if daemon is not None and \
            daemon.role == SCHEDULER else None
    if domain != REQUESTS_DOMAIN:
        return None
    if daemon is None:
        return Peer(REMOTE, host=address)
    if daemon.role == SCHEDULER:  # (its address: qconf -sss, -secl)
        return Peer(SCHEDULER, host=address)
    return Peer(EXECD, host=daemon.host)


def refusal(peer: Peer, msg_type: str, body: dict[str, Any]) -> str | None:
    """Why ``peer`` may not send this message (None: it may). An execd speaks only for
    its own host."""
    if msg_type not in ALLOWED.get(peer.kind, frozenset()):
        needed = ("the key of an execution daemon" if msg_type in EXECD_MESSAGES else
                  "the scheduler's key" if msg_type in SCHEDULER_MESSAGES else
                  "a user's connection")
        return f"denied: request \"{msg_type}\" needs {needed}"
    if peer.kind == EXECD and "host" in body and body["host"] != peer.host:
        return (f"denied: the execution daemon of host \"{peer.host}\" may not speak for "
                f"host \"{body['host']}\"")
    return None


class Refused(Exception):
    """A message whose sender could not be proven or may not send it."""


# ---- the ZAP handler ----------------------------------------------------------------------

class ZapHandler:
    """Answers libzmq's ZAP requests in a thread of its own (it must answer while the
    qmaster's loop is busy with a batch). Trusted daemon keys are read from
    ``trusted_dir`` again whenever that directory changes, so ``pyge keys execd HOST``
    takes effect for the next connection."""

    def __init__(self, context: zmq.Context, trusted_dir: Path,
                 log: Callable[..., None] | None = None) -> None:
        self._sock = context.socket(zmq.REP)
        self._sock.setsockopt(zmq.LINGER, 0)
        self._sock.bind(ZAP_ENDPOINT)
        self._trusted_dir = trusted_dir
        self._trusted: dict[bytes, keys.TrustedDaemon] = {}
        self._stamp: tuple[int, int] | None = None
        self._log = log
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="zap", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._sock.close(0)

    def trusted(self) -> dict[bytes, keys.TrustedDaemon]:
        try:
            st = self._trusted_dir.stat()
            stamp = (st.st_mtime_ns, st.st_ino)
        except OSError:
            stamp = None
        if stamp != self._stamp or stamp is None:
            self._trusted = keys.trusted_daemons(self._trusted_dir)
            self._stamp = stamp
        return self._trusted

    def _serve(self) -> None:
        while not self._stop.is_set():
            if not self._sock.poll(200):
                continue
            frames = self._sock.recv_multipart()
            self._sock.send_multipart(self._answer(frames))

    def _answer(self, frames: list[bytes]) -> list[bytes]:
        if len(frames) < 6:
            return [b"1.0", frames[1] if len(frames) > 1 else b"", b"500",
                    b"malformed ZAP request", b"", b""]
        version, request_id, domain, address, _identity, mechanism = frames[:6]
        try:
            peer = zap_decision(domain, address.decode(errors="replace"), mechanism,
                                frames[6:], self.trusted())
        except Exception as exc:  # noqa: BLE001 - a refused connection, never a dead thread
            peer = None
            if self._log:
                self._log("zap handler failed", error=repr(exc))
        if peer is None:
            if self._log:
                self._log("connection refused", address=address.decode(errors="replace"),
                          mechanism=mechanism.decode(errors="replace"),
                          domain=domain.decode(errors="replace"))
            return [version, request_id, b"400", b"not allowed", b"", b""]
        return [version, request_id, b"200", b"OK", peer.text().encode(), b""]


# ---- requests -----------------------------------------------------------------------------

class Gate:
    """Turns a received message into its proven sender (see the module text)."""

    def __init__(self, qmaster_host: str, munge_socket: str | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 lookup: Callable[[int, int], UserInfo | None] | None = None) -> None:
        self.qmaster_host = qmaster_host
        self.munge_socket = munge_socket
        self._clock = clock
        # uid, gid -> name and group (the password database; tests give their own users)
        self.lookup = lookup or lookup_user
        self._users: dict[tuple[int, int], tuple[float, UserInfo | None]] = {}
        self._hosts: dict[str, tuple[float, str]] = {}

    def peer(self, user_id: str | None) -> Peer:
        peer = Peer.from_text(user_id or "")
        if peer is None:  # every connection passed the ZAP handler; this is a bug
            raise Refused("denied: the connection carries no proven identity")
        return peer

    def user(self, peer: Peer, credential: bytes | None, payload: bytes) -> UserInfo:
        """The requesting user of a client message (local: the kernel's ids; remote:
        the MUNGE credential's, after it is checked against the payload)."""
        if peer.kind == LOCAL:
            if credential is not None:
                raise Refused("denied: a local request carries no credential")
            return self._user_info(peer.uid, peer.gid, self.qmaster_host)
        if credential is None:
            raise Refused(f"denied: request from \"{peer.host}\" carries no MUNGE credential")
        try:
            cred = munge.decode(credential, socket=self.munge_socket)
        except munge.MungeError as err:
            raise Refused(f"denied: MUNGE credential refused: {err.message}") from None
        if cred.payload != wire.credential_payload(payload):
            raise Refused("denied: the MUNGE credential was made for another request")
        return self._user_info(cred.uid, cred.gid, self.host_name(peer.host))

    def _user_info(self, uid: int, gid: int, host: str) -> UserInfo:
        now = self._clock()
        cached = self._users.get((uid, gid))
        if cached is None or now - cached[0] > USER_CACHE_SECONDS:
            cached = (now, self.lookup(uid, gid))
            self._users[(uid, gid)] = cached
        info = cached[1]
        if info is None:
            raise Refused(f"denied: user id {uid} is unknown on the qmaster host "
                          f"\"{self.qmaster_host}\"")
        return UserInfo(info.name, uid, info.group, gid, host)

    def host_name(self, address: str) -> str:
        """The host a peer address is, for the host lists (cached; see ``peer_host``)."""
        now = self._clock()
        cached = self._hosts.get(address)
        if cached is None or now - cached[0] > HOST_CACHE_SECONDS:
            cached = (now, peer_host(address, _resolve_address(address),
                                     _qmaster_domain()))
            self._hosts[address] = cached
        return cached[1]


def peer_host(address: str, names: tuple[str, list[str]] | None, domain: str) -> str:
    """The name a remote peer's host goes by in the host lists (pure).

    ``names`` is (name, addresses that name resolves to) from the qmaster's resolver, or
    None. The reverse name of an address is its owner's to choose, so it counts only when
    it resolves back to the address (forward-confirmed) and lies in the qmaster's own
    domain (or has none); it is then shortened to its first label, as local names are.
    Any other peer is known by its address, which matches only a list entry that is
    that address: a PTR record "vm.evil.example" cannot make a peer the host "vm".
    """
    if names is None:
        return address
    name, addresses = names
    if address not in addresses:
        return address
    head, _, rest = name.rstrip(".").partition(".")
    if rest and rest.lower() != domain.lower():
        return address
    return head or address


def _resolve_address(address: str) -> tuple[str, list[str]] | None:
    try:
        name = socket.gethostbyaddr(address)[0]
        found = socket.getaddrinfo(name, None)
    except (OSError, UnicodeError):
        return None
    return name, [str(info[4][0]) for info in found]


def _qmaster_domain() -> str:
    return socket.getfqdn().partition(".")[2]


def lookup_user(uid: int, gid: int) -> UserInfo | None:
    """Name and group of ``uid``/``gid`` in the qmaster host's user database."""
    try:
        name = pwd.getpwuid(uid).pw_name
    except KeyError:
        return None
    try:
        group = grp.getgrgid(gid).gr_name
    except KeyError:
        group = str(gid)
    return UserInfo(name, uid, group, gid)
