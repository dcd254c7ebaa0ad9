"""``qacct -fmt json``: the records ``-j`` shows (every field of accounting(5), typed)
and the usage summary (grouped as the text table groups, by ``clients.render.qacct``).
Times ISO 8601 in UTC (null where the text view shows "-/-" or "undefined"); cpu, utime,
stime, iow and wallclock in seconds, mem in GB seconds, io in GB, maxvmem and ru_maxrss
as the record holds them. Schema: ``qacct-1.json``.
"""
from __future__ import annotations

from dataclasses import fields

from clients.render.jsondoc import document, dump, iso_time
from clients.render.qacct import COLUMNS, FAILED_TEXT, signal_name, as_u32, group_usage
from common.accounting import NONE_STR, AccountingRecord

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SCHEMA = "qacct-1.json"
_TIMES = ("submission_time", "start_time", "end_time", "ar_submission_time")
_OPTIONAL_IDS = ("task_number", "arid")
_USAGE_KEYS = ("wallclock", "utime", "stime", "cpu", "mem", "io", "iow")


def record(rec: AccountingRecord) -> dict[str, Any]:
    """Every field of a record; NONE strings as null, 0 times and ids as null."""
    out: dict[str, Any] = {}
    for f in fields(rec):
        value = getattr(rec, f.name)
        if f.name in _TIMES:
            value = iso_time(value) if value else None
        elif f.name in _OPTIONAL_IDS:
            value = value or None
        elif isinstance(value, str) and value == NONE_STR and f.name not in ("qname", "hostname"):
            value = None
        out[f.name] = value
    failed, status = as_u32(rec.failed), as_u32(rec.exit_status)
    out["failed_reason"] = (FAILED_TEXT.get(failed) or "invalid execution state") if failed else None
    out["exit_signal"] = signal_name(status - 128) if status > 127 else None
    return out


def _summary(chosen: dict[str, object], listed: set[str],
             records: list[AccountingRecord]) -> dict[str, Any]:
    """The rows of the text table (none when the summed wall clock is 0, as 8.1.9)."""
    shown = [key for key, _, _ in COLUMNS if key in chosen or key in listed]
    groups = group_usage(listed, records) if listed else []
    total = {key: 0.0 for key in _USAGE_KEYS}
    for rec in records:
        for key, value in zip(_USAGE_KEYS, (rec.ru_wallclock, rec.ru_utime, rec.ru_stime,
                                            rec.cpu, rec.mem, rec.io, rec.iow)):
            total[key] += value
    rows: list[dict[str, Any]] = []
    if total["wallclock"]:
        if not groups:
            rows.append({"columns": {key: chosen[key] for key in shown}, **total})
        for key_values, usage in groups:
            columns = {key: chosen[key] if key in chosen else key_values[i]
                       for i, (key, _, _) in enumerate(COLUMNS) if key in shown}
            rows.append({"columns": columns, **{k: float(getattr(usage, k)) for k in _USAGE_KEYS}})
    return {"total_system_usage": not shown, "columns": shown, "rows": rows}


def render_accounting(records: list[AccountingRecord], *, jobs: bool, summary: bool,
                      chosen: dict[str, object], listed: set[str]) -> str:
    """qacct's document: ``jobs`` (-j) the records, ``summary`` the usage table."""
    body: dict[str, Any] = {}
    if jobs:
        body["jobs"] = [record(rec) for rec in records]
    if summary:
        body["summary"] = _summary(chosen, listed, records)
    return dump(document(SCHEMA, body))
