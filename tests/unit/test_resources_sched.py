"""Resource matching in the dispatch pass: levels built from configuration, consumables
debited per slot / per job, EXCL, FORCED, load values, soft requests, PE allocation."""
from __future__ import annotations

from dataclasses import replace

from typing import Any

from hypothesis import given, settings, strategies as st

from common.cluster import queue_instances
from common.model import ExecHost, Job, Task
from common.placement.job import PlacementJob, placement_job
from qmaster.placement_view import store_pass_input
from qmaster.store import Store
from common.resource.complexes import default_complexes, rows_of
from common.placement.dispatch import PassInput, PassStats, PEConf, can_run, dispatch_pass
from common.placement.resources import (
    GLOBAL, build_view, check_grant, complex_values, host_key,
    job_requests, queue_key,
)

Q = "all.q"


def complex_conf(*lines: str) -> dict[str, list[list[str]]]:
    """The stored complex list (as the qmaster keeps it): the defaults plus ``lines``
    (``name short type relop req cons def urg``)."""
    return {"global": rows_of(default_complexes()) + [line.split() for line in lines]}


def cluster(hosts: dict[str, int], *, queues: dict[str, dict[str, str]] | None = None,
            exechost: dict[str, str] | None = None, complexes: tuple[str, ...] = (),
            pes: dict[str, str] | None = None) -> dict[str, Any]:
    """Conf objects: one queue (or ``queues``) on ``hosts`` {name: slots}."""
    queues = queues or {Q: {}}
    conf: dict[str, Any] = {"queue": {}, "hgrp": {}, "exechost": {}, "pe": {}}
    slots = ",".join(f"[{h}={n}]" for h, n in hosts.items())
    for name, extra in queues.items():
        pairs = {"qname": name, "hostlist": " ".join(hosts), "slots": f"0,{slots}",
                 "pe_list": " ".join(pes or ["smp"])}
        pairs.update(extra)
        conf["queue"][name] = [[k, v] for k, v in pairs.items()]
    for host, values in (exechost or {}).items():
        conf["exechost"][host] = [["hostname", host], ["complex_values", values]]
    for name, rule in (pes or {}).items():
        conf["pe"][name] = [["pe_name", name], ["slots", "999"], ["allocation_rule", rule]]
    if complexes:
        conf["complex"] = complex_conf(*complexes)
    return conf


def job(job_id: int, hard: dict[str, str] | None = None, pe: list[Any] | None = None,
        **opts: Any) -> dict[str, Any]:
    opts.update(hard_resources=hard or {}, pe=pe)
    return placement_job({"job_id": job_id, "owner": "u", "opts": opts})


def task(job_id: int, task_id: int = 1) -> dict[str, Any]:
    return {"job_id": job_id, "task_id": task_id, "version": 1, "state": "pending"}


def make_input(conf: dict[str, Any], jobs: list[dict[str, Any]], *,
               load: dict[str, dict[str, str]] | None = None,
               running: list[tuple[dict[str, Any], list[list[Any]]]] = (),
               pe_used: dict[str, int] | None = None, **kw: Any) -> PassInput:
    hosts = {h: {"alive": True, "load": (load or {}).get(h, {})}
             for h in _hosts_of(conf)}
    instances = queue_instances(conf, hosts)
    used: dict[tuple[str, str], int] = {}
    for _, granted in running:
        for q, h, n in granted:
            used[(q, h)] = used.get((q, h), 0) + n
    view = build_view(conf, hosts, instances, [(_typed(j).hard_resources, g)
                                               for j, g in running])
    pes = {n: PEConf.from_pairs(n, p) for n, p in conf["pe"].items()}
    pe_of_queue = {q: set(dict(map(tuple, p))["pe_list"].split()) for q, p in conf["queue"].items()}
    typed = [_typed(j) for j in jobs]
    return PassInput({j.job_id: j for j in typed}, [task(j.job_id) for j in typed],
                     instances, used, resources=view, pes=pes, pe_of_queue=pe_of_queue,
                     pe_used=pe_used or {}, **kw)


