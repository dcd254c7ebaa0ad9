"""clients.views.qstat / views_detail: query replies -> renderer rows, checked against the
Grid Engine 8.1.9 reference outputs through the (byte-exact) renderers; and the pure
option parsing of clients.qstat / clients.qhost."""
from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, strategies as st

from clients import qhost as qh
from clients import qstat as qs
from clients.render import qhost as rh
from clients.render import qstat as rq
from clients.views import qstat as v
from clients.views import qhost as vq
from qmaster.defaults import exechost_defaults
from common.placement.offers import host_offers
from common.placement.resources import build_view
from clients.views.detail import env_list, job_detail, resource_list, select_jobs

from tests.reference import REFERENCE as REF
SUBMIT, START, HOLD_SUBMIT = 1795315065.0, 1795315140.0, 1795315063.0
ALL = v.JobFilter(users=None)
INT_LOADS = ("num_proc", "m_socket", "m_core", "m_thread")


@pytest.fixture(autouse=True)
def _in_utc(utc: None) -> None:
    """Every test here renders times as the reference shows them (UTC)."""



def ref(name: str) -> str:
    return (REF / name).read_text()


def job(job_id: int, name: str, submit: float = SUBMIT, **opts: Any) -> dict[str, Any]:
    array = opts.get("array")
    task_ids = list(range(array[0], array[1] + 1, array[2])) if array else [1]
    return {"job_id": job_id, "owner": "sgeuser", "uid": 1001, "group": "sgeuser", "gid": 1001,
            "submit_time": submit, "opts": {"job_name": name, "binary": True,
                                            "script_path": "/bin/sleep", **opts},
            "sge_o": {"HOME": "/home/sgeuser", "LOGNAME": "sgeuser", "PATH": "/usr/bin",
                      "SHELL": "/bin/bash", "WORKDIR": "/home/sgeuser", "HOST": "vm"},
            "script": None, "task_ids": task_ids}


def task(job_id: int, task_id: int = 1, state: str = "pending", **extra: Any) -> dict[str, Any]:
    data = {"job_id": job_id, "task_id": task_id, "state": state, "holds": [], "queue": None,
            "host": None, "slots": 1, "granted": [], "start_time": None, "usage": {},
            "error_reason": ""}
    if state == "running":
        data.update(queue="all.q", host="vm", granted=[["all.q", "vm", 1]], start_time=START)
    data.update(extra)
    return data


def reference_reply() -> dict[str, Any]:
    """Jobs 95 (running), 96 (pending), 97 (array 1-3, two running), 78 (held)."""
    jobs = [job(78, "true", HOLD_SUBMIT, hold=True), job(95, "running_job", hard_resources={"h_rt": "300"}),
            job(96, "pending_job", hard_resources={"arch": "sparc64"}),
            job(97, "array_job", array=[1, 3, 1])]
    tasks = [task(78, state="hold", holds=["u"]), task(95, state="running"), task(96),
             task(97, 1, "running"), task(97, 2, "running"), task(97, 3)]
    return {"jobs": jobs, "tasks": tasks}


def reference_load() -> dict[str, str]:
    load = {}
    for line in ref("qhost-F.out").splitlines():
        if line.startswith("   hl:"):
            name, value = line.strip()[3:].split("=", 1)
            load[name] = str(int(float(value))) if name in INT_LOADS else value
    return load


def cluster(alive: bool = True, used: int = 3) -> dict[str, Any]:
    return {"hosts": [{"name": "vm", "load": reference_load(), "load_time": START, "alive": alive}],
            "exechosts": ["vm"], "queues": ["all.q"],
            "instances": [{"queue": "all.q", "host": "vm", "slots": 4, "used": used,
                           "qtype": "BATCH INTERACTIVE", "alive": alive, "pe_list": "make smp mpi"}]}


def with_host_resources(reply: dict[str, Any]) -> dict[str, Any]:
    """The cluster reply as the qmaster gives it for -F: each host's qhost -F lines from
    the pure model (common.placement.offers) over the reference load report."""
    conf: dict[str, Any] = {"queue": {}, "hgrp": {}, "complex": {}, "exechost": {
        name: exechost_defaults(name) for name in ("global", "vm")}}
    view = build_view(conf, {h["name"]: h for h in reply["hosts"]}, [], [])
    return {**reply, "host_resources": {"global": host_offers(view, None),
                                        "vm": host_offers(view, "vm")}}


