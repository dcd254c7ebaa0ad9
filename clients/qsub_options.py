"""qsub's option layer: argv, default request files, `-@` files and `#$`
script directives in, one typed SubmitOptions (or a QsubError) out.

Mirrors Grid Engine 8.1.9 (cull_parse_cmdline, parse_script_file,
opt_list_merge_command_lines, cull_parse_job_parameter): options are
collected per source, merged as defaults < script directives < command line
(`-@ file` counts where it appears), `-clear` drops everything before it, and
the merged list is folded into the job (scalars: last wins; -o/-e/-S/-M/-v
merge by key; -l/-q append, a later source's -q replaces earlier ones; -m
accumulates). Messages are Grid Engine's texts; QsubError carries the full
line(s) to print on stderr and the exit status. Pure apart from `read_file`,
which the caller may inject (the default reads from disk).
"""
from __future__ import annotations

import os
import re
import sys
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, Callable, Iterable, Mapping, Sequence

from clients.joblist import (RangeError, TaskRange,
                             format_task_range, parse_range_list)

STATUS_ESEMANTIC, STATUS_EUNKNOWN, STATUS_ENOIMP = 2, 4, 5
STATUS_ESYNTAX, STATUS_EDISK = 7, 14
DEFAULT_PREFIX = "#$"
CMDLINE = ("qsub: ", "qsub: warning: ")
SCRIPT = ("Unable to read script file because of error: ", "warning: ")
DEFAULTS = ("", "warning: ")
_SCRIPT, _ARG = "<script>", "<arg>"  # pseudo switches of Grid Engine
_MAX_INCLUDE_DEPTH = 32


