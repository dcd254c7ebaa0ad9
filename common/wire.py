"""Every message that crosses a socket, and the only code that packs or unpacks frames.

A message is a msgpack map ``{"v": PROTOCOL_VERSION, "t": type, "id": request_id, "b": body}``.
``MESSAGE_SCHEMAS`` describes the body of each message type down to the last nested field
(``common.schema``; a submitted job is ``common.jobspec``'s description); ``decode`` returns
the body checked and in canonical shape, and refuses anything else with a ``WireError``
naming the field, so handlers can trust every value they receive. Events on the PUB socket travel as two frames: a topic
(``TOPIC_EVENTS`` or ``TOPIC_HEARTBEAT``) and a packed map.
"""
from __future__ import annotations


from typing import Any

import msgpack

from common.jobspec import ALTER_CHANGES, MAX_NAME, MAX_PE_SLOTS, MAX_TASK_ID, SUBMITTED_JOB
from common.schema import (MAX_INT, AnyMap, Bool, Bytes, Float, Int, ListOf, MapOf, OneOf, Optional, Schema,
                           SchemaError, Str, Struct, Tuple, shown)

PROTOCOL_VERSION = 1
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
TOPIC_EVENTS = b"ev"
TOPIC_HEARTBEAT = b"hb"
MAX_UID = (1 << 32) - 1
LIMIT_NAMES = frozenset({"s_rt", "h_rt", "s_cpu", "h_cpu", "s_fsize", "h_fsize", "s_data",
                         "h_data", "s_stack", "h_stack", "s_core", "h_core", "s_rss",
                         "h_rss", "s_vmem", "h_vmem"})
JOB_ACTIONS = frozenset({"kill", "terminate", "suspend", "resume"})

# ---- field shapes shared by several messages -----------------------------------------
_ID = Int(0, MAX_INT)
_JOB_ID = Int(1, MAX_INT)
_TASK_ID = Int(1, MAX_TASK_ID)
_NAME = Str(max_len=4096)
_RESERVED_HOSTS = frozenset({"global", "template", "none", "all"})


def _host_name(name: str) -> str | None:
    """A host name (RFC 1123 labels; '_' tolerated): never a host group ("@..."), a list
    ("a,b"), a pattern, or a name Grid Engine reserves (the pseudo host "global")."""
    if not name[:1].isalnum() or not all(c.isalnum() or c in "-._" for c in name) \
            or not name.isascii():
        return f"{name!r} is not a host name"
    if name.lower() in _RESERVED_HOSTS:
        return f"{name!r} is a reserved name"
    return None


_HOST = Str(max_len=255, nonempty=True, rule=_host_name)
_USER = Struct(required={"name": Str(max_len=256), "uid": Int(-1, MAX_UID),
                         "group": Str(max_len=256), "gid": Int(-1, MAX_UID)},
               optional={"host": (Str(max_len=255), "")})
_RANGE = Tuple((_TASK_ID, _TASK_ID, _TASK_ID))
_TARGET = Struct(optional={"job_id": (_JOB_ID, None), "user": (_NAME, None),
                           "name": (_NAME, None), "tasks": (ListOf(_RANGE, max_items=4096), None)},
                 sparse=True)  # a target names a job id, a user or a name pattern
_TARGETS = ListOf(_TARGET, max_items=1 << 16)
_LOAD = MapOf(Str(max_len=256, nonempty=True), OneOf((Str(max_len=4096), Float())),
              max_items=4096)
_GRANT = Tuple((Str(max_len=4096, nonempty=True), _HOST, Int(1, MAX_PE_SLOTS)))
_ORDER = Struct(required={"type": Str(choices=frozenset({"dispatch"})), "job_id": _JOB_ID,
                          "task_id": _TASK_ID, "task_version": _ID,
                          "granted": ListOf(_GRANT, min_items=1, max_items=1 << 16)},
                optional={"pe": (Optional(Str(max_len=MAX_NAME, nonempty=True)), None)})
