"""``qquota -fmt json``: the rows of qquota's table (``common.quota.report.QuotaRow``),
one object per rule, consumer tuple and limited complex in use: the rule set and rule,
the complex with its use (a number) and its limit (the text as shown, and a number when
it is one: memory in bytes, time in seconds), the filters by kind. Schema: ``qquota-1.json``.
"""
from __future__ import annotations

from clients.render.jsondoc import document, dump

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterable

    from common.quota.report import QuotaRow

SCHEMA = "qquota-1.json"


def _limit_number(text: str) -> float | str | None:
    """The limit as a number by Grid Engine's numeric parser (``4G`` in bytes, ``1:00:00``
    in seconds), ``"INFINITY"`` when unlimited, None when it is no number."""
    from common.resource.values import BadValueError, parse_number
    try:
        value = parse_number(text.strip())
    except BadValueError:
        return None
    return "INFINITY" if value == float("inf") else value


def row(quota: QuotaRow) -> dict[str, Any]:
    rule_set, _, rule = quota.rule.partition("/")
    return {"rule": quota.rule, "rule_set": rule_set, "rule_name": rule,
            "resource": quota.resource, "used": float(quota.used), "limit": quota.limit,
            "limit_value": _limit_number(quota.limit),
            "filters": [{"kind": kind, "value": value} for kind, value in quota.filters]}


def render_rows_json(rows: Iterable[QuotaRow]) -> str:
    return dump(document(SCHEMA, {"rules": [row(r) for r in rows]}))