def table(flt: v.JobFilter = ALL) -> list[dict[str, Any]]:
    reply = reference_reply()
    return v.running_rows(reply, cluster(), flt) + v.pending_rows(reply, flt)


# --------------------------------------------------------------------------- reference outputs

def test_plain_qstat_matches_reference() -> None:
    assert rq.render_job_table(table()) == ref("qstat.out")


def test_qstat_r_matches_reference() -> None:
    assert rq.render_job_table(table(), show_resources=True) == ref("qstat-r.out")


def test_qstat_s_p_matches_reference() -> None:
    rows = table(v.JobFilter(states=frozenset({"p"}), users=None))
    assert rq.render_job_table(rows) == ref("qstat-s-p.out")


def test_qstat_xml_matches_reference() -> None:
    reply = reference_reply()
    text = rq.render_job_table_xml(v.running_rows(reply, cluster(), ALL), v.pending_rows(reply, ALL))
    assert text == ref("qstat-xml.out")


def test_qstat_f_and_f_xml_match_reference() -> None:
    reply = reference_reply()
    queues = v.queue_rows(cluster(), reply, ALL)
    pending = v.pending_rows(reply, ALL)
    assert rq.render_full(queues, pending) == ref("qstat-f.out")
    assert rq.render_full_xml(queues, pending) == ref("qstat-f-xml.out")


def test_cluster_queue_summary_matches_reference() -> None:
    summary = v.cluster_queue_summary(cluster())
    assert rq.render_cluster_queue_summary(summary) == ref("qstat-g-c.out")


@pytest.mark.parametrize("name,kwargs", [("qhost", {}), ("qhost-q", {"show_queues": True}),
                                         ("qhost-F", {"show_resources": True}),
                                         ("qhost-xml", {}), ("qhost-F-xml", {"show_resources": True})])
def test_qhost_matches_reference(name: str, kwargs: dict[str, Any]) -> None:
    rows = vq.host_rows(with_host_resources(cluster()))
    render = rh.render_hosts_xml if name.endswith("xml") else rh.render_hosts
    assert render(rows, **kwargs) == ref(f"{name}.out")


# --------------------------------------------------------------------------- selection

def test_default_user_filter_and_patterns() -> None:
    assert table(v.JobFilter(users=("someone",))) == []
    assert len(table(v.JobFilter(users=("sge*",)))) == 6


def test_hold_filters_select_pending_by_hold_kind() -> None:
    held = table(v.JobFilter(states=v.parse_state_filter("hu"), users=None))
    assert [(r["job_id"], r["state"]) for r in held] == [(78, "hqw")]
    assert table(v.JobFilter(states=v.parse_state_filter("ho"), users=None)) == []
    running = table(v.JobFilter(states=frozenset({"r"}), users=None))
    assert {r["state"] for r in running} == {"r"} and len(running) == 3


def test_queue_selection_hides_other_instances() -> None:
    flt = v.JobFilter(users=None, instances=frozenset({"other.q@vm"}))
    assert v.running_rows(reference_reply(), cluster(), flt) == []
    assert v.queue_rows(cluster(), reference_reply(), flt) == []


def test_unknown_host_queue_state_and_load() -> None:
    [queue] = v.queue_rows(cluster(alive=False), reference_reply(), ALL)
    assert (queue["states"], queue["load_avg"], queue["qtype"]) == ("u", None, "BIP")
    [summary] = v.cluster_queue_summary(cluster(alive=False))
    assert summary["load"] is None and summary["available"] == 0
    assert summary["manual_intervention"] == 4


def test_queue_resources_for_f_option() -> None:
    [queue] = v.queue_rows(cluster(), reference_reply(), ALL, resource_names=["a", "load_avg"],
                           show_resources=True)
    assert queue["resources"] == [["hl", "arch", "lx-amd64"], ["hl", "load_avg", "2.016602"]]


def test_queue_type_letters() -> None:
    assert v.queue_type({"qtype": "BATCH", "pe_list": "NONE"}) == "B"
    assert v.queue_type({"qtype": "INTERACTIVE", "pe_list": "smp"}) == "IP"


def test_pending_array_groups_by_state_and_hold() -> None:
    reply = {"jobs": [job(5, "arr", array=[1, 10, 1])],
             "tasks": [task(5, 1, "running"), task(5, 2, state="hold", holds=["u"])]
             + [task(5, t) for t in range(3, 11)]}
    rows = v.pending_rows(reply, ALL)
    assert [(r["state"], r["pending_tasks"], r["prio"]) for r in rows] == [
        ("qw", "3-10:1", 0.5), ("hqw", "2", 0.0)]


