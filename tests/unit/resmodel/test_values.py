"""Value types: Grid Engine's numeric parser, display formats and the comparison rule."""
from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from common.resource import values as v
from common.resource.values import BadValueError, Relop

from tests.reference import REFERENCE
UNITS = {"k": 1000, "K": 1024, "m": 1000 ** 2, "M": 1024 ** 2,
         "g": 1000 ** 3, "G": 1024 ** 3, "t": 1000 ** 4, "T": 1024 ** 4}


def reference_error(name: str) -> str:
    """The message of a captured qsub error, without 'Unable to run job: '."""
    first = (REFERENCE / f"{name}.err").read_text().splitlines()[0]
    return first.removeprefix("Unable to run job: ")


# --------------------------------------------------------------------------- time

@pytest.mark.parametrize("text, seconds", [
    ("1:30:00", 5400), ("0:0:0", 0), ("1::1", 3601), ("1:0:1", 3601), ("::90", 90),
    (":1:", 60), ("::", 0), ("100:00:00", 360000), ("3600", 3600), ("90", 90),
    ("1.5:0:0", 5400), ("0:0:1.5", 1.5), ("1k", 1000), ("010", 8), ("0x10", 16),
    ("1e3", 1000), (" 1:0:0 ", 3600),
])
def test_parse_time(text: str, seconds: float) -> None:
    assert v.parse_time(text) == seconds


@pytest.mark.parametrize("text", ["INFINITY", "infinity", "Infinity"])
def test_parse_time_infinity(text: str) -> None:
    assert v.parse_time(text) == math.inf


@pytest.mark.parametrize("text", ["1:xx", "5:30", "1:2:3:4", "abc", "", "1:2:3x", "1h",
                                  "9999999999:0:0", "0:9999999999:0"])
def test_parse_time_rejects(text: str) -> None:
    with pytest.raises(BadValueError) as err:
        v.parse_time(text)
    assert err.value.kind == "time value"
    assert str(err.value) == f'"{text}" is not a time value'


def test_bad_time_message_is_grid_engines() -> None:
    with pytest.raises(BadValueError) as err:
        v.parse_value(v.TIME, "1:xx", attr="h_rt")
    assert str(err.value) == reference_error("qsub-err-bad-time-spec")


# --------------------------------------------------------------------------- memory

@pytest.mark.parametrize("text, size", [
    ("0", 0), ("1024", 1024), ("1k", 1000), ("1K", 1024), ("512m", 512e6),
    ("512M", 512 * 1024 ** 2), ("4g", 4e9), ("4G", 4 * 1024 ** 3), ("2t", 2e12),
    ("2T", 2 * 1024 ** 4), ("1.5K", 1536), (".5M", 524288), ("0k", 0), ("0x1K", 1024),
    ("TRUE", 1), ("false", 0),
])
def test_parse_memory(text: str, size: float) -> None:
    assert v.parse_memory(text) == size


@pytest.mark.parametrize("name", ["qsub-err-bad-memory-spec", "qsub-err-bad-memory-spec2"])
def test_bad_memory_message_is_grid_engines(name: str) -> None:
    request = (REFERENCE / f"{name}.cmd").read_text().split("h_vmem=")[1].split()[0]
    with pytest.raises(BadValueError) as err:
        v.parse_value(v.MEMORY, request, attr="h_vmem")
    assert str(err.value) == reference_error(name)


@pytest.mark.parametrize("text", ["12abc", "lots", "1KB", "1G,", "08", "0x", "1 G", "-"])
def test_parse_memory_rejects(text: str) -> None:
    with pytest.raises(BadValueError):
        v.parse_memory(text)


def test_parse_memory_infinity() -> None:
    assert v.parse_memory("INFINITY") == math.inf


# --------------------------------------------------------------------------- parse_value

