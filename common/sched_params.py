"""The scheduler configuration's ``params`` value (sched_conf(5)): which keys there are,
what their values mean, and 8.1.9's wording when ``qconf -msconf`` refuses one. Pure.

8.1.9 knows five keys (tests/data/reference/reservation/msconf-params-*): ``MONITOR``
(0/1/true/false in any case; it writes ``$SGE_ROOT/$SGE_CELL/common/schedule``),
``DURATION_OFFSET`` (a time added to every job's planned duration; default 60 s),
``PROFILE``, ``JC_FILTER`` and ``PE_RANGE_ALG``. Keys are read in any case, separated by
``,`` ``;`` or blanks, and a repeated key counts with its last value. This version
implements MONITOR and DURATION_OFFSET; the other three are refused saying so, since
storing them would promise what nothing does (docs/compatibility.md).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from common.conf_values import parse_time
from common.conffile import ConfError, ValueCheckError

# sched_conf(5): "the default of value 60 seconds" (the planning's too:
# common.placement.timeline)
DEFAULT_DURATION_OFFSET = 60.0
SUPPORTED = ("MONITOR", "DURATION_OFFSET")
NOT_BUILT = ("PROFILE", "JC_FILTER", "PE_RANGE_ALG")
_SEPARATORS = re.compile(r"[,;\s]+")
_MONITOR_WORDS = {"1": True, "true": True, "0": False, "false": False}


@dataclass(frozen=True, slots=True)
class SchedParams:
    """``monitor``: write the schedule file; ``duration_offset``: seconds added to every
    planned duration."""

    monitor: bool = False
    duration_offset: float = DEFAULT_DURATION_OFFSET


def parse_sched_params(text: str) -> SchedParams:
    """The typed ``params`` value, or ``ConfError`` worded as 8.1.9's qconf words it
    (an unreadable DURATION_OFFSET gets no line of its own there: ``ValueCheckError``
    with an empty message)."""
    monitor, offset = False, DEFAULT_DURATION_OFFSET
    for item in _items(text):
        key, sep, value = item.partition("=")
        name = key.upper()
        if name == "MONITOR":
            word = value.strip().lower() if sep else None
            if word not in _MONITOR_WORDS:
                raise ValueCheckError(f'Invalid scheduler param setting: "{item}"')
            monitor = _MONITOR_WORDS[word]
        elif name == "DURATION_OFFSET":
            offset = _offset(value)
        elif name in NOT_BUILT:
            raise ValueCheckError(f'scheduler param "{item}" is not supported by this '
                                  f"version (only {' and '.join(SUPPORTED)} are)")
        else:
            raise ValueCheckError(f'found unknown param: "{item}"')
    return SchedParams(monitor=monitor, duration_offset=offset)


def _items(text: str) -> list[str]:
    stripped = text.strip()
    if stripped.lower() in ("", "none"):
        return []
    return [item for item in _SEPARATORS.split(stripped) if item]


def _offset(value: str) -> float:
    try:
        seconds = parse_time(value, "DURATION_OFFSET") if value.strip() else math.nan
    except ConfError:
        seconds = math.nan
    if not (seconds >= 0 and math.isfinite(seconds)):
        raise ValueCheckError("")
    return seconds


def check_sched_params(name: str, value: str) -> str:
    """``qconf -msconf``: a readable value is stored as typed."""
    parse_sched_params(value)
    return value.strip()