def _typed(job: Any) -> PlacementJob:
    """Jobs given as records ({"job_id", "owner", "opts"}) become placement jobs."""
    return job if isinstance(job, PlacementJob) else placement_job(job)


def _hosts_of(conf: dict[str, Any]) -> set[str]:
    return {h for pairs in conf["queue"].values() for k, v in pairs if k == "hostlist"
            for h in v.split()}


def grants(orders: list[dict[str, Any]]) -> dict[int, list[list[Any]]]:
    return {o["job_id"]: o["granted"] for o in orders}


# --------------------------------------------------------------------------- levels

def test_levels_from_configuration() -> None:
    conf = cluster({"h1": 2, "h2": 4}, queues={Q: {"complex_values": "lic=1,[h2=lic=3]",
                                                   "h_rt": "1:0:0"}},
                   exechost={"global": "gl=5", "h1": "mf=4G"},
                   complexes=("lic lic INT <= YES YES 0 0", "gl gl INT <= YES JOB 0 0"))
    inp = make_input(conf, [], load={"h1": {"arch": "lx-amd64"}})
    view = inp.resources
    assert view is not None
    assert view.values[GLOBAL] == {"gl": "5"}
    assert view.values[host_key("h1")] == {"mem_free": "4G"}
    assert view.values[queue_key(Q, "h2")]["lic"] == "3"
    assert view.values[queue_key(Q, "h1")]["lic"] == "1"
    assert view.values[queue_key(Q, "h1")]["slots"] == "2"
    assert view.values[queue_key(Q, "h1")]["h_rt"] == "1:0:0"
    assert view.values[queue_key(Q, "h1")]["hostname"] == "h1"
    assert view.load[host_key("h1")] == {"arch": "lx-amd64"}
    assert complex_values("NONE", view.attrs) == {}


def test_arch_and_hostname_requests() -> None:
    conf = cluster({"h1": 2, "h2": 2})
    load = {"h1": {"arch": "lx-amd64"}, "h2": {"arch": "lx-arm64"}}
    jobs = [job(1, {"arch": "nosuch"}), job(2, {"hostname": "h2"}), job(3, {"a": "lx-amd64"}),
            job(4, {"h": "!h1"}), job(5, {"q": "other.q"})]
    got = grants(dispatch_pass(make_input(conf, jobs, load=load)))
    assert 1 not in got and 5 not in got
    assert got[2] == [[Q, "h2", 1]]
    assert got[3] == [[Q, "h1", 1]]
    assert got[4] == [[Q, "h2", 1]]


def test_spec_e1_fixed_value_is_per_slot() -> None:
    conf = cluster({"h1": 5}, queues={Q: {"complex_values": "t01=20"}}, pes={"mpi": "$fill_up"},
                   complexes=("t01 t01 INT <= YES NO 0 0",))
    ok = dispatch_pass(make_input(conf, [job(1, {"t01": "10"}, ["mpi", 4, 4])]))
    assert grants(ok) == {1: [[Q, "h1", 4]]}
    too_big = dispatch_pass(make_input(conf, [job(1, {"t01": "30"}, ["mpi", 4, 4])]))
    assert too_big == []


def test_spec_e2_consumable_is_per_slot() -> None:
    conf = cluster({"h2": 5, "h3": 1, "h4": 3}, pes={"mpi": "$fill_up"},
                   queues={Q: {"complex_values": "t02=40"}},
                   complexes=("t02 t02 INT <= YES YES 0 0",))
    inp = make_input(conf, [job(1, {"t02": "20"}, ["mpi", 4, 4])])
    assert grants(dispatch_pass(inp)) == {1: [[Q, "h2", 2], [Q, "h3", 1], [Q, "h4", 1]]}
    view = inp.resources
    assert view is not None
    assert view.usage[queue_key(Q, "h2")]["t02"] == 40
    assert view.usage[queue_key(Q, "h4")]["t02"] == 20