def test_running_rows_follow_queue_instance_order() -> None:
    two = cluster()
    two["instances"].insert(0, {**two["instances"][0], "queue": "a.q"})
    reply = {"jobs": [job(1, "one"), job(2, "two")],
             "tasks": [task(1, state="running"), task(2, state="running", queue="a.q",
                                                      granted=[["a.q", "vm", 1]])]}
    assert [r["job_id"] for r in v.running_rows(reply, two, ALL)] == [2, 1]


def test_parallel_job_slots_per_instance() -> None:
    reply = {"jobs": [job(7, "mpi", pe=["mpi", 2, 4])],
             "tasks": [task(7, state="running", slots=3, granted=[["all.q", "vm", 3]])]}
    [row] = v.running_rows(reply, cluster(), ALL)
    assert (row["slots"], row["granted_pe"], row["pe_range"]) == (3, "mpi", "2-4")
    [queue] = v.queue_rows(cluster(), reply, ALL)
    assert queue["jobs"][0]["slots"] == 3


def test_zombie_rows_only_with_z() -> None:
    reply = {"jobs": [job(9, "done")], "tasks": [task(9, state="finished")]}
    assert v.zombie_rows(reply, ALL) == []
    [row] = v.zombie_rows(reply, v.JobFilter(states=frozenset({"z"}), users=None))
    assert row["state"] == "z"


def test_host_rows_selection_and_jobs() -> None:
    rows = vq.host_rows(cluster(), reference_reply(), hosts=["VM"])
    assert [r["name"] for r in rows] == ["global", "vm"]
    assert [(r["job_id"], r["task_id"]) for r in rows[1]["jobs"]] == [(95, None), (97, 1), (97, 2)]
    assert vq.host_rows(cluster(), hosts=["other"])[1:] == []
    assert vq.host_rows(cluster(), reference_reply(), users=("x",))[1]["jobs"] == []


# --------------------------------------------------------------------------- -s and ranges

def test_parse_state_filter() -> None:
    assert v.parse_state_filter("p") == {"p"}
    assert v.parse_state_filter("a") == {"p", "r", "s"}
    assert v.parse_state_filter("hup") == {"hu", "p"}
    assert v.parse_state_filter("h") == set(v.HOLD_FLAGS) | {"p"}
    assert v.parse_state_filter("x") is None
    assert v.parse_state_filter("px") is None


S_TABLE = ["hu", "hs", "ho", "hd", "hj", "ha", "h", "p", "r", "s", "z", "a"]


@given(st.sets(st.sampled_from([f for f in S_TABLE if f != "h"]), min_size=1))
def test_parse_state_filter_accepts_flags_in_table_order(flags: set[str]) -> None:
    # a bare "h" is left out: "h" + "s" is the flag "hs", as in Grid Engine
    text = "".join(f for f in S_TABLE if f in flags)
    expected = {"h": set(v.HOLD_FLAGS) | {"p"}, "a": {"p", "r", "s"}}
    union = set().union(*(expected.get(f, {f} | ({"p"} if f.startswith("h") else set()))
                          for f in flags))
    assert v.parse_state_filter(text) == union


def test_parse_state_filter_keeps_grid_engine_quirk() -> None:
    # one pass consumes "hu" then "h", leaving "u": Grid Engine refuses "huhu" too
    assert v.parse_state_filter("huhu") is None


def _ids(ids: list[int]) -> list[tuple[int, int]]:
    return [(t, t) for t in ids]


def test_task_ranges_texts() -> None:
    assert v.task_ranges(_ids([3, 4, 5, 6, 7, 8, 9, 10]), 1) == "3-10:1"
    assert v.task_ranges(_ids([1, 3, 5]), 1) == "1,3,5"
    assert v.task_ranges(_ids([1, 3, 5, 7, 9]), 2) == "1-9:2"
    assert v.task_ranges(_ids([3, 4]), 1) == "3,4"
    # pieces of a range list and single ids that follow each other make one run
    assert v.task_ranges([(5, 75000), (1, 3), (4, 4)], 1) == "1-75000:1"
    assert v.task_ranges([(1, 9), (13, 21)], 2) == "1-9:2,13-21:2"


