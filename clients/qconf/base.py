"""What every ``qconf`` option shares: the session with the qmaster, the errors, the
object kinds and their messages, sending an object and reading one from a file or from
``$EDITOR``.

Streams follow Grid Engine 8.1.9: listings and objects go to stdout (:func:`out`),
confirmations and refusals to stderr (:func:`err`).
"""
from __future__ import annotations

import os
import sys

from clients.api import Client, ClientError
from clients.qconf.files import FileError, parse_object_text, read_object_file
from common.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

# store kind -> objects_conf kind
KINDS = {"queue": "queue", "hgrp": "hostgroup", "exechost": "exechost", "pe": "pe",
         "conf": "conf", "sconf": "sched", "userset": "userset"}
KEYS = {"queue": "qname", "hgrp": "group_name", "exechost": "hostname", "pe": "pe_name",
        "userset": "name"}
EMPTY_LIST = {"queue": "no cqueue list defined", "hgrp": "no host group list defined",
              "exechost": "no execution host defined", "pe": "no parallel environment defined",
              "manager": "no manager defined", "operator": "no operator defined",
              "userset": "no userset list defined",
              # 8.1.9 never shows the first: its administrative list holds the qmaster's host
              "adminhost": "no admin host defined", "submithost": "no submit host defined"}
MISSING = {"queue": "No cluster queue or queue instance matches the phrase \"{}\"",
           "hgrp": "Host group \"{}\" does not exist",
           "exechost": "{} is not an execution host",
           "pe": "{} is not a parallel environment",
           "userset": "denied: access list \"{}\" does not exist"}
UNRESOLVABLE = "can't resolve hostname \"{}\""
INVALID_OPTION = "error: invalid option argument \"{}\"\nUsage: qconf -help"
EXEC_HOST_ADDED = "added host {} to exec host list"  # -ae words it without user@host


class QconfError(Exception):
    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class Session(Record):
    client_factory: Callable[[], Client]
    _client: Client | None = None

    @property
    def client(self) -> Client:
        if self._client is None:
            self._client = self.client_factory()
        return self._client

    def objects(self, kind: str) -> dict[str, list[list[str]]]:
        return self.client.conf_get(kind)


def out(text: str) -> None:
    sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")


def err(text: str) -> None:
    sys.stderr.write(text.rstrip("\n") + "\n")


# ---- change --------------------------------------------------------------------------
def put(s: Session, kind: str, name: str, pairs: list[list[str]] | None, mode: str) -> int:
    """Send one object; the qmaster's confirmation or refusal goes to stderr."""
    try:
        reply = s.client.conf_put(kind, name, pairs, mode)
    except ClientError as exc:
        err(exc.message)
        return 1
    err(reply["message"])
    return 0


def remove(s: Session, kind: str, name: str) -> int:
    """Delete one object; the qmaster's confirmation or refusal goes to stderr."""
    try:
        reply = s.client.conf_del(kind, name)
    except ClientError as exc:
        err(exc.message)
        return 1
    err(reply["message"])
    return 0


def put_object(s: Session, kind: str, pairs: list[list[str]], mode: str) -> int:
    name = dict((k, v) for k, v in pairs)[KEYS[kind]]
    return put(s, kind, name, [list(p) for p in pairs], mode)


def from_file(kind: str, path: str, *, modify: bool = False) -> list[list[str]]:
    try:
        return [list(p) for p in read_object_file(KINDS[kind], path, modify=modify)]
    except FileError as exc:
        raise QconfError("\n".join(exc.lines)) from None


def from_editor(kind: str, text: str) -> list[list[str]]:
    path = "<editor>"
    try:
        return [list(p) for p in parse_object_text(KINDS[kind], edit_text(text), path)]
    except FileError as exc:
        raise QconfError("\n".join(exc.lines)) from None




def edit_text(text: str) -> str:
    """Let the user change ``text`` in ``$EDITOR`` (default vi), as qconf does."""
    return edit(text)[0]


