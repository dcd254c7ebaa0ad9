"""Grid Engine accounting file (accounting(5) of SGE 8.1.9): record type, line format, file I/O.

This module owns the on-disk format of ``$PYGE_ROOT/$PYGE_CELL/common/accounting``: one
colon-separated line of 45 fields per finished job or array task, exactly as the 8.1.9
qmaster writes it (``sge_write_rusage``), preceded by Grid Engine's header comment when the
file is created. ``AccountingRecord``, ``to_line`` and ``parse_line`` are pure;
``append_records`` and ``read_records`` are the only functions that touch the disk.

Format rules taken from 8.1.9:

- integers are written in decimal, doubles with C's ``%f`` (six decimals);
- ``project``, ``department``, ``granted_pe``, ``category`` and ``pe_taskid`` are written as
  ``NONE`` when empty;
- ``priority`` is written as an unsigned 64-bit number (a negative value wraps);
- nothing is escaped. Only ``category`` can legitimately contain a colon (a resource
  request such as ``-l h_rt=1:00:00``), so a line with more than 45 fields is read by
  giving the surplus to ``category``; any other field containing a colon is refused.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Iterable

FIELD_COUNT = 45
# Lines of older writers end after pe_taskid; qacct 8.1.9 needs the fields up to there.
MIN_FIELD_COUNT = 42
CATEGORY_INDEX = 39
NONE_STR = "NONE"
VERSION = "8.1.9"
# sge_spoolmsg_write(): "%c Version: %s\n" then "%c %s\n" for "", the warning, "".
HEADER = f"# Version: {VERSION}\n# \n# DO NOT MODIFY THIS FILE MANUALLY!\n# \n"

_U64 = 1 << 64


class AccountingFormatError(ValueError):
    """A record cannot be written as, or a line cannot be read as, an accounting line."""


@dataclass
class AccountingRecord:
    """One accounting(5) line; fields in file order, names as in accounting(5)."""

    qname: str
    hostname: str
    group: str
    owner: str
    job_name: str
    job_number: int
    account: str = "sge"
    priority: int = 0
    submission_time: int = 0
    start_time: int = 0
    end_time: int = 0
    failed: int = 0
    exit_status: int = 0
    ru_wallclock: int = 0
    ru_utime: float = 0.0
    ru_stime: float = 0.0
    ru_maxrss: float = 0.0
    ru_ixrss: int = 0
    ru_ismrss: int = 0
    ru_idrss: int = 0
    ru_isrss: int = 0
    ru_minflt: int = 0
    ru_majflt: int = 0
    ru_nswap: int = 0
    ru_inblock: float = 0.0
    ru_oublock: int = 0
    ru_msgsnd: int = 0
    ru_msgrcv: int = 0
    ru_nsignals: int = 0
    ru_nvcsw: int = 0
    ru_nivcsw: int = 0
    project: str = NONE_STR
    department: str = NONE_STR
    granted_pe: str = NONE_STR
    slots: int = 1
    task_number: int = 0
    cpu: float = 0.0
    mem: float = 0.0
    io: float = 0.0
    category: str = NONE_STR
    iow: float = 0.0
    pe_taskid: str = NONE_STR
    maxvmem: float = 0.0
    arid: int = 0
    ar_submission_time: int = 0

    @property
    def is_array_task(self) -> bool:
        """8.1.9 writes task number 0 for a job that is not an array job."""
        return self.task_number != 0

    def to_line(self) -> str:
        """The record as 8.1.9 writes it, without the trailing newline."""
        return to_line(self)


# (name, type) in file order; the annotations are strings because of the __future__ import.
_FIELDS: tuple[tuple[str, str], ...] = tuple((f.name, str(f.type)) for f in fields(AccountingRecord))
_NONE_FIELDS = frozenset({"project", "department", "granted_pe", "category", "pe_taskid"})
assert len(_FIELDS) == FIELD_COUNT


def _render_str(name: str, value: str) -> str:
    if "\n" in value or "\r" in value:
        raise AccountingFormatError(f"{name} contains a line break: {value!r}")
    if ":" in value and name != "category":
        raise AccountingFormatError(f"{name} contains a colon: {value!r}")
    if name in _NONE_FIELDS and value == "":
        return NONE_STR
    return value


def _render(name: str, kind: str, value: object) -> str:
    if kind == "str":
        return _render_str(name, str(value))
    if kind == "float":
        return f"{float(value):f}"  # type: ignore[arg-type]
    if name == "priority":
        return str(int(value) % _U64)  # type: ignore[call-overload]
    return str(int(value))  # type: ignore[call-overload]


def to_line(record: AccountingRecord) -> str:
    """Format ``record`` as one accounting line (no newline); raises AccountingFormatError."""
    if record.qname.startswith("#"):
        # qacct would take the whole line for a comment.
        raise AccountingFormatError(f"qname must not start with '#': {record.qname!r}")
    return ":".join(_render(name, kind, getattr(record, name)) for name, kind in _FIELDS)


def is_skipped_line(line: str) -> bool:
    """True for lines qacct ignores: comments, and lines of one character or less."""
    text = line.rstrip("\n")
    return len(text) <= 1 or text.startswith("#")


def _parse_int(name: str, text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        # Some writers print counters as doubles ("4828.000000"); qacct's atol truncates.
        try:
            value = int(float(text))
        except (ValueError, OverflowError):
            raise AccountingFormatError(f"{name}: not a number: {text!r}") from None
    if name == "priority" and value >= _U64 // 2:
        value -= _U64  # undo the unsigned 64-bit wrap of to_line()
    return value


def _parse_float(name: str, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise AccountingFormatError(f"{name}: not a number: {text!r}") from None


def _parse_value(name: str, kind: str, text: str) -> object:
    if kind == "str":
        return text
    if kind == "float":
        return _parse_float(name, text)
    return _parse_int(name, text)


def split_fields(text: str) -> list[str]:
    """The 45 field texts of a line; surplus colons belong to the category field."""
    parts = text.split(":")
    surplus = len(parts) - FIELD_COUNT
    if surplus > 0:
        end = CATEGORY_INDEX + surplus + 1
        parts = parts[:CATEGORY_INDEX] + [":".join(parts[CATEGORY_INDEX:end])] + parts[end:]
    if len(parts) < MIN_FIELD_COUNT:
        raise AccountingFormatError(
            f"accounting line has {len(parts)} fields, at least {MIN_FIELD_COUNT} expected")
    # maxvmem, arid and ar_submission_time are missing from lines of older writers.
    return parts + ["0"] * (FIELD_COUNT - len(parts))


def parse_line(line: str) -> AccountingRecord | None:
    """Parse one line of the accounting file; None for a comment or an (almost) empty line.

    Raises AccountingFormatError for a line that is not an accounting record.
    """
    if is_skipped_line(line):
        return None
    parts = split_fields(line.rstrip("\n"))
    values = {name: _parse_value(name, kind, text) for (name, kind), text in zip(_FIELDS, parts)}
    return AccountingRecord(**values)  # type: ignore[arg-type]


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _open_for_append(path: Path) -> tuple[int, bool]:
    """(fd, created): open ``path`` for appending, creating it if it does not exist."""
    flags = os.O_WRONLY | os.O_APPEND
    try:
        return os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o644), True
    except FileExistsError:
        return os.open(path, flags), False


def append_records(path: str | os.PathLike[str], records: Iterable[AccountingRecord]) -> int:
    """Append ``records`` to the accounting file at ``path`` and fsync it.

    A new file starts with Grid Engine's header comment, as 8.1.9 writes it. All records are
    formatted before the file is touched, so a record that cannot be written
    (AccountingFormatError) leaves the file unchanged. Nothing is written, and no file is
    created, for an empty iterable. Returns the number of records written.
    """
    fd, count = _append(path, records)
    if fd is not None:
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    return count


def append_unsynced(path: str | os.PathLike[str],
                    records: Iterable[AccountingRecord]) -> int | None:
    """``append_records`` without the fsync: the open descriptor of the file written
    (the caller fsyncs it when it must be durable, and closes it), None when there was
    nothing to write. Through the descriptor the fsync reaches the file these records
    went to, even when it has been renamed (rotated) since."""
    return _append(path, records)[0]


def _append(path: str | os.PathLike[str], records: Iterable[AccountingRecord]
            ) -> tuple[int | None, int]:
    """(the open descriptor or None, the number of records written)."""
    lines = [to_line(record) + "\n" for record in records]
    if not lines:
        return None, 0
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, created = _open_for_append(target)
    try:
        # One write call: concurrent appenders (O_APPEND) never interleave within it.
        _write_all(fd, ((HEADER if created else "") + "".join(lines)).encode())
        if created:
            _fsync_dir(target.parent)
    except BaseException:
        os.close(fd)
        raise
    return fd, len(lines)


def end_last_line(path: str | os.PathLike[str]) -> bool:
    """Make the file end with a newline, so that what is appended next starts a line of
    its own: a power cut can leave a partly written last record (or zeros) behind, which
    would otherwise swallow the next one. True when a newline was added."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND)
    except FileNotFoundError:
        return False
    try:
        size = os.fstat(fd).st_size
        if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
            return False
        _write_all(fd, b"\n")
        os.fsync(fd)
        return True
    finally:
        os.close(fd)


def read_records(path: str | os.PathLike[str]) -> list[AccountingRecord]:
    """Every record of the accounting file at ``path``; raises AccountingFormatError on a bad line."""
    with open(path, encoding="utf-8", errors="replace", newline="\n") as stream:
        parsed = (parse_line(line) for line in stream)
        return [record for record in parsed if record is not None]
