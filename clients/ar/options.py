"""The command lines of qrsub, qrstat and qrdel: argv in, a typed request (or a
``UsageError`` with 8.1.9's text, stream and exit status) out. Pure: the caller gives
the time (``now``) for ``-a``/``-e``.

Texts are 8.1.9's (tests/data/reference/ar/): ``qrsub: -d option must have argument``,
``qrsub: Wrong time format "abc" specified to -d option``, ``qrsub: invalid option
argument "-w w"``, ``error: -ar option must have argument`` (qrstat), and without any
argument the usage on stderr with ``ERROR! no option argument``.
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime
    from typing import Any, Sequence

# What a command loads at start-up is kept small (issue 12): no dataclasses, typing or
# datetime here; the value parsers of qsub (clients.qsub.values, common.jobspec) are
# imported by the options that need them, when they are given.


class UsageError(Exception):
    """``text`` for ``stream`` ("out"/"err"), exit ``status``; ``usage``: print the
    usage first (on stderr)."""

    def __init__(self, text: str, status: int = 1, *, stream: str = "err",
                 usage: bool = False) -> None:
        super().__init__(text)
        self.text, self.status, self.stream, self.usage = text, status, stream, usage


NO_ARGS = "ERROR! no option argument"


class ArRequest:
    """What qrsub asks (the ``ar`` body of wire message ``ar_submit``)."""

    __slots__ = ("body", "verify", "help")

    def __init__(self) -> None:
        self.body: dict[str, Any] = {}
        self.verify = False
        self.help = False


def _date(prog: str, switch: str, arg: str, now: datetime | None) -> float:
    from common.jobspec import date_fields, date_time_to_epoch
    if now is None:
        from datetime import datetime
        now = datetime.now().astimezone()
    if date_fields(arg) is None:
        raise UsageError(f"\nInvalid format of date/hour-minute field.\n{prog}: Wrong "
                         f'date/time format "{arg}" specified to {switch} option')
    try:
        return float(date_time_to_epoch(arg, now))
    except (ValueError, OverflowError):
        raise UsageError(f"\nInvalid format of date/hour-minute field.\n{prog}: Wrong "
                         f'date/time format "{arg}" specified to {switch} option') from None


def _yes_no(prog: str, switch: str, arg: str) -> bool:
    value = {"y": True, "yes": True, "n": False, "no": False}.get(arg.lower())
    if value is None:
        raise UsageError(f'{prog}: invalid option argument "{switch} {arg}"')
    return value


def parse_qrsub(argv: Sequence[str], now: datetime | None = None) -> ArRequest:
    """qrsub's options (qrsub(1)): -a -A -d -e -he -l -m -M -N -now -pe -q -u -w.
    ``now`` (for -a/-e without a year; None: the local time when one is given)."""
    prog = "qrsub"
    if not argv:
        raise UsageError(NO_ARGS, usage=True)
    req = ArRequest()
    body = req.body
    i = 0
    while i < len(argv):
        switch = argv[i]
        if switch == "-help":
            req.help = True
            return req
        if switch == "-pe":
            if i + 1 >= len(argv):
                raise UsageError(f"{prog}: -pe option must have pe_name argument")
            if i + 2 >= len(argv):
                raise UsageError(f"{prog}: -pe option must have range as 2nd argument")
            body["pe"], body["pe_ranges"] = _pe(prog, argv[i + 1], argv[i + 2])
            i += 3
            continue
        if switch == "-explain":  # (its -help lists it; 8.1.9's qrsub refuses it so)
            raise UsageError('error: invalid option argument "-explain"')
        if switch == "-masterq":  # (an AR's master queue: nothing here reserves one)
            raise UsageError(f'{prog}: Unsupported: "-masterq" is not supported in this '
                             "version")
        if switch not in _TAKES_ARG:
            raise UsageError(f'{prog}: invalid option argument "{switch}"')
        if i + 1 >= len(argv):
            raise UsageError(f"{prog}: {switch} option must have argument")
        _apply(prog, req, switch, argv[i + 1], now)
        i += 2
    return req


_TAKES_ARG = frozenset({"-a", "-A", "-d", "-e", "-he", "-l", "-m", "-M", "-N", "-now", "-q",
                        "-u", "-w"})


def _apply(prog: str, req: ArRequest, switch: str, arg: str, now: datetime | None) -> None:
    from clients.qsub.values import ParseError, _mail_list, _queues, _resources, _seconds
    body = req.body
    try:
        if switch in ("-a", "-e"):
            body["start" if switch == "-a" else "end"] = _date(prog, switch, arg, now)
        elif switch == "-d":
            seconds = _seconds(arg)
            if seconds is None:
                raise UsageError(f'{prog}: Wrong time format "{arg}" specified to -d option')
            body["duration"] = float(seconds)
        elif switch == "-A":
            body["account"] = arg
        elif switch == "-N":
            if not arg or "/" in arg:
                raise UsageError(f"{prog}: argument to -N option must not contain / "
                                 if arg else
                                 f"{prog}: empty string argument to -N option invalid")
            body["name"] = arg
        elif switch == "-he":
            body["error_handling"] = _yes_no(prog, switch, arg)
        elif switch == "-now":
            body["interactive"] = _yes_no(prog, switch, arg)
        elif switch == "-l":
            body.setdefault("hard_resources", {}).update(_resources(switch, arg))
        elif switch == "-m":
            if not arg or set(arg) - set("eban"):
                raise UsageError(f'{prog}: Wrong mail options list format "{arg}" '
                                 "specified to -m option")
            body["mail_options"] = "" if "n" in arg else \
                "".join(c for c in "abe" if c in arg)
        elif switch == "-M":
            body["mail_list"] = [f"{u}@{h}" if h else u for h, u in _mail_list(switch, arg)]
        elif switch == "-q":
            body.setdefault("hard_queues", []).extend(_queues(switch, arg))
        elif switch == "-u":
            users = [u for u in arg.split(",") if u]
            if not users:
                raise UsageError(f"{prog}: -u option must have argument")
            body["acl"] = list(dict.fromkeys(body.get("acl", []) + users))
        elif switch == "-w":
            if arg not in ("e", "v"):
                raise UsageError(f'{prog}: invalid option argument "-w {arg}"')
            req.verify = arg == "v"
    except ParseError as err:
        raise UsageError(f"{prog}: {err.text}") from None


def _pe(prog: str, name: str, text: str) -> tuple[list[Any], list[list[int]]]:
    from clients.qsub.values import ParseError, parse_ranges
    try:
        ranges = parse_ranges(text, step_allowed=False, inf_allowed=True)
    except ParseError as err:
        raise UsageError(f"{prog}: {err.text}") from None
    if not ranges:
        raise UsageError(f"{prog}: -pe option must have range as 2nd argument")
    pairs = [[int(r[0]), int(r[1])] for r in ranges]
    return [name, min(p[0] for p in pairs), max(p[1] for p in pairs)], pairs


class Listing:
    """What qrstat asks: the ARs named (``ar_ids``) or the owners' (``owners``)."""

    __slots__ = ("ar_ids", "owners", "xml", "explain", "help")

    def __init__(self) -> None:
        self.ar_ids: list[int] | None = None
        self.owners: list[str] | None = None
        self.xml = self.explain = self.help = False


