"""qrsh, qlogin and qsh's command lines (qrsh(1)): argv in, one typed ``Request`` (or a
QsubError with Grid Engine's message and status) out. Pure apart from the default
request files, which the caller reads.

The options they share with qsub (``-l -q -pe -N -P -p -v -V -cwd -wd -hold_jid -now -pty
...``) go through qsub's own parser (clients.qsub.options), as the submission of a binary
job (``-b y``) whose command is qrsh's; the options only these commands have are taken
out first: ``-verbose``, ``-noshell``, ``-nostdin`` (qrsh), ``-display`` (qsh). The first
word that is not an option starts the command (qrsh only: qlogin and qsh take none).

What 8.1.9 does and we copy: ``-now y`` by default; default job names ``QRLOGIN`` (qrsh
without a command), ``QLOGIN``, ``INTERACTIVE`` (qsh) and, for a command, the base name
of its first word (``qrsh 'kill -9 $$'`` is job ``kill``); ``TERM`` goes with the job.
"""
from __future__ import annotations

from clients.qsub.options import STATUS_ESEMANTIC, QsubError, SubmitOptions, parse_qsub
from clients.qsub.values import FLAG_OPTIONS, OPTION_SPECS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterable, Mapping

DEFAULT_NAMES = {"qrsh": "QRLOGIN", "qlogin": "QLOGIN", "qsh": "INTERACTIVE"}
OWN_FLAGS = {"qrsh": {"-verbose", "-noshell", "-nostdin", "-inherit"}, "qlogin": {"-verbose"},
             "qsh": {"-verbose"}}
_PLACEHOLDER = "QRLOGIN"  # the binary job's command for qsub's parser when there is none


class Request:
    """One interactive job as asked for."""

    __slots__ = ("kind", "command", "submit", "verbose", "noshell", "stdin", "display")

    def __init__(self, kind: str, command: list[str], submit: SubmitOptions, *,
                 verbose: bool, noshell: bool, stdin: bool, display: str | None) -> None:
        self.kind, self.command, self.submit = kind, command, submit
        self.verbose, self.noshell, self.stdin, self.display = verbose, noshell, stdin, display


def _split(kind: str, argv: list[str]) -> tuple[list[str], list[str], set[str], str | None]:
    """(qsub's options, the command, our own flags, -display's value)."""
    options: list[str] = []
    flags: set[str] = set()
    display = None
    unknown = False
    index = 0
    while index < len(argv):
        token = argv[index]
        if token in OWN_FLAGS[kind]:
            flags.add(token)
            index += 1
        elif token == "-display" and kind == "qsh":
            if index + 1 >= len(argv):
                raise QsubError(f"{kind}: ERROR! -display option must have argument",
                                STATUS_ESEMANTIC)
            display = argv[index + 1]
            index += 2
        elif token in FLAG_OPTIONS:
            options.append(token)
            index += 1
        elif token == "-pe":
            options += argv[index:index + 3]
            index += 3
        elif token in OPTION_SPECS or token == "-@":
            options += argv[index:index + 2]
            index += 2
        elif token.startswith("-"):
            options.append(token)  # qsub's parser words the refusal
            unknown = True
            index += 1
        elif kind != "qrsh":  # qlogin and qsh take no command
            if unknown:  # (the unknown option's argument: qsub's parser refuses the option)
                options.append(token)
                index += 1
                continue
            raise QsubError("error: Unknown option script", 1)
        else:
            return options, argv[index:], flags, display
    return options, [], flags, display


def asks_inherit(argv: list[str]) -> bool:
    """Whether ``-inherit`` is among qrsh's options (before the command): a task of a
    running parallel job (clients.qrsh.inherit), not a job."""
    return "-inherit" in argv and "-inherit" in _split("qrsh", argv)[2]


def default_name(kind: str, command: list[str]) -> str:
    if not command:
        return DEFAULT_NAMES[kind]
    words = command[0].split()
    first = words[0] if words else command[0]
    return first.rstrip("/").rsplit("/", 1)[-1] or DEFAULT_NAMES[kind]


def parse(kind: str, argv: list[str], *, cwd: str, environ: Mapping[str, str], home: str,
          default_files: Iterable[str] = ()) -> Request:
    """``kind`` (qrsh, qlogin, qsh) and its arguments to a Request; QsubError (exit
    status 1 and ``error: `` for qsub's ``qsub: ``, as 8.1.9's qrsh words them)."""
    options, command, flags, display = _split(kind, argv)
    named = "-N" in options
    default = [] if named else ["-N", default_name(kind, command)]
    try:
        submit = parse_qsub(["-b", "y", *default, *options, *(command or [_PLACEHOLDER])],
                            script_text=None, cwd=cwd, environ=dict(environ), home=home,
                            default_files=default_files)
    except QsubError as err:
        message = err.message
        if message.startswith("qsub: "):
            message = "error: " + message[len("qsub: "):]
        if message.startswith("error: Unknown option "):  # 8.1.9's qrsh names the option only
            message = " ".join(message.split(" ")[:4]).rstrip("\n")
        raise QsubError(message, 1) from None
    if submit.help:
        return Request(kind, command, submit, verbose=False, noshell=False, stdin=True,
                       display=display)
    if not command:
        submit.script_path, submit.script_args = "", []
    if "-now" not in options:
        submit.now = True  # qrsh(1): immediate unless -now n
    if "TERM" in environ and "TERM" not in submit.env:
        submit.env["TERM"] = environ["TERM"]
    if kind == "qsh":
        display = display or submit.env.get("DISPLAY") or environ.get("DISPLAY")
        if display:
            submit.env["DISPLAY"] = display
    return Request(kind, command, submit, verbose="-verbose" in flags,
                   noshell="-noshell" in flags, stdin="-nostdin" not in flags,
                   display=display)
