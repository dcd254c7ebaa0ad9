"""qsub's option values and option table: one switch's argument text in, a
typed value (or a ParseError with Grid Engine's text and status) out.

Mirrors the value checks of Grid Engine 8.1.9's cull_parse_cmdline; the table
OPTION_SPECS says, per switch, which parser reads its argument, what to say
when the argument is missing and whether repeating the switch warns. Pure.
"""
from __future__ import annotations

from common.jobspec import date_fields as _date_fields

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Mapping

    from clients.joblist import TaskRange

# clients.joblist (task range lists) is imported by the parsers of -t and -pe, when they
# run: the rest of qsub does without it (issue 12)

# ``re`` is imported by the parsers that use it, when they do: it loads enum and
# functools, 4 ms of a qsub start that uses none of -c, -p, -js, -ar or -tc.

STATUS_ESEMANTIC, STATUS_EUNKNOWN, STATUS_ENOIMP = 2, 4, 5
STATUS_ESYNTAX, STATUS_EDISK = 7, 14


class ParseError(Exception):
    """A Grid Engine answer text, before its source adds the prefix."""

    def __init__(self, text: str, status: int) -> None:
        super().__init__(text)
        self.text, self.status = text, status


def _yes_no(switch: str, arg: str) -> bool:
    value = {"y": True, "yes": True, "n": False, "no": False}.get(arg.lower())
    if value is None:
        raise ParseError(f'invalid option argument "{switch} {arg}"', STATUS_ESYNTAX)
    return value


def _seconds(text: str) -> int | None:
    """Grid Engine time value `[[h:]m:]s` as seconds."""
    import re
    if not re.fullmatch(r"\d*(:\d*){0,2}", text) or not text.strip(":"):
        return None
    total = 0
    for part in text.split(":"):
        total = total * 60 + int(part or 0)
    return total


def _split(arg: str, seps: str = ",") -> list[str]:
    """The non-empty items of `arg` between any of the characters `seps`.
    String methods, not a regex: compiling one costs qsub's start-up more
    than the whole split."""
    for sep in seps[1:]:
        arg = arg.replace(sep, seps[0])
    return [item for item in arg.split(seps[0]) if item]


def _host_path(item: str) -> tuple[str | None, str]:
    if item.startswith(":"):
        return None, item[1:]
    host, colon, path = item.partition(":")
    return (host, path) if colon else (None, item)


def _path_list(message: str) -> Callable[[str, str], list[tuple[str | None, str]]]:
    def parse(switch: str, arg: str) -> list[tuple[str | None, str]]:
        items = _split(arg)
        if not items:
            raise ParseError(message.format(arg=arg), STATUS_ESYNTAX)
        return [_host_path(item) for item in items]
    return parse


def _queues(switch: str, arg: str) -> list[str]:
    items = _split(arg)
    if not items:
        raise ParseError(f'Wrong queue list format "{arg}" specified to {switch} option',
                         STATUS_ESYNTAX)
    return items


def _hold_list(switch: str, arg: str) -> list[str]:
    items = _split(arg)
    if not items:
        kind = "jid_hold_ad" if switch == "-hold_jid_ad" else "jid_hold"
        raise ParseError(f'Wrong {kind} list format "{arg}" specified to {switch} option',
                         STATUS_ESYNTAX)
    return items


def _resources(switch: str, arg: str) -> dict[str, str]:
    result: dict[str, str] = {}
    for item in _split(arg, ", "):
        name, eq, value = item.partition("=")
        if not name:
            raise ParseError(f'Wrong resource list format "{arg}" specified to -l option',
                             STATUS_ESYNTAX)
        result.pop(name, None)  # a repeated name: the later wins and goes last
        result[name] = value if eq else "TRUE"
    return result


def _mail_options(switch: str, arg: str) -> str:
    if not arg or set(arg) - set("abens"):
        raise ParseError(f'Wrong mail options list format "{arg}" specified to -m option',
                         STATUS_ESYNTAX)
    return arg


