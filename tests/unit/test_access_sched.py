"""Access lists in the dispatch pass, in ``qstat -j`` reasons and at submission: queue,
exec host and PE ``user_lists``/``xuser_lists`` (queue_conf(5), host_conf(5), sge_pe(5))
and the global configuration's (sge_conf(5))."""
from __future__ import annotations
from common.placement.job import PlacementJob, placement_job

from pathlib import Path
from typing import Any

import pytest

from clients.api import job_request
from common.model import UserInfo
from qmaster.defaults import queue_defaults
from common.placement.dispatch import dispatch_pass
from common.placement.explain import pending_reasons
from common.placement.pass_conf import Access, conf_fields
from tests.unit.test_qmaster_core import ALICE, QM_HOST, ROOT, Harness
from tests.unit.test_resources_sched import cluster, make_input, task

USERSETS = {"staff": [["name", "staff"], ["type", "ACL"], ["entries", "alice,@physics"]],
            "banned": [["name", "banned"], ["type", "ACL"], ["entries", "mallory"]]}


def job(job_id: int, owner: str, group: str = "users", **opts: Any) -> PlacementJob:
    return placement_job({"job_id": job_id, "owner": owner, "group": group, "opts": opts})


def conf_with(queues: dict[str, dict[str, str]], **kw: Any) -> dict[str, Any]:
    conf = cluster({"h1": 2, "h2": 2}, queues=queues, **kw)
    conf["userset"] = USERSETS
    return conf


def placed(conf: dict[str, Any], jobs: list[dict[str, Any]]) -> dict[int, list[str]]:
    inp = make_input(conf, [])
    inp.jobs = {j.job_id: j for j in jobs}
    inp.pending = [task(j.job_id) for j in jobs]
    inp.access = conf_fields(conf)["access"]
    return {o["job_id"]: [f"{g[0]}@{g[1]}" for g in o["granted"]]
            for o in dispatch_pass(inp)}


def test_queue_user_lists_admit_members_by_name_or_group() -> None:
    conf = conf_with({"open.q": {"seq_no": "1"}, "staff.q": {"user_lists": "staff"}})
    got = placed(conf, [job(1, "alice"), job(2, "bob"), job(3, "carol", "physics")])
    assert got[1][0].startswith("staff.q") and got[3][0].startswith("staff.q")
    assert got[2][0].startswith("open.q")


def test_xuser_lists_refuse_even_members_of_user_lists() -> None:
    conf = conf_with({"all.q": {"user_lists": "staff", "xuser_lists": "banned"}})
    USERSETS["staff"][2][1] = "alice,mallory"
    try:
        assert placed(conf, [job(1, "mallory"), job(2, "alice")]) == {2: ["all.q@h1"]}
    finally:
        USERSETS["staff"][2][1] = "alice,@physics"


def test_per_host_queue_lists_and_exec_host_lists() -> None:
    conf = conf_with({"all.q": {"xuser_lists": "NONE,[h1=banned]"}})
    assert placed(conf, [job(1, "mallory")]) == {1: ["all.q@h2"]}
    conf = conf_with({"all.q": {}})
    conf["exechost"]["h1"] = [["hostname", "h1"], ["user_lists", "staff"]]
    assert placed(conf, [job(1, "bob"), job(2, "alice")]) == {1: ["all.q@h2"],
                                                              2: ["all.q@h1"]}


def test_global_host_lists_apply_everywhere() -> None:
    conf = conf_with({"all.q": {}})
    conf["exechost"]["global"] = [["hostname", "global"], ["xuser_lists", "banned"]]
    assert placed(conf, [job(1, "mallory"), job(2, "bob")]) == {2: ["all.q@h1"]}
    inp = make_input(conf, [])
    inp.access = Access(conf)
    assert pending_reasons(job(1, "mallory"), inp) == ['has no permission for host "global"']


def test_pe_user_lists() -> None:
    conf = conf_with({"all.q": {}}, pes={"mpi": "$fill_up", "smp": "$pe_slots"})
    conf["pe"]["mpi"].append(["user_lists", "staff"])
    got = placed(conf, [job(1, "bob", pe=["mpi", 2, 2]), job(2, "alice", pe=["mpi", 2, 2]),
                        job(3, "bob", pe=["*", 2, 2])])
    assert 1 not in got and len(got[2]) >= 1
    assert 3 in got  # the wildcard finds smp, which bob may use


def test_reasons_name_the_refusal() -> None:
    conf = conf_with({"all.q": {"user_lists": "staff"}}, pes={"mpi": "$fill_up"})
    conf["pe"]["mpi"].append(["xuser_lists", "banned"])
    inp = make_input(conf, [])
    inp.access = Access(conf)
    assert pending_reasons(job(1, "bob"), inp) == ['has no permission for cluster queue '
                                                   '"all.q"']
    assert pending_reasons(job(1, "alice", pe=["mpi", 2, 2]), inp) == []
    assert pending_reasons(job(1, "mallory", pe=["mpi", 2, 2]), inp) == [
        'has no permission for cluster queue "all.q"',
        'cannot run because no access to PE "mpi"',
        'cannot run in PE "mpi" because it only offers 0 slots']
    conf["exechost"]["h2"] = [["hostname", "h2"], ["xuser_lists", "banned"]]
    inp.access = Access(conf)
    assert 'has no permission for host "h2"' in pending_reasons(
        job(1, "mallory", "physics"), inp)