def test_parse_value_types() -> None:
    assert v.parse_value(v.INT, "4") == 4.0
    assert v.parse_value(v.DOUBLE, "2.5e-1") == 0.25
    assert v.parse_value(v.BOOL, "TRUE") == 1.0
    assert v.parse_value(v.BOOL, "false") == 0.0
    assert v.parse_value(v.STRING, "lx-amd64") == "lx-amd64"
    assert v.parse_value(v.HOST, "VM") == "VM"


@pytest.mark.parametrize("vtype, kind", [
    (v.INT, "integer value"), (v.DOUBLE, "double value"), (v.BOOL, "boolean value"),
    (v.MEMORY, "memory value"), (v.TIME, "time value"),
])
def test_parse_value_error_kinds(vtype: v.ValueType, kind: str) -> None:
    with pytest.raises(BadValueError) as err:
        v.parse_value(vtype, "yes", attr="x")
    assert str(err.value) == f'attribute "x" is not a {kind}'
    assert isinstance(err.value, ValueError)


def test_infinity_refused_for_consumables() -> None:
    with pytest.raises(BadValueError) as err:
        v.parse_value(v.INT, "infinity", attr="slots", allow_infinity=False)
    assert str(err.value) == 'attribute "slots" is not a value that can be set to infinity'


def test_normalize_request_text() -> None:
    assert v.normalize_request_text(v.TIME, "1:0:0", 3600.0) == "3600"
    assert v.normalize_request_text(v.TIME, "INFINITY", math.inf) == "INFINITY"
    assert v.normalize_request_text(v.MEMORY, "1G", 1024.0 ** 3) == "1G"


# --------------------------------------------------------------------------- display

@pytest.mark.parametrize("value, text", [
    (23.330 * 1024 ** 3, "23.330G"), (216.035 * 1024 ** 2, "216.035M"), (0, "0.000"),
    (1023, "1023.000"), (1024, "1.000K"), (2 * 1024 ** 4, "2.000T"), (-5, "5.000"),
    (-2048, "-2.000K"), (math.inf, "infinity"),
])
def test_format_memory(value: float, text: str) -> None:
    assert v.format_memory(value) == text


@pytest.mark.parametrize("value, text", [
    (0, "00:00:00"), (3661, "01:01:01"), (360000, "100:00:00"), (59.9, "00:00:59"),
    (-61, "00:-01:-01"), (math.inf, "infinity"),
])
def test_format_time(value: float, text: str) -> None:
    assert v.format_time(value) == text


def test_format_value_as_qhost_prints() -> None:
    # lines of reference/qhost-F.out
    assert v.format_value(v.DOUBLE, 2.016602) == "2.016602"
    assert v.format_value(v.INT, 2) == "2.000000"
    assert v.format_value(v.STRING, "lx-amd64") == "lx-amd64"
    assert v.format_value(v.MEMORY, 0.0) == "0.000"
    assert v.format_value(v.BOOL, 1.0) == "true"
    assert v.format_value(v.BOOL, 0.0) == "false"
    assert v.format_value(v.TIME, 5400.0) == "01:30:00"


# --------------------------------------------------------------------------- comparison

@pytest.mark.parametrize("relop, req, offer, result", [
    (Relop.LE, 1, 2, True), (Relop.LE, 2, 2, True), (Relop.LE, 3, 2, False),
    (Relop.LT, 2, 2, False), (Relop.LT, 1, 2, True), (Relop.GE, 2, 1, True),
    (Relop.GE, 1, 2, False), (Relop.GT, 2, 2, False), (Relop.EQ, 2, 2, True),
    (Relop.EQ, 1, 2, False), (Relop.NE, 1, 2, True), (Relop.NE, 2, 2, False),
    (Relop.EXCL, 0, 0, True), (Relop.EXCL, 1, 1, True), (Relop.EXCL, 1, 0, False),
])
def test_compare_numbers(relop: Relop, req: float, offer: float, result: bool) -> None:
    assert v.compare(relop, v.INT, req, offer) is result


