"""qacct: report Grid Engine usage from the cell's accounting file, as qacct(1) of SGE 8.1.9.

This module owns qacct's option parsing, record selection and exit codes, with 8.1.9's
wording. It reads the accounting file directly (no qmaster) through ``common.accounting``.
The per-job blocks of ``-j`` and the usage summary table are ``clients.render_qacct``
(job_block, format_memory, group_usage and summary are re-exported here).

Not supported: ``-l`` (it needs the qmaster's complexes and queues; qacct says so and exits
1) and queue-domain patterns in ``-q`` (``queue@@hostgroup``, which need the qmaster's host
groups; such a pattern is matched literally and so selects nothing).
"""
from __future__ import annotations

import fnmatch
import grp
import re
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, NoReturn, TextIO

from clients.render_qacct import (COLUMNS, NUMERIC_COLUMNS, format_memory, group_usage, job_block,
                                  summary)
from common.accounting import AccountingFormatError, AccountingRecord, is_skipped_line, parse_line
from common.cell import CellNotFound, cell_from_env

__all__ = ["NO_JOBS", "USAGE", "Handler", "Options", "format_memory", "group_usage", "job_block",
           "main", "parse_args", "parse_date_time", "run", "scan", "selected", "summary"]

_OPTION_HELP = (
    ("-ar [ar_id]", "list [matching] advance reservations"),
    ("-A [account_string]", "list [matching] account"),
    ("-b begin_time", "jobs started after"),
    ("-d days", "jobs started during the last d days"),
    ("-D [department]", "list [matching] department"),
    ("-e end_time", "jobs started before"),
    ("-E", "select job end time, not start"),
    ("[-f] acctfile", "use alternate accounting file"),
    ("-g [groupid|groupname]", "list [matching] group"),
    ("-h [host]", "list [matching] host"),
    ("-help", "display this message"),
    ("-j [job_id|job_name|pattern]", "list all [matching] jobs"),
    ("-l attr=val,...", "request given complex attributes"),
    ("-m", "list only master tasks"),
    ("-o [owner]", "list [matching] owner"),
    ("-u [owner]", "list [matching] owner"),
    ("-pe [pe_name]", "list [matching] parallel environment"),
    ("-P [project]", "list [matching] project"),
    ("-q [queue]", "list [matching] queue"),
    ("-slots [slots]", "list [matching] job slots"),
    ("-t taskid[-taskid[:step]]", "list all [matching] tasks (requires -j option)"),
)
USAGE = ("SGE 8.1.9\nusage: qacct [options]\n"
         + "".join(f" {'[' + opt + ']':<34}{text}\n" for opt, text in _OPTION_HELP)
         + "\n begin_time, end_time              [[CC]YYMMDDhhmm[.SS]\n"
         + " queue                             [cluster_queue|queue_instance|queue_domain|pattern]\n")

_LEADING_UINT = re.compile(r"\s*\+?(\d+)")
NO_JOBS = "no jobs running since startup"


class _Exit(Exception):
    """Ends qacct with an exit code, as SGE_EXIT does."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


# ---------------------------------------------------------------- options

@dataclass
class Options:
    """qacct's command line: "-X value" selects (chosen), "-X" alone lists (listed)."""

    chosen: dict[str, object] = field(default_factory=dict)
    listed: set[str] = field(default_factory=set)
    queue_patterns: list[str] = field(default_factory=list)
    all_jobs: bool = False
    job_number: int = 0
    job_name: str | None = None
    tasks: tuple[int, int, int] | None = None
    begin: int | None = None
    end: int | None = None
    days: int | None = None
    select_end_time: bool = False
    master_only: bool = False
    acct_file: str | None = None
    now: float = 0.0  # the time -d and year-less dates count from

    @property
    def job_given(self) -> bool:
        return bool(self.job_number) or self.job_name is not None


