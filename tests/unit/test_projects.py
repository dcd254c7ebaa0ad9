"""Projects (project(5)) in the pure code: the object's format, who may submit into a
project, and ``projects``/``xprojects`` of queues and exec hosts (queue_conf(5),
host_conf(5)) in the dispatch pass."""
from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from common.access import project_admits_user, project_allowed
from common.objects_conf import normalize_object, render_object, template
from common.conffile import ConfError
from common.objects_conf.project import (U_LONG32_MAX, check_u_long32,
                                         name_problem, project_line_problem, project_lists,
                                         project_problem)
from common.placement.explain import pending_reasons
from common.placement.job import PlacementJob, placement_job
from common.placement.pass_conf import Access
from tests.unit.test_access_sched import placed
from tests.unit.test_resources_sched import cluster, make_input

USERSETS = {"staff": [["name", "staff"], ["type", "ACL"], ["entries", "alice,@physics"]],
            "banned": [["name", "banned"], ["type", "ACL"], ["entries", "mallory"]]}
NAMES = st.sampled_from(["p1", "p2", "p3"])


def job(job_id: int, project: str | None = None, owner: str = "alice") -> PlacementJob:
    opts: dict[str, Any] = {"project": project} if project else {}
    return placement_job({"job_id": job_id, "owner": owner, "group": "users", "opts": opts})


# ---- the decision -------------------------------------------------------------------
@given(project=st.none() | NAMES, allowed=st.lists(NAMES, unique=True),
       excluded=st.lists(NAMES, unique=True))
def test_project_decision_is_grid_engines(project: str | None, allowed: list[str],
                                          excluded: list[str]) -> None:
    """xprojects refuses whatever it names; a non-empty projects admits only what it
    names, so not a job without a project; NONE lists admit everything."""
    value = ",".join(allowed) or "NONE"
    xvalue = " ".join(excluded) or "NONE"
    expected = project not in excluded and (not allowed or project in allowed)
    assert project_allowed(project, value, xvalue) is expected


def test_none_lists_admit_jobs_with_and_without_projects() -> None:
    assert project_allowed(None, "NONE", "NONE")
    assert project_allowed("p1", "none", "NONE")
    assert not project_allowed(None, "p1", "NONE")
    assert project_allowed(None, "NONE", "p1")


# ---- the object ---------------------------------------------------------------------
def test_template_and_canonical_values() -> None:
    assert template("project") == [("name", "template"), ("oticket", "0"), ("fshare", "0"),
                                   ("acl", "NONE"), ("xacl", "NONE")]
    pairs = normalize_object("project", [("name", "p1"), ("xacl", "banned"),
                                         ("acl", "staff  other staff"), ("fshare", "0x10"),
                                         ("oticket", "1e3")])
    assert [list(p) for p in pairs] == [["name", "p1"], ["oticket", "1000"], ["fshare", "16"],
                                        ["acl", "staff other staff"], ["xacl", "banned"]]
    assert project_lists(pairs) == [("acl", "staff"), ("acl", "other"), ("xacl", "banned")]
    assert render_object("project", pairs) == \
        "name p1\noticket 1000\nfshare 16\nacl staff other staff\nxacl banned\n"


@pytest.mark.parametrize("value, message", [
    ("4294967296", '"4294967296" is not an u_long32 value'),
    ("1.5", '"1.5" is not an u_long32 value'),
    ("infinity", '"infinity" is not an u_long32 value'),
    ("abc", 'error parsing unsigned long value from string "abc"'),
    ("NONE", 'error parsing unsigned long value from string "NONE"'),
    ("-1", 'parameter "oticket" must be a positive number'),
    ("1_000", 'error parsing unsigned long value from string "1_000"'),
    ("\uff11\uff12", 'error parsing unsigned long value from string "\uff11\uff12"')])
def test_counts_are_refused_in_8_1_9_words(value: str, message: str) -> None:
    with pytest.raises(ConfError) as caught:
        check_u_long32("oticket", value)
    assert caught.value.message == message


@given(st.integers(min_value=0, max_value=U_LONG32_MAX))
def test_every_u_long32_is_a_count(number: int) -> None:
    assert check_u_long32("fshare", str(number)) == str(number)
    assert check_u_long32("fshare", hex(number)) == str(number)


@pytest.mark.parametrize("name, problem", [
    ("a@b", "At ('@') not allowed in objectname"), ("a b", "Space (' ') not allowed in objectname"),
    ("a,b", "Comma (',') not allowed in objectname"), ("template", 'Keyword ("TEMPLATE") not '
                                                                   "allowed as objectname"),
    ("1abc", None), ("a*b", None), ("a!b", None), ("x" * 300, None),
    ("\u00e9", "Non-graphic character (hex c3) not allowed in objectname")])