@given(st.sets(st.integers(1, 40), min_size=1), st.integers(1, 3))
def test_task_ranges_cover_exactly_the_ids(ids: set[int], step: int) -> None:
    # the ids of a job -t 1-118:step, as single ids and as spans of runs
    ids = {1 + (t - 1) * step for t in ids}
    spans: list[tuple[int, int]] = []
    for t in sorted(ids):
        if spans and spans[-1][1] + step == t and t % 3:
            spans[-1] = (spans[-1][0], t)
        else:
            spans.append((t, t))
    text = v.task_ranges(spans, step)
    assert text == v.task_ranges(_ids(sorted(ids)), step)
    covered: set[int] = set()
    for part in text.split(","):
        bounds, _, step_text = part.partition(":")
        low, _, high = bounds.partition("-")
        covered |= set(range(int(low), int(high or low) + 1, int(step_text or step)))
    assert covered == ids


# --------------------------------------------------------------------------- qstat -j

def test_job_detail_of_reference_pending_job() -> None:
    reference = job(96, "pending_job", hard_resources={"arch": "sparc64"}, script_args=["1"],
                    stdout_paths=["/dev/null"], stderr_paths=["/dev/null"], env={"TERM": None})
    reference["sge_o"]["PATH"] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    detail = job_detail(reference, [task(96)], [reference])
    expected = ref("qstat-j-pending.out").split("scheduling info:")[0]
    assert rq.render_job_detail([detail]) == expected


def test_job_detail_running_array_tasks() -> None:
    array = job(97, "array_job", array=[1, 3, 1])
    tasks = [task(97, 1, "running", usage={"cpu": 1.0}), task(97, 2, "running"), task(97, 3)]
    detail = job_detail(array, tasks, [array])
    assert detail["job_array_tasks"] == "1-3:1"
    assert [(t["task_id"], t["status"]) for t in detail["ja_tasks"]] == [(1, 128), (2, 128)]
    assert detail["job_type"] == ["binary"] and detail["account"] == "sge"
    assert detail["mail_list"] == [["sgeuser", "vm"]]


def test_job_detail_dependencies_and_environment() -> None:
    first, second = job(1, "first"), job(2, "second", hold_jid=["first"], env={"A": "1"})
    detail = job_detail(second, [task(2, state="hold", holds=["h"])], [first, second])
    assert detail["jid_predecessor_list"] == [1] and detail["jid_request_list"] == ["first"]
    assert job_detail(first, [], [first, second])["jid_successor_list"] == [2]
    names = [name for name, _ in env_list(second)]
    assert names.index("A") < names.index("__SGE_PREFIX__O_HOST")


def test_resource_list_types() -> None:
    assert resource_list({"h_rt": "300", "a": "x"}) == [
        {"name": "h_rt", "value": "300", "valtype": 3, "doubleval": 300.0},
        {"name": "arch", "value": "x", "valtype": 2, "doubleval": 0.0}]


def test_select_jobs_by_id_name_and_pattern() -> None:
    jobs = reference_reply()["jobs"]
    chosen, missing = select_jobs(jobs, ["95", "array*", "nothing"])
    assert [j["job_id"] for j in chosen] == [95, 97] and missing == ["nothing"]


# --------------------------------------------------------------------------- qstat/qhost options

def test_qstat_options_and_arguments() -> None:
    args = qs.parse_args(["-f", "-u", "a,b", "c", "-s", "hu", "-q", "all.q@vm", "-r", "-ext"])
    assert (args.full, args.resources, args.extended) == (True, True, True)
    assert args.users == ["a", "b", "c"] and args.queues == ["all.q@vm"]
    assert args.states == {"hu", "p"}
    detail = qs.parse_args(["-j", "1,name", "-xml", "-F"])
    assert detail.job_info and detail.job_items == ["1", "name"] and detail.xml
    assert detail.show_queue_resources and detail.full and detail.resource_names is None
    assert qs.parse_args(["-F", "arch,load_avg"]).resource_names == ["arch", "load_avg"]
    assert qs.parse_args(["-l", "x", "-help"]).help  # -help wins before anything is refused


@pytest.mark.parametrize("argv,message,usage", [
    (["-x"], 'invalid option argument "-x"', True),
    (["foo"], 'invalid option argument "foo"', True),
    (["-s"], "-s option must have argument", False),
    (["-s", "q"], "ERROR! wrong argument to -s option", True),
    (["-g", "x"], "wrong character 'x' for -g option", False)])