def _usage(stream: TextIO) -> NoReturn:
    stream.write(USAGE)
    raise _Exit(0 if stream is sys.stdout else 1)


def _error(message: str) -> None:
    sys.stderr.write(f"error: {message}\n")


def _leading_uint(text: str) -> int | None:
    """What sscanf("%u") reads from the start of ``text``, or None."""
    match = _LEADING_UINT.match(text)
    return int(match.group(1)) if match else None


def _optional(argv: list[str], i: int) -> str | None:
    """The value of an option whose value is optional; none when the next word starts with '-'."""
    return argv[i + 1] if i + 1 < len(argv) and not argv[i + 1].startswith("-") else None


def _required(argv: list[str], i: int) -> str:
    if i + 1 >= len(argv):
        _usage(sys.stderr)
    return argv[i + 1]


def _group_name(text: str) -> str:
    gid = _leading_uint(text)
    try:
        return text if gid is None else grp.getgrgid(gid).gr_name
    except (KeyError, OverflowError):
        return text


def parse_date_time(text: str, now: float) -> int:
    """ulong_parse_date_time_from_string(): [[CC]YY]MMDDhhmm[.SS] in local time."""
    if not text:
        raise ValueError("no date specified")
    digits, _, seconds = text.partition(".")
    if len(seconds) not in (0, 2):
        raise ValueError("Invalid format of seconds field.")
    if len(digits) not in (8, 10, 12):
        raise ValueError("Invalid format of date/hour-minute field.")
    year = time.localtime(now).tm_year
    if len(digits) > 8:
        year = _atoi(digits[:-8]) + (0 if len(digits) == 12 else 2000 if _atoi(digits[:2]) < 70 else 1900)
    month, day, hour, minute = (_atoi(digits[-8 + 2 * n:][:2]) for n in range(4))
    for bad, message in ((not 1 <= month <= 12, "month"), (not 1 <= day <= 31, "day"),
                         (hour > 23, "hour"), (minute > 59, "minute"), (_atoi(seconds) > 59, "seconds")):
        if bad:
            raise ValueError(f"Invalid {message} specification.")
    try:
        stamp = time.mktime((year, month, day, hour, minute, _atoi(seconds), 0, 0, -1))
    except (OverflowError, ValueError):
        stamp = -1
    if stamp < 0:
        raise ValueError("Couldn't generate date from input. Perhaps a date before 1970 was specified.")
    return int(stamp)


def _atoi(text: str) -> int:
    match = re.match(r"\d+", text)
    return int(match.group()) if match else 0


def _parse_tasks(text: str) -> tuple[int, int, int]:
    match = re.fullmatch(r"(\d+)(?:-(\d+)(?::(\d+))?)?", text.split(",")[0])
    if not match or int(match.group(1)) < 1 or int(match.group(2) or match.group(1)) < int(match.group(1)):
        raise ValueError(text)
    low = int(match.group(1))
    return low, int(match.group(2) or low), int(match.group(3) or 1) or 1


Handler = Callable[[Options, list[str], int], int]


def _value_or_list(key: str, convert: Callable[[str], object] = str) -> Handler:
    def handler(opts: Options, argv: list[str], i: int) -> int:
        value = _optional(argv, i)
        if value is None:
            opts.listed.add(key)
            return i
        opts.chosen[key] = convert(value)
        return i + 1
    return handler


def _opt_job(opts: Options, argv: list[str], i: int) -> int:
    value = _optional(argv, i)
    if value is None:
        opts.all_jobs = True
        return i
    number = _leading_uint(value)
    opts.job_number, opts.job_name = (0, value) if number is None else (number, None)
    return i + 1


def _opt_queue(opts: Options, argv: list[str], i: int) -> int:
    opts.listed.add("queue")
    value = _optional(argv, i)
    if value is None:
        return i
    opts.listed.add("host")  # 8.1.9 sets its host flag too, so the table shows HOST
    opts.queue_patterns.append(value + "@*" if "@" not in value else value + "*" if value.endswith("@") else value)
    return i + 1


