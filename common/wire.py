"""Every message that crosses a socket, and the only code that packs or unpacks frames.

A message is a msgpack map ``{"v": PROTOCOL_VERSION, "t": type, "id": request_id, "b": body}``.
``MESSAGE_SCHEMAS`` describes the body of each message type down to the last nested field
(``common.schema``; a submitted job is ``common.jobspec``'s description); ``decode`` returns
the body checked and in canonical shape, and refuses anything else with a ``WireError``
naming the field, so handlers can trust every value they receive. Events on the PUB socket travel as two frames: a topic
(``TOPIC_EVENTS`` or ``TOPIC_HEARTBEAT``) and a packed map.

What a command loads at start-up is kept small (issue 12): a message type's schema is
built the first time a message of that type is checked, and msgpack is imported only
when a message is too large or too unusual for the small codec below.
"""
from __future__ import annotations

import sys

from common.schema import (MAX_INT, AnyMap, Bool, Float, Int, ListOf, MapOf, OneOf,
                           Optional, Schema, SchemaError, Str, Struct, Tuple, shown)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any, Callable, Iterator, KeysView


# Whether this process is a command (``use_lean_msgpack``): only then is msgpack loaded
# without its extension types.
_lean_msgpack = {"on": False}


def use_lean_msgpack() -> None:
    """Declare this process a command (``clients.run``): single-threaded, msgpack used for
    our messages alone, so ``_import_msgpack`` may load it without its extension types.
    A program that uses the client API gets msgpack whole."""
    _lean_msgpack["on"] = True


def _import_msgpack() -> ModuleType:
    """msgpack, imported without running ``datetime.py`` when nothing has loaded it yet,
    and in a command without ``msgpack/ext.py`` either (issue 12: together 2.3 -> 0.6 ms,
    on the path of a command that reads a large answer, such as ``qstat`` with 500 jobs).

    msgpack's C extension and ``msgpack.ext`` use the datetime types, for the Timestamp
    extension that no message of ours carries. ``datetime.py`` defines all its classes in
    Python and then replaces every one of them with those of its C accelerator
    ``_datetime``, so while msgpack is imported ``datetime`` stands for ``_datetime`` in
    ``sys.modules``; the name is freed again afterwards, and a later ``import datetime``
    loads the real module, whose classes are the very objects msgpack holds.

    ``msgpack.ext`` defines ``ExtType`` (a namedtuple: ``collections``, 1.3 ms) and
    ``Timestamp``, the values of msgpack's extension types, which none of our messages
    holds (``MESSAGE_SCHEMAS`` admits none). In a command (``use_lean_msgpack``) that has
    not loaded ``collections`` already, ``msgpack.ext`` is ``_no_extensions()``: an
    extension value in a frame is refused as malformed (its class refuses to be made)
    and one is never packed. Daemons import msgpack themselves, whole, before any of
    this runs (common.daemon, qmaster.spool, execd.jobdir). Should a msgpack release want
    more of ``msgpack.ext`` than the stand-in has, before its C extension is loaded, the
    stand-in is dropped and msgpack imported whole (only the time is lost)."""
    if "datetime" in sys.modules or "msgpack" in sys.modules:
        import msgpack
        return msgpack
    try:
        import _datetime
    except ImportError:  # an interpreter without the accelerator: the plain way
        import msgpack
        return msgpack
    sys.modules["datetime"] = _datetime
    try:
        if not _lean_msgpack["on"] or "collections" in sys.modules:
            import msgpack
            return msgpack
        sys.modules["msgpack.ext"] = stand_in = _no_extensions()
        try:
            import msgpack
        except BaseException as err:
            # a msgpack that reads more of msgpack.ext, before its C extension: whole,
            # then; not installed, or failed past its C extension: as it is
            wants_more = isinstance(err, ImportError) and err.name != "msgpack" \
                and "msgpack._cmsgpack" not in sys.modules
            _forget_msgpack()
            if not wants_more:
                raise
            import msgpack
        else:
            msgpack.ext = stand_in  # (as an import of the submodule would have set it)
    finally:
        if sys.modules.get("datetime") is _datetime:
            del sys.modules["datetime"]
    return msgpack


def _forget_msgpack() -> None:
    for name in [n for n in sys.modules if n == "msgpack" or n.startswith("msgpack.")]:
        del sys.modules[name]


class _NoExtension(Exception):
    """A msgpack extension value (ext type or timestamp): no message of ours has one."""


def _no_extensions() -> ModuleType:
    """The stand-in for ``msgpack.ext`` (see ``_import_msgpack``): the two classes msgpack
    takes from it, which refuse to be made (also by the constructors that msgpack's
    pure-Python fallback calls)."""
    module = type(sys)("msgpack.ext")
    module.__spec__ = type(sys.__spec__)("msgpack.ext", None)
    module.__doc__ = "pygridengine's stand-in: its messages carry no msgpack extension types"

    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        raise _NoExtension("msgpack extension value")

    class ExtType(tuple):  # (a tuple, as msgpack's own)
        __slots__ = ()

        def __new__(cls, code: int, data: bytes) -> ExtType:
            raise _NoExtension(f"msgpack extension type {code}")

    class Timestamp:
        __slots__ = ()
        from_bytes = from_unix = from_unix_nano = from_datetime = staticmethod(refuse)

        def __init__(self, seconds: int, nanoseconds: int = 0) -> None:
            raise _NoExtension("msgpack timestamp")

    for cls in (ExtType, Timestamp):
        cls.__module__ = module.__name__
        cls.__qualname__ = cls.__name__
        setattr(module, cls.__name__, cls)
    return module


