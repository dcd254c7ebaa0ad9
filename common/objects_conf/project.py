"""Projects (project(5)): the object ``qsub -P`` names, which queues, hosts and the
cluster admit or exclude (``projects``/``xprojects``) and resource quotas filter on.

Owns the attributes in Grid Engine's order (``name``, ``oticket``, ``fshare``, ``acl``,
``xacl``, shown ``name p1`` without a name column) with their checks in Grid Engine
8.1.9's words (tests/data/reference/projects/) and the rules for a project's name. Who
may submit into a project (the users its ``acl`` access lists hold, less those its
``xacl`` lists hold) is ``common.access``'s to decide. ``oticket`` and ``fshare`` are
the override and functional policies' (``common.objects_conf.user.entities``,
``common.policy``).

Two 8.1.9 details shape the checks: ``acl``/``xacl`` are lists separated by blanks only
(``arusers,deadlineusers`` is one list name, which then does not exist), and ``NONE``
followed by more names is a reader error naming the line (``project_line_problem``).
"""
from __future__ import annotations

import math
import re
from typing import Iterable, Sequence

from common.conf_values import get, no_value
from common.conffile import ConfError, logical_lines
from common.objects_conf.base import Attr, ObjectKind

U_LONG32_MAX = 0xFFFFFFFF
# Characters 8.1.9 refuses in a project name, in the order it tests them, with its labels.
_NAME_CHARS = (("\n", "Return"), ("\t", "Tab"), ("\r", "Carriage return"), (" ", "Space"),
               ("/", "Slash"), (":", "Colon"), ("'", "Quote"), ('"', "Double quote"),
               ("\\", "Backslash"), ("[", "Brackets"), ("]", "Brackets"),
               ("{", "Braces"), ("}", "Braces"), ("|", "Pipe"), ("(", "Parenthesis"),
               (")", "Parenthesis"), ("@", "At"), ("%", "Percent"), (",", "Comma"))
RESERVED_NAMES = ("NONE", "ALL", "TEMPLATE")
_HEX = re.compile(r"[+-]?0[xX]")
# what C's strtod reads as a whole: decimal and hexadecimal numbers, ASCII digits only
_STRTOD = re.compile(r"[+-]?(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)"
                     r"(?:[pP][+-]?[0-9]+)?"
                     r"|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")
_INF_NAN = re.compile(r"[+-]?(?:inf(?:inity)?|nan)", re.IGNORECASE)


def name_problem(name: str) -> str | None:
    """Grid Engine's refusal of a project name (its object name rules), or None. Unlike
    queue names, a project name may start with a digit."""
    for char, label in _NAME_CHARS:
        if char in name:
            return f"{label} ('{char}') not allowed in objectname"
    bad = next((b for b in name.encode("utf-8", "surrogateescape")
                if not 0x20 < b < 0x7F), None)  # 8.1.9 tests the name's bytes
    if bad is not None:
        return f"Non-graphic character (hex {bad:x}) not allowed in objectname"
    if name.upper() in RESERVED_NAMES:
        return f'Keyword ("{name.upper()}") not allowed as objectname'
    return None


def check_u_long32(name: str, value: str) -> str:
    """A count as 8.1.9 reads one (C's strtod, then a range check): ``0x10``, ``+5``,
    ``1e3`` are numbers; a fraction or more than 32 bits is refused."""
    no_value(name, value)
    text = value.strip()
    if _INF_NAN.fullmatch(text):
        raise ConfError(f'"{text}" is not an u_long32 value')
    if not _STRTOD.fullmatch(text):  # Python's float() takes more: 1_000, other digits
        raise ConfError(f'error parsing unsigned long value from string "{text}"')
    number = float.fromhex(text) if _HEX.match(text) else float(text)
    if not math.isfinite(number):
        raise ConfError(f'"{text}" is not an u_long32 value')
    if number < 0:
        raise ConfError(f'parameter "{name}" must be a positive number')
    if number != int(number) or number > U_LONG32_MAX:
        raise ConfError(f'"{text}" is not an u_long32 value')
    return str(int(number))


def acl_names(value: str) -> list[str]:
    """The access list names of an ``acl``/``xacl`` value: blank separated, NONE none;
    duplicates kept once."""
    words = value.split()
    if not words or words[0].upper() == "NONE":
        return []
    return list(dict.fromkeys(words))


def check_acl(name: str, value: str) -> str:
    """An ``acl``/``xacl`` value as 8.1.9 keeps it: the names as given, a repeated one
    too (``arusers arusers``), or ``NONE``."""
    no_value(name, value)
    words = value.split()
    if words and words[0].upper() == "NONE" and len(words) > 1:
        raise ConfError(f'unrecognized characters after the attribute values: "{words[1]}"')
    return "NONE" if words[0].upper() == "NONE" else " ".join(words)


def check_project_name(name: str, value: str) -> str:
    """Only that there is a name: its rules are the qmaster's (``name_problem``), whose
    refusal 8.1.9 prints without the file reader's lines."""
    no_value(name, value)
    return value.strip()


PROJECT = ObjectKind(
    name="project",
    key="name",
    width=0,
    attrs=(
        Attr("name", "template", check_project_name),
        Attr("oticket", "0", check_u_long32),
        Attr("fshare", "0", check_u_long32),
        Attr("acl", "NONE", check_acl),
        Attr("xacl", "NONE", check_acl),
    ),
)
ACL_ATTRS = ("acl", "xacl")


def project_line_problem(text: str) -> str | None:
    """The reader errors 8.1.9 words with a line number, for a project file: an
    attribute without a value, and names after ``NONE`` in ``acl``/``xacl``."""
    for lineno, line in logical_lines(text):
        words = line.split()
        if len(words) == 1:  # 8.1.9's scanner has read the line end: it names the next
            return (f'" " is the only character allowed between the attribute name and '
                    f"the value in line {lineno + 1}")
        if words[0] in ACL_ATTRS and len(words) > 2 and words[1].upper() == "NONE":
            return (f"unrecognized characters after the attribute values in line {lineno}: "
                    f'"{words[2]}"')
    return None


def project_lists(pairs: Iterable[Sequence[str]]) -> list[tuple[str, str]]:
    """``(attribute, list name)`` of every access list ``acl`` and ``xacl`` name."""
    pairs = list(pairs)
    return [(key, name) for key in ACL_ATTRS for name in acl_names(get(pairs, key, "NONE"))]


def project_problem(pairs: Iterable[Sequence[str]], usersets: Iterable[str]) -> str | None:
    """The qmaster's refusal of a whole project, in 8.1.9's order and words, or None."""
    pairs = list(pairs)
    problem = name_problem(get(pairs, "name", ""))
    if problem:
        return problem
    known = set(usersets)
    named = project_lists(pairs)
    missing = next((n for _, n in named if n not in known), None)
    if missing is not None:
        return f'Userset "{missing}" does not exist'
    acl = {n for key, n in named if key == "acl"}
    both = next((n for key, n in named if key == "xacl" and n in acl), None)
    if both is not None:
        return (f'denied: multiple occurrences of userset "{both}" in project '
                f'"{get(pairs, "name", "")}"')
    return None
