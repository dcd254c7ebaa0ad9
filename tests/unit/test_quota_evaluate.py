"""Resource quota evaluation (common.quota.evaluate), sentence by sentence of
sge_resource_quota(5) and the 2006 specification, alone and in the dispatch pass."""
from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from common.cluster import QueueInstance
from common.placement.dispatch import PassInput, dispatch_pass
from common.placement.pass_conf import PEConf
from common.placement.job import placement_job
from common.placement.quotas import quota_context
from common.quota.evaluate import (Names, QuotaRequest, QuotaUsage, debit, exceeded,
                                   filter_matches, matching_rule, rule_label)
from common.quota.report import Selection, quota_rows, render_rows, render_rows_xml
from common.quota.rqs_format import RuleSet, parse_rule_sets, rule_set_pairs
from common.resource.complexes import default_complexes, parse_complex_line

COMPILER = parse_rule_sets("""{
name ruleset1
enabled true
limit users roland to compiler_lic=3
limit projects * to compiler_lic=2
limit users * to compiler_lic=1
}
{
name ruleset2
enabled true
limit users * to compiler_lic=20
}""")
NAMES = Names(acls={"staff": frozenset({"roland", "andre"}), "eng": frozenset({"ann"})},
              host_groups={"@lx_hosts": frozenset({"durin", "carc"})})


def number(name: str, text: str, host: str) -> float:
    return float(text)


def req(user: str, project: str | None = None, amounts: dict[str, float] | None = None,
        host: str = "durin", queue: str = "all.q", pe: str | None = None) -> QuotaRequest:
    return QuotaRequest(user, project, pe, queue, host,
                        amounts if amounts is not None else {"slots": 1, "compiler_lic": 1})


def grant(sets: list[RuleSet], usage: QuotaUsage, request: QuotaRequest) -> str | None:
    """Place the request if it fits: None, else the rule that refused it."""
    refused = exceeded(sets, usage, request, NAMES, number)
    if refused is None:
        debit(sets, usage, request, NAMES)
    return refused


def test_the_compiler_licence_example_of_the_specification_with_three_users() -> None:
    """ruleset1: roland gets 3 licences even within a project; in a project anyone gets
    2; anyone else 1. ruleset2: 20 in all."""
    usage = QuotaUsage()
    roland = [grant(COMPILER, usage, req("roland", "p1")) for _ in range(4)]
    assert roland == [None, None, None, "ruleset1/1"]  # 3, though he is in a project
    andre = [grant(COMPILER, usage, req("andre", "p1")) for _ in range(3)]
    assert andre == [None, None, "ruleset1/2"]          # 2 in a project
    ann = [grant(COMPILER, usage, req("ann")) for _ in range(2)]
    assert ann == [None, "ruleset1/3"]                  # 1 without
    # the "projects *" rule counts all project users together: 2 in use (andre)
    assert grant(COMPILER, usage, req("bob", "p2")) == "ruleset1/2"


def test_the_tightest_set_wins_and_a_full_second_set_refuses_everyone() -> None:
    sets = parse_rule_sets("{\nname a\nenabled true\nlimit users {*} to slots=3\n}\n"
                           "{\nname b\nenabled true\nlimit users * to slots=4\n}")
    usage = QuotaUsage()
    results = [grant(sets, usage, req(u, amounts={"slots": 1}))
               for u in ("u1", "u1", "u1", "u1", "u2", "u3")]
    assert results == [None, None, None, "a/1", None, "b/1"]


def test_braces_count_each_member_alone_and_a_plain_list_all_together() -> None:
    together = parse_rule_sets("{\nname t\nenabled true\nlimit users * to slots=2\n}")
    each = parse_rule_sets("{\nname e\nenabled true\nlimit users {*} to slots=2\n}")
    for sets, expected in ((together, [None, None, "t/1", "t/1"]),
                           (each, [None, None, None, None])):
        usage = QuotaUsage()
        got = [grant(sets, usage, req(u, amounts={"slots": 1}))
               for u in ("u1", "u1", "u2", "u2")]
        assert got == expected


