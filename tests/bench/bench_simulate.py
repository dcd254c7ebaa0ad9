"""Benchmark of ``pyge simulate``: prints figures, asserts nothing about time.

    python3 tests/bench/bench_simulate.py [--jobs 3000] [--users 5] [--hosts 4]
                                          [--slots 8] [--days 7] [--longest 1.5]

A simulated week: ``--jobs`` serial and parallel jobs (1 to 4 slots, 10 minutes to
``--longest`` hours) of ``--users`` users submitted at random over ``--days`` days, on
``--hosts`` hosts of ``--slots`` slots, with a share tree (shares 1, 2, ... per user)
and functional tickets on; replayed once with the policy and once first come, first
served. Prints the wall and CPU time of each, the passes and policy evaluations.
The defaults ask for about 80 % of the cell; an overloaded cell (``--longest 4``: a
backlog of a thousand jobs and more) costs what a pass and an evaluation over the
whole backlog cost, at every event.
"""
from __future__ import annotations

import argparse
import random
import time

from clients.simulate import config as cfg
from clients.simulate.engine import POLICY, simulate
from clients.simulate.metrics import report
from clients.simulate.workload import SimJob, Workload
from common.policy.model import USER_NODE, ShareNode


def workload(n: int, users: int, days: float, longest: float = 1.5,
             seed: int = 27) -> Workload:
    r = random.Random(seed)
    times = sorted(r.uniform(0, days * 86400) for _ in range(n))
    jobs = []
    for i, t in enumerate(times, 1):
        slots = r.choice((1, 1, 1, 2, 4))
        jobs.append(SimJob(i, t, r.uniform(600, longest * 3600), slots=slots,
                           owner=f"user{r.randrange(users)}",
                           pe="mpi" if slots > 1 else None))
    return Workload(tuple(jobs))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--jobs", type=int, default=3000)
    p.add_argument("--users", type=int, default=5)
    p.add_argument("--hosts", type=int, default=4)
    p.add_argument("--slots", type=int, default=8)
    p.add_argument("--days", type=float, default=7.0)
    p.add_argument("--longest", type=float, default=1.5, help="hours")
    args = p.parse_args()
    tree = [ShareNode(0, "Root", USER_NODE, 1, tuple(range(1, args.users + 1)))] + [
        ShareNode(i + 1, f"user{i}", USER_NODE, i + 1) for i in range(args.users)]
    config = cfg.with_tree(cfg.new_cell(args.hosts, args.slots).with_sched(
        {"weight_tickets_share": "10000", "weight_tickets_functional": "1000"}), tree)
    jobs = workload(args.jobs, args.users, args.days, args.longest)
    print(f"{args.jobs} jobs of {args.users} users over {args.days:g} days on "
          f"{args.hosts} x {args.slots} slots")
    for label, orderer in (("with the policy", POLICY), ("first come, first served", None)):
        wall, cpu = time.perf_counter(), time.process_time()
        result = simulate(jobs, config, orderer)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        figures = report(result, config)
        print(f"{label}: {wall:.2f} s wall, {cpu:.2f} s CPU; {result.passes} passes, "
              f"{result.evaluations} policy evaluations, utilisation "
              f"{100 * figures.utilisation:.1f} %")


if __name__ == "__main__":
    main()
