"""``pyge-qmaster``: the qmaster daemon's command line."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from common import munge
from common.cell import DEFAULT_PORT
from common.daemon import add_cell_options, cell_of, run_until_signalled, short_hostname
from common.log import configure
from qmaster.server import QmasterServer


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="pyge-qmaster", description="pygridengine qmaster")
    add_cell_options(p)
    p.add_argument("--host", default=short_hostname(), help="host name clients use")
    p.add_argument("--bind", default="127.0.0.1", help="address to listen on ('*' for all)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help="request port (0: any)")
    p.add_argument("--event-port", type=int, default=0, help="event port (0: any)")
    p.add_argument("--managers", default="", help="comma list of managers for a new cell")
    p.add_argument("--min-uid", type=int, default=None,
                   help="min_uid/min_gid of a new cell (default Grid Engine's 1000)")
    p.add_argument("--auto-add-hosts", action="store_true",
                   help="accept execds of unknown hosts and add them to @allhosts")
    p.add_argument("--slots", type=int, default=0,
                   help="slots of all.q on auto-added hosts (default: their num_proc)")
    p.add_argument("--key-file", type=Path, default=None,
                   help="the qmaster's secret CURVE key (default <cell>/keys/"
                        "qmaster.key_secret, made if missing)")
    p.add_argument("--trusted-keys", type=Path, default=None,
                   help="directory of the scheduler's and execds' public keys the qmaster "
                        "accepts (default <cell>/keys/trusted)")
    p.add_argument("--munge-socket", default=None,
                   help="munged's socket, for remote clients' credentials (default "
                        "$PYGE_MUNGE_SOCKET or libmunge's)")
    return p


def main(argv: list[str] | None = None) -> None:
    p = parser()
    args = p.parse_args(argv)
    cell = cell_of(args, p)
    log = configure("qmaster", args.log_file, args.log_level)
    server = QmasterServer(cell, host=args.host, bind=args.bind, port=args.port,
                           event_port=args.event_port,
                           managers=[m for m in args.managers.split(",") if m],
                           auto_add_hosts=args.auto_add_hosts, default_slots=args.slots,
                           min_uid=args.min_uid, key_file=args.key_file,
                           trusted_keys=args.trusted_keys,
                           munge_socket=args.munge_socket or munge.socket_from_env(),
                           log=log)
    run_until_signalled(server.run, server.stop)
    # Everything that must last is committed and closed by now. Freeing the store's
    # objects one by one at exit would take about a second per 100,000 jobs, which a
    # restart would wait for.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
