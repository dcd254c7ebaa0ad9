"""common.wire's small codec, which spares a command importing msgpack (issue 12), packs
exactly msgpack's bytes and unpacks exactly msgpack's values, and leaves to msgpack
everything else, including every frame msgpack refuses."""
from __future__ import annotations

import struct
import subprocess
import sys
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from common import wire
from common.wire import SMALL_BYTES, _NotSmall, _SmallPacker, _SmallUnpacker

scalars = (st.none() | st.booleans() | st.floats(allow_nan=True)
           | st.integers(min_value=-(1 << 64), max_value=1 << 65)
           | st.text() | st.binary())
values = st.recursive(scalars, lambda inner: st.lists(inner) | st.tuples(inner, inner)
                      | st.dictionaries(st.text() | st.integers() | st.binary(), inner),
                      max_leaves=60)

INT_EDGES = [n + d for b in (0, 5, 7, 8, 15, 16, 31, 32, 63, 64) for s in (1, -1)
             for n in (s * (1 << b),) for d in (-1, 0, 1)]


def same(a: Any, b: Any) -> bool:
    """Equal values of the same types all the way down (1, 1.0 and True differ)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return struct.pack(">d", a) == struct.pack(">d", b)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return bool(a == b)


def small_pack(value: Any) -> bytes:
    packer = _SmallPacker()
    packer.pack(value)
    return b"".join(packer.parts)


def small_unpack(frame: bytes) -> Any:
    unpacker = _SmallUnpacker(frame)
    value = unpacker.value()
    if unpacker.pos != len(frame):
        raise _NotSmall
    return value


def unpacked(frame: bytes) -> Any:
    return msgpack.unpackb(frame, raw=False, strict_map_key=False)


@given(values)
@settings(max_examples=200)
def test_packs_msgpack_s_bytes_or_leaves_it_to_msgpack(value: Any) -> None:
    try:
        expected = msgpack.packb(value, use_bin_type=True)
    except Exception:  # beyond 64 bits, lone surrogates: msgpack's to refuse
        with pytest.raises(_NotSmall):
            small_pack(value)
        return
    try:
        assert small_pack(value) == expected
    except _NotSmall:
        assert len(expected) > SMALL_BYTES


@pytest.mark.parametrize("number", INT_EDGES)
def test_every_integer_width_is_chosen_as_msgpack_does(number: int) -> None:
    try:
        expected = msgpack.packb(number)
    except OverflowError:
        with pytest.raises(_NotSmall):
            small_pack(number)
        return
    assert small_pack(number) == expected
    assert same(small_unpack(expected), number)


@pytest.mark.parametrize("length", [0, 15, 16, 31, 32, 255, 256, 65535, 65536])
def test_every_length_form_is_chosen_as_msgpack_does(length: int) -> None:
    for value in ("x" * length, b"x" * length, [0] * length, {i: 0 for i in range(length)}):
        expected = msgpack.packb(value, use_bin_type=True)
        if len(expected) > SMALL_BYTES:
            with pytest.raises(_NotSmall):
                small_pack(value)
        else:
            assert small_pack(value) == expected
        assert same(small_unpack(expected), unpacked(expected))


@given(values)
@settings(max_examples=200)
def test_unpacks_msgpack_s_values(value: Any) -> None:
    try:
        frame = msgpack.packb(value, use_bin_type=True)
    except Exception:
        return
    try:
        assert same(small_unpack(frame), unpacked(frame))
    except _NotSmall:  # only an unhashable key, which msgpack refuses too
        with pytest.raises(TypeError):
            unpacked(frame)


def _packed_or_empty(value: Any) -> bytes:
    try:
        return msgpack.packb(value, use_bin_type=True)  # type: ignore[no-any-return]
    except Exception:
        return b""


def _mutations(frame: bytes) -> st.SearchStrategy[bytes]:
    """The frame cut short, with bytes added, or with one byte changed."""
    if not frame:
        return st.just(frame)
    index = st.integers(0, len(frame) - 1)
    return (st.builds(lambda i: frame[:i], index)
            | st.builds(lambda extra: frame + extra, st.binary(min_size=1, max_size=4))
            | st.builds(lambda i, b: frame[:i] + bytes([b]) + frame[i + 1:], index,
                        st.integers(0, 255)))


@given(st.binary(max_size=64) | values.map(_packed_or_empty).flatmap(_mutations))
@settings(max_examples=200)
def test_never_accepts_a_frame_msgpack_refuses(frame: bytes) -> None:
    try:
        mine = small_unpack(frame)
    except _NotSmall:
        return
    assert same(mine, unpacked(frame))  # raises if msgpack refuses it


def test_encode_and_decode_give_what_they_gave_with_msgpack() -> None:
    body = {"user": {"name": "u", "uid": 5, "group": "g", "gid": 5, "host": "h"},
            "jobs": [{"opts": {"job_name": "x", "array": [1, 9, 2]}, "script": b"#!/bin/sh",
                      "umask": 18, "sge_o": {}}]}
    frame = wire.encode("submit", body, 7)
    assert frame == msgpack.packb({"v": 1, "t": "submit", "id": 7, "b": body},
                                  use_bin_type=True)
    assert wire.decode(wire.encode("reply", {"job_ids": [5], "x": 1.5}, 3)) == (
        "reply", 3, {"job_ids": [5], "x": 1.5})


def test_a_command_that_sends_and_gets_small_messages_never_imports_msgpack() -> None:
    code = ("import sys; sys.path[:0] = %r\n"
            "from common import wire\n"
            "frame = wire.encode('submit', {'user': {'name': 'u'}, 'jobs': [{}]}, 1)\n"
            "wire.decode(wire.encode('reply', {'job_ids': [1]}, 1))\n"
            "print('msgpack' in sys.modules)\n"
            "wire.decode(wire.encode('reply', {'jobs': ['x' * 100] * 1000}, 1))\n"
            "print('msgpack' in sys.modules)\n") % [p for p in sys.path if p]
    done = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.split() == ["False", "True"]
