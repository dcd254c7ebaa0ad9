"""Calendars (calendar_conf(5)): the object a queue's ``calendar`` attribute names, which
switches the queue's instances on, off or to suspended by time of year and of week.

Owns the attributes in Grid Engine's order (``calendar_name``, ``year``, ``week``, the
values in a column 17 characters from the line start), the reading of the ``year`` and
``week`` fields into typed entries (``parse_year``/``parse_week``, used by the checks
here and by ``common.calendar_state``, which decides what state a calendar gives at a
time) and the qmaster's refusal of a whole calendar (``calendar_problem``) in Grid Engine
8.1.9's words (tests/data/reference/load/, section 7, and tests/data/reference/calendar/).

The fields are kept as written (``Mon-Fri=8-18=OFF`` stays so), only runs of blanks
becoming one blank as 8.1.9's file reader makes them; the parse is only for checking and
evaluating. The reader follows 8.1.9's scanner, which explains its accepted oddities:
a weekday, month or state may be any prefix of three letters or more of its full name
(``monday``, ``dec``, ``sus``), ``on`` needs both letters, and ``30.2.2026`` is a date
(one that never comes). Its refusals carry 8.1.9's texts, including their quirk for
``year``, whose message has the calendar name and the reason swapped:
``error in disabled_year of calendar ""26" outside of range 1970-2037 of year": y2``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Sequence, TypeVar

from common.conf_values import get, no_value
from common.conffile import logical_lines
from common.objects_conf.base import Attr, ObjectKind
from common.objects_conf.project import name_problem

STATES = ("on", "off", "suspended")
# C's struct tm numbering: 0 is Sunday
WEEKDAYS = ("sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday")
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december")
YEAR_RANGE = (1970, 2037)
DAY_SECONDS = 24 * 3600
_INT_MAX = 2**31 - 1  # the scanner's numbers are C ints; longer ones are no token
_END = "end"
_NUMBER = "number"
_STRING = "string"
_ERROR = "error"
_YEAR_SIGNS = (".", ":", "=", "-", ",", " ")
_WEEK_SIGNS = (":", "=", "-", ",", " ")


# ---- the typed entries ---------------------------------------------------------------
Date = tuple[int, int, int]           # (year, month 1-12, day 1-31), compared as tuples
DateRange = tuple[Date, Date]         # inclusive; one day: begin == end
DayTime = int                         # seconds since midnight, 0 .. 86400 (24:00)
TimeRange = tuple[DayTime, DayTime]   # begin < end after splitting a range over midnight


@dataclass(frozen=True)
class YearEntry:
    """``year_day_range_list[=daytime_range_list][=state]``; ``dates`` None: every day."""

    dates: tuple[DateRange, ...] | None
    times: tuple[TimeRange, ...]
    state: str


@dataclass(frozen=True)
class WeekEntry:
    """``week_day_range_list[=daytime_range_list][=state]``; ``days`` holds weekday
    numbers (0 Sunday), a range over the week's end already unfolded."""

    days: frozenset[int]
    times: tuple[TimeRange, ...]
    state: str


FULL_DAY: tuple[TimeRange, ...] = ((0, DAY_SECONDS),)
ALL_WEEK = frozenset(range(7))


