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

from clients.qconf.base import QconfError, named_object_options
from clients.qconf.files import FileError, parse_object_text
from common.objects_conf.calendar import calendar_line_problem

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

KIND = "calendar"
NOT_KNOWN = "{} is not a calendar"
EMPTY = "no calendar defined"
ERROR_READING_IN_FILE = "error reading in file"


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


# option -> (number of arguments, handler)
CALENDAR_OPTIONS: dict[str, tuple[int, Callable[..., int]]] = named_object_options(
    KIND, "calendar_name", {"list": "-scall", "show": "-scal", "add": "-acal",
                            "Add": "-Acal", "modify": "-mcal", "Modify": "-Mcal",
                            "delete": "-dcal"}, NOT_KNOWN, EMPTY, _read, _parsed)