def test_an_excluded_user_is_not_affected_even_when_listed() -> None:
    """2006 spec: "limit users @staff,!roland,roland to slots=10" does not limit
    roland."""
    [rs] = parse_rule_sets("{\nname x\nenabled true\nlimit users @staff,!roland,roland "
                           "to slots=1\n}")
    assert matching_rule(rs, req("roland"), NAMES) is None
    assert matching_rule(rs, req("andre"), NAMES) == 0
    assert matching_rule(rs, req("ann"), NAMES) is None


def test_an_access_list_holds_users_by_name_and_by_primary_group() -> None:
    """access_list(5): entries are user names and ``@group`` primary groups. A user is
    in ``@dev`` when it names him or his primary group; an exclusion of the list
    (``!@dev``) keeps out its group members too."""
    names = Names(acls={"dev": frozenset({"ann", "@wheel"})})
    [rs] = parse_rule_sets("{\nname g\nenabled true\nlimit users @dev to slots=1\n}")
    assert matching_rule(rs, QuotaRequest("ann", None, None, "all.q", "h", {}, "users"),
                         names) == 0
    assert matching_rule(rs, QuotaRequest("bob", None, None, "all.q", "h", {}, "wheel"),
                         names) == 0
    assert matching_rule(rs, QuotaRequest("bob", None, None, "all.q", "h", {}, "users"),
                         names) is None
    assert matching_rule(rs, QuotaRequest("wheel", None, None, "all.q", "h", {}),
                         names) is None  # a user named like the group is no member
    out = parse_rule_sets("{\nname x\nenabled true\nlimit users !@dev to slots=1\n}")[0]
    assert matching_rule(out, QuotaRequest("bob", None, None, "all.q", "h", {}, "wheel"),
                         names) is None


def test_the_pass_counts_a_group_member_of_an_access_list() -> None:
    """The live case (tests/e2e/test_quota_live.py): ``users @staff`` where staff holds
    ``@wheel``; the second job of a wheel member waits, another group's does not."""
    conf = {"rqs": {"s": rule_set_pairs(parse_rule_sets(
                "{\nname s\nenabled true\nlimit users @staff to slots=1\n}")[0])},
            "userset": {"staff": [["name", "staff"], ["entries", "@wheel"]]}}
    owners = {1: ("bob", "wheel"), 2: ("bob", "wheel"), 3: ("eve", "users"),
              4: ("eve", "users")}
    placed = {j: placement_job({"job_id": j, "owner": o, "group": g, "opts": {}})
              for j, (o, g) in owners.items()}
    quotas = quota_context(conf, ATTRS, {}, {"h1": {}}, placed, [])
    tasks = [{"job_id": j, "task_id": 1, "version": 1, "state": "pending"} for j in owners]
    orders = dispatch_pass(PassInput(placed, tasks,
                                     [QueueInstance("all.q", "h1", 8, 0, "BATCH", True)],
                                     {}, quotas=quotas))
    assert [o["job_id"] for o in orders] == [1, 3, 4]


def test_projects_and_pes_filters_and_jobs_without_one() -> None:
    star = parse_rule_sets("{\nname p\nlimit projects * to slots=1\n}")[0].rules[0]
    none = parse_rule_sets("{\nname p\nlimit projects !* to slots=1\n}")[0].rules[0]
    given = star.filters["projects"]
    assert filter_matches(given, "p1", "projects", NAMES)
    assert not filter_matches(given, None, "projects", NAMES)
    assert filter_matches(none.filters["projects"], None, "projects", NAMES)
    assert not filter_matches(none.filters["projects"], "p1", "projects", NAMES)
    assert filter_matches(None, None, "pes", NAMES)  # no filter: every job


def test_per_host_rule_over_a_host_group() -> None:
    sets = parse_rule_sets("{\nname h\nenabled true\nlimit hosts {@lx_hosts} "
                           "to slots=1\n}")
    usage = QuotaUsage()
    assert [grant(sets, usage, req("u", host=h, amounts={"slots": 1}))
            for h in ("durin", "carc", "durin", "other")] == [None, None, "h/1", None]


