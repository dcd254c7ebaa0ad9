"""The surface table of docs/compatibility.md, read as data for the tests that check it.

The section ``## The whole surface`` of docs/compatibility.md lists every command of Grid
Engine 8.1.9 with every option, and every configuration object with every parameter, one
sub-section each::

    ### command qsub
    | option | state | notes |
    |---|---|---|
    | `-a` | as 8.1.9 | ... |
    | `-binding` | refused | why it is refused and with which message |

    ### object queue_conf
    | parameter | state | notes |
    ...

The first cell holds the option or parameter name in backticks (the name only, no
argument); the state is exactly ``as 8.1.9``, ``differs`` or ``refused``; the notes say
why and how for the last two (they may not be empty then). Nothing may say "stored only".
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

COMPATIBILITY_MD = Path(__file__).resolve().parent.parent / "docs" / "compatibility.md"
SURFACE_HEADING = "## The whole surface"
STATES = ("as 8.1.9", "differs", "refused")

_SECTION = re.compile(r"^### (command|object) (\S+)")
_NAME = re.compile(r"^`([^`]+)`")
_CELL_BORDER = re.compile(r"(?<!\\)\|")  # a cell may hold an escaped \|


@dataclass(frozen=True)
class Row:
    """One option of a command or one parameter of an object."""

    name: str
    state: str
    notes: str


class SurfaceTableError(ValueError):
    """The table does not follow the format above (the message says where)."""


def read_surface(path: Path = COMPATIBILITY_MD) -> dict[tuple[str, str], dict[str, Row]]:
    """{("command", "qsub"): {"-a": Row, ...}, ("object", "queue_conf"): {...}, ...}."""
    lines = path.read_text().splitlines()
    try:
        start = lines.index(SURFACE_HEADING)
    except ValueError:
        raise SurfaceTableError(f"{path} has no line {SURFACE_HEADING!r}") from None
    table: dict[tuple[str, str], dict[str, Row]] = {}
    section: dict[str, Row] | None = None
    for number, line in enumerate(lines[start + 1:], start + 2):
        if line.startswith("## "):
            break
        found = _SECTION.match(line)
        if found:
            key = (found.group(1), found.group(2).strip("`"))
            if key in table:
                raise SurfaceTableError(f"line {number}: {key} listed twice")
            section = table[key] = {}
            continue
        if section is None or not line.startswith("| `"):
            continue
        row = _row(line, number)
        if row.name in section:
            raise SurfaceTableError(f"line {number}: {row.name} listed twice")
        section[row.name] = row
    return table


def _row(line: str, number: int) -> Row:
    cells = [cell.strip() for cell in _CELL_BORDER.split(line.strip().strip("|"))]
    if len(cells) < 3:
        raise SurfaceTableError(f"line {number}: a row needs name, state and notes")
    found = _NAME.match(cells[0])
    if not found:
        raise SurfaceTableError(f"line {number}: the first cell is no `name`")
    state, notes = cells[1], " | ".join(cells[2:]).strip()
    if state not in STATES:
        raise SurfaceTableError(f"line {number}: state {state!r} is none of {STATES}")
    if state != "as 8.1.9" and not notes:
        raise SurfaceTableError(f"line {number}: a {state} row must say why")
    if "stored only" in line.lower():
        raise SurfaceTableError(f"line {number}: nothing may be 'stored only'")
    return Row(found.group(1).strip(), state, notes)
