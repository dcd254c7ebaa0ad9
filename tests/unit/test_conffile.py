"""Tests of the generic configuration file syntax (common.conffile)."""
from __future__ import annotations


import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from common.conffile import (MAX_LINE_LENGTH, ConfError, ConfKind, break_line, logical_lines,
                             parse_conf, render_conf, value_column, wrap_lines)

from tests.reference import REFERENCE

# (file, name column width) of every name/value reference output.
REFERENCE_FILES = [
    ("qconf-sq-all.q.txt", 21), ("qconf-sq.template.txt", 21), ("qconf-se-host.txt", 21),
    ("qconf-sp-smp.txt", 18), ("qconf-sp-mpi.txt", 18), ("qconf-sp-make.txt", 18),
    ("qconf-ssconf.default.txt", 33), ("qconf-shgrp-allhosts.txt", 0),
]


@pytest.mark.parametrize("name,width", REFERENCE_FILES)
def test_reference_renders_back_byte_for_byte(name: str, width: int) -> None:
    text = (REFERENCE / name).read_text()
    assert render_conf(parse_conf(text), width=width) == text


def test_global_configuration_body_renders_back() -> None:
    text = (REFERENCE / "qconf-sconf.global.default.txt").read_text()
    body = text.split("\n", 1)[1].rstrip("\n") + "\n"
    pairs = parse_conf(text, kind=ConfKind("conf", allow_unknown=True, raw_values=True))
    assert render_conf(pairs, width=28) == body


def test_wrapped_values_are_joined() -> None:
    text = (REFERENCE / "qconf-se-host.txt").read_text()
    load = dict(parse_conf(text))["load_values"]
    assert load.startswith("load_avg=0.444824,load_short=0.562012,load_medium=0.444824,")
    assert " " not in load
    conf = dict(parse_conf((REFERENCE / "qconf-sconf.global.default.txt").read_text()))
    assert conf["reporting_params"] == ("accounting=true reporting=false flush_time=00:00:15 "
                                        "joblog=false sharelog=00:00:00")


def test_comments_blank_lines_and_header_are_skipped() -> None:
    text = "#global:\n\n  # a comment\nname   value one\n\t\nother x\n"
    assert parse_conf(text) == [("name", "value one"), ("other", "x")]


def test_blanks_collapse_unless_raw() -> None:
    text = "a   x    y  \n"
    assert parse_conf(text) == [("a", "x y")]
    assert parse_conf(text, kind=ConfKind("c", allow_unknown=True, raw_values=True)) == [("a", "x    y")]


def test_continuation_with_blanks_after_backslash_and_crlf() -> None:
    text = "list a,b, \\  \r\n     c,d \\\r\n  e\r\nnext 1\r\n"
    assert parse_conf(text) == [("list", "a,b,c,d e"), ("next", "1")]


def test_comments_and_blank_lines_inside_a_continuation_are_skipped() -> None:
    assert parse_conf("a x, \\\n# note\n\n  y\nb 1\n") == [("a", "x,y"), ("b", "1")]


def test_continuation_at_end_of_text() -> None:
    assert parse_conf("a x \\\n") == [("a", "x")]


def test_logical_lines_report_first_line_number() -> None:
    assert logical_lines("# c\na 1 \\\n 2\nb 3") == [(2, "a 1 2"), (4, "b 3")]


def test_empty_value_is_kept() -> None:
    assert parse_conf("name\n") == [("name", "")]


QUEUE_LIKE = ConfKind("q", ("qname", "slots", "tmpdir"), frozenset({"qname", "slots"}))


