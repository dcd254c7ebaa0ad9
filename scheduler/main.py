"""``pyge-scheduler``: the scheduler daemon's command line."""
from __future__ import annotations

import argparse
from pathlib import Path

from common import keys
from common.cell import read_act_qmaster
from common.daemon import add_cell_options, cell_of, run_until_signalled
from common.log import configure
from scheduler.service import SCHEDULE_FILE, SchedulerService


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="pyge-scheduler", description="pygridengine scheduler")
    add_cell_options(p)
    p.add_argument("--qmaster", default=None, help="host:port:event_port (default: from cell)")
    p.add_argument("--min-interval", type=float, default=0.0,
                   help="minimum seconds between dispatch passes")
    p.add_argument("--key-file", type=Path, default=None,
                   help="the scheduler's secret CURVE key (default <cell>/keys/"
                        "scheduler.key_secret)")
    p.add_argument("--qmaster-key", type=Path, default=None,
                   help="the qmaster's public key (default <cell>/common/keys/qmaster.key)")
    args = p.parse_args(argv)
    resolve = None
    if args.key_file is None or args.qmaster_key is None:
        key_cell = cell_of(args, p)
    try:
        curve = keys.daemon_keys(args.key_file or keys.secret_path(key_cell, keys.SCHEDULER),
                                 args.qmaster_key or keys.qmaster_public_path(key_cell))
    except keys.KeyFileError as err:
        raise SystemExit(f"pyge-scheduler: {err}") from None
    if args.qmaster:
        host, port, event_port = args.qmaster.rsplit(":", 2)
    else:
        cell = cell_of(args, p)
        host, port, event_port = "", 0, 0  # found (and followed) through act_qmaster
        resolve = lambda: read_act_qmaster(cell)  # noqa: E731 - follows qmaster restarts
    log = configure("scheduler", args.log_file, args.log_level)
    # sched_conf(5) params MONITOR=1: $SGE_ROOT/$SGE_CELL/common/schedule
    schedule = cell_of(args, p).common_dir / SCHEDULE_FILE if args.root else None
    service = SchedulerService(host, int(port), int(event_port), curve,
                               min_interval=args.min_interval, log=log, resolve=resolve,
                               schedule_path=schedule)
    run_until_signalled(service.run, service.stop)


if __name__ == "__main__":
    main()
