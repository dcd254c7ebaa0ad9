"""sge_share_mon: the share tree's nodes, their shares, targets, actual shares and usage,
as sge_share_mon(1) of Grid Engine 8.1.9 prints them (fields, delimiters, -h header,
-n name=value, -t times, -x leaves only, node names, -c/-i collections, -o/-m file).

The figures are the qmaster's policy view (``qmaster.policy_view.share_tree_rows``);
``render`` is pure. Options are read as 8.1.9's getopt reads ``c:d:f:hi:l:m:no:r:s:tux``
(``-help`` is ``-h -e ...``: "invalid option -- 'e'", the usage, exit 1).
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Any, Sequence, TextIO

from common.policy.share_rows import FIELDS, TEXT_FIELDS, TIME_FIELDS, number_text

_WITH_ARG = frozenset("cdfilmors")
_FLAGS = frozenset("hntux")

USAGE = """usage: sge_share_mon [-cdfhilmnorsux] [node_names ...]

   -c count          number of collections (default is infinite)
   -d delimiter      delimiter between columns (default is <TAB>)
   -f field[,field]  list of fields to print
   -h                print a header containing the field names
   -i interval       collection interval in seconds (default is 15)
   -l delimiter      delimiter between nodes (default is <CR>)
   -m output_mode    output file fopen mode (default is "w")
   -n                use name=value format
   -o output_file    output file
   -r delimiter      delimiter between collection records (default is <CR>)
   -s string_format  format of displayed strings (default is %s)
   -t                show formatted times
   -u                show decayed usage (since timestamp) in nodes
   -x                exclude non-leaf nodes

