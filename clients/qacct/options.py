"""qacct's command line, as qacct(1) of SGE 8.1.9 reads it: the usage text, the option
table and :func:`parse_args` (into :class:`Options`), with 8.1.9's wording and exit codes.
"""
from __future__ import annotations

import grp
import sys
import time

from common.record import Record, field
from clients.render.qacct import NUMERIC_COLUMNS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, NoReturn, TextIO

# ``re`` is imported by the parsers of option values that need it, when they run (its
# import costs a command's start-up about 4 ms)

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
         + " queue                             [cluster_queue|queue_instance|queue_domain|pattern]\n"
         # ours, after 8.1.9's lines
         + f"\n {'[-fmt plain|json]':<34}output format (json: not in 8.1.9)\n")

_LEADING_UINT = r"\s*\+?(\d+)"
NO_JOBS = "no jobs running since startup"


class QacctExit(Exception):
    """Ends qacct with an exit code, as SGE_EXIT does."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


# ---------------------------------------------------------------- options

class Options(Record):
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
    resource_request: str | None = None  # -l: records of the instances offering it now
    instances: frozenset[str] | None = None  # (-l's answer, clients.qacct.main)
    now: float = 0.0  # the time -d and year-less dates count from
    json: bool = False  # -fmt json

    @property
    def job_given(self) -> bool:
        return bool(self.job_number) or self.job_name is not None


def usage(stream: TextIO) -> NoReturn:
    stream.write(USAGE)
    raise QacctExit(0 if stream is sys.stdout else 1)


def error(message: str) -> None:
    sys.stderr.write(f"error: {message}\n")


def _leading_uint(text: str) -> int | None:
    """What sscanf("%u") reads from the start of ``text``, or None."""
    import re
    match = re.match(_LEADING_UINT, text)
    return int(match.group(1)) if match else None


def _optional(argv: list[str], i: int) -> str | None:
    """The value of an option whose value is optional; none when the next word starts with '-'."""
    return argv[i + 1] if i + 1 < len(argv) and not argv[i + 1].startswith("-") else None


def _required(argv: list[str], i: int) -> str:
    if i + 1 >= len(argv):
        usage(sys.stderr)
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
    import re
    match = re.match(r"\d+", text)
    return int(match.group()) if match else 0


def _parse_tasks(text: str) -> tuple[int, int, int]:
    import re
    match = re.fullmatch(r"(\d+)(?:-(\d+)(?::(\d+))?)?", text.split(",")[0])
    if not match or int(match.group(1)) < 1 or int(match.group(2) or match.group(1)) < int(match.group(1)):
        raise ValueError(text)
    low = int(match.group(1))
    return low, int(match.group(2) or low), int(match.group(3) or 1) or 1


if TYPE_CHECKING:
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
        usage(sys.stderr)
    try:
        opts.tasks = _parse_tasks(argv[i + 1])
    except ValueError:
        sys.stderr.write(f"invalid list of task id ranges: {argv[i + 1]}\n")
        usage(sys.stderr)
    return i + 1


def _opt_date(name: str) -> Handler:
    def handler(opts: Options, argv: list[str], i: int) -> int:
        try:
            setattr(opts, name, parse_date_time(_required(argv, i), opts.now))
        except ValueError as exc:
            sys.stderr.write(f"\n{exc}\n")
            usage(sys.stderr)
        return i + 1
    return handler


def _opt_days(opts: Options, argv: list[str], i: int) -> int:
    opts.days = _leading_uint(_required(argv, i))
    if opts.days is None:
        usage(sys.stderr)
    return i + 1


def _opt_ar(opts: Options, argv: list[str], i: int) -> int:
    value = _optional(argv, i)
    if value is not None and _leading_uint(value) is None:
        sys.stderr.write("invalid advance reservation id, must be an unsigned integer\n")
        usage(sys.stderr)
    return _value_or_list("ar", lambda s: _leading_uint(s) or 0)(opts, argv, i)


def _opt_file(opts: Options, argv: list[str], i: int) -> int:
    opts.acct_file = _required(argv, i)
    return i + 1


def _opt_complexes(opts: Options, argv: list[str], i: int) -> int:
    opts.resource_request = _required(argv, i)
    return i + 1


def _opt_switch(name: str) -> Handler:
    def handler(opts: Options, argv: list[str], i: int) -> int:
        setattr(opts, name, True)
        return i
    return handler


def _opt_help(opts: Options, argv: list[str], i: int) -> int:
    usage(sys.stdout)


def _opt_format(opts: Options, argv: list[str], i: int) -> int:
    from clients.render.jsondoc import FormatError, check_format
    try:
        opts.json = check_format(_required(argv, i), xml=False)
    except FormatError as exc:
        error(str(exc))
        usage(sys.stderr)
    return i + 1


_HANDLERS: dict[str, Handler] = {
    "-o": _value_or_list("owner"), "-u": _value_or_list("owner"),
    "-g": _value_or_list("group", _group_name), "-h": _value_or_list("host"),
    "-P": _value_or_list("project"), "-D": _value_or_list("department"),
    "-pe": _value_or_list("pe"), "-slots": _value_or_list("slots", lambda s: _leading_uint(s) or 0),
    "-A": _value_or_list("account"), "-ar": _opt_ar, "-q": _opt_queue, "-j": _opt_job,
    "-t": _opt_tasks, "-b": _opt_date("begin"), "-e": _opt_date("end"), "-d": _opt_days,
    "-f": _opt_file, "-l": _opt_complexes, "-E": _opt_switch("select_end_time"),
    "-m": _opt_switch("master_only"), "-help": _opt_help, "-fmt": _opt_format,
}


def parse_args(argv: list[str], now: float) -> Options:
    """Options from qacct's arguments; a bad one prints the usage and raises QacctExit(1)."""
    opts = Options(now=now)
    i = 0
    while i < len(argv):
        handler = _HANDLERS.get(argv[i])
        if handler is None:
            usage(sys.stderr)
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
