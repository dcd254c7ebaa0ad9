"""A hostile user of a live cell (issue 26): the worst request of each kind the issue
found, sent as raw frames on the qmaster's Unix socket, as ourselves or (root) as
another user, and the answers they get.

Used by the live scenario (tests/integration/test_hostile_user.py), which asserts that
the cell keeps answering, loses nothing and grants nothing, and by the benchmark
(tests/bench/bench_attack.py), which prints another user's qstat p99 while the attacks
run in a loop. Every receive has a deadline.
"""
from __future__ import annotations

import os
import pwd
import time
from dataclasses import dataclass, field
from typing import Any

import zmq

from common import wire
from common.cell import Cell
from tests.identity import effective_ids

ANSWER_SECONDS = 30.0
BIG_ARRAY = 75000
REPEATED_RANGES = 400   # the 9.6 KB hold request
FRAME_BYTES = 8 << 20   # the 8 MB frames of empty lists
WAITS = 2000            # past the qmaster's cap of waits per user (MAX_USER_WAITS)
SCRIPT_BYTES = 5 << 20  # past the default MAX_SCRIPT_SIZE (4M)
# the requests docs/security.md lets any user send (the gate's rules, stated here apart
# from qmaster/gate.py's own table so that the tests check it)
USER_TYPES = frozenset({"ping", "submit", "job_query", "cluster_query", "delete", "hold",
                        "release", "alter", "wait", "conf_get", "conf_put", "conf_del",
                        "userset_entries", "qmod", "clear_usage", "usage_query",
                        "share_tree_query", "trigger_monitor", "ar_submit", "ar_query",
                        "ar_delete", "pe_task_start", "daemon_control", "events"})


def raw_socket(cell: Cell, user: str | None) -> zmq.Socket:
    """A DEALER on the qmaster's Unix socket as ``user`` (None: as ourselves). The
    kernel records the ids of connect(2), made by libzmq's I/O thread: they stay switched
    until a ping is answered, and the socket never reconnects."""
    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.RECONNECT_IVL, -1)
    sock.setsockopt(zmq.RCVHWM, 0)
    sock.setsockopt(zmq.SNDHWM, 0)
    path = cell.qmaster_socket_path
    dir_fd = os.open(path.parent, os.O_PATH | os.O_DIRECTORY)
    try:
        if user is None:
            _connect(sock, f"ipc://{path}")
        else:
            entry = pwd.getpwnam(user)
            with effective_ids(entry.pw_uid, entry.pw_gid):
                _connect(sock, f"ipc:///proc/self/fd/{dir_fd}/{path.name}")
    except BaseException:
        sock.close(0)
        raise
    finally:
        os.close(dir_fd)
    return sock


def _connect(sock: zmq.Socket, endpoint: str) -> None:
    sock.connect(endpoint)
    sock.send(wire.encode("ping", {}, 1))
    if not sock.poll(int(ANSWER_SECONDS * 1000)):
        raise TimeoutError("the qmaster did not answer a ping")
    if wire.decode(sock.recv())[0] != "reply":
        raise ConnectionError("the qmaster did not answer a ping with a reply")


ANYONE = {"name": "x", "uid": 0, "group": "x", "gid": 0}  # (the gate puts the real one)


