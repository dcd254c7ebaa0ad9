"""Tests of common.wire: every message type round-trips; anything else is a WireError.

``decode`` is the only gate between the network and the daemons' handlers, so it is
driven with arbitrary bytes, arbitrary msgpack values and near-valid messages, and must
never raise anything but ``WireError``.
"""
from __future__ import annotations

from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from common import wire
from common.wire import MESSAGE_FIELDS, PROTOCOL_VERSION, WireError

TYPES = sorted(MESSAGE_FIELDS)

packable_ints = st.integers(-(2**63), 2**64 - 1)  # what msgpack can carry
scalars = (st.none() | st.booleans() | packable_ints | st.floats(allow_nan=False)
           | st.text(max_size=20) | st.binary(max_size=20))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=8) | packable_ints, inner, max_size=4),
                      max_leaves=12)
# a value of each accepted python type, for building valid bodies
BY_TYPE: dict[type, st.SearchStrategy[Any]] = {
    int: st.integers(-(2**63), 2**63 - 1), str: st.text(max_size=20),
    float: st.floats(allow_nan=False), bool: st.booleans(),
    list: st.lists(scalars, max_size=4), dict: st.dictionaries(st.text(max_size=8), scalars,
                                                               max_size=4),
    object: values,
}


def body_for(msg_type: str) -> st.SearchStrategy[dict[str, Any]]:
    fields = {name: st.one_of(*(BY_TYPE[t] for t in types))
              for name, types in MESSAGE_FIELDS[msg_type].items()}
    return st.fixed_dictionaries(fields)


def wrong_value(types: tuple[type, ...]) -> st.SearchStrategy[Any]:
    """A value none of ``types`` accepts (bool counts as wrong for int fields)."""
    return values.filter(lambda v: not isinstance(v, types) or
                         (isinstance(v, bool) and bool not in types))


def raw(msg: Any) -> bytes:
    return msgpack.packb(msg, use_bin_type=True)


def decodes_or_refuses(frame: bytes) -> None:
    try:
        msg_type, request_id, body = wire.decode(frame)
    except WireError as err:
        assert err.code in ("malformed", "version", "unknown_type", "too_large")
        return
    assert msg_type in MESSAGE_FIELDS and isinstance(request_id, int)
    assert set(MESSAGE_FIELDS[msg_type]) <= set(body)


# ---- valid messages ----------------------------------------------------------------
@given(st.data())
def test_every_message_type_round_trips(data: st.DataObject) -> None:
    msg_type = data.draw(st.sampled_from(TYPES))
    body = data.draw(body_for(msg_type))
    request_id = data.draw(st.integers(-(2**63), 2**63 - 1))
    assert wire.decode(wire.encode(msg_type, body, request_id)) == (msg_type, request_id, body)


def test_encode_refuses_unknown_types() -> None:
    with pytest.raises(ValueError):
        wire.encode("no_such_type", {})


def test_request_types_exclude_replies_and_execd_orders() -> None:
    assert wire.REQUEST_TYPES == set(TYPES) - {"reply", "error", "start_job", "signal_job",
                                               "finished_ack"}


# ---- anything else is a WireError --------------------------------------------------
@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_raise_anything_else(frame: bytes) -> None:
    decodes_or_refuses(frame)


@given(values)
def test_arbitrary_msgpack_values_never_raise_anything_else(value: Any) -> None:
    decodes_or_refuses(raw(value))


@given(st.fixed_dictionaries({}, optional={"v": values | st.just(PROTOCOL_VERSION),
                                           "t": values | st.sampled_from(TYPES),
                                           "id": values, "b": values}))
def test_near_valid_envelopes_never_raise_anything_else(msg: dict[str, Any]) -> None:
    decodes_or_refuses(raw(msg))


@given(st.sampled_from(TYPES).flatmap(lambda t: st.tuples(st.just(t), body_for(t))),
       st.data())
def test_truncated_messages_are_refused(typed: tuple[str, dict[str, Any]],
                                        data: st.DataObject) -> None:
    frame = wire.encode(typed[0], typed[1], 7)
    cut = data.draw(st.integers(0, len(frame) - 1))
    with pytest.raises(WireError) as err:
        wire.decode(frame[:cut])
    assert err.value.code == "malformed"


@given(st.data())
def test_a_wrong_field_type_is_refused_for_every_field(data: st.DataObject) -> None:
    msg_type = data.draw(st.sampled_from([t for t in TYPES if MESSAGE_FIELDS[t]]))
    field, types = data.draw(st.sampled_from(sorted(MESSAGE_FIELDS[msg_type].items())))
    if types == (object,):
        return  # a field of any type has no wrong type
    body = data.draw(body_for(msg_type))
    body[field] = data.draw(wrong_value(types))
    with pytest.raises(WireError) as err:
        wire.decode(raw({"v": PROTOCOL_VERSION, "t": msg_type, "id": 1, "b": body}))
    assert err.value.code == "malformed" and repr(field) in err.value.message


