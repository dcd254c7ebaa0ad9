"""Every message that crosses a socket, and the only code that packs or unpacks frames.

A message is a msgpack map ``{"v": PROTOCOL_VERSION, "t": type, "id": request_id, "b": body}``.
``MESSAGE_FIELDS`` lists each message type with the body fields it must carry and their
Python types; ``decode`` refuses anything else with a ``WireError``, so handlers can trust
what they receive. Events on the PUB socket travel as two frames: a topic
(``TOPIC_EVENTS`` or ``TOPIC_HEARTBEAT``) and a packed map.
"""
from __future__ import annotations

from typing import Any

import msgpack

PROTOCOL_VERSION = 1
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
TOPIC_EVENTS = b"ev"
TOPIC_HEARTBEAT = b"hb"

_INT = (int,)
_STR = (str,)
_LIST = (list,)
_DICT = (dict,)
_BOOL = (bool,)
_ANY = (object,)

# type -> {field: accepted python types}; every listed field is required.
MESSAGE_FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    # replies
    "reply": {},
    "error": {"code": _STR, "message": _STR},
    # clients -> qmaster
    "ping": {},
    "submit": {"user": _DICT, "jobs": _LIST},
    "job_query": {"user": _DICT},
    "cluster_query": {"user": _DICT},
    "delete": {"user": _DICT, "targets": _LIST},
    "hold": {"user": _DICT, "targets": _LIST, "hold_type": _STR},
    "release": {"user": _DICT, "targets": _LIST, "hold_type": _STR},
    "alter": {"user": _DICT, "targets": _LIST, "changes": _DICT},
    "wait": {"user": _DICT, "job_ids": _LIST},
    "conf_get": {"user": _DICT, "kind": _STR},
    "conf_put": {"user": _DICT, "kind": _STR, "name": _STR, "data": _ANY, "mode": _STR},
    "conf_del": {"user": _DICT, "kind": _STR, "name": _STR},
    "userset_entries": {"user": _DICT, "op": _STR, "users": _LIST, "lists": _LIST},
    # execd -> qmaster
    "register": {"host": _STR, "load": _DICT, "jobs": _LIST},
    "load_report": {"host": _STR, "load": _DICT},
    "job_started": {"host": _STR, "job_id": _INT, "task_id": _INT, "start_time": (float, int)},
    "job_finished": {"host": _STR, "job_id": _INT, "task_id": _INT, "result": _DICT},
    "job_start_failed": {"host": _STR, "job_id": _INT, "task_id": _INT, "reason": _STR},
    # qmaster -> execd
    "start_job": {"job_id": _INT, "task_id": _INT, "spec": _DICT},
    "signal_job": {"job_id": _INT, "task_id": _INT, "signal": _STR},
    "finished_ack": {"job_id": _INT, "task_id": _INT},
    # scheduler -> qmaster
    "snapshot": {},
    "orders": {"orders": _LIST},
}

# Which message types a peer may send to the qmaster's request endpoint.
REQUEST_TYPES = frozenset(MESSAGE_FIELDS) - {"reply", "error", "start_job", "signal_job",
                                             "finished_ack"}


class WireError(Exception):
    """A frame that is not a valid message of this protocol."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def encode(msg_type: str, body: dict[str, Any], request_id: int = 0) -> bytes:
    if msg_type not in MESSAGE_FIELDS:
        raise ValueError(f"unknown message type {msg_type!r}")
    return msgpack.packb({"v": PROTOCOL_VERSION, "t": msg_type, "id": request_id, "b": body},
                         use_bin_type=True)


def decode(frame: bytes) -> tuple[str, int, dict[str, Any]]:
    """(type, request id, body) of a frame, or WireError explaining why it is refused."""
    if len(frame) > MAX_MESSAGE_BYTES:
        raise WireError("too_large", f"message of {len(frame)} bytes exceeds the limit")
    try:
        msg = msgpack.unpackb(frame, raw=False, strict_map_key=False)
    except Exception as exc:  # msgpack raises several unrelated types
        raise WireError("malformed", f"undecodable message: {type(exc).__name__}") from None
    if not isinstance(msg, dict):
        raise WireError("malformed", "message is not a map")
    version = msg.get("v")
    if type(version) is not int or version != PROTOCOL_VERSION:  # True and 1.0 are not 1
        raise WireError("version", f"unsupported protocol version {version!r}")
    msg_type, request_id, body = msg.get("t"), msg.get("id", 0), msg.get("b")
    if not isinstance(msg_type, str) or msg_type not in MESSAGE_FIELDS:
        raise WireError("unknown_type", f"unknown message type {msg_type!r}")
    if not isinstance(request_id, int) or not isinstance(body, dict):
        raise WireError("malformed", "bad request id or body")
    _check_fields(msg_type, body)
    return msg_type, request_id, body


def _check_fields(msg_type: str, body: dict[str, Any]) -> None:
    for field, types in MESSAGE_FIELDS[msg_type].items():
        if field not in body:
            raise WireError("malformed", f"{msg_type}: missing field {field!r}")
        value = body[field]
        if types is not _ANY and (not isinstance(value, types) or
                                  (isinstance(value, bool) and bool not in types)):
            raise WireError("malformed", f"{msg_type}: field {field!r} has the wrong type")


def encode_event_batch(epoch: str, events: list[dict[str, Any]]) -> list[bytes]:
    return [TOPIC_EVENTS, msgpack.packb({"epoch": epoch, "events": events}, use_bin_type=True)]


def encode_heartbeat(epoch: str, seq: int) -> list[bytes]:
    return [TOPIC_HEARTBEAT, msgpack.packb({"epoch": epoch, "seq": seq}, use_bin_type=True)]


def decode_published(frames: list[bytes]) -> tuple[bytes, dict[str, Any]]:
    if len(frames) != 2:
        raise WireError("malformed", "published message needs two frames")
    try:
        payload = msgpack.unpackb(frames[1], raw=False, strict_map_key=False)
    except Exception:
        raise WireError("malformed", "undecodable published message") from None
    if not isinstance(payload, dict):
        raise WireError("malformed", "published payload is not a map")
    return frames[0], payload


def pack(obj: Any) -> bytes:
    """msgpack for files written by one daemon and read by another (job specs, results)."""
    return msgpack.packb(obj, use_bin_type=True)


def unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False, strict_map_key=False)
