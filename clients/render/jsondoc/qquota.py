"""``qquota -fmt json``: the rows of qquota's table (``common.quota.report.QuotaRow``),
one object per rule, consumer tuple and limited complex in use: the rule set and rule,
the complex with its use (a number) and its limit (the text as shown, and a number when
it is one), the filters by kind. Schema: ``qquota-1.json``.
"""
from __future__ import annotations

from clients.render.jsondoc import document, dump

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterable

    from common.quota.report import QuotaRow

SCHEMA = "qquota-1.json"


def _limit_number(text: str) -> float | None:
    """The limit as a number when it is a plain finite one ("10", "2.5"), else None
    ("INFINITY", "4G" stay text: qquota shows limits as configured)."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value == value and abs(value) != float("inf") else None


def row(quota: QuotaRow) -> dict[str, Any]:
    rule_set, _, rule = quota.rule.partition("/")
    return {"rule": quota.rule, "rule_set": rule_set, "rule_name": rule,
            "resource": quota.resource, "used": float(quota.used), "limit": quota.limit,
            "limit_value": _limit_number(quota.limit),
            "filters": [{"kind": kind, "value": value} for kind, value in quota.filters]}


def render_rows_json(rows: Iterable[QuotaRow]) -> str:
    return dump(document(SCHEMA, {"rules": [row(r) for r in rows]}))