class QsubError(Exception):
    """What qsub prints on stderr before exiting with `exit_code`."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code


class _ParseError(Exception):
    """A Grid Engine answer text, before its source adds the prefix."""

    def __init__(self, text: str, status: int) -> None:
        super().__init__(text)
        self.text, self.status = text, status


@dataclass
class SubmitOptions:
    """Everything one qsub invocation asks for, typed."""

    job_name: str = ""
    script_path: str | None = None      # None: script read from stdin
    script_args: list[str] = field(default_factory=list)
    script_text: str | None = None      # the script sent along (None with -b y)
    binary: bool = False
    use_shell: bool = True              # -shell n -> False
    directive_prefix: str | None = DEFAULT_PREFIX
    stdout_paths: list[str] = field(default_factory=list)   # [host:]path
    stderr_paths: list[str] = field(default_factory=list)
    stdin_paths: list[str] = field(default_factory=list)
    merge_output: bool = False
    cwd: str | None = None              # -cwd / -wd
    shell: list[str] = field(default_factory=list)          # -S [host:]path
    env: dict[str, str | None] = field(default_factory=dict)
    export_all_env: bool = False
    terse: bool = False
    hold: bool = False
    array: TaskRange | None = None
    sync: bool = False
    hold_jid: list[str] = field(default_factory=list)
    hold_jid_ad: list[str] = field(default_factory=list)
    hard_queues: list[str] = field(default_factory=list)
    soft_queues: list[str] = field(default_factory=list)
    master_queues: list[str] = field(default_factory=list)
    priority: int = 0
    rerun: bool | None = None           # None: the queue's rerun setting
    notify: bool = False
    hard_resources: dict[str, str] = field(default_factory=dict)
    soft_resources: dict[str, str] = field(default_factory=dict)
    pe: tuple[str, int, int] | None = None   # (name, min, max); open max 9999999
    pe_ranges: list[tuple[int, int]] = field(default_factory=list)
    project: str | None = None
    account: str | None = None
    mail_list: list[str] = field(default_factory=list)      # user[@host]
    mail_options: str = ""              # subset of "abes" in that order
    now: bool = False
    verify_mode: str = "n"              # -w e|w|n|v|p
    verify: bool = False                # -verify
    start_time: str | None = None       # -a [[CC]YY]MMDDhhmm[.SS]
    deadline: str | None = None         # -dl, same form
    checkpoint_name: str | None = None
    checkpoint_occasion: str | None = None   # letters of n s m x r
    checkpoint_interval: int | None = None   # seconds
    job_share: int = 0
    reserve: bool = False
    task_concurrency: int = 0
    context: dict[str, str | None] = field(default_factory=dict)
    ar_id: int | None = None
    pty: bool | None = None
    submit_cwd: str = ""                # sge_o_workdir
    submit_home: str = ""               # sge_o_home
    help: bool = False
    warnings: list[str] = field(default_factory=list)  # lines for stdout

    def to_dict(self) -> dict[str, Any]:
        """Plain types only (tuples become lists), ready for msgpack."""
        return {k: list(v) if isinstance(v, tuple) else v
                for k, v in asdict(self).items()}

    def job_opts(self) -> dict[str, Any]:
        """to_dict() without what stays in the client (script text, warnings,
        -help): the `opts` a job record carries."""
        data = self.to_dict()
        for client_only in ("script_text", "warnings", "help"):
            del data[client_only]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SubmitOptions:
        opts = cls(**data)
        opts.array = tuple(opts.array) if opts.array else None  # type: ignore[assignment]
        opts.pe = tuple(opts.pe) if opts.pe else None  # type: ignore[assignment]
        opts.pe_ranges = [tuple(r) for r in opts.pe_ranges]  # type: ignore[misc]
        return opts


@dataclass
class _Opt:
    switch: str
    value: Any = True
    soft: bool = False


@dataclass
class _Ctx:
    environ: Mapping[str, str]
    cwd: str
    read_file: Callable[[str], str]
    warnings: list[str]
    warn_prefix: str = ""
    depth: int = 0


# ---------------------------------------------------------------- value parsers
def _yes_no(switch: str, arg: str) -> bool:
    value = {"y": True, "yes": True, "n": False, "no": False}.get(arg.lower())
    if value is None:
        raise _ParseError(f'invalid option argument "{switch} {arg}"', STATUS_ESYNTAX)
    return value


_DATE = re.compile(r"(\d{2})?(\d{2})?(\d{2})(\d{2})(\d{2})(\d{2})(?:\.(\d{2}))?")


def _date_fields(spec: str) -> tuple[int | None, int | None, int, int, int, int, int] | None:
    match = _DATE.fullmatch(spec)
    if not match:
        return None
    cc, yy, mo, dd, hh, mi, ss = (int(g) if g else None for g in match.groups())
    if cc is not None and yy is None:
        cc, yy = None, cc
    ok = 1 <= mo <= 12 and 1 <= dd <= 31 and hh < 24 and mi < 60 and (ss or 0) < 60
    return (cc, yy, mo, dd, hh, mi, ss or 0) if ok else None  # type: ignore[return-value]


def date_time_to_epoch(spec: str, now: datetime) -> int:
    """Seconds since the epoch of a validated `-a`/`-dl` value; missing
    century/year come from `now`, whose tzinfo is used."""
    fields = _date_fields(spec)
    if fields is None:
        raise ValueError(spec)
    cc, yy, mo, dd, hh, mi, ss = fields
    year = now.year if yy is None else (now.year // 100 if cc is None else cc) * 100 + yy
    return int(datetime(year, mo, dd, hh, mi, ss, tzinfo=now.tzinfo).timestamp())


def _seconds(text: str) -> int | None:
    """Grid Engine time value `[[h:]m:]s` as seconds."""
    if not re.fullmatch(r"\d*(:\d*){0,2}", text) or not text.strip(":"):
        return None
    total = 0
    for part in text.split(":"):
        total = total * 60 + int(part or 0)
    return total


def _split(arg: str, seps: str = ",") -> list[str]:
    return [item for item in re.split(f"[{re.escape(seps)}]", arg) if item]


def _host_path(item: str) -> tuple[str | None, str]:
    if item.startswith(":"):
        return None, item[1:]
    host, colon, path = item.partition(":")
    return (host, path) if colon else (None, item)


def _path_list(message: str) -> Callable[[str, str], list[tuple[str | None, str]]]:
    def parse(switch: str, arg: str) -> list[tuple[str | None, str]]:
        items = _split(arg)
        if not items:
            raise _ParseError(message.format(arg=arg), STATUS_ESYNTAX)
        return [_host_path(item) for item in items]
    return parse


def _queues(switch: str, arg: str) -> list[str]:
    items = _split(arg)
    if not items:
        raise _ParseError(f'Wrong queue list format "{arg}" specified to {switch} option',
                          STATUS_ESYNTAX)
    return items


def _resources(switch: str, arg: str) -> dict[str, str]:
    result: dict[str, str] = {}
    for item in _split(arg, ", "):
        name, eq, value = item.partition("=")
        if not name:
            raise _ParseError(f'Wrong resource list format "{arg}" specified to -l option',
                              STATUS_ESYNTAX)
        result[name] = value if eq else "TRUE"
    return result


def _mail_options(switch: str, arg: str) -> str:
    if not arg or set(arg) - set("abens"):
        raise _ParseError(f'Wrong mail options list format "{arg}" specified to -m option',
                          STATUS_ESYNTAX)
    return arg


def _mail_list(switch: str, arg: str) -> list[tuple[str | None, str]]:
    items = _split(arg)
    if not items:
        raise _ParseError(f'Wrong mail list format "{arg}" specified to -M option',
                          STATUS_ESYNTAX)
    result: list[tuple[str | None, str]] = []
    for item in items:
        user, _, host = item.partition("@")
        if (host or None, user) not in result:
            result.append((host or None, user))
    return result


def _job_name(switch: str, arg: str) -> str:
    if "/" in arg:
        raise _ParseError("argument to -N option must not contain / ", STATUS_ESEMANTIC)
    if not arg:
        raise _ParseError("empty string argument to -N option invalid", STATUS_ESEMANTIC)
    return arg


def _priority(switch: str, arg: str) -> int:
    if not re.fullmatch(r"\s*[+-]?\d+", arg) or not -1023 <= int(arg) <= 1024:
        raise _ParseError(f'invalid priority "{arg}".  Must be an integer from -1023 to 1024',
                          STATUS_ESYNTAX)
    return int(arg)


def _uint(message: str, status: int = STATUS_ESEMANTIC) -> Callable[[str, str], int]:
    def parse(switch: str, arg: str) -> int:
        if not re.fullmatch(r"\s*\+?\d+", arg):
            raise _ParseError(message.format(arg=arg), status)
        return int(arg)
    return parse


def _date(switch: str, arg: str) -> str:
    if _date_fields(arg) is None:
        raise _ParseError(f'Wrong date/time format "{arg}" specified to {switch} option',
                          STATUS_ESYNTAX)
    return arg


def _task_range(switch: str, arg: str) -> TaskRange:
    ranges = _ranges(arg, step_allowed=True, inf_allowed=False)
    if not ranges:
        # Grid Engine silently stops parsing here; refusing is safer
        raise _ParseError("-t option must have a list of task id ranges", STATUS_ESEMANTIC)
    if len(set(ranges)) > 1:
        raise _ParseError("-t option only allows one range specification", STATUS_ESYNTAX)
    return ranges[0]


def _ranges(arg: str, step_allowed: bool, inf_allowed: bool) -> list[TaskRange]:
    try:
        return parse_range_list(arg, step_allowed=step_allowed, inf_allowed=inf_allowed)
    except RangeError as err:
        raise _ParseError(err.message, err.status) from None


def _variables(message: str, environ_default: bool) -> Callable[..., list[tuple[str, str | None]]]:
    def parse(switch: str, arg: str, environ: Mapping[str, str]) -> list[tuple[str, str | None]]:
        items = _split(arg)
        if not items or any(i.startswith("=") for i in items):
            raise _ParseError(message.format(arg=arg), STATUS_ESYNTAX)
        pairs = [i.partition("=") for i in items]
        return [(n, v if eq else (environ.get(n) if environ_default else None))
                for n, eq, v in pairs]
    return parse


def _verify_level(switch: str, arg: str) -> str:
    if arg not in ("e", "w", "n", "v", "p"):
        raise _ParseError(f'invalid option argument "-w {arg}"', STATUS_ESYNTAX)
    return arg


def _checkpoint(switch: str, arg: str) -> tuple[str, Any]:
    if arg[:1].isdigit():
        seconds = _seconds(arg)
        if not seconds:
            raise _ParseError("-c argument invalid", STATUS_ESEMANTIC)
        return "interval", seconds
    if not arg or set(arg) - set("nsmxr"):
        raise _ParseError("-c specifier invalid", STATUS_ESEMANTIC)
    return "occasion", arg


def _text(switch: str, arg: str) -> str:
    return arg


def _unsupported(switch: str, arg: str = "") -> None:
    raise _ParseError(f'Unsupported: "{switch}" is not supported in this version',
                      STATUS_ENOIMP)


_MISSING = "{switch} option must have argument"
# switch -> (value parser or None for a flag, missing-argument text, warn on repeat)
_SPECS: dict[str, tuple[Callable[..., Any] | None, str, bool]] = {
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
    "-hold_jid": (lambda s, a: _hold_list(s, a), _MISSING, False),
    "-hold_jid_ad": (lambda s, a: _hold_list(s, a), _MISSING, False),
    "-j": (_yes_no, _MISSING, True),
    "-js": (_uint("invalid jobshare, must be an unsigned integer"), _MISSING, False),
    "-jsv": (_unsupported, _MISSING, False), "-l": (_resources, _MISSING, False),
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
    "-he": (_yes_no, _MISSING, True), "-ot": (_text, _MISSING, False),
    "-cell": (_text, _MISSING, False),
}
_FLAGS = {"-clear", "-cwd", "-h", "-hard", "-soft", "-help", "-notify", "-terse", "-verify",
          "-V", "-verbose", "-inherit", "-nostdin", "-noshell", "-explain", "-xml", "-uall"}
_WARN_FLAGS = {"-h"}
_UNKNOWN_LATER = {"-d", "-display", "-he", "-ot", "-cell", "-verbose", "-inherit",
                  "-nostdin", "-noshell", "-explain", "-xml", "-uall", "", "-", "--"}


def _hold_list(switch: str, arg: str) -> list[str]:
    items = _split(arg)
    if not items:
        kind = "jid_hold_ad" if switch == "-hold_jid_ad" else "jid_hold"
        raise _ParseError(f'Wrong {kind} list format "{arg}" specified to {switch} option',
                          STATUS_ESYNTAX)
    return items


# ---------------------------------------------------------------- stage 1: tokens -> options
class _Parser:
    """One call of Grid Engine's cull_parse_cmdline: -hard/-soft start hard."""

    def __init__(self, ctx: _Ctx, opts: list[_Opt], pseudos: bool) -> None:
        self.ctx, self.opts, self.pseudos, self.soft = ctx, opts, pseudos, False

    def run(self, tokens: Sequence[str]) -> None:
        index = 0
        while index < len(tokens):
            index = self._one(tokens, index)

    def _one(self, tokens: Sequence[str], index: int) -> int:
        token = tokens[index]
        if token in _FLAGS:
            return self._flag(token, index)
        if token in _SPECS:
            return self._with_argument(token, tokens, index)
        if token == "-pe":
            return self._pe(tokens, index)
        if token == "-@":
            return self._include(tokens, index)
        if token.startswith("-") and token not in ("-", "--"):
            raise _ParseError(f'invalid option argument "{token}"', STATUS_ESEMANTIC)
        if not self.pseudos:
            self.opts.append(_Opt(token) if token in ("-", "--") else _Opt("", token))
            return index + 1
        return self._script(tokens, index)

    def _warn_repeat(self, switch: str) -> None:
        if any(opt.switch == switch for opt in self.opts):
            self.ctx.warnings.append(f'{self.ctx.warn_prefix}"{switch}" option has already '
                                     "been set, overriding previous setting")

    def _flag(self, token: str, index: int) -> int:
        if token in _WARN_FLAGS:
            self._warn_repeat(token)
        if token in ("-hard", "-soft"):
            self.soft = token == "-soft"
        if token == "-V":
            self.opts.append(_Opt("-v", list(self.ctx.environ.items())))
            self.opts.append(_Opt("-V"))
        else:
            self.opts.append(_Opt("-wd", self.ctx.cwd) if token == "-cwd" else _Opt(token))
        return index + 1

    def _with_argument(self, switch: str, tokens: Sequence[str], index: int) -> int:
        parse, missing, warn = _SPECS[switch]
        if warn:
            self._warn_repeat(switch)
        if index + 1 >= len(tokens):
            raise _ParseError(missing.format(switch=switch), STATUS_ESEMANTIC)
        arg = tokens[index + 1]
        if switch in ("-v", "-ac", "-dc", "-sc"):
            value = parse(switch, arg, self.ctx.environ)
        else:
            value = parse(switch, arg)
        if switch == "-C" and arg == "":
            value = None  # an empty prefix switches directive scanning off
        if switch in _UNKNOWN_LATER:
            value = arg  # refused later, quoted as given
        self.opts.append(_Opt(switch, value, self.soft))
        return index + 2

    def _pe(self, tokens: Sequence[str], index: int) -> int:
        self._warn_repeat("-pe")
        if index + 1 >= len(tokens):
            raise _ParseError("-pe option must have pe_name argument", STATUS_ESEMANTIC)
        if index + 2 >= len(tokens):
            raise _ParseError("-pe option must have range as 2nd argument", STATUS_ESEMANTIC)
        ranges = _ranges(tokens[index + 2], step_allowed=False, inf_allowed=True)
        if not ranges:
            raise _ParseError("-pe option must have range as 2nd argument", STATUS_ESEMANTIC)
        self.opts.append(_Opt("-pe", (tokens[index + 1], [(r[0], r[1]) for r in ranges])))
        return index + 3

    def _include(self, tokens: Sequence[str], index: int) -> int:
        if index + 1 >= len(tokens):
            raise _ParseError("-@ option must have file argument", STATUS_ESEMANTIC)
        path = tokens[index + 1]
        if self.ctx.depth >= _MAX_INCLUDE_DEPTH:
            raise _ParseError(f"error reading from file {path}", STATUS_EUNKNOWN)
        try:
            text = self.ctx.read_file(path)
        except OSError as err:
            raise _ParseError(f"error opening {path}: {err.strerror}", STATUS_EDISK) from None
        self.ctx.depth += 1
        _parse_lines(text, "", self.ctx, self.opts)
        self.ctx.depth -= 1
        return index + 2

    def _script(self, tokens: Sequence[str], index: int) -> int:
        rest = list(tokens[index:])
        if rest[0] == "--":
            if len(rest) == 1:
                raise _ParseError("-- option must be followed by job arguments",
                                  STATUS_ESEMANTIC)
        else:
            self.opts.append(_Opt(_SCRIPT, rest[0]))
        self.opts.extend(_Opt(_ARG, arg) for arg in rest[1:])
        return len(tokens)


