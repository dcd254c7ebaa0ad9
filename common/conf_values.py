"""Values of configuration attributes: checking, canonical text and typed reading.

Configuration objects are stored as ordered ``(name, value)`` string pairs, exactly the
text the qmaster spools and ``qconf`` shows. This module owns what those strings mean:

- *checkers* (``check_*``) take an attribute name and a value, raise ``ConfError`` with
  Grid Engine's wording when the value is not of the attribute's type, and return the
  canonical text Grid Engine would show after storing it (``true`` -> ``TRUE``, a list
  ``a,b`` -> ``a b``); time and memory values are kept as written, as Grid Engine does;
- *typed accessors* (``get_*``) read a value out of the pairs as a Python value.

Time and memory specifiers (``sge_types(1)``) are read by the one parser of each type,
the resource model's (``common.resource.values``: seconds or ``h:m:s``, decimal, exponent,
C octal and hex, multipliers ``k K m M g G t T`` (lower case powers of 1000, upper case of
1024), ``INFINITY``), so that a queue's ``h_vmem`` means what a job's ``-l h_vmem`` means;
a configured time or memory is never negative. The refusal is worded as ``qconf`` words
it (``value for attribute h_vmem "4X" is not memory``).
"""
from __future__ import annotations

import math
import re
from typing import Callable, Iterable, Sequence

from common.conffile import ConfError

Check = Callable[[str, str], str]

TRUE_WORDS = frozenset({"true", "t", "1", "yes", "y"})
FALSE_WORDS = frozenset({"false", "f", "0", "no", "n"})
_UINT = re.compile(r"^[0-9]+$")
_INT = re.compile(r"^[-+]?[0-9]+$")
_SEPARATORS = re.compile(r"[,\s]+")


def is_none(value: str) -> bool:
    """Grid Engine's keyword for an empty value, in any case."""
    return value.strip().upper() == "NONE"


# --- plain conversions (raise ConfError) ---------------------------------------------

def parse_bool(value: str) -> bool:
    word = value.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ConfError(f'error parsing value "{value}"')


def parse_ulong(value: str) -> int:
    if not _UINT.match(value.strip()):
        raise ConfError(f'error parsing unsigned long value from string "{value}"')
    return int(value)


def parse_int(value: str) -> int:
    if not _INT.match(value.strip()):
        raise ConfError(f'error parsing signed int value from string "{value}"')
    return int(value)


def _specifier(value: str, kind: str, name: str) -> float:
    """A time (``kind`` "time") or memory specifier by the resource model's parser; a
    negative one is refused (a configured interval, size or limit is never below 0)."""
    from common.resource.values import BadValueError, parse_number
    text = value.strip()
    try:
        number = parse_number(text, f"{kind} value")
    except BadValueError:
        number = -1.0
    if not number >= 0:
        raise ConfError(f'value for attribute {name} "{value}" is not {kind}')
    return number


def parse_time(value: str, name: str = "") -> float:
    """Seconds of a time specifier; ``math.inf`` for INFINITY."""
    return _specifier(value, "time", name)


def seconds_or(value: str, default: float) -> float:
    """A configured time in seconds, or ``default`` when it is not a valid time."""
    try:
        return parse_time(value)
    except ConfError:
        return default


def parse_memory(value: str, name: str = "") -> float:
    """Bytes of a memory specifier; ``math.inf`` for INFINITY."""
    return _specifier(value, "memory", name)


def parse_double(value: str, name: str = "") -> float:
    try:
        number = float(value.strip())
    except ValueError:
        number = math.nan
    if math.isnan(number):
        raise ConfError(f'value for attribute {name} "{value}" is not a double')
    return number


def split_names(value: str) -> list[str]:
    """Items of a list separated by commas and/or blanks; NONE is the empty list."""
    items = [item for item in _SEPARATORS.split(value.strip()) if item]
    return [] if len(items) == 1 and is_none(items[0]) else items


def split_assignments(value: str) -> list[tuple[str, str]]:
    """``a=1,b=2`` as ``[("a", "1"), ("b", "2")]``; an item without ``=`` has value ``""``."""
    out: list[tuple[str, str]] = []
    for item in split_names(value):
        name, _, val = item.partition("=")
        out.append((name, val))
    return out


# --- checkers: (attribute, value) -> canonical value ----------------------------------

def no_value(name: str, value: str) -> None:
    if not value.strip():
        raise ConfError("No value specified")


def check_string(name: str, value: str) -> str:
    no_value(name, value)
    return value.strip()