def empty_lists(msg_type: str, size: int) -> bytes:
    """A frame of ``msg_type`` whose body is ``size`` bytes of empty lists, in lists of
    65,535 (no one list past msgpack's per-field limit)."""
    per = 0xFFFF
    inner = b"\xdc" + per.to_bytes(2, "big") + b"\x90" * per
    outer = max(1, size // len(inner))
    body = b"\x81\xa1x\xdc" + outer.to_bytes(2, "big") + inner * outer
    kind = msg_type.encode()
    return (b"\x84\xa1v\x01\xa1t" + bytes((0xA0 | len(kind),)) + kind + b"\xa2id\x07\xa1b"
            + body)


@dataclass
class Attacker:
    """One hostile user's connection; ``answers`` counts the answers by code."""

    cell: Cell
    user: str | None = None
    answers: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.sock = raw_socket(self.cell, self.user)
        self.rid = 1

    def close(self) -> None:
        self.sock.close(0)

    def send(self, frames: list[bytes]) -> list[tuple[str, dict[str, Any]]]:
        """Send the frames at once; their answers (those that come: a wait that is kept
        answers later), by request id order."""
        first = self.rid + 1
        for frame in frames:
            self.sock.send(frame, copy=False)
        self.rid += len(frames)
        return self.collect(first, self.rid)

    def request(self, msg_type: str, body: dict[str, Any], count: int = 1
                ) -> list[tuple[str, dict[str, Any]]]:
        first = self.rid + 1
        return self.send([wire.encode(msg_type, {"user": ANYONE, **body}, first + i)
                          for i in range(count)])

    def collect(self, first: int, last: int, *, deferred_ok: bool = False
                ) -> list[tuple[str, dict[str, Any]]]:
        """The answers to requests ``first``..``last``; past the deadline (or, with waits
        outstanding, once nothing more comes for a second) what came."""
        got: dict[int, tuple[str, dict[str, Any]]] = {}
        deadline = time.monotonic() + ANSWER_SECONDS
        quiet = 1.0 if deferred_ok else ANSWER_SECONDS
        while len(got) < last - first + 1:
            left = min(deadline - time.monotonic(), quiet)
            if left <= 0 or not self.sock.poll(int(left * 1000)):
                break
            rtype, rid, body = wire.decode(self.sock.recv())
            if rid == 0:  # refused before its id was read: answered in turn
                rid = next((r for r in range(first, last + 1) if r not in got), 0)
            if first <= rid <= last:
                got[rid] = (rtype, body)
                code = body.get("code", "error") if rtype == "error" else "reply"
                self.answers[code] = self.answers.get(code, 0) + 1
        return [got[r] for r in sorted(got)]

    # ---- the attacks -------------------------------------------------------------------
    def hold_repeated(self, job_id: int) -> list[str]:
        """A hold naming the same task ranges of ``job_id`` 400 times: its results."""
        ranges = [[2, BIG_ARRAY - 1 - i % 3, 1] for i in range(REPEATED_RANGES)]
        [(rtype, body)] = self.request("hold", {"targets": [{"job_id": job_id,
                                                             "tasks": ranges}],
                                                "hold_type": "u"})
        return [r["result"] for r in body.get("results", [])] if rtype == "reply" \
            else [body["code"]]

    def large_frames(self, count: int = 5, msg_type: str = "wait") -> list[str]:
        """``count`` 8 MB frames of empty lists: the codes they were refused with."""
        frame = empty_lists(msg_type, FRAME_BYTES)
        return [body.get("code", rtype) for rtype, body in self.send([frame] * count)]

    def waits(self, job_id: int, count: int = WAITS) -> list[str]:
        """``count`` waits on one job at once: the codes of those refused at once (the
        others stay with the qmaster until the job ends)."""
        first = self.rid + 1
        for i in range(count):
            self.sock.send(wire.encode("wait", {"user": ANYONE, "job_ids": [job_id]},
                                       first + i))
        self.rid += count
        return [body.get("code", rtype)
                for rtype, body in self.collect(first, self.rid, deferred_ok=True)]

    def hold_tasks(self, job_id: int, add: bool = True) -> str:
        """qhold -t 2-75000 (or qrls) of the job: the result."""
        [(rtype, body)] = self.request("hold" if add else "release", {
            "targets": [{"job_id": job_id, "tasks": [[2, BIG_ARRAY, 1]]}], "hold_type": "u"})
        return str(body["results"][0]["result"]) if rtype == "reply" else str(body["code"])

    def submit(self, count: int = 1, script: bytes | None = None, **opts: Any
               ) -> tuple[str, dict[str, Any]]:
        """A submit of ``count`` jobs, held unless ``opts`` say (a script of its own:
        ``script``)."""
        from clients.api import job_request
        opts = {"hold": True, **opts}
        job = job_request("/bin/true", binary=script is None, script=script,
                          stdout_paths=["/dev/null"], stderr_paths=["/dev/null"], **opts)
        [answer] = self.request("submit", {"jobs": [job] * count})
        return answer

    def oversize_script(self) -> tuple[str, dict[str, Any]]:
        return self.submit(script=b"#!/bin/sh\n" + b"#" * SCRIPT_BYTES)
