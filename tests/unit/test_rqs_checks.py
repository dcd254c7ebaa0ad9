"""A rule set's limits checked against the complex list (common.quota.rqs_checks), case
by case as 8.1.9 checked the same files (tests/data/reference/rqs/: ``-add.err`` for a
refusal, ``to-values-show*.out`` for what it kept)."""
from __future__ import annotations

from pathlib import Path

import pytest

from common.quota.rqs_checks import checked_rule_set, dynamic_limit, dynamic_terms
from common.quota.rqs_format import RqsFormatError, parse_rule_sets
from common.resource.complexes import default_complexes, parse_complex_line

RQS = Path(__file__).parents[1] / "data" / "reference" / "rqs"
# the oracle's cell had compiler_lic added (INT <= YES YES 0 0)
ATTRS = default_complexes() + [parse_complex_line("compiler_lic cl INT <= YES YES 0 0")]


def kept_limits() -> dict[str, str]:
    """set name -> the limit line 8.1.9 printed for it."""
    out: dict[str, str] = {}
    for show in ("to-values-show.out", "to-values-show2.out"):
        name = ""
        for line in (RQS / show).read_text().splitlines():
            if line.startswith("   name"):
                name = line.split()[1]
            elif line.startswith("   limit"):
                out[name] = line.split(None, 1)[1]
    return out


# 8.1.9 accepts a malformed expression ($num_proc**2): we refuse it (docs/compatibility.md);
# an empty file crashes 8.1.9's qconf (rc 134), qconf refuses it here (no rule set)
NOT_COMPARED = {"dyn-malformed", "err-empty-file", "err-blank-file"}


def cases() -> list[str]:
    names = [p.name[:-len(".input")] for p in RQS.glob("*.input")]
    return sorted(n for n in names if n.startswith(("to-value-", "dyn-", "err-", "unknown-"))
                  and n not in NOT_COMPARED)


def checked(case: str) -> str:
    sets = [checked_rule_set(rs, ATTRS) for rs in parse_rule_sets(
        (RQS / f"{case}.input").read_text())]
    return sets[0].rules[0].text()


@pytest.mark.parametrize("case", cases())
def test_limits_are_checked_and_kept_as_8_1_9_did(case: str) -> None:
    refused = RQS / f"{case}-add.err"
    message = refused.read_text().strip() if refused.exists() else ""
    if message:
        with pytest.raises(RqsFormatError) as caught:
            checked(case)
        if case in ("to-value-15", "to-value-16"):  # 8.1.9 names a line of its parser
            return
        assert str(caught.value) == message
        return
    name = parse_rule_sets((RQS / f"{case}.input").read_text())[0].name
    expected = kept_limits().get(name)
    text = checked(case)
    if expected is not None:
        assert text == expected


def test_dynamic_limits_evaluate_per_host_with_a_large_value_for_a_missing_one() -> None:
    terms = dynamic_terms("$num_proc*2+1", ATTRS)
    assert dynamic_limit(terms, {"num_proc": 4.0}) == 9.0
    assert dynamic_limit(dynamic_terms("$mem_total-$mem_used", ATTRS),
                         {"mem_total": 8.0, "mem_used": 3.0}) == 5.0
    assert dynamic_limit(terms, {}) > 1e20  # "to suggest an overloaded condition"


def test_a_dynamic_limit_must_be_a_sum_of_weighted_complexes() -> None:
    """8.1.9 takes ``$num_proc**2`` (dyn-malformed); the formula syntax of both documents
    does not, and neither do we (docs/compatibility.md)."""
    with pytest.raises(RqsFormatError):
        checked("dyn-malformed")