_msgpack_module: ModuleType | None = None


def _msgpack() -> ModuleType:
    """The msgpack module, imported when it is first needed."""
    global _msgpack_module
    if _msgpack_module is None:
        _msgpack_module = _import_msgpack()
    return _msgpack_module


def load_msgpack() -> None:
    """Import msgpack now, for a large message that is on its way (``decode`` then
    unpacks every message with it): a client calls this while the qmaster works on an
    answer it expects to be large, so that the import overlaps the qmaster's work."""
    _msgpack()


def msgpack_loaded() -> bool:
    """Whether msgpack is imported (by ``load_msgpack`` or anything else)."""
    return "msgpack" in sys.modules


# ---- the small codec ---------------------------------------------------------------------
# A command sends one small request and, for qsub and most runs, gets one small reply:
# importing msgpack (its C extension, msgpack.ext with collections' namedtuple, struct)
# costs such a run about 3 ms, more than packing and unpacking a few hundred bytes in
# Python does. Until something has imported msgpack, encode() and decode() try the
# functions below first. They take builtin types only (exactly: no subclasses) and give
# exactly msgpack's bytes and values (tests/unit/test_wire_small_codec.py checks both
# against msgpack); for anything else (another type, a frame or body over SMALL_BYTES,
# a malformed frame) they raise _NotSmall, and msgpack packs, unpacks or refuses it as
# before. A daemon loads msgpack with its first spool record, snapshot or large message
# (or at start, the execd) and from then on uses msgpack alone.
SMALL_BYTES = 16 * 1024
_MAX_DEPTH = 200  # well inside Python's recursion limit; msgpack decides about deeper nesting


class _NotSmall(Exception):
    """Not for the small codec: msgpack packs, unpacks or refuses it."""


class _SmallPacker:
    """msgpack.packb(obj, use_bin_type=True) for None, bool, int, float, str, bytes, list,
    tuple and dict, up to SMALL_BYTES of output."""

    __slots__ = ("parts", "size")

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.size = 0

    def add(self, data: bytes) -> None:
        self.parts.append(data)
        self.size += len(data)
        if self.size > SMALL_BYTES:
            raise _NotSmall

    def pack(self, obj: Any, depth: int = 0) -> None:
        kind = type(obj)
        if obj is None:
            self.add(b"\xc0")
        elif kind is bool:
            self.add(b"\xc3" if obj else b"\xc2")
        elif kind is int:
            self.add(_packed_int(obj))
        elif kind is str:
            try:
                data = obj.encode("utf-8")
            except UnicodeEncodeError:  # (a lone surrogate: msgpack's error)
                raise _NotSmall from None
            self.add(_header(len(data), 0xA0, 32, b"\xd9\xda\xdb") + data)
        elif kind is bytes:
            self.add(_header(len(obj), None, 0, b"\xc4\xc5\xc6") + obj)
        elif kind is float:
            import struct  # (a few bytes of module; no request of a command holds a float)
            self.add(b"\xcb" + struct.pack(">d", obj))
        elif (kind is list or kind is tuple) and depth < _MAX_DEPTH:
            self.add(_header(len(obj), 0x90, 16, b"\xdc\xdc\xdd"))
            for item in obj:
                self.pack(item, depth + 1)
        elif kind is dict and depth < _MAX_DEPTH:
            self.add(_header(len(obj), 0x80, 16, b"\xde\xde\xdf"))
            for key, value in obj.items():
                self.pack(key, depth + 1)
                self.pack(value, depth + 1)
        else:
            raise _NotSmall


def _header(length: int, fix: int | None, fix_limit: int, codes: bytes) -> bytes:
    """The type byte and length of a str, bin, array or map: the fix form below
    ``fix_limit``, then msgpack's 8-, 16- and 32-bit forms (``codes``; arrays and maps
    have no 8-bit form and repeat their 16-bit code)."""
    if length < fix_limit:
        return bytes((fix | length,))  # type: ignore[operator]
    if length < 0x100 and codes[0] != codes[1]:
        return bytes((codes[0], length))
    if length < 0x10000:
        return bytes((codes[1],)) + length.to_bytes(2, "big")
    return bytes((codes[2],)) + length.to_bytes(4, "big")


def _packed_int(value: int) -> bytes:
    """msgpack's smallest form of an integer, as its C packer chooses it."""
    if 0 <= value < 0x80:
        return bytes((value,))
    if -0x20 <= value < 0:
        return bytes((value + 0x100,))
    if value >= 0:
        for code, size in ((0xCC, 1), (0xCD, 2), (0xCE, 4), (0xCF, 8)):
            if value < 1 << (8 * size):
                return bytes((code,)) + value.to_bytes(size, "big")
    else:
        for code, size in ((0xD0, 1), (0xD1, 2), (0xD2, 4), (0xD3, 8)):
            if value >= -(1 << (8 * size - 1)):
                return bytes((code,)) + value.to_bytes(size, "big", signed=True)
    raise _NotSmall  # beyond 64 bits: msgpack's OverflowError


