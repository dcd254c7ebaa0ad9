"""common.policy.inputs: job records, task records and configuration objects -> the policy
core's PolicyJob, Entities and ResourceUrgency; and the pass taking jobs in the policy's
order (PassInput.order)."""
from __future__ import annotations

import time
from typing import Any

from hypothesis import given, strategies as st

from common.cluster import QueueInstance
from common.placement.dispatch import PassInput, dispatch_pass, pending_order
from common.placement.job import PlacementJob, placement_job, placement_record
from common.policy import inputs
from common.policy.model import Entity, ResourceUrgency, RunningTask
from common.objects_conf.userset import userset_pairs
from qmaster.defaults import pe_defaults

SUBMIT = 1_700_000_000.0


def job(job_id: int, owner: str = "alice", group: str = "staff", **opts: Any) -> PlacementJob:
    return placement_job(placement_record(job_id, owner, group, opts, SUBMIT))


def pending(job_id: int, task_id: int = 1, holds: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"job_id": job_id, "task_id": task_id, "state": "pending", "holds": list(holds),
            "version": 1}


def running(job_id: int, task_id: int = 1, slots: int = 1, **usage: float) -> dict[str, Any]:
    return {"job_id": job_id, "task_id": task_id, "state": "running",
            "granted": [["all.q", "h1", slots]], "usage": dict(usage)}


def pe(name: str, **changes: str) -> list[list[str]]:
    return [[k, changes.get(k, v)] for k, v in pe_defaults(name)]