def test_project_names(name: str, problem: str | None) -> None:
    assert name_problem(name) == problem


def test_the_qmaster_checks_a_whole_project() -> None:
    lists = ["staff", "banned"]
    assert project_problem([["name", "p"], ["acl", "staff"], ["xacl", "banned"]], lists) is None
    assert project_problem([["name", "p"], ["acl", "staff,banned"], ["xacl", "NONE"]],
                           lists) == 'Userset "staff,banned" does not exist'
    assert project_problem([["name", "p"], ["acl", "staff"], ["xacl", "staff"]], lists) == \
        'denied: multiple occurrences of userset "staff" in project "p"'


def test_line_problems_name_8_1_9s_line() -> None:
    assert project_line_problem("name p\noticket\nfshare 0\n") == \
        '" " is the only character allowed between the attribute name and the value in line 3'
    assert project_line_problem("name p\nacl NONE staff\n") == \
        'unrecognized characters after the attribute values in line 2: "staff"'
    assert project_line_problem("name p\nacl staff NONE\n") is None


def test_acl_and_xacl_decide_who_project_admits_user() -> None:
    open_project = [["name", "p"], ["acl", "NONE"], ["xacl", "NONE"]]
    assert project_admits_user("anyone", [], open_project, USERSETS)
    staff_only = [["name", "p"], ["acl", "staff"], ["xacl", "NONE"]]
    assert project_admits_user("alice", [], staff_only, USERSETS)
    assert project_admits_user("carol", ["physics"], staff_only, USERSETS)
    assert not project_admits_user("bob", [], staff_only, USERSETS)
    not_banned = [["name", "p"], ["acl", "NONE"], ["xacl", "banned"]]
    assert not project_admits_user("mallory", [], not_banned, USERSETS)
    assert project_admits_user("bob", [], not_banned, USERSETS)


# ---- the pass -----------------------------------------------------------------------
def test_queue_projects_admit_only_their_projects() -> None:
    conf = cluster({"h1": 2}, queues={"p1.q": {"projects": "p1", "seq_no": "0"},
                                      "open.q": {"seq_no": "1"}})
    got = placed(conf, [job(1, "p1"), job(2, "p2"), job(3)])
    assert got[1] == ["p1.q@h1"]
    assert got[2] == ["open.q@h1"] and got[3] == ["open.q@h1"]


def test_queue_xprojects_and_per_host_values() -> None:
    conf = cluster({"h1": 2, "h2": 2}, queues={"all.q": {"xprojects": "NONE,[h1=p1]"}})
    assert placed(conf, [job(1, "p1")]) == {1: ["all.q@h2"]}
    assert placed(conf, [job(2, "p2")])[2] in (["all.q@h1"], ["all.q@h2"])


def test_exec_host_and_global_host_projects() -> None:
    conf = cluster({"h1": 2, "h2": 2}, queues={"all.q": {}})
    conf["exechost"]["h1"] = [["hostname", "h1"], ["projects", "p1"]]
    assert placed(conf, [job(1, "p2"), job(2)]) == {1: ["all.q@h2"], 2: ["all.q@h2"]}
    assert placed(conf, [job(3, "p1")])[3] in (["all.q@h1"], ["all.q@h2"])
    conf["exechost"]["global"] = [["hostname", "global"], ["xprojects", "p1"]]
    assert placed(conf, [job(4, "p1")]) == {}


def test_access_is_restricted_by_project_lists_alone() -> None:
    assert not Access(cluster({"h1": 1}, queues={"all.q": {}})).restricted
    assert Access(cluster({"h1": 1}, queues={"all.q": {"xprojects": "p1"}})).restricted


def test_reasons_name_the_object_and_the_job_s_project() -> None:
    conf = cluster({"h1": 2}, queues={"all.q": {"projects": "p1"}})
    inp = make_input(conf, [])
    inp.access = Access(conf)
    assert pending_reasons(job(1), inp) == [
        '(no project) does not have the correct project to run in cluster queue "all.q"']
    assert pending_reasons(job(2, "p2"), inp) == [
        '(project p2) does not have the correct project to run in cluster queue "all.q"']
    assert pending_reasons(job(3, "p1"), inp) == []
    conf["exechost"]["h1"] = [["hostname", "h1"], ["xprojects", "p1"]]
    inp.access = Access(conf)
    assert pending_reasons(job(3, "p1"), inp) == [
        '(project p1) is not allowed to run in host "h1" based on the excluded project list']