@pytest.mark.parametrize("text,message", [
    ("qname a\nfoo 1\n", 'unknown attribute name "foo"'),
    ("qname a\nslots 1\nslots 2\n", 'attribute "slots" appears more than once'),
    ("qname a\ntmpdir /tmp\n", 'required attribute "slots" is missing'),
    ("qname a\n=1\n", "line 2 should begin with an attribute name"),
    ("qname a\nslots=1\n", "line 2 should begin with an attribute name"),
])
def test_errors_use_grid_engine_wording(text: str, message: str) -> None:
    with pytest.raises(ConfError) as err:
        parse_conf(text, kind=QUEUE_LIKE)
    assert err.value.message == message == str(err.value)


def test_line_of_maximum_length_is_not_broken() -> None:
    line = "name " + "x" * (MAX_LINE_LENGTH - 7) + ",y"
    assert len(line) == MAX_LINE_LENGTH
    assert break_line(line) == [line]
    longer = line + "z"
    assert break_line(longer) == ["name " + "x" * (MAX_LINE_LENGTH - 7) + ", \\", "     yz"]


def test_break_at_last_blank_drops_the_blank() -> None:
    words = " ".join(f"w{i:03d}" for i in range(30))
    lines = break_line("hostlist " + words)
    assert lines[0].endswith("w013 \\") and lines[1].startswith("         w014")
    assert all(len(line) <= MAX_LINE_LENGTH + 2 for line in lines)


def test_unbreakable_value_stays_long() -> None:
    line = "name " + "x" * 100
    assert break_line(line) == [line]


def test_break_after_the_limit_when_nothing_fits() -> None:
    line = "name " + "x" * 90 + ",y"
    assert break_line(line) == ["name " + "x" * 90 + ", \\", "     y"]


def test_value_column() -> None:
    assert value_column("load_values           a=1") == 22
    assert value_column("a=b") == 2
    assert value_column("single") == 6


def test_render_without_wrap() -> None:
    pairs = [("name", ",".join(["abcdefgh"] * 20))]
    assert render_conf(pairs, width=4, wrap=False).count("\n") == 1
    assert render_conf(pairs, width=4).count("\\\n") >= 2


# --- property tests -----------------------------------------------------------------

NAMES = st.builds(lambda head, tail: head + tail, st.sampled_from("abcdefghijklmnopqrstuvwxyz"),
                  st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", max_size=24))
TOKENS = st.text(alphabet="ABCXYZabcxyz0123456789_.=:/@$-", min_size=1, max_size=20)
VALUES = st.lists(TOKENS, min_size=1, max_size=25).flatmap(
    lambda tokens: st.sampled_from([",", " "]).map(lambda sep: sep.join(tokens)))


def _unique(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    seen: dict[str, str] = {}
    for name, value in pairs:
        seen.setdefault(name, value)
    return list(seen.items())


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(NAMES, VALUES), min_size=1, max_size=8), st.sampled_from([0, 18, 21, 28, 33]))
def test_rendered_pairs_parse_back(pairs: list[tuple[str, str]], width: int) -> None:
    pairs = _unique(pairs)
    text = render_conf(pairs, width=width)
    assert parse_conf(text) == pairs
    assert render_conf(parse_conf(text), width=width) == text


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(NAMES, VALUES), min_size=1, max_size=8))
def test_wrapped_lines_fit_when_tokens_are_short(pairs: list[tuple[str, str]]) -> None:
    text = render_conf(_unique(pairs), width=21)
    for line in text.splitlines():
        assert len(line) <= MAX_LINE_LENGTH + 2


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="ab ,=\\#\n\t", max_size=200))
def test_parse_never_fails_unexpectedly(text: str) -> None:
    try:
        pairs = parse_conf(text)
    except ConfError:
        return
    rendered = render_conf(_unique(pairs), width=10)
    assert parse_conf(render_conf(parse_conf(rendered), width=10)) == parse_conf(rendered)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(NAMES, VALUES), min_size=1, max_size=5))
def test_wrapping_is_idempotent_on_parsed_text(pairs: list[tuple[str, str]]) -> None:
    text = render_conf(_unique(pairs), width=21)
    assert wrap_lines(render_conf(parse_conf(text), width=21, wrap=False)) == text
