"""JSON output of the commands (``-fmt json``, Open Cluster Scheduler 9.2's spelling; not
in Grid Engine 8.1.9): what every document shares.

Every document is a JSON object whose ``$id`` names the JSON Schema (draft 2020-12) it
validates against; the schema ships in the package (``clients/schemas/``) under the last
part of that ``$id`` (``schema_path``). Values are typed: numbers as numbers, times as
ISO 8601 in UTC (``2026-11-28T08:55:15Z``), job and queue states as 8.1.9's letters plus
one boolean per letter. The renderers in this package take the same rows the text and
XML renderers take (``clients.views``): they only format. Pure: data in, text out.
"""
from __future__ import annotations

import datetime
import json
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SCHEMA_BASE = "https://pygridengine.org/schemas/"
SCHEMA_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))),
                          "schemas")
FORMATS = ("plain", "json")

# qstat(1) "state": one boolean per letter of a job's state column
JOB_STATE_NAMES = {"d": "deleted", "E": "error", "h": "hold", "r": "running",
                   "R": "restarted", "s": "suspended", "S": "queue_suspended",
                   "T": "threshold_suspended", "t": "transferring", "w": "waiting",
                   "q": "queued", "z": "zombie"}
# qstat(1) "state" of a queue instance: one boolean per letter
QUEUE_STATE_NAMES = {"a": "alarm", "A": "suspend_alarm", "c": "configuration_ambiguous",
                     "C": "calendar_suspended", "d": "disabled", "D": "calendar_disabled",
                     "E": "error", "o": "orphaned", "s": "suspended",
                     "S": "subordinate_suspended", "u": "unknown"}


def schema_id(file_name: str) -> str:
    """The ``$id`` of a shipped schema file (``qstat-1.json``)."""
    return SCHEMA_BASE + file_name


def schema_path(schema_ref: str) -> str:
    """The shipped file of a schema named by its ``$id`` (or its file name)."""
    return os.path.join(SCHEMA_DIR, schema_ref.rsplit("/", 1)[-1])


def document(file_name: str, body: dict[str, Any]) -> dict[str, Any]:
    """A document of the schema ``file_name``: ``$id`` first, then ``body``."""
    return {"$id": schema_id(file_name), **body}


def dump(doc: dict[str, Any]) -> str:
    """The text of a document (indented, one newline at the end; no NaN or infinity)."""
    return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def iso_time(ts: float | None) -> str | None:
    """An epoch time as ISO 8601 in UTC to the second (what the text views show)."""
    if ts is None:
        return None
    moment = datetime.datetime.fromtimestamp(int(ts), datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def flags(letters: str, names: dict[str, str]) -> dict[str, bool]:
    """One spelled-out boolean per state letter (every name present, true when shown)."""
    return {name: letter in letters for letter, name in names.items()}


def job_state(letters: str) -> dict[str, Any]:
    """A job's state column: ``{"letters": "hqw", "hold": true, "queued": true, ...}``."""
    return {"letters": letters, **flags(letters, JOB_STATE_NAMES)}


def queue_state(letters: str) -> dict[str, Any]:
    """A queue instance's state column, letters plus booleans."""
    return {"letters": letters, **flags(letters, QUEUE_STATE_NAMES)}


class FormatError(Exception):
    """-fmt with a value the command does not know, or with -xml."""


def check_format(value: str | None, *, xml: bool) -> bool:
    """Whether ``-fmt value`` asks for JSON; raises FormatError on an unknown value or
    on -fmt json together with -xml (the message is the command's to word)."""
    if value is None:
        return False
    if value not in FORMATS:
        raise FormatError(f'unknown output format "{value}" for -fmt (use plain or json)')
    if xml:
        raise FormatError("-fmt and -xml cannot be combined")
    return value == "json"
