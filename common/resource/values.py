"""Value types of Grid Engine complex attributes: parsing, display and comparison.

This module owns the nine complex(5) value types, Grid Engine's numeric parser (the
one `sge_parse_num_val` implements for INT, DOUBLE, TIME, MEMORY and BOOL alike), the
display formats used by `qstat -F`, `qhost -F` and scheduler messages, the relational
operators and the comparison rule of complex(5).

Numbers are held as Python floats (Grid Engine keeps doubles); INFINITY is ``math.inf``.
STRING, CSTRING, RESTRING and HOST values are plain ``str``.

Accepted numeric forms (as Grid Engine 8.1.9 accepts them, for every numeric type):

- ``TRUE`` / ``FALSE`` (1 / 0) and ``INFINITY``, case-insensitive;
- ``h:m:s`` with exactly two colons, each part a decimal (possibly empty = 0),
  e.g. ``1:30:00``, ``1::1``, ``::90`` (a form with one colon such as ``5:30`` is
  refused, as Grid Engine refuses it: see sge_types(5), "the separating colon must
  remain");
- a decimal or fixed-point number (``1.5``, ``1e3``, ``-2``) or, when it starts with
  ``0`` and has no ``.``, a C octal/hex integer (``010`` = 8, ``0x10`` = 16), each
  optionally followed by one multiplier k=1000, K=1024, m, M, g, G, t, T.

The comparison rule: the job's request is on the left, the offered (configured, load
or remaining consumable) value on the right: ``request RELOP offered``. For string
types the request is a wildcard expression (see :mod:`common.resource.wildcard`)
matched against the offered string.
"""
from __future__ import annotations

import math
import re
from enum import Enum

from common.resource import wildcard


class ValueType(str, Enum):
    """The type column of a complex attribute."""

    INT = "INT"
    DOUBLE = "DOUBLE"
    TIME = "TIME"
    MEMORY = "MEMORY"
    BOOL = "BOOL"
    STRING = "STRING"
    CSTRING = "CSTRING"
    RESTRING = "RESTRING"
    HOST = "HOST"


INT, DOUBLE, TIME, MEMORY, BOOL = (ValueType.INT, ValueType.DOUBLE, ValueType.TIME,
                                   ValueType.MEMORY, ValueType.BOOL)
STRING, CSTRING, RESTRING, HOST = (ValueType.STRING, ValueType.CSTRING,
                                   ValueType.RESTRING, ValueType.HOST)

NUMERIC_TYPES = frozenset({INT, DOUBLE, TIME, MEMORY, BOOL})
STRING_TYPES = frozenset({STRING, CSTRING, RESTRING, HOST})
#: types whose wildcard comparison ignores case
CASELESS_TYPES = frozenset({CSTRING, HOST})


class Relop(str, Enum):
    """The relop column of a complex attribute."""

    EQ = "=="
    NE = "!="
    LT = "<"
    LE = "<="
    GT = ">"
    GE = ">="
    EXCL = "EXCL"


# Grid Engine's own name for each kind of numeric value, used in its messages.
_KIND = {
    INT: "integer value", DOUBLE: "double value", TIME: "time value",
    MEMORY: "memory value", BOOL: "boolean value",
}
INFINITY_KIND = "value that can be set to infinity"