class CalendarSyntaxError(ValueError):
    """A ``year`` or ``week`` text 8.1.9 refuses; ``reason`` is its scanner's wording."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# ---- the scanner ---------------------------------------------------------------------
class _Scanner:
    """8.1.9's calendar tokenizer: one token looked ahead, ``text`` the last token's
    characters (what its messages quote), signs matched before words and numbers."""

    def __init__(self, source: str, signs: tuple[str, ...]) -> None:
        self.source, self.pos, self.signs = source, 0, signs
        self.token: str | None = None
        self.text = ""
        self.number = 0

    def peek(self) -> str:
        if self.token is not None:
            return self.token
        rest = self.source[self.pos:]
        if not rest:
            self.token = _END
            return self.token
        for sign in self.signs:
            self.text = rest[:1]  # 8.1.9 copies the characters of every sign it tries
            if rest.startswith(sign):
                self.pos += 1
                self.token = sign
                return self.token
        word = _leading(rest, str.isalpha, _isalnum)
        if word:
            self.text, self.token = word, _STRING
            self.pos += len(word)
            return self.token
        digits = _leading(rest, _isdigit, _isdigit)
        if digits and int(digits) <= _INT_MAX:
            self.text, self.number, self.token = digits, int(digits), _NUMBER
            self.pos += len(digits)
            return self.token
        self.token = _ERROR  # an unknown character or a number too long for an int
        return self.token

    def eat(self) -> None:
        self.token = None


def _isdigit(char: str) -> bool:
    return "0" <= char <= "9"


def _isalnum(char: str) -> bool:
    return char.isascii() and char.isalnum()


def _leading(text: str, first: Callable[[str], bool], more: Callable[[str], bool]) -> str:
    """The longest start of ``text`` whose first character passes ``first`` and the
    others ``more`` (C locale classes: ASCII only)."""
    if not text or not text[0].isascii() or not first(text[0]):
        return ""
    end = 1
    while end < len(text) and more(text[end]):
        end += 1
    return text[:end]


def _prefix_match(word: str, names: Sequence[str]) -> int:
    """Index of the name ``word`` abbreviates (three letters at least, any case), or -1."""
    low = word.lower()
    for index, name in enumerate(names):
        if (low == name) if len(low) < 3 else name.startswith(low):
            return index
    return -1


# ---- the grammar ---------------------------------------------------------------------
def _range_number(s: _Scanner, low: int, high: int, what: str) -> int:
    if s.peek() == _NUMBER:
        value = s.number
        s.eat()
        if not low <= value <= high:
            raise CalendarSyntaxError(f'"{s.text}" outside of range {low}-{high} of {what}')
        return value
    raise CalendarSyntaxError(f'"{s.text}" is not a {what}')


def _state(s: _Scanner) -> str:
    if s.peek() != _STRING:
        raise CalendarSyntaxError(f'"{s.text}" is not a state specifier')
    index = _prefix_match(s.text, STATES)
    if index < 0:
        raise CalendarSyntaxError(f'"{s.text}" is not a state specifier')
    s.eat()
    return STATES[index]


def _daytime(s: _Scanner) -> DayTime:
    hour = _range_number(s, 0, 24, "hour specification")
    minute = second = 0
    if s.peek() == ":":
        s.eat()
        minute = _range_number(s, 0, 59, "minute specification")
        if s.peek() == ":":
            s.eat()
            second = _range_number(s, 0, 59, "seconds specification")
    if hour == 24 and (minute or second):
        raise CalendarSyntaxError("daytimes may not be beyond 24:00")
    return hour * 3600 + minute * 60 + second


def _daytime_ranges(s: _Scanner) -> tuple[TimeRange, ...]:
    """``daytime-daytime[,...]``; a range whose end comes before its begin covers the
    day's start up to the end and the begin up to the day's end (calendar_conf(5):
    ``12-11`` is 00:00:00-10:59:59 and 12:00:00-23:59:59)."""
    ranges: list[TimeRange] = []
    while True:
        begin = _daytime(s)
        if s.peek() != "-":
            raise CalendarSyntaxError("missing '-' in daytime range")
        s.eat()
        end = _daytime(s)
        if begin == end:
            raise CalendarSyntaxError("range begin is equal to end - use 0-24 instead")
        ranges += [(begin, end)] if begin < end else [(begin, DAY_SECONDS), (0, end)]
        if s.peek() != ",":
            return tuple(ranges)
        s.eat()


def _year_day(s: _Scanner) -> Date:
    day = _range_number(s, 1, 31, "day")
    if s.peek() != ".":
        raise CalendarSyntaxError('missing "." after day')
    s.eat()
    if s.peek() == _STRING:
        month = _prefix_match(s.text, MONTHS) + 1
        if month == 0:
            raise CalendarSyntaxError("")  # 8.1.9 sets no reason here
        s.eat()
    else:
        month = _range_number(s, 1, 12, "month")
    if s.peek() != ".":
        raise CalendarSyntaxError('missing "." after month')
    s.eat()
    return (_range_number(s, *YEAR_RANGE, "year"), month, day)


def _year_day_ranges(s: _Scanner) -> tuple[DateRange, ...]:
    ranges: list[DateRange] = []
    while True:
        begin = end = _year_day(s)
        if s.peek() == "-":
            s.eat()
            end = _year_day(s)
            if begin > end:
                raise CalendarSyntaxError("first yearday in range must be before second "
                                          "yearday")
        ranges.append((begin, end))
        if s.peek() != ",":
            return tuple(ranges)
        s.eat()


def _week_day(s: _Scanner) -> int:
    if s.peek() != _STRING:
        raise CalendarSyntaxError("expected string for weekday")
    day = _prefix_match(s.text, WEEKDAYS)
    if day < 0:
        raise CalendarSyntaxError(f'"{s.text}" is not a weekday')
    s.eat()
    return day


def _week_day_ranges(s: _Scanner) -> frozenset[int]:
    """``weekday[-weekday][,...]``; ``fri-mon`` runs over the week's end."""
    days: set[int] = set()
    while True:
        begin = end = _week_day(s)
        if s.peek() == "-":
            s.eat()
            end = _week_day(s)
            if begin == end:
                raise CalendarSyntaxError("found useless weekday range")
        days.update((begin + step) % 7 for step in range((end - begin) % 7 + 1))
        if s.peek() != ",":
            return frozenset(days)
        s.eat()


