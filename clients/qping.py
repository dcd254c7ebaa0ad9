"""qping: is a daemon of the cell up, as qping(1) of Grid Engine 8.1.9 answers for the
qmaster.

``qping [-i interval] [-info] [-f] host port qmaster 1``: the host and port the cell's
qmaster records (common/act_qmaster: its request port) are pinged with the qmaster's
``ping`` request through the ordinary client connection, which answers when the
qmaster started. Without -info one line per interval until interrupted (8.1.9's
``endpoint vm/qmaster/1 at port 6444 is up for 5255 seconds``), -info one status block
and exit, -f the block at every interval. A port nobody listens on gives 8.1.9's
``can't find connection`` (exit 1).

Refused with a message (docs/compatibility.md): any name but ``qmaster`` (an execd here
listens on no port of its own: it connects to the qmaster), -dump/-dump_tag/-nonewline
(commlib traffic: the wire here is ZMTP), -ssl (pygridengine uses CURVE). -noalias and
-tcp are accepted (no host_aliases file; TCP is what it uses).
"""
from __future__ import annotations

import sys
import time

from clients.api import ClientError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO

PRODUCT = "SGE 8.1.9"
USAGE_LINE = ("usage: qping [-help] [-noalias] [-ssl|-tcp] [ [ [-i <interval>] [-info] [-f] ] "
              "| [ [-dump_tag tag [param] ] [-dump] [-nonewline] ] ] <host> <port> <name> <id>\n")
USAGE = (f"{PRODUCT}\n{USAGE_LINE}"
         '   -i         : set ping interval time\n'
         '   -info      : show full status information and exit\n'
         '   -f         : show full status information on each ping interval\n'
         '   -noalias   : ignore $SGE_ROOT/SGE_CELL/common/host_aliases file\n'
         '   -ssl       : use SSL framework\n'
         '   -tcp       : use TCP framework\n'
         '   -dump      : dump communication traffic (see "communication traffic output options" for additional information)\n'
         '                   (provides the same output like -dump_tag MSG)\n'
         '   -dump_tag  : dump communication traffic (see "communication traffic output options" for additional information)\n'
         '                   tag=MSG               - show protocol messages like -dump\n'
         '                   <debug level>         - ERROR, WARNING, INFO, DEBUG or DPRINTF\n'
         '   -nonewline : dump output will not have a linebreak within a message\n'
         '   -help      : show this info\n'
         '   host       : host name of running component\n'
         '   port       : port number of running component\n'
         '   name       : name of running component (e.g.: "qmaster" or "execd")\n'
         '   id         : id of running component (e.g.: 1 for daemons)\n'
         '\n'
         'example:\n'
         '   qping -info clustermaster 5000 qmaster 1\n'
         '\n'
         'communication traffic output options:\n'
         '   The environment variable SGE_QPING_OUTPUT_FORMAT can be used to hide columns and\n'
         '   to set default column width. For hostname output the parameter hn is used.\n'
         '   SGE_QPING_OUTPUT_FORMAT="h:1 h:4 w:1:20"\n'
         '   will hide the columns 1 and 4 and set the width of column 1 to 20 characters.\n'
         '       h:X   -> hide column X\n'
         '       s:X   -> show column X\n'
         '       w:X:Y -> set width of column X to Y\n'
         '       hn:X  -> set hostname output parameter X. X values are "long" or "short"\n'
         '\n'
         '   available columns are:\n'
         '\n'
         '   nr active name      description\n'
         '   == ====== ====      ===========\n'
         '   01 yes    time      time of debug output creation\n'
         '   02 yes    local     endpoint service name where debug client is connected\n'
         '   03 yes    d.        message direction\n'
         '   04 yes    remote    name of participating communication endpoint\n'
         '   05 yes    format    message data format\n'
         '   06 yes    ack type  message acknowledge type\n'
         '   07 yes    msg tag   message tag information\n'
         '   08 yes    msg id    message id\n'
         '   09 yes    msg rid   message response id\n'
         '   10 yes    msg len   message length\n'
         '   11 yes    msg time  time when message was sent/received\n'
         '   12  no    msg dump  message content dump (xml/bin/cull)\n'
         '   13  no    info      additional information\n'
         '   14 yes    msg ltime commlib linger time\n'
         '   15 yes    con count number of connections\n'
)
_UNSUPPORTED = ("-dump", "-dump_tag", "-nonewline", "-ssl")


class QpingExit(Exception):
    def __init__(self, message: str, status: int = 1, usage: bool = False,
                 out: str = "") -> None:
        super().__init__(message)
        self.message, self.status, self.usage, self.out = message, status, usage, out


class QpingArgs:
    def __init__(self) -> None:
        self.help = self.info = self.full = False
        self.interval = 1.0
        self.host, self.port, self.name, self.ident = "", 0, "", 0