def _opt_tasks(opts: Options, argv: list[str], i: int) -> int:
    if i + 1 >= len(argv) or argv[i + 1].startswith("-"):
        sys.stderr.write("-t option must have a list of task id ranges\n")
        _usage(sys.stderr)
    try:
        opts.tasks = _parse_tasks(argv[i + 1])
    except ValueError:
        sys.stderr.write(f"invalid list of task id ranges: {argv[i + 1]}\n")
        _usage(sys.stderr)
    return i + 1


def _opt_date(name: str) -> Handler:
    def handler(opts: Options, argv: list[str], i: int) -> int:
        try:
            setattr(opts, name, parse_date_time(_required(argv, i), opts.now))
        except ValueError as exc:
            sys.stderr.write(f"\n{exc}\n")
            _usage(sys.stderr)
        return i + 1
    return handler


def _opt_days(opts: Options, argv: list[str], i: int) -> int:
    opts.days = _leading_uint(_required(argv, i))
    if opts.days is None:
        _usage(sys.stderr)
    return i + 1


def _opt_ar(opts: Options, argv: list[str], i: int) -> int:
    value = _optional(argv, i)
    if value is not None and _leading_uint(value) is None:
        sys.stderr.write("invalid advance reservation id, must be an unsigned integer\n")
        _usage(sys.stderr)
    return _value_or_list("ar", lambda s: _leading_uint(s) or 0)(opts, argv, i)


def _opt_file(opts: Options, argv: list[str], i: int) -> int:
    opts.acct_file = _required(argv, i)
    return i + 1


def _opt_complexes(opts: Options, argv: list[str], i: int) -> int:
    _required(argv, i)
    _error("qacct -l is not supported by pygridengine")
    raise _Exit(1)


def _opt_switch(name: str) -> Handler:
    def handler(opts: Options, argv: list[str], i: int) -> int:
        setattr(opts, name, True)
        return i
    return handler


def _opt_help(opts: Options, argv: list[str], i: int) -> int:
    _usage(sys.stdout)


_HANDLERS: dict[str, Handler] = {
    "-o": _value_or_list("owner"), "-u": _value_or_list("owner"),
    "-g": _value_or_list("group", _group_name), "-h": _value_or_list("host"),
    "-P": _value_or_list("project"), "-D": _value_or_list("department"),
    "-pe": _value_or_list("pe"), "-slots": _value_or_list("slots", lambda s: _leading_uint(s) or 0),
    "-A": _value_or_list("account"), "-ar": _opt_ar, "-q": _opt_queue, "-j": _opt_job,
    "-t": _opt_tasks, "-b": _opt_date("begin"), "-e": _opt_date("end"), "-d": _opt_days,
    "-f": _opt_file, "-l": _opt_complexes, "-E": _opt_switch("select_end_time"),
    "-m": _opt_switch("master_only"), "-help": _opt_help,
}


def parse_args(argv: list[str], now: float) -> Options:
    """Options from qacct's arguments; a bad one prints the usage and raises _Exit(1)."""
    opts = Options(now=now)
    i = 0
    while i < len(argv):
        handler = _HANDLERS.get(argv[i])
        if handler is None:
            _usage(sys.stderr)
        i = handler(opts, argv, i) + 1
    for key in NUMERIC_COLUMNS:  # "-slots 0" and "-ar 0" select nothing, as in 8.1.9
        if not opts.chosen.get(key, 1):
            del opts.chosen[key]
    if opts.days is not None:  # -d counts from -b, back from -e, or back from now
        span = opts.days * 24 * 3600
        if opts.end is None and opts.begin is not None:
            opts.end = opts.begin + span
        elif opts.begin is None:
            opts.begin = (int(opts.now) if opts.end is None else opts.end) - span
    return opts


# ---------------------------------------------------------------- selection and main

