"""Access lists and departments (``access_list(5)``, Grid Engine's "usersets").

Owns the object's attributes in Grid Engine's order (``name``, ``type``, ``fshare``,
``oticket``, ``entries``, shown in a name column 7 wide as Grid Engine's flatfile field
table for usersets says), the checks of their values with Grid Engine's wording, the lists
a fresh 8.1.9 cell has, and the qmaster's checks of a whole list (``userset_problems``).

``entries`` holds user names and ``@group`` names, comma separated, or ``NONE``.
``type`` is ``ACL``, ``DEPT`` or both, written ``ACL DEPT``.
"""
from __future__ import annotations

import re
from typing import Iterable, Mapping, Sequence

from common.conf_values import check_ulong, get, no_value, split_names
from common.conffile import ConfError
from common.objects_conf.base import Attr, ObjectKind
from common.objects_conf.queue import check_object_name

USERSET_TYPES = ("ACL", "DEPT")
TYPE_NAME = "userset type"
DEFAULT_DEPARTMENT = "defaultdepartment"
AR_USERS = "arusers"
DEADLINE_USERS = "deadlineusers"
# name -> type of the lists Grid Engine's installer creates (util/resources/usersets)
CELL_DEFAULTS: dict[str, str] = {AR_USERS: "ACL", DEADLINE_USERS: "ACL",
                                 DEFAULT_DEPARTMENT: "DEPT"}

_TYPE_SEPARATORS = re.compile(r"[,\s]+")


def check_userset_type(name: str, value: str) -> str:
    """``ACL``, ``DEPT`` or both (comma or blank separated, any case) as ``ACL DEPT``."""
    given: set[str] = set()
    for word in (w for w in _TYPE_SEPARATORS.split(value.strip()) if w):
        known = next((t for t in USERSET_TYPES if t.lower() == word.lower()), None)
        if known is None:
            raise ConfError(f'reading conf file: unknown specifier "{word}" for {TYPE_NAME}')
        if known in given:
            raise ConfError(f'reading config file: specifier "{known}" given twice for '
                            f'"{TYPE_NAME}"')
        given.add(known)
    if not given:
        raise ConfError(f'reading conf file: empty specifier for "{TYPE_NAME}"')
    return " ".join(t for t in USERSET_TYPES if t in given)


def check_entries(name: str, value: str) -> str:
    """User and ``@group`` names shown comma separated, or ``NONE``."""
    no_value(name, value)
    return ",".join(split_names(value)) or "NONE"


USERSET = ObjectKind(
    name="userset",
    key="name",
    width=7,
    attrs=(
        Attr("name", "template", check_object_name),
        Attr("type", "ACL", check_userset_type),
        Attr("fshare", "0", check_ulong),
        Attr("oticket", "0", check_ulong),
        Attr("entries", "NONE", check_entries),
    ),
)


def userset_pairs(name: str, type_: str = "ACL", entries: Iterable[str] = ()) -> list[list[str]]:
    """A list as the qmaster stores it: no shares, no tickets, ``entries`` in order."""
    return [["name", name], ["type", type_], ["fshare", "0"], ["oticket", "0"],
            ["entries", ",".join(entries) or "NONE"]]


def entries_of(pairs: Iterable[Sequence[str]]) -> list[str]:
    """The user and ``@group`` names of a stored list."""
    return split_names(get(pairs, "entries", "NONE"))


def with_entries(pairs: Iterable[Sequence[str]], entries: Iterable[str]) -> list[list[str]]:
    """The list with its ``entries`` replaced."""
    text = ",".join(entries) or "NONE"
    return [[key, text if key == "entries" else value] for key, value in pairs]


def types_of(pairs: Iterable[Sequence[str]]) -> set[str]:
    return set(get(pairs, "type", "ACL").split())


def userset_problems(pairs: Iterable[Sequence[str]], *, add: bool) -> list[str]:
    """Grid Engine's refusals of a whole list, in its order; empty when acceptable.

    A pure access list may not carry functional shares or override tickets, but Grid
    Engine checks that only when a list is changed, not when it is added. The
    ``defaultdepartment`` must be a department and take no entries (every user belongs
    to it anyway).
    """
    pairs = list(pairs)
    problems: list[str] = []
    if not add and "DEPT" not in types_of(pairs):
        if int(get(pairs, "fshare", "0")) > 0:
            problems.append('not allowed to set "fshare" for ACL lists')
        if int(get(pairs, "oticket", "0")) > 0:
            problems.append('not allowed to set "oticket" for ACL lists')
    if problems:
        return problems
    if get(pairs, "name") == DEFAULT_DEPARTMENT:
        if "DEPT" not in types_of(pairs):
            problems.append('the "defaultdepartment" has to be of type "DEPT"')
        if entries_of(pairs):
            problems.append('all users are assigned to the "defaultdepartment" automatically')
    return problems


def departments(usersets: Mapping[str, Iterable[Sequence[str]]]) -> list[tuple[str, list[str]]]:
    """``(name, entries)`` of every list of type DEPT, in the store's order."""
    return [(name, entries_of(pairs)) for name, pairs in usersets.items()
            if "DEPT" in types_of(pairs)]


def department_of(user: str, group: str | None,
                  usersets: Mapping[str, Iterable[Sequence[str]]]) -> str:
    """The department a job of ``user`` (primary group ``group``) belongs to, as 8.1.9's
    qmaster assigns it: the first department naming the user, else the first naming
    ``@group``, else ``defaultdepartment``."""
    depts = departments(usersets)
    for name, entries in depts:
        if user in entries:
            return name
    if group:
        for name, entries in depts:
            if f"@{group}" in entries:
                return name
    return DEFAULT_DEPARTMENT


def department_conflict(pairs: Iterable[Sequence[str]],
                        usersets: Mapping[str, Iterable[Sequence[str]]]) -> str | None:
    """A department may not name a user or ``@group`` another department names (a user
    belongs to one department only); the refusal, or None. 8.1.9 refuses such a list
    with an empty answer; the words here are ours (docs/compatibility.md)."""
    pairs = list(pairs)
    if "DEPT" not in types_of(pairs):
        return None
    own = get(pairs, "name")
    for name, entries in departments(usersets):
        if name == own:
            continue
        clash = next((e for e in entries_of(pairs) if e in entries), None)
        if clash is not None:
            what = f'group "{clash[1:]}"' if clash.startswith("@") else f'user "{clash}"'
            return f'denied: {what} already belongs to department "{name}"'
    return None