def _mail_list(switch: str, arg: str) -> list[tuple[str | None, str]]:
    items = _split(arg)
    if not items:
        raise ParseError(f'Wrong mail list format "{arg}" specified to -M option',
                         STATUS_ESYNTAX)
    result: list[tuple[str | None, str]] = []
    for item in items:
        user, _, host = item.partition("@")
        if (host or None, user) not in result:
            result.append((host or None, user))
    return result


def _job_name(switch: str, arg: str) -> str:
    if "/" in arg:
        raise ParseError("argument to -N option must not contain / ", STATUS_ESEMANTIC)
    if not arg:
        raise ParseError("empty string argument to -N option invalid", STATUS_ESEMANTIC)
    return arg


def _priority(switch: str, arg: str) -> int:
    import re
    if not re.fullmatch(r"\s*[+-]?\d+", arg) or not -1023 <= int(arg) <= 1024:
        raise ParseError(f'invalid priority "{arg}".  Must be an integer from -1023 to 1024',
                         STATUS_ESYNTAX)
    return int(arg)


def _uint(message: str, status: int = STATUS_ESEMANTIC) -> Callable[[str, str], int]:
    def parse(switch: str, arg: str) -> int:
        import re
        if not re.fullmatch(r"\s*\+?\d+", arg):
            raise ParseError(message.format(arg=arg), status)
        return int(arg)
    return parse


def _date(switch: str, arg: str) -> str:
    if _date_fields(arg) is None:
        raise ParseError(f'Wrong date/time format "{arg}" specified to {switch} option',
                         STATUS_ESYNTAX)
    return arg


def _task_range(switch: str, arg: str) -> TaskRange:
    ranges = parse_ranges(arg, step_allowed=True, inf_allowed=False)
    if not ranges:
        # Grid Engine silently stops parsing here; refusing is safer
        raise ParseError("-t option must have a list of task id ranges", STATUS_ESEMANTIC)
    if len(set(ranges)) > 1:
        raise ParseError("-t option only allows one range specification", STATUS_ESYNTAX)
    return ranges[0]


def parse_ranges(arg: str, step_allowed: bool, inf_allowed: bool) -> list[TaskRange]:
    """parse_range_list, its refusal as a ParseError (for -t and -pe)."""
    from clients.joblist import RangeError, parse_range_list
    try:
        return parse_range_list(arg, step_allowed=step_allowed, inf_allowed=inf_allowed)
    except RangeError as err:
        raise ParseError(err.message, err.status) from None


def _variables(message: str, environ_default: bool) -> Callable[..., list[tuple[str, str | None]]]:
    def parse(switch: str, arg: str, environ: Mapping[str, str]) -> list[tuple[str, str | None]]:
        items = _split(arg)
        if not items or any(i.startswith("=") for i in items):
            raise ParseError(message.format(arg=arg), STATUS_ESYNTAX)
        pairs = [i.partition("=") for i in items]
        return [(n, v if eq else (environ.get(n) if environ_default else None))
                for n, eq, v in pairs]
    return parse


def _verify_level(switch: str, arg: str) -> str:
    if arg not in ("e", "w", "n", "v", "p"):
        raise ParseError(f'invalid option argument "-w {arg}"', STATUS_ESYNTAX)
    return arg


def _checkpoint(switch: str, arg: str) -> tuple[str, Any]:
    if arg[:1].isdigit():
        seconds = _seconds(arg)
        if not seconds:
            raise ParseError("-c argument invalid", STATUS_ESEMANTIC)
        return "interval", seconds
    if not arg or set(arg) - set("nsmxr"):
        raise ParseError("-c specifier invalid", STATUS_ESEMANTIC)
    return "occasion", arg


def _text(switch: str, arg: str) -> str:
    return arg


def _unsupported(switch: str, arg: str = "") -> None:
    raise ParseError(f'Unsupported: "{switch}" is not supported in this version',
                     STATUS_ENOIMP)


