"""``pyge-execd``: the execution daemon's command line.

The shepherd launcher (a fork server) is started before the daemon imports zmq, asyncio
or structlog: every shepherd is a fork of it, and a small parent makes each fork cheap.
"""
from __future__ import annotations

import argparse
import os
import socket
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from execd.launcher import Launcher

if TYPE_CHECKING:
    from common.cell import Cell


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="pyge-execd", description="pygridengine execd")
    p.add_argument("--root", default=os.environ.get("PYGE_ROOT"),
                   help="cell root directory (default $PYGE_ROOT)")
    p.add_argument("--cell", default=os.environ.get("PYGE_CELL", "default"))
    p.add_argument("--log-file", type=Path, default=None)
    p.add_argument("--log-level", default="info")
    p.add_argument("--hostname", default=socket.gethostname().split(".")[0],
                   help="host name to register as (several execds on one machine)")
    p.add_argument("--qmaster", default=None, help="host:port (default: from the cell)")
    p.add_argument("--spool", type=Path, default=None,
                   help="spool directory (default: the configuration's "
                        "execd_spool_dir/<hostname>, asked of the qmaster)")
    p.add_argument("--load-interval", type=float, default=None,
                   help="seconds between load reports (default: load_report_time)")
    p.add_argument("--cgroups", choices=("auto", "off"), default="auto",
                   help="contain each job in a cgroup v2 of its own where the machine "
                        "delegates a cgroup tree (auto), or follow jobs by their "
                        "process tree only (off)")
    p.add_argument("--key-file", type=Path, default=None,
                   help="this execd's secret CURVE key (default <cell>/keys/"
                        "execd-<hostname>.key_secret)")
    p.add_argument("--qmaster-key", type=Path, default=None,
                   help="the qmaster's public key (default <cell>/common/keys/qmaster.key)")
    return p


def wait_for_qmaster(cell: "Cell") -> tuple[str, int]:
    """The qmaster's address from act_qmaster, waiting while a (re)start has not written it."""
    from common.cell import read_act_qmaster
    while True:
        try:
            host, port, _ = read_act_qmaster(cell)
            return host, port
        except (OSError, IndexError, ValueError):
            time.sleep(0.1)  # (pyge up starts a fresh cell's execds beside its qmaster)


def _configured_spool(qmaster: str, port: int, curve: Any, hostname: str, log: Any,
                      launcher: Launcher) -> Path:
    """The spool the qmaster's configuration names (execd_spool_dir/<host>)."""
    from execd.spool_conf import SpoolConfError, fetch_spool
    try:
        return fetch_spool(qmaster, port, curve, hostname, log.warning)
    except SpoolConfError as err:
        launcher.stop()
        raise SystemExit(f"pyge-execd: the qmaster does not say where to spool: {err}") from None


def main(argv: list[str] | None = None) -> None:
    p = parser()
    args = p.parse_args(argv)
    launcher = Launcher()
    launcher.start()
    from common.cell import Cell
    from common.daemon import run_until_signalled
    from common.log import configure
    from execd import safefs
    from execd.service import ExecdService
    cell = Cell(Path(args.root), args.cell) if args.root else None
    if args.qmaster:
        host, port = args.qmaster.rsplit(":", 1)
    elif cell is not None:
        host, port = wait_for_qmaster(cell)
    else:
        p.error("give --qmaster or a cell")
    from common import keys
    if cell is None and (args.key_file is None or args.qmaster_key is None):
        p.error("give --key-file and --qmaster-key, or a cell")
    try:
        curve = keys.daemon_keys(
            args.key_file or keys.secret_path(cell, keys.execd_name(args.hostname)),  # type: ignore[arg-type]
            args.qmaster_key or keys.qmaster_public_path(cell))  # type: ignore[arg-type]
    except keys.KeyFileError as err:
        launcher.stop()
        raise SystemExit(f"pyge-execd: {err}") from None
    log = configure("execd", args.log_file, args.log_level).bind(host=args.hostname)
    spool = args.spool or _configured_spool(host, int(port), curve, args.hostname, log,
                                            launcher)
    service = ExecdService(spool, args.hostname, host, int(port), curve,
                           load_interval=args.load_interval, log=log, launcher=launcher,
                           cgroups=args.cgroups == "auto",
                           cell=(str(cell.root), cell.name) if cell is not None else None)
    try:
        service.prepare()
    except (safefs.UnsafePath, OSError) as exc:  # a spool we must not use: say why, plainly
        launcher.stop()
        raise SystemExit(f"pyge-execd: can't use spool directory {spool}: {exc}") from None
    run_until_signalled(service.run, service.stop)


if __name__ == "__main__":
    main()