def test_dynamic_limits_are_resolved_per_host() -> None:
    sets = parse_rule_sets("{\nname d\nenabled true\nlimit hosts {*} "
                           "to slots=$num_proc*2\n}")
    procs = {"a": 1.0, "b": 2.0}

    def dynamic(name: str, text: str, host: str) -> float:
        return procs[host] * 2
    usage = QuotaUsage()
    got = [exceeded(sets, usage, req("u", host=h, amounts={"slots": 1}), NAMES, dynamic)
           or debit(sets, usage, req("u", host=h, amounts={"slots": 1}), NAMES)
           for h in ("a", "a", "a", "b", "b", "b", "b", "b")]
    assert got == [None, None, "d/1", None, None, None, None, "d/1"]


def test_a_disabled_set_is_ignored_and_slots_zero_drains() -> None:
    off = parse_rule_sets("{\nname off\nenabled false\nlimit to slots=0\n}")
    drain = parse_rule_sets("{\nname drain\nenabled true\nlimit to slots=0\n}")
    assert exceeded(off, QuotaUsage(), req("u"), NAMES, number) is None
    assert exceeded(drain, QuotaUsage(), req("u"), NAMES, number) == "drain/1"


def test_what_is_not_requested_is_not_limited() -> None:
    assert exceeded(COMPILER, QuotaUsage(), req("u", amounts={"slots": 1}), NAMES,
                    number) is None


@given(st.lists(st.sampled_from(["u1", "u2", "u3"]), max_size=30), st.integers(0, 5))
def test_no_user_ever_holds_more_than_a_per_user_limit(users: list[str], cap: int) -> None:
    sets = parse_rule_sets(f"{{\nname c\nenabled true\nlimit users {{*}} to slots={cap}\n}}")
    usage = QuotaUsage()
    held = {u: 0 for u in ("u1", "u2", "u3")}
    for user in users:
        if grant(sets, usage, req(user, amounts={"slots": 1})) is None:
            held[user] += 1
    assert all(count == min(cap, users.count(u)) for u, count in held.items())


# ---- in the dispatch pass (common.placement.quotas, common.placement.dispatch) -------


ATTRS = default_complexes() + [parse_complex_line("compiler_lic cl INT <= YES YES 0 0")]


def pass_with(sets_text: str, jobs: list[tuple[int, str, dict[str, object]]],
              holding: list[dict[str, object]] = (), slots: int = 8,
              hosts: tuple[str, ...] = ("h1",), **kw: object
              ) -> list[tuple[int, list[list[object]]]]:
    conf = {"rqs": {rs.name: rule_set_pairs(rs) for rs in parse_rule_sets(sets_text)},
            "userset": {"staff": [["name", "staff"], ["entries", "roland,andre"]]}}
    placed = {j: placement_job({"job_id": j, "owner": owner, "opts": opts})
              for j, owner, opts in jobs}
    quotas = quota_context(conf, ATTRS, {}, {h: {"num_proc": "2"} for h in hosts}, placed,
                           holding)
    instances = [QueueInstance("all.q", h, slots, 0, "BATCH INTERACTIVE", True)
                 for h in hosts]
    tasks = [{"job_id": j, "task_id": 1, "version": 1, "state": "pending"}
             for j, _, _ in jobs]
    orders = dispatch_pass(PassInput(placed, tasks, instances, {}, quotas=quotas,
                                     **kw))  # type: ignore[arg-type]
    return [(o["job_id"], o["granted"]) for o in orders]


def test_the_pass_keeps_each_user_to_a_slot_quota() -> None:
    got = pass_with("{\nname q\nenabled true\nlimit users {*} to slots=2\n}",
                    [(1, "a", {}), (2, "a", {}), (3, "a", {}), (4, "b", {})])
    assert [j for j, _ in got] == [1, 2, 4]


def test_running_jobs_count_against_the_quota() -> None:
    got = pass_with("{\nname q\nenabled true\nlimit users {*} to slots=2\n}",
                    [(1, "a", {}), (2, "a", {}), (9, "a", {})],
                    holding=[{"job_id": 9, "granted": [["all.q", "h1", 1]]}])
    assert [j for j, _ in got] == [1]


