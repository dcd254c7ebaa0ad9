"""qhost: show the execution hosts of the cell, as qhost(1) of Grid Engine 8.1.9.

Supported: plain, -q (queue instances per host), -j (running jobs per host), -u user_list
(only their jobs, implies -j), -F [resource,...] (the host's load values), -h host_list,
-xml, -ncb (without the topology columns), -l resource_list (the hosts that offer it, as
the qmaster's resource view has them now), -help: every option of qhost(1).

Errors as 8.1.9 prints them: an unknown word gives the usage and "error: invalid option
argument" on stderr (exit 1); an unresolvable -h host "error: can't resolve hostname".
"""
from __future__ import annotations

import _socket
import sys

from clients.api import ClientError, connect_or_exit
from common.record import Record, field
from clients.render.qhost import render_hosts, render_hosts_xml
from clients.views.qhost import host_rows

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

PRODUCT = "SGE 8.1.9"
USAGE = (f"{PRODUCT}\nusage: qhost [options]\n"
         "  [-F [resource_attribute]]  show (selected) resources\n"
         "  [-h hostlist]              display only selected hosts\n"
         "  [-help]                    print this help\n"
         "  [-j]                       display jobs hosted by host\n"
         "  [-l attr=val,...]          request the given resources\n"
         "  [-ncb]                     suppress host topology based information\n"
         "  [-q]                       display queues hosted by host\n"
         "  [-u user[,user,...]]       show only jobs for user\n"
         "  [-xml]                     display the information in XML format\n"
         # ours, after 8.1.9's lines
         "\n  [-fmt plain|json]          output format (json: not in 8.1.9)\n")
_FLAGS = ("-help", "-ncb", "-q", "-j", "-xml")
_OPTIONAL_ARG = ("-F",)
_REQUIRED_ARG = ("-h", "-l", "-u", "-fmt")

if TYPE_CHECKING:
    Resolver = Callable[[str], bool]


class QhostExit(Exception):
    def __init__(self, message: str, usage: bool = True) -> None:
        super().__init__(message)
        self.message, self.usage = message, usage


class QhostArgs(Record):
    help: bool = False
    queues: bool = False
    jobs: bool = False
    xml: bool = False
    no_binding: bool = False          # -ncb
    resources: bool = False
    resource_names: list[str] | None = None
    hosts: list[str] | None = None
    users: list[str] | None = None
    resource_request: list[str] | None = None  # -l
    fmt: str | None = None            # -fmt (the last wins)
    json: bool = False                # -fmt json
    errors: list[str] = field(default_factory=list)


def _split(words: list[str]) -> list[str]:
    return [item for word in words for item in word.split(",") if item]


def tokenize(argv: list[str]) -> list[tuple[str, list[str]]]:
    """(switch, arguments) pairs; arguments run up to the next word starting with '-'."""
    out, i = [], 0
    while i < len(argv):
        switch, i = argv[i], i + 1
        if switch not in _FLAGS + _OPTIONAL_ARG + _REQUIRED_ARG:
            raise QhostExit(f'error: invalid option argument "{switch}"')
        args: list[str] = []
        while switch not in _FLAGS and i < len(argv) and argv[i] and not argv[i].startswith("-"):
            args.append(argv[i])
            i += 1
        if switch in _REQUIRED_ARG and not args:
            raise QhostExit(f"error: {switch} option must have argument", usage=False)
        out.append((switch, args))
    return out


def _apply(args: QhostArgs, switch: str, values: list[str], resolves: Resolver) -> None:
    if switch in ("-q", "-j", "-xml", "-ncb"):
        setattr(args, {"-q": "queues", "-j": "jobs", "-xml": "xml", "-ncb": "no_binding"}[switch],
                True)
    elif switch == "-F":
        args.resources = True
        args.resource_names = _split(values) if values else args.resource_names
    elif switch == "-l":
        args.resource_request = (args.resource_request or []) + _split(values)
    elif switch == "-u":
        args.users, args.jobs = (args.users or []) + _split(values), True
    elif switch == "-h":
        hosts = _split(values)
        for host in hosts:
            if not resolves(host):
                raise QhostExit(f'error: can\'t resolve hostname "{host}"')
        args.hosts = (args.hosts or []) + hosts
    elif switch == "-fmt":
        args.fmt = values[0]


def parse_args(argv: list[str], resolves: Resolver) -> QhostArgs:
    args = QhostArgs()
    tokens = tokenize(argv)
    if any(switch == "-help" for switch, _ in tokens):
        args.help = True
        return args
    for switch, values in tokens:
        _apply(args, switch, values, resolves)
    if args.fmt is not None:  # (json's modules only when asked: a command starts small)
        from clients.render.jsondoc import FormatError, check_format
        try:
            args.json = check_format(args.fmt, xml=args.xml)
        except FormatError as exc:
            raise QhostExit(f"error: {exc}") from None
    return args


def resolver(known: set[str]) -> Resolver:
    """A host name is valid when the cell knows it or the resolver does."""
    def resolves(name: str) -> bool:
        if name.lower() in known:
            return True
        try:
            _socket.getaddrinfo(name, None)  # (socket's enums would cost 2 ms)
        except (OSError, UnicodeError):
            return False
        return True
    return resolves


def render(args: QhostArgs, cluster: dict[str, Any], reply: dict[str, Any] | None) -> str:
    rows = host_rows(cluster, reply, hosts=args.hosts,
                     users=tuple(args.users) if args.users else None)
    if args.resource_request:  # -l: the hosts that offer it (not the global one: 8.1.9)
        offering = set((cluster.get("selected") or {}).get("hosts") or [])
        rows = [row for row in rows if row["name"] in offering]
    kwargs = {"show_queues": args.queues, "show_jobs": args.jobs,
              "resource_names": args.resource_names, "show_resources": args.resources,
              "topology": not args.no_binding}
    if args.json:
        from clients.render.jsondoc.qhost import render_hosts_json
        return render_hosts_json(rows, **kwargs)
    return render_hosts_xml(rows, **kwargs) if args.xml else render_hosts(rows, **kwargs)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        tokens_only = parse_args(argv, lambda name: True)
        if tokens_only.help:
            sys.stdout.write(USAGE)
            return 0
        client = connect_or_exit("qhost")
        with client:
            request = ",".join(tokens_only.resource_request or [])
            cluster = client.cluster(resources=tokens_only.resources, select=request) \
                if request else client.cluster(resources=tokens_only.resources)
            refused = (cluster.get("selected") or {}).get("error")
            if refused:  # (8.1.9's words: unknown resource "x")
                raise QhostExit(f"error: {refused}", usage=False)
            known = {h.lower() for h in cluster.get("exechosts") or []}
            args = parse_args(argv, resolver(known | {"global"}))
            reply = client.jobs(ranges=True, priorities=True) if args.jobs else None
            if reply is not None:  # the prior column: the qmaster's policy figures
                from clients.views.qstat import attach_policy
                attach_policy(reply)
            sys.stdout.write(render(args, cluster, reply))
        return 0
    except QhostExit as stop:
        sys.stderr.write((USAGE if stop.usage else "") + stop.message + "\n")
        return 1
    except ClientError as error:
        sys.stderr.write(f"error: {error.message}\n")
        return 1


if __name__ == "__main__":
    import clients  # (as the launcher, clients/scripts/)
    clients.run(main, collect=False)