def test_access_is_unrestricted_without_lists() -> None:
    assert not Access(cluster({"h1": 1})).restricted


# --------------------------------------------------------------------------- qmaster

@pytest.fixture
def qm(tmp_path: Path) -> Harness:
    h = Harness(tmp_path, auto_add_hosts=True, default_slots=1)
    h.register("h1")
    return h


def set_global(qm: Harness, **values: str) -> None:
    pairs = [[k, values.get(k, v)] for k, v in qm.server.store.conf["conf"]["global"]]
    qm.call("conf_put", {"user": ROOT.to_dict(), "kind": "conf", "name": "global",
                         "data": pairs, "mode": "modify"})


def add_list(qm: Harness, name: str, users: list[str]) -> None:
    qm.call("userset_entries", {"user": ROOT.to_dict(), "op": "add", "users": users,
                                "lists": [name]})


def test_global_configuration_decides_who_may_submit(qm: Harness) -> None:
    add_list(qm, "outlaws", [ALICE.name])
    set_global(qm, xuser_lists="outlaws")
    host = ALICE.host
    with pytest.raises(RuntimeError, match=f"job rejected: {ALICE.name}@{host} is not "
                                           "allowed to submit jobs"):
        qm.submit(ALICE)
    assert qm.submit(ROOT) > 0
    set_global(qm, xuser_lists="NONE", user_lists="outlaws")
    assert qm.submit(ALICE) > 0
    with pytest.raises(RuntimeError, match="is not allowed to submit jobs"):
        qm.submit(UserInfo("bob", 2001, "users", 2001, QM_HOST))


def test_scheduling_info_and_verify_see_queue_lists(qm: Harness) -> None:
    add_list(qm, "vip", ["root"])
    qm.call("conf_put", {"user": ROOT.to_dict(), "kind": "queue", "name": "all.q",
                         "data": queue_defaults("all.q", hostlist="@allhosts",
                                                user_lists="vip"), "mode": "modify"})
    with pytest.raises(RuntimeError) as refused:
        qm.call("submit", {"user": ALICE.to_dict(), "jobs": [
            job_request("/bin/true", binary=True, verify_mode="v")]})
    assert str(refused.value).splitlines() == [
        "warning: alice's job is not allowed to run in any queue",
        'Job 1 has no permission for cluster queue "all.q"',
        "verification: no suitable queues"]
    job_id = qm.submit(ALICE)
    info = qm.call("job_query", {"user": ALICE.to_dict(), "job_ids": [job_id],
                                 "explain": True})["scheduling_info"]
    assert list(info.values()) == [['has no permission for cluster queue "all.q"']]


def test_a_user_no_queue_admits_is_warned_but_the_job_is_in(qm: Harness) -> None:
    """Grid Engine 8.1.9: 'Unable to run job: warning: sgeuser's job is not allowed to
    run in any queue' and exit status 1, yet the job was submitted."""
    add_list(qm, "vip", ["root"])
    qm.call("conf_put", {"user": ROOT.to_dict(), "kind": "queue", "name": "all.q",
                         "data": queue_defaults("all.q", hostlist="@allhosts",
                                                xuser_lists="NONE,[h1=vip]"),
                         "mode": "modify"})
    assert "notes" not in qm.call("submit", {"user": ALICE.to_dict(), "jobs": [
        job_request("/bin/true", binary=True)]})
    reply = qm.call("submit", {"user": ROOT.to_dict(), "jobs": [
        job_request("/bin/true", binary=True, verify_mode="w")]})
    warning = "warning: root's job is not allowed to run in any queue"
    assert reply["notes"] == [{"lines": [warning, "warning: no suitable queues"],
                               "unable": True}]
    assert len(qm.server.store.jobs) == 2
    with pytest.raises(RuntimeError) as refused:
        qm.call("submit", {"user": ROOT.to_dict(), "jobs": [
            job_request("/bin/true", binary=True, verify_mode="v")]})
    assert str(refused.value).splitlines() == [
        warning, 'Job 3 has no permission for cluster queue "all.q"',
        "verification: no suitable queues"]


@pytest.mark.parametrize("users, lists", [(["a b"], ["l"]), (["a,b"], ["l"]), (["NONE"], ["l"]),
                                          (["a"], ["l m"])])
def test_userset_entries_refuses_names_that_would_split(qm: Harness, users: list[str],
                                                        lists: list[str]) -> None:
    with pytest.raises(RuntimeError, match="is not a valid user or list name"):
        qm.call("userset_entries", {"user": ROOT.to_dict(), "op": "add", "users": users,
                                    "lists": lists})
    assert "l" not in qm.server.store.conf["userset"]