_COUNT = Int(0, MAX_INT)
_SECONDS = Float(0.0, 1e12)
# what a shepherd reports of a finished job (execd.jobdir.make_result)
_USAGE_FIGURE = Float(0.0, 1e20)  # execd.jobdir caps figures at 1e18
_TASK_USAGE = Struct(required={"job_id": _JOB_ID, "task_id": _TASK_ID, "dispatched": _SECONDS,
                               "cpu": _USAGE_FIGURE, "mem": _USAGE_FIGURE, "io": _USAGE_FIGURE,
                               "vmem": _USAGE_FIGURE, "maxvmem": _USAGE_FIGURE})
_RESULT = Struct(
    required={"exit_status": Int(0, 1 << 16)},
    optional={"signal": (Int(0, 1024), 0), "failed": (Int(0, 1024), 0),
              "failed_reason": (Str(max_len=4096), ""), "error_message": (Str(max_len=1 << 16), ""),
              # what the qmaster does with the task (execd.jobdir: exit or prolog 99, 100)
              "action": (Str(choices=frozenset({"", "reschedule", "job_error",
                                                "queue_error"})), ""),
              "ended_by": (Str(max_len=64), ""),  # the limit or request that ended it
              "start_time": (Optional(_SECONDS), None), "end_time": (Optional(_SECONDS), None),
              "ru_wallclock": (Float(0.0, 1e12), 0.0), "ru_utime": (Float(0.0, 1e12), 0.0),
              "ru_stime": (Float(0.0, 1e12), 0.0), "maxvmem": (Float(0.0, 1e20), 0.0),
              "pid": (Int(0, MAX_INT), 0),
              **{name: (_COUNT, 0) for name in (
                  "ru_maxrss", "ru_ixrss", "ru_ismrss", "ru_idrss", "ru_isrss", "ru_minflt",
                  "ru_majflt", "ru_nswap", "ru_inblock", "ru_oublock", "ru_msgsnd",
                  "ru_msgrcv", "ru_nsignals", "ru_nvcsw", "ru_nivcsw")},
              **{name: (Float(0.0, 1e20), 0.0) for name in ("cpu", "mem", "io", "iow")}})
# [name, value] pairs, or the complex list's rows: each kind's validator checks the arity
_PATH = Optional(Str(max_len=4096))
# what the shepherd is told to run (qmaster.start_spec.start_spec); the execd adds its own
# fields (switch_user, notify_socket, ...) to the file it writes, not to the message
_START_SPEC = Struct(
    required={"job_id": _JOB_ID, "task_id": Optional(_TASK_ID), "job_name": _NAME,
              "owner": _NAME, "uid": Int(0, MAX_UID), "gid": Int(0, MAX_UID),
              "group": _NAME, "binary": Bool(), "command": Str(max_len=1 << 16),
              "args": ListOf(Str(), max_items=65536), "script": Optional(Bytes()),
              "shell": Str(max_len=4096), "shell_start_mode": Str(max_len=64),
              "cwd": _PATH, "stdout_path": _PATH, "stderr_path": _PATH, "merge": Bool(),
              "env": MapOf(Str(max_len=4096, nonempty=True), Optional(Str())),
              "sge_o": MapOf(Str(max_len=64, nonempty=True), Str(max_len=1 << 16)),
              "queue": Str(max_len=4096, nonempty=True), "host": _HOST,
              "slots": Int(1, MAX_PE_SLOTS), "nhosts": Int(1, 1 << 20),
              "array": Optional(Tuple((_TASK_ID, _TASK_ID, _TASK_ID))),
              "pe": Optional(Str(max_len=MAX_NAME)), "pe_hostfile": Optional(Str()),
              "tmpdir_base": Str(max_len=4096, nonempty=True)},
    optional={"umask": (Int(0, 0o777), 0o022),
              # the queue instance's execution attributes, resolved for the host
              # (qmaster.start_spec)
              "limits": (MapOf(Str(choices=LIMIT_NAMES), Float(0.0, 1e30), max_items=32), dict),
              "notify_job": (Bool(), False), "notify": (Float(0.0, 1e9), 60.0),
              "dispatched": (_SECONDS, 0.0),
              "restarted": (Int(0, 1), 0), "priority": (Int(-20, 20), 0),
              "processors": (_PATH, None), "prolog": (_PATH, None), "epilog": (_PATH, None),
              "starter_method": (_PATH, None), "suspend_method": (_PATH, None),
              "resume_method": (_PATH, None), "terminate_method": (_PATH, None),
              "login_shells": (ListOf(Str(max_len=256), max_items=256),
                               ["bash", "sh", "ksh", "csh", "tcsh"])})