"""


class ShareMonExit(Exception):
    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.message, self.status = message, status


@dataclass
class Format:
    delim: str = "\t"
    line_delim: str = "\n"
    rec_delim: str = "\n"
    fields: list[str] | None = None
    name_format: bool = False
    str_format: str = "%s"
    format_times: bool = False


@dataclass
class ShareMonArgs:
    count: int = -1  # -1: for ever
    interval: int = 15
    header: bool = False
    output: str | None = None
    mode: str = "w"
    decay: bool = False
    leaves_only: bool = False
    names: list[str] = field(default_factory=list)
    format: Format = field(default_factory=Format)


def parse_args(argv: Sequence[str]) -> ShareMonArgs:
    """getopt's reading of ``c:d:f:hi:l:m:no:r:s:tux`` (options before the node names;
    ``--`` ends them)."""
    args = ShareMonArgs()
    i = 0
    while i < len(argv) and argv[i].startswith("-") and argv[i] != "-":
        word = argv[i]
        i += 1
        if word == "--":
            break
        j = 1
        while j < len(word):
            letter = word[j]
            if letter in _FLAGS:
                _flag(args, letter)
                j += 1
                continue
            if letter not in _WITH_ARG:
                raise ShareMonExit(f"sge_share_mon: invalid option -- '{letter}'\n" + USAGE, 1)
            value = word[j + 1:]
            if not value:
                if i >= len(argv):
                    raise ShareMonExit(f"sge_share_mon: option requires an argument -- "
                                       f"'{letter}'\n" + USAGE, 1)
                value = argv[i]
                i += 1
            _option(args, letter, value)
            break
    args.names = list(argv[i:])
    return args


def _flag(args: ShareMonArgs, letter: str) -> None:
    if letter == "h":
        args.header = True
    elif letter == "n":
        args.format.name_format = True
    elif letter == "t":
        args.format.format_times = True
    elif letter == "u":
        args.decay = True
    else:
        args.leaves_only = True


def _option(args: ShareMonArgs, letter: str, value: str) -> None:
    if letter in "ci":
        number = _atoi(value)
        if number <= 0:  # 8.1.9: a count or interval must be a positive number
            what = "count" if letter == "c" else "interval"
            raise ShareMonExit(f'"{value}" is not a valid {what}', 1)
        if letter == "c":
            args.count = number
        else:
            args.interval = number
    elif letter == "f":
        args.format.fields = [f for f in value.split(",") if f]
    elif letter == "d":
        args.format.delim = value
    elif letter == "l":
        args.format.line_delim = value
    elif letter == "r":
        args.format.rec_delim = value
    elif letter == "s":
        args.format.str_format = value
    elif letter == "m":
        args.mode = value
    else:
        args.output = value


def _atoi(text: str) -> int:
    digits = ""
    for ch in text.strip():
        if not ch.isdigit():
            break
        digits += ch
    return int(digits) if digits else 0


# --------------------------------------------------------------------------- rendering

def _shown_fields(fmt: Format) -> list[str]:
    if fmt.fields is None:
        return list(FIELDS)
    return [name for name in fmt.fields if name in FIELDS]


def header(fmt: Format) -> str:
    """The -h line: the field names, then the line and the record delimiters."""
    return "".join(f"{name}{fmt.delim}" for name in _shown_fields(fmt)) + \
        fmt.line_delim + fmt.rec_delim


def _string(fmt: Format, value: str) -> str:
    try:
        return fmt.str_format % value
    except (TypeError, ValueError):
        return value


def _value(fmt: Format, name: str, row: dict[str, Any]) -> str:
    value = row.get(name)
    if name in TIME_FIELDS and int(value or 0) and fmt.format_times:
        return _string(fmt, time.strftime("%a %b %e %H:%M:%S %Y",
                                          time.localtime(int(value or 0))))
    if name in TEXT_FIELDS:
        return _string(fmt, str(value or ""))
    return number_text(name, value)


def render(rows: list[dict[str, Any]], fmt: Format, *, names: Sequence[str] = (),
           leaves_only: bool = False) -> str:
    """One collection: a line per node (``names``: only nodes of these paths;
    ``leaves_only``: -x), each field followed by the column delimiter."""
    shown = _shown_fields(fmt)
    out = []
    for row in rows:
        if leaves_only and not row.get("leaf"):
            continue
        if names and row.get("node_name") not in names:
            continue
        fields = "".join((f"{name}=" if fmt.name_format else "") + _value(fmt, name, row)
                         + fmt.delim for name in shown)
        if shown:
            out.append(fields + fmt.line_delim)
    return "".join(out)


# --------------------------------------------------------------------------- command

def _write(args: ShareMonArgs, text: str, out: TextIO) -> None:
    if args.output is None:
        out.write(text)
        out.flush()
        return
    try:
        with open(args.output, args.mode) as f:
            f.write(text)
    except (OSError, ValueError) as err:
        raise ShareMonExit(f"could not open {args.output} for {args.mode}", 1) from err


def run(args: ShareMonArgs, client: Any, out: TextIO) -> int:
    text = header(args.format) if args.header else ""
    count = args.count
    while count == -1 or count > 0:
        reply = client.share_tree(decay=args.decay)
        if not reply.get("tree"):
            raise ShareMonExit("No share tree", 2)
        text += render(reply.get("nodes") or [], args.format, names=args.names,
                       leaves_only=args.leaves_only)
        if count != -1:
            count -= 1
        if count and args.format.rec_delim:
            text += args.format.rec_delim
        _write(args, text, out)
        text = ""
        if count:
            time.sleep(args.interval)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    from clients.api import ClientError
    from clients.api import connect_or_exit
    try:
        args = parse_args(argv)
        client = connect_or_exit("sge_share_mon")
        with client:
            return run(args, client, sys.stdout)
    except ShareMonExit as stop:
        sys.stderr.write(stop.message if stop.message.endswith("\n") else stop.message + "\n")
        return stop.status
    except ClientError as error:
        sys.stderr.write(f"error: {error.message}\n")
        return 3
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    import clients  # (as the launcher, clients/scripts/)
    clients.run(main)