class _SmallUnpacker:
    """msgpack.unpackb(data, raw=False, strict_map_key=False) for frames made of nil,
    booleans, integers, floats, str, bin, arrays and maps only, read to their last byte."""

    __slots__ = ("data", "pos")

    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def take(self, count: int) -> bytes:
        end = self.pos + count
        if end > len(self.data):
            raise _NotSmall  # truncated: msgpack's error
        chunk, self.pos = self.data[self.pos:end], end
        return chunk

    def length(self, size: int) -> int:
        return int.from_bytes(self.take(size), "big")

    def value(self, depth: int = 0) -> Any:
        code = self.take(1)[0]
        if code <= 0x7F:
            return code
        if code >= 0xE0:
            return code - 0x100
        if code <= 0x8F:
            return self.map(code & 0x0F, depth)
        if code <= 0x9F:
            return self.array(code & 0x0F, depth)
        if code <= 0xBF:
            return self.text(code & 0x1F)
        if code == 0xC0:
            return None
        if code in (0xC2, 0xC3):
            return code == 0xC3
        if 0xC4 <= code <= 0xC6:
            return self.take(self.length(1 << (code - 0xC4)))
        if code in (0xCA, 0xCB):
            import struct
            single = code == 0xCA
            return struct.unpack(">f" if single else ">d", self.take(4 if single else 8))[0]
        if 0xCC <= code <= 0xCF:
            return self.length(1 << (code - 0xCC))
        if 0xD0 <= code <= 0xD3:
            return int.from_bytes(self.take(1 << (code - 0xD0)), "big", signed=True)
        if 0xD9 <= code <= 0xDB:
            return self.text(self.length(1 << (code - 0xD9)))
        if code in (0xDC, 0xDD):
            return self.array(self.length(2 if code == 0xDC else 4), depth)
        if code in (0xDE, 0xDF):
            return self.map(self.length(2 if code == 0xDE else 4), depth)
        raise _NotSmall  # 0xc1 and the ext types: msgpack's to read or refuse

    def text(self, size: int) -> str:
        try:
            return self.take(size).decode("utf-8")
        except UnicodeDecodeError:
            raise _NotSmall from None

    def array(self, count: int, depth: int) -> list[Any]:
        if depth >= _MAX_DEPTH:
            raise _NotSmall
        return [self.value(depth + 1) for _ in range(count)]

    def map(self, count: int, depth: int) -> dict[Any, Any]:
        if depth >= _MAX_DEPTH:
            raise _NotSmall
        out: dict[Any, Any] = {}
        for _ in range(count):
            key = self.value(depth + 1)
            try:
                out[key] = self.value(depth + 1)
            except TypeError:  # an unhashable key: msgpack's error
                raise _NotSmall from None
        return out


def _packb(obj: Any) -> bytes:
    """msgpack.packb(obj, use_bin_type=True), without msgpack for a small message while
    nothing has loaded it."""
    if "msgpack" not in sys.modules:
        packer = _SmallPacker()
        try:
            packer.pack(obj)
            return b"".join(packer.parts)
        except Exception:  # _NotSmall (or a fault of ours): msgpack's answer is the rule
            pass
    return _msgpack().packb(obj, use_bin_type=True)  # type: ignore[no-any-return]


def _unpackb(frame: bytes) -> Any:
    """msgpack.unpackb(frame, raw=False, strict_map_key=False), without msgpack for a small
    frame while nothing has loaded it."""
    if "msgpack" not in sys.modules and type(frame) is bytes and len(frame) <= SMALL_BYTES:
        unpacker = _SmallUnpacker(frame)
        try:
            value = unpacker.value()
            if unpacker.pos == len(frame):
                return value
        except Exception:  # _NotSmall (or a fault of ours): msgpack's answer is the rule
            pass
    return _msgpack().unpackb(frame, raw=False, strict_map_key=False)


PROTOCOL_VERSION = 1
# The largest frame: a submit (its scripts) or a daemon's message (zmq.MAXMSGSIZE).
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
# Any other request of a user (issue 26: unpacking costs up to 70 bytes of memory per
# byte of frame, 4.5 GB for 64 MiB of empty lists): the largest a command sends is a wait
# on 131,072 job ids or a delete of 65,536 targets, well inside this. A larger frame is
# refused on its size and type alone, before anything of it is unpacked.
MAX_REQUEST_BYTES = 1024 * 1024
# What msgpack itself refuses while it unpacks a user's frame, before the schema looks at
# it: the longest string, list and map any schema admits (common.schema's MAX_STRING,
# the longest lists: 131,072 job ids) and a script (MAX_SCRIPT_BYTES: bin).
UNPACK_LIMITS = {"max_str_len": 1 << 20, "max_bin_len": MAX_MESSAGE_BYTES,
                 "max_array_len": 1 << 17, "max_map_len": 1 << 16, "max_ext_len": 0}
# Values (lists, maps and their entries) one user's frame may hold in all: per-field
# limits alone do not bound a frame of many small lists. A job of a submit holds about
# twenty (a few hundred with qsub -V's environment): a bulk submit of MAX_SUBMIT_JOBS
# plain jobs fits, of jobs with large environments about a thousand per request. A
# frame of this many empty lists costs about 15 MB and 30 ms to unpack before it is
# refused (bench_attack: the attacker's worst single request).
MAX_REQUEST_VALUES = 1 << 18
TOPIC_EVENTS = b"ev"
TOPIC_HEARTBEAT = b"hb"
TOPIC_SHUTDOWN = b"sd"  # qconf -ks/-kt scheduler/-kec: the scheduler stops (its SIGTERM path)
DAEMON_ACTIONS = frozenset({"km", "ks", "kt", "at", "ke", "kej", "kec", "secl", "sss"})
MAX_UID = (1 << 32) - 1
JOB_ACTIONS = frozenset({"kill", "terminate", "suspend", "resume", "migrate"})