def _directive_tokens(line: str, prefix: str) -> list[str] | None:
    """The options of one line: every non-comment line of a defaults file
    (prefix ""), or the lines starting with `prefix` in a script."""
    if prefix == "":
        if line.startswith("#"):
            return None
        body = line
    elif line.startswith(prefix):
        body = line[len(prefix):]
    else:
        return None
    body = body.split("#", 1)[0].rstrip()  # a '#' starts a trailing comment
    tokens = [t for t in re.split(r"[ \t\n]", body) if t]
    return [t.replace('"', "").replace("'", "") for t in tokens] or None


def _parse_lines(text: str, prefix: str, ctx: _Ctx, opts: list[_Opt]) -> None:
    for line in text.split("\n"):
        tokens = _directive_tokens(line, prefix)
        if tokens:
            _Parser(ctx, opts, pseudos=False).run(tokens)


def _source(prefixes: tuple[str, str], ctx: _Ctx, work: Callable[[], None]) -> None:
    """Run one source's parsing; its errors carry that source's prefix."""
    ctx.warn_prefix = prefixes[1]
    try:
        work()
    except _ParseError as err:
        raise QsubError(prefixes[0] + err.text, err.status) from None


# ---------------------------------------------------------------- stage 2: merge and fold
def _merge(defaults: list[_Opt], script: list[_Opt], cmdline: list[_Opt]) -> list[_Opt]:
    merged = list(defaults)
    for later in (script, cmdline):
        if any(opt.switch == "-q" for opt in later):
            merged = [opt for opt in merged if opt.switch != "-q"]
        merged += later
    while any(opt.switch == "-clear" for opt in merged):
        at = next(i for i, opt in enumerate(merged) if opt.switch == "-clear")
        merged = [o for o in merged[:at] if o.switch in (_SCRIPT, _ARG)] + merged[at + 1:]
    return merged