def test_license_job_consumable_at_global_level() -> None:
    conf = cluster({"h1": 8, "h2": 8}, pes={"mpi": "$round_robin"},
                   exechost={"global": "lic=2"}, complexes=("lic lic INT <= YES JOB 0 0",))
    jobs = [job(i, {"lic": "1"}, ["mpi", 4, 4]) for i in (1, 2, 3)]
    inp = make_input(conf, jobs)
    got = grants(dispatch_pass(inp))
    assert sorted(got) == [1, 2]
    assert got[1] == [[Q, "h1", 2], [Q, "h2", 2]]
    assert inp.resources is not None and inp.resources.usage[GLOBAL]["lic"] == 2


def test_running_jobs_hold_consumables() -> None:
    conf = cluster({"h1": 8}, exechost={"h1": "lic=3"},
                   complexes=("lic lic INT <= YES YES 0 0",))
    running = [(job(9, {"lic": "2"}), [[Q, "h1", 1]])]
    jobs = [job(1, {"lic": "2"}), job(2, {"lic": "1"})]
    assert sorted(grants(dispatch_pass(make_input(conf, jobs, running=running)))) == [2]


def test_defaults_are_debited_when_not_requested() -> None:
    conf = cluster({"h1": 8}, exechost={"h1": "tok=2"},
                   complexes=("tok tok INT <= YES YES 1 0",))
    jobs = [job(i) for i in (1, 2, 3)]
    assert sorted(grants(dispatch_pass(make_input(conf, jobs)))) == [1, 2]


def test_exclusive_host() -> None:
    conf = cluster({"h1": 4, "h2": 4}, exechost={"h1": "excl=true"},
                   complexes=("excl excl BOOL EXCL YES YES 0 0",))
    jobs = [job(1, {"excl": "true"}), job(2), job(3, {"excl": "true"})]
    got = grants(dispatch_pass(make_input(conf, jobs)))
    assert got[1] == [[Q, "h1", 1]]
    assert got[2] == [[Q, "h2", 1]]  # h1 is held exclusively
    assert 3 not in got
    busy = make_input(conf, [job(1, {"excl": "true"})], running=[(job(8), [[Q, "h1", 1]])])
    assert dispatch_pass(busy) == []


def test_forced_attribute_must_be_requested() -> None:
    conf = cluster({"h1": 4, "h2": 4}, exechost={"h1": "fast=5"},
                   complexes=("fast fa INT <= FORCED NO 0 0",))
    got = grants(dispatch_pass(make_input(conf, [job(1), job(2, {"fast": "3"})])))
    assert got == {1: [[Q, "h2", 1]], 2: [[Q, "h1", 1]]}


def test_load_value_more_restrictive_than_consumable() -> None:
    conf = cluster({"h1": 4}, exechost={"h1": "mem_free=8G"},
                   complexes=("mem_free mf MEMORY <= YES YES 0 0",))
    load = {"h1": {"mem_free": "1G"}}
    assert dispatch_pass(make_input(conf, [job(1, {"mf": "2G"})], load=load)) == []
    assert len(dispatch_pass(make_input(conf, [job(1, {"mf": "512M"})], load=load))) == 1


def test_soft_requests_rank_instances() -> None:
    conf = cluster({"h1": 2, "h2": 2})
    load = {"h1": {"arch": "a"}, "h2": {"arch": "b"}}
    soft = job(1, soft_resources={"arch": "b"})
    assert grants(dispatch_pass(make_input(conf, [soft], load=load))) == {1: [[Q, "h2", 1]]}
    assert grants(dispatch_pass(make_input(conf, [job(1)], load=load))) == {1: [[Q, "h1", 1]]}


def test_category_cache_and_full_categories() -> None:
    conf = cluster({"h1": 2})
    jobs = [job(i, {"arch": "nosuch"}) for i in range(1, 501)] + [job(600), job(601)]
    stats = PassStats()
    got = grants(dispatch_pass(make_input(conf, jobs, load={"h1": {"arch": "x"}}), stats))
    assert sorted(got) == [600, 601]
    assert stats.skipped_by_category == 499
    assert stats.categories == 2
    nocache = PassStats()
    again = dispatch_pass(make_input(conf, jobs, load={"h1": {"arch": "x"}},
                                     category_cache=False), nocache)
    assert grants(again) == got and nocache.skipped_by_category == 0


