"""Benchmark of the pure dispatch pass: prints figures, asserts nothing about time.

    python3 tests/bench/bench_pass.py [--jobs 100000] [--hosts 1000] [--categories 50]
                                      [--nocache-jobs 2000] [--repeat 3] [--policy]

A simulated cell: ``--hosts`` exec hosts with load values (two architectures, varied
mem_free), 4 cluster queues on every host (4 slots each, different h_rt), a global JOB
license consumable and a per-host consumable; ``--jobs`` pending jobs spread over
``--categories`` request sets (arch, mem_free, h_rt, hostname, -q, consumables, soft
requests, PEs with $pe_slots / $fill_up / $round_robin). Prints the time of building
the resource view (the scheduler's mirror does it once per pass), the time and peak
memory (tracemalloc) of one pass, and the same pass without the category cache on the
first ``--nocache-jobs`` jobs (with the cached time of those jobs for comparison and the
per-job cost extrapolated to all jobs).

``--policy`` (issue 27): the same pass with the scheduling policy, as the scheduler runs
it: the policy's inputs built from the jobs, task records and configuration
(``common.policy.inputs``: 200 users in 10 departments, 20 projects, a three-level share
tree, functional and override tickets, urgency on), evaluated, and the pass taking the
jobs in its order; printed beside the same pass without policy.

``--reservation`` (issue 28): the same cell with 3 slots a queue instance (12 a host),
``--running`` one-slot jobs running (``h_rt`` 1 to 4 hours, started up to an hour ago;
10,000 of 12,000 slots) and, first in the order, ``--reserving`` wide jobs
(``-R y -pe mpi 4000``, ``$fill_up``: a third of the cell's slots; ``h_rt`` 2:0:0,
which two of the four queues do not offer, ``--wide-h-rt`` to change it) that cannot start now; the pass with planning
(``max_reservation`` = their number: each gets a reservation, every other job is checked
against them) printed beside the same pass without planning (goals: < 1 s, < 1.5x).
"""
from __future__ import annotations

import argparse
import time
import tracemalloc
from typing import Any

from common.cluster import queue_instances
from common.placement.job import placement_job
from common.placement.dispatch import PassInput, PassStats, PEConf, dispatch_pass
from common.placement.resources import build_view

QUEUES = {"short.q": "0:30:0", "long.q": "INFINITY", "big.q": "24:0:0", "test.q": "0:5:0"}


def make_conf(hosts: list[str]) -> dict[str, Any]:
    conf: dict[str, Any] = {"queue": {}, "hgrp": {"@all": [["group_name", "@all"],
                                                          ["hostlist", " ".join(hosts)]]},
                            "exechost": {"global": [["complex_values", "lic=40"]]}, "pe": {}}
    for seq, (name, h_rt) in enumerate(QUEUES.items()):
        conf["queue"][name] = [["qname", name], ["hostlist", "@all"], ["seq_no", str(seq)],
                               ["slots", "4"], ["h_rt", h_rt], ["pe_list", "smp mpi rr"]]
    for i, host in enumerate(hosts):
        conf["exechost"][host] = [["complex_values", f"tok={i % 5}"]]
    for name, rule in (("smp", "$pe_slots"), ("mpi", "$fill_up"), ("rr", "$round_robin")):
        conf["pe"][name] = [["pe_name", name], ["slots", "2000"], ["allocation_rule", rule]]
    conf["complex"] = _complexes()
    return conf


def _complexes() -> dict[str, list[list[str]]]:
    from common.resource.complexes import default_complexes
    cols = ("shortcut", "type", "relop", "requestable", "consumable", "default", "urgency")
    rows = {a.name: [a.shortcut, a.type.value, a.relop.value, a.requestable.value,
                     a.consumable.value, a.default, a.urgency] for a in default_complexes()}
    rows["lic"] = ["lic", "INT", "<=", "YES", "JOB", "0", "0"]
    rows["tok"] = ["tok", "INT", "<=", "YES", "YES", "0", "0"]
    return {name: [list(p) for p in zip(cols, row)] for name, row in rows.items()}


def make_hosts(n: int) -> dict[str, dict[str, Any]]:
    return {f"node{i:04d}": {"alive": True, "load": {
        "arch": "lx-amd64" if i % 4 else "lx-arm64", "num_proc": "16",
        "mem_free": f"{2 + i % 30}G", "np_load_avg": f"{(i % 17) / 10:.2f}"}}
        for i in range(n)}