_CONF_ROWS = ListOf(ListOf(Str(max_len=1 << 20), max_items=64), max_items=1 << 16)
_NAMES = ListOf(Str(max_len=4096, nonempty=True), max_items=1 << 16)
_ANY_MAP = AnyMap()  # replies: only the qmaster sends them; fields vary per request

# message type -> the schema of its body; decode() refuses anything it does not accept
MESSAGE_SCHEMAS: dict[str, Schema] = {
    # replies
    "reply": _ANY_MAP,
    "error": Struct(required={"code": Str(max_len=64), "message": Str()}),
    # clients -> qmaster
    "ping": Struct(),
    "submit": Struct(required={"user": _USER,
                               "jobs": ListOf(SUBMITTED_JOB, min_items=1, max_items=1 << 17)}),
    "job_query": Struct(required={"user": _USER},
                        optional={"include_finished": (Bool(), False),
                                  "job_ids": (Optional(ListOf(_JOB_ID, max_items=1 << 17)), None),
                                  "with_script": (Bool(), False), "explain": (Bool(), False),
                                  "set_aside": (Bool(), False)}),
    "cluster_query": Struct(required={"user": _USER}, optional={"resources": (Bool(), False)}),
    "delete": Struct(required={"user": _USER, "targets": _TARGETS},
                     optional={"force": (Bool(), False)}),
    "hold": Struct(required={"user": _USER, "targets": _TARGETS,
                             "hold_type": Str(choices=frozenset("uos"))}),
    "release": Struct(required={"user": _USER, "targets": _TARGETS,
                                "hold_type": Str(choices=frozenset("uos"))}),
    "alter": Struct(required={"user": _USER, "targets": _TARGETS, "changes": ALTER_CHANGES}),
    "wait": Struct(required={"user": _USER,
                             "job_ids": ListOf(_JOB_ID, min_items=1, max_items=1 << 17)}),
    "conf_get": Struct(required={"user": _USER, "kind": Str(max_len=64)}),
    "conf_put": Struct(required={"user": _USER, "kind": Str(max_len=64),
                                 "name": Str(max_len=4096),
                                 "data": Optional(_CONF_ROWS),  # nil: a list entry
                                 "mode": Str(choices=frozenset({"add", "modify"}))}),
    "conf_del": Struct(required={"user": _USER, "kind": Str(max_len=64),
                                 "name": Str(max_len=4096)}),
    # qmod: items in the order qmaster.queue_control applies them (clients.qmod.options)
    "qmod": Struct(required={"user": _USER, "items": ListOf(Struct(
        required={"action": Str(choices=frozenset({"clear", "disable", "enable", "reschedule",
                                                   "suspend", "unsuspend"})),
                  "scope": Str(choices=frozenset({"any", "job", "queue"})),
                  "ref": Str(max_len=4096, nonempty=True)},
        optional={"tasks": (Optional(ListOf(_RANGE, max_items=4096)), None)}),
        min_items=1, max_items=1 << 16)}, optional={"force": (Bool(), False)}),
    "userset_entries": Struct(required={"user": _USER,
                                        "op": Str(choices=frozenset({"add", "delete"})),
                                        "users": _NAMES, "lists": _NAMES}),
    # execd -> qmaster
    "register": Struct(required={"host": _HOST, "load": _LOAD,
                                 "jobs": ListOf(Struct(required={"job_id": _JOB_ID,
                                                                 "task_id": _TASK_ID},
                                                       optional={"dispatched": (_SECONDS,
                                                                                0.0)}),
                                                max_items=1 << 16)},
                      optional={"global_load": (_LOAD, {})}),
    # "usage": each running task's usage so far (qstat -j's usage line); "global_load":
    # the values its load sensors report for the global host (global:name:value)
    "load_report": Struct(required={"host": _HOST, "load": _LOAD},
                          optional={"usage": (ListOf(_TASK_USAGE, max_items=1 << 16), []),
                                    "global_load": (_LOAD, {})}),
    # "dispatched": the dispatch time of the run the message is about (start spec), so
    # that a late message of an earlier run of a rescheduled task is not taken for this one
    "job_started": Struct(required={"host": _HOST, "job_id": _JOB_ID, "task_id": _TASK_ID,
                                    "start_time": _SECONDS},
                          optional={"dispatched": (_SECONDS, 0.0)}),
    "job_finished": Struct(required={"host": _HOST, "job_id": _JOB_ID, "task_id": _TASK_ID,
                                     "result": _RESULT},
                           optional={"dispatched": (_SECONDS, 0.0)}),
    "job_start_failed": Struct(required={"host": _HOST, "job_id": _JOB_ID,
                                         "task_id": _TASK_ID, "reason": Str(max_len=1 << 16)}),
    # qmaster -> execd
    "start_job": Struct(required={"job_id": _JOB_ID, "task_id": _TASK_ID,
                                  "spec": _START_SPEC}),
    # what the execd does to a running task: "terminate" (qdel: -notify warning, then
    # terminate_method), "suspend"/"resume" (-notify warning, suspend_method,
    # resume_method), "kill" (SIGKILL at once: a task the qmaster does not know)
    # "dispatched" (not 0): only that run of the task (an earlier run of a task that was
    # rescheduled while its host was lost, and may have been sent back to the same host)
    "signal_job": Struct(required={"job_id": _JOB_ID, "task_id": _TASK_ID,
                                   "action": Str(choices=JOB_ACTIONS)},
                         optional={"dispatched": (_SECONDS, 0.0)}),
    "finished_ack": Struct(required={"job_id": _JOB_ID, "task_id": _TASK_ID}),
    # scheduler -> qmaster
    "snapshot": Struct(),
    "orders": Struct(required={"orders": ListOf(_ORDER, max_items=1 << 17)}),
}
MESSAGE_FIELDS = MESSAGE_SCHEMAS  # the message types (older name)