def test_the_pass_counts_licences_and_projects() -> None:
    jobs = [(1, "roland", {"project": "p1", "hard_resources": {"compiler_lic": "2"}}),
            (2, "roland", {"project": "p1", "hard_resources": {"compiler_lic": "2"}}),
            (3, "andre", {"project": "p1", "hard_resources": {"compiler_lic": "2"}}),
            (4, "ann", {"hard_resources": {"compiler_lic": "1"}})]
    got = pass_with("{\nname ruleset1\nenabled true\nlimit users roland to compiler_lic=3\n"
                    "limit projects * to compiler_lic=2\nlimit users * to compiler_lic=1\n}",
                    jobs)
    assert [j for j, _ in got] == [1, 3, 4]  # roland's second would make 4 > 3


def test_a_parallel_job_over_a_quota_waits() -> None:
    text = "{\nname q\nenabled true\nlimit users {*} to slots=3\n}"
    got = pass_with(text, [(1, "a", {"pe": ["smp", 2, 2]}), (2, "a", {"pe": ["smp", 2, 2]})],
                    pe_of_queue={"all.q": {"smp"}})
    assert got == [(1, [["all.q", "h1", 2]])]


def test_no_enabled_set_costs_nothing() -> None:
    assert quota_context({"rqs": {}}, ATTRS, {}, {}, {}, []) is None


def test_qquota_rows_of_the_8_1_9_capture() -> None:
    """tests/data/reference/rqs/ qquota-*: the compiler licence sets and slots_per_user,
    sgeuser running one job with compiler_lic=1 and one without, on host vm."""
    rqs = Path(__file__).parents[1] / "data" / "reference" / "rqs"
    sets = parse_rule_sets((rqs / "qquota-rulesets.input").read_text())
    conf = {"rqs": {rs.name: rule_set_pairs(rs) for rs in sets}, "userset": {}}
    jobs = {1: placement_job({"job_id": 1, "owner": "sgeuser",
                              "opts": {"hard_resources": {"compiler_lic": "1"}}}),
            2: placement_job({"job_id": 2, "owner": "sgeuser", "opts": {}})}
    holding = [{"job_id": j, "granted": [["all.q", "vm", 1]]} for j in (1, 2)]
    ctx = quota_context(conf, ATTRS, {}, {}, jobs, holding)
    assert ctx is not None

    def text(users: frozenset[str] | None, **chosen: frozenset[str]) -> str:
        return render_rows(quota_rows(ctx.rule_sets, ctx.usage, ctx.names,
                                      lambda n, t, h: t, Selection(users=users, **chosen)))
    assert text(frozenset({"sgeuser"})) == (rqs / "qquota-user.out").read_text()
    assert text(frozenset({"sgeuser"}), hosts=frozenset({"vm"})) == \
        (rqs / "qquota-user-h.out").read_text()
    assert text(frozenset({"sgeuser"}), resources=frozenset({"compiler_lic"})) == \
        (rqs / "qquota-user-l.out").read_text()
    assert text(frozenset({"root"})) == (rqs / "qquota-root.out").read_text()
    assert text(None) == (rqs / "qquota-root-u-all.out").read_text()
    xml = render_rows_xml(quota_rows(ctx.rule_sets, ctx.usage, ctx.names,
                                     lambda n, t, h: t, Selection(users=None)))
    assert xml == (rqs / "qquota-root-u-all-xml.out").read_text()


def test_a_host_rule_before_a_general_one_is_the_sets_rule_on_its_host() -> None:
    """The pass gives up a consumer early only when a refusal holds everywhere: user a
    is over "users * to slots=1" on h1, but on h2 the set's rule is the earlier host
    rule."""
    text = "{\nname s\nenabled true\nlimit hosts h2 to slots=100\nlimit users * to slots=1\n}"
    got = pass_with(text, [(1, "a", {}), (2, "a", {})], hosts=("h1", "h2"), slots=2)
    assert got == [(1, [["all.q", "h1", 1]]), (2, [["all.q", "h2", 1]])]