def test_qstat_option_errors(argv: list[str], message: str, usage: bool) -> None:
    with pytest.raises(qs.QstatExit) as caught:
        qs.parse_args(argv)
    assert (caught.value.message, caught.value.usage, caught.value.status) == (message, usage, 1)


@given(st.lists(st.sampled_from(["-f", "-r", "-u", "x", "-s", "p", "-j", "1", "-q", "-xml",
                                 "-F", "-g", "c", "-ne", "-bad", ""]), max_size=8))
def test_qstat_parser_only_raises_qstat_exit(argv: list[str]) -> None:
    try:
        qs.parse_args(argv)
    except qs.QstatExit as stop:
        assert stop.message


def test_effective_users() -> None:
    assert qs.effective_users([], "me") == ("me",)
    assert qs.effective_users(["*"], "me") is None
    assert qs.effective_users(["$user", "bob"], "me") == ("me", "bob")


def test_queue_references() -> None:
    two = cluster()
    two["instances"].append({**two["instances"][0], "host": "other"})
    assert qs.select_instances(["all.q"], two, {}) == {"all.q@vm", "all.q@other"}
    assert qs.select_instances(["*@VM"], two, {}) == {"all.q@vm"}
    assert qs.select_instances(["all.q@@grp"], two, {"@grp": ["other"]}) == {"all.q@other"}
    assert qs.select_instances(["b*"], two, {}) == frozenset()


def test_queue_width_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert qs.queue_width(cluster()) == 30
    monkeypatch.setenv("SGE_LONG_QNAMES", "5")
    assert qs.queue_width(cluster()) == 10
    monkeypatch.setenv("SGE_LONG_QNAMES", "-1")
    assert qs.queue_width(cluster()) == len("all.q@vm")


def test_ungrouped_pending_tasks_and_unknown_jobs_xml() -> None:
    rows = qs._ungrouped([{"job_id": 3, "pending_tasks": "1,4-8:2"}], {})
    assert [(r["task_id"], r["pending_tasks"]) for r in rows] == [(1, None), (4, None),
                                                                  (6, None), (8, None)]
    assert qs.unknown_jobs_xml(["9"]) == ("<?xml version='1.0'?>\n<unknown_jobs >\n  <element>\n"
                                          "    <ST_name>9</ST_name>\n  </element>\n</unknown_jobs>\n")


def test_qhost_options() -> None:
    args = qh.parse_args(["-q", "-F", "arch", "-h", "vm,b", "-u", "me", "-xml"], lambda h: True)
    assert (args.queues, args.jobs, args.xml) == (True, True, True)
    assert args.resource_names == ["arch"] and args.hosts == ["vm", "b"] and args.users == ["me"]
    with pytest.raises(qh.QhostExit) as caught:
        qh.parse_args(["-h", "nowhere"], lambda h: False)
    assert (caught.value.message, caught.value.usage) == ('error: can\'t resolve hostname "nowhere"', True)
    with pytest.raises(qh.QhostExit) as caught:
        qh.parse_args(["-z"], lambda h: True)
    assert caught.value.message == 'error: invalid option argument "-z"'
    assert qh.parse_args(["-j", "-help"], lambda h: True).help


def test_job_detail_priority_lines_from_the_policy_figures() -> None:
    """qstat -j: ``oticket`` after script_file as 8.1.9 prints a job's -ot (captured
    g2-qstat-j-ot), JB_nurg and each running task's JAT_ntix from the policy's figures."""
    ot = job(14, "p0", override_tickets=100, priority=10, job_share=10)
    ot["policy"] = {"nurg": 0.25, "ntckts": 0.75}
    detail = job_detail(ot, [task(14, 1, "running")], [ot])
    text = rq.render_job_detail([detail])
    assert "jobshare:                   10\n" in text
    assert "script_file:" not in text or text.index("script_file:") < text.index("oticket:")
    assert "oticket:                    100\n" in text
    assert detail["nurg"] == 0.25 and detail["ja_tasks"][0]["ntix"] == 0.75
    assert "<JB_nurg>0.250000</JB_nurg>" in rq.render_job_detail_xml([detail])
    plain = job_detail(job(15, "plain"), [task(15)], [])
    assert "oticket" not in rq.render_job_detail([plain]) and plain["nurg"] == 0.5
