"""``qconf`` options for access lists (access_list(5)): ``-au -du -dul -su -sul -Au -Mu
-mu``, as Grid Engine 8.1.9's qconf words and streams them.

``-au``/``-du`` are one ``userset_entries`` request: the qmaster adds or removes every
user of every list and answers one line per user and list (``added "u" to access list
"l"``), the exit status 1 when any of them failed. The other options send whole lists
(``conf_put``/``conf_del`` of kind "userset"), confirmed as ``root@vm added "l" to
userset list``. Quirks kept from Grid Engine: ``-Mu`` of a list that does not exist says
``l is not known as a project`` (captured); ``-mu`` of an unknown list creates it (type
``ACL DEPT``) and exits 0 even when the qmaster refuses the edited list; a list the editor
returns unchanged is not sent (``file unchanged``). Every access list message, success
or refusal, goes to stderr, as the 8.1.9 captures show.
"""
from __future__ import annotations


from clients.api import ClientError
from clients.qconf.base import (EMPTY_LIST, MISSING, QconfError, Session, edit_text, err, out,
                                put, remove)
from clients.qconf.files import FileError, parse_object_text, read_object_file
from common.objects_conf import render_object
from common.objects_conf.userset import userset_pairs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

KIND = "userset"
ERROR_READING_IN_FILE = "error reading in file"
NOT_A_PROJECT = "{} is not known as a project"  # sic: 8.1.9 -Mu of a missing list
EDITED_UNREADABLE = "error reading userset from file"
FILE_UNCHANGED = "file unchanged"  # stdout, as Grid Engine's -mu prints it


def _names(text: str) -> list[str]:
    return [name for name in text.replace(" ", ",").split(",") if name]


def _change_entries(s: Session, op: str, users: str, lists: str) -> int:
    try:
        results: list[dict[str, Any]] = s.client.userset_entries(op, _names(users),
                                                                _names(lists))
    except ClientError as exc:
        err(exc.message)
        return 1
    for result in results:
        err(result["message"])
    return 0 if all(result["ok"] for result in results) else 1


def add_users(s: Session, users: str, lists: str) -> int:
    """``-au user[,user..] list[,list..]``: a list that does not exist is created."""
    return _change_entries(s, "add", users, lists)


def delete_users(s: Session, users: str, lists: str) -> int:
    """``-du user[,user..] list[,list..]``."""
    return _change_entries(s, "delete", users, lists)


def delete_lists(s: Session, lists: str) -> int:
    """``-dul list[,list..]``: refused while a queue, PE, host or configuration names it."""
    return max((remove(s, KIND, name) for name in _names(lists)), default=0)


def show_list_names(s: Session) -> int:
    """``-sul``: the names, sorted."""
    names = s.objects(KIND)
    if not names:
        raise QconfError(EMPTY_LIST[KIND])
    out("\n".join(sorted(names)))
    return 0


def show_usersets(s: Session, lists: str) -> int:
    """``-su list[,list..]``: each list, an empty line between two."""
    objects = s.objects(KIND)
    rc, shown = 0, 0
    for name in _names(lists):
        if name not in objects:
            err(MISSING[KIND].format(name))
            rc = 1
            continue
        out(("\n" if shown else "") + render_object(KIND, objects[name]))
        shown += 1
    return rc


def _from_file(path: str) -> list[list[str]]:
    try:
        return [list(p) for p in read_object_file(KIND, path)]
    except FileError as exc:
        raise QconfError("\n".join(exc.lines + [ERROR_READING_IN_FILE])) from None


def add_from_file(s: Session, path: str) -> int:
    """``-Au file``."""
    pairs = _from_file(path)
    return put(s, KIND, dict(pairs)["name"], pairs, "add")


def modify_from_file(s: Session, path: str) -> int:
    """``-Mu file``: only a list that exists."""
    pairs = _from_file(path)
    name = dict(pairs)["name"]
    if name not in s.objects(KIND):
        raise QconfError(NOT_A_PROJECT.format(name))
    return put(s, KIND, name, pairs, "modify")


def modify_in_editor(s: Session, lists: str) -> int:
    """``-mu list[,list..]``: managers only (checked before any editor opens); each list
    in turn, an unknown one created. A list the editor left unreadable is skipped."""
    user = s.client.user.name
    if user not in s.objects("manager"):
        raise QconfError(f'denied: "{user}" must be manager for this operation')
    objects = s.objects(KIND)
    for name in _names(lists):
        exists = name in objects
        pairs = objects[name] if exists else userset_pairs(name, "ACL DEPT")
        edited = _edited(render_object(KIND, pairs))
        if edited is not None:
            put(s, KIND, dict(edited)["name"], edited, "modify" if exists else "add")
    return 0


def _edited(text: str) -> list[list[str]] | None:
    """The list as saved in the editor; None (and Grid Engine's note) when the text came
    back unchanged or unreadable."""
    saved = edit_text(text)
    if saved == text:
        out(FILE_UNCHANGED)
        return None
    try:
        return [list(p) for p in parse_object_text(KIND, saved, "<editor>")]
    except FileError as exc:
        err("\n".join(exc.lines + [EDITED_UNREADABLE]))
        return None


USERSET_OPTIONS: dict[str, tuple[int, Callable[..., int]]] = {
    "-au": (2, add_users), "-du": (2, delete_users), "-dul": (1, delete_lists),
    "-su": (1, show_usersets), "-sul": (0, show_list_names),
    "-Au": (1, add_from_file), "-Mu": (1, modify_from_file), "-mu": (1, modify_in_editor),
}
