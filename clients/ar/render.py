"""qrstat's outputs, as Grid Engine 8.1.9 writes them (tests/data/reference/ar/qrstat-*):
the listing, the ``-ar`` detail and both ``-xml`` forms. Pure: AR records
(``common.ar.new_record``) in, text out; times in local time.
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterable

from clients.render.format import XML_DECL, format_ctime, format_xml_time, xml_escape

HEADER = ("ar-id   name       owner        state start at             end at               "
          "duration")
RULE = "-" * 90
DETAIL_RULE = "-" * 80
XML_OPEN = ('<qrstat xmlns:xsd="http://arc.liv.ac.uk/repos/darcs/sge/source/dist/util/'
            'resources/schemas/qrstat/qrstat.xsd">')


def duration(seconds: float) -> str:
    """``01:59:58``: hours, minutes, seconds (hours past 99 grow the field)."""
    total = max(0, int(round(seconds)))
    return f"{total // 3600:02d}:{total // 60 % 60:02d}:{total % 60:02d}"


def listing(ars: Iterable[dict[str, Any]], *, explain: bool = False) -> str:
    """The table of qrstat (no AR: nothing at all); ``explain``: an AR's message (why it
    is in state E or W) on a line of its own below it."""
    rows = []
    for r in ars:
        rows.append(f"{r['ar_id']:7d} {r.get('name') or '':<10.10} {r['owner']:<12.12} "
                    f"{r['state']:<5.5} {format_ctime(r['start']):<20.20} "
                    f"{format_ctime(r['end']):<20.20} {duration(r['end'] - r['start'])}")
        if explain and r.get("message"):
            rows.append(f"       {r['message']}")
    return "\n".join([HEADER, RULE, *rows]) + "\n" if rows else ""


def _field(name: str, value: str) -> str:
    return f"{name:<30} {value}"


def _granted(record: dict[str, Any]) -> str:
    return ",".join(f"{q}@{h}={n}" for q, h, n in record.get("granted") or [])


def detail(record: dict[str, Any]) -> str:
    """``qrstat -ar id``: one block per AR."""
    lines = [DETAIL_RULE,
             _field("id", str(record["ar_id"])), _field("name", record.get("name") or ""),
             _field("owner", record["owner"]), _field("state", record["state"]),
             _field("start_time", format_ctime(record["start"])),
             _field("end_time", format_ctime(record["end"])),
             _field("duration", duration(record["end"] - record["start"])),
             *([_field("message", record["message"])] if record.get("message") else []),
             _field("submission_time", format_ctime(record["submission_time"])),
             _field("group", record.get("group") or ""),
             _field("account", record.get("account") or "sge")]
    resources = record.get("hard_resources") or {}
    if resources:
        lines.append(_field("resource_list",
                            ",".join(f"{k}={v}" for k, v in resources.items())))
    if record.get("error_handling"):
        lines.append(_field("error_handling", "true"))
    lines.append(_field("granted_slots_list", _granted(record)))
    if record.get("granted_pe"):
        lines.append(_field("granted_parallel_environment",
                            f"{record['granted_pe']} slots {_slots(record)}"))
    if record.get("mail_options"):
        lines.append(_field("mail_options", record["mail_options"]))
    if record.get("mail_list"):
        lines.append(_field("mail_list", ",".join(record["mail_list"])))
    if record.get("acl"):
        lines.append(_field("acl_list", ",".join(record["acl"])))
    return "\n".join(lines) + "\n"


def _slots(record: dict[str, Any]) -> int:
    return sum(int(g[2]) for g in record.get("granted") or [])


def _x(depth: int, tag: str, value: str) -> str:
    pad = "   " * depth
    return f"{pad}<{tag}/>" if value == "" else f"{pad}<{tag}>{xml_escape(value)}</{tag}>"


def xml(ars: Iterable[dict[str, Any]], *, full: bool) -> str:
    """``qrstat -xml`` (``full``: with ``-ar``, every field of the detail)."""
    out = [XML_DECL, XML_OPEN]
    for r in ars:
        out.append("   <ar_summary>")
        out += [_x(2, "id", str(r["ar_id"])), _x(2, "name", r.get("name") or ""),
                _x(2, "owner", r["owner"]), _x(2, "state", r["state"]),
                _x(2, "start_time", format_xml_time(r["start"])),
                _x(2, "end_time", format_xml_time(r["end"])),
                _x(2, "duration", duration(r["end"] - r["start"]))]
        if full:
            out += _xml_detail(r)
        out.append("   </ar_summary>")
    out.append("</qrstat>")
    return "\n".join(out) + "\n"


def _xml_detail(r: dict[str, Any]) -> list[str]:
    out = [_x(2, "message", r["message"])] if r.get("message") else []
    out += [_x(2, "submission_time", format_xml_time(r["submission_time"])),
           _x(2, "group", r.get("group") or ""), _x(2, "account", r.get("account") or "sge")]
    resources = r.get("hard_resources") or {}
    if resources:
        out.append("      <resource_list>")
        out += [f'         <resource name="{xml_escape(k)}" type="{xml_escape(str(v))}"/>'
                for k, v in resources.items()]
        out.append("      </resource_list>")
    if r.get("error_handling"):
        out.append(_x(2, "error_handling", "true"))
    out.append("      <granted_slots_list>")
    out += [f'         <granted_slots  queue_instance="{xml_escape(f"{q}@{h}")}" '
            f'slots="{n}"/>' for q, h, n in r.get("granted") or []]
    out.append("      </granted_slots_list>")
    if r.get("granted_pe"):
        out += ["      <granted_parallel_environment>",
                _x(3, "parallel_environment", r["granted_pe"]),
                _x(3, "slots", str(_slots(r))),
                "      </granted_parallel_environment>"]
    if r.get("mail_options"):
        out.append(_x(2, "mail_options", r["mail_options"]))
    if r.get("mail_list"):
        out.append("      <mail_list>")
        for entry in r["mail_list"]:
            user, _, host = entry.partition("@")
            host_attr = f' host="{xml_escape(host)}"' if host else ""
            out.append(f'         <mail  user="{xml_escape(user)}"{host_attr}/>')
        out.append("      </mail_list>")
    if r.get("acl"):
        out.append("      <acl_list>")
        out += [f'         <acl  user="{xml_escape(a)}"/>' for a in r["acl"]]
        out.append("      </acl_list>")
    return out
