"""``qconf`` options for checkpointing environments (checkpoint(5)): ``-ackpt -Ackpt
-mckpt -Mckpt -sckpt -sckptl -dckpt``, as Grid Engine 8.1.9's qconf words and streams
them (tests/data/reference/ckpt/).

Every message goes to stderr. The qmaster confirms ``root@vm added "c1" to checkpoint
interface list`` and words the refusals (existence, ``when``, references). Quirks kept
from 8.1.9: ``-sckpt``, ``-mckpt`` and ``-dckpt`` take one name (``a,b`` is a name that
does not exist); ``-ackpt`` opens the editor before it learns that the object exists;
``-mckpt`` changes the object the edited file names; a file the editor leaves alone is
``file unchanged`` (exit status 1); a bad ``interface`` or ``signal`` is told twice.
"""
from __future__ import annotations

from clients.qconf.base import (
    QconfError, Session, edit, put, remove, show_object, show_sorted_names,
)
from clients.qconf.files import ERROR_READING_IN_FILE, FileError, parse_object_text
from common.conf_values import get
from common.objects_conf import render_object, template
from common.objects_conf.calendar import calendar_line_problem
from common.objects_conf.ckpt import name_refusal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

KIND = "ckpt"
NOT_KNOWN = "{} is not a checkpointing interface definition"
EMPTY = "no ckpt interface definition defined"
FILE_UNCHANGED = "file unchanged"
# checks 8.1.9 runs twice on a file (once reading it, once checking the object)
_TOLD_TWICE = ("error: no valid checkpoint interface ", "error: \"")


def _file_error(exc: FileError) -> QconfError:
    lines = list(exc.lines)
    if lines and lines[0].startswith(_TOLD_TWICE) and "error reading file" not in exc.lines[1]:
        lines.insert(0, lines[0])
    return QconfError("\n".join(lines))


def _parsed(text: str, path: str) -> list[list[str]]:
    # an attribute without a value is the reader's error, with a line number (as for
    # calendars, whose reader is the same)
    problem = calendar_line_problem(text)
    if problem:
        raise QconfError("\n".join([f"error: {problem}", f'error: error reading file: "{path}"',
                                    ERROR_READING_IN_FILE]))
    try:
        pairs = [list(p) for p in parse_object_text(KIND, text, path)]
    except FileError as exc:
        raise _file_error(exc) from None
    problem = name_refusal(pairs)  # (8.1.9 refuses the name as it reads the file)
    if problem:
        raise QconfError(f"error: {problem}\n{ERROR_READING_IN_FILE}")
    return pairs


def _read(path: str) -> list[list[str]]:
    try:
        with open(path) as fh:
            text = fh.read()
    except OSError as exc:
        raise QconfError("\n".join([
            f'error: error opening file "{path}" for reading: {exc.strerror}',
            ERROR_READING_IN_FILE])) from None
    return _parsed(text, path)


def _edited(text: str) -> list[list[str]]:
    saved, written = edit(text)
    if not written:
        raise QconfError(FILE_UNCHANGED)
    return _parsed(saved, "<editor>")


def _name(pairs: list[list[str]]) -> str:
    return get(pairs, "ckpt_name", "")


def show_list(s: Session) -> int:
    """``-sckptl``: the names in byte order."""
    return show_sorted_names(s, KIND, EMPTY)


def show(s: Session, name: str) -> int:
    """``-sckpt ckpt_name``."""
    return show_object(s, KIND, name, NOT_KNOWN)


def add_from_file(s: Session, path: str) -> int:
    """``-Ackpt fname``."""
    pairs = _read(path)
    return put(s, KIND, _name(pairs), pairs, "add")


def modify_from_file(s: Session, path: str) -> int:
    """``-Mckpt fname``: the qmaster refuses one that does not exist."""
    pairs = _read(path)
    return put(s, KIND, _name(pairs), pairs, "modify")


def add_in_editor(s: Session, name: str) -> int:
    """``-ackpt ckpt_name``: the template with the name, in the editor."""
    pairs = _edited(render_object(KIND, template(KIND, name)))
    return put(s, KIND, _name(pairs), pairs, "add")


def modify_in_editor(s: Session, name: str) -> int:
    """``-mckpt ckpt_name``: the object the edited file names is the one changed."""
    objects = s.objects(KIND)
    if name not in objects:
        raise QconfError(NOT_KNOWN.format(name))
    pairs = _edited(render_object(KIND, objects[name]))
    return put(s, KIND, _name(pairs), pairs, "modify")


def delete(s: Session, name: str) -> int:
    """``-dckpt ckpt_name``."""
    return remove(s, KIND, name)


# option -> (number of arguments, handler)
CKPT_OPTIONS: dict[str, tuple[int, Callable[..., int]]] = {
    "-sckptl": (0, show_list), "-sckpt": (1, show), "-ackpt": (1, add_in_editor),
    "-Ackpt": (1, add_from_file), "-mckpt": (1, modify_in_editor),
    "-Mckpt": (1, modify_from_file), "-dckpt": (1, delete),
}
