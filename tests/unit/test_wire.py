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
from common.schema import SchemaError
from common.wire import MESSAGE_SCHEMAS, PROTOCOL_VERSION, WireError
from tests.strategies import accepted, anything, mutated, valid

TYPES = sorted(MESSAGE_SCHEMAS)
values = anything


def body_for(msg_type: str) -> st.SearchStrategy[dict[str, Any]]:
    schema = MESSAGE_SCHEMAS[msg_type]
    return valid(schema).filter(lambda body: accepted(schema, body))


def raw(msg: Any) -> bytes:
    return msgpack.packb(msg, use_bin_type=True)


def decodes_or_refuses(frame: bytes) -> None:
    try:
        msg_type, request_id, body = wire.decode(frame)
    except WireError as err:
        assert err.code in ("malformed", "version", "unknown_type", "too_large")
        return
    assert msg_type in MESSAGE_SCHEMAS and isinstance(request_id, int)
    assert MESSAGE_SCHEMAS[msg_type].check(body) == body  # what passed is canonical


# ---- valid messages ----------------------------------------------------------------
@given(st.data())
def test_every_message_type_round_trips(data: st.DataObject) -> None:
    msg_type = data.draw(st.sampled_from(TYPES))
    body = data.draw(body_for(msg_type))
    request_id = data.draw(st.integers(-(2**63), 2**63 - 1))
    decoded = wire.decode(wire.encode(msg_type, body, request_id))
    assert decoded == (msg_type, request_id, MESSAGE_SCHEMAS[msg_type].check(body))


def test_encode_refuses_unknown_types() -> None:
    with pytest.raises(ValueError):
        wire.encode("no_such_type", {})


def test_request_types_exclude_replies_and_execd_orders() -> None:
    assert wire.REQUEST_TYPES == set(TYPES) - {"reply", "error", "start_job", "signal_job",
                                               "finished_ack", "job_tickets", "start_pe_task",
                                               "execd_shutdown"}


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
def test_a_wrong_value_anywhere_in_a_body_is_refused_naming_it(data: st.DataObject) -> None:
    """Mutated bodies (a wrong type deep in a list or map, a missing or unknown field)
    are either still valid or refused as malformed with the field's path."""
    msg_type = data.draw(st.sampled_from(TYPES))
    body = data.draw(mutated(MESSAGE_SCHEMAS[msg_type]))
    try:
        expected = MESSAGE_SCHEMAS[msg_type].check(body)
    except SchemaError as err:
        with pytest.raises(WireError) as refused:
            wire.decode(raw({"v": PROTOCOL_VERSION, "t": msg_type, "id": 9, "b": body}))
        assert refused.value.code == "malformed" and refused.value.request_id == 9
        assert refused.value.message == f"{msg_type}: {err}"
        return
    assert wire.decode(raw({"v": PROTOCOL_VERSION, "t": msg_type, "id": 9, "b": body})) == (
        msg_type, 9, expected)


@pytest.mark.parametrize("msg_type", [t for t in TYPES if getattr(MESSAGE_SCHEMAS[t],
                                                                  "required", None)])
def test_each_missing_field_is_refused(msg_type: str) -> None:
    schema = MESSAGE_SCHEMAS[msg_type]
    for field in schema.required:  # type: ignore[attr-defined]
        body = {name: None for name in schema.required if name != field}  # type: ignore[attr-defined]
        with pytest.raises(WireError, match="missing field|expected"):
            wire.decode(raw({"v": PROTOCOL_VERSION, "t": msg_type, "id": 1, "b": body}))


@pytest.mark.parametrize("body, path", [
    ({"user": {"name": "u", "uid": 1, "group": "g", "gid": 1},
      "jobs": [{"opts": {"hard_queues": 5}}]}, "jobs[0].opts.hard_queues"),
    ({"user": {"name": "u", "uid": 1, "group": "g", "gid": 1},
      "jobs": [{"opts": {}}, {"opts": {"hard_resources": {"a": 1}}}]},
     "jobs[1].opts.hard_resources.a"),
    ({"user": {"name": "u", "uid": 1, "group": "g", "gid": 1},
      "jobs": [{"opts": {"job_name": "a:b"}}]}, "jobs[0].opts.job_name"),
    ({"user": {"name": "u", "uid": True, "group": "g", "gid": 1}, "jobs": [{"opts": {}}]},
     "user.uid"),
    ({"user": {"name": "u", "uid": 1, "group": "g", "gid": 1},
      "jobs": [{"opts": {"cwd": "/tmp/a\0b"}}]}, "jobs[0].opts.cwd"),
    ({"user": {"name": "u", "uid": 1, "group": "g", "gid": 1},
      "jobs": [{"opts": {"array": [5, 1, 1]}}]}, "jobs[0].opts.array"),
    ({"user": {"name": "u", "uid": 1, "group": "g", "gid": 1},
      "jobs": [{"opts": {"bogus": 1}}]}, "jobs[0].opts.bogus"),
])
def test_refusals_name_the_field_deep_inside(body: dict[str, Any], path: str) -> None:
    with pytest.raises(WireError) as err:
        wire.decode(raw({"v": PROTOCOL_VERSION, "t": "submit", "id": 3, "b": body}))
    assert err.value.message.startswith(f"submit: {path}: ")


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
    with pytest.raises(WireError, match="job_id: expected an integer, got a boolean"):
        wire.decode(wire.encode("job_start_failed", body))


def test_missing_request_id_defaults_to_zero_and_unknown_body_fields_are_refused() -> None:
    assert wire.decode(raw({"v": PROTOCOL_VERSION, "t": "ping", "b": {}, "x": 1})) == \
        ("ping", 0, {})
    with pytest.raises(WireError, match="extra: unknown field"):
        wire.decode(raw({"v": PROTOCOL_VERSION, "t": "ping", "b": {"extra": [1, 2]}}))


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