RULE_TEXTS = ["users {*} to slots=2", "users u1 to slots=1", "users * to slots=3",
              "hosts h1 to slots=1", "hosts {*} to slots=2", "projects * to slots=1",
              "projects !* users {*} to slots=2", "queues b.q to slots=1",
              "users !u2 hosts {h1,h2} to slots=2"]


@given(st.lists(st.lists(st.sampled_from(RULE_TEXTS), min_size=1, max_size=3), min_size=1,
                max_size=3),
       st.lists(st.tuples(st.sampled_from(["u1", "u2", "u3"]),
                          st.sampled_from([None, "p1"]), st.sampled_from(["a.q", "b.q"]),
                          st.sampled_from(["h1", "h2", "h3"])), max_size=12))
def test_the_pass_view_decides_as_the_reference_evaluation(
        sets_rules: list[list[str]],
        grants: list[tuple[str, str | None, str, str]]) -> None:
    """common.placement.quotas (cached per consumer) and common.quota.evaluate agree."""
    text = "".join(f"{{\nname s{n}\nenabled true\n" + "\n".join(f"limit {r}" for r in rules)
                   + "\n}\n" for n, rules in enumerate(sets_rules))
    sets = parse_rule_sets(text)
    conf = {"rqs": {rs.name: rule_set_pairs(rs) for rs in sets}, "userset": {}}
    ctx = quota_context(conf, ATTRS, {}, {}, {}, [])
    assert ctx is not None
    reference = QuotaUsage()
    for user, project, queue, host in grants:
        job = placement_job({"job_id": 1, "owner": user,
                             "opts": {"project": project} if project else {}})
        req = QuotaRequest(user, project, None, queue, host, {"slots": 1.0})
        expected = exceeded(sets, reference, req, Names(), number)
        assert ctx.refusal_of_grant(job, [[queue, host, 1]]) == expected
        refused = ctx.claim(job, queue, host, 1)  # which counts the grant when it fits
        assert (None if refused is None else rule_label(*refused)) == expected
        if expected is None:
            debit(sets, reference, req, Names())
        assert ctx.usage.used == reference.used


# ---- explaining: qstat -j and qsub -w v (8.1.9's words, tests/data/reference/rqs-sched/) --
def reasons_with(sets_text: str, job: dict[str, object], owner: str = "sgeuser",
                 holding: list[tuple[dict[str, object], list[list[object]]]] = ()
                 ) -> list[str]:
    from common.placement.explain import pending_reasons
    from tests.unit.test_resources_sched import cluster, make_input
    conf = cluster({"vm": 4}, pes={"smp": "$pe_slots"})
    conf["rqs"] = {rs.name: rule_set_pairs(rs) for rs in parse_rule_sets(sets_text)}
    running = {100 + i: placement_job({"job_id": 100 + i, "owner": owner, "opts": opts})
               for i, (opts, _) in enumerate(holding)}
    inp = make_input(conf, [], running=[({"job_id": j}, g) for j, (_, g)
                                        in zip(running, holding)])
    inp.quotas = quota_context(conf, inp.resources.attrs, {}, {"vm": {"num_proc": "2"}},
                               running, [{"job_id": j, "granted": g}
                                         for j, (_, g) in zip(running, holding)])
    return pending_reasons(placement_job({"job_id": 1, "owner": owner, "opts": job}), inp)


def test_a_quota_refusal_names_the_consumers_and_the_rule() -> None:
    one = "{\nname max_u_slots\nenabled true\nlimit users {*} to slots=1\n}"
    busy = [({}, [["all.q", "vm", 1]])]
    assert reasons_with(one, {}, holding=busy) == [
        'cannot run because it exceeds limit "sgeuser/////" in rule "max_u_slots/1"']
    together = "{\nname users_star\nenabled true\nlimit users * to slots=1\n}"
    assert reasons_with(together, {}, holding=busy) == [
        'cannot run because it exceeds limit "/////" in rule "users_star/1"']
    named = "{\nname named_rule\nenabled true\nlimit name r1 users {*} hosts {*} to slots=1\n}"
    assert reasons_with(named, {}, holding=busy) == [
        'cannot run because it exceeds limit "sgeuser////vm/" in rule "named_rule/r1"']
    drained = "{\nname slots_zero\nenabled true\nlimit users {*} to slots=0\n}"
    assert reasons_with(drained, {}) == [
        'cannot run because it exceeds limit "sgeuser/////" in rule "slots_zero/1"']


