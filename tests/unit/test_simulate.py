"""``pyge simulate``'s loop, metrics, plot and command line (clients/simulate/), with
the pass's own order or a given one; the policy's convergence tests are in
test_simulate_policy.py."""
from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Sequence

import pytest

from clients.simulate import config as cfg
from clients.simulate.engine import Simulation, simulate
from clients.simulate.metrics import BOUND, report, share_over_time, targets, tree_targets
from clients.simulate.png import Canvas, read_png
from clients.simulate.render import plot, text
from clients.simulate.usage import UsageAccount
from clients.simulate.workload import SimJob, Workload
from common.policy.model import PROJECT_NODE, USER_NODE, Entity, PolicyJob, ShareNode
from deploy.cell import main as pyge


def job(n: int, submit: float, run: float, owner: str = "a", slots: int = 1,
        **kw) -> SimJob:  # type: ignore[no-untyped-def]
    return SimJob(job_id=n, submit=submit, run_time=run, owner=owner, slots=slots,
                  pe="mpi" if slots > 1 else None, **kw)


def random_workload(seed: int, n: int = 300) -> Workload:
    r = random.Random(seed)
    t, jobs = 0.0, []
    for i in range(1, n + 1):
        t += r.randint(0, 120)
        jobs.append(job(i, t, r.randint(30, 4000), r.choice("abc"), r.choice([1, 1, 2, 4])))
    return Workload(tuple(jobs))


def busy_slots(runs: Sequence, at: float) -> int:  # type: ignore[type-arg]
    return sum(r.job.slots for r in runs if r.start is not None and r.start <= at < r.end)


def test_jobs_keep_their_run_time_and_never_overfill_the_cell() -> None:
    config = cfg.new_cell(3, 4)
    result = simulate(random_workload(1), config)
    runs = list(result.runs.values())
    assert result.capacity == 12
    assert all(r.start is not None and r.end - r.start == r.job.run_time for r in runs)
    assert all(r.start >= r.job.submit for r in runs)
    for instant in {r.start for r in runs}:
        assert busy_slots(runs, instant) <= 12
    # a multi-slot job got its slots, in grants on the simulated hosts
    wide = next(r for r in runs if r.job.slots == 4)
    assert sum(g[2] for g in wide.granted) == 4
    assert {g[1] for r in runs for g in r.granted} <= {"sim0001", "sim0002", "sim0003"}


def test_first_come_first_served_without_a_policy() -> None:
    # one slot: jobs run one after another in job id order (-p equal)
    jobs = (job(1, 0, 100), job(2, 1, 10, "b"), job(3, 2, 10, "c", priority=5))
    runs = simulate(Workload(jobs), cfg.new_cell(1, 1), None).runs
    # -p 5 goes first among the waiting ones, then job id
    assert [runs[i].start for i in (1, 3, 2)] == [0, 100, 110]


def test_the_policy_order_is_the_pass_order() -> None:
    seen: list[list[int]] = []

    def reverse(jobs: Sequence[PolicyJob], usage: UsageAccount, now: float) -> list[int]:
        pending = sorted((j.job_id for j in jobs if j.pending_tasks), reverse=True)
        seen.append(pending)
        return pending
    jobs = tuple(job(i, 0, 10) for i in range(1, 5))
    runs = Simulation(Workload(jobs), cfg.new_cell(1, 1), reverse).run().runs
    assert [runs[i].start for i in (4, 3, 2, 1)] == [0, 10, 20, 30]
    assert seen[0] == [4, 3, 2, 1]


def test_no_pass_without_room() -> None:
    # one 4-slot host: while two 1-slot jobs run, a waiting 4-slot job gets no pass
    jobs = (job(1, 0, 100), job(2, 0, 200), job(3, 1, 10, slots=4), job(4, 150, 5, slots=4))
    result = simulate(Workload(jobs), cfg.new_cell(1, 4))
    assert result.runs[3].start == 200 and result.runs[4].start == 210
    assert result.passes == 3  # at 0, 200 and 210: not at 1, 100 or 150


def test_a_job_that_fits_nowhere_never_starts() -> None:
    jobs = (job(1, 0, 10), job(2, 0, 10, slots=9))
    figures = report(simulate(Workload(jobs), cfg.new_cell(2, 4)), cfg.new_cell(2, 4))
    assert figures.never_started == 1
    assert "1 jobs never started" in text(figures)