def category(c: int, hosts: list[str]) -> dict[str, Any]:
    """Request set number ``c``: ten kinds, each in five variants (``c // 10``), so
    50 sets are 50 distinct categories."""
    kind, v = c % 10, c // 10
    hard: dict[str, str] = {}
    opts: dict[str, Any] = {"priority": 0}
    if kind == 0:
        hard.update(arch="lx-amd64", num_proc=str(16 - v % 2))
    elif kind == 1:
        hard["mem_free"] = f"{4 + v * 5}G"
    elif kind == 2:
        hard["h_rt"] = f"{1 + v}:0:0"
    elif kind == 3:
        hard["hostname"] = hosts[(c * 37) % len(hosts)]
    elif kind == 4:
        opts["hard_queues"] = [list(QUEUES)[v % 4]] + (["test.q"] if v == 4 else [])
    elif kind == 5:
        hard["tok"] = str(1 + v % 2)
        if v > 1:
            hard["h_rt"] = f"{v}:0:0"
    elif kind == 6:
        hard["lic"] = "1"
        opts["pe"] = ["mpi", 4, 4 + v]
    elif kind == 7:
        opts["soft_resources"] = {"arch": "lx-arm64", "mem_free": f"{2 + v}G"}
    elif kind == 8:
        opts["pe"] = ["smp" if v < 3 else "rr", 2, 2 + v]
    else:
        hard["arch"] = f"nosuch{v}" if v % 2 == 0 else "lx-arm64"
        hard["h_rt"] = f"{v}:0:0"
    opts["hard_resources"] = hard
    return opts


def make_pass(n_jobs: int, n_hosts: int, n_cats: int, *, cache: bool = True,
              timings: dict[str, float] | None = None) -> PassInput:
    hosts = make_hosts(n_hosts)
    conf = make_conf(list(hosts))
    instances = queue_instances(conf, hosts)
    start = time.perf_counter()
    view = build_view(conf, hosts, instances, [])
    if timings is not None:
        timings["view"] = time.perf_counter() - start
    cats = [category(c, list(hosts)) for c in range(n_cats)]
    jobs = {j: placement_job({"job_id": j, "owner": "u", "opts": cats[j % n_cats]})
            for j in range(1, n_jobs + 1)}
    pending = [{"job_id": j, "task_id": 1, "version": 1} for j in jobs]
    pes = {n: PEConf.from_pairs(n, p) for n, p in conf["pe"].items()}
    return PassInput(jobs, pending, instances, {},
                     load={h: float(v["load"]["np_load_avg"]) for h, v in hosts.items()},
                     pe_of_queue={q: {"smp", "mpi", "rr"} for q in QUEUES},
                     resources=view, pes=pes, category_cache=cache)


POLICY_SCONF = [["weight_tickets_functional", "10000"], ["weight_tickets_share", "10000"],
                ["weight_priority", "0.1"], ["policy_hierarchy", "OFS"]]


