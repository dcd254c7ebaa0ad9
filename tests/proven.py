"""For unit tests of the qmaster's handlers: messages arrive as if the gate had proven
the sender that the body names.

A real qmaster learns who sent a message from the kernel, a MUNGE credential or a
CURVE key (qmaster.gate, tested in tests/unit/test_gate.py and on live cells). Handler
tests call ``QmasterServer._process`` directly with made-up users (alice, uid 1001,
...), which no password database knows: ``ProvenSenders`` makes each message an
``Incoming`` whose peer is the one the message's type needs (a local user with the
body's uid and gid, the execd of the body's host, the scheduler), and gives the gate a
user database made of the users the bodies named.
"""
from __future__ import annotations

from common import wire
from common.model import UserInfo
from qmaster import gate
from qmaster.server import Incoming, QmasterServer


class ProvenSenders:
    def __init__(self, server: QmasterServer) -> None:
        self.users: dict[tuple[int, int], UserInfo] = {}
        server.gate.lookup = lambda uid, gid: self.users.get((uid, gid))

    def peer_of(self, payload: bytes) -> gate.Peer:
        try:
            msg_type, _, body = wire.decode(payload)
        except wire.WireError:
            return gate.Peer(gate.LOCAL, 0, 0)  # refused before anyone asks who sent it
        if msg_type in gate.EXECD_MESSAGES - gate.USER_MESSAGES:
            return gate.Peer(gate.EXECD, host=str(body.get("host", "")))
        if msg_type in gate.SCHEDULER_MESSAGES - gate.USER_MESSAGES:
            return gate.Peer(gate.SCHEDULER)
        user = body.get("user") or {}
        uid, gid = int(user.get("uid", 0)), int(user.get("gid", 0))
        self.users[(uid, gid)] = UserInfo(str(user.get("name", "root")), uid,
                                          str(user.get("group", "root")), gid)
        return gate.Peer(gate.LOCAL, uid, gid)

    def incoming(self, identity: bytes, payload: bytes) -> Incoming:
        return Incoming(identity, self.peer_of(payload).text(), None, payload)

    def batch(self, frames_list: list[list[bytes]]) -> list[Incoming]:
        """``[[identity, payload], ...]`` as the server's loop would hand them over."""
        return [self.incoming(frames[0], frames[-1]) for frames in frames_list
                if len(frames) == 2]


def process(server: QmasterServer, frames_list: list[list[bytes]]) -> None:
    """``server._process`` of ``[[identity, payload], ...]`` with proven senders."""
    senders = getattr(server, "_test_senders", None)
    if senders is None:
        senders = ProvenSenders(server)
        setattr(server, "_test_senders", senders)
    server._process(senders.batch(frames_list))

