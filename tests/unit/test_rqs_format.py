"""The resource quota set format (common.quota.rqs_format): every example of
sge_resource_quota(5) and of the 2006 specification parses, prints as 8.1.9 prints it
(tests/data/reference/), and parses back to the same sets."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from common.quota.rqs_format import (FILTERS, Filter, Limit, RqsFormatError, Rule, RuleSet,
                                     with_host_names,
                                     format_rule_sets, parse_rule, parse_rule_sets)

REFERENCE = Path(__file__).parents[1] / "data" / "reference"
RQS = REFERENCE / "rqs"  # 8.1.9: qconf -Arqs NAME.input, then qconf -srqs (NAME-show.out)
# cases where 8.1.9 knows what the pure format cannot: VM is resolved to the host vm
NEEDS_RESOLVER = {"filter-05"}  # test_host_names_are_stored_as_the_resolver_names_them
# deliberate differences (docs/compatibility.md): rule names follow NAME of the formal
# syntax; a blank inside an expanded list is allowed, as the 2006 spec writes them
DIFFERENT = {"rule-name-number", "rule-names", "filter-18"}

MAN_PAGE_EXAMPLES = [
    """{
name max_u_slots
description "All users max use of 100 slots"
enabled true
limit to slots=100
}""",
    """{
name max_virtual_free_on_lx_hosts
description "resource quota for virtual_free restriction"
enabled true
limit users {user1,user2} hosts {@lx_host} to virtual_free=6g
limit users {*} hosts {@lx_host} to virtual_free=4g
}""",
    """{
name max_slots_on_every_host
enabled true
limit hosts {*} to slots=$num_proc*2
}""",
]
SPEC_EXAMPLES = [
    """{
name ruleset1
limit users roland to compiler_lic=3
limit projects * to compiler_lic=2
limit users * to compiler_lic=1
}
{
name ruleset2
limit users * to compiler_lic=20
}""",
    "{\nname r\nlimit users roland, andre to virtual_free=5g\n}",
    "{\nname r\nlimit users {roland, andre} to virtual_free=5g\n}",
    "{\nname r\nlimit users @staff,!roland to slots=10\n}",
    "{\nname r\nlimit hosts {@linux_hosts} to slots=$num_proc*5\n}",
    "{\nname ruleset_1\nenabled true\nlimit users @eng to slots=10\n"
    "limit name arch_rule users @eng to arch=lx24-amd64\n}",
]


def test_the_captured_set_prints_back_byte_for_byte() -> None:
    text = (REFERENCE / "qconf-srqs-sample.txt").read_text()
    assert format_rule_sets(parse_rule_sets(text)) == text


@pytest.mark.parametrize("text", MAN_PAGE_EXAMPLES + SPEC_EXAMPLES)
def test_every_example_of_both_documents_parses_and_round_trips(text: str) -> None:
    sets = parse_rule_sets(text)
    assert sets and all(rs.rules for rs in sets)
    assert parse_rule_sets(format_rule_sets(sets)) == sets


def test_filters_scopes_exclusions_and_expansion() -> None:
    rule = parse_rule("users @staff,!roland projects !* pes {*} hosts {@lx,!h1} to slots=10")
    assert rule.filters["users"] == Filter(("@staff",), ("roland",), False)
    assert rule.filters["projects"] == Filter((), ("*",), False)
    assert rule.filters["pes"] == Filter(("*",), (), True)
    assert rule.filters["hosts"] == Filter(("@lx",), ("h1",), True)
    assert rule.limits == (Limit("slots", "10"),)


def test_filters_in_any_order_print_in_grid_engines_order() -> None:
    rule = parse_rule("hosts h1 to slots=1,h_vmem=2G users u1 name first")
    assert rule.text() == "name first users u1 hosts h1 to slots=1,h_vmem=2G"


def test_a_backslash_joins_lines() -> None:
    [rs] = parse_rule_sets("{\nname a\nlimit users u1 \\\n   hosts h1 to slots=1\n}\n")
    assert rs.rules[0].text() == "users u1 hosts h1 to slots=1"


def test_defaults_of_a_set() -> None:
    [rs] = parse_rule_sets("{\nname a\nlimit to slots=1\n}")
    assert (rs.enabled, rs.description) == (False, "NONE")


@pytest.mark.parametrize("text", [
    "{\nlimit to slots=1\n}",                      # no name
    "{\nname 1abc\nlimit to slots=1\n}",           # a name that is no NAME
    "{\nname a\n}",                                # no rule
    "{\nname a\nlimit users u1\n}",                # no "to"
    "{\nname a\nlimit users u1 to slots\n}",       # no value
    "{\nname a\nfoo bar\nlimit to slots=1\n}",     # unknown attribute
    "{\nname a\nenabled maybe\nlimit to slots=1\n}",
    "{\nname a\nlimit name x to slots=1\nlimit name x to slots=2\n}",  # rule name twice
    "{\nname a\nlimit to slots=1\n",               # no closing brace
    "name a\n",                                    # no opening brace
    "{\nname a\nlimit users {u1 to slots=1\n}",    # unclosed expansion
    "{\nname a\nlimit name 3 to slots=1\n}",        # a rule name that is no NAME
])
def test_malformed_sets_are_refused(text: str) -> None:
    with pytest.raises(RqsFormatError):
        parse_rule_sets(text)


@given(st.lists(st.sampled_from(list("{}\n\\ !,=*$@aznrtu1") + [
    "name ", "limit ", "users ", "to ", "enabled ", "description "]), max_size=40)
    .map("".join))
def test_the_parser_fails_only_with_its_own_error(text: str) -> None:
    try:
        parse_rule_sets(text)
    except RqsFormatError:
        pass


# [a-z][a-z0-9_]{0,6}, built from its parts: from_regex drew it slowly enough that on a
# busy machine this module's round trip failed hypothesis's too_slow health check
_LOWER = "abcdefghijklmnopqrstuvwxyz"
NAMES = st.tuples(st.sampled_from(_LOWER),
                  st.text(alphabet=_LOWER + "0123456789_", max_size=6)).map("".join)
SCOPE = st.lists(st.one_of(NAMES, st.just("*"), NAMES.map(lambda n: "@" + n)), min_size=1,
                 max_size=3, unique=True)


# the parts of a rule set, built once (a strategy made anew inside each draw is checked
# anew by hypothesis: most of this module's time)
_RULES = st.integers(1, 3)
_FILTER_KEYS = st.lists(st.sampled_from(FILTERS), unique=True, max_size=3)
_EXCLUDED = st.lists(NAMES, max_size=2, unique=True)
_LIMITS = st.dictionaries(NAMES, st.sampled_from(["1", "2G", "$num_proc*2", "TRUE", "0.5"]),
                          min_size=1, max_size=3)
_RULE_NAME = st.none() | NAMES
_DESCRIPTION = st.sampled_from(["NONE", "a b c", "x"])


@st.composite
def rule_sets(draw: st.DrawFn) -> RuleSet:
    rules = []
    for index in range(draw(_RULES)):
        filters = {}
        for key in draw(_FILTER_KEYS):
            filters[key] = Filter(tuple(draw(SCOPE)), tuple(draw(_EXCLUDED)),
                                  draw(st.booleans()))
        limits = tuple(Limit(n, v) for n, v in draw(_LIMITS).items())
        name = draw(_RULE_NAME)
        rules.append(Rule(name=None if name is None else f"{name}{index}", filters=filters,
                          limits=limits))
    return RuleSet(name=draw(NAMES), enabled=draw(st.booleans()),
                   description=draw(_DESCRIPTION), rules=tuple(rules))


@given(st.lists(rule_sets(), min_size=1, max_size=3))
def test_printing_then_parsing_gives_the_same_sets(sets: list[RuleSet]) -> None:
    assert parse_rule_sets(format_rule_sets(sets)) == sets


def captured_cases() -> list[str]:
    return sorted(p.name[:-len("-show.cmd")] for p in RQS.glob("*-show.cmd")
                  if (RQS / (p.name[:-len("-show.cmd")] + ".input")).exists())


@pytest.mark.parametrize("case", [c for c in captured_cases()
                                  if c not in NEEDS_RESOLVER | DIFFERENT])
def test_sets_print_as_8_1_9_printed_them(case: str) -> None:
    text = (RQS / f"{case}.input").read_text()
    if (RQS / f"{case}-show.rc").read_text().strip() != "0":  # 8.1.9 refused the file
        message = (RQS / f"{case}-add.err").read_text().strip()
        with pytest.raises(RqsFormatError) as refused:
            parse_rule_sets(text)
        assert str(refused.value) == message
        return
    shown = (RQS / f"{case}-show.out").read_text()
    printed = format_rule_sets(parse_rule_sets(text))
    assert printed.startswith(shown), (printed, shown)  # the file may hold more sets
    assert parse_rule_sets(printed) == parse_rule_sets(text)


@pytest.mark.parametrize("case", ["filter-02", "filter-04", "filter-06", "filter-08",
                                  "filter-09", "filter-11", "filter-12", "wrap", "layout",
                                  "long-name", "long-description", "man1", "man2", "man3",
                                  "spec-ruleset12"])
def test_the_comparison_covers_the_printer_rules(case: str) -> None:
    """The cases above exercise each printer rule (ordering, dropping, wrapping); keep
    them in the capture set."""
    assert case in captured_cases()


def test_the_arqs_template_is_8_1_9s() -> None:
    """What qconf -arqs [name] gives the editor (captured editor-received files)."""
    from dataclasses import replace

    from clients.qconf.rqs import TEMPLATE
    assert format_rule_sets([TEMPLATE]) == (RQS / "arqs-template.editor-received").read_text()
    assert format_rule_sets([replace(TEMPLATE, name="rule_set_1")]) == \
        (RQS / "arqs-name.editor-received").read_text()


def test_host_names_are_stored_as_the_resolver_names_them() -> None:
    """filter-05: 8.1.9 on host ``vm`` stored ``hosts VM,localhost,Vm.example.com`` as
    ``vm,localhost,Vm.example.com`` (the last does not resolve); groups and patterns
    stay, excluded names are resolved too."""
    names = {"VM": "vm", "localhost": "localhost", "other": "other.example.org"}
    sets = parse_rule_sets((RQS / "filter-05.input").read_text())
    shown = format_rule_sets([with_host_names(rs, names.get) for rs in sets])
    assert shown.startswith((RQS / "filter-05-show.out").read_text())
    rule_set = parse_rule_sets("{\nname x\nlimit hosts {@allhosts,v*,!other} to slots=1\n}")[0]
    assert with_host_names(rule_set, names.get).rules[0].filters["hosts"].text() == \
        "{@allhosts,v*,!other.example.org}"
