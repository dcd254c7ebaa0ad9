"""Grid Engine's configuration file format: ``name value`` lines, pure text in and out.

This module owns the generic syntax shared by every object that ``qconf`` shows, adds or
modifies from a file or ``$EDITOR`` (queues, exec hosts, host groups, parallel
environments, the cluster and scheduler configuration), following the flatfile spooling
of Grid Engine 8.1.9:

- one attribute per line, the name first, the value after white space;
- a line ending in ``\\`` continues on the next one; the pieces are joined without a
  space when the text before the backslash ends with ``,`` and with one space otherwise,
  and the continuation's leading blanks are dropped;
- lines whose first non-blank character is ``#`` and blank lines are ignored;
- on output the names are left-aligned in a column of fixed width (one per object kind)
  followed by one space, and every line longer than ``MAX_LINE_LENGTH`` is broken at the
  last comma or blank that fits, continued with `` \\`` and indented to the value column.

What each object's attributes are, and what values they take, is
``common.objects_conf``'s business; this module only knows names.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable

# The width qconf breaks long lines at. Sun's sources say 78 (sge_flatfile.h), but the
# 8.1.9 reference output keeps a 79-character reporting_params continuation unbroken
# (qconf-sconf.global.default.txt), so 8.1.9 uses at least 79; 80 fits every reference.
MAX_LINE_LENGTH = 80

Pairs = list[tuple[str, str]]

# The scanner's WORD: what may start a line as an attribute name.
_NAME = re.compile(r"[A-Za-z0-9_/.#$\-]+")
_BLANKS = re.compile(r"[ \t\r]+")


class ConfError(ValueError):
    """A configuration text or value Grid Engine would reject; ``message`` is its wording."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ValueCheckError(ConfError):
    """A value the flatfile reader read but the object's own check refused: ``qconf``
    reports it without the reader's ``error reading file`` line (an empty ``message``:
    8.1.9 prints no line of its own for it, only the kind's last line)."""


@dataclass(frozen=True)
class ConfKind:
    """The names one object kind's file may contain.

    ``attributes`` in display order; ``required`` must all be present; ``raw_values``
    keeps runs of blanks inside values (the cluster configuration reads the rest of the
    line verbatim) where other kinds collapse them to one space, as Grid Engine's
    tokenizer does; ``allow_unknown`` accepts any name.
    """

    name: str
    attributes: tuple[str, ...] = ()
    required: frozenset[str] = field(default_factory=frozenset)
    raw_values: bool = False
    allow_unknown: bool = False


GENERIC = ConfKind("generic", allow_unknown=True)


def parse_conf(text: str, *, kind: ConfKind = GENERIC) -> Pairs:
    """``name value`` pairs of a configuration text, in file order.

    Raises ``ConfError`` with Grid Engine's wording for a line that does not start with
    a name, an unknown or repeated attribute, or a required attribute that is missing.
    """
    pairs: Pairs = []
    seen: set[str] = set()
    for lineno, line in logical_lines(text):
        name, value = _split_line(line, lineno, kind.raw_values)
        _check_name(name, seen, kind)
        seen.add(name)
        pairs.append((name, value))
    for name in kind.attributes:
        if name in kind.required and name not in seen:
            raise ConfError(f'required attribute "{name}" is missing')
    return pairs


def logical_lines(text: str) -> list[tuple[int, str]]:
    """(first line number, joined text) of each attribute line, continuations resolved."""
    out: list[tuple[int, str]] = []
    pending: str | None = None
    start = 0
    for lineno, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip(" \t\r")
        if _is_comment_or_blank(line):
            # Grid Engine's scanner drops these even inside a continued value.
            continue
        if pending is None:
            start, pending = lineno, ""
        else:
            line = line.lstrip(" \t\r")
        if line.endswith("\\"):
            pending += _continued(line[:-1])
            continue
        out.append((start, pending + line))
        pending = None
    if pending:
        out.append((start, pending.rstrip()))
    return out


def _is_comment_or_blank(line: str) -> bool:
    stripped = line.lstrip(" \t\r")
    return not stripped or stripped.startswith("#")


def _continued(head: str) -> str:
    """The part before a backslash, ready for the next line to be appended."""
    head = head.rstrip(" \t\r")
    if not head or head.endswith(","):
        return head
    return head + " "


def _split_line(line: str, lineno: int, raw: bool) -> tuple[str, str]:
    text = line.lstrip(" \t\r")
    match = _NAME.match(text)
    if match is None:
        raise ConfError(f"line {lineno} should begin with an attribute name")
    name, rest = match.group(), text[match.end():]
    if rest and rest[0] not in " \t\r":
        raise ConfError(f"line {lineno} should begin with an attribute name")
    value = rest.strip(" \t\r")
    return name, value if raw else _BLANKS.sub(" ", value)


def _check_name(name: str, seen: set[str], kind: ConfKind) -> None:
    if not kind.allow_unknown and name not in kind.attributes:
        raise ConfError(f'unknown attribute name "{name}"')
    if name in seen:
        raise ConfError(f'attribute "{name}" appears more than once')


def render_conf(pairs: Iterable[tuple[str, str]], *, width: int, wrap: bool = True) -> str:
    """The text qconf shows: names padded to ``width`` plus one space, then the value.

    With ``wrap`` (qconf's default, off with ``SGE_SINGLE_LINE``) long lines are broken
    the way Grid Engine breaks them.
    """
    lines = [f"{name:<{width}} {value}" for name, value in pairs]
    text = "".join(line + "\n" for line in lines)
    return wrap_lines(text) if wrap else text


def wrap_lines(text: str) -> str:
    """Grid Engine's line breaking applied to every line of ``text``."""
    return "\n".join("\n".join(break_line(line)) for line in text.split("\n"))


def break_line(line: str, limit: int = MAX_LINE_LENGTH) -> list[str]:
    """One output line split into physical lines, each but the last ending in `` \\``.

    The first piece may be ``limit`` characters long, the continuations (indented to the
    value column) as well; a piece ends after the last comma, or before the last blank,
    within that room, or at the first one beyond it when there is none.
    """
    if len(line) <= limit:
        return [line]
    indent = value_column(line)
    pieces: list[str] = []
    rest, first = line, True
    while True:
        room = limit if first else limit - indent
        if len(rest) <= room:
            break
        if not first:
            # Grid Engine drops a continuation's leading blanks only once it must break it.
            rest = rest.lstrip(" \t")
        cut = _break_point(rest, room, indent if first else 0)
        if cut is None:
            break
        piece, rest = cut
        pieces.append(piece + " \\")
        first = False
    pieces.append(rest)
    return [pieces[0]] + [" " * indent + piece for piece in pieces[1:]]


def value_column(line: str) -> int:
    """Where the second word starts: after the name and the blanks or ``=`` following it."""
    pos = 0
    while pos < len(line) and not line[pos].isspace() and line[pos] != "=":
        pos += 1
    while pos < len(line) and (line[pos].isspace() or line[pos] == "="):
        pos += 1
    return pos


def _break_point(rest: str, room: int, floor: int) -> tuple[str, str] | None:
    """(piece, remainder) at the last separator before ``room``, else the first after."""
    lowest = floor + 1 if floor else 1
    for index in range(min(room, len(rest)) - 1, lowest - 1, -1):
        if rest[index] in " \t,":
            return _cut(rest, index)
    for index in range(room, len(rest)):
        if rest[index] in " \t,":
            return _cut(rest, index)
    return None


def _cut(rest: str, index: int) -> tuple[str, str]:
    if rest[index] == ",":
        return rest[: index + 1], rest[index + 1:]
    return rest[:index], rest[index + 1:]