_MISSING = "{switch} option must have argument"
# switch -> (value parser or None for a flag, missing-argument text, warn on repeat)
OPTION_SPECS: dict[str, tuple[Callable[..., Any] | None, str, bool]] = {
    "-a": (_date, _MISSING, True), "-A": (_text, _MISSING, True),
    "-ac": (_variables('Wrong context list format -ac "{arg}"', False),
            "-ac option must have a context_list list argument", False),
    "-dc": (_variables('Wrong context list format -dc "{arg}"', False),
            "-dc option must have a simple_context_list list argument", False),
    "-sc": (_variables('Wrong context list format -sc "{arg}"', False),
            "-sc option must have context list argument", False),
    "-ar": (_uint("invalid advance reservation id, must be an unsigned integer"), _MISSING, False),
    "-b": (_yes_no, _MISSING, True), "-binding": (_unsupported, _MISSING, False),
    "-c": (_checkpoint, _MISSING, False), "-ckpt": (_text, _MISSING, False),
    "-C": (_text, _MISSING, True), "-dl": (_date, _MISSING, False),
    "-e": (_path_list('Wrong path list format "{arg}" specified to -e option'), _MISSING, False),
    "-i": (_path_list('Wrong path list format "{arg}" specified to -e option'), _MISSING, False),
    "-o": (_path_list('Wrong stdout path list format "{arg}" specified to -o option'),
           _MISSING, False),
    "-S": (_path_list('Wrong shell list format "{arg}" specified to -S option'),
           "-S option must have path_name argument", False),
    "-hold_jid": (_hold_list, _MISSING, False),
    "-hold_jid_ad": (_hold_list, _MISSING, False),
    "-j": (_yes_no, _MISSING, True),
    "-js": (_uint("invalid jobshare, must be an unsigned integer"), _MISSING, False),
    "-jsv": (_text, _MISSING, False), "-l": (_resources, _MISSING, False),
    "-m": (_mail_options, _MISSING, False), "-M": (_mail_list, _MISSING, False),
    "-masterq": (_queues, "{switch} option must have queue list argument", False),
    "-q": (_queues, "{switch} option must have queue list argument", False),
    "-N": (_job_name, _MISSING, True), "-now": (_yes_no, _MISSING, True),
    "-p": (_priority, _MISSING, False), "-P": (_text, _MISSING, True),
    "-pty": (_yes_no, _MISSING, False), "-r": (_yes_no, _MISSING, True),
    "-R": (_yes_no, _MISSING, True), "-shell": (_yes_no, _MISSING, True),
    "-sync": (_yes_no, _MISSING, True),
    "-t": (_task_range, "-t option must have a list of task id ranges", False),
    "-tc": (_uint('invalid task concurrency number "{arg}". Must be an integer greater '
                  "or equal to 0.", STATUS_ESYNTAX), _MISSING, False),
    "-u": (_unsupported, "-u option must have a list usernames", False),
    "-v": (_variables('Wrong variable list format -v "{arg}" or environment variable '
                      "not set", True), "-v option must have variable list argument", False),
    "-w": (_verify_level, _MISSING, True), "-wd": (_text, _MISSING, False),
    # accepted by Grid Engine's parser, but refused later as "Unknown option"
    "-d": (_text, _MISSING, True), "-display": (_text, "-display option must have argument", False),
    "-he": (_yes_no, _MISSING, True),
    "-ot": (_uint("invalid override tickets, must be an unsigned integer"), _MISSING, False),
    "-cell": (_text, _MISSING, False),
}
# switches without an argument
FLAG_OPTIONS = {"-clear", "-cwd", "-h", "-hard", "-soft", "-help", "-notify", "-terse", "-verify",
                "-V", "-verbose", "-inherit", "-nostdin", "-noshell", "-explain", "-xml", "-uall"}
WARN_ON_REPEAT_FLAGS = {"-h"}
# parsed like Grid Engine does, then refused as "Unknown option" when folded
UNKNOWN_LATER = {"-d", "-display", "-he", "-ot", "-cell", "-verbose", "-inherit",
                 "-nostdin", "-noshell", "-explain", "-xml", "-uall", "", "-", "--"}