def test_a_parallel_job_is_named_a_quota_only_when_not_one_slot_fits() -> None:
    two = "{\nname pe_full\nenabled true\nlimit users {*} to slots=2\n}"
    assert reasons_with(two, {"pe": ["smp", 4, 4]}) == [
        'cannot run in PE "smp" because it only offers 0 slots']
    full = [({}, [["all.q", "vm", 2]])]
    assert reasons_with(two, {"pe": ["smp", 2, 2]}, holding=full) == [
        'cannot run because it exceeds limit "sgeuser/////" in rule "pe_full/1"',
        'cannot run in PE "smp" because it only offers 0 slots']



# ---- the sets' master order (8.1.9: added or last modified, last) ---------------------
def test_a_modified_set_moves_to_the_end_and_the_order_survives_a_restart(
        tmp_path: Path) -> None:
    from tests.unit.test_qmaster_core import ROOT, Harness
    qm = Harness(tmp_path)

    def put(name: str, slots: int, mode: str) -> None:
        sets = parse_rule_sets(f"{{\nname {name}\nenabled true\n"
                               f"limit users {{*}} to slots={slots}\n}}")
        qm.call("conf_put", {"user": ROOT.to_dict(), "kind": "rqs", "name": name,
                             "data": rule_set_pairs(sets[0]), "mode": mode})

    def order(harness: Harness) -> list[str]:
        return list(harness.call("conf_get", {"user": ROOT.to_dict(), "kind": "rqs"})
                    ["objects"])
    put("zz_first", 1, "add")
    put("aa_second", 1, "add")
    put("mm_third", 1, "add")
    assert order(qm) == ["zz_first", "aa_second", "mm_third"]
    put("zz_first", 2, "modify")
    assert order(qm) == ["aa_second", "mm_third", "zz_first"]
    qm.call("conf_del", {"user": ROOT.to_dict(), "kind": "rqs", "name": "mm_third"})
    assert order(Harness(tmp_path)) == ["aa_second", "zz_first"]


# ---- a parallel job's slot range under quotas (8.1.9: rqs-sched/pe-*) ---------------------
SMP = {"pe_of_queue": {"all.q": {"smp"}}}


def pe_job(job_id: int, low: int, high: int, name: str = "smp") -> tuple[int, str, dict]:
    return (job_id, "u", {"pe": [name, low, high], "pe_ranges": [[low, high]]})


def test_a_slot_range_gets_what_the_quota_leaves() -> None:
    two = "{\nname q\nenabled true\nlimit users {*} to slots=2\n}"
    assert pass_with(two, [pe_job(1, 1, 4)], **SMP) == [(1, [["all.q", "h1", 2]])]
    one_used = [{"job_id": 9, "granted": [["all.q", "h1", 1]]}]
    assert pass_with(two, [pe_job(1, 1, 4), (9, "u", {})], holding=one_used, **SMP) == \
        [(1, [["all.q", "h1", 1]])]
    # (job 9 holds a slot and, as pass_with makes every job pending, asks for another)
    got = pass_with(two, [pe_job(1, 2, 2), (9, "u", {})], holding=one_used, **SMP)
    assert [job for job, _ in got] == [9]  # 2 of the 2 would be 3: the range waits