# ---- field shapes shared by several messages ------------------------------------------
# Functions rather than constants: a message type's schema is built the first time a
# message of that type is checked (``MESSAGE_SCHEMAS``), so a command, which only ever
# decodes replies, builds none of them at start-up.
_RESERVED_HOSTS = frozenset({"global", "template", "none", "all"})


def _id() -> Int:
    return Int(0, MAX_INT)


def _job_id() -> Int:
    return Int(1, MAX_INT)


def _task_id() -> Int:
    from common.jobspec import MAX_TASK_ID
    return Int(1, MAX_TASK_ID)


def _name() -> Str:
    return Str(max_len=4096)


def _host_name(name: str) -> str | None:
    """A host name (RFC 1123 labels; '_' tolerated): never a host group ("@..."), a list
    ("a,b"), a pattern, or a name Grid Engine reserves (the pseudo host "global")."""
    if not name[:1].isalnum() or not all(c.isalnum() or c in "-._" for c in name) \
            or not name.isascii():
        return f"{name!r} is not a host name"
    if name.lower() in _RESERVED_HOSTS:
        return f"{name!r} is a reserved name"
    return None


def _host() -> Str:
    return Str(max_len=255, nonempty=True, rule=_host_name)


def _user() -> Struct:
    return Struct(required={"name": Str(max_len=256), "uid": Int(-1, MAX_UID),
                            "group": Str(max_len=256), "gid": Int(-1, MAX_UID)},
                  optional={"host": (Str(max_len=255), "")})


def _range() -> Tuple:
    return Tuple((_task_id(), _task_id(), _task_id()))


def _targets() -> ListOf:
    target = Struct(optional={"job_id": (_job_id(), None), "user": (_name(), None),
                              "name": (_name(), None),
                              "tasks": (ListOf(_range(), max_items=4096), None),
                              # a repeated request: a user's or name's jobs after this
                              "after": (_job_id(), None)},
                    sparse=True)  # a target names a job id, a user or a name pattern
    return ListOf(target, max_items=1 << 16)


def _load() -> MapOf:
    return MapOf(Str(max_len=256, nonempty=True), OneOf((Str(max_len=4096), Float())),
                 max_items=4096)


def _order() -> Struct:
    from common.jobspec import MAX_NAME, MAX_PE_SLOTS
    grant = Tuple((Str(max_len=4096, nonempty=True), _host(), Int(1, MAX_PE_SLOTS)))
    return Struct(required={"type": Str(choices=frozenset({"dispatch"})), "job_id": _job_id(),
                            "task_id": _task_id(), "task_version": _id(),
                            "granted": ListOf(grant, min_items=1, max_items=1 << 16)},
                  optional={"pe": (Optional(Str(max_len=MAX_NAME, nonempty=True)), None)})


def _count() -> Int:
    return Int(0, MAX_INT)


def _seconds() -> Float:
    return Float(0.0, 1e12)


def _task_usage() -> Struct:
    figure = Float(0.0, 1e20)  # execd.jobdir caps figures at 1e18
    return Struct(required={"job_id": _job_id(), "task_id": _task_id(),
                            "dispatched": _seconds(), "cpu": figure, "mem": figure,
                            "io": figure, "vmem": figure, "maxvmem": figure})


def _result() -> Struct:
    """What a shepherd reports of a finished job (execd.jobdir.make_result)."""
    return Struct(
        required={"exit_status": Int(0, 1 << 16)},
        optional={"signal": (Int(0, 1024), 0), "failed": (Int(0, 1024), 0),
                  "failed_reason": (Str(max_len=4096), ""),
                  "error_message": (Str(max_len=1 << 16), ""),
                  # what the qmaster does with the task (execd.jobdir: exit or prolog 99, 100)
                  "action": (Str(choices=frozenset({"", "reschedule", "job_error",
                                                    "queue_error"})), ""),
                  "ended_by": (Str(max_len=64), ""),  # the limit or request that ended it
                  "start_time": (Optional(_seconds()), None),
                  "end_time": (Optional(_seconds()), None),
                  "ru_wallclock": (Float(0.0, 1e12), 0.0), "ru_utime": (Float(0.0, 1e12), 0.0),
                  "ru_stime": (Float(0.0, 1e12), 0.0), "maxvmem": (Float(0.0, 1e20), 0.0),
                  "pid": (Int(0, MAX_INT), 0),
                  **{name: (_count(), 0) for name in (
                      "ru_maxrss", "ru_ixrss", "ru_ismrss", "ru_idrss", "ru_isrss",
                      "ru_minflt", "ru_majflt", "ru_nswap", "ru_inblock", "ru_oublock",
                      "ru_msgsnd", "ru_msgrcv", "ru_nsignals", "ru_nvcsw", "ru_nivcsw")},
                  **{name: (Float(0.0, 1e20), 0.0) for name in ("cpu", "mem", "io", "iow")}})


def _path() -> Optional:
    return Optional(Str(max_len=4096))


def _start_spec() -> Struct:
    """What the shepherd is told to run: the record of ``common.start_record`` (built by
    qmaster.start_spec, read by execd.jobdir), which is the only description of it."""
    from common.start_record import message_schema
    return message_schema()


MAX_PE_TASK_ARGS = 65536  # arguments of one qrsh -inherit command (start_record's args)
MAX_PE_TASK_SEQ = 1 << 30  # parallel tasks one job may start in its life


