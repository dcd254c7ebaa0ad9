"""Calendars (calendar_conf(5)): the object's format and checks against Grid Engine
8.1.9's captures (tests/data/reference/load/ section 7, tests/data/reference/calendar/),
and the pure evaluator ``common.calendar_state``."""
from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from common.calendar_state import calendar_state, state_at
from common.objects_conf import parse_object, render_object, template
from common.objects_conf.calendar import (CalendarSyntaxError, calendar_line_problem,
                                          calendar_problem, parse_week, parse_year)

REF = Path(__file__).parents[1] / "data" / "reference"
LOAD, CAL = REF / "load", REF / "calendar"
T = datetime  # Tuesday 24 November 2026 is the day of the captures


def refusal(where: Path, case: str) -> str | None:
    pairs = parse_object("calendar", (where / f"{case}.input").read_text())
    return calendar_problem(pairs)


# ---- format --------------------------------------------------------------------------
def test_template_and_layout_as_8_1_9() -> None:
    assert render_object("calendar", template("calendar", "cal1")) == \
        (LOAD / "cal-acal-keep-template.editor-received").read_text()


@pytest.mark.parametrize("case", sorted(p.name[:-len("-show.out")]
                                        for p in LOAD.glob("Acal-*-show.out")))
def test_entries_are_kept_as_written(case: str) -> None:
    pairs = parse_object("calendar", (LOAD / f"{case}.input").read_text())
    assert calendar_problem(pairs) is None
    assert render_object("calendar", pairs) == (LOAD / f"{case}-show.out").read_text()


def test_blanks_collapse_as_8_1_9_reader_makes_them() -> None:
    pairs = parse_object("calendar", (CAL / "week-multi-space.input").read_text())
    assert render_object("calendar", pairs).splitlines()[1:] == \
        (CAL / "week-multi-space.shown").read_text().splitlines()[1:]


def test_an_attribute_without_value_is_a_reader_error() -> None:
    text = (LOAD / "Acal-emptyweek.input").read_text()
    assert calendar_line_problem(text) == \
        (LOAD / "Acal-emptyweek.err").read_text().splitlines()[0][len("error: "):]


# ---- checks ---------------------------------------------------------------------------
@pytest.mark.parametrize("case", sorted(p.stem for p in LOAD.glob("Acal-*.input")
                                        if p.stem not in ("Acal-emptyweek",)))
def test_checks_of_load_captures(case: str) -> None:
    expected = (LOAD / f"{case}.err").read_text().strip()
    problem = refusal(LOAD, case)
    if "added" in expected or "already exists" in expected:
        assert problem is None
    else:
        assert problem == expected


@pytest.mark.parametrize("case", sorted(p.stem for p in CAL.glob("*.input")
                                        if not p.stem.startswith(("state-", "window-",
                                                                  "ca", "cb", "Mcal-"))))
def test_checks_of_the_scanner_captures(case: str) -> None:
    expected = (CAL / f"{case}.err").read_text().strip()
    problem = refusal(CAL, case)
    assert problem == (None if "added" in expected else expected)


def test_mcal_bad_as_8_1_9() -> None:
    assert refusal(LOAD, "Mcal-bad") == (LOAD / "Mcal-bad.err").read_text().strip()


def test_the_parse() -> None:
    week = parse_week("mon-fri=0-8,18-24=off sat-sun=on")
    assert [sorted(e.days) for e in week] == [[1, 2, 3, 4, 5], [0, 6]]
    assert week[0].times == ((0, 8 * 3600), (18 * 3600, 86400)) and week[1].state == "on"
    assert sorted(parse_week("fri-mon")[0].days) == [0, 1, 5, 6]
    assert parse_week("mon=18-8=off")[0].times == ((18 * 3600, 86400), (0, 8 * 3600))
    assert parse_week("8-18")[0].state == "off"
    assert parse_year("NONE") == [] and parse_week("none") == []
    entry = parse_year("1.1.2026-6.1.2026,24.dec.2026=8:30:15-9=sus")[0]
    assert entry.dates == (((2026, 1, 1), (2026, 1, 6)), ((2026, 12, 24), (2026, 12, 24)))
    assert entry.times == ((8 * 3600 + 30 * 60 + 15, 9 * 3600),) and entry.state == \
        "suspended"
    assert parse_year("on")[0].dates is None
    with pytest.raises(CalendarSyntaxError):
        parse_week("mon=8-18=sleep")


