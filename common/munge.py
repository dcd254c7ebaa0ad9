"""MUNGE credentials through libmunge (ctypes binding to Debian's ``libmunge.so.2``).

This module owns the only contact between pygridengine and MUNGE: it encodes a payload
into a credential with the local munged and decodes a credential into the uid, gid,
payload and origin that munged vouches for. It knows nothing of requests, users or
policy; the qmaster decides what a decoded credential means.

Why ctypes: libmunge's API is a handful of functions plus an option getter and setter,
and the parts used here are unchanged since MUNGE 0.5 (2006); reading the shared
library needs no compiler, no ``libmunge-dev`` and no Python package beyond the
standard library (see ``deploy/MUNGE.md``).

The library (and ctypes itself) is loaded on first use, so importing this module costs
little (about a millisecond, for the Credential dataclass) and never fails where MUNGE
is absent: :func:`unavailable_reason` says why it can't be used, and
:func:`encode`/:func:`decode` raise :class:`MungeUnavailable`.

Every call creates and destroys its own ``munge_ctx_t`` (libmunge's contexts must not
be shared between threads, and decoding overwrites a context's settings), and frees the
buffers libmunge allocates for it, so any thread may call :func:`encode`/:func:`decode`.
ctypes releases the GIL during the calls, which block on munged's socket.
"""
from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # At run time ctypes is imported inside the functions that use it: clients that
    # import this module but never make a credential don't pay for it.
    import ctypes

__all__ = [
    "Credential", "MungeError", "MungeUnavailable", "decode", "encode", "socket_from_env",
    "unavailable_reason",
    "EMUNGE_SUCCESS", "EMUNGE_SNAFU", "EMUNGE_BAD_ARG", "EMUNGE_BAD_LENGTH",
    "EMUNGE_OVERFLOW", "EMUNGE_NO_MEMORY", "EMUNGE_SOCKET", "EMUNGE_TIMEOUT",
    "EMUNGE_BAD_CRED", "EMUNGE_BAD_VERSION", "EMUNGE_BAD_CIPHER", "EMUNGE_BAD_MAC",
    "EMUNGE_BAD_ZIP", "EMUNGE_BAD_REALM", "EMUNGE_CRED_INVALID", "EMUNGE_CRED_EXPIRED",
    "EMUNGE_CRED_REWOUND", "EMUNGE_CRED_REPLAYED", "EMUNGE_CRED_UNAUTHORIZED",
    "MUNGE_TTL_DEFAULT", "MUNGE_TTL_MAXIMUM", "SOCKET_ENV",
]

#: The library's soname: the ABI this binding was written against (munge.h of 0.5.x).
LIBRARY = "libmunge.so.2"

#: Environment variable naming munged's socket for callers that don't pass one.
SOCKET_ENV = "PYGE_MUNGE_SOCKET"

# munge_err_t (munge.h). Errors are 1..255 so that they fit an exit status.
EMUNGE_SUCCESS = 0
EMUNGE_SNAFU = 1               # internal error
EMUNGE_BAD_ARG = 2             # invalid argument
EMUNGE_BAD_LENGTH = 3          # exceeded maximum message length
EMUNGE_OVERFLOW = 4            # buffer overflow (e.g. socket path too long)
EMUNGE_NO_MEMORY = 5
EMUNGE_SOCKET = 6              # can't talk to munged
EMUNGE_TIMEOUT = 7             # not used by libmunge
EMUNGE_BAD_CRED = 8            # not a credential (format)
EMUNGE_BAD_VERSION = 9
EMUNGE_BAD_CIPHER = 10
EMUNGE_BAD_MAC = 11
EMUNGE_BAD_ZIP = 12
EMUNGE_BAD_REALM = 13
EMUNGE_CRED_INVALID = 14       # fails the MAC: tampered with, or another key
EMUNGE_CRED_EXPIRED = 15       # older than its ttl
EMUNGE_CRED_REWOUND = 16       # encoded in the future (clock skew)
EMUNGE_CRED_REPLAYED = 17      # already decoded once by this munged
EMUNGE_CRED_UNAUTHORIZED = 18  # restricted to another uid/gid

