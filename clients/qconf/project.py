"""``qconf`` options for projects (project(5)): ``-aprj -Aprj -mprj -Mprj -sprj -sprjl
-dprj``, as Grid Engine 8.1.9's qconf words and streams them
(tests/data/reference/projects/).

Every message goes to stderr. The qmaster confirms ``root@vm added "p1" to project list``
and words the refusals (names, access lists, references). Quirks kept from 8.1.9:
``-sprj`` and ``-mprj`` take one name (``p1,p2`` is a name that is not known); ``-aprj``
takes no name and starts from the template ``name template``; a missing file for
``-Mprj`` and a missing file argument read ``no file argument given``; a project the
editor returns unchanged is ``file unchanged`` with exit status 1; a failed ``-aprj`` or
``-mprj`` ends qconf at once.
"""
from __future__ import annotations


from clients.qconf.base import (
    QconfError, Session, edit, put, remove, show_object, show_sorted_names,
)
from clients.qconf.files import FileError, parse_object_text
from common.objects_conf import render_object, template
from common.objects_conf.project import project_line_problem

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

KIND = "project"
NOT_KNOWN = "{} is not known as a project"
NO_FILE = "no file argument given"
EMPTY = "no project list defined"
ERROR_READING_IN_FILE = "error reading in file"
CANT_READ = "cant read project"
FILE_UNCHANGED = "file unchanged"
INVALID_ARGUMENT = 'error: invalid option argument "{}"\nUsage: qconf -help'


def show_list(s: Session) -> int:
    """``-sprjl``: the names in byte order."""
    return show_sorted_names(s, KIND, EMPTY)


def show(s: Session, name: str) -> int:
    """``-sprj project``."""
    return show_object(s, KIND, name, NOT_KNOWN)


def _parsed(text: str, path: str, last_line: str) -> list[list[str]]:
    """The project in ``text``, or QconfError with 8.1.9's lines ending in ``last_line``."""
    problem = project_line_problem(text)
    if problem:
        raise QconfError("\n".join([f"error: {problem}", f'error: error reading file: "{path}"',
                                    last_line]))
    try:
        return [list(p) for p in parse_object_text(KIND, text, path)]
    except FileError as exc:
        raise QconfError("\n".join(exc.lines + [last_line])) from None


def _read(path: str | None, *, missing: str | None = None) -> list[list[str]]:
    if path is None:
        raise QconfError(NO_FILE)
    try:
        with open(path) as fh:
            text = fh.read()
    except OSError as exc:
        raise QconfError(missing or "\n".join([
            f'error: error opening file "{path}" for reading: {exc.strerror}',
            ERROR_READING_IN_FILE])) from None
    if not text.strip():  # the reader finds no attribute at all
        raise QconfError(f'error: error reading file: "{path}"\n{ERROR_READING_IN_FILE}')
    return _parsed(text, path, ERROR_READING_IN_FILE)


def _name(pairs: list[list[str]]) -> str:
    return dict((k, v) for k, v in pairs)["name"]


def add_from_file(s: Session, path: str | None = None) -> int:
    """``-Aprj fname``."""
    pairs = _read(path)
    return put(s, KIND, _name(pairs), pairs, "add")


def modify_from_file(s: Session, path: str | None = None) -> int:
    """``-Mprj fname``: only a project that exists (checked before any permission)."""
    pairs = _read(path, missing=NO_FILE)
    name = _name(pairs)
    if name not in s.objects(KIND):
        raise QconfError(NOT_KNOWN.format(name))
    return put(s, KIND, name, pairs, "modify")


def _require_manager(s: Session) -> None:
    user = s.client.user.name
    if user not in s.objects("manager"):
        raise QconfError(f'denied: "{user}" must be manager for this operation')


def _edited(text: str) -> list[list[str]]:
    saved, written = edit(text)
    if not written:
        raise QconfError(FILE_UNCHANGED)
    return _parsed(saved, "<editor>", CANT_READ)


def add_in_editor(s: Session) -> int:
    """``-aprj``: the template in the editor; managers only, asked before it opens."""
    _require_manager(s)
    pairs = _edited(render_object(KIND, template(KIND)))
    if put(s, KIND, _name(pairs), pairs, "add"):
        raise QconfError("", 1)  # 8.1.9 stops there; put() printed the refusal
    return 0


def modify_in_editor(s: Session, name: str) -> int:
    """``-mprj project``: the editor may rename it to another project, which is then
    the one changed (as in 8.1.9)."""
    _require_manager(s)
    objects = s.objects(KIND)
    if name not in objects:
        raise QconfError(NOT_KNOWN.format(name) + "\n" + INVALID_ARGUMENT.format(name))
    pairs = _edited(render_object(KIND, objects[name]))
    if put(s, KIND, _name(pairs), pairs, "modify"):
        raise QconfError("", 1)  # 8.1.9 stops there; put() printed the refusal
    return 0


def delete(s: Session, names: str) -> int:
    """``-dprj project[,project..]``: each in turn."""
    return max((remove(s, KIND, name) for name in names.split(",") if name), default=0)


# option -> (number of arguments, handler); -1: one optional argument
PROJECT_OPTIONS: dict[str, tuple[int, Callable[..., int]]] = {
    "-sprjl": (0, show_list), "-sprj": (1, show), "-aprj": (0, add_in_editor),
    "-Aprj": (-1, add_from_file), "-mprj": (1, modify_in_editor),
    "-Mprj": (-1, modify_from_file), "-dprj": (1, delete),
}