def _merge_keyed(old: list[tuple[Any, Any]], new: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """cull_merge_definition_list: a later entry replaces the one with its key."""
    if not old:
        return list(new)
    result = list(old)
    for key, value in new:
        keys = [k for k, _ in result]
        if key in keys:
            result[keys.index(key)] = (key, value)
        else:
            result.append((key, value))
    return result


def _fold(merged: list[_Opt], opts: SubmitOptions) -> None:
    keyed: dict[str, list[tuple[Any, Any]]] = {}
    mail = ""
    for opt in merged:
        if opt.switch in ("-o", "-e", "-i", "-S", "-M", "-v"):
            keyed[opt.switch] = _merge_keyed(keyed.get(opt.switch, []), opt.value)
        elif opt.switch == "-m":
            mail = "" if "n" in opt.value else mail + opt.value
        elif opt.switch in _APPLY:
            _APPLY[opt.switch](opts, opt)
        elif opt.switch in _UNKNOWN_LATER:
            arg = "" if opt.value is True or opt.switch == "" else f" {opt.value}"
            raise QsubError(f"qsub: Unknown option {opt.switch}{arg}\n", STATUS_ENOIMP)
        elif opt.switch == "-help":
            raise QsubError("qsub: -help not allowed in this context", STATUS_ENOIMP)
    opts.mail_options = "".join(c for c in "abes" if c in mail)
    paths = {k: [f"{h}:{p}" if h else p for h, p in keyed.get(k, [])] for k in "-o -e -i -S".split()}
    opts.stdout_paths, opts.stderr_paths = paths["-o"], paths["-e"]
    opts.stdin_paths, opts.shell = paths["-i"], paths["-S"]
    opts.mail_list = [f"{u}@{h}" if h else u for h, u in keyed.get("-M", [])]
    opts.env = dict(keyed.get("-v", []))


def _set(name: str, convert: Callable[[Any], Any] = lambda v: v) -> Callable[[SubmitOptions, _Opt], None]:
    return lambda opts, opt: setattr(opts, name, convert(opt.value))


def _add_hard_soft(hard: str, soft: str) -> Callable[[SubmitOptions, _Opt], None]:
    def apply(opts: SubmitOptions, opt: _Opt) -> None:
        target = getattr(opts, soft if opt.soft else hard)
        target.update(opt.value) if isinstance(target, dict) else target.extend(opt.value)
    return apply


def _apply_context(opts: SubmitOptions, opt: _Opt) -> None:
    if opt.switch == "-sc":
        opts.context = {}
    for name, value in opt.value:
        if opt.switch == "-dc":
            opts.context.pop(name, None)
        else:
            opts.context[name] = value


def _apply_pe(opts: SubmitOptions, opt: _Opt) -> None:
    name, ranges = opt.value
    opts.pe = (name, min(r[0] for r in ranges), max(r[1] for r in ranges))
    opts.pe_ranges = ranges


def _apply_checkpoint(opts: SubmitOptions, opt: _Opt) -> None:
    kind, value = opt.value
    setattr(opts, f"checkpoint_{kind}", value)


_APPLY: dict[str, Callable[[SubmitOptions, _Opt], None]] = {
    "-a": _set("start_time"), "-A": _set("account"), "-ar": _set("ar_id"),
    "-ac": _apply_context, "-dc": _apply_context, "-sc": _apply_context,
    "-b": _set("binary"), "-c": _apply_checkpoint, "-ckpt": _set("checkpoint_name"),
    "-dl": _set("deadline"), "-h": _set("hold"), "-j": _set("merge_output"),
    "-hold_jid": lambda o, opt: o.hold_jid.extend(opt.value),
    "-hold_jid_ad": lambda o, opt: o.hold_jid_ad.extend(opt.value),
    "-js": _set("job_share"), "-l": _add_hard_soft("hard_resources", "soft_resources"),
    "-masterq": lambda o, opt: o.master_queues.extend(opt.value),
    "-N": _set("job_name"), "-notify": _set("notify"), "-now": _set("now"),
    "-p": _set("priority"), "-P": _set("project"), "-pe": _apply_pe, "-pty": _set("pty"),
    "-q": _add_hard_soft("hard_queues", "soft_queues"), "-r": _set("rerun"),
    "-R": _set("reserve"), "-shell": _set("use_shell"), "-t": _set("array"),
    "-tc": _set("task_concurrency"), "-terse": _set("terse"), "-verify": _set("verify"),
    "-V": _set("export_all_env"), "-w": _set("verify_mode"), "-wd": _set("cwd"),
    "-sync": lambda o, opt: setattr(o, "sync", o.sync or opt.value),  # any "y" wins
    _SCRIPT: _set("script_path"), _ARG: lambda o, opt: o.script_args.append(opt.value),
}


# ---------------------------------------------------------------- the entry point
def _first_bool(opts: list[_Opt], switch: str) -> bool | None:
    return next((bool(o.value) for o in opts if o.switch == switch), None)


def _read_script(path: str | None, script_text: str | None, ctx: _Ctx) -> str:
    """The script's text; `read_file("-")` stands for standard input."""
    try:
        text = ctx.read_file(path or "-") if script_text is None else script_text
    except OSError as err:
        raise script_read_error(path or "-", err) from None
    if path is None and text == "":
        raise QsubError(SCRIPT[0] + "no input read from stdin", STATUS_EUNKNOWN)
    return text


def _script_directives(text: str, prefix: str | None, ctx: _Ctx) -> list[_Opt]:
    found: list[_Opt] = []
    if prefix is not None:
        _source(SCRIPT, ctx, lambda: _parse_lines(text, prefix, ctx, found))
    return [opt for opt in found if opt.switch != "-C"]  # -C is ignored in scripts


def parse_qsub(argv: list[str], *, script_text: str | None, cwd: str,
               environ: dict[str, str], home: str, default_files: Iterable[str] = (),
               read_file: Callable[[str], str] | None = None) -> SubmitOptions:
    """qsub's arguments (without argv[0]) to SubmitOptions.

    `default_files`: texts of the sge_request files in Grid Engine's order
    (cell-wide, ~/.sge_request, ./.sge_request). `script_text`: the script,
    if the caller already has it (stdin or file). Otherwise it is read only
    when needed (not with -b y) through `read_file(path)`, `read_file("-")`
    meaning standard input; the default reads the disk relative to `cwd` and
    sys.stdin. `read_file` also reads `-@` files. Raises QsubError.
    """
    ctx = _Ctx(environ, cwd, read_file or _disk_reader(cwd), [])
    defaults: list[_Opt] = []
    for text in default_files:
        _source(DEFAULTS, ctx, lambda t=text: _parse_lines(t, "", ctx, defaults))
    cmdline: list[_Opt] = []
    _source(CMDLINE, ctx, lambda: _Parser(ctx, cmdline, pseudos=True).run(argv))
    if any(opt.switch == "-help" for opt in cmdline):
        return SubmitOptions(help=True, warnings=ctx.warnings)
    binary = _first_bool(cmdline, "-b")
    binary = _first_bool(defaults, "-b") if binary is None else binary
    script: list[_Opt] = []
    text: str | None = None
    path = next((o.value for o in cmdline if o.switch == _SCRIPT), None)
    path = None if path == "-" else path
    prefix = next((o.value for o in cmdline if o.switch == "-C"), DEFAULT_PREFIX)
    if not binary:
        text = _read_script(path, script_text, ctx)
        script = _script_directives(text, prefix, ctx)
    opts = SubmitOptions(directive_prefix=prefix, submit_cwd=cwd, submit_home=home)
    _fold(_merge(defaults, script, cmdline), opts)
    return _finish(opts, text, ctx.warnings)


def _finish(opts: SubmitOptions, text: str | None, warnings: list[str]) -> SubmitOptions:
    if opts.script_path == "-":
        opts.script_path = None
    if opts.binary and opts.script_path is None:
        raise QsubError("qsub: command required for a binary job", STATUS_ESEMANTIC)
    opts.script_text = None if opts.binary else text
    if not opts.job_name:
        opts.job_name = job_name_default(opts.script_path, opts.binary, opts.script_path)
    problem = validate_job_name(opts.job_name)
    if problem is None and opts.array is not None and opts.array[0] == 0:
        problem = "job rejected: 0 is an invalid task id"
    if problem is not None:
        raise QsubError(unable_to_run(problem), 1)
    opts.warnings = warnings
    return opts


def _disk_reader(cwd: str) -> Callable[[str], str]:
    def read(path: str) -> str:
        if path == "-":
            return sys.stdin.read()
        with open(os.path.join(cwd, path), encoding="utf-8", errors="surrogateescape") as f:
            return f.read()
    return read


def script_read_error(path: str, err: OSError) -> QsubError:
    """`Unable to read script file because of error: error opening X: ...`."""
    reason = err.strerror or os.strerror(err.errno or 0)
    return QsubError(f"{SCRIPT[0]}error opening {path}: {reason}", STATUS_EDISK)


# ---------------------------------------------------------------- names and messages
def job_name_default(script_path: str | None, binary: bool = False,
                     command: str | None = None) -> str:
    """The basename of the script (or of the command with -b y); STDIN."""
    path = command if binary and command else script_path
    return "STDIN" if path in (None, "-") else path.rsplit("/", 1)[-1]


_NAME_CHARS = [("\n", "Return"), ("\t", "Tab"), ("\r", "Carriage return"), ("/", "Slash"),
               (":", "Colon"), ("@", "At"), ("\\", "Backslash"), ("*", "Asterisk"),
               ("?", "Questionmark")]


def validate_job_name(name: str) -> str | None:
    """The qmaster's refusal of a job name (verify_str_key, QSUB_TABLE)."""
    if name[:1] in tuple("0123456789"):
        return f'denied: "{name}" is not a valid object name (cannot start with a digit)'
    if len(name) > 512:
        return "string is longer than 512, this is not allowed for objectnames"
    for char, label in _NAME_CHARS:
        if char in name:
            shown = f" ('{char}')" if char.isprintable() else ""
            return f"{label}{shown} not allowed in objectname"
    bad = next((c for c in name if not (c.isascii() and c.isprintable() and c != " ")), None)
    if bad is not None:
        return f"Non-graphic character (hex {ord(bad) & 0xFF:x}) not allowed in objectname"
    if name.upper() in ("NONE", "ALL", "TEMPLATE"):
        return f'Keyword ("{name.upper()}") not allowed as objectname'
    return None


def unable_to_run(reason: str) -> str:
    """How qsub reports a refused submission (stderr, exit 1)."""
    return f"Unable to run job: {reason}\nExiting."


def job_id_text(job_id: int, array: TaskRange | None = None) -> str:
    return f"{job_id}.{format_task_range(array)}" if array else str(job_id)


def submitted_message(job_id: int, name: str, array: TaskRange | None = None,
                      terse: bool = False) -> str:
    """The line qsub prints on stdout after a successful submission."""
    if terse:
        return job_id_text(job_id, array)
    if array:
        return f'Your job-array {job_id_text(job_id, array)} ("{name}") has been submitted'
    return f'Your job {job_id} ("{name}") has been submitted'


VERIFY_FOUND_QUEUES = "verification: found suitable queue(s)"
WAITING_FOR_IMMEDIATE = "Waiting for immediate job to be scheduled."
IMMEDIATE_NOT_SCHEDULED = "Your qsub request could not be scheduled; try again later."


def immediate_scheduled(job_id: str) -> str:
    return f"Your immediate job {job_id} has been successfully scheduled."


@dataclass(frozen=True)
class SyncReport:
    """One `-sync y` line: where it goes and the exit status it implies."""

    stream: str          # "stdout" or "stderr"
    text: str | None     # None: print nothing
    exit_code: int


def sync_report(job_id: str, *, exit_code: int | None = None, signal: str | None = None,
                never_ran: bool = False, terse: bool = False) -> SyncReport:
    """How qsub -sync y reports one finished job or array task (`5` or
    `5.2`): exit code, signal name (e.g. "SIGKILL"), or never ran (deleted
    or failed before it started; Grid Engine then still exits 0)."""
    if never_ran:
        return SyncReport("stderr", f"Unable to run job {job_id}", 0)
    if exit_code is not None:
        text = f"Job {job_id} exited with exit code {exit_code}."
        if exit_code == 0:
            return SyncReport("stdout", None if terse else text, 0)
        return SyncReport("stderr", text, exit_code)
    if signal is not None:
        return SyncReport("stderr", f"Job {job_id} exited because of signal {signal}", 1)
    return SyncReport("stderr", f"No information available on job {job_id}'s exit status.", 1)