def selected(opts: Options, rec: AccountingRecord) -> bool:
    """Whether ``rec`` passes every selection of ``opts`` (sge_read_rusage's checks)."""
    for key, _, attr in COLUMNS:
        want = opts.chosen.get(key)
        have = getattr(rec, attr)
        if want is None:
            continue
        if (str(want).lower() != str(have).lower()) if key == "host" else want != have:
            return False
    instance = f"{rec.qname}@{rec.hostname}"
    if opts.queue_patterns and not any(fnmatch.fnmatchcase(instance, p) for p in opts.queue_patterns):
        return False
    if opts.job_given and not opts.all_jobs and rec.job_number != opts.job_number and not (
            opts.job_name is not None and fnmatch.fnmatchcase(rec.job_name, opts.job_name)):
        return False
    if opts.tasks and not opts.all_jobs:
        low, high, step = opts.tasks
        if not (low <= rec.task_number <= high and (rec.task_number - low) % step == 0):
            return False
    moment = rec.end_time if opts.select_end_time else rec.start_time
    if (opts.begin is not None and moment < opts.begin) or (opts.end is not None and moment > opts.end):
        return False
    return not (opts.master_only and rec.pe_taskid != "NONE")


def _open_lines(opts: Options) -> TextIO:
    """The accounting file; when it is missing, 8.1.9's messages and _Exit(1)."""
    if opts.acct_file == "-":
        return sys.stdin
    path = opts.acct_file
    if path is None:
        try:
            path = str(cell_from_env().accounting_path)
        except CellNotFound:
            _error("Please set the environment variable PYGE_ROOT.")
            raise _Exit(1) from None
    try:
        return open(path, encoding="utf-8", errors="replace", newline="\n")
    except OSError as exc:
        sys.stderr.write(f"{path}: {exc.strerror}\n")  # perror(acct_file)
        sys.stdout.write(f"{NO_JOBS}\n")
        raise _Exit(1) from None


def scan(opts: Options, lines: Iterable[str]) -> list[AccountingRecord]:
    """The selected records; prints -j blocks and invalid-entry errors while reading."""
    chosen: list[AccountingRecord] = []
    number = 0
    for line in lines:
        if is_skipped_line(line):
            continue
        number += 1  # 8.1.9 counts the records it reads, not the lines of the file
        try:
            rec = parse_line(line)
        except AccountingFormatError:
            _error(f"ignoring invalid entry in line {number}")
            continue
        if rec is not None and selected(opts, rec):
            if opts.all_jobs or opts.job_given:
                sys.stdout.write(job_block(rec))
            chosen.append(rec)
    return chosen


def _not_found(opts: Options) -> str:
    what = str(opts.job_number) if opts.job_number else opts.job_name
    if opts.tasks is None:
        return f"job id {what} not found" if opts.job_number else f"job name {what} not found"
    low, high, step = opts.tasks
    shown = what if opts.job_number else f'"{what}"'
    return f"Job-array tasks {shown}.{low}-{high}:{step} not found"


def run(argv: list[str], now: float) -> int:
    """qacct with ``argv`` at time ``now``; returns the exit code."""
    opts = parse_args(argv, now)
    stream = _open_lines(opts)
    try:
        records = scan(opts, stream)
    finally:
        if stream is not sys.stdin:
            stream.close()
    if opts.job_given:
        if not records:
            _error(_not_found(opts))
        return 0 if records else 1
    if opts.tasks is not None:
        _error("-t option requires -j option with an argument")
        _usage(sys.stderr)
    sys.stdout.write(summary(opts.chosen, opts.listed, records))
    return 0


def main(argv: list[str] | None = None) -> int:
    """qacct entry point: ``argv`` without the program name; returns the exit code."""
    try:
        return run(sys.argv[1:] if argv is None else argv, time.time())
    except _Exit as done:
        return done.code
    finally:
        sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