# munge_ttl_t: values of ``ttl`` with a meaning of their own.
MUNGE_TTL_MAXIMUM = -1         # the daemon's --max-ttl
MUNGE_TTL_DEFAULT = 0          # the daemon's default (300 s)

# munge_opt_t: the options this binding reads or sets.
_OPT_TTL = 4                   # int
_OPT_ADDR4 = 5                 # struct in_addr
_OPT_ENCODE_TIME = 6           # time_t
_OPT_DECODE_TIME = 7           # time_t
_OPT_SOCKET = 8                # const char *

_INT_MAX = 2**31 - 1


class MungeError(Exception):
    """A libmunge call failed.

    ``code`` is the ``munge_err_t`` value (never 0; -1 when the library can't be
    loaded); ``message`` is ``munge_strerror(code)``, followed by the more precise
    text libmunge left in the context, if any.
    """

    code: int
    message: str

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __reduce__(self) -> tuple[Any, ...]:
        # Keep both fields through pickling (e.g. across a process pool).
        return (type(self), (self.code, self.message))


class MungeUnavailable(MungeError):
    """libmunge.so.2 can't be loaded here (code -1)."""

    def __init__(self, message: str) -> None:
        super().__init__(-1, message)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.message,))


@dataclass(frozen=True)
class Credential:
    """What munged vouches for in a credential it decoded successfully."""

    payload: bytes
    uid: int
    gid: int
    addr: str          # the encoding host's IPv4 address, dotted; "" if munged had none
    encode_time: int   # seconds since the epoch, by the encoding host's clock
    decode_time: int   # seconds since the epoch, by the decoding host's clock
    ttl: int           # seconds the credential was valid for


class _Lib:
    """The loaded library: typed entry points, built once."""

    def __init__(self, lib: ctypes.CDLL, free: Any) -> None:
        import ctypes
        # ctypes has c_time_t only from 3.12; time_t is long on every LP64 Linux.
        self.c_time_t: Any = getattr(ctypes, "c_time_t", ctypes.c_long)
        c_id_t = ctypes.c_uint32  # uid_t and gid_t are unsigned 32-bit on Linux
        self.free = free
        self.encode = lib.munge_encode
        self.encode.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p,
                                ctypes.c_char_p, ctypes.c_int]
        self.encode.restype = ctypes.c_int
        self.decode = lib.munge_decode
        self.decode.argtypes = [ctypes.c_char_p, ctypes.c_void_p,
                                ctypes.POINTER(ctypes.c_void_p),
                                ctypes.POINTER(ctypes.c_int),
                                ctypes.POINTER(c_id_t), ctypes.POINTER(c_id_t)]
        self.decode.restype = ctypes.c_int
        self.strerror = lib.munge_strerror
        self.strerror.argtypes = [ctypes.c_int]
        self.strerror.restype = ctypes.c_char_p
        self.ctx_create = lib.munge_ctx_create
        self.ctx_create.argtypes = []
        self.ctx_create.restype = ctypes.c_void_p
        self.ctx_destroy = lib.munge_ctx_destroy
        self.ctx_destroy.argtypes = [ctypes.c_void_p]
        self.ctx_destroy.restype = None
        self.ctx_strerror = lib.munge_ctx_strerror
        self.ctx_strerror.argtypes = [ctypes.c_void_p]
        self.ctx_strerror.restype = ctypes.c_char_p
        # munge_ctx_set/get are variadic; ctypes can't call a variadic function
        # portably without a prototype, so each argument type gets a fixed prototype
        # cast onto the same address. On x86_64 and aarch64 Linux, a variadic callee
        # reads integer and pointer arguments from the same registers as fixed ones
        # (and libffi sets %al on x86_64 anyway), so these calls are exact there.
        set_addr = ctypes.cast(lib.munge_ctx_set, ctypes.c_void_p).value
        get_addr = ctypes.cast(lib.munge_ctx_get, ctypes.c_void_p).value
        if not set_addr or not get_addr:
            raise AttributeError("munge_ctx_set/munge_ctx_get have no address")
        ctx, opt = ctypes.c_void_p, ctypes.c_int
        self.ctx_set_int = ctypes.CFUNCTYPE(ctypes.c_int, ctx, opt, ctypes.c_int)(set_addr)
        self.ctx_set_str = ctypes.CFUNCTYPE(ctypes.c_int, ctx, opt, ctypes.c_char_p)(set_addr)
        self.ctx_get_int = ctypes.CFUNCTYPE(
            ctypes.c_int, ctx, opt, ctypes.POINTER(ctypes.c_int))(get_addr)
        self.ctx_get_time = ctypes.CFUNCTYPE(
            ctypes.c_int, ctx, opt, ctypes.POINTER(self.c_time_t))(get_addr)
        self.ctx_get_addr4 = ctypes.CFUNCTYPE(
            ctypes.c_int, ctx, opt, ctypes.POINTER(ctypes.c_uint8 * 4))(get_addr)
        # Keep the CDLL alive as long as the function pointers cast from it.
        self._lib = lib