# ---- the evaluator ------------------------------------------------------------------
@pytest.mark.parametrize("year, week, when, state, change", [
    # the captured window: from 04:43:00 through 04:44:00 (8.1.9 counts the end second)
    ("NONE", "tue=4:43-4:44=suspended", T(2026, 11, 24, 4, 42, 59), "on",
     T(2026, 11, 24, 4, 43)),
    ("NONE", "tue=4:43-4:44=suspended", T(2026, 11, 24, 4, 43), "suspended",
     T(2026, 11, 24, 4, 44, 1)),
    ("NONE", "tue=4:43-4:44=suspended", T(2026, 11, 24, 4, 44, 0, 900000), "suspended",
     T(2026, 11, 24, 4, 44, 1)),
    ("NONE", "tue=4:43-4:44=suspended", T(2026, 11, 24, 4, 44, 1), "on",
     T(2026, 12, 1, 4, 43)),
    ("NONE", "NONE", T(2026, 11, 24, 12), "on", None),
    ("NONE", "mon-sun=off", T(2026, 11, 24, 12), "off", None),
    ("NONE", "mon-sun=suspended", T(2026, 11, 24, 12), "suspended", None),
    ("24.11.2026=off", "NONE", T(2026, 11, 24, 12), "off", T(2026, 11, 25)),
    ("NONE", "sat-sun=off", T(2026, 11, 24, 12), "on", T(2026, 11, 28)),
    ("NONE", "sat-sun=off", T(2026, 11, 29, 23, 59, 59), "off", T(2026, 11, 30)),
    # fri-mon runs over the week's end: Friday 0:00 to Tuesday 0:00
    ("NONE", "fri-mon=off", T(2026, 11, 24, 12), "on", T(2026, 11, 27)),
    ("NONE", "fri-mon=off", T(2026, 11, 28, 12), "off", T(2026, 12, 1)),
    # 18-8 on Monday: Monday 0:00-8:00 and 18:00-24:00, not Tuesday morning
    ("NONE", "mon=18-8=off", T(2026, 11, 23, 7, 59), "off", T(2026, 11, 23, 8, 0, 1)),
    ("NONE", "mon=18-8=off", T(2026, 11, 23, 12), "on", T(2026, 11, 23, 18)),
    ("NONE", "mon=18-8=off", T(2026, 11, 24, 3), "on", T(2026, 11, 30)),
    # on over suspended over off (calendar_conf(5), SEMANTICS)
    ("NONE", "12-18 tue=13-17=on", T(2026, 11, 24, 14), "on", T(2026, 11, 24, 17, 0, 1)),
    ("NONE", "12-18 tue=13-17=on", T(2026, 11, 23, 14), "off", T(2026, 11, 23, 18, 0, 1)),
    ("NONE", "off tue=suspended", T(2026, 11, 24, 14), "suspended", T(2026, 11, 25)),
    ("24.11.2026=off 24.11.2026=on", "NONE", T(2026, 11, 24, 5), "on", None),
    # an applying year entry decides; one that does not apply now leaves the week
    ("24.12.2026=on", "mon-sun=off", T(2026, 12, 24, 5), "on", T(2026, 12, 25)),
    ("24.11.2026=5-6=on", "mon-sun=suspended", T(2026, 11, 24, 5, 34), "on",
     T(2026, 11, 24, 6, 0, 1)),
    ("24.11.2026=22-23=off", "mon-sun=suspended", T(2026, 11, 24, 5, 33), "suspended",
     T(2026, 11, 24, 22)),
    ("24.11.2026=0-23=off 24.11.2026=23-24=suspended", "NONE", T(2026, 11, 24, 5), "off",
     T(2026, 11, 24, 23)),
    # a date that never comes, and the last year 8.1.9 knows
    ("30.2.2026=off", "NONE", T(2026, 2, 28, 12), "on", None),
    ("31.12.2037=off", "NONE", T(2037, 12, 31, 12), "off", T(2038, 1, 1)),
    ("1.1.1970-31.12.2037=on", "mon-sun=off", T(1990, 6, 1), "on", T(2038, 1, 1)),
    ("off", "NONE", T(2026, 11, 24, 12), "off", None),
])
def test_states_at_fixed_times(year: str, week: str, when: datetime, state: str,
                               change: datetime | None) -> None:
    assert calendar_state(year, week, when) == (state, change)