def test_request_is_left_operand() -> None:
    # mem_free <= : a request of 1G fits a host offering 4G, not the other way round
    assert v.compare(Relop.LE, v.MEMORY, v.parse_memory("1G"), v.parse_memory("4G"))
    assert not v.compare(Relop.LE, v.MEMORY, v.parse_memory("4G"), v.parse_memory("1G"))
    # load_avg >= : a request of 2 accepts hosts with load 1.5
    assert v.compare(Relop.GE, v.DOUBLE, 2.0, 1.5)


def test_compare_bool_forms() -> None:
    for text in ("TRUE", "true", "1"):
        assert v.compare(Relop.EQ, v.BOOL, v.parse_value(v.BOOL, text), 1.0)
    assert not v.compare(Relop.EQ, v.BOOL, v.parse_value(v.BOOL, "FALSE"), 1.0)


def test_compare_strings() -> None:
    assert v.compare(Relop.EQ, v.STRING, "lx-*", "lx-amd64")
    assert not v.compare(Relop.EQ, v.STRING, "LX-*", "lx-amd64")
    assert v.compare(Relop.EQ, v.CSTRING, "LX-*", "lx-amd64")
    assert v.compare(Relop.EQ, v.HOST, "VM", "vm")
    assert v.compare(Relop.NE, v.STRING, "sol*", "lx-amd64")
    assert not v.compare(Relop.NE, v.STRING, "lx*", "lx-amd64")
    # a malformed expression never matches with ==, so != holds (Grid Engine's -1)
    assert not v.compare(Relop.EQ, v.STRING, "lx|", "lx")
    assert v.compare(Relop.NE, v.STRING, "lx|", "lx")
    assert not v.compare(Relop.EXCL, v.STRING, "x", "x")


# --------------------------------------------------------------------------- hypothesis

hours = st.integers(0, 10_000)
sixty = st.integers(0, 59)


@given(hours, sixty, sixty)
def test_time_forms_agree(h: int, m: int, s: int) -> None:
    seconds = h * 3600 + m * 60 + s
    assert v.parse_time(f"{h}:{m}:{s}") == seconds
    assert v.parse_time(f"{h:02d}:{m:02d}:{s:02d}") == seconds
    assert v.parse_time(str(seconds)) == seconds
    assert v.parse_time(f"::{seconds}") == seconds
    assert v.parse_time(f"{h or ''}:{m or ''}:{s or ''}") == seconds


@given(st.integers(0, 10 ** 7))
def test_time_display_round_trip(seconds: int) -> None:
    assert v.parse_time(v.format_time(seconds)) == seconds


@given(st.integers(0, 10 ** 6), st.sampled_from(sorted(UNITS)))
def test_memory_multipliers(n: int, unit: str) -> None:
    assert v.parse_memory(f"{n}{unit}") == n * UNITS[unit]
    assert v.parse_memory(f"{n}.0{unit}") == n * UNITS[unit]


@given(st.integers(0, 2 ** 50))
def test_memory_display_round_trip(size: int) -> None:
    text = v.format_memory(size)
    unit = 1024.0 ** "KMGT".index(text[-1]) * 1024 if text[-1] in "KMGT" else 1.0
    assert abs(v.parse_memory(text) - size) <= 0.0005 * unit + 1e-9


@given(st.integers(1, 10 ** 9))
def test_octal_and_hex_integers(n: int) -> None:
    assert v.parse_memory(oct(n).replace("0o", "0")) == n
    assert v.parse_memory(hex(n)) == n


@given(st.text(alphabet="0123456789:.kKmMgGtTx ab-", max_size=8))
def test_parser_never_crashes(text: str) -> None:
    try:
        value = v.parse_memory(text)
    except BadValueError as err:
        assert str(err) == f'"{text}" is not a memory value'
    else:
        assert isinstance(value, float)