_MULTIPLIERS = {
    "k": 1000.0, "K": 1024.0, "m": 1000.0 ** 2, "M": 1024.0 ** 2,
    "g": 1000.0 ** 3, "G": 1024.0 ** 3, "t": 1000.0 ** 4, "T": 1024.0 ** 4,
}
# strtod's decimal syntax (leading blanks allowed, as strtod skips them)
_DECIMAL = re.compile(r"[ \t\n\r\f\v]*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_C_INTEGER = re.compile(r"0[xX][0-9a-fA-F]+|0[0-7]*")
_PART_LIMIT = 0x7FFFFFFF  # Grid Engine refuses larger hour/minute parts


class BadValueError(ValueError):
    """A value that does not parse as its type.

    ``str(err)`` is Grid Engine's wording: ``attribute "h_vmem" is not a memory value``
    when the attribute is known, else ``"12abc" is not a memory value``.
    """

    def __init__(self, kind: str, text: str, attr: str | None = None) -> None:
        self.kind = kind
        self.text = text
        self.attr = attr
        super().__init__(self._message())

    def _message(self) -> str:
        if self.attr is not None:
            return f'attribute "{self.attr}" is not a {self.kind}'
        return f'"{self.text}" is not a {self.kind}'

    def for_attribute(self, attr: str) -> "BadValueError":
        """The same error, worded for attribute ``attr``."""
        return BadValueError(self.kind, self.text, attr)


# --------------------------------------------------------------------------- parsing

def _strtod(text: str, pos: int) -> tuple[float, int]:
    """C strtod on text[pos:]: (value, end); end == pos when nothing was read."""
    m = _DECIMAL.match(text, pos)
    if m is None:
        return 0.0, pos
    return float(m.group(0)), m.end()


def _apply_multiplier(text: str, pos: int, kind: str) -> float:
    """The multiplier letter at text[pos] (if any); nothing may follow it."""
    if pos == len(text):
        return 1.0
    mul = _MULTIPLIERS.get(text[pos])
    if mul is None or pos + 1 != len(text):
        raise BadValueError(kind, text)
    return mul


def _parse_colon_time(text: str, kind: str) -> float:
    """``h:m:s`` where each part may be empty; exactly two colons."""
    total, pos = 0.0, 0
    for factor, sep in ((3600.0, ":"), (60.0, ":"), (1.0, "")):
        part, pos = _strtod(text, pos)
        if factor > 1.0 and part > _PART_LIMIT:
            raise BadValueError(kind, text)
        total += part * factor
        if sep:
            if pos >= len(text) or text[pos] != sep:
                raise BadValueError(kind, text)
            pos += 1
    if text[pos:].strip(" \t\n\r\f\v"):
        raise BadValueError(kind, text)
    return total


def _parse_plain_number(text: str, kind: str) -> float:
    """Decimal/fixed float, or C octal/hex integer, with an optional multiplier."""
    if "." in text or not text.startswith("0"):
        value, pos = _strtod(text, 0)
        if pos == 0:
            raise BadValueError(kind, text)
    else:
        m = _C_INTEGER.match(text)
        assert m is not None  # text starts with "0", which always matches
        digits = m.group(0)
        base = 16 if digits[1:2] in ("x", "X") else 8
        value, pos = float(int(digits, base)), m.end()
    return value * _apply_multiplier(text, pos, kind)


def parse_number(text: str, kind: str = "double value") -> float:
    """Grid Engine's numeric parser, shared by all numeric types.

    ``kind`` is the wording used in the error ("time value", "memory value", ...).
    """
    lowered = text.lower()
    if lowered == "true":
        return 1.0
    if lowered == "false":
        return 0.0
    if lowered == "infinity":
        return math.inf
    if ":" in text:
        return _parse_colon_time(text, kind)
    return _parse_plain_number(text, kind)


def parse_time(text: str) -> float:
    """A time specifier in seconds (``1:30:00`` -> 5400.0, ``INFINITY`` -> inf)."""
    return parse_number(text, _KIND[TIME])


def parse_memory(text: str) -> float:
    """A memory specifier in bytes (``1.5K`` -> 1536.0, ``4g`` -> 4e9)."""
    return parse_number(text, _KIND[MEMORY])


def parse_value(vtype: ValueType, text: str, *, attr: str | None = None,
                allow_infinity: bool = True) -> float | str:
    """Parse ``text`` as a value of ``vtype``.

    Numeric types give a float, string types give ``text`` unchanged. ``attr`` names
    the attribute in the error message. With ``allow_infinity=False`` (consumables)
    INFINITY is refused with Grid Engine's "value that can be set to infinity".
    """
    if vtype in STRING_TYPES:
        return text
    if not allow_infinity and text.lower() == "infinity":
        raise BadValueError(INFINITY_KIND, text, attr)
    try:
        return parse_number(text, _KIND[vtype])
    except BadValueError as err:
        raise err.for_attribute(attr) if attr is not None else err


# --------------------------------------------------------------------------- display

def format_memory(value: float) -> str:
    """``23.330G``, ``216.035M``, ``0.000`` (as qhost -F / qstat -F print memory)."""
    if value == math.inf:
        return "infinity"
    for unit, size in (("T", 1024.0 ** 4), ("G", 1024.0 ** 3),
                       ("M", 1024.0 ** 2), ("K", 1024.0)):
        if abs(value) >= size:
            return f"{value / size:.3f}{unit}"
    # Grid Engine prints the absolute value below 1K (a quirk kept on purpose)
    return f"{abs(value):.3f}"


def format_time(value: float) -> str:
    """``HH:MM:SS`` with hours unbounded (``100:00:00``), ``infinity``."""
    if value == math.inf:
        return "infinity"
    seconds = int(value)  # C truncation toward zero, also for the parts below
    hours = int(seconds / 3600)
    seconds -= hours * 3600
    minutes = int(seconds / 60)
    seconds -= minutes * 60
    return ":".join(_c_two_digits(part) for part in (hours, minutes, seconds))


def _c_two_digits(number: int) -> str:
    """C ``%2.2d``: at least two digits, sign in front."""
    return ("-" if number < 0 else "") + f"{abs(number):02d}"


def format_double(value: float) -> str:
    """``2.000000`` (C ``%f``), ``infinity``."""
    if value == math.inf:
        return "infinity"
    return f"{value:f}"


def format_bool(value: float) -> str:
    """``true`` when positive, else ``false`` (as scheduler messages print BOOL)."""
    return "true" if value > 0 else "false"


def format_value(vtype: ValueType, value: float | str) -> str:
    """Display form of an offered value, as in ``hl:mem_free=23.330G``."""
    if vtype in STRING_TYPES:
        return str(value)
    number = float(value)
    if vtype is MEMORY:
        return format_memory(number)
    if vtype is TIME:
        return format_time(number)
    if vtype is BOOL:
        return format_bool(number)
    return format_double(number)


# --------------------------------------------------------------------------- comparison

def compare_numbers(relop: Relop, request: float, offered: float) -> bool:
    """``request RELOP offered``; EXCL holds for a zero request or one within offer."""
    if relop is Relop.EQ:
        return request == offered
    if relop is Relop.NE:
        return request != offered
    if relop is Relop.LT:
        return request < offered
    if relop is Relop.LE:
        return request <= offered
    if relop is Relop.GT:
        return request > offered
    if relop is Relop.GE:
        return request >= offered
    return request == 0 or request <= offered


def compare_strings(relop: Relop, vtype: ValueType, request: str, offered: str) -> bool:
    """Wildcard comparison; other relops follow Grid Engine's sign convention.

    The expression result is 0 (match), 1 (no match) or -1 (syntax error), and the
    relop is applied to that number against 0, exactly as Grid Engine does.
    """
    ignore_case = vtype in CASELESS_TYPES
    cmp = wildcard.compare(request, offered, ignore_case=ignore_case)
    return compare_numbers(relop, float(cmp), 0.0) if relop is not Relop.EXCL else False


def compare(relop: Relop, vtype: ValueType, request: float | str,
            offered: float | str) -> bool:
    """The comparison rule of complex(5): does ``request`` fit ``offered``?"""
    if vtype in STRING_TYPES:
        return compare_strings(relop, vtype, str(request), str(offered))
    return compare_numbers(relop, float(request), float(offered))


def normalize_request_text(vtype: ValueType, text: str, value: float | str) -> str:
    """The request as Grid Engine stores and shows it: time values in seconds."""
    if vtype is TIME and isinstance(value, float) and value != math.inf:
        return f"{value:.0f}"
    return text
