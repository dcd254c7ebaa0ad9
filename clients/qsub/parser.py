"""qsub's option parsing, stage 1: the tokens of one source (the command
line, a default request file, a `-@` file or a script's `#$` directives) in,
a list of ParsedOption out, in order, nothing merged yet.

Mirrors Grid Engine 8.1.9's cull_parse_cmdline and parse_script_file: one
OptionParser run per line or command line, `-hard`/`-soft` start hard, `-@`
includes a file (nesting bounded), the first non-option of the command line
is the script and the rest its arguments. Errors are raised as QsubError with
the prefix of the source they come from. Pure apart from the injected
`read_file` of the ParseContext.
"""
from __future__ import annotations

from clients.qsub.values import (FLAG_OPTIONS, OPTION_SPECS, STATUS_EDISK, STATUS_ESEMANTIC,
                                 STATUS_EUNKNOWN, UNKNOWN_LATER, WARN_ON_REPEAT_FLAGS,
                                 ParseError, parse_ranges)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Mapping, Sequence

# (error prefix, warning prefix) of each source
CMDLINE = ("qsub: ", "qsub: warning: ")
SCRIPT = ("Unable to read script file because of error: ", "warning: ")
DEFAULTS = ("", "warning: ")
SCRIPT_SWITCH, ARG_SWITCH = "<script>", "<arg>"  # pseudo switches of Grid Engine
_MAX_INCLUDE_DEPTH = 32


class QsubError(Exception):
    """What qsub prints on stderr before exiting with `exit_code`."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code


class ParsedOption:
    """One switch as given, with its typed value, before merging. A plain
    slotted class, not a dataclass: building a dataclass costs qsub's
    start-up time and nothing here needs its generated methods."""

    __slots__ = ("switch", "value", "soft")

    def __init__(self, switch: str, value: Any = True, soft: bool = False) -> None:
        self.switch, self.value, self.soft = switch, value, soft


class ParseContext:
    """What every source's parsing shares: the environment (for -V and -v),
    the submit directory (-cwd), the file reader, the warnings collected so
    far, the current source's warning prefix and the `-@` nesting depth."""

    __slots__ = ("environ", "cwd", "read_file", "warnings", "warn_prefix", "depth")

    def __init__(self, environ: Mapping[str, str], cwd: str, read_file: Callable[[str], str],
                 warnings: list[str], warn_prefix: str = "", depth: int = 0) -> None:
        self.environ, self.cwd, self.read_file = environ, cwd, read_file
        self.warnings, self.warn_prefix, self.depth = warnings, warn_prefix, depth