def check_none_string(name: str, value: str) -> str:
    """A string where NONE (any case) means unset, shown as ``NONE``."""
    text = check_string(name, value)
    return "NONE" if is_none(text) else text


def check_bool(name: str, value: str) -> str:
    no_value(name, value)
    return "TRUE" if parse_bool(value) else "FALSE"


def check_ulong(name: str, value: str) -> str:
    no_value(name, value)
    return str(parse_ulong(value))


def check_int(name: str, value: str) -> str:
    no_value(name, value)
    return str(parse_int(value))


def check_time(name: str, value: str) -> str:
    no_value(name, value)
    parse_time(value, name)
    return "INFINITY" if value.strip().upper() == "INFINITY" else value.strip()


def check_memory(name: str, value: str) -> str:
    no_value(name, value)
    parse_memory(value, name)
    return "INFINITY" if value.strip().upper() == "INFINITY" else value.strip()


def check_double6(name: str, value: str) -> str:
    """A double shown with six decimals, as the scheduler configuration shows them."""
    no_value(name, value)
    return f"{parse_double(value, name):.6f}"


def check_names(name: str, value: str) -> str:
    """A name list shown blank-separated, or NONE."""
    no_value(name, value)
    return " ".join(split_names(value)) or "NONE"


def check_comma_names(name: str, value: str) -> str:
    """A name list shown comma-separated, or NONE."""
    no_value(name, value)
    return ",".join(split_names(value)) or "NONE"


def check_assignments(name: str, value: str) -> str:
    """``name=value`` items shown comma-separated, or NONE; every item needs a value."""
    no_value(name, value)
    items = split_assignments(value)
    for item, val in items:
        if not item or not val:
            raise ConfError(f'Error during parsing of attribute value "{value}"')
    return ",".join(f"{item}={val}" for item, val in items) or "NONE"


def check_double_assignments(name: str, value: str) -> str:
    """``name=double`` items (scaling factors), values kept as written."""
    text = check_assignments(name, value)
    for _, val in split_assignments(text):
        parse_double(val, name)
    return text


def check_choice(choices: Sequence[str], message: str) -> Check:
    """A checker accepting one of ``choices`` (any case), shown as listed."""
    lookup = {choice.lower(): choice for choice in choices}

    def check(name: str, value: str) -> str:
        no_value(name, value)
        found = lookup.get(value.strip().lower())
        if found is None:
            raise ConfError(message.format(value=value.strip(), name=name))
        return found
    return check


def check_ulong_range(low: int, high: int) -> Check:
    def check(name: str, value: str) -> str:
        number = parse_ulong(check_ulong(name, value))
        if not low <= number <= high:
            raise ConfError(f'{number} is an invalid value for the "{name}" attribute - '
                            f"it must be a value between {low} and {high}")
        return str(number)
    return check


def either(*checks: Check) -> Check:
    """The first checker that accepts the value; the last one's error otherwise."""
    def check(name: str, value: str) -> str:
        for candidate in checks[:-1]:
            try:
                return candidate(name, value)
            except ConfError:
                continue
        return checks[-1](name, value)
    return check


# --- typed accessors over stored pairs -------------------------------------------------

def get(pairs: Iterable[Sequence[str]], name: str, default: str = "") -> str:
    """The stored string of attribute ``name`` (pairs may be tuples or 2-lists)."""
    for key, value in pairs:
        if key == name:
            return value
    return default


def get_bool(pairs: Iterable[Sequence[str]], name: str, default: bool = False) -> bool:
    value = get(pairs, name)
    return parse_bool(value) if value else default


def get_int(pairs: Iterable[Sequence[str]], name: str, default: int = 0) -> int:
    value = get(pairs, name)
    return parse_int(value) if value else default


def get_time(pairs: Iterable[Sequence[str]], name: str, default: float = math.inf) -> float:
    value = get(pairs, name)
    return parse_time(value, name) if value else default


def get_memory(pairs: Iterable[Sequence[str]], name: str, default: float = math.inf) -> float:
    value = get(pairs, name)
    return parse_memory(value, name) if value else default


def get_double(pairs: Iterable[Sequence[str]], name: str, default: float = 0.0) -> float:
    value = get(pairs, name)
    return parse_double(value, name) if value else default


def get_list(pairs: Iterable[Sequence[str]], name: str) -> list[str]:
    return split_names(get(pairs, name, "NONE"))


def get_assignments(pairs: Iterable[Sequence[str]], name: str) -> list[tuple[str, str]]:
    return split_assignments(get(pairs, name, "NONE"))