def conf(**kinds: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {"userset": {}, "project": {}, "pe": {}, "complex": {}, "sconf": {}, "conf": {},
            **kinds}


def only(jobs: dict[int, PlacementJob], tasks: list[dict[str, Any]],
         cell: dict[str, Any] | None = None, ranges: list[dict[str, Any]] | None = None
         ) -> list[Any]:
    return inputs.policy_inputs(cell or conf(), jobs, tasks, ranges or []).jobs


# --------------------------------------------------------------------------- job records

def test_a_record_carries_what_the_policy_weighs() -> None:
    j = job(3, priority=-100, job_share=7, override_tickets=20, project="p1",
            hard_resources={"h_vmem": "1G"})
    [found] = only({3: j}, [pending(3)])
    assert (found.job_id, found.owner, found.group, found.project) == (3, "alice", "staff", "p1")
    assert (found.submit_time, found.priority, found.job_share, found.override_tickets) == \
        (SUBMIT, -100, 7, 20)
    assert found.requests == {"h_vmem": "1G"}
    assert (found.pending_tasks, found.running, found.slots) == (1, (), 1)
    assert found.department == "defaultdepartment"


def test_held_tasks_do_not_wait_and_running_ones_hold_their_slots() -> None:
    tasks = [pending(1, 1), pending(1, 2, holds=("u",)), running(1, 3, slots=2, cpu=5.0)]
    ranges = [{"job_id": 1, "pending": [[4, 10, 2]]},
              {"job_id": 1, "pending": [[11, 20, 1]], "holds": ["u"]}]
    [found] = only({1: job(1, array=[1, 20, 1])}, tasks, ranges=ranges)
    assert found.pending_tasks == 1 + 4
    assert found.pending_task_ids == (1, 4, 6, 8, 10)
    assert found.running == (RunningTask(3, 2, {"cpu": 5.0}),)
    suspended = {**running(1, 3), "state": "suspended", "suspend_reasons": ["job"]}
    assert only({1: job(1)}, [suspended])[0].running[0].suspended


def test_only_the_first_pending_ids_of_a_large_array() -> None:
    cell = conf(sconf={"global": [["max_pending_tasks_per_job", "3"]]})
    ranges = [{"job_id": 1, "pending": [[5, 100000, 1]]}]
    [found] = only({1: job(1, array=[1, 100000, 1])}, [pending(1, 2)], cell, ranges)
    assert found.pending_tasks == 1 + 99996
    assert found.pending_task_ids == (2, 5, 6)


def test_jobs_with_nothing_waiting_or_running_are_left_out() -> None:
    assert only({1: job(1)}, [pending(1, holds=("u",))]) == []
    assert only({1: job(1)}, [{**running(1), "state": "finished"}]) == []


def test_a_deadline_counts_only_for_deadline_users() -> None:
    j = job(1, deadline="202612312359")
    assert j.deadline == time.mktime((2026, 12, 31, 23, 59, 0, 0, 0, -1))
    assert only({1: j}, [pending(1)])[0].deadline is None  # no deadlineusers list
    cell = conf(userset={"deadlineusers": userset_pairs("deadlineusers", "ACL", ["bob"])})
    assert only({1: j}, [pending(1)], cell)[0].deadline is None
    cell = conf(userset={"deadlineusers": userset_pairs("deadlineusers", "ACL", ["@staff"])})
    assert only({1: j}, [pending(1)], cell)[0].deadline == j.deadline


def test_the_department_is_the_dept_list_that_holds_the_owner() -> None:
    cell = conf(userset={
        "acl_only": userset_pairs("acl_only", "ACL", ["alice"]),
        "adept": userset_pairs("adept", "ACL DEPT", ["@staff"]),
        "zdept": userset_pairs("zdept", "DEPT", ["alice"])})
    assert only({1: job(1)}, [pending(1)], cell)[0].department == "zdept"  # the user first
    assert only({1: job(1, owner="bob")}, [pending(1)], cell)[0].department == "adept"
    assert only({1: job(1, owner="eve", group="x")}, [pending(1)], cell)[0].department == \
        "defaultdepartment"


# --------------------------------------------------------------------------- urgency slots

def test_urgency_slots_follow_the_pe() -> None:
    def slots(setting: str, ranges: list[tuple[int, int]], pe_slots: str = "100") -> int:
        cell = conf(pe={"mpi": pe("mpi", urgency_slots=setting, slots=pe_slots)})
        j = job(1, pe=["mpi", ranges[0][0], ranges[-1][1]],
                pe_ranges=[list(r) for r in ranges] if len(ranges) > 1 else [])
        return only({1: j}, [pending(1)], cell)[0].slots
    assert slots("min", [(2, 8)]) == 2
    assert slots("max", [(2, 8)]) == 8
    assert slots("max", [(2, 9_999_999)], "64") == 64
    assert slots("avg", [(2, 8)]) == 5
    assert slots("avg", [(1, 2), (7, 7)]) == 3   # (1 + 2 + 7) / 3, truncated
    assert slots("avg", [(4, 9_999_999)], "10") == 7
    assert slots("6", [(2, 8)]) == 6
    assert slots("max", [(4, 4)]) == 4           # one number: that number, whatever the PE


def test_a_pe_pattern_takes_the_first_matching_pe() -> None:
    cell = conf(pe={"mpi_b": pe("mpi_b", urgency_slots="max"),
                    "mpi_a": pe("mpi_a", urgency_slots="min")})
    j = job(1, pe=["mpi*", 2, 8])
    assert only({1: j}, [pending(1)], cell)[0].slots == 2
    assert only({1: job(1, pe=["none*", 2, 8])}, [pending(1)], cell)[0].slots == 1


# --------------------------------------------------------------------------- entities

def test_entities_from_projects_departments_and_users() -> None:
    project = [["name", "p1"], ["oticket", "5"], ["fshare", "30"], ["acl", "NONE"],
               ["xacl", "NONE"]]
    dept = [["name", "d1"], ["type", "DEPT"], ["fshare", "10"], ["oticket", "2"],
            ["entries", "alice"]]
    user = [["name", "alice"], ["oticket", "1"], ["fshare", "4"], ["delete_time", "0"],
            ["default_project", "NONE"]]  # (user(5) objects: the objects' own rule)
    acl = [["name", "a"], ["type", "ACL"], ["fshare", "9"], ["oticket", "0"],
           ["entries", "NONE"]]
    found = inputs.entities(conf(project={"p1": project}, userset={"d1": dept, "a": acl},
                                 user={"alice": user}))
    assert found.projects == {"p1": Entity(30, 5)}
    assert found.departments == {"d1": Entity(10, 2)}
    assert found.users == {"alice": Entity(4, 1)}


def test_resource_urgencies_from_the_complex_list() -> None:
    found = inputs.resource_urgencies(conf())  # Grid Engine's default complexes
    assert found["slots"] == ResourceUrgency(1000.0, "YES", True)
    assert all(u.urgency for u in found.values())
    rows = [["lic", "lic", "INT", "<=", "YES", "JOB", "0", "250"],
            ["arch", "a", "RESTRING", "==", "YES", "NO", "NONE", "3"]]
    found = inputs.resource_urgencies(conf(complex={"global": rows}))
    assert found["lic"] == ResourceUrgency(250.0, "JOB", True)
    assert found["arch"] == ResourceUrgency(3.0, "NO", False)


def test_policy_conf_reads_the_scheduler_configuration() -> None:
    cell = conf(sconf={"global": [["weight_priority", "1.000000"],
                                  ["weight_tickets_share", "1000"]]},
                conf={"global": [["max_aj_instances", "5"]]})
    found = inputs.policy_conf(cell)
    assert (found.weight_priority, found.weight_tickets_share, found.max_aj_instances) == \
        (1.0, 1000, 5)


def test_the_share_tree_from_the_stored_tree() -> None:
    from common.objects_conf.sharetree import SHARETREE, parse_sharetree, tree_pairs
    from common.policy.model import PROJECT_NODE, USER_NODE
    assert inputs.share_tree(conf()) == ()
    text = ("id=0\nname=Root\ntype=0\nshares=1\nchildnodes=1,2\n"
            "id=1\nname=p1\ntype=0\nshares=80\nchildnodes=NONE\n"
            "id=2\nname=default\ntype=0\nshares=20\nchildnodes=NONE\n")
    root = parse_sharetree(text)
    assert root is not None
    stored = tree_pairs(root)
    project = [["name", "p1"], ["oticket", "0"], ["fshare", "0"], ["acl", "NONE"],
               ["xacl", "NONE"]]
    nodes = inputs.share_tree(conf(sharetree={SHARETREE: stored}, project={"p1": project}))
    assert [(n.name, n.type, n.shares) for n in nodes] == [
        ("Root", USER_NODE, 1), ("p1", PROJECT_NODE, 80), ("default", USER_NODE, 20)]


# --------------------------------------------------------------------------- the order

def qi(slots: int) -> QueueInstance:
    return QueueInstance("all.q", "h1", slots, 0, "BATCH INTERACTIVE", True)


def test_the_pass_takes_jobs_in_the_policys_order() -> None:
    jobs = {i: job(i, priority=10 * i) for i in (1, 2, 3)}
    tasks = [pending(i) for i in (1, 2, 3)]
    plain = dispatch_pass(PassInput(jobs, tasks, [qi(2)], {}))
    assert [o["job_id"] for o in plain] == [3, 2]  # no order: -p first
    ordered = dispatch_pass(PassInput(jobs, tasks, [qi(2)], {}, order={1: 0, 3: 1, 2: 2}))
    assert [o["job_id"] for o in ordered] == [1, 3]
    unranked = dispatch_pass(PassInput(jobs, tasks, [qi(2)], {}, order={2: 0}))
    assert [o["job_id"] for o in unranked] == [2, 1]  # the unranked after, by job id


@given(st.permutations(list(range(1, 9))))
def test_pending_order_follows_any_ranking(ranked: list[int]) -> None:
    jobs = {i: job(i) for i in ranked}
    tasks = [pending(i, t) for i in ranked for t in (2, 1)]
    order = {job_id: rank for rank, job_id in enumerate(ranked)}
    found = pending_order(jobs, tasks, order)
    assert [(t["job_id"], t["task_id"]) for t in found] == \
        [(j, t) for j in ranked for t in (1, 2)]


# --------------------------------------------------------------------------- the cache

EVENTS = st.lists(st.tuples(
    st.sampled_from(["pending", "held", "running", "suspended", "finished", "del",
                     "ranges", "noranges", "job", "jobdel", "conf"]),
    st.integers(1, 3), st.integers(1, 3)), max_size=25)


@given(EVENTS)
def test_the_mirrors_cache_builds_what_a_fresh_build_gives(events: list[Any]) -> None:
    """The scheduler keeps PolicyJobs between passes (PolicyJobCache, fed by the events):
    after any events they are those a build from the whole mirror gives."""
    from scheduler.mirror import Mirror
    mirror = Mirror.from_snapshot({"epoch": "e", "seq": 0, "hosts": [], "conf": {},
                                   "jobs": [placement_record(1, "alice", "staff", {})],
                                   "tasks": [pending(1)]})
    for seq, (what, job_id, task_id) in enumerate(events, 1):
        event: dict[str, Any] = {"seq": seq, "kind": "task", "op": "put",
                                 "key": f"{job_id}.{task_id}"}
        if what in ("pending", "held"):
            event["obj"] = pending(job_id, task_id, ("u",) if what == "held" else ())
        elif what in ("running", "suspended", "finished"):
            event["obj"] = {**running(job_id, task_id, slots=task_id), "state": what}
        elif what == "del":
            event["op"] = "del"
        elif what in ("ranges", "noranges"):
            event.update(kind="ranges", key=str(job_id), op="del" if what == "noranges"
                         else "put", obj={"job_id": job_id, "pending": [[5, 4 + task_id, 1]],
                                          "holds": [], "version": seq})
        elif what in ("job", "jobdel"):
            event.update(kind="job", key=str(job_id), op="del" if what == "jobdel" else "put",
                         obj=placement_record(job_id, f"user{task_id}", "g",
                                              {"priority": -task_id}, SUBMIT))
        else:
            event.update(kind="userset", key="dept1",  # user1's department from now on
                         obj=userset_pairs("dept1", "DEPT", ["user1"]))
        mirror.apply(event)
        cached = sorted(mirror.policy_inputs_jobs(), key=lambda j: j.job_id)
        fresh = inputs.policy_jobs(mirror.jobs, inputs.job_tasks(
            mirror.tasks.values(), mirror.ranges.values()), mirror.conf)
        assert cached == sorted(fresh, key=lambda j: j.job_id)