def test_a_per_host_quota_full_on_one_host_leaves_the_others() -> None:
    per_host = "{\nname q\nenabled true\nlimit users {*} hosts {*} to slots=2\n}"
    busy = [{"job_id": 9, "granted": [["all.q", "h1", 2]]}]
    got = pass_with(per_host, [pe_job(1, 2, 2), (9, "u", {})], holding=busy, slots=4,
                    hosts=("h1", "h2"), **SMP)
    assert got == [(1, [["all.q", "h2", 2]])]
    fill_up = {"pe_of_queue": {"all.q": {"mpi"}}, "pes": {"mpi": PEConf("mpi", None,
                                                                         "$fill_up")}}
    got = pass_with(per_host, [pe_job(1, 4, 4, "mpi")], slots=4, hosts=("h1", "h2"),
                    **fill_up)
    assert sorted(map(tuple, got[0][1])) == [("all.q", "h1", 2), ("all.q", "h2", 2)]


def test_trying_a_job_does_not_count_it() -> None:
    """can_run (qsub -w, qstat -j) tries the job in a copy of the quotas' usage."""
    from common.placement.dispatch import can_run
    conf = {"rqs": {rs.name: rule_set_pairs(rs) for rs in parse_rule_sets(
        "{\nname q\nenabled true\nlimit users {*} to slots=2\n}")}}
    quotas = quota_context(conf, ATTRS, {}, {}, {}, [])
    inp = PassInput({}, [], [QueueInstance("all.q", "h1", 8, 0, "BATCH INTERACTIVE", True)],
                    {}, quotas=quotas, pe_of_queue={"all.q": {"smp"}})
    job = placement_job({"job_id": 1, "owner": "u", "opts": {"pe": ["smp", 2, 2]}})
    assert can_run(job, inp) and can_run(job, inp)
    assert quotas is not None and quotas.usage.used == {}


# ---- limits on non-consumables, consumables' defaults ------------------------------------
def placed_ids(sets_text: str, jobs: list[tuple[int, str, dict[str, object]]], **kw: object
               ) -> list[int]:
    return [job for job, _ in pass_with(sets_text, jobs, **kw)]


def test_a_limit_on_a_non_consumable_compares_the_request() -> None:
    """``to arch=lx-amd64``: a job asking for another arch is refused, one asking for
    it or not asking at all is not; ``to h_vmem=2G`` (h_vmem not consumable by
    default) refuses a request of more."""
    arch = "{\nname a\nenabled true\nlimit users {*} to arch=lx-amd64\n}"
    jobs = [(1, "u", {"hard_resources": {"arch": "sol-sparc64"}}),
            (2, "u", {"hard_resources": {"arch": "lx-amd64"}}), (3, "u", {})]
    assert placed_ids(arch, jobs) == [2, 3]
    vmem = "{\nname v\nenabled true\nlimit users {*} to h_vmem=2G\n}"
    jobs = [(1, "u", {"hard_resources": {"h_vmem": "4G"}}),
            (2, "u", {"hard_resources": {"h_vmem": "1G"}}),
            (3, "u", {"hard_resources": {"h_vmem": "1G"}})]
    assert placed_ids(vmem, jobs) == [2, 3]  # compared, never counted


def test_a_consumable_default_counts_for_jobs_not_requesting_it() -> None:
    """2006 specification: jobs not requesting virtual_free count its default."""
    attrs = default_complexes() + [parse_complex_line("lic lic INT <= YES YES 1 0")]
    conf = {"rqs": {rs.name: rule_set_pairs(rs) for rs in parse_rule_sets(
        "{\nname l\nenabled true\nlimit users * to lic=2\n}")}}
    jobs = {j: placement_job({"job_id": j, "owner": "u", "opts": {}}) for j in (1, 2, 3)}
    ctx = quota_context(conf, attrs, {}, {}, jobs, [])
    assert ctx is not None
    results = [ctx.claim(jobs[j], "all.q", "h1", 1) for j in (1, 2, 3)]
    assert [r is None for r in results] == [True, True, False]


# ---- each filter of sge_resource_quota(5) on its own ---------------------------------
def one_rule(rule: str) -> list[RuleSet]:
    return parse_rule_sets(f"{{\nname f\nenabled true\nlimit {rule}\n}}")


def grants(sets: list[RuleSet], requests: list[QuotaRequest]) -> list[str | None]:
    usage = QuotaUsage()
    return [grant(sets, usage, r) for r in requests]


