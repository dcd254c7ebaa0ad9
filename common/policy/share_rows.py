"""The rows of the share tree's figures as 8.1.9 prints them: one per node, for
``sge_share_mon`` (clients.share_mon) and the reporting file's ``sharelog`` records
(common.reporting). The fields, in 8.1.9's order, and how each kind is written."""
from __future__ import annotations

from typing import Any

FIELDS = ("curr_time", "usage_time", "node_name", "user_name", "project_name", "shares",
          "job_count", "level%", "total%", "long_target_share", "short_target_share",
          "actual_share", "usage", "cpu", "mem", "io", "ltcpu", "ltmem", "ltio")
TIME_FIELDS = frozenset({"curr_time", "usage_time"})     # Unix seconds
TEXT_FIELDS = frozenset({"node_name", "user_name", "project_name"})
COUNT_FIELDS = frozenset({"shares", "job_count"})


def number_text(name: str, value: Any) -> str:
    """A field that is no text as both print it: times and counts as whole numbers, the
    figures with six decimals (printf's %f)."""
    if name in TIME_FIELDS or name in COUNT_FIELDS:
        return str(int(value or 0))
    return f"{float(value or 0.0):f}"