# --------------------------------------------------------------------------- PEs

def test_pe_slots_one_host_largest_range() -> None:
    conf = cluster({"h1": 2, "h2": 4}, pes={"smp": "$pe_slots"})
    assert grants(dispatch_pass(make_input(conf, [job(1, pe=["smp", 3, 3])]))) == \
        {1: [[Q, "h2", 3]]}
    assert grants(dispatch_pass(make_input(conf, [job(1, pe=["smp", 2, 8])]))) == \
        {1: [[Q, "h2", 4]]}
    assert dispatch_pass(make_input(conf, [job(1, pe=["smp", 5, 5])])) == []


def test_fill_up_round_robin_and_fixed_per_host() -> None:
    conf = cluster({"h1": 4, "h2": 4, "h3": 4},
                   pes={"fill": "$fill_up", "rr": "$round_robin", "two": "2"})
    assert grants(dispatch_pass(make_input(conf, [job(1, pe=["fill", 6, 6])]))) == \
        {1: [[Q, "h1", 4], [Q, "h2", 2]]}
    assert grants(dispatch_pass(make_input(conf, [job(1, pe=["rr", 5, 5])]))) == \
        {1: [[Q, "h1", 2], [Q, "h2", 2], [Q, "h3", 1]]}
    assert grants(dispatch_pass(make_input(conf, [job(1, pe=["two", 3, 5])]))) == \
        {1: [[Q, "h1", 2], [Q, "h2", 2]]}
    assert dispatch_pass(make_input(conf, [job(1, pe=["two", 3, 3])])) == []


def test_pe_total_slots_limit() -> None:
    conf = cluster({"h1": 8}, pes={"smp": "$pe_slots"})
    conf["pe"]["smp"][1] = ["slots", "6"]
    jobs = [job(1, pe=["smp", 4, 4]), job(2, pe=["smp", 1, 4])]
    got = grants(dispatch_pass(make_input(conf, jobs, pe_used={"smp": 1})))
    assert got == {1: [[Q, "h1", 4]], 2: [[Q, "h1", 1]]}


def test_pe_spans_queues_and_checks_master_job_consumable() -> None:
    conf = cluster({"h1": 2, "h2": 2}, pes={"mpi": "$fill_up"},
                   exechost={"h1": "lic=0", "h2": "lic=1"},
                   complexes=("lic lic INT <= YES JOB 0 0",))
    # the master (and its JOB consumable) must go to h2; h1 may hold slave slots
    got = grants(dispatch_pass(make_input(conf, [job(1, {"lic": "1"}, ["mpi", 4, 4])])))
    assert got == {1: [[Q, "h2", 2], [Q, "h1", 2]]}


def test_can_run_uses_resources_of_the_cluster_it_is_given() -> None:
    conf = cluster({"h1": 2, "h2": 2}, pes={"mpi": "$fill_up"}, exechost={"h1": "lic=1"},
                   complexes=("lic lic INT <= YES YES 0 0",))
    empty = make_input(conf, [])
    assert can_run(job(1, {"lic": "1"}), empty)
    assert not can_run(job(1, {"lic": "2"}), empty)
    assert not can_run(job(1, {"arch": "nosuch"}), empty)
    assert can_run(job(1, pe=["mpi", 4, 4]), empty)
    assert not can_run(job(1, pe=["mpi", 5, 5]), empty)
    full = make_input(conf, [], running=[(job(7, {"lic": "1"}), [[Q, "h1", 1]]),
                                         (job(8), [[Q, "h1", 1], [Q, "h2", 1]])])
    assert can_run(job(1), full) and not can_run(job(1, {"lic": "1"}), full)
    assert not can_run(job(1, pe=["mpi", 2, 2]), full)
    # asking does not debit: the same question has the same answer
    assert can_run(job(1), full) and full.resources is not None
    assert full.resources.usage == make_input(conf, [], running=[
        (job(7, {"lic": "1"}), [[Q, "h1", 1]]),
        (job(8), [[Q, "h1", 1], [Q, "h2", 1]])]).resources.usage  # type: ignore[union-attr]