def test_usage_halves_after_halftime() -> None:
    seen: dict[float, float] = {}

    def watch(jobs: Sequence[PolicyJob], usage: UsageAccount, now: float) -> list[int]:
        seen[now] = usage.table().users.get("a", 0.0)
        return [j.job_id for j in jobs if j.pending_tasks]
    # a runs 2 slots for an hour; passes at 3600 (b submits) and 7200 (c submits)
    jobs = (job(1, 0, 3600, slots=2), job(2, 3600, 1, "b"), job(3, 7200, 1, "c"))
    sim = Simulation(Workload(jobs), cfg.new_cell(1, 2).with_sched({"halftime": "1"}), watch)
    sim.run()
    # 8.1.9 decays by (1 - 60 ln2 / T) per minute: a hair under one half after T
    assert seen[7200] / seen[3600] == pytest.approx((1 - 60 * math.log(2) / 3600) ** 60)
    assert seen[7200] / seen[3600] == pytest.approx(0.5, abs=0.003)
    # decayed while it ran: 7200 (1 - 1/2) / ln 2 when booked continuously
    assert seen[3600] == pytest.approx(3600 / math.log(2), rel=0.01)
    assert sim.usage.long_term()["a"] == 7200.0
    kept = Simulation(Workload(jobs), cfg.new_cell(1, 2).with_sched({"halftime": "0"}),
                      watch)
    seen.clear()
    kept.run()
    assert seen[3600] == seen[7200] == 7200.0


def test_metrics_by_hand() -> None:
    # two slots; a: 100 s on 2 slots at 0; b waits 100 s, then 100 s on 1 slot
    jobs = (job(1, 0, 100, slots=2), job(2, 0, 100, "b"))
    config = cfg.new_cell(1, 2)
    figures = report(simulate(Workload(jobs), config, None), config)
    a, b = figures.users
    assert (a.slot_seconds, b.slot_seconds) == (200, 100)
    assert a.delivered == pytest.approx(2 / 3) and b.delivered == pytest.approx(1 / 3)
    assert (b.mean_wait, b.max_wait, b.mean_slowdown) == (100, 100, 2.0)
    # all submitted at once: measured over the whole run; with a job submitted at 150,
    # until 150
    assert figures.makespan == 200 and figures.window == 200 and figures.utilisation == 0.75
    later = report(simulate(Workload(jobs + (job(3, 150, 10, "c"),)), config, None), config)
    # (a 2 x 100, b 1 x 50 of its 100..200 run: 250 of 300 slot seconds)
    assert later.window == 150 and later.utilisation == pytest.approx(250 / 300)
    assert [u.delivered for u in later.users] == pytest.approx([200 / 250, 50 / 250, 0])
    assert a.target is None and figures.target_source == "none"
    short = report(simulate(Workload((job(1, 0, 1), job(2, 0, 1, "b"))),
                            cfg.new_cell(1, 1)), config)
    # b waited 1 s for a 1 s job: bounded by BOUND seconds, not a slowdown of 2
    assert short.users[1].mean_wait == 1 and short.users[1].mean_slowdown == 1.0
    assert BOUND == 10.0


def test_share_tree_targets() -> None:
    tree = [ShareNode(0, "Root", USER_NODE, 1, (1, 2, 3)),
            ShareNode(1, "alice", USER_NODE, 60), ShareNode(2, "default", USER_NODE, 10),
            ShareNode(3, "physics", PROJECT_NODE, 20, (4, 5)),
            ShareNode(4, "bob", USER_NODE, 1), ShareNode(5, "carol", USER_NODE, 3)]
    users, projects = tree_targets(tree, ["alice", "dave", "erin"])
    # siblings: alice 60, a default copy each for dave and erin (10 + 10), physics 20
    assert users["alice"] == pytest.approx(0.6)
    assert users["dave"] == users["erin"] == pytest.approx(0.1)
    assert projects["physics"] == pytest.approx(0.2)
    assert users["carol"] == pytest.approx(0.15) and users["bob"] == pytest.approx(0.05)


def test_share_over_time_sums_to_one() -> None:
    result = simulate(random_workload(2, 100), cfg.new_cell(2, 2))
    times, series = share_over_time(result, 50)
    assert len(times) == 50 and set(series) == {"a", "b", "c"}
    for i in range(50):
        assert sum(s[i] for s in series.values()) == pytest.approx(1.0)
    slot_seconds = {u: 0.0 for u in series}
    for r in result.runs.values():
        slot_seconds[r.job.owner] += r.job.slots * r.job.run_time
    total = sum(slot_seconds.values())
    assert {u: s[-1] for u, s in series.items()} == pytest.approx(
        {u: v / total for u, v in slot_seconds.items()})


