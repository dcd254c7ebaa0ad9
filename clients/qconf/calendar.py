"""``qconf`` options for calendars (calendar_conf(5)): ``-acal -Acal -mcal -Mcal -scal
-scall -dcal``, as Grid Engine 8.1.9's qconf words and streams them
(tests/data/reference/load/, section 7, and tests/data/reference/calendar/).

Every message goes to stderr. The qmaster confirms ``root@vm added "cal1" to calendar
list`` and words the refusals (the name, ``year``, ``week``, existence, references).
Quirks kept from 8.1.9: ``-scal``, ``-mcal`` and ``-dcal`` take one name (``a,b`` is a
name that does not exist); ``-acal`` opens the editor before it learns that the
calendar exists; a file the editor leaves alone is ``file unchanged`` (exit status 1);
a file that cannot be opened, or an attribute without a value, ends with ``error
reading in file``.
"""
from __future__ import annotations


from clients.qconf.base import (
    QconfError, Session, edit, put, remove, show_object, show_sorted_names,
)
from clients.qconf.files import FileError, parse_object_text
from common.conf_values import get
from common.objects_conf import render_object, template
from common.objects_conf.calendar import calendar_line_problem

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

KIND = "calendar"
NOT_KNOWN = "{} is not a calendar"
EMPTY = "no calendar defined"
ERROR_READING_IN_FILE = "error reading in file"
FILE_UNCHANGED = "file unchanged"


def show_list(s: Session) -> int:
    """``-scall``: the names in byte order."""
    return show_sorted_names(s, KIND, EMPTY)


def show(s: Session, name: str) -> int:
    """``-scal calendar``."""
    return show_object(s, KIND, name, NOT_KNOWN)


def _parsed(text: str, path: str) -> list[list[str]]:
    """The calendar in ``text``, or QconfError with 8.1.9's lines."""
    problem = calendar_line_problem(text)
    if problem:
        raise QconfError("\n".join([f"error: {problem}", f'error: error reading file: "{path}"',
                                    ERROR_READING_IN_FILE]))
    try:
        return [list(p) for p in parse_object_text(KIND, text, path)]
    except FileError as exc:
        raise QconfError("\n".join(exc.lines + [ERROR_READING_IN_FILE])) from None


def _read(path: str) -> list[list[str]]:
    try:
        with open(path) as fh:
            text = fh.read()
    except OSError as exc:
        raise QconfError("\n".join([
            f'error: error opening file "{path}" for reading: {exc.strerror}',
            ERROR_READING_IN_FILE])) from None
    if not text.strip():  # the reader finds no attribute at all
        raise QconfError(f'error: error reading file: "{path}"\n{ERROR_READING_IN_FILE}')
    return _parsed(text, path)


def _name(pairs: list[list[str]]) -> str:
    return get(pairs, "calendar_name", "")


def add_from_file(s: Session, path: str) -> int:
    """``-Acal fname``."""
    pairs = _read(path)
    return put(s, KIND, _name(pairs), pairs, "add")


def modify_from_file(s: Session, path: str) -> int:
    """``-Mcal fname``: the qmaster refuses a calendar that does not exist."""
    pairs = _read(path)
    return put(s, KIND, _name(pairs), pairs, "modify")


def _edited(text: str) -> list[list[str]]:
    saved, written = edit(text)
    if not written:
        raise QconfError(FILE_UNCHANGED)
    return _parsed(saved, "<editor>")


def add_in_editor(s: Session, name: str) -> int:
    """``-acal calendar``: the template with the name, in the editor."""
    pairs = _edited(render_object(KIND, template(KIND, name)))
    return put(s, KIND, _name(pairs), pairs, "add")


def modify_in_editor(s: Session, name: str) -> int:
    """``-mcal calendar``: the editor may rename it to another calendar, which is then
    the one changed."""
    objects = s.objects(KIND)
    if name not in objects:
        raise QconfError(NOT_KNOWN.format(name))
    pairs = _edited(render_object(KIND, objects[name]))
    return put(s, KIND, _name(pairs), pairs, "modify")


def delete(s: Session, name: str) -> int:
    """``-dcal calendar``."""
    return remove(s, KIND, name)


# option -> (number of arguments, handler)
CALENDAR_OPTIONS: dict[str, tuple[int, Callable[..., int]]] = {
    "-scall": (0, show_list), "-scal": (1, show), "-acal": (1, add_in_editor),
    "-Acal": (1, add_from_file), "-mcal": (1, modify_in_editor),
    "-Mcal": (1, modify_from_file), "-dcal": (1, delete),
}
