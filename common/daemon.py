"""What the three daemons share at start-up: cell options, logging, signal handling,
whether a port is free."""
from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
from pathlib import Path
from typing import Any, Callable

import msgpack  # noqa: F401 - loaded now, so that common.wire never reads a peer's
# message with the small codec it keeps for the commands' start-up: a daemon decodes
# what anybody sends with msgpack itself
from common.cell import DEFAULT_CELL, Cell


def add_cell_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--root", default=os.environ.get("PYGE_ROOT"),
                        help="cell root directory (default $PYGE_ROOT)")
    parser.add_argument("--cell", default=os.environ.get("PYGE_CELL", DEFAULT_CELL))
    parser.add_argument("--log-file", type=Path, default=None)
    parser.add_argument("--log-level", default="info")


def cell_of(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Cell:
    if not args.root:
        parser.error("no cell: give --root or set PYGE_ROOT")
    return Cell(Path(args.root), args.cell)


def short_hostname() -> str:
    return socket.gethostname().split(".")[0]


def run_until_signalled(main: Callable[[], Any], stop: Callable[[], None]) -> None:
    """Run coroutine ``main()`` and call ``stop`` on SIGTERM or SIGINT."""
    async def runner() -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop)
        await main()
    asyncio.run(runner())


def port_is_free(address: str, port: int) -> bool:
    """Whether a TCP listener could bind ``address:port`` now (as libzmq binds it, with
    SO_REUSEADDR: a port in TIME_WAIT is free)."""
    host = "0.0.0.0" if address in ("*", "") else address
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True
