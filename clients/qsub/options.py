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

This module owns the merge, the fold and the entry point parse_qsub. The
value parsers and option table are in clients.qsub.values, the per-source
tokenising in clients.qsub.parser, the job names and messages in
clients.qsub.messages; their public names are re-exported here so that
callers keep importing them from clients.qsub.options.
"""
from __future__ import annotations

import os
import sys

from clients.qsub.messages import (IMMEDIATE_NOT_SCHEDULED, VERIFY_FOUND_QUEUES,
                                   WAITING_FOR_IMMEDIATE, SyncReport, immediate_scheduled,
                                   job_id_text, job_name_default, submitted_message,
                                   sync_report, unable_to_run)
from clients.qsub.parser import (ARG_SWITCH, CMDLINE, DEFAULTS, SCRIPT, SCRIPT_SWITCH,
                                 OptionParser, ParseContext, ParsedOption, QsubError,
                                 parse_lines, parse_source)
from clients.qsub.values import (STATUS_EDISK, STATUS_ENOIMP, STATUS_ESEMANTIC, STATUS_ESYNTAX,
                                 STATUS_EUNKNOWN, UNKNOWN_LATER)
from common.record import Record, as_dict, field
from common.jobspec import date_time_to_epoch, validate_job_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable, Mapping

    from clients.joblist import TaskRange

__all__ = [
    "CMDLINE", "DEFAULTS", "DEFAULT_PREFIX", "IMMEDIATE_NOT_SCHEDULED", "SCRIPT",
    "STATUS_EDISK", "STATUS_ENOIMP", "STATUS_ESEMANTIC", "STATUS_ESYNTAX", "STATUS_EUNKNOWN",
    "VERIFY_FOUND_QUEUES", "WAITING_FOR_IMMEDIATE", "QsubError", "SubmitOptions",
    "SyncReport", "date_time_to_epoch", "immediate_scheduled", "job_id_text",
    "job_name_default", "parse_qsub", "script_read_error", "submitted_message",
    "sync_report", "unable_to_run", "validate_job_name",
]

DEFAULT_PREFIX = "#$"


class SubmitOptions(Record):
    """Everything one qsub invocation asks for, typed (a record: common.record)."""

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
    jsv: list[str] = field(default_factory=list)         # -jsv: client JSVs (clients.jsv)
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
    # sge_aliases(5) kept for a -cwd/-wd job (clients.qsub.main): source, submit host,
    # execution host, replacement
    path_aliases: list[list[str]] = field(default_factory=list)
    submit_home: str = ""               # sge_o_home
    help: bool = False
    warnings: list[str] = field(default_factory=list)  # lines for stdout

    def to_dict(self) -> dict[str, Any]:
        """Plain types only (tuples become lists), ready for msgpack."""
        return {k: list(v) if isinstance(v, tuple) else v
                for k, v in as_dict(self).items()}

    def job_opts(self) -> dict[str, Any]:
        """to_dict() without what stays in the client (script text, warnings,
        -help): the `opts` a job record carries."""
        data = self.to_dict()
        for client_only in ("script_text", "warnings", "help", "jsv"):
            del data[client_only]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SubmitOptions:
        opts = cls(**data)
        opts.array = tuple(opts.array) if opts.array else None  # type: ignore[assignment]
        opts.pe = tuple(opts.pe) if opts.pe else None  # type: ignore[assignment]
        opts.pe_ranges = [tuple(r) for r in opts.pe_ranges]  # type: ignore[misc]
        return opts


# ---------------------------------------------------------------- stage 2: merge and fold
def _merge(defaults: list[ParsedOption], script: list[ParsedOption],
           cmdline: list[ParsedOption]) -> list[ParsedOption]:
    merged = list(defaults)
    for later in (script, cmdline):
        if any(opt.switch == "-q" for opt in later):
            merged = [opt for opt in merged if opt.switch != "-q"]
        merged += later
    while any(opt.switch == "-clear" for opt in merged):
        at = next(i for i, opt in enumerate(merged) if opt.switch == "-clear")
        kept = [o for o in merged[:at] if o.switch in (SCRIPT_SWITCH, ARG_SWITCH)]
        merged = kept + merged[at + 1:]
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


def _fold(merged: list[ParsedOption], opts: SubmitOptions) -> None:
    keyed: dict[str, list[tuple[Any, Any]]] = {}
    mail = ""
    for opt in merged:
        if opt.switch in ("-o", "-e", "-i", "-S", "-M", "-v"):
            keyed[opt.switch] = _merge_keyed(keyed.get(opt.switch, []), opt.value)
        elif opt.switch == "-m":
            mail = "" if "n" in opt.value else mail + opt.value
        elif opt.switch in _APPLY:
            _APPLY[opt.switch](opts, opt)
        elif opt.switch in UNKNOWN_LATER:
            arg = "" if opt.value is True or opt.switch == "" else f" {opt.value}"
            raise QsubError(f"qsub: Unknown option {opt.switch}{arg}\n", STATUS_ENOIMP)
        elif opt.switch == "-help":
            raise QsubError("qsub: -help not allowed in this context", STATUS_ENOIMP)
    opts.mail_options = "".join(c for c in "abes" if c in mail)
    paths = {k: [f"{h}:{p}" if h else p for h, p in keyed.get(k, [])]
             for k in "-o -e -i -S".split()}
    opts.stdout_paths, opts.stderr_paths = paths["-o"], paths["-e"]
    opts.stdin_paths, opts.shell = paths["-i"], paths["-S"]
    opts.mail_list = [f"{u}@{h}" if h else u for h, u in keyed.get("-M", [])]
    opts.env = dict(keyed.get("-v", []))


if TYPE_CHECKING:
    _Apply = Callable[[SubmitOptions, ParsedOption], None]  # one switch into the options


def _set(name: str, convert: Callable[[Any], Any] = lambda v: v) -> _Apply:
    return lambda opts, opt: setattr(opts, name, convert(opt.value))


def _add_hard_soft(hard: str, soft: str) -> _Apply:
    def apply(opts: SubmitOptions, opt: ParsedOption) -> None:
        target = getattr(opts, soft if opt.soft else hard)
        if isinstance(target, dict):  # -l: a repeated name, the later wins and goes last
            for name, value in opt.value.items():
                target.pop(name, None)
                target[name] = value
        else:
            target.extend(opt.value)
    return apply


def _apply_context(opts: SubmitOptions, opt: ParsedOption) -> None:
    if opt.switch == "-sc":
        opts.context = {}
    for name, value in opt.value:
        if opt.switch == "-dc":
            opts.context.pop(name, None)
        else:
            opts.context[name] = value


def _apply_pe(opts: SubmitOptions, opt: ParsedOption) -> None:
    name, ranges = opt.value
    opts.pe = (name, min(r[0] for r in ranges), max(r[1] for r in ranges))
    opts.pe_ranges = ranges


def _apply_checkpoint(opts: SubmitOptions, opt: ParsedOption) -> None:
    kind, value = opt.value
    setattr(opts, f"checkpoint_{kind}", value)


_APPLY: dict[str, _Apply] = {
    "-a": _set("start_time"), "-A": _set("account"), "-ar": _set("ar_id"),
    "-ac": _apply_context, "-dc": _apply_context, "-sc": _apply_context,
    "-b": _set("binary"), "-c": _apply_checkpoint, "-ckpt": _set("checkpoint_name"),
    "-dl": _set("deadline"), "-h": _set("hold"), "-j": _set("merge_output"),
    "-hold_jid": lambda o, opt: o.hold_jid.extend(opt.value),
    "-hold_jid_ad": lambda o, opt: o.hold_jid_ad.extend(opt.value),
    "-jsv": lambda o, opt: o.jsv.append(opt.value),
    "-js": _set("job_share"), "-l": _add_hard_soft("hard_resources", "soft_resources"),
    "-masterq": lambda o, opt: o.master_queues.extend(opt.value),
    "-N": _set("job_name"), "-notify": _set("notify"), "-now": _set("now"),
    "-p": _set("priority"), "-P": _set("project"), "-pe": _apply_pe, "-pty": _set("pty"),
    "-q": _add_hard_soft("hard_queues", "soft_queues"), "-r": _set("rerun"),
    "-R": _set("reserve"), "-shell": _set("use_shell"), "-t": _set("array"),
    "-tc": _set("task_concurrency"), "-terse": _set("terse"), "-verify": _set("verify"),
    "-V": _set("export_all_env"), "-w": _set("verify_mode"), "-wd": _set("cwd"),
    "-sync": lambda o, opt: setattr(o, "sync", o.sync or opt.value),  # any "y" wins
    SCRIPT_SWITCH: _set("script_path"), ARG_SWITCH: lambda o, opt: o.script_args.append(opt.value),
}


# ---------------------------------------------------------------- the entry point
def _first_bool(opts: list[ParsedOption], switch: str) -> bool | None:
    return next((bool(o.value) for o in opts if o.switch == switch), None)


def _read_script(path: str | None, script_text: str | None, ctx: ParseContext) -> str:
    """The script's text; `read_file("-")` stands for standard input."""
    try:
        text = ctx.read_file(path or "-") if script_text is None else script_text
    except OSError as err:
        raise script_read_error(path or "-", err) from None
    if path is None and text == "":
        raise QsubError(SCRIPT[0] + "no input read from stdin", STATUS_EUNKNOWN)
    return text


def _script_directives(text: str, prefix: str | None, ctx: ParseContext) -> list[ParsedOption]:
    found: list[ParsedOption] = []
    if prefix is not None:
        parse_source(SCRIPT, ctx, lambda: parse_lines(text, prefix, ctx, found))
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
    ctx = ParseContext(environ, cwd, read_file or _disk_reader(cwd), [])
    defaults: list[ParsedOption] = []
    for text in default_files:
        parse_source(DEFAULTS, ctx, lambda t=text: parse_lines(t, "", ctx, defaults))
    cmdline: list[ParsedOption] = []
    parse_source(CMDLINE, ctx, lambda: OptionParser(ctx, cmdline, pseudos=True).run(argv))
    if any(opt.switch == "-help" for opt in cmdline):
        return SubmitOptions(help=True, warnings=ctx.warnings)
    binary = _first_bool(cmdline, "-b")
    binary = _first_bool(defaults, "-b") if binary is None else binary
    script: list[ParsedOption] = []
    text: str | None = None
    path = next((o.value for o in cmdline if o.switch == SCRIPT_SWITCH), None)
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
