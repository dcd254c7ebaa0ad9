"""Object files given to ``qconf -A*``/``-M*`` (or saved from the editor): parsed and
checked, with the error lines Grid Engine 8.1.9 prints for them. Pure: text in, pairs or
``FileError`` out (reading the file is ``read_object_file``'s only side effect).

Grid Engine reports a file in layers, and each kind adds its own last line:

- the flatfile reader: ``error: unknown attribute name "x"`` or a value it cannot parse
  (``error: error parsing unsigned long value from string "abc"``), each followed by
  ``error: error reading file: "<path>"``; a missing attribute gives only
  ``error: required attribute "seq_no" is missing``;
- cluster queues add ``error: Error during parsing of attribute value "abc"`` after a
  value the reader could not parse (the queue's per-host value parser);
- checks of the whole object (``parameter allocation_rule of pe ...``) come without the
  ``error reading file`` line;
- parallel environments, checkpointing environments and the scheduler configuration end every error with
  ``error reading in file``; a value the object's own check refuses
  (``ValueCheckError``: the scheduler's ``params``, ``default_duration``) has no
  ``error reading file`` line; exec hosts with
  ``invalid format``, a changed host group with ``Host group file "<path>" is not correct``.

The complex attribute list (``qconf -Mc``/``-mc``) is one table, not name/value pairs:
a file Grid Engine cannot read ends with ``Complex attribute file "<path>" is not
correct``, an edited one with ``error reading in file``.
"""
from __future__ import annotations

from common.conffile import ConfError, Pairs, ValueCheckError, parse_conf
from common.objects_conf import check_value, kind_of, normalize_object
from common.resource.complexes import ComplexAttr, ComplexError, parse_complex_list

# Starts of the messages of the flatfile reader itself (as opposed to object checks).
_READER_ERRORS = ("unknown attribute name", "error parsing", "value for attribute",
                  "Error during parsing", "line ", "attribute \"", "parameter \"")
_READER_ERROR_ENDS = ("is not an u_long32 value",)
_MISSING = "required attribute"
COMPLEX_FILE_NOT_CORRECT = 'Complex attribute file "{}" is not correct'
ERROR_READING_IN_FILE = "error reading in file"


class FileError(Exception):
    """A file qconf refuses: the lines to print on stderr (exit status 1)."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines


def read_object_file(kind: str, path: str, *, modify: bool = False) -> Pairs:
    """The checked pairs of the file at ``path`` for objects_conf kind ``kind``."""
    try:
        with open(path) as fh:
            text = fh.read()
    except OSError as err:
        lines = [f'error: error opening file "{path}" for reading: {err.strerror}']
        raise FileError(lines + _trailer(kind, path, modify)) from None
    return parse_object_text(kind, text, path, modify=modify)


def parse_object_text(kind: str, text: str, path: str, *, modify: bool = False) -> Pairs:
    """The checked pairs of ``text``, or ``FileError`` with Grid Engine's lines."""
    obj = kind_of(kind)
    try:
        pairs = parse_conf(text, kind=obj.conf_kind(require_all=obj.name != "conf"))
    except ConfError as err:
        raise FileError(_reader_error(kind, err.message, path, None, modify)) from None
    try:
        return normalize_object(obj, pairs)
    except ConfError as err:
        raw = _failing_value(kind, pairs)
        reader = not isinstance(err, ValueCheckError) and (
            err.message.startswith(_READER_ERRORS) or err.message.endswith(_READER_ERROR_ENDS))
        own = [f"error: {err.message}"] if err.message else []
        lines = (_reader_error(kind, err.message, path, raw, modify) if reader
                 else own + _trailer(kind, path, modify))
        raise FileError(lines) from None


def _reader_error(kind: str, message: str, path: str, raw: str | None,
                  modify: bool) -> list[str]:
    lines = [f"error: {message}"]
    if message.startswith(_MISSING):
        return lines + _trailer(kind, path, modify)
    value_line = f'error: Error during parsing of attribute value "{raw}"'
    if kind == "queue" and raw is not None and lines[0] != value_line:
        lines.append(value_line)
    lines.append(f'error: error reading file: "{path}"')
    return lines + _trailer(kind, path, modify)


def _failing_value(kind: str, pairs: Pairs) -> str | None:
    """The file's text of the first value the kind's checks refuse."""
    for name, value in pairs:
        try:
            check_value(kind, name, value)
        except ConfError:
            return value
    return None


def _trailer(kind: str, path: str, modify: bool) -> list[str]:
    if kind in ("pe", "sched", "ckpt"):
        return ["error reading in file"]
    if kind == "exechost":
        return ["invalid format"]
    if kind == "hostgroup" and modify:
        return [f'Host group file "{path}" is not correct']
    return []


def read_complex_file(path: str) -> list[ComplexAttr]:
    """``qconf -Mc path``: the attributes of the file, or ``FileError``."""
    not_correct = COMPLEX_FILE_NOT_CORRECT.format(path)
    try:
        with open(path) as fh:
            text = fh.read()
    except OSError as err:
        raise FileError([f'error: error opening file "{path}" for reading: {err.strerror}',
                         not_correct]) from None
    try:
        attrs = parse_complex_list(text)
    except ComplexError as err:
        raise FileError([f"error: {err}", f'error: error reading file: "{path}"',
                         not_correct]) from None
    if not attrs:  # Grid Engine reads no list from a file without definitions
        raise FileError([not_correct])
    return attrs


def parse_edited_complexes(text: str) -> list[ComplexAttr]:
    """``qconf -mc``: the attributes the user saved from the editor, or ``FileError``."""
    try:
        attrs = parse_complex_list(text)
    except ComplexError as err:
        raise FileError([f"error: {err}", ERROR_READING_IN_FILE]) from None
    if not attrs:
        raise FileError([ERROR_READING_IN_FILE])
    return attrs
