"""``pyge web``: serve the live web view of a cell on ``--bind`` (loopback by default)
and ``--port``, as the user who runs it, until SIGINT or SIGTERM.

It prints ``web: http://HOST:PORT/`` once it listens (``--port 0``: a free port).
It has no authentication of its own: docs/web.md shows how to put it behind a proxy that
has some.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import threading
from pathlib import Path

from clients.web.follow import Follower
from clients.web.server import WebServer
from clients.web.state import WebState
from common.cell import DEFAULT_CELL, Cell

DEFAULT_PORT = 8080
DEFAULT_BIND = "127.0.0.1"


def parser(default_root: Path) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="pyge web",
                                description="serve a live, read-only web view of the cell")
    p.add_argument("--root", type=Path, default=default_root)
    p.add_argument("--cell", default=os.environ.get("PYGE_CELL", DEFAULT_CELL))
    p.add_argument("--port", type=_port, default=DEFAULT_PORT,
                   help=f"TCP port (default {DEFAULT_PORT}; 0: a free one)")
    p.add_argument("--bind", default=DEFAULT_BIND,
                   help="address to listen on (default 127.0.0.1: this machine only)")
    return p


def _port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f'invalid port "{text}" (0-65535)')
    return int(text)


def main(argv: list[str], default_root: Path) -> int:
    args = parser(default_root).parse_args(argv)
    cell = Cell(args.root.resolve(), args.cell)
    if not cell.path.is_dir():
        print(f'pyge web: no cell "{args.cell}" under {cell.root}', file=sys.stderr)
        return 1
    try:
        return asyncio.run(serve(cell, args.bind, args.port))
    except OSError as err:
        print(f"pyge web: cannot listen on {args.bind}:{args.port}: {err.strerror}",
              file=sys.stderr)
        return 1


async def serve(cell: Cell, bind: str, port: int) -> int:
    from common.log import configure
    log = configure("web")
    state, lock = WebState(), threading.Lock()
    follower: Follower | None = None
    server = WebServer(state, lock, lambda job_id: follower.explain(job_id)
                       if follower else None)
    await server.start(bind, port)
    follower = Follower(cell, state, lock, server.notifier(), log)
    follower.start()
    host, real_port = server.address or (bind, port)
    shown = f"[{host}]" if ":" in host else host
    print(f"web: http://{shown}:{real_port}/", flush=True)
    log.info("serving", bind=host, port=real_port, cell=str(cell.path))
    stopped = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stopped.set)
    await stopped.wait()
    follower.stop()
    await server.stop()
    return 0