def _pe_seq() -> Int:
    return Int(1, MAX_PE_TASK_SEQ)


def _pe_task_id() -> Str:
    from common.jobspec import MAX_NAME
    return Str(max_len=MAX_NAME, nonempty=True)


def _session() -> Schema:
    from common.jobspec import session_schema
    return session_schema()


def _task_env() -> MapOf:
    """qrsh -inherit -V/-v: variables for the task (the job description's rules)."""
    from common.jobspec import OPTION_SCHEMAS
    return OPTION_SCHEMAS["env"][0]


def _conf_rows() -> ListOf:
    """[name, value] pairs, or the complex list's rows: each kind's validator checks the
    arity."""
    return ListOf(ListOf(Str(max_len=1 << 20), max_items=64), max_items=1 << 16)


def _names() -> ListOf:
    return ListOf(Str(max_len=4096, nonempty=True), max_items=1 << 16)


# Items (queues, jobs) one qmod request may name (issue 26: 30,000 items naming another
# user's job took over a second of the loop); qmod's command line rarely names more.
MAX_QMOD_ITEMS = 4096

# Jobs one submit request may carry: all of them are checked, numbered and spooled in one
# transaction (about 150 microseconds each), so this bounds how long one user's bulk
# submission holds up every other request (issue 12); more go in several requests.
MAX_SUBMIT_JOBS = 5000
MAX_TICKET_ITEMS = 1 << 16  # running tasks of one host in one job_tickets message


def _submitted_jobs() -> ListOf:
    from common.jobspec import SUBMITTED_JOB
    return ListOf(SUBMITTED_JOB, min_items=1, max_items=MAX_SUBMIT_JOBS)


def _alter_changes() -> Schema:
    from common.jobspec import ALTER_CHANGES
    return ALTER_CHANGES


def _ar_request() -> Struct:
    """What qrsub asks (common.ar.window checks the times against the qmaster's clock)."""
    from common.jobspec import OPTION_SCHEMAS, MAX_NAME
    time = Optional(Float(0.0, 1e11))
    return Struct(optional={
        "start": (time, None), "end": (time, None), "duration": (time, None),
        "name": (Optional(Str(max_len=MAX_NAME, nonempty=True)), None),
        "account": (Optional(Str(max_len=MAX_NAME)), None),
        "hard_resources": OPTION_SCHEMAS["hard_resources"],
        "hard_queues": OPTION_SCHEMAS["hard_queues"],
        "pe": OPTION_SCHEMAS["pe"], "pe_ranges": OPTION_SCHEMAS["pe_ranges"],
        "acl": (ListOf(Str(max_len=256, nonempty=True), max_items=1024), list),
        "mail_options": OPTION_SCHEMAS["mail_options"],
        "mail_list": OPTION_SCHEMAS["mail_list"],
        "error_handling": (Bool(), False),
        "interactive": (Bool(), False)})  # qrsub -now y: queues of qtype INTERACTIVE