@pytest.mark.parametrize("msg_type", [t for t in TYPES if MESSAGE_FIELDS[t]])
def test_each_missing_field_is_refused(msg_type: str) -> None:
    for field in MESSAGE_FIELDS[msg_type]:
        body = {name: _sample(types) for name, types in MESSAGE_FIELDS[msg_type].items()
                if name != field}
        with pytest.raises(WireError, match=f"missing field '{field}'"):
            wire.decode(raw({"v": PROTOCOL_VERSION, "t": msg_type, "id": 1, "b": body}))


def _sample(types: tuple[type, ...]) -> Any:
    return {int: 1, str: "x", float: 1.5, bool: True, list: [], dict: {}, object: None}[types[0]]


@pytest.mark.parametrize("msg, code", [
    ({"v": 2, "t": "ping", "id": 1, "b": {}}, "version"),
    ({"v": 0, "t": "ping", "id": 1, "b": {}}, "version"),
    ({"t": "ping", "id": 1, "b": {}}, "version"),
    ({"v": "1", "t": "ping", "id": 1, "b": {}}, "version"),
    ({"v": 1, "t": "no_such_type", "id": 1, "b": {}}, "unknown_type"),
    ({"v": 1, "t": b"ping", "id": 1, "b": {}}, "unknown_type"),
    ({"v": 1, "t": None, "id": 1, "b": {}}, "unknown_type"),
    ({"v": 1, "t": "ping", "id": "1", "b": {}}, "malformed"),
    ({"v": 1, "t": "ping", "id": 1.0, "b": {}}, "malformed"),
    ({"v": 1, "t": "ping", "id": 1, "b": []}, "malformed"),
    ({"v": 1, "t": "ping", "id": 1}, "malformed"),
    ([1, "ping", 1, {}], "malformed"),
    ("ping", "malformed"),
])
def test_refusal_codes(msg: Any, code: str) -> None:
    with pytest.raises(WireError) as err:
        wire.decode(raw(msg))
    assert err.value.code == code


@pytest.mark.parametrize("version", [True, 1.0])
def test_a_version_that_only_equals_one_is_refused(version: Any) -> None:
    with pytest.raises(WireError):
        wire.decode(raw({"v": version, "t": "ping", "id": 1, "b": {}}))


def test_bool_is_not_an_int_field() -> None:
    body = {"host": "h", "job_id": True, "task_id": 1, "reason": "r"}
    with pytest.raises(WireError, match="'job_id' has the wrong type"):
        wire.decode(wire.encode("job_start_failed", body))


def test_missing_request_id_defaults_to_zero_and_extra_fields_pass() -> None:
    frame = raw({"v": PROTOCOL_VERSION, "t": "ping", "b": {"extra": [1, 2]}, "x": 1})
    assert wire.decode(frame) == ("ping", 0, {"extra": [1, 2]})


def test_oversized_frames_are_refused_before_unpacking() -> None:
    with pytest.raises(WireError) as err:
        wire.decode(b"\xc0" * (wire.MAX_MESSAGE_BYTES + 1))
    assert err.value.code == "too_large"


@settings(max_examples=50)
@given(st.integers(1, 5000))
def test_deep_nesting_is_refused_or_decoded(depth: int) -> None:
    frame = b"\x91" * depth + b"\xc0"  # [[[...[nil]...]]]
    body = raw({"v": 1, "t": "conf_put", "id": 1, "b": {}})[:-1]  # drop the empty body
    decodes_or_refuses(frame)
    decodes_or_refuses(body + b"\x81\xa4data" + frame)


# ---- published messages ------------------------------------------------------------
@given(st.text(max_size=10), st.integers(0, 2**63 - 1))
def test_heartbeats_and_event_batches_round_trip(epoch: str, seq: int) -> None:
    assert wire.decode_published(wire.encode_heartbeat(epoch, seq)) == (
        wire.TOPIC_HEARTBEAT, {"epoch": epoch, "seq": seq})
    events = [{"kind": "job", "op": "put", "key": "1", "obj": None, "seq": seq}]
    assert wire.decode_published(wire.encode_event_batch(epoch, events)) == (
        wire.TOPIC_EVENTS, {"epoch": epoch, "events": events})


@given(st.lists(st.binary(max_size=30), max_size=4))
def test_published_frames_never_raise_anything_else(frames: list[bytes]) -> None:
    try:
        topic, payload = wire.decode_published(frames)
    except WireError:
        return
    assert topic == frames[0] and isinstance(payload, dict)


def test_pack_and_unpack_round_trip_bytes_and_int_keys() -> None:
    obj = {"script": b"#!/bin/sh\n", 1: [1.5, None, "x"]}
    assert wire.unpack(wire.pack(obj)) == obj