def _times_and_state(s: _Scanner) -> tuple[tuple[TimeRange, ...], str]:
    """What follows the day part: ``[daytime_range_list=]state`` or a daytime range list
    alone (state off: calendar_conf(5)'s default)."""
    times = FULL_DAY
    if s.peek() == _NUMBER:
        times = _daytime_ranges(s)
        if s.peek() != "=":
            return times, "off"
        s.eat()
    if s.peek() != _STRING:
        raise CalendarSyntaxError('got "=" without daytime_range/state')
    return times, _state(s)


def _year_entry(s: _Scanner) -> YearEntry:
    dates = None
    if s.peek() == _NUMBER:
        dates = _year_day_ranges(s)
        if s.peek() != "=":
            return YearEntry(dates, FULL_DAY, "off")
        s.eat()
    times, state = _times_and_state(s)
    return YearEntry(dates, times, state)


def _week_entry(s: _Scanner) -> WeekEntry:
    days = ALL_WEEK
    if s.peek() == _STRING and _prefix_match(s.text, STATES) < 0:
        days = _week_day_ranges(s)
        if s.peek() != "=":
            return WeekEntry(days, FULL_DAY, "off")
        s.eat()
    times, state = _times_and_state(s)
    return WeekEntry(days, times, state)


Entry = TypeVar("Entry", YearEntry, WeekEntry)


def _entries(text: str, signs: tuple[str, ...], entry: Callable[[_Scanner], Entry],
             trailing: Callable[[_Scanner], str]) -> list[Entry]:
    """Entries separated by blanks, then nothing: 8.1.9's list rule for both fields."""
    if text.strip().lower() == "none":
        return []
    s = _Scanner(text, signs)
    entries = [entry(s)]
    while s.peek() == " ":
        while s.peek() == " ":
            s.eat()
        entries.append(entry(s))
    if s.peek() != _END:
        raise CalendarSyntaxError(trailing(s))
    return entries


def parse_year(text: str) -> list[YearEntry]:
    """The entries of a ``year`` field (``NONE``: none), or ``CalendarSyntaxError``."""
    return _entries(text, _YEAR_SIGNS, _year_entry,
                    lambda s: f'unrecognized string "{s.text}"')


def parse_week(text: str) -> list[WeekEntry]:
    """The entries of a ``week`` field (``NONE``: none), or ``CalendarSyntaxError``."""
    return _entries(text, _WEEK_SIGNS, _week_entry, lambda s: "unrecognized token at end")


# ---- the object ----------------------------------------------------------------------
def check_field(name: str, value: str) -> str:
    """Only that there is a value: the syntax is the qmaster's to judge, as in 8.1.9
    (``calendar_problem``), whose refusal comes without the file reader's lines."""
    no_value(name, value)
    return value.strip()


CALENDAR = ObjectKind(
    name="calendar",
    key="calendar_name",
    width=16,
    attrs=(
        Attr("calendar_name", "template", check_field),
        Attr("year", "NONE", check_field),
        Attr("week", "NONE", check_field),
    ),
)


def calendar_problem(pairs: Iterable[Sequence[str]]) -> str | None:
    """The qmaster's refusal of a whole calendar, in 8.1.9's order and words, or None:
    the name, then ``year``, then ``week``."""
    pairs = list(pairs)
    name = get(pairs, "calendar_name", "")
    problem = name_problem(name)
    if problem:
        return problem
    try:
        parse_year(get(pairs, "year", "NONE"))
    except CalendarSyntaxError as exc:
        return f'error in disabled_year of calendar "{exc.reason}": {name}'  # (sic)
    try:
        parse_week(get(pairs, "week", "NONE"))
    except CalendarSyntaxError as exc:
        return f'error in disabled_week of calendar "{name}": {exc.reason}'
    return None


def calendar_line_problem(text: str) -> str | None:
    """The reader error 8.1.9 words with a line number, for a calendar file: an
    attribute without a value (``week`` alone on line 3 is reported as line 4)."""
    for lineno, line in logical_lines(text):
        if len(line.split()) == 1:
            return (f'" " is the only character allowed between the attribute name and '
                    f"the value in line {lineno + 1}")
    return None
