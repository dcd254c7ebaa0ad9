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

from clients.qconf.base import QconfError, named_object_options
from clients.qconf.files import ERROR_READING_IN_FILE, FileError, parse_object_text
from common.objects_conf.calendar import calendar_line_problem
from common.objects_conf.ckpt import name_refusal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

KIND = "ckpt"
NOT_KNOWN = "{} is not a checkpointing interface definition"
EMPTY = "no ckpt interface definition defined"
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


# option -> (number of arguments, handler)
CKPT_OPTIONS: dict[str, tuple[int, Callable[..., int]]] = named_object_options(
    KIND, "ckpt_name", {"list": "-sckptl", "show": "-sckpt", "add": "-ackpt",
                        "Add": "-Ackpt", "modify": "-mckpt", "Modify": "-Mckpt",
                        "delete": "-dckpt"}, NOT_KNOWN, EMPTY, _read, _parsed)