# --------------------------------------------------------------------------- qmaster

def test_check_grant_refuses_exhausted_consumable() -> None:
    conf = cluster({"h1": 4}, exechost={"h1": "lic=2"}, complexes=("lic lic INT <= YES YES 0 0",))
    inp = make_input(conf, [], running=[(job(7, {"lic": "1"}), [[Q, "h1", 1]])])
    view = inp.resources
    assert view is not None
    one = job_requests({"lic": "1"}, view.attrs) or []
    two = job_requests({"lic": "1"}, view.attrs) or []
    assert check_grant(view, one, [[Q, "h1", 1]], consumables_only=True) is None
    denial = check_grant(view, two, [[Q, "h1", 2]], consumables_only=True)
    assert denial is not None and "hc:lic=1" in denial.reason
    assert view.usage[host_key("h1")]["lic"] == 1  # unchanged by the checks


def test_qmaster_store_view() -> None:
    store = Store()
    store.conf.update(cluster({"h1": 4}, exechost={"h1": "h_vmem=4G"}))
    store.hosts["h1"] = ExecHost("h1", load={"arch": "x"}, alive=True)
    store.jobs[5] = Job(5, "u", 1, "g", 1, 0.0, {"hard_resources": {"h_vmem": "1G"}}, {})
    store.tasks["5.1"] = Task(5, 1, state="running", granted=[[Q, "h1", 2]])
    view = store_pass_input(store).resources
    assert view.load[host_key("h1")] == {"arch": "x"}
    assert view.usage.get(host_key("h1"), {}).get("h_vmem") is None  # not consumable


# --------------------------------------------------------------------------- overbooking

@settings(max_examples=40, deadline=None)
@given(caps=st.lists(st.integers(0, 6), min_size=1, max_size=4),
       asks=st.lists(st.tuples(st.integers(0, 3), st.integers(1, 3), st.sampled_from(
           ["", "$fill_up", "$round_robin", "$pe_slots"])), max_size=12))
def test_never_overbooks_consumables(caps: list[int], asks: list[tuple[int, int, str]]) -> None:
    hosts = {f"h{i}": 3 for i in range(len(caps))}
    conf = cluster(hosts, pes={"fill": "$fill_up", "rr": "$round_robin", "one": "$pe_slots"},
                   exechost={f"h{i}": f"lic={c}" for i, c in enumerate(caps)} | {"global": "g=5"},
                   complexes=("lic lic INT <= YES YES 0 0", "g g INT <= YES JOB 0 0"))
    names = {"$fill_up": "fill", "$round_robin": "rr", "$pe_slots": "one"}
    jobs = [job(i + 1, {"lic": str(lic), "g": "1"}, [names[rule], 1, n] if rule else None)
            for i, (lic, n, rule) in enumerate(asks)]
    orders = dispatch_pass(make_input(conf, jobs))
    lic_used = {h: 0 for h in hosts}
    slots_used = {h: 0 for h in hosts}
    for order in orders:
        lic = int(jobs[order["job_id"] - 1].hard_resources["lic"])
        for _, host, n in order["granted"]:
            lic_used[host] += lic * n
            slots_used[host] += n
    assert all(lic_used[f"h{i}"] <= c for i, c in enumerate(caps))
    assert all(n <= 3 for n in slots_used.values())
    assert len(orders) <= 5


class _Socket:
    def __init__(self) -> None:
        self.sent: list[list[bytes]] = []

    def send_multipart(self, frames: list[bytes], **_: Any) -> None:
        self.sent.append(frames)


