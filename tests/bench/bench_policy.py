"""Benchmark of the pure policy core alone (common.policy.priority.evaluate): prints
figures, asserts nothing about time.

    python3 tests/bench/bench_policy.py [--jobs 100000] [--users 200] [--running 4000]
                                        [--repeat 3]

The issue's workload: ``--jobs`` pending jobs of ``--users`` users (varied -p, request
sets, a few deadlines, a few -js/-ot), ``--running`` running tasks (1,000 hosts with 4
slots each are full), a three-level share tree (root, 10 groups, the users below them,
plus a ``default`` leaf), functional shares of users, projects and departments,
override tickets for some users and one project, and urgency with slots, a consumable
and a string attribute. Prints the time of one ``evaluate`` (and of building the order
by hand from its result, which is all the scheduler asks), the time until the first
JobPriority record is read, and the jobs per second (wall and this process's CPU time).
"""
from __future__ import annotations

import argparse
import random
import statistics
import time

from common.policy.conf import PolicyConf
from common.policy.model import (USER_NODE, Entities, Entity, PolicyJob,
                                 ResourceUrgency, RunningTask, ShareNode, UsageTable)
from common.policy.priority import evaluate

URGENCIES = {"slots": ResourceUrgency(1000.0, "YES", True),
             "lic": ResourceUrgency(100.0, "YES", True),
             "arch": ResourceUrgency(10.0, "NO", False)}
NOW = 2_000_000_000


def workload(jobs: int, users: int, running: int, seed: int = 7
             ) -> tuple[list[PolicyJob], Entities, list[ShareNode], UsageTable]:
    rng = random.Random(seed)
    names = [f"user{i:03d}" for i in range(users)]
    projects = [f"proj{i}" for i in range(4)]
    entities = Entities(
        users={n: Entity(fshare=rng.choice((10, 20, 50, 100)),
                         oticket=(500 if i % 25 == 0 else 0)) for i, n in enumerate(names)},
        projects={p: Entity(fshare=100, oticket=(1000 if p == "proj0" else 0))
                  for p in projects},
        departments={"defaultdepartment": Entity(fshare=10),
                     "dept1": Entity(fshare=30)})
    groups = 10
    nodes = [ShareNode(0, "Root", USER_NODE, 1, tuple(range(1, groups + 1)))]
    next_id = groups + 1
    per_group = users // groups
    for g in range(groups):
        members = names[g * per_group:(g + 1) * per_group]
        ids = tuple(range(next_id, next_id + len(members)))
        nodes.append(ShareNode(g + 1, f"group{g}", USER_NODE, 100 + 10 * g, ids))
        for node_id, name in zip(ids, members):
            nodes.append(ShareNode(node_id, name, USER_NODE, rng.choice((1, 2, 5))))
        next_id += len(members)
    nodes[1] = ShareNode(1, "group0", USER_NODE, 100, nodes[1].childnodes + (next_id,))
    nodes.append(ShareNode(next_id, "default", USER_NODE, 1))
    usage = UsageTable(users={n: rng.uniform(0, 1e6) for n in names})
    out: list[PolicyJob] = []
    request_sets = [{}, {"lic": "1"}, {"arch": "lx-amd64"}, {"lic": "2", "arch": "lx-amd64"}]
    for i in range(jobs):
        owner = names[i % users]
        out.append(PolicyJob(
            job_id=i + 1, owner=owner, project=projects[i % 4] if i % 3 == 0 else None,
            department="dept1" if i % 7 == 0 else "defaultdepartment",
            submit_time=NOW - 86400 + i // 10, priority=-(i % 5) * 10,
            deadline=NOW + 3600 if i % 1000 == 0 else None,
            job_share=10 if i % 500 == 0 else 0, override_tickets=100 if i % 997 == 0 else 0,
            slots=1 if i % 50 else 4, requests=request_sets[i % 4], pending_tasks=1))
    for r in range(running):
        owner = names[r % users]
        out.append(PolicyJob(job_id=jobs + r + 1, owner=owner, submit_time=NOW - 90000,
                             running=(RunningTask(1, 1),)))
    return out, entities, nodes, usage


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=100_000)
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--running", type=int, default=4000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    jobs, entities, nodes, usage = workload(args.jobs, args.users, args.running)
    conf = PolicyConf(weight_tickets_functional=10000, weight_tickets_share=10000,
                      weight_priority=1.0, weight_urgency=0.1, weight_ticket=0.01)
    times, cpu, first = [], [], []
    for _ in range(args.repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = evaluate(jobs, conf, entities=entities, tree=nodes, usage=usage,
                          urgencies=URGENCIES, now=NOW)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        start = time.perf_counter()
        result.jobs[result.order[0]]
        first.append(time.perf_counter() - start)
    best = min(times)
    print(f"policy evaluate: {args.jobs} pending jobs, {args.running} running tasks, "
          f"{args.users} users, {len(nodes)} share tree nodes")
    print(f"  evaluate (best of {args.repeat}): {best * 1000:.1f} ms "
          f"(median {statistics.median(times) * 1000:.1f} ms), "
          f"{args.jobs / best:,.0f} pending jobs/s; CPU time {min(cpu) * 1000:.1f} ms "
          f"(wall time suffers when other processes share the cores)")
    print(f"  first JobPriority read: {min(first) * 1e6:.0f} us")
    print(f"  order: {len(result.order)} jobs, first {result.order[:5]}")


if __name__ == "__main__":
    main()