class OptionParser:
    """One call of Grid Engine's cull_parse_cmdline: -hard/-soft start hard."""

    def __init__(self, ctx: ParseContext, opts: list[ParsedOption], pseudos: bool) -> None:
        self.ctx, self.opts, self.pseudos, self.soft = ctx, opts, pseudos, False

    def run(self, tokens: Sequence[str]) -> None:
        index = 0
        while index < len(tokens):
            index = self._one(tokens, index)

    def _one(self, tokens: Sequence[str], index: int) -> int:
        token = tokens[index]
        if token in FLAG_OPTIONS:
            return self._flag(token, index)
        if token in OPTION_SPECS:
            return self._with_argument(token, tokens, index)
        if token == "-pe":
            return self._pe(tokens, index)
        if token == "-@":
            return self._include(tokens, index)
        if token.startswith("-") and token not in ("-", "--"):
            raise ParseError(f'invalid option argument "{token}"', STATUS_ESEMANTIC)
        if not self.pseudos:
            loose = ParsedOption(token) if token in ("-", "--") else ParsedOption("", token)
            self.opts.append(loose)
            return index + 1
        return self._script(tokens, index)

    def _warn_repeat(self, switch: str) -> None:
        if any(opt.switch == switch for opt in self.opts):
            self.ctx.warnings.append(f'{self.ctx.warn_prefix}"{switch}" option has already '
                                     "been set, overriding previous setting")

    def _flag(self, token: str, index: int) -> int:
        if token in WARN_ON_REPEAT_FLAGS:
            self._warn_repeat(token)
        if token in ("-hard", "-soft"):
            self.soft = token == "-soft"
        if token == "-V":
            self.opts.append(ParsedOption("-v", list(self.ctx.environ.items())))
            self.opts.append(ParsedOption("-V"))
        else:
            cwd = token == "-cwd"
            self.opts.append(ParsedOption("-wd", self.ctx.cwd) if cwd else ParsedOption(token))
        return index + 1

    def _with_argument(self, switch: str, tokens: Sequence[str], index: int) -> int:
        parse, missing, warn = OPTION_SPECS[switch]
        if warn:
            self._warn_repeat(switch)
        if index + 1 >= len(tokens):
            raise ParseError(missing.format(switch=switch), STATUS_ESEMANTIC)
        arg = tokens[index + 1]
        if switch in ("-v", "-ac", "-dc", "-sc"):
            value = parse(switch, arg, self.ctx.environ)
        else:
            value = parse(switch, arg)
        if switch == "-C" and arg == "":
            value = None  # an empty prefix switches directive scanning off
        if switch in UNKNOWN_LATER:
            value = arg  # refused later, quoted as given
        self.opts.append(ParsedOption(switch, value, self.soft))
        return index + 2

    def _pe(self, tokens: Sequence[str], index: int) -> int:
        self._warn_repeat("-pe")
        if index + 1 >= len(tokens):
            raise ParseError("-pe option must have pe_name argument", STATUS_ESEMANTIC)
        if index + 2 >= len(tokens):
            raise ParseError("-pe option must have range as 2nd argument", STATUS_ESEMANTIC)
        ranges = parse_ranges(tokens[index + 2], step_allowed=False, inf_allowed=True)
        if not ranges:
            raise ParseError("-pe option must have range as 2nd argument", STATUS_ESEMANTIC)
        pairs = [(r[0], r[1]) for r in ranges]
        self.opts.append(ParsedOption("-pe", (tokens[index + 1], pairs)))
        return index + 3

    def _include(self, tokens: Sequence[str], index: int) -> int:
        if index + 1 >= len(tokens):
            raise ParseError("-@ option must have file argument", STATUS_ESEMANTIC)
        path = tokens[index + 1]
        if self.ctx.depth >= _MAX_INCLUDE_DEPTH:
            raise ParseError(f"error reading from file {path}", STATUS_EUNKNOWN)
        try:
            text = self.ctx.read_file(path)
        except OSError as err:
            raise ParseError(f"error opening {path}: {err.strerror}", STATUS_EDISK) from None
        self.ctx.depth += 1
        parse_lines(text, "", self.ctx, self.opts)
        self.ctx.depth -= 1
        return index + 2

    def _script(self, tokens: Sequence[str], index: int) -> int:
        rest = list(tokens[index:])
        if rest[0] == "--":
            if len(rest) == 1:
                raise ParseError("-- option must be followed by job arguments",
                                 STATUS_ESEMANTIC)
        else:
            self.opts.append(ParsedOption(SCRIPT_SWITCH, rest[0]))
        self.opts.extend(ParsedOption(ARG_SWITCH, arg) for arg in rest[1:])
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
    # blanks, tabs and newlines separate (string methods: no regex to compile at start-up)
    tokens = [t for t in body.replace("\t", " ").replace("\n", " ").split(" ") if t]
    return [t.replace('"', "").replace("'", "") for t in tokens] or None


def parse_lines(text: str, prefix: str, ctx: ParseContext, opts: list[ParsedOption]) -> None:
    """Append the options of every line of `text` (see _directive_tokens)."""
    for line in text.split("\n"):
        tokens = _directive_tokens(line, prefix)
        if tokens:
            OptionParser(ctx, opts, pseudos=False).run(tokens)


def parse_source(prefixes: tuple[str, str], ctx: ParseContext,
                 work: Callable[[], None]) -> None:
    """Run one source's parsing; its errors carry that source's prefix."""
    ctx.warn_prefix = prefixes[1]
    try:
        work()
    except ParseError as err:
        raise QsubError(prefixes[0] + err.text, err.status) from None