# message type -> a function building the schema of its body (called once, on first use)
_BUILDERS: dict[str, Callable[[], Schema]] = {
    # replies: only the qmaster sends them; fields vary per request
    "reply": AnyMap,
    "error": lambda: Struct(required={"code": Str(max_len=64), "message": Str()}),
    # clients -> qmaster
    "ping": Struct,
    "submit": lambda: Struct(required={"user": _user(), "jobs": _submitted_jobs()}),
    "job_query": lambda: Struct(
        required={"user": _user()},
        optional={"include_finished": (Bool(), False),
                  "job_ids": (Optional(ListOf(_job_id(), max_items=1 << 17)), None),
                  "with_script": (Bool(), False), "explain": (Bool(), False),
                  "set_aside": (Bool(), False),
                  # qstat -u: only these owners' jobs (patterns)
                  "owners": (Optional(_names()), None),
                  # the tasks not yet dispatched or changed as range
                  # lists ("ranges") instead of one record each
                  "ranges": (Bool(), False),
                  # job records with only what a job listing shows (qstat, qhost -j),
                  # and fields at their empty defaults left out (of ranges too)
                  "brief": (Bool(), False),
                  # the scheduling policy's figures of the jobs (qmaster.policy_view)
                  "priorities": (Bool(), False),
                  # the running parallel tasks (qrsh -inherit) of the tasks (qstat -t)
                  "pe_tasks": (Bool(), False),
                  # the next part of a listing: the jobs after this one
                  "after": (Int(0, MAX_INT), 0)}),
    "cluster_query": lambda: Struct(required={"user": _user()},
                                    optional={"resources": (Bool(), False),
                                              # qstat/qselect/qhost -l: a -l list
                                              "select": (Optional(Str(max_len=1 << 14)),
                                                         None)}),
    "delete": lambda: Struct(required={"user": _user(), "targets": _targets()},
                             optional={"force": (Bool(), False)}),
    "hold": lambda: Struct(required={"user": _user(), "targets": _targets(),
                                     "hold_type": Str(choices=frozenset("uos"))}),
    "release": lambda: Struct(required={"user": _user(), "targets": _targets(),
                                        "hold_type": Str(choices=frozenset("uos"))}),
    "alter": lambda: Struct(required={"user": _user(), "targets": _targets(),
                                      "changes": _alter_changes()}),
    # the users' event subscription (qmaster.event_feed, docs/events.md): what follows
    # the cursor (epoch, after), waiting up to ``timeout`` seconds for it
    "events": lambda: Struct(required={"user": _user()}, optional={
        "epoch": (Optional(Str(max_len=64)), None), "after": (Optional(_id()), None),
        "max": (Int(1, 1000), 1000), "timeout": (Float(0.0, 60.0), 0.0),
        "kinds": (Optional(ListOf(Str(max_len=16), max_items=8)), None),
        "owners": (Optional(ListOf(Str(max_len=256), max_items=1024)), None)}),
    "wait": lambda: Struct(required={"user": _user(),
                                     "job_ids": ListOf(_job_id(), min_items=1,
                                                       max_items=1 << 17)}),
    "conf_get": lambda: Struct(required={"user": _user(), "kind": Str(max_len=64)}),
    "conf_put": lambda: Struct(required={"user": _user(), "kind": Str(max_len=64),
                                         "name": Str(max_len=4096),
                                         "data": Optional(_conf_rows()),  # nil: a list entry
                                         "mode": Str(choices=frozenset({"add", "modify"}))}),
    "conf_del": lambda: Struct(required={"user": _user(), "kind": Str(max_len=64),
                                         "name": Str(max_len=4096)}),
    # qmod: items in the order qmaster.queue_control applies them (clients.qmod.options)
    "qmod": lambda: Struct(required={"user": _user(), "items": ListOf(Struct(
        required={"action": Str(choices=frozenset({"clear", "disable", "enable", "reschedule",
                                                   "suspend", "unsuspend"})),
                  "scope": Str(choices=frozenset({"any", "job", "queue"})),
                  "ref": Str(max_len=4096, nonempty=True)},
        optional={"tasks": (Optional(ListOf(_range(), max_items=4096)), None)}),
        # (each item is worked through and answered in the one request: 4096 of them
        # take about a tenth of a second)
        min_items=1, max_items=MAX_QMOD_ITEMS)}, optional={"force": (Bool(), False)}),
    # the share tree usage of every holder, decayed to now (qmaster.usage_book)
    "usage_query": lambda: Struct(required={"user": _user()}),
    # sge_share_mon: the share tree's nodes now; "decay": usage decayed to now (-u)
    "share_tree_query": lambda: Struct(required={"user": _user()},
                                       optional={"decay": (Bool(), False)}),
    # qconf -clearusage [user_list]: every user's and project's share tree usage, or
    # the named users'
    "clear_usage": lambda: Struct(required={"user": _user()},
                                  optional={"users": (_names(), [])}),
    # qconf -tsm: the scheduler run log of now (qmaster.sched_monitor)
    "trigger_monitor": lambda: Struct(required={"user": _user()}),
    # qconf's daemon control (qmaster.daemon_control): -km -ks -kt -at -ke -kej -kec -secl
    # -sss; "names": the hosts of -ke/-kej ("all"), the ids of -kec ("all"), the thread
    # of -kt/-at
    "daemon_control": lambda: Struct(required={"user": _user(),
                                               "action": Str(choices=DAEMON_ACTIONS)},
                                     optional={"names": (ListOf(Str(max_len=255,
                                                                    nonempty=True),
                                                                max_items=4096), list)}),
    "userset_entries": lambda: Struct(required={"user": _user(),
                                                "op": Str(choices=frozenset({"add", "delete"})),
                                                "users": _names(), "lists": _names()}),
    # qrsub (common.ar): the request; "verify" "v": only say whether it could be granted
    "ar_submit": lambda: Struct(required={"user": _user(), "ar": _ar_request()},
                                optional={"verify": (Bool(), False)}),
    # qrstat: every AR the caller may see ("owners" patterns, qrstat -u), or the ones named
    "ar_query": lambda: Struct(required={"user": _user()},
                               optional={"ar_ids": (Optional(ListOf(_job_id(),
                                                                    max_items=4096)), None),
                                         "owners": (Optional(_names()), None)}),
    # qrdel: the ARs named, or those of the users named (qrdel -u)
    "ar_delete": lambda: Struct(required={"user": _user()},
                                optional={"ar_ids": (ListOf(_job_id(), max_items=4096), []),
                                          "owners": (_names(), []),
                                          "force": (Bool(), False)}),
    # qrsh -inherit (sge_pe(5) control_slaves): start a task of the caller's running job
    # on one of its granted hosts (qmaster.pe_tasks); the reply names the task
    "pe_task_start": lambda: Struct(required={"user": _user(), "job_id": _job_id(),
                                              "task_id": _task_id(), "host": _host(),
                                              "command": Str(max_len=1 << 16, nonempty=True),
                                              "args": ListOf(Str(max_len=1 << 16),
                                                             max_items=MAX_PE_TASK_ARGS),
                                              "session": _session()},
                                    optional={"env": (_task_env(), {}),
                                              "cwd": (Optional(Str(max_len=4096)), None),
                                              "noshell": (Bool(), False)}),
    # execd -> qmaster
    # an execd starting without --spool asks where to spool (execd_spool_dir, host-local
    # over global), as 8.1.9's execd reads its configuration first (execd.spool_conf)
    "execd_conf": lambda: Struct(required={"host": _host()}),
    "register": lambda: Struct(
        required={"host": _host(), "load": _load(),
                  "jobs": ListOf(Struct(required={"job_id": _job_id(), "task_id": _task_id()},
                                        optional={"dispatched": (_seconds(), 0.0)}),
                                 max_items=1 << 16)},
        optional={"global_load": (_load(), {}),
                  # the parallel tasks (qrsh -inherit) the host still has
                  "pe_tasks": (ListOf(Struct(required={
                      "job_id": _job_id(), "task_id": _task_id(), "seq": _pe_seq(),
                      "dispatched": _seconds()}), max_items=1 << 16), [])}),
    # "usage": each running task's usage so far (qstat -j's usage line); "global_load":
    # the values its load sensors report for the global host (global:name:value)
    "load_report": lambda: Struct(
        required={"host": _host(), "load": _load()},
        optional={"usage": (ListOf(_task_usage(), max_items=1 << 16), []),
                  "global_load": (_load(), {})}),
    # "dispatched": the dispatch time of the run the message is about (start spec), so
    # that a late message of an earlier run of a rescheduled task is not taken for this one
    "job_started": lambda: Struct(required={"host": _host(), "job_id": _job_id(),
                                            "task_id": _task_id(), "start_time": _seconds()},
                                  optional={"dispatched": (_seconds(), 0.0)}),
    "job_finished": lambda: Struct(required={"host": _host(), "job_id": _job_id(),
                                             "task_id": _task_id(), "result": _result()},
                                   optional={"dispatched": (_seconds(), 0.0)}),
    "job_start_failed": lambda: Struct(required={"host": _host(), "job_id": _job_id(),
                                                 "task_id": _task_id(),
                                                 "reason": Str(max_len=1 << 16)}),
    # a parallel task (start_pe_task) ended, or could not start (a result with "failed")
    "pe_task_finished": lambda: Struct(required={"host": _host(), "job_id": _job_id(),
                                                 "task_id": _task_id(), "seq": _pe_seq(),
                                                 "pe_task_id": _pe_task_id(),
                                                 "result": _result()},
                                       optional={"dispatched": (_seconds(), 0.0)}),
    # qmaster -> execd
    "start_job": lambda: Struct(required={"job_id": _job_id(), "task_id": _task_id(),
                                          "spec": _start_spec()}),
    # what the execd does to a running task: "terminate" (qdel: -notify warning, then
    # terminate_method), "suspend"/"resume" (-notify warning, suspend_method,
    # resume_method), "kill" (SIGKILL at once: a task the qmaster does not know),
    # "migrate" (a checkpointed job suspended: its migr_command and signal, then the kill)
    # "dispatched" (not 0): only that run of the task (an earlier run of a task that was
    # rescheduled while its host was lost, and may have been sent back to the same host)
    "signal_job": lambda: Struct(required={"job_id": _job_id(), "task_id": _task_id(),
                                           "action": Str(choices=JOB_ACTIONS)},
                                 optional={"dispatched": (_seconds(), 0.0)}),
    "finished_ack": lambda: Struct(required={"job_id": _job_id(), "task_id": _task_id()}),
    # qconf -ke/-kej: stop as on SIGTERM; "kill_jobs" (-kej): kill every job first
    "execd_shutdown": lambda: Struct(required={"kill_jobs": Bool()}),
    # run a parallel task of a running job (qrsh -inherit) under a shepherd of its own:
    # the job's start record with "pe_task_id", the task's command and its session;
    # "seq" names its directory (execd.service)
    "start_pe_task": lambda: Struct(required={"job_id": _job_id(), "task_id": _task_id(),
                                              "seq": _pe_seq(), "spec": _start_spec()}),
    # every sched_conf(5) reprioritize_interval: the tickets of the execd's running tasks
    # (one message per execd, bounded by the tasks a host can run); "reprioritize"
    # false (once, when the interval became 0): stop renicing, give back queue priorities
    "job_tickets": lambda: Struct(optional={"reprioritize": (Bool(), True)},
                                  required={"tickets": ListOf(
        Struct(required={"job_id": _job_id(), "task_id": _task_id(),
                         "tickets": Float(0.0, 1e15)}), max_items=MAX_TICKET_ITEMS)}),
    # scheduler -> qmaster
    # the snapshot comes in parts (qmaster.snapshot): none for the first (configuration,
    # hosts and the first jobs), then the "after" job id each part names for the next
    "snapshot": lambda: Struct(optional={"after": (Optional(_id()), None)}),
    # "not_scheduled": immediate jobs (-now y) the pass could not start: the qmaster
    # deletes what of them is still pending (common.placement.dispatch.not_scheduled)
    "orders": lambda: Struct(required={"orders": ListOf(_order(), max_items=1 << 17)},
                             optional={"not_scheduled": (ListOf(_job_id(), max_items=1 << 17),
                                                         list),
                                       # how long the pass took (the qmaster's /metrics)
                                       "pass_seconds": (Float(0.0, 1e6),
                                                        None)}),
}


