"""``pyge-execd``: the execution daemon's command line."""
from __future__ import annotations

import argparse
from pathlib import Path

from common.cell import read_act_qmaster
from common.daemon import add_cell_options, cell_of, run_until_signalled, short_hostname
from common.log import configure
from execd.service import ExecdService


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="pyge-execd", description="pygridengine execd")
    add_cell_options(p)
    p.add_argument("--hostname", default=short_hostname(),
                   help="host name to register as (several execds on one machine)")
    p.add_argument("--qmaster", default=None, help="host:port (default: from the cell)")
    p.add_argument("--spool", type=Path, default=None, help="spool directory")
    p.add_argument("--load-interval", type=float, default=None,
                   help="seconds between load reports (default: load_report_time)")
    args = p.parse_args(argv)
    cell = cell_of(args, p) if args.root else None
    if args.qmaster:
        host, port = args.qmaster.rsplit(":", 1)
    elif cell is not None:
        host, port, _ = read_act_qmaster(cell)
    else:
        p.error("give --qmaster or a cell")
    spool = args.spool or (cell.execd_spool_dir(args.hostname) if cell else None)
    if spool is None:
        p.error("give --spool")
    log = configure("execd", args.log_file, args.log_level).bind(host=args.hostname)
    service = ExecdService(spool, args.hostname, host, int(port),
                           load_interval=args.load_interval, log=log)
    service.prepare()
    run_until_signalled(service.run, service.stop)


if __name__ == "__main__":
    main()
