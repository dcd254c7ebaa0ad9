"""The channel between libdrmaa.so and the agent: frames of length-prefixed fields.

A frame is a 4-byte big-endian payload length and the payload, a sequence of fields,
each a 4-byte big-endian length and its bytes (libdrmaa.c, build_frame/read_answer, is
the other side). A request's first field names the call; an answer's first field is the
DRMAA error code in decimal, the second the diagnosis, the rest the call's results.
Pure: bytes in, fields out."""
from __future__ import annotations

import struct

# a frame longer than this is a broken channel (the C side has the same bound)
MAX_FRAME = 64 << 20
_LENGTH = struct.Struct(">I")


class FrameError(ValueError):
    """A malformed frame: the channel is not to be read any further."""


def encode(fields: list[bytes]) -> bytes:
    payload = b"".join(_LENGTH.pack(len(f)) + f for f in fields)
    if len(payload) > MAX_FRAME:
        raise FrameError(f"a frame of {len(payload)} bytes is over {MAX_FRAME}")
    return _LENGTH.pack(len(payload)) + payload


def answer(code: int, diagnosis: str, results: list[str]) -> bytes:
    """An answer's frame; text is UTF-8, undecodable bytes as they came
    (surrogateescape)."""
    return encode([str(code).encode(), *(s.encode("utf-8", "surrogateescape")
                                         for s in (diagnosis, *results))])


def split(buffer: bytearray) -> list[bytes] | None:
    """The first whole frame's fields, taken out of ``buffer``; None while it is not
    whole yet. FrameError when it is malformed."""
    if len(buffer) < 4:
        return None
    (total,) = _LENGTH.unpack_from(buffer)
    if total > MAX_FRAME:
        raise FrameError(f"a frame of {total} bytes is over {MAX_FRAME}")
    if len(buffer) < 4 + total:
        return None
    payload = bytes(buffer[4:4 + total])
    del buffer[:4 + total]
    fields, at = [], 0
    while at < total:
        if total - at < 4:
            raise FrameError("a field's length is cut short")
        (length,) = _LENGTH.unpack_from(payload, at)
        at += 4
        if length > total - at:
            raise FrameError("a field runs past its frame")
        fields.append(payload[at:at + length])
        at += length
    return fields


def text(field: bytes) -> str:
    return field.decode("utf-8", "surrogateescape")
