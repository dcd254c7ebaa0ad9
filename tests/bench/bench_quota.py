"""Benchmark: what resource quota sets cost the dispatch pass. Prints figures, asserts
nothing about time.

    python3 -m tests.bench.bench_quota [--jobs 10000] [--users 100] [--hosts 1000]
                                       [--sets 20] [--rules 10] [--repeat 3]

Issue 11's case: ``--jobs`` pending serial jobs of ``--users`` users on ``--hosts`` hosts
(the cell of tests/bench/bench_pass.py: 4 queues of 4 slots on every host), and
``--sets`` enabled rule sets of ``--rules`` rules each: per-user slot limits for some
users, then ``users {*}`` and per-host (``hosts {*}``) catch-all rules. One pass with the
sets and one without, each the best of ``--repeat``; the goal is that quotas add under
50 % to the pass.
"""
from __future__ import annotations

import argparse
import time
from typing import Any

from common.placement.dispatch import PassStats, dispatch_pass
from common.placement.inputs import pass_input
from common.placement.job import placement_job
from common.quota.rqs_format import RuleSet, parse_rule_sets, rule_set_pairs
from tests.bench.bench_pass import make_conf, make_hosts


def rule_sets(n_sets: int, n_rules: int, n_users: int) -> list[RuleSet]:
    text = ""
    for s in range(n_sets):
        rules = [f"limit users u{(s * 7 + r) % n_users:03d} to slots={5 + r}"
                 for r in range(max(n_rules - 2, 0))]
        rules += ["limit users {*} hosts {*} to slots=8", "limit users {*} to slots=400"][
            :n_rules]
        text += f"{{\nname set{s:02d}\nenabled true\n" + "\n".join(rules) + "\n}\n"
    return parse_rule_sets(text)


def make_input(n_jobs: int, n_users: int, n_hosts: int, sets: list[RuleSet]) -> Any:
    hosts = make_hosts(n_hosts)
    conf = make_conf(list(hosts))
    conf["rqs"] = {rs.name: rule_set_pairs(rs) for rs in sets}
    conf.setdefault("userset", {})
    jobs = {j: placement_job({"job_id": j, "owner": f"u{j % n_users:03d}", "opts": {}})
            for j in range(1, n_jobs + 1)}
    pending = [{"job_id": j, "task_id": 1, "version": 1, "state": "pending"} for j in jobs]
    return pass_input(conf, hosts, jobs, [], pending=pending)


def best_pass(n_jobs: int, n_users: int, n_hosts: int, sets: list[RuleSet],
              repeat: int) -> tuple[float, int]:
    best, orders = float("inf"), 0
    for _ in range(repeat):
        inp = make_input(n_jobs, n_users, n_hosts, sets)
        start = time.perf_counter()
        orders = len(dispatch_pass(inp, PassStats()))
        best = min(best, time.perf_counter() - start)
    return best, orders


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--jobs", type=int, default=10000)
    p.add_argument("--users", type=int, default=100)
    p.add_argument("--hosts", type=int, default=1000)
    p.add_argument("--sets", type=int, default=20)
    p.add_argument("--rules", type=int, default=10)
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    sets = rule_sets(a.sets, a.rules, a.users)
    plain, plain_orders = best_pass(a.jobs, a.users, a.hosts, [], a.repeat)
    quota, quota_orders = best_pass(a.jobs, a.users, a.hosts, sets, a.repeat)
    print(f"{a.jobs} pending jobs of {a.users} users, {a.hosts} hosts, "
          f"{a.sets} sets x {a.rules} rules")
    print(f"pass without quotas: {plain * 1000:9.1f} ms, {plain_orders} orders")
    print(f"pass with quotas:    {quota * 1000:9.1f} ms, {quota_orders} orders")
    print(f"quotas add {100 * (quota - plain) / plain:.0f} % to the pass (goal: under 50 %)")


if __name__ == "__main__":
    main()