def edit(text: str) -> tuple[str, bool]:
    """``text`` as saved in ``$EDITOR``, and whether the editor wrote the file: 8.1.9's
    qconf tells an unchanged file by its modification time, so saving the same text
    counts as a change."""
    import subprocess  # (the editing options only: these two load a dozen modules)
    import tempfile
    editor = os.environ.get("EDITOR") or "vi"
    with tempfile.NamedTemporaryFile("w", suffix=".qconf", delete=False) as fh:
        fh.write(text)
        path = fh.name
    try:
        before = os.stat(path).st_mtime_ns
        if subprocess.call(f"{editor} {path}", shell=True) != 0:
            raise QconfError("error: the editor exited with an error")
        try:
            with open(path) as fh:
                saved = fh.read()
            return saved, saved != text or os.stat(path).st_mtime_ns != before
        except FileNotFoundError:
            raise QconfError(f"error: edit file {path} no longer exists\nedit failed"
                             ) from None
    finally:
        if os.path.exists(path):
            os.unlink(path)


def show_sorted_names(s: Session, kind: str, empty: str) -> int:
    """``-sprjl``, ``-scall``: the names in byte order; ``empty`` when there are none."""
    names = s.objects(kind)
    if not names:
        raise QconfError(empty)
    out("\n".join(sorted(names)))
    return 0


def show_object(s: Session, kind: str, name: str, not_known: str) -> int:
    """``-sprj name``, ``-scal name``: one object (``not_known`` names the one missing)."""
    from common.objects_conf import render_object  # (the option's work only)
    objects = s.objects(kind)
    if name not in objects:
        raise QconfError(not_known.format(name))
    out(render_object(kind, objects[name]))
    return 0


FILE_UNCHANGED = "file unchanged"


def named_object_options(kind: str, name_attribute: str, options: dict[str, str],
                         not_known: str, empty: str,
                         read: "Callable[[str], list[list[str]]]",
                         parse: "Callable[[str, str], list[list[str]]]"
                         ) -> "dict[str, tuple[int, Callable[..., int]]]":
    """The seven options of a named object kind that qconf lists, shows, adds, modifies
    and deletes by name, from a file or in the editor (calendars, checkpointing
    environments): option -> (number of arguments, handler). ``options`` names them by
    role (list, show, add, Add, modify, Modify, delete); ``read(path)`` and
    ``parse(text, path)`` give an object's pairs or raise QconfError with the kind's
    own lines. As 8.1.9: modify changes the object the edited file names; a file the
    editor leaves alone is ``file unchanged`` (exit status 1)."""
    from common.conf_values import get
    from common.objects_conf import render_object, template

    def name_of(pairs: list[list[str]]) -> str:
        return get(pairs, name_attribute, "")

    def edited(text: str) -> list[list[str]]:
        saved, written = edit(text)
        if not written:
            raise QconfError(FILE_UNCHANGED)
        return parse(saved, "<editor>")

    def show_list(s: Session) -> int:
        return show_sorted_names(s, kind, empty)

    def show(s: Session, name: str) -> int:
        return show_object(s, kind, name, not_known)

    def add_from_file(s: Session, path: str) -> int:
        pairs = read(path)
        return put(s, kind, name_of(pairs), pairs, "add")

    def modify_from_file(s: Session, path: str) -> int:  # (the qmaster refuses a new one)
        pairs = read(path)
        return put(s, kind, name_of(pairs), pairs, "modify")

    def add_in_editor(s: Session, name: str) -> int:
        pairs = edited(render_object(kind, template(kind, name)))
        return put(s, kind, name_of(pairs), pairs, "add")

    def modify_in_editor(s: Session, name: str) -> int:
        objects = s.objects(kind)
        if name not in objects:
            raise QconfError(not_known.format(name))
        pairs = edited(render_object(kind, objects[name]))
        return put(s, kind, name_of(pairs), pairs, "modify")

    def delete(s: Session, name: str) -> int:
        return remove(s, kind, name)

    handlers = {"list": (0, show_list), "show": (1, show), "add": (1, add_in_editor),
                "Add": (1, add_from_file), "modify": (1, modify_in_editor),
                "Modify": (1, modify_from_file), "delete": (1, delete)}
    return {options[role]: handler for role, handler in handlers.items()}
