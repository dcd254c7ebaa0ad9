"""The qmaster's calendar (calendar_conf(5)) rules: what a calendar must satisfy and
where calendars are referenced.

Texts are Grid Engine 8.1.9's (tests/data/reference/load/, section 7, and
tests/data/reference/calendar/):

- a calendar's name and fields: ``Space (' ') not allowed in objectname``, ``error in
  disabled_year of calendar ""26" outside of range 1970-2037 of year": y2`` (8.1.9's
  swapped arguments), ``error in disabled_week of calendar "wbd": "funday" is not a
  weekday``;
- a queue naming an unknown calendar (its default or a ``[host=cal]`` value; ``NONE``
  names none): ``Calendar "nosuchcal" does not exist``;
- deleting a calendar a queue still names: ``denied: Calendar "weekend" is still
  referenced in queue "cal.q"``.

The confirmations and the other refusals (``calendar "cal1" already exists``,
``denied: calendar "nosuch" does not exist``) are ``qmaster.conf.requests``'s, in its
words for every kind. What state a calendar gives a queue is ``common.calendar_state``'s.
"""
from __future__ import annotations

from typing import Mapping

from common.conf_values import get
from common.conffile import ConfError
from common.objects_conf.calendar import calendar_problem
from common.objects_conf.queue import parse_host_overrides
from qmaster.context import RequestError

KIND = "calendar"
Conf = Mapping[str, Mapping[str, list[list[str]]]]


def check_calendar(pairs: list[list[str]]) -> None:
    """A calendar being added or changed: its name, ``year`` and ``week``."""
    problem = calendar_problem(pairs)
    if problem:
        raise RequestError("invalid", problem)


def queue_calendars(pairs: list[list[str]]) -> list[str]:
    """Every calendar a queue's ``calendar`` attribute names, its ``[host=...]`` values
    included (``NONE`` names none)."""
    text = get(pairs, "calendar", "NONE")
    try:
        default, overrides = parse_host_overrides(text)
    except ConfError:
        default, overrides = text, {}
    names = [value.strip() for value in (default, *overrides.values())]
    return list(dict.fromkeys(n for n in names if n and n.upper() != "NONE"))


def check_calendars_exist(conf: Conf, kind: str, pairs: list[list[str]]) -> None:
    """A queue may name only existing calendars."""
    if kind != "queue":
        return
    known = conf.get(KIND, {})
    missing = next((n for n in queue_calendars(pairs) if n not in known), None)
    if missing is not None:
        raise RequestError("invalid", f'Calendar "{missing}" does not exist')


def check_unreferenced(conf: Conf, name: str) -> None:
    """Refuse deleting a calendar that a queue names."""
    for queue, pairs in sorted(conf.get("queue", {}).items()):
        if name in queue_calendars(pairs):
            raise RequestError("referenced", f'denied: Calendar "{name}" is still '
                                             f'referenced in queue "{queue}"')