SLOT = {"slots": 1.0}


def test_projects_exclusion_and_only_jobs_without_a_project() -> None:
    not_p1 = one_rule("projects !p1 to slots=1")
    assert grants(not_p1, [req("u", "p1", SLOT)] * 2) == [None, None]  # p1 not limited
    assert grants(not_p1, [req("u", "p2", SLOT)] * 2) == [None, "f/1"]
    assert grants(not_p1, [req("u", None, SLOT)] * 2) == [None, None]   # no project: no
    none_only = one_rule("projects !* to slots=1")
    assert grants(none_only, [req("u", None, SLOT)] * 2) == [None, "f/1"]
    assert grants(none_only, [req("u", "p1", SLOT)] * 2) == [None, None]


def test_pes_filters() -> None:
    any_pe = one_rule("pes * to slots=1")
    assert grants(any_pe, [req("u", None, SLOT, pe="smp")] * 2) == [None, "f/1"]
    assert grants(any_pe, [req("u", None, SLOT)] * 2) == [None, None]  # no PE: not limited
    not_smp = one_rule("pes !smp to slots=1")
    assert grants(not_smp, [req("u", None, SLOT, pe="smp")] * 2) == [None, None]
    assert grants(not_smp, [req("u", None, SLOT, pe="mpi")] * 2) == [None, "f/1"]
    serial = one_rule("pes !* to slots=1")
    assert grants(serial, [req("u", None, SLOT)] * 2) == [None, "f/1"]
    assert grants(serial, [req("u", None, SLOT, pe="mpi")] * 2) == [None, None]
    each = one_rule("pes {*} to slots=1")
    assert grants(each, [req("u", None, SLOT, pe=p) for p in ("smp", "mpi", "smp")]) == \
        [None, None, "f/1"]


def test_queues_and_hosts_filters_with_exclusions() -> None:
    b_only = one_rule("queues b.q to slots=1")
    assert grants(b_only, [req("u", None, SLOT, queue="a.q")] * 2) == [None, None]
    assert grants(b_only, [req("u", None, SLOT, queue="b.q")] * 2) == [None, "f/1"]
    not_b = one_rule("queues !b.q to slots=1")
    assert grants(not_b, [req("u", None, SLOT, queue="b.q")] * 2) == [None, None]
    not_durin = one_rule("hosts !durin to slots=1")
    assert grants(not_durin, [req("u", None, SLOT, host="durin")] * 2) == [None, None]
    assert grants(not_durin, [req("u", None, SLOT, host="carc")] * 2) == [None, "f/1"]


def test_two_limits_of_one_rule_each_hold() -> None:
    both = one_rule("users * to slots=3,compiler_lic=1")
    lic = {"slots": 1.0, "compiler_lic": 1.0}
    assert grants(both, [req("u", None, lic), req("u", None, lic)]) == [None, "f/1"]
    assert grants(both, [req("u", None, SLOT)] * 4) == [None, None, None, "f/1"]


def test_a_named_list_counts_its_users_together_and_braces_each() -> None:
    """2006 spec: ``users roland, andre to virtual_free=5g`` is for both together;
    ``users {@staff}`` and ``{roland,andre}`` are for each member on its own; and
    ``{!@staff}`` expands to ``!roland,!andre``."""
    together = one_rule("users roland,andre to slots=2")
    assert grants(together, [req(u, None, SLOT) for u in ("roland", "andre", "roland")]) == \
        [None, None, "f/1"]
    for each in ("users {@staff} to slots=2", "users {roland,andre} to slots=2"):
        assert grants(one_rule(each), [req(u, None, SLOT) for u in
                                       ("roland", "andre", "roland", "andre", "roland")]) == \
            [None, None, None, None, "f/1"]
    not_staff = one_rule("users {!@staff} to slots=1")
    assert grants(not_staff, [req(u, None, SLOT) for u in ("roland", "roland")]) == \
        [None, None]
    assert grants(not_staff, [req(u, None, SLOT) for u in ("ann", "bob", "ann")]) == \
        [None, None, "f/1"]