# Which message types a peer may send to the qmaster's request endpoint.
REQUEST_TYPES = frozenset(MESSAGE_SCHEMAS) - {"reply", "error", "start_job", "signal_job",
                                              "finished_ack"}


class WireError(Exception):
    """A frame that is not a valid message of this protocol."""

    def __init__(self, code: str, message: str, request_id: int = 0) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.request_id = request_id  # known when only the body was refused


def credential_payload(payload: bytes) -> bytes:
    """What a remote client's MUNGE credential carries for request ``payload``: its
    SHA-256 digest, so the credential proves this request and no other (qmaster.gate)."""
    import hashlib  # (remote clients and the qmaster only: not every command's start)
    return hashlib.sha256(payload).digest()


def encode(msg_type: str, body: dict[str, Any], request_id: int = 0) -> bytes:
    if msg_type not in MESSAGE_SCHEMAS:
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
        raise WireError("version", f"unsupported protocol version {shown(version)}")
    msg_type, request_id, body = msg.get("t"), msg.get("id", 0), msg.get("b")
    if not isinstance(msg_type, str) or msg_type not in MESSAGE_SCHEMAS:
        raise WireError("unknown_type", f"unknown message type {shown(msg_type)}")
    if type(request_id) is not int:
        raise WireError("malformed", "bad request id")
    try:
        body = MESSAGE_SCHEMAS[msg_type].check(body, "")
    except SchemaError as err:
        raise WireError("malformed", f"{msg_type}: {err}", request_id) from None
    return msg_type, request_id, body


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