def test_png_reads_back() -> None:
    canvas = Canvas(40, 20)
    canvas.line(0, 0, 39, 19, (255, 0, 0))
    canvas.text(2, 10, "ok%", (0, 0, 255))
    width, height, pixels = read_png(canvas.png())
    assert (width, height) == (40, 20) and pixels == bytes(canvas.pixels)
    assert canvas.get(0, 0) == (255, 0, 0) and canvas.get(39, 19) == (255, 0, 0)
    assert (0, 0, 255) in {canvas.get(x, y) for x in range(40) for y in range(10, 17)}
    picture = plot([1.0, 2.0], {"a": [0.8, 0.75], "b": [0.2, 0.25]}, {"a": 0.8, "b": 0.2})
    colours = set(zip(*[iter(picture.pixels)] * 3))
    assert (31, 119, 180) in colours and (255, 127, 14) in colours


# ---- configuration ------------------------------------------------------------------

def test_sched_changes_are_checked(tmp_path: Path) -> None:
    config = cfg.new_cell(1, 1)
    assert config.with_sched({"maxujobs": "2"}).policy.maxujobs == 2
    with pytest.raises(cfg.ConfigError, match='unknown scheduler configuration parameter "nope"'):
        config.with_sched({"nope": "1"})
    with pytest.raises(cfg.ConfigError, match="weight_user"):
        config.with_sched({"weight_user": "abc"})
    bad = tmp_path / "sconf"
    bad.write_text("algorithm default\n")
    with pytest.raises(cfg.ConfigError, match="required attribute"):
        cfg.with_sched_file(config, str(bad))


def test_project_files(tmp_path: Path) -> None:
    prj = tmp_path / "physics"
    prj.write_text("name physics\noticket 10\nfshare 70\nacl NONE\nxacl NONE\n")
    config = cfg.with_projects(cfg.new_cell(1, 1), [str(prj)])
    assert config.entities.projects["physics"].fshare == 70
    assert config.entities.projects["physics"].oticket == 10


def test_a_cells_spool(tmp_path: Path) -> None:
    from qmaster.defaults import bootstrap
    from qmaster.spool import SqliteSpool
    from qmaster.store import Batch, Store
    from common.cell import Cell
    store, batch = Store(), Batch()
    bootstrap(store, batch, ["root"], None)
    store.put_conf(batch, "hgrp", "@allhosts", [["group_name", "@allhosts"],
                                                ["hostlist", "n1 n2"]])
    store.put_conf(batch, "queue", "all.q", [[k, "3" if k == "slots" else v]
                                             for k, v in store.conf["queue"]["all.q"]])
    for name in ("n1", "n2"):
        batch.txn.put("host", name, {"name": name, "load": {"np_load_avg": "0.1"},
                                     "alive": True})
    spool = SqliteSpool(Cell(tmp_path).qmaster_spool_dir)
    spool.commit(batch.txn)
    spool.close()
    config = cfg.cell_config(tmp_path)
    assert set(config.hosts) == {"n1", "n2"}
    assert simulate(Workload((job(1, 0, 5),)), config).capacity == 6
    resized = cfg.with_hosts(config, 4, 2)
    assert simulate(Workload((job(1, 0, 5),)), resized).capacity == 8
    with pytest.raises(cfg.ConfigError, match="no qmaster spool"):
        cfg.cell_config(tmp_path / "nothing")


# ---- the command --------------------------------------------------------------------

SWF = "; Version: 2.2\n" + "\n".join(
    f"{i} {i * 10} -1 {300 + i} {1 + i % 2} -1 -1 -1 -1 -1 1 {i % 3} 1 -1 -1 -1 -1 -1"
    for i in range(1, 40)) + "\n"