_load_lock = threading.Lock()
_loaded: _Lib | None = None
_load_error: str | None = None


def _load() -> _Lib:
    """The library, loaded on the first call; MungeUnavailable if it can't be."""
    global _loaded, _load_error
    lib = _loaded
    if lib is not None:
        return lib
    with _load_lock:
        if _loaded is None and _load_error is None:
            try:
                import ctypes
                cdll = ctypes.CDLL(LIBRARY)
                # The buffers libmunge returns come from the C library's malloc; the
                # process's global namespace has the same libc's free().
                free = ctypes.CDLL(None).free
                free.argtypes = [ctypes.c_void_p]
                free.restype = None
                _loaded = _Lib(cdll, free)
            except (ImportError, OSError, AttributeError) as exc:
                # ImportError: a Python built without ctypes; AttributeError: a library
                # of that name without the expected symbols.
                _load_error = f"{LIBRARY} is not available: {exc}"
        if _loaded is None:
            raise MungeUnavailable(_load_error or f"{LIBRARY} is not available")
        return _loaded


def unavailable_reason() -> str | None:
    """None when libmunge can be loaded, else why not (never raises)."""
    try:
        _load()
    except MungeUnavailable as exc:
        return exc.message
    return None


def socket_from_env() -> str | None:
    """munged's socket named by ``PYGE_MUNGE_SOCKET``, or None (libmunge's default)."""
    return os.environ.get(SOCKET_ENV) or None


def _error(lib: _Lib, code: int, ctx: int | None) -> MungeError:
    text = lib.strerror(code)
    message = text.decode(errors="replace") if text else f"MUNGE error {code}"
    detail = lib.ctx_strerror(ctx) if ctx else None
    if detail:
        detail_text = detail.decode(errors="replace")
        if detail_text != message:
            message = f"{message}: {detail_text}"
    return MungeError(code, message)


def _new_context(lib: _Lib, socket: str | None) -> int:
    ctx: int | None = lib.ctx_create()
    if not ctx:
        raise MungeError(EMUNGE_NO_MEMORY, "Out of memory: can't create a MUNGE context")
    if socket is not None:
        try:
            path = os.fsencode(socket)
            if b"\0" in path:
                raise MungeError(EMUNGE_BAD_ARG, "Invalid argument: NUL in socket path")
            code = lib.ctx_set_str(ctx, _OPT_SOCKET, path)
            if code != EMUNGE_SUCCESS:
                raise _error(lib, code, ctx)
        except BaseException:
            lib.ctx_destroy(ctx)
            raise
    return ctx


