"""What ``qquota`` reports (pure): one row per rule, consumer tuple and limited complex
in use, ``set/rule  complex=used/limit  filter``, selected as 8.1.9 selects them
(tests/data/reference/rqs/README.md, section 5): a row counting all users together
(``users *``) is shown to every user its filter admits, a row of one user (``users {*}``)
only when that user is selected; likewise for hosts, queues, PEs and projects.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from common.quota.evaluate import Names, QuotaUsage, filter_matches, rule_label
from common.quota.rqs_format import FILTERS, Rule, RuleSet

# (complex, limit text, host) -> the limit as shown (a dynamic one worked out for the host)
LimitText = Callable[[str, str, str], str]


@dataclass(frozen=True)
class QuotaRow:
    rule: str                           # set/rule
    resource: str
    used: float
    limit: str
    filters: tuple[tuple[str, str], ...]  # (kind, shown value) in Grid Engine's order


@dataclass(frozen=True)
class Selection:
    """qquota's options: None selects everything of that kind."""

    users: frozenset[str] | None = None
    hosts: frozenset[str] | None = None
    queues: frozenset[str] | None = None
    pes: frozenset[str] | None = None
    projects: frozenset[str] | None = None
    resources: frozenset[str] | None = None


def quota_rows(rule_sets: Sequence[RuleSet], usage: QuotaUsage, names: Names,
               limit_text: LimitText, selection: Selection) -> list[QuotaRow]:
    order = {rs.name: n for n, rs in enumerate(rule_sets)}  # the list order, as 8.1.9
    by_name = {rs.name: rs for rs in rule_sets}
    rows = []
    for (set_name, index, consumers), amounts in sorted(
            usage.used.items(), key=lambda item: (order.get(item[0][0], len(order)),
                                                  item[0][1], item[0][2])):
        rule_set = by_name.get(set_name)
        if rule_set is None:
            continue
        rule = rule_set.rules[index]
        if not _selected(rule, consumers, names, selection):
            continue
        label = rule_label(rule_set, index)
        shown = tuple(
            (kind, consumers[pos] if rule.filters[kind].expand else rule.filters[kind].text())
            for pos, kind in enumerate(FILTERS) if kind in rule.filters)
        host = consumers[FILTERS.index("hosts")]
        for limit in rule.limits:
            used = amounts.get(limit.name, 0.0)
            if used <= 0 or (selection.resources is not None
                             and limit.name not in selection.resources):
                continue
            rows.append(QuotaRow(label, limit.name, used,
                                 limit_text(limit.name, limit.value, host), shown))
    return rows


def _selected(rule: Rule, consumers: tuple[str, ...], names: Names,
              selection: Selection) -> bool:
    wanted = (selection.users, selection.projects, selection.pes, selection.queues,
              selection.hosts)
    for pos, kind in enumerate(FILTERS):
        chosen = wanted[pos]
        if chosen is None:
            continue
        value = consumers[pos]
        flt = rule.filters.get(kind)
        if value:  # one consumer's own row
            if value not in chosen:
                return False
        elif flt is not None and not any(filter_matches(flt, c, kind, names)
                                         for c in chosen):
            return False
    return True


def format_used(value: float) -> str:
    return f"{value:g}" if value < 1e6 or value != int(value) else str(int(value))


def render_rows(rows: Iterable[QuotaRow]) -> str:
    """The table of 8.1.9's qquota."""
    lines = [_line("resource quota rule", "limit", "filter"), "-" * 80]
    for row in rows:
        limit = f"{row.resource}={format_used(row.used)}/{row.limit}"
        filters = " ".join(f"{kind} {value}" for kind, value in row.filters)
        lines.append(_line(row.rule, limit, filters).rstrip())
    return "\n".join(lines) + "\n"


def _line(rule: str, limit: str, filters: str) -> str:
    return f"{rule:<18} {limit:<20} {filters}"  # 8.1.9's "%-18s %-20s %s"


def render_rows_xml(rows: Iterable[QuotaRow]) -> str:
    """qquota -xml, as 8.1.9 writes it (one qquota_rule per row)."""
    out = ["<?xml version='1.0'?>",
           '<qquota_result xmlns="http://arc.liv.ac.uk/repos/darcs/sge/source/source/'
           'dist/util/resources/schemas/qquota/qquota.xsd">']
    for row in rows:
        out.append(f" <qquota_rule name='{row.rule}'>")
        out += [f"   <{kind}>{value}</{kind}>" for kind, value in row.filters]
        out.append(f"   <limit resource='{row.resource}' limit='{row.limit}' "
                   f"value='{format_used(row.used)}'/>")
        out.append(" </qquota_rule>")
    out.append("</qquota_result>")
    return "\n".join(out) + "\n"