def test_pyge_simulate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "t.swf"
    trace.write_text(SWF)
    picture = tmp_path / "share.png"
    assert pyge(["simulate", str(trace), "--hosts", "2", "--slots", "4", "--no-policy",
                 "--plot", str(picture)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("simulated 39 jobs on 8 slots: makespan ")
    assert "\nmeasured until the last submission (0:06:20): utilisation " in out
    assert "USER" in out and "user0" in out and "user2" in out
    width, height, _ = read_png(picture.read_bytes())
    assert (width, height) == (900, 500)
    assert pyge(["simulate", str(trace), "--slots", "4", "--no-policy", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["capacity"] == 4 and doc["jobs"] == 39
    assert sum(u["delivered"] for u in doc["users"]) == pytest.approx(1.0)
    assert len(doc["share_over_time"]["times"]) == 200


def test_pyge_simulate_refuses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "t.swf"
    trace.write_text(SWF + "40 1 2\n")
    assert pyge(["simulate", str(trace), "--no-policy"]) == 1
    assert capsys.readouterr().err == \
        f"pyge simulate: {trace}:41: 3 fields, an SWF job line has 18\n"
    trace.write_text(SWF)
    assert pyge(["simulate", str(trace), "--set", "maxujobs"]) == 1
    assert "NAME=VALUE expected" in capsys.readouterr().err


TREE = """id=0
name=Root
type=0
shares=1
childnodes=1,2
id=1
name=user0
type=0
shares=75
childnodes=NONE
id=2
name=default
type=0
shares=25
childnodes=NONE
"""


def test_pyge_simulate_share_tree_and_users(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    trace, tree, user = tmp_path / "t.swf", tmp_path / "tree", tmp_path / "user1"
    trace.write_text(SWF)
    tree.write_text(TREE)
    user.write_text("name user1\noticket 0\nfshare 30\ndelete_time 0\ndefault_project NONE\n")
    assert pyge(["simulate", str(trace), "--slots", "2", "--share-tree", str(tree),
                 "--set", "weight_tickets_share=1000", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["target_source"] == "share tree"
    # user0 has its leaf; user1 and user2 each get a copy of default's 25 shares
    assert {u["name"]: u["target"] for u in doc["users"]} == pytest.approx(
        {"user0": 0.6, "user1": 0.2, "user2": 0.2})
    assert pyge(["simulate", str(trace), "--slots", "2", "--user", str(user),
                 "--set", "weight_tickets_functional=1000", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    # functional targets: user1's 30 shares; the others were made by enforce_user auto
    # with auto_user_fshare 0
    assert doc["target_source"] == "functional"
    assert {u["name"]: u["target"] for u in doc["users"]} == {
        "user0": 0.0, "user1": 1.0, "user2": 0.0}
    tree.write_text(TREE.replace("name=default", "name=user0"))
    assert pyge(["simulate", str(trace), "--share-tree", str(tree)]) == 1
    assert capsys.readouterr().err.startswith(f"pyge simulate: {tree}: ")


def test_a_pass_over_the_head_of_the_order_places_what_a_whole_pass_places() -> None:
    # a backlog of serial and wide jobs: the head alone often cannot fill the cell
    config = cfg.new_cell(2, 4).with_sched({"weight_tickets_share": "100"})
    workload = random_workload(3, 150)

    class Whole(Simulation):
        head = 10**9

    class Tiny(Simulation):
        head = 1
    whole, tiny = Whole(workload, config).run(), Tiny(workload, config).run()
    assert {j: r.start for j, r in tiny.runs.items()} == \
        {j: r.start for j, r in whole.runs.items()}
    assert tiny.passes > whole.passes  # the head was too short at times


def test_functional_targets_need_shares() -> None:
    config = cfg.new_cell(1, 1).with_sched({"weight_tickets_functional": "100"})
    runs = list(simulate(Workload((job(1, 0, 5), job(2, 0, 5, "b"))), config).runs.values())
    assert targets(config, runs) == ("none", None, None)
    shared = cfg.with_users(config, {"a": Entity(fshare=3)})
    assert targets(shared, runs) == ("functional", {"a": 1.0, "b": 0.0}, None)


def test_a_wide_job_without_a_pe_name_gets_its_slots() -> None:
    wide = SimJob(job_id=1, submit=0, run_time=10, owner="a", slots=3)  # no PE named
    result = simulate(Workload((wide, job(2, 0, 10, "b", slots=2))), cfg.new_cell(1, 4))
    assert sum(g[2] for g in result.runs[1].granted) == 3
    assert result.runs[2].start == 10  # one slot of four left: it waits


def test_a_job_without_a_department_gets_its_owners() -> None:
    """SWF names no department: the simulation gives each job its owner's, as the
    qmaster does at submission (the first DEPT list naming the owner, else the default)."""
    from dataclasses import replace
    from common.objects_conf.userset import userset_pairs
    config = cfg.new_cell(1, 1)
    usersets = dict(config.conf.get("userset") or {})
    usersets["physics"] = userset_pairs("physics", "DEPT", ["a"])
    config = replace(config, conf={**config.conf, "userset": usersets})
    sim = Simulation(Workload([job(1, 0, 10), job(2, 0, 10, owner="b")]), config)
    assert sim.jobs[1].department == "physics"
    assert sim.jobs[2].department == "defaultdepartment"