def encode(payload: bytes, *, socket: str | None = None, ttl: int | None = None) -> bytes:
    """A credential (base64 text, ASCII) carrying ``payload``, from the local munged.

    ``socket`` selects munged's socket (None: libmunge's default); ``ttl`` is the
    credential's lifetime in seconds (None or ``MUNGE_TTL_DEFAULT``: the daemon's
    default; ``MUNGE_TTL_MAXIMUM``: its maximum; larger values are cut to the maximum
    by munged). Raises MungeError.
    """
    import ctypes
    lib = _load()
    data = bytes(memoryview(payload))  # refuses str and int, which bytes() would take
    if len(data) > _INT_MAX:
        raise MungeError(EMUNGE_BAD_LENGTH, "Exceeded maximum message length")
    ctx = _new_context(lib, socket)
    try:
        if ttl is not None:
            code = lib.ctx_set_int(ctx, _OPT_TTL, int(ttl))
            if code != EMUNGE_SUCCESS:
                raise _error(lib, code, ctx)
        cred = ctypes.c_void_p()
        try:
            code = lib.encode(ctypes.byref(cred), ctx, data, len(data))
            if code != EMUNGE_SUCCESS:
                raise _error(lib, code, ctx)
            if not cred.value:
                raise MungeError(EMUNGE_SNAFU, "Internal error: no credential returned")
            return ctypes.string_at(cred.value)
        finally:
            if cred.value:
                lib.free(cred.value)
    finally:
        lib.ctx_destroy(ctx)


def decode(cred: bytes, *, socket: str | None = None) -> Credential:
    """What munged vouches for in ``cred``; MungeError for every failure.

    Expired, rewound and replayed credentials raise too (libmunge still reports their
    uid, gid and payload; they are discarded). ``socket`` as for :func:`encode`.
    """
    import ctypes
    lib = _load()
    text = bytes(memoryview(cred))
    if not text or b"\0" in text:
        # libmunge reads a NUL-terminated string: a NUL inside would silently cut it.
        raise MungeError(EMUNGE_BAD_CRED, "Invalid credential format")
    ctx = _new_context(lib, socket)
    try:
        buf = ctypes.c_void_p()
        length = ctypes.c_int(0)
        uid = ctypes.c_uint32(0)  # uid_t
        gid = ctypes.c_uint32(0)  # gid_t
        try:
            code = lib.decode(text, ctx, ctypes.byref(buf), ctypes.byref(length),
                              ctypes.byref(uid), ctypes.byref(gid))
            if code != EMUNGE_SUCCESS:
                raise _error(lib, code, ctx)
            payload = ctypes.string_at(buf.value, length.value) if buf.value else b""
        finally:
            if buf.value:
                lib.free(buf.value)
        return Credential(payload=payload, uid=uid.value, gid=gid.value,
                          addr=_get_addr4(lib, ctx),
                          encode_time=_get_time(lib, ctx, _OPT_ENCODE_TIME),
                          decode_time=_get_time(lib, ctx, _OPT_DECODE_TIME),
                          ttl=_get_int(lib, ctx, _OPT_TTL))
    finally:
        lib.ctx_destroy(ctx)


def _get_int(lib: _Lib, ctx: int, opt: int) -> int:
    import ctypes
    value = ctypes.c_int(0)
    code = lib.ctx_get_int(ctx, opt, ctypes.byref(value))
    if code != EMUNGE_SUCCESS:
        raise _error(lib, code, ctx)
    return value.value


def _get_time(lib: _Lib, ctx: int, opt: int) -> int:
    import ctypes
    value = lib.c_time_t(0)
    code = lib.ctx_get_time(ctx, opt, ctypes.byref(value))
    if code != EMUNGE_SUCCESS:
        raise _error(lib, code, ctx)
    return int(value.value)


def _get_addr4(lib: _Lib, ctx: int) -> str:
    import ctypes
    # struct in_addr: four bytes in network order, i.e. dotted order in memory.
    value = (ctypes.c_uint8 * 4)()
    code = lib.ctx_get_addr4(ctx, _OPT_ADDR4, ctypes.byref(value))
    if code != EMUNGE_SUCCESS:
        raise _error(lib, code, ctx)
    octets = bytes(value)
    # munged sends the null address when it couldn't resolve its own host name.
    return "" if octets == b"\0\0\0\0" else ".".join(str(b) for b in octets)
