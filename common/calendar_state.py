"""What state a calendar (calendar_conf(5)) gives a queue at a given time, and until when.

Pure: the caller passes a naive local datetime (Grid Engine evaluates calendars in the
qmaster's local time) and gets the state, ``"on"``, ``"off"`` or ``"suspended"``, and the
first later time at which the state differs, or None when it never changes again (the
qmaster looks at every calendar each second, qmaster.auto_suspend; the time of the next
change is for displays and tests). The reading of the fields is
``common.objects_conf.calendar``'s.

The rules, and where they come from:

1. Entries (calendar_conf(5)): a ``year`` entry covers the days of its day ranges (every
   day when it has none: ``year off``), a ``week`` entry the weekdays of its ranges
   (every day when it has none); both cover the whole day unless they give daytime
   ranges; the state is ``off`` when none is given. Weekday ranges may run over the
   week's end (``fri-mon``: Friday to Monday); a daytime range whose end comes before its
   begin (``18-8``) covers the same day's start up to the end and the begin up to the
   day's end (the manual's example ``12-11``), not the next morning.
2. The end of a daytime range counts to the second: ``tue=4:43-4:44=suspended`` holds
   from 04:43:00 through 04:44:00 and ends at 04:44:01. calendar_conf(5) says the end is
   excluded (``12-11`` as ``00:00:00 - 10:59:59``), but Grid Engine 8.1.9 compares the
   end inclusively, and a capture sampling a queue every 0.1 s shows it
   (tests/data/reference/calendar/window-timeline.txt: ``05:32-05:33=off`` shows ``D``
   from 05:32:00.1 to 05:33:00.9, not at 05:33:01.0). ``24`` is the day's end.
3. Precedence (calendar_conf(5), SEMANTICS): among the entries that apply at a moment,
   ``on`` overrides ``suspended``, which overrides ``off``. When no entry applies, the
   queue is on.
4. Year over week: a ``year`` entry that applies at the moment decides, and the ``week``
   entries are not looked at. calendar_conf(5) says more: that on a day some year entry
   names only the year entries count. 8.1.9 does not do that, and here it is done as
   8.1.9 does: with ``year 24.11.2026=22-23=off`` and ``week mon-sun=suspended`` the
   queue is suspended at 05:33 on that day (captured:
   tests/data/reference/calendar/state-year-over-week-2.*).
5. Dates that do not exist (``30.2.2026``, accepted by 8.1.9) never come; a range
   ``28.2.2026-30.2.2026`` covers the 28th only.
"""
from __future__ import annotations

from datetime import date, datetime, timedelta
from functools import lru_cache

from common.objects_conf.calendar import (DAY_SECONDS, WeekEntry, YearEntry, parse_week,
                                          parse_year)

STRENGTH = {"off": 0, "suspended": 1, "on": 2}
# Days that the same dated year entries name (none, mostly) differ only by their
# weekday: after 7 of them in a row without a change, none of their kind brings one.
_SAME_DAYS = 7


@lru_cache(maxsize=256)
def _parsed(year: str, week: str) -> tuple[tuple[YearEntry, ...], tuple[WeekEntry, ...]]:
    return tuple(parse_year(year)), tuple(parse_week(week))


def calendar_state(year: str, week: str, when: datetime) -> tuple[str, datetime | None]:
    """The state the calendar with fields ``year`` and ``week`` gives at ``when`` (to
    the second), and the first later time at which it is different (None: never).
    ``CalendarSyntaxError`` for a field 8.1.9 would refuse."""
    years, weeks = _parsed(year, week)
    now = when.replace(microsecond=0, tzinfo=None)
    day, after = now.date(), _seconds(now)
    current = state_at(years, weeks, day, after)
    run_names, run = None, 0  # days examined whole in a row that dated entries name alike
    while True:
        for point in _change_points(years, weeks, day):
            if point > after and state_at(years, weeks, day, point) != current:
                return current, datetime.combine(day, datetime.min.time()) + \
                    timedelta(seconds=point)
        if after < 0:
            names = _dated_names(years, day)
            run_names, run = names, (run + 1 if names == run_names else 1)
        day, after = day + timedelta(days=1), -1
        if run >= _SAME_DAYS and _dated_names(years, day) == run_names:
            # a whole week like this one changed nothing: skip to where the dated
            # entries that name a day may differ
            following = _next_dated_change(years, day)
            if following is None:
                return current, None
            day, run_names, run = following, None, 0


def state_at(years: tuple[YearEntry, ...], weeks: tuple[WeekEntry, ...], day: date,
             second: int) -> str:
    """The state at ``second`` (0 .. 86399) of ``day``: rules 3 and 4."""
    active = [e.state for e in years if _covers_date(e, day) and _covers_time(e.times, second)]
    if not active:
        weekday = (day.weekday() + 1) % 7  # Python's Monday 0 -> C's Sunday 0
        active = [e.state for e in weeks
                  if weekday in e.days and _covers_time(e.times, second)]
    return max(active, key=STRENGTH.__getitem__, default="on")


def _seconds(moment: datetime) -> int:
    return moment.hour * 3600 + moment.minute * 60 + moment.second


def _covers_time(ranges: tuple[tuple[int, int], ...], second: int) -> bool:
    return any(begin <= second <= end for begin, end in ranges)  # the end second counts


def _covers_date(entry: YearEntry, day: date) -> bool:
    if entry.dates is None:
        return True
    key = (day.year, day.month, day.day)
    return any(begin <= key <= end for begin, end in entry.dates)


def _dated_names(years: tuple[YearEntry, ...], day: date) -> frozenset[int]:
    """Which year entries with dates name ``day``: days alike in this and in their
    weekday have the same states at the same times."""
    return frozenset(i for i, e in enumerate(years)
                     if e.dates is not None and _covers_date(e, day))


def _change_points(years: tuple[YearEntry, ...], weeks: tuple[WeekEntry, ...],
                   day: date) -> list[int]:
    """The seconds of ``day`` at which the state may change: its start, every range's
    begin and the second after every range's end."""
    points = {0}
    for entry in (*years, *weeks):
        for begin, end in entry.times:
            points.add(begin)
            points.add(end + 1)
    return sorted(p for p in points if p < DAY_SECONDS)


def _next_dated_change(years: tuple[YearEntry, ...], day: date) -> date | None:
    """The first day from ``day`` on at which the dated year entries naming a day may
    change: a range's first day, or the day after a range's last."""
    key = (day.year, day.month, day.day)
    bounds = []
    for entry in years:
        for begin, end in entry.dates or ():
            if begin > key:
                bounds.append(_first_real_day(begin))
            elif end >= key:
                bounds.append(_first_real_day((end[0], end[1], end[2] + 1)))
    later = [d for d in bounds if d is not None]
    return max(min(later), day) if later else None


def _first_real_day(key: tuple[int, int, int]) -> date | None:
    """The first existing date on or after ``(year, month, day)`` (``30.2`` and ``32.1``
    -> the 1st of the next month)."""
    year, month, day = key
    try:
        return date(year, month, day)
    except ValueError:
        month += 1
        if month > 12:
            year, month = year + 1, 1
        try:
            return date(year, month, 1)
        except ValueError:  # beyond what datetime can hold
            return None