class _Schemas:
    """The read-only mapping ``MESSAGE_SCHEMAS``: message type -> the schema of its body,
    built on first use and kept (decode() refuses anything it does not accept)."""

    __slots__ = ("_built",)

    def __init__(self) -> None:
        self._built: dict[str, Schema] = {}

    def __getitem__(self, msg_type: str) -> Schema:
        schema = self._built.get(msg_type)
        if schema is None:
            schema = self._built[msg_type] = _BUILDERS[msg_type]()
        return schema

    def __contains__(self, msg_type: object) -> bool:
        return msg_type in _BUILDERS

    def __iter__(self) -> Iterator[str]:
        return iter(_BUILDERS)

    def __len__(self) -> int:
        return len(_BUILDERS)

    def keys(self) -> KeysView[str]:
        return _BUILDERS.keys()

    def values(self) -> list[Schema]:
        return [self[t] for t in _BUILDERS]

    def items(self) -> list[tuple[str, Schema]]:
        return [(t, self[t]) for t in _BUILDERS]

    def get(self, msg_type: str, default: Schema | None = None) -> Schema | None:
        return self[msg_type] if msg_type in _BUILDERS else default


MESSAGE_SCHEMAS = _Schemas()
MESSAGE_FIELDS = MESSAGE_SCHEMAS  # the message types (older name)