def policy_cell(conf: dict[str, Any], jobs: dict[int, Any], users: int = 200
                ) -> tuple[dict[str, Any], dict[int, Any], list[Any]]:
    """The benchmark's configuration with policy objects, its jobs spread over ``users``
    owners and 20 projects (a few with -ot, -js, -p), and a three-level share tree
    (root, 10 groups, their users)."""
    from dataclasses import replace
    from common.policy.model import USER_NODE, ShareNode
    conf = dict(conf, sconf={"global": POLICY_SCONF}, userset={}, project={})
    for d in range(10):
        members = ",".join(f"user{u}" for u in range(d, users, 10))
        conf["userset"][f"dept{d}"] = [["name", f"dept{d}"], ["type", "DEPT"],
                                       ["fshare", str(10 + d)], ["oticket", "0"],
                                       ["entries", members]]
    for p in range(20):
        conf["project"][f"proj{p}"] = [["name", f"proj{p}"], ["oticket", str(p % 3 * 100)],
                                       ["fshare", str(1 + p)], ["acl", "NONE"],
                                       ["xacl", "NONE"]]
    owned = {j: replace(job, owner=f"user{j % users}", project=f"proj{j % 20}",
                        priority=-(j % 7), override_tickets=50 if j % 997 == 0 else 0,
                        job_share=j % 3, submit_time=1_700_000_000.0 + j)
             for j, job in jobs.items()}
    nodes = [ShareNode(0, "Root", USER_NODE, 1, tuple(range(1, 11)))]
    next_id = 11
    for g in range(10):
        kids = tuple(range(next_id, next_id + users // 10))
        nodes.append(ShareNode(g + 1, f"group{g}", USER_NODE, 10 + g, kids))
        for i, node_id in enumerate(kids):
            nodes.append(ShareNode(node_id, f"user{g + 10 * i}", USER_NODE, 1 + i % 3))
        next_id += users // 10
    return conf, owned, nodes


def policy_order(conf: dict[str, Any], jobs: dict[int, Any], pending: list[dict[str, Any]],
                 tree: list[Any], cache: Any = None) -> tuple[dict[int, int], float, float]:
    """The scheduler's step before a pass: inputs built (from ``cache``, the mirror's
    PolicyJobCache, when given), policy evaluated, order ranks. Returns them and the
    seconds the building and the evaluation took."""
    from dataclasses import replace
    from common.policy import inputs
    from common.policy.model import UsageTable
    start = time.perf_counter()
    found = inputs.policy_inputs(conf, jobs, pending, [], cache=cache)
    found = replace(found, tree=tuple(tree))  # (inputs.share_tree: the cell's, at the merge)
    built = time.perf_counter() - start
    usage = UsageTable(users={f"user{u}": float(u * 100) for u in range(200)})
    result = inputs.evaluate(found, usage, 1_700_200_000.0)
    order = inputs.order_ranks(result)
    return order, built, time.perf_counter() - start - built


def policy_case(args: argparse.Namespace) -> None:
    from common.policy.inputs import PolicyJobCache
    walls_plain, walls_policy = [], []
    built = evaluated = pass_only = first_built = 0.0
    for _ in range(args.repeat):
        # the same jobs (owners, projects) both times: only the order differs
        plain = make_pass(args.jobs, args.hosts, args.categories)
        conf = make_conf(sorted({qi.host for qi in plain.instances}))
        conf, plain.jobs, tree = policy_cell(conf, dict(plain.jobs))
        start = time.perf_counter()
        dispatch_pass(plain)
        walls_plain.append(time.perf_counter() - start)
        inp = make_pass(args.jobs, args.hosts, args.categories)
        inp.jobs = plain.jobs
        pending = [{**t, "state": "pending", "holds": []} for t in inp.pending]
        # the mirror's cache holds the jobs of earlier passes; one job changed since
        cache = PolicyJobCache()
        for task in pending:
            cache.put_task(task["job_id"], task["task_id"], task)
        policy_order(conf, inp.jobs, pending, tree, cache)
        cache.put_task(pending[0]["job_id"], 1, {**pending[0], "state": "finished"})
        start = time.perf_counter()
        inp.order, built, evaluated = policy_order(conf, inp.jobs, pending, tree, cache)
        ordered = time.perf_counter()
        dispatch_pass(inp)
        walls_policy.append(time.perf_counter() - start)
        pass_only = time.perf_counter() - ordered
        _, first_built, _ = policy_order(conf, inp.jobs, pending, tree)
    best_plain, best_policy = min(walls_plain), min(walls_policy)
    print(f"pass without policy: {best_plain:.3f} s | with policy: {best_policy:.3f} s "
          f"(inputs {built:.3f} s from the mirror's cache, {first_built:.3f} s built whole; "
          f"evaluate {evaluated:.3f} s, the pass in the policy's order {pass_only:.3f} s; "
          f"{best_policy / best_plain:.2f}x; "
          f"goals: < 1 s and < 1.5x; best of {args.repeat})")


NOW = 1_800_000_000.0


def reservation_pass(args: argparse.Namespace, planning: bool
                     ) -> tuple[PassInput, float]:
    """The reservation case's input (and the time its holds took to build)."""
    from common.placement.timeline import ReserveConf, holds_of
    hosts = make_hosts(args.hosts)
    names = list(hosts)
    conf = make_conf(names)
    for pairs in conf["queue"].values():
        pairs[:] = [[k, "3" if k == "slots" else v] for k, v in pairs]
    conf["pe"]["mpi"] = [["pe_name", "mpi"], ["slots", "100000"],
                         ["allocation_rule", "$fill_up"]]
    instances = queue_instances(conf, hosts)
    cats = [category(c, names) for c in range(args.categories)]
    jobs = {}
    active = []
    used: dict[tuple[str, str], int] = {}
    slots = [(qi.queue, qi.host) for qi in instances for _ in range(qi.slots)]
    for j in range(1, args.running + 1):  # one slot each, spread over the instances
        jobs[j] = placement_job({"job_id": j, "owner": "u", "opts": {
            "hard_resources": {"h_rt": f"{1 + j % 4}:0:0"}, "priority": 0}})
        queue, host = slots[(j * 7919) % len(slots)]  # (7919 is prime to 12,000: no repeats)
        used[(queue, host)] = used.get((queue, host), 0) + 1
        active.append({"job_id": j, "task_id": 1, "state": "running",
                       "granted": [[queue, host, 1]], "granted_pe": None,
                       "start_time": NOW - (j % 3600)})
    first = args.running + 1
    for j in range(first, first + args.jobs):
        opts = dict(cats[j % args.categories])
        if j < first + args.reserving:
            wide = len(slots) // 3  # more than is free, a third of the cell
            opts = {"hard_resources": {"h_rt": args.wide_h_rt}, "pe": ["mpi", wide, wide],
                    "reserve": True, "priority": 10}
        jobs[j] = placement_job({"job_id": j, "owner": "u", "opts": opts})
    view = build_view(conf, hosts, instances,
                      ((jobs[t["job_id"]].hard_resources, t["granted"]) for t in active))
    pes = {n: PEConf.from_pairs(n, p) for n, p in conf["pe"].items()}
    inp = PassInput(jobs, [{"job_id": j, "task_id": 1, "version": 1}
                           for j in range(first, first + args.jobs)], instances, used,
                    load={h: float(v["load"]["np_load_avg"]) for h, v in hosts.items()},
                    pe_of_queue={q: {"smp", "mpi", "rr"} for q in QUEUES},
                    resources=view, pes=pes, pe_used={})
    took = 0.0
    if planning:
        start = time.perf_counter()
        inp.reserve = ReserveConf(NOW, max_reservation=args.reserving,
                                  default_duration=float("inf"))
        inp.holds = holds_of(active, jobs, inp.reserve)
        took = time.perf_counter() - start
    return inp, took


def reservation_case(args: argparse.Namespace) -> None:
    """Each figure printed as soon as it is measured (the pass with planning may be long)."""
    print(f"reservation: {args.hosts} hosts, {args.running} running jobs, {args.jobs} pending "
          f"({args.reserving} -R y, max_reservation {args.reserving})", flush=True)
    best: dict[bool, float] = {}
    for planning in (False, True):
        walls = []
        for _ in range(args.repeat):
            inp, holds = reservation_pass(args, planning)
            stats = PassStats()
            start = time.perf_counter()
            orders = len(dispatch_pass(inp, stats))
            walls.append(time.perf_counter() - start)
        best[planning] = min(walls)
        if planning:
            print(f"pass with reservation: {best[True]:.3f} s ({orders} orders, "
                  f"{len(stats.reservations)} reservations; holds built in {holds:.3f} s); "
                  f"{best[True] / best[False]:.2f}x the pass without; goals: < 1 s and < 1.5x; "
                  f"best of {args.repeat}", flush=True)
        else:
            print(f"pass without reservation: {best[False]:.3f} s ({orders} orders; "
                  f"best of {args.repeat})", flush=True)


def timed_pass(inp: PassInput) -> tuple[float, int, PassStats, int]:
    stats = PassStats()
    tracemalloc.start()
    start = time.perf_counter()
    orders = dispatch_pass(inp, stats)
    elapsed = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return elapsed, peak, stats, len(orders)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=100_000)
    parser.add_argument("--hosts", type=int, default=1000)
    parser.add_argument("--categories", type=int, default=50)
    parser.add_argument("--nocache-jobs", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--policy", action="store_true",
                        help="only the pass with and without the scheduling policy")
    parser.add_argument("--reservation", action="store_true",
                        help="only the pass with and without resource reservation")
    parser.add_argument("--running", type=int, default=10_000)
    parser.add_argument("--reserving", type=int, default=10)
    parser.add_argument("--wide-h-rt", default="2:0:0",
                        help="the -R y jobs' h_rt (2:0:0 leaves out short.q and test.q, "
                             "whose h_rt is shorter; 0:4:0 fits every queue)")
    args = parser.parse_args()
    if args.policy:
        policy_case(args)
        return
    if args.reservation:
        reservation_case(args)
        return
    timings: dict[str, float] = {}
    inp = make_pass(args.jobs, args.hosts, args.categories, timings=timings)
    print(f"cluster: {args.hosts} hosts, {len(inp.instances)} queue instances, "
          f"{args.jobs} pending jobs in {args.categories} categories")
    print(f"resource view build: {timings['view']:.3f} s")
    # timed without tracemalloc first (tracing slows Python code down several times),
    # best of --repeat runs, wall clock and CPU time (a shared machine disturbs the first)
    walls, cpus = [], []
    for _ in range(args.repeat):
        plain = make_pass(args.jobs, args.hosts, args.categories)
        wall, cpu = time.perf_counter(), time.process_time()
        dispatch_pass(plain)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    print(f"pass with category cache: {min(walls):.3f} s wall, {min(cpus):.3f} s CPU "
          f"(best of {args.repeat})")
    elapsed, peak, stats, n = timed_pass(inp)
    print(f"  (under tracemalloc {elapsed:.3f} s) peak memory {peak / 2**20:.1f} MiB, "
          f"{n} orders, {stats.categories} categories, "
          f"{stats.skipped_by_category} tasks skipped by category")
    small = min(args.nocache_jobs, args.jobs)
    for cache in (True, False):
        part = make_pass(small, args.hosts, args.categories, cache=cache)
        start = time.perf_counter()
        orders = dispatch_pass(part)
        took = time.perf_counter() - start
        label = "with" if cache else "without"
        print(f"first {small} jobs {label} category cache: {took:.3f} s, {len(orders)} orders"
              + ("" if cache else f" (~{took / small * args.jobs:.0f} s for {args.jobs} jobs)"))


if __name__ == "__main__":
    main()