def test_captured_states() -> None:
    """tests/data/reference/calendar/state-*: what 8.1.9 showed at 05:33-05:34 of
    Tuesday 24 November 2026 (D off, C suspended, no letter on)."""
    letters = {"off": "D", "suspended": "C", "on": ""}
    for out in sorted(CAL.glob("state-*.out")):
        lines = (CAL / f"{out.stem}.input").read_text().splitlines()
        year, week = (line.split(None, 1)[1] for line in lines[1:3])
        shown = out.read_text().splitlines()[-1].split()
        letter = shown[5] if len(shown) > 5 else ""
        assert letters[calendar_state(year, week, T(2026, 11, 24, 5, 33, 30))[0]] == letter, \
            out.stem


_WEEKDAY = st.sampled_from(["mon", "tue", "wed", "thu", "fri", "sat", "sun"])
_HOUR = st.integers(0, 24)
_STATE = st.sampled_from(["on", "off", "suspended", ""])


@st.composite
def week_entries(draw: st.DrawFn) -> str:
    days = ""
    if draw(st.booleans()):
        first, last = draw(_WEEKDAY), draw(_WEEKDAY)
        days = first if first == last or draw(st.booleans()) else f"{first}-{last}"
    times = ""
    begin, end = draw(_HOUR), draw(_HOUR)
    if begin != end and draw(st.booleans()):
        times = f"{begin}:{draw(st.integers(0, 59)) if begin < 24 else 0}-{end}"
    state = draw(_STATE)
    parts = [p for p in (days, times, state) if p]
    return "=".join(parts) or "off"


@st.composite
def year_entries(draw: st.DrawFn) -> str:
    day = draw(st.dates(min_value=datetime(2026, 1, 1).date(),
                        max_value=datetime(2026, 3, 31).date()))
    text = f"{day.day}.{day.month}.{day.year}"
    if draw(st.booleans()):
        last = day + timedelta(days=draw(st.integers(0, 20)))
        text += f"-{last.day}.{last.month}.{last.year}"
    begin, end = draw(_HOUR), draw(_HOUR)
    if begin != end and draw(st.booleans()):
        text += f"={begin}-{end}"
    state = draw(_STATE)
    return text + (f"={state}" if state else "")


calendars = st.tuples(
    st.lists(year_entries(), max_size=3).map(lambda e: " ".join(e) or "NONE"),
    st.lists(week_entries(), max_size=3).map(lambda e: " ".join(e) or "NONE"))
moments = st.datetimes(min_value=datetime(2025, 12, 1), max_value=datetime(2026, 4, 30))


@settings(max_examples=150, deadline=None)
@given(calendars, moments, st.lists(st.floats(0, 1), min_size=1, max_size=6))
def test_the_state_holds_until_the_change(cal: tuple[str, str], when: datetime,
                                          fractions: list[float]) -> None:
    year, week = cal
    state, change = calendar_state(year, week, when)
    assert state in ("on", "off", "suspended")
    end = change or when + timedelta(days=30)
    assert change is None or change > when
    for fraction in fractions:
        moment = when + (end - when) * fraction
        if moment < end:
            assert calendar_state(year, week, moment)[0] == state
    if change is not None:
        assert calendar_state(year, week, change)[0] != state
        assert calendar_state(year, week, change - timedelta(seconds=1))[0] == state


@settings(max_examples=30, deadline=None)
@given(calendars, moments)
def test_a_change_is_the_first_one(cal: tuple[str, str], when: datetime) -> None:
    """Walking minute by minute from ``when`` finds no earlier change than the one
    returned (up to a day). The walk asks ``state_at`` (the state at one moment, which
    ``calendar_state`` answers first): each ``calendar_state`` would also look ahead for
    its next change, up to a year, which made this test about 15 s."""
    year, week = cal
    state, change = calendar_state(year, week, when)
    years, weeks = tuple(parse_year(year)), tuple(parse_week(week))
    limit = min(change or when + timedelta(days=1), when + timedelta(days=1))
    moment = when.replace(second=0, microsecond=0) + timedelta(minutes=1)
    while moment < limit:
        seconds = moment.hour * 3600 + moment.minute * 60 + moment.second
        assert state_at(years, weeks, moment.date(), seconds) == state, moment
        moment += timedelta(minutes=1)


@settings(max_examples=100, deadline=None)
@given(st.lists(week_entries(), min_size=1, max_size=3).map(" ".join), moments)
def test_week_calendars_repeat_every_week(week: str, when: datetime) -> None:
    assert calendar_state("NONE", week, when)[0] == \
        calendar_state("NONE", week, when + timedelta(days=7))[0]
