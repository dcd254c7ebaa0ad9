"""qselect: print the queue instances that match the selection, as qselect(1) of Grid
Engine 8.1.9 (one ``queue@host`` a line; none found: nothing, exit 1).

Every option of qselect(1): -l resource_list, -q wc_queue_list, -pe pe_list, -qs states,
-U user_list, -help, with qstat's selection (clients.qstat): the same words, the same
order of instances. Errors as
8.1.9's: an unknown option prints the usage and 'invalid option argument' on stderr, an
unknown parallel environment 'error: no such parallel environment' (exit 1).
"""
from __future__ import annotations

import sys

from clients.api import ClientError, connect_or_exit
from clients.qstat import (ARGUMENT_TYPES, PRODUCT, QUEUE_STATE_LETTERS, NothingSelected, QstatArgs,
                           QstatExit, _instances, _split, _state_letters, selection_cluster)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO

    from clients.api import Client

_REQUIRED_ARG = ("-l", "-pe", "-q", "-qs", "-U")
USAGE = (f"{PRODUCT}\nusage: qselect [options]\n"
         "        [-help]                           print this help\n"
         "        [-l resource_list]                request the given resources\n"
         "        [-pe pe_list]                     select only queues with one of these parallel environments\n"
         "        [-q wc_queue_list]                print information on given queue\n"
         "        [-qs {a|c|d|o|s|u|A|C|D|E|S}]     selects queues which are in the given state(s)\n"
         "        [-U user_list]                    select only queues where these users have access\n"
         "\n"
         + ARGUMENT_TYPES)


class NoneFound(Exception):
    """Nothing matches: 8.1.9 prints nothing and exits 1."""


def parse_args(argv: list[str]) -> QstatArgs | None:
    """The selection as qstat's arguments; None for -help. Raises QstatExit."""
    args, errors, i = QstatArgs(), [], 0
    tokens: list[tuple[str, list[str]]] = []
    while i < len(argv):
        switch, i = argv[i], i + 1
        if switch != "-help" and switch not in _REQUIRED_ARG:
            raise QstatExit(f'invalid option argument "{switch}"', usage=True)
        values: list[str] = []
        while switch != "-help" and i < len(argv) and argv[i] and not argv[i].startswith("-"):
            values.append(argv[i])
            i += 1
        if switch in _REQUIRED_ARG and not values:
            errors.append(f"{switch} option must have argument")
            continue
        tokens.append((switch, values))
    if errors:
        raise QstatExit("\n".join(errors))
    if any(switch == "-help" for switch, _ in tokens):
        return None
    for switch, values in tokens:
        if switch == "-l":
            args.resource_request.extend(_split(values))
        elif switch == "-q":
            args.queues.extend(_split(values))
        elif switch == "-pe":
            args.pes.extend(_split(values))
        elif switch == "-U":
            args.queue_users.extend(_split(values))
        else:  # -qs: the last wins
            args.queue_states = _state_letters(values[0], QUEUE_STATE_LETTERS)
    return args


def check_pes(wanted: list[str], pes: set[str]) -> None:
    """-pe naming no configured parallel environment is an error (8.1.9)."""
    if wanted and not set(wanted) & pes:
        raise QstatExit("error: no such parallel environment")


def selected_names(cluster: dict[str, Any], chosen: frozenset[str] | None) -> list[str]:
    """The matching instances' names in the cluster's order (``chosen``: qstat's
    selection, None = all)."""
    from clients.views.qstat import instance_name
    names = [instance_name(i["queue"], i["host"]) for i in cluster.get("instances") or []]
    found = [n for n in names if chosen is None or n in chosen]
    if not found:
        raise NoneFound
    return found


def select(args: QstatArgs, client: Client, out: TextIO) -> int:
    try:
        cluster = selection_cluster(args, client)
    except QstatExit:  # a -l list naming no attribute: nothing, exit 1 (8.1.9)
        return 1
    if args.pes:
        check_pes(args.pes, set(client.conf_get("pe")))
    try:
        chosen = _instances(args, client, cluster)
    except (QstatExit, NothingSelected):  # qstat's 'no queues remaining': qselect says nothing
        return 1
    try:
        names = selected_names(cluster, chosen)
    except NoneFound:
        return 1
    out.write("".join(f"{name}\n" for name in names))
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        args = parse_args(argv)
        if args is None:
            sys.stdout.write(USAGE)
            return 0
        client = connect_or_exit("qselect")
        with client:
            return select(args, client, sys.stdout)
    except QstatExit as stop:
        sys.stderr.write((USAGE if stop.usage else "") + stop.message + "\n")
        return stop.status
    except ClientError as error:
        sys.stderr.write(f"error: {error.message}\n")
        return 1


if __name__ == "__main__":
    import clients  # (as the launcher, clients/scripts/)
    clients.run(main)
