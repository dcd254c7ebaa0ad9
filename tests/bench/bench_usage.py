"""Benchmark of the share tree usage bookkeeping (issue 27: "updating usage for 10,000
running jobs under 50 ms"). Prints figures, asserts nothing.

    python3 -m tests.bench.bench_usage [--tasks 10000] [--users 200] [--rounds 5]

Pure, no cell: ``qmaster.usage_book.UsageBook`` books one usage report round of
``--tasks`` running tasks (each a cumulative figure higher than the last: every task
books), spread over ``--users`` owners, half of them in one of 20 projects, as one
report (``running_report``, what an execd's load report costs) with the rollback journal
a request keeps; then the flush that spools and publishes every holder
and base (into a counting transaction), and the ``UsageTable`` the policy reads. Each
figure is the median of ``--rounds`` rounds.
"""
from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from common.policy.conf import PolicyConf
from common.policy.usage import decay_constants
from qmaster.usage_book import UsageBook

GOAL_MS = 50.0


class CountingTxn:
    def __init__(self) -> None:
        self.rows = 0

    def put(self, kind: str, key: str, data: Any) -> None:
        self.rows += 1

    def delete(self, kind: str, key: str) -> None:
        self.rows += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", type=int, default=10_000)
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    conf = PolicyConf(halftime=168)
    constants = decay_constants(conf)
    owners = [(f"user{i % args.users}", f"project{i % 20}" if i % 2 else None)
              for i in range(args.tasks)]
    keys = [f"{i + 1}.1" for i in range(args.tasks)]
    book = UsageBook()
    journal: list[Any] = []
    report_ms, report_cpu_ms, flush_ms, table_ms = [], [], [], []
    now = 1_000_000.0
    for round_ in range(1, args.rounds + 1):
        now += 40.0  # a load report interval
        journal.clear()
        started, cpu = time.perf_counter(), time.process_time()
        usage = {"cpu": 40.0 * round_, "mem": 2.0 * round_, "io": 0.01 * round_}
        book.running_report([(key, 1.0, owner, project, usage)
                             for key, (owner, project) in zip(keys, owners)],
                            now, constants, journal.append)
        report_ms.append((time.perf_counter() - started) * 1000)
        report_cpu_ms.append((time.process_time() - cpu) * 1000)
        txn, events = CountingTxn(), []
        started = time.perf_counter()
        book.flush(txn, lambda *event: events.append(event), now)
        flush_ms.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        table = book.table(now + 1.0, conf)
        table_ms.append((time.perf_counter() - started) * 1000)
    holders = len(table.users) + len(table.projects) + len(table.user_projects)
    print(f"usage book: {args.tasks} running tasks of {args.users} users, {holders} holders")
    print(f"  booking one report round  {statistics.median(report_ms):8.1f} ms  "
          f"(goal {GOAL_MS:.0f} ms; {statistics.median(report_cpu_ms):.1f} ms of CPU)")
    print(f"  flush (spool + events)    {statistics.median(flush_ms):8.1f} ms  "
          f"({txn.rows} rows, {len(events)} events)")
    print(f"  UsageTable for the policy {statistics.median(table_ms):8.1f} ms")


if __name__ == "__main__":
    main()
