"""A rule set's limits checked against the cell's complex list, as 8.1.9 checks them when
a set is added or modified (pure; tests/data/reference/rqs/README.md, section 2).

Each ``to`` limit must name a complex attribute (full name, or its shortcut, which is
replaced by the full name); a static value must be of the attribute's type (a TIME value
is kept in seconds, every other value as written; a consumable may be neither negative
nor infinite). A dynamic limit, ``{w|$complex[*w]}[{+|-}...]``, is allowed only in a
rule whose host filter is an expanded list, and may name numeric complexes only.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import replace

from common.quota.rqs_format import Limit, RqsFormatError, Rule, RuleSet
from common.resource.complexes import ComplexAttr, ComplexError, make_request, resolve_name
from common.resource.values import STRING_TYPES

NUMBER = r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+"
TERM = re.compile(rf"\$([A-Za-z_][A-Za-z0-9_.]*)(?:\*({NUMBER}))?|({NUMBER})")
WEIGHT_FIRST = re.compile(r"\*\$([A-Za-z_][A-Za-z0-9_.]*)")
LARGE = 1e30  # a missing load value in a dynamic limit: "a large value ... overloaded"


def checked_rule_set(rule_set: RuleSet, attrs: Iterable[ComplexAttr]) -> RuleSet:
    """``rule_set`` with every limit checked and normalised; raises RqsFormatError with
    Grid Engine's message for the first bad one."""
    attrs = list(attrs)
    return replace(rule_set, rules=tuple(_checked_rule(rule, attrs)
                                         for rule in rule_set.rules))


def _checked_rule(rule: Rule, attrs: list[ComplexAttr]) -> Rule:
    limits = []
    for limit in rule.limits:
        attr = resolve_name(attrs, limit.name)
        if attr is None:
            raise RqsFormatError('"resource_quota" references not existing complex '
                                 f'attribute "{limit.name}"')
        if limit.dynamic:
            hosts = rule.filters.get("hosts")
            if hosts is None or not hosts.expand:
                raise RqsFormatError("dynamic limits are only supported for per host rules")
            dynamic_terms(limit.value, attrs)
            limits.append(Limit(attr.name, limit.value))
            continue
        try:
            request = make_request(attr, limit.value, allow_non_requestable=True)
        except ComplexError as err:
            raise RqsFormatError(str(err)) from None
        limits.append(Limit(attr.name, request.text))
    return replace(rule, limits=tuple(limits))


def dynamic_terms(expression: str, attrs: Iterable[ComplexAttr]
                  ) -> list[tuple[float, str | None]]:
    """The terms of a dynamic limit as (signed weight, complex or None for a constant);
    raises RqsFormatError in 8.1.9's words."""
    attrs = list(attrs)
    terms: list[tuple[float, str | None]] = []
    pos, sign = 0, 1.0
    text = expression.replace(" ", "")
    while True:
        match = TERM.match(text, pos)
        if match is None:
            raise RqsFormatError(f'"{expression}" is not a valid dynamical limit')
        name, weight, constant = match.groups()
        weighted = WEIGHT_FIRST.match(text, match.end()) if constant is not None else None
        if weighted is not None:
            raise RqsFormatError(f'"dynamical_limit" uses "${weighted.group(1)}" as '
                                 "weighting factor (only numbers are allowed)")
        if name is not None:
            attr = resolve_name(attrs, name)
            if attr is None:
                raise RqsFormatError('"dynamical_limit" references not existing complex '
                                     f'attribute "{name}"')
            if attr.type in STRING_TYPES:
                raise RqsFormatError("String, CString, ReString or Host attributes are not "
                                     f'allowed in "dynamical_limit": "{attr.name}"')
            terms.append((sign * float(weight or 1), attr.name))
        else:
            terms.append((sign * float(constant), None))
        pos = match.end()
        if pos == len(text):
            return terms
        if text[pos] not in "+-":
            raise RqsFormatError(f'"{expression}" is not a valid dynamical limit')
        sign = 1.0 if text[pos] == "+" else -1.0
        pos += 1


def dynamic_limit(terms: Iterable[tuple[float, str | None]],
                  values: Mapping[str, float]) -> float:
    """The value of a dynamic limit on one host: a complex without a value there counts
    as a large value (sge_resource_quota(5): "to suggest an overloaded condition")."""
    return sum(weight * (1.0 if name is None else values.get(name, LARGE))
               for weight, name in terms)