def parse_qrstat(argv: Sequence[str]) -> Listing:
    out = Listing()
    i = 0
    while i < len(argv):
        switch = argv[i]
        if switch == "-help":
            out.help = True
            return out
        if switch in ("-xml", "-explain"):
            setattr(out, switch[1:], True)
            i += 1
            continue
        if switch in ("-he", "-terse"):  # listed by 8.1.9's -help, refused by its qrstat
            raise UsageError("error: too many options", usage=True)
        if switch not in ("-ar", "-u"):
            raise UsageError(f'error: invalid option argument "{switch}"')
        if i + 1 >= len(argv):
            raise UsageError(f"error: {switch} option must have argument")
        arg = argv[i + 1]
        if switch == "-ar":
            out.ar_ids = (out.ar_ids or []) + _ids(arg)
        else:
            out.owners = (out.owners or []) + [u for u in arg.split(",") if u]
        i += 2
    return out


def _ids(text: str) -> list[int]:
    ids = []
    for item in text.split(","):
        if not item.isdigit() or not 0 < int(item) < 1 << 31:
            raise UsageError("error: ERROR! invalid id, must be an unsigned integer")
        ids.append(int(item))
    return ids


class Deletion:
    """What qrdel asks: ids (or names that are no id: answered as unknown), users."""

    __slots__ = ("ar_ids", "not_ids", "owners", "force", "help")

    def __init__(self) -> None:
        self.ar_ids: list[int] = []
        self.not_ids: list[str] = []
        self.owners: list[str] = []
        self.force = self.help = False


def parse_qrdel(argv: Sequence[str]) -> Deletion:
    out = Deletion()
    if not argv:
        raise UsageError(NO_ARGS, usage=True)
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "-help":
            out.help = True
            return out
        if arg == "-f":
            out.force = True
        elif arg == "-he":  # listed by 8.1.9's -help, refused by its qrdel
            raise UsageError('error: invalid option argument "-he"', usage=True)
        elif arg == "-u":
            if i + 1 >= len(argv):
                raise UsageError(NO_ARGS, usage=True)
            out.owners += [u for u in argv[i + 1].split(",") if u]
            i += 1
        else:
            for item in (x for x in arg.split(",") if x):
                if item.isdigit() and 0 < int(item) < 1 << 31:
                    out.ar_ids.append(int(item))
                else:
                    out.not_ids.append(item)
        i += 1
    if not (out.ar_ids or out.not_ids or out.owners):
        raise UsageError(NO_ARGS, usage=True)
    return out
