"""``qconf`` options for user objects (user(5)): ``-auser -Auser -muser -Muser -suser
-suserl -duser``, as Grid Engine 8.1.9's qconf words and streams them (its
clients/qconf/parse_qconf.c).

Quirks kept from 8.1.9: the qmaster's confirmation of ``-auser``, ``-Auser``,
``-muser`` and ``-Muser`` (``root@vm added "u1" to user list``) goes to stdout, not
stderr; ``-suser`` takes a list, separates the users it shows by an empty line, and an
unknown one (``x is not known as a user``) leaves the exit status 0, as does ``-muser``
of an unknown user; the editor may not rename the user (``u1: cannot change u2``).
"""
from __future__ import annotations

import re

from clients.api import ClientError
from clients.qconf.base import (
    QconfError, Session, edit, err, out, remove, show_sorted_names,
)
from clients.qconf.files import ERROR_READING_IN_FILE, FileError, parse_object_text
from common.objects_conf import render_object, template

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

KIND = "user"
NOT_KNOWN = "{} is not known as a user"
NO_FILE = "no file argument given"
EMPTY = "no user list defined"
FILE_UNCHANGED = "file unchanged"
_NAMES = re.compile(r"[,\s]+")


def _names(text: str) -> list[str]:
    return [n for n in _NAMES.split(text) if n]


def show_list(s: Session) -> int:
    """``-suserl``: the names in byte order."""
    return show_sorted_names(s, KIND, EMPTY)


def show(s: Session, names: str) -> int:
    """``-suser user_list``: each user, an empty line between two."""
    users = s.objects(KIND)
    for index, name in enumerate(_names(names)):
        if index:
            out("\n")
        if name not in users:
            err(NOT_KNOWN.format(name))
            continue
        out(render_object(KIND, users[name]))
    return 0


def _parsed(text: str, path: str) -> list[list[str]]:
    try:
        return [list(p) for p in parse_object_text(KIND, text, path)]
    except FileError as exc:
        raise QconfError("\n".join(exc.lines + [ERROR_READING_IN_FILE])) from None


def _read(path: str | None) -> list[list[str]]:
    if path is None:
        raise QconfError(NO_FILE)
    try:
        with open(path) as fh:
            text = fh.read()
    except OSError as exc:
        raise QconfError("\n".join([
            f'error: error opening file "{path}" for reading: {exc.strerror}',
            ERROR_READING_IN_FILE])) from None
    return _parsed(text, path)


def _name(pairs: list[list[str]]) -> str:
    return dict((k, v) for k, v in pairs)["name"]


def _send(s: Session, name: str, pairs: list[list[str]], mode: str) -> int:
    """The qmaster's confirmation on stdout (8.1.9), its refusal on stderr."""
    try:
        reply = s.client.conf_put(KIND, name, pairs, mode)
    except ClientError as exc:
        err(exc.message)
        return 1
    out(reply["message"])
    return 0


def _require_manager(s: Session) -> None:
    user = s.client.user.name
    if user not in s.objects("manager"):
        raise QconfError(f'denied: "{user}" must be manager for this operation')


def _edited(text: str) -> list[list[str]]:
    saved, written = edit(text)
    if not written:
        raise QconfError(FILE_UNCHANGED)
    return _parsed(saved, "<editor>")


def add_in_editor(s: Session) -> int:
    """``-auser``: the template in the editor; managers only, asked before it opens."""
    _require_manager(s)
    pairs = _edited(render_object(KIND, template(KIND)))
    return _send(s, _name(pairs), pairs, "add")


def add_from_file(s: Session, path: str | None = None) -> int:
    """``-Auser fname``."""
    pairs = _read(path)
    return _send(s, _name(pairs), pairs, "add")


def modify_in_editor(s: Session, name: str) -> int:
    """``-muser user``: the user in the editor; its name stays."""
    _require_manager(s)
    users = s.objects(KIND)
    if name not in users:
        err(NOT_KNOWN.format(name))
        return 0
    pairs = _edited(render_object(KIND, users[name]))
    if _name(pairs) != name:
        raise QconfError(f"{name}: cannot change {_name(pairs)}")
    return _send(s, name, pairs, "modify")


def modify_from_file(s: Session, path: str | None = None) -> int:
    """``-Muser fname``: only a user that exists."""
    pairs = _read(path)
    name = _name(pairs)
    if name not in s.objects(KIND):
        raise QconfError(NOT_KNOWN.format(name))
    return _send(s, name, pairs, "modify")


def delete(s: Session, names: str) -> int:
    """``-duser user_list``: each in turn."""
    return max((remove(s, KIND, name) for name in _names(names)), default=0)


# option -> (number of arguments, handler); -1: one optional argument
USER_OPTIONS: dict[str, tuple[int, Callable[..., int]]] = {
    "-suserl": (0, show_list), "-suser": (1, show), "-auser": (0, add_in_editor),
    "-Auser": (-1, add_from_file), "-muser": (1, modify_in_editor),
    "-Muser": (-1, modify_from_file), "-duser": (1, delete),
}
