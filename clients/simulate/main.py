"""``pyge simulate``: what a configuration would have done to a workload.

    pyge simulate WORKLOAD [--format auto|accounting|swf]
                  [--root DIR [--cell NAME]] [--hosts N --slots N]
                  [--sched-conf FILE] [--set NAME=VALUE ...] [--share-tree FILE]
                  [--project FILE ...] [--user FILE ...] [--no-policy] [--json] [--plot FILE.png]

The workload (a cell's accounting file, or an SWF trace of the Parallel Workloads
Archive) is replayed on a virtual clock through the dispatch pass and the scheduling
policy of the cell at ``--root`` (read from its spool) or of a freshly installed cell,
changed by the options; see docs/simulate.md. Exit status 0, or 1 with a message on
stderr for a workload or configuration that cannot be used.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Sequence

from clients.simulate import config as cfg
from clients.simulate.engine import POLICY, simulate
from clients.simulate.metrics import report, share_over_time, targets
from clients.simulate.render import as_json, plot, text
from clients.simulate.workload import WorkloadError, read_workload


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("workload", help="an accounting file or an SWF file")
    p.add_argument("--format", choices=("auto", "accounting", "swf"), default="auto",
                   help="the workload's format (default: from its name and content)")
    p.add_argument("--root", type=Path, default=None,
                   help="replay with the configuration of the cell at DIR (its spool)")
    p.add_argument("--cell", default="default", help="the cell's name under --root")
    p.add_argument("--hosts", type=int, default=None,
                   help="simulated exec hosts (default: the cell's; without --root 1)")
    p.add_argument("--slots", type=int, default=None,
                   help="slots per simulated host in every queue (default 1)")
    p.add_argument("--sched-conf", metavar="FILE",
                   help="a scheduler configuration (qconf -ssconf format) to use instead")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                   help="change one sched_conf(5) parameter (repeatable)")
    p.add_argument("--share-tree", metavar="FILE",
                   help="a share tree (share_tree(5), qconf -sstree format) to use")
    p.add_argument("--project", action="append", default=[], metavar="FILE",
                   help="a project (project(5), qconf -sprj format) to add or replace")
    p.add_argument("--user", action="append", default=[], metavar="FILE",
                   help="a user (user(5), qconf -suser format) to add or replace")
    p.add_argument("--no-policy", action="store_true",
                   help="take pending jobs by -p then job id (no tickets, no urgency)")
    p.add_argument("--reserve-from", type=int, default=0, metavar="SLOTS",
                   help="submit the jobs of at least SLOTS slots with -R y (resource "
                        "reservation; needs max_reservation above 0)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--plot", metavar="FILE.png",
                   help="draw each user's delivered share over time into a PNG file")


def build_config(args: argparse.Namespace, projects: Sequence[str] = ()) -> cfg.SimConfig:
    """The configuration the options describe; ``projects``: the workload's."""
    if args.root is not None:
        config = cfg.cell_config(args.root.resolve(), args.cell)
        config = replace(config, tree=cfg.stored_tree(config.conf, projects))
        if args.hosts is not None or args.slots is not None:
            config = cfg.with_hosts(config, args.hosts or 1, args.slots or 1)
    else:
        config = cfg.new_cell(args.hosts or 1, args.slots or 1)
    if args.sched_conf:
        config = cfg.with_sched_file(config, args.sched_conf)
    if args.set:
        config = config.with_sched(_assignments(args.set))
    if args.project:
        config = cfg.with_projects(config, args.project)
    if args.user:
        config = cfg.with_user_files(config, args.user)
    if args.share_tree:
        config = cfg.with_tree_file(config, args.share_tree, projects)
    return config


def _assignments(items: Sequence[str]) -> dict[str, str]:
    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise cfg.ConfigError(f"--set {item!r}: NAME=VALUE expected")
        out[name.strip()] = value.strip()
    return out


def run(args: argparse.Namespace) -> int:
    try:
        workload = read_workload(args.workload, args.format)
        config = build_config(args, sorted({j.project for j in workload.jobs
                                            if j.project}))
    except (WorkloadError, cfg.ConfigError) as err:
        print(f"pyge simulate: {err}", file=sys.stderr)
        return 1
    if not config.hosts:
        print("pyge simulate: the configuration has no exec host (give --hosts)",
              file=sys.stderr)
        return 1
    if args.reserve_from < 0:
        print("pyge simulate: --reserve-from: a number of slots expected", file=sys.stderr)
        return 1
    if args.reserve_from:
        workload = replace(workload, jobs=tuple(
            replace(j, reserve=j.slots >= args.reserve_from) for j in workload.jobs))
    orderer = None if args.no_policy else POLICY
    result = simulate(workload, config, orderer)
    figures = report(result, config, workload.skipped)
    over_time = share_over_time(result) if (args.plot or args.json) else None
    if args.plot:
        times, series = over_time  # type: ignore[misc]
        _, user_targets, _ = targets(config, list(result.runs.values()))
        try:
            plot(times, series, user_targets,
                 last_submission=figures.window).save(args.plot)
        except OSError as err:
            print(f"pyge simulate: {args.plot}: {err.strerror}", file=sys.stderr)
            return 1
    sys.stdout.write(as_json(figures, over_time) if args.json else text(figures))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="pyge simulate", description=(
        "replay a workload through the dispatch pass and the scheduling policy on a "
        "virtual clock (docs/simulate.md)"))
    add_arguments(p)
    return run(p.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