def test_qmaster_refuses_orders_whose_consumables_no_longer_fit(tmp_path: Any) -> None:
    from clients.api import job_request
    from common import wire
    from common.cell import Cell
    from qmaster.server import QmasterServer
    from tests.proven import process
    server = QmasterServer(Cell(tmp_path), host="qm", managers=["root"], min_uid=0,
                           auto_add_hosts=True, default_slots=4)
    server.load()
    server.router, server.pub = _Socket(), _Socket()  # type: ignore[assignment]
    user = {"name": "alice", "uid": 1001, "group": "users", "gid": 100, "host": "qm"}

    def call(msg_type: str, body: dict[str, Any], identity: bytes = b"c") -> dict[str, Any]:
        process(server, [[identity, wire.encode(msg_type, body, 1)]])
        replies = [f for f in server.router.sent if f[0] == identity]  # type: ignore[attr-defined]
        return wire.decode(replies[-1][1])[2]

    call("register", {"host": "h1", "load": {}, "jobs": []}, b"execd:h1")
    server.store.conf["exechost"]["h1"] = [["hostname", "h1"], ["complex_values", "slots=1"]]
    ids = call("submit", {"user": user, "jobs": [job_request("/bin/true", binary=True)
                                                 for _ in range(2)]})["job_ids"]
    orders = [{"type": "dispatch", "job_id": j, "task_id": 1, "task_version": 1,
               "granted": [[Q, "h1", 1]]} for j in ids]
    reply = call("orders", {"orders": orders})
    assert reply["accepted"] == 1
    assert "cannot run at host \"h1\" because it offers only hc:slots=0" in \
        reply["refused"][0]["reason"]


@settings(max_examples=25, deadline=None)
@given(slots=st.lists(st.integers(0, 4), min_size=1, max_size=4),
       kinds=st.lists(st.sampled_from(["plain", "lic", "fill", "one", "arch"]), max_size=15),
       owners=st.lists(st.sampled_from(["u", "v", "w"]), min_size=15, max_size=15))
def test_category_cache_does_not_change_the_outcome(slots: list[int], kinds: list[str],
                                                    owners: list[str]) -> None:
    """Also with several owners, whose categories share the candidates of their request
    set (one owner's category may find an instance full that another's tries again)."""
    hosts = {f"h{i}": n for i, n in enumerate(slots)}
    conf = cluster(hosts, pes={"fill": "$fill_up", "one": "$pe_slots"},
                   exechost={"h0": "lic=3"}, complexes=("lic lic INT <= YES YES 0 0",))
    requests = {"plain": {}, "lic": {"hard": {"lic": "1"}}, "arch": {"hard": {"arch": "b"}},
                "fill": {"pe": ["fill", 1, 3]}, "one": {"pe": ["one", 2, 2]}}
    jobs = [replace(job(i + 1, **requests[k]), owner=owners[i]) for i, k in enumerate(kinds)]
    load = {h: {"arch": "ab"[i % 2]} for i, h in enumerate(hosts)}
    cached = dispatch_pass(make_input(conf, jobs, load=load))
    uncached = dispatch_pass(make_input(conf, jobs, load=load, category_cache=False))
    assert cached == uncached


def test_mirror_counts_consumables_of_orders_in_flight() -> None:
    from scheduler.mirror import Mirror
    pending = [{"job_id": j, "task_id": 1, "state": "pending", "version": 1, "granted": []}
               for j in (1, 2)]
    snap = {"epoch": "e", "seq": 1, "hosts": [{"name": "h1", "alive": True, "load": {}}],
            "jobs": [{"job_id": j, "owner": "u", "opts": {}} for j in (1, 2)],
            "tasks": pending, "conf": cluster({"h1": 4}, exechost={"h1": "slots=1"})}
    mirror = Mirror.from_snapshot(snap)
    assert len(dispatch_pass(mirror.pass_input())) == 1  # the host has one slot
    inflight = {"1.1": ([[Q, "h1", 1]], None)}
    assert dispatch_pass(mirror.pass_input(exclude=set(inflight), inflight=inflight)) == []


def test_non_requestable_attribute_and_unknown_request_never_match() -> None:
    conf = cluster({"h1": 2}, complexes=("nr nr INT <= NO NO 0 0",),
                   exechost={"h1": "nr=5"})
    inp = make_input(conf, [job(1, {"nr": "1"}), job(2, {"nosuch": "1"}), job(3)])
    assert sorted(grants(dispatch_pass(inp))) == [3]
    assert not can_run(job(1, {"nr": "1"}), inp)