# Which message types a peer may send to the qmaster's request endpoint.
REQUEST_TYPES = frozenset(_BUILDERS) - {"reply", "error", "start_job", "signal_job",
                                        "finished_ack", "job_tickets", "start_pe_task",
                                        "execd_shutdown"}


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
    if msg_type not in _BUILDERS:
        raise ValueError(f"unknown message type {msg_type!r}")
    return _packb({"v": PROTOCOL_VERSION, "t": msg_type, "id": request_id, "b": body})


def decode(frame: bytes, *, from_user: bool = False) -> tuple[str, int, dict[str, Any]]:
    """(type, request id, body) of a frame, or WireError explaining why it is refused.

    ``from_user``: the frame came on a user's connection (the qmaster's receive path),
    so its cost is bounded before it is unpacked: a frame over ``MAX_REQUEST_BYTES``
    must be a submit (its type read without unpacking the rest), and msgpack unpacks it
    with ``UNPACK_LIMITS`` and at most ``MAX_REQUEST_VALUES`` list and map entries."""
    if len(frame) > MAX_MESSAGE_BYTES:
        raise WireError("too_large", f"message of {len(frame)} bytes exceeds the limit")
    if from_user and len(frame) > MAX_REQUEST_BYTES and _frame_type(frame) != "submit":
        raise WireError("too_large", f"message of {len(frame)} bytes exceeds the limit of "
                                     f"{MAX_REQUEST_BYTES} bytes for a request other than "
                                     "a submit")
    try:
        msg = _unpack_bounded(frame) if from_user and len(frame) > SMALL_BYTES \
            else _unpackb(frame)
    except _TooManyValues:
        raise WireError("too_large", f"message holds more than {MAX_REQUEST_VALUES} "
                                     "values") from None
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


class _TooManyValues(Exception):
    """A user's frame holds more than MAX_REQUEST_VALUES list and map entries."""


_TYPE_PREFIX = 256  # bytes of a frame that must hold its type (``encode`` puts it second)


def _frame_type(frame: bytes) -> str | None:
    """The ``t`` of a message frame, read from its first ``_TYPE_PREFIX`` bytes alone
    (``encode`` writes "v", "t", "id", then "b"); None when they do not hold it (no map,
    or a larger value before the type): nothing else of the frame is read or made."""
    reader = _SmallUnpacker(bytes(frame[:_TYPE_PREFIX]))
    try:
        code = reader.take(1)[0]
        count = code & 0x0F if 0x80 <= code <= 0x8F else None
        for _ in range(count or 0):
            key, value = reader.value(_MAX_DEPTH - 1), reader.value(_MAX_DEPTH - 1)
            if key == "t":
                return value if isinstance(value, str) else None
    except Exception:  # noqa: BLE001 - (_NotSmall: past the prefix, or a container)
        return None
    return None


def _unpack_bounded(frame: bytes) -> Any:
    """msgpack.unpackb with ``UNPACK_LIMITS``, refusing a frame (``_TooManyValues``) as
    soon as its lists and maps have held ``MAX_REQUEST_VALUES`` entries in all."""
    left = [MAX_REQUEST_VALUES]

    def counted(value: Any) -> Any:
        left[0] -= 1 + len(value)
        if left[0] < 0:
            raise _TooManyValues
        return value

    import gc
    # (the values made are acyclic and freed by their counts: the cyclic collector's
    # passes over a million new lists would double the time)
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _msgpack().unpackb(frame, raw=False, strict_map_key=False,
                                  list_hook=counted, object_hook=counted, **UNPACK_LIMITS)
    finally:
        if enabled:
            gc.enable()


def encode_event_batch(epoch: str, events: list[dict[str, Any]]) -> list[bytes]:
    return [TOPIC_EVENTS, _msgpack().packb({"epoch": epoch, "events": events},
                                           use_bin_type=True)]


def encode_heartbeat(epoch: str, seq: int) -> list[bytes]:
    return [TOPIC_HEARTBEAT, _msgpack().packb({"epoch": epoch, "seq": seq}, use_bin_type=True)]


def encode_shutdown(epoch: str) -> list[bytes]:
    return [TOPIC_SHUTDOWN, _msgpack().packb({"epoch": epoch}, use_bin_type=True)]


def decode_published(frames: list[bytes]) -> tuple[bytes, dict[str, Any]]:
    if len(frames) != 2:
        raise WireError("malformed", "published message needs two frames")
    try:
        payload = _msgpack().unpackb(frames[1], raw=False, strict_map_key=False)
    except Exception:
        raise WireError("malformed", "undecodable published message") from None
    if not isinstance(payload, dict):
        raise WireError("malformed", "published payload is not a map")
    return frames[0], payload


def pack(obj: Any) -> bytes:
    """msgpack for files written by one daemon and read by another (job specs, results)."""
    return _msgpack().packb(obj, use_bin_type=True)  # type: ignore[no-any-return]


def unpack(data: bytes) -> Any:
    return _msgpack().unpackb(data, raw=False, strict_map_key=False)