def parse_args(argv: list[str]) -> QpingArgs:
    args, i = QpingArgs(), 0
    while i < len(argv) and argv[i].startswith("-"):
        word, i = argv[i], i + 1
        if word == "-help":
            args.help = True
            return args
        if word in _UNSUPPORTED:
            raise QpingExit(f'error: qping option "{word}" is not supported by pygridengine')
        if word == "-i":
            if i >= len(argv) or not argv[i].isdigit():
                raise QpingExit("", usage=True)
            args.interval, i = float(argv[i]), i + 1
        elif word == "-info":
            args.info = True
        elif word == "-f":
            args.full = True
        elif word not in ("-noalias", "-tcp"):
            raise QpingExit("", usage=True)
    rest = argv[i:]
    if not argv:
        raise QpingExit("ERROR! no option argument", usage=True)  # (8.1.9's, captured)
    if len(rest) != 4 or not rest[1].isdigit() or not rest[3].isdigit():
        raise QpingExit("", usage=True)
    args.host, args.port, args.name, args.ident = rest[0], int(rest[1]), rest[2], int(rest[3])
    return args


def endpoint(args: QpingArgs) -> str:
    return f"{args.host}/{args.name}/{args.ident}"


def stamp(now: float) -> str:
    return time.strftime("%m/%d/%Y %H:%M:%S", time.localtime(now))


def up_line(args: QpingArgs, now: float, start: float) -> str:
    return (f"{stamp(now)} endpoint {endpoint(args)} at port {args.port} is up for "
            f"{int(now - start)} seconds\n")


def info_block(now: float, start: float, message_id: int) -> str:
    """-info/-f: 8.1.9's status block; the figures commlib keeps (buffers, clients,
    threads) are not kept here: the buffers show 0, ``info`` the qmaster as one thread."""
    return (f"{stamp(now)}:\n"
            "SIRM version:             0.1\n"
            f"SIRM message id:          {message_id}\n"
            f"start time:               {stamp(start)} ({int(start)})\n"
            f"run time [s]:             {int(now - start)}\n"
            "messages in read buffer:  0\n"
            "messages in write buffer: 0\n"
            "no. of connected clients: 1\n"
            "status:                   0\n"
            f"info:                     MAIN: R ({now - start:.2f}) | OK\n"
            "Monitor:                  disabled\n\n\n")


def not_found(args: QpingArgs, why: str) -> QpingExit:
    """8.1.9's answer for an endpoint it cannot reach (stdout; the reason on stderr)."""
    return QpingExit(why, out=f"endpoint {endpoint(args)} at port {args.port}: "
                     "can't find connection\n")


def _same_host(a: str, b: str) -> bool:
    return a.split(".")[0].lower() == b.split(".")[0].lower()


def qmaster_start(args: QpingArgs) -> float:
    """The start time of the cell's qmaster at ``args``' host and port."""
    from clients.api import Client
    from common.cell import CellNotFound
    if args.name != "qmaster":
        raise QpingExit(f'error: qping: pygridengine answers for "qmaster" only ("{args.name}" '
                        "listens on no port of its own)")
    try:
        client = Client()
    except (CellNotFound, ClientError) as err:
        raise not_found(args, f"error: {getattr(err, 'message', err)}") from None
    if not _same_host(client.host, args.host) or client.port != args.port:
        raise not_found(args, f"got select error: the cell's qmaster is "
                        f"{client.host}/qmaster/1 at port {client.port}")
    with client:
        try:
            reply = client.request("ping", {})
        except ClientError as err:
            raise not_found(args, f"got select error: {err.message}") from None
    return float(reply.get("start_time") or 0.0)


def run(args: QpingArgs, out: TextIO, start: float, clock: Any = time.time,
        sleep: Any = time.sleep, count: int | None = None) -> int:
    """Print -info's block once, else a line (a block with -f) per interval; ``count``
    bounds the loop (tests), else it runs until interrupted."""
    message_id = 1
    while True:
        now = clock()
        out.write(info_block(now, start, message_id) if args.info or args.full
                  else up_line(args, now, start))
        out.flush()
        if args.info or (count is not None and message_id >= count):
            return 0
        message_id += 1
        sleep(args.interval)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        args = parse_args(argv)
        if args.help:
            sys.stdout.write(USAGE)
            return 0
        return run(args, sys.stdout, qmaster_start(args))
    except QpingExit as stop:
        sys.stdout.write(stop.out)
        sys.stderr.write((USAGE if stop.usage else "")
                         + (stop.message + "\n" if stop.message else ""))
        return stop.status
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    import clients  # (as the launcher, clients/scripts/)
    clients.run(main)
