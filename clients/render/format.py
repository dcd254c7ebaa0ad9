"""How qstat and qhost write single values, as Grid Engine 8.1.9 does: the job
table's dates, ctime() dates, durations, memory sizes and XML escaping. Pure
(times are epoch floats shown in local time).
"""

from __future__ import annotations

import time

XML_DECL = "<?xml version='1.0'?>"
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def format_ctime(ts: float, seen: dict[float, str] | None = None) -> str:
    """The job table's date column, e.g. ``11/22/2026 02:39:00``. ``seen``: the dates of
    the seconds one listing has shown so far (jobs submitted in a loop share their
    seconds: a listing of thousands formats each second once). Not kept beyond a
    listing: the local time zone may change in between (time.tzset)."""
    if seen is None:
        return time.strftime("%m/%d/%Y %H:%M:%S", time.localtime(ts))
    second = ts // 1  # what localtime() shows of ts (it rounds down, as here)
    text = seen.get(second)
    if text is None:
        text = seen[second] = time.strftime("%m/%d/%Y %H:%M:%S", time.localtime(second))
    return text


def format_xml_time(ts: float) -> str:
    """The ISO-like timestamp qstat -xml uses, e.g. ``2026-11-22T02:39:00``."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(ts))


def xml_escape(text: str | None) -> str:
    """Grid Engine's escape_string(); '<' really becomes "%lt;" in 8.1.9 (upstream typo kept)."""
    table = {"<": "%lt;", ">": "&gt;", "&": "&amp;", "'": "&apos;", '"': "&quot;"}
    return "".join(table.get(ch, ch) for ch in (text or ""))


def xml_line(depth: int, tag: str, value: str | None) -> str:
    """One ``<tag>value</tag>`` line indented two spaces per level."""
    return f"{'  ' * depth}<{tag}>{xml_escape(value)}</{tag}>"


def format_c_ctime(ts: float) -> str:
    """C ctime() without the newline, locale independent: ``Sun Nov 22 02:37:45 2026``."""
    t = time.localtime(ts)
    return (f"{_DAYS[t.tm_wday]} {_MONTHS[t.tm_mon - 1]} {t.tm_mday:2d} "
            f"{t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d} {t.tm_year}")


def format_hms(seconds: float) -> str:
    """double_print_time_to_dstring(): ``HH:MM:SS`` with hours unbounded."""
    secs = int(seconds)
    return f"{secs // 3600:02d}:{secs % 3600 // 60:02d}:{secs % 60:02d}"


def format_memory(value: float) -> str:
    """double_print_memory_to_dstring(): 1024-based unit with 3 decimals (``3.516M``)."""
    for unit, size in (("T", 1024.0 ** 4), ("G", 1024.0 ** 3), ("M", 1024.0 ** 2), ("K", 1024.0)):
        if abs(value) >= size:
            return f"{value / size:.3f}{unit}"
    return f"{abs(value):.3f}"
