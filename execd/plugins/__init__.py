"""The Python load-sensor plugin API: what a plugin is and how its values are written.

A plugin is a small class, found through the entry-point group ``pygridengine.load_sensors``
(``ENTRY_POINT_GROUP``), run by the plugin host (``execd/plugin_host.py``), which speaks
Grid Engine's load sensor protocol for it:

    class TmpFree:
        name = "tmp_free"                  # the plugin's name (= its entry point's name)
        def __init__(self) -> None: ...    # no arguments, cheap: no I/O, no heavy imports
        def read(self) -> Mapping[str, str | int | float]:
            return {"tmp_free": 123456789}

``read()`` returns values for names of Grid Engine's complex list. This module owns the
rules for those names and values (``check_name``, ``format_value``), the optional base
class ``LoadPlugin`` and the plugins' entry-point group. It stays tiny and imports nothing
beyond the standard library's basics: the plugin host imports it into every sensor.

Formatting rules (as Grid Engine's execd writes its own load values, ``execd/load.py``):

- ``int`` -> the integer in decimal (``3``, ``1099511627776``); a MEMORY value may be
  given as an ``int`` number of bytes and is reported as that integer, which Grid Engine
  reads as bytes (``1099511627776`` = 1T). ``bool`` is refused (``True`` is not a load
  value; write ``int(flag)``).
- ``float`` -> six decimals (``0.444824``, ``2.000000``); NaN and infinities are refused.
- ``str`` -> verbatim (``2G``, ``lx-amd64``, ``TRUE``); empty strings, ``:``, blanks,
  newlines and other control characters are refused (they would break the
  ``host:name:value`` line).
- Anything else is refused. A refused value is left out of the report; the host says so
  on stderr.

Value names: non-empty, at most ``MAX_NAME`` characters, no blanks or control characters
and none of ``,/:@[]{}|()=%'"\\`` (the characters a Grid Engine object name may not hold).
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import ClassVar

ENTRY_POINT_GROUP = "pygridengine.load_sensors"

MAX_NAME = 256
MAX_VALUE = 1024

Value = str | int | float

# Characters Grid Engine refuses in object names (as common/objects_conf/queue.py does);
# ':' also separates the fields of a sensor line, '=' and ',' those of qconf -se load_values.
_BAD_NAME_CHARS = frozenset(",/:@[]{}|()=%'\"\\")


class LoadPlugin:
    """Optional base class of a plugin; the host only needs ``name`` and ``read``."""

    name: ClassVar[str] = ""

    def read(self) -> Mapping[str, Value]:
        """The plugin's values now, by complex name."""
        raise NotImplementedError


def _has_blank_or_control(text: str) -> bool:
    # isprintable() is False for control characters, newlines and most Unicode
    # separators; the blank itself is printable, so it is checked on its own.
    return not text.isprintable() or " " in text


def check_name(name: object) -> str:
    """``name`` if it can be a load value's name; ValueError/TypeError says why not."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, not {type(name).__name__}")
    if not name:
        raise ValueError("empty name")
    if len(name) > MAX_NAME:
        raise ValueError(f"name longer than {MAX_NAME} characters")
    if _has_blank_or_control(name) or not _BAD_NAME_CHARS.isdisjoint(name):
        raise ValueError(f"invalid name {name!r}")
    return name


def format_value(value: object) -> str:
    """A plugin's value as the text of a ``host:name:value`` line (the rules above)."""
    if isinstance(value, bool):
        raise TypeError("bool is not a load value (use int(flag))")
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"non-finite number {value!r}")
        return f"{float(value):.6f}"
    if isinstance(value, str):
        if not value:
            raise ValueError("empty value")
        if len(value) > MAX_VALUE:
            raise ValueError(f"value longer than {MAX_VALUE} characters")
        if ":" in value or _has_blank_or_control(value):
            raise ValueError(f"invalid value {value!r}")
        return value
    raise TypeError(f"value must be str, int or float, not {type(value).__name__}")


__all__ = ["ENTRY_POINT_GROUP", "LoadPlugin", "MAX_NAME", "MAX_VALUE", "Value",
           "check_name", "format_value"]
