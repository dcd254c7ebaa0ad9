"""The functional and override ticket policies (common.policy.tickets) through
``evaluate``: hand-computed examples from 8.1.9's formulas (libs/sched/sgeee.c), a
brute-force transcription of 8.1.9's pending rounds to compare the heaps with, and
properties."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from common.policy.conf import PolicyConf
from common.policy.model import (Entities, Entity, PolicyJob, ResourceUrgency,
                                 RunningTask, UsageTable)
from common.policy.priority import evaluate, hierarchy
from common.policy.tickets import PENDING_SUM_EPSILON

NOW = 1_000_000
URGENCIES = {"slots": ResourceUrgency(1000.0, "YES", True)}
# only the tickets decide the order in these examples
TICKETS_ONLY = dict(weight_priority=0.0, weight_urgency=0.0, weight_ticket=1.0)


def run(jobs, conf, entities, **kw):
    return evaluate(jobs, conf, entities=entities, tree=(), usage=UsageTable(),
                    urgencies=URGENCIES, now=NOW, **kw)


def pend(job_id, owner, **kw):
    kw.setdefault("submit_time", NOW - 1000 + job_id)
    kw.setdefault("pending_tasks", 1)
    return PolicyJob(job_id=job_id, owner=owner, **kw)


def running_job(job_id, owner, tasks=1, **kw):
    return PolicyJob(job_id=job_id, owner=owner, submit_time=NOW - 5000,
                     running=tuple(RunningTask(t) for t in range(1, tasks + 1)), **kw)


USERS_80_20 = Entities(users={"a": Entity(fshare=80), "b": Entity(fshare=20)})
USER_ONLY = dict(weight_user=1.0, weight_project=0.0, weight_department=0.0,
                 weight_job=0.0)


def test_functional_80_20_pending_jobs_interleave_as_8_1_9_values_them():
    """1000 tickets, user shares only. Round 1: a's job (80/1 over a sum of 0.001)
    beats b's; taken, a's 80 shares join the sum: 80·1000/80 = 1000. Round 2: a 40
    (80/2) against b 20, over 80.001: a, 500. Round 3: a 80/3: 333.33. Round 4: a 20
    and b 20 tie, a's job is older: 250. Round 5: a 16 < b 20: b's first, the sum
    grows to 100: 200. Then a 16·1000/100 = 160, and b's rest 10, 6.67, 5, 4 (x10)."""
    conf = PolicyConf(weight_tickets_functional=1000, **USER_ONLY, **TICKETS_ONLY)
    jobs = [pend(i, "a") for i in range(1, 6)] + [pend(i, "b") for i in range(6, 11)]
    result = run(jobs, conf, USERS_80_20)
    ftickets = {i: result.jobs[i].tickets.ftckt for i in range(1, 11)}
    expected = {1: 1000, 2: 500, 3: 1000 / 3, 4: 250, 5: 160,
                6: 200, 7: 100, 8: 200 / 3, 9: 50, 10: 40}
    assert ftickets == pytest.approx(expected)
    assert result.order == (1, 2, 3, 4, 6, 5, 7, 8, 9, 10)
    assert result.jobs[1].ntckts == 1.0 and result.jobs[10].ntckts == pytest.approx(0.04)


def test_pending_jobs_weigh_categories_over_all_four_weights():
    """8.1.9 normalises the four weights over all of them for pending jobs (over the
    categories in use only for running ones): with the defaults (0.25 each) a pending
    job with user shares only gets a quarter of the user's tickets."""
    conf = PolicyConf(weight_tickets_functional=1000, **TICKETS_ONLY)
    result = run([pend(1, "a")], conf, USERS_80_20)
    assert result.jobs[1].tickets.ftckt == pytest.approx(250.0)
    result = run([running_job(1, "a")], conf, USERS_80_20)
    assert result.jobs[1].task_tickets[1].ftckt == pytest.approx(1000.0)


def test_running_tasks_share_their_users_tickets():
    """Running: a's 80 shares over its 2 tasks, b's 20 over its 2: 400, 400, 100, 100."""
    conf = PolicyConf(weight_tickets_functional=1000, **TICKETS_ONLY)
    result = run([running_job(1, "a", 2), running_job(2, "b", 2)], conf, USERS_80_20)
    assert [t.ftckt for t in result.jobs[1].task_tickets.values()] == pytest.approx([400, 400])
    assert [t.ftckt for t in result.jobs[2].task_tickets.values()] == pytest.approx([100, 100])
    assert result.jobs[1].task_tickets[1].share == pytest.approx(0.4)
    # not shared: each task counts the user's whole shares (sum 80+80+20+20)
    conf = PolicyConf(weight_tickets_functional=1000, share_functional_shares=False)
    result = run([running_job(1, "a", 2), running_job(2, "b", 2)], conf, USERS_80_20)
    assert result.jobs[1].task_tickets[1].ftckt == pytest.approx(80 / 200 * 1000)


def test_pending_jobs_count_the_running_ones_of_their_user():
    """a runs one job: its pending job is valued as a's second (80/2 over the sum of the
    running users' shares, 80), b's as b's first (20 / (80.001 + 0))."""
    conf = PolicyConf(weight_tickets_functional=1000, **USER_ONLY, **TICKETS_ONLY)
    result = run([running_job(1, "a"), pend(2, "a"), pend(3, "b")], conf, USERS_80_20)
    assert result.jobs[2].tickets.ftckt == pytest.approx(40 * 1000 / 80)
    assert result.jobs[3].tickets.ftckt == pytest.approx(20 * 1000 / 100)


def test_max_functional_jobs_to_schedule_leaves_the_rest_with_their_category_value():
    """Two rounds: a's first (1000), then a's second (real value 500); the others get
    what their category's first task was worth in the last round: a 40·1000/80.001,
    b 20·1000/80.001."""
    conf = PolicyConf(weight_tickets_functional=1000, max_functional_jobs_to_schedule=2,
                      **USER_ONLY, **TICKETS_ONLY)
    jobs = [pend(i, "a") for i in range(1, 6)] + [pend(i, "b") for i in range(6, 11)]
    result = run(jobs, conf, USERS_80_20)
    got = [result.jobs[i].tickets.ftckt for i in range(1, 11)]
    a_rest = 40 * 1000 / (80 + PENDING_SUM_EPSILON)
    b_rest = 20 * 1000 / (80 + PENDING_SUM_EPSILON)
    assert got == pytest.approx([1000, 500] + [a_rest] * 3 + [b_rest] * 5)


def test_job_shares_and_project_and_department_shares_count():
    entities = Entities(users={"a": Entity(fshare=0)}, projects={"p": Entity(fshare=30)},
                        departments={"d": Entity(fshare=10)})
    conf = PolicyConf(weight_tickets_functional=1000, **TICKETS_ONLY)
    jobs = [running_job(1, "a", project="p", department="d"),
            running_job(2, "a", job_share=50)]
    result = run(jobs, conf, entities)
    # categories in use: project (30 over 30), department (10 over 10), job (50 over
    # 50): weights 1/3 each; job 1 has the project and department, job 2 the job share
    assert result.jobs[1].task_tickets[1].ftckt == pytest.approx(2000 / 3)
    assert result.jobs[2].task_tickets[1].ftckt == pytest.approx(1000 / 3)


def test_override_ticket_moves_one_job_to_the_front():
    conf = PolicyConf(weight_tickets_functional=1000, **TICKETS_ONLY)
    jobs = [pend(i, "a") for i in range(1, 5)] + [pend(5, "b", override_tickets=5000)]
    before = run([pend(i, "a") for i in range(1, 5)] + [pend(5, "b")], conf, USERS_80_20)
    assert before.order[0] == 1
    result = run(jobs, conf, USERS_80_20)
    assert result.order[0] == 5
    assert result.jobs[5].tickets.otckt == 5000.0


def test_shared_override_tickets_fall_with_each_job_of_the_holder():
    entities = Entities(users={"a": Entity(oticket=300)})
    conf = PolicyConf(**TICKETS_ONLY)
    result = run([pend(i, "a") for i in (1, 2, 3)], conf, entities)
    assert [result.jobs[i].tickets.otckt for i in (1, 2, 3)] == pytest.approx([300, 150, 100])
    # a running job counts: pending ones start at 300/2
    result = run([running_job(9, "a"), pend(1, "a"), pend(2, "a")], conf, entities)
    assert result.jobs[9].task_tickets[1].otckt == 300.0
    assert [result.jobs[i].tickets.otckt for i in (1, 2)] == pytest.approx([150, 100])
    # not shared: every job the whole 300
    conf = PolicyConf(share_override_tickets=False, **TICKETS_ONLY)
    result = run([running_job(9, "a", 2), pend(1, "a"), pend(2, "a")], conf, entities)
    assert result.jobs[9].task_tickets[2].otckt == 300.0
    assert result.jobs[2].tickets.otckt == 300.0


def test_shared_override_tickets_of_a_project_interleave_its_users():
    """A project with 600 override tickets and two users: the rounds take the best
    task each time, 600/1 + 0, then 600/2 ..., whoever's it is; the job's own -ot is
    never divided."""
    entities = Entities(users={"a": Entity(), "b": Entity(oticket=100)},
                        projects={"p": Entity(oticket=600)})
    conf = PolicyConf(**TICKETS_ONLY)
    jobs = [pend(1, "a", project="p"), pend(2, "a", project="p"),
            pend(3, "b", project="p"), pend(4, "a", project="p", override_tickets=7)]
    result = run(jobs, conf, entities)
    got = {i: result.jobs[i].tickets.otckt for i in (1, 2, 3, 4)}
    # round 1: b's job 3 has 600 + 100; round 2: job 4 (600/2 + 7) beats job 1 (300);
    # round 3: job 1 (600/3); round 4: job 2 (600/4)
    assert got == pytest.approx({3: 700, 4: 307, 1: 200, 2: 150})


def test_suspended_tasks_get_no_tickets_and_do_not_count():
    entities = Entities(users={"a": Entity(oticket=300)})
    job = PolicyJob(job_id=1, owner="a", running=(RunningTask(1), RunningTask(2, suspended=True)))
    result = run([job], PolicyConf(), entities)
    assert list(result.jobs[1].task_tickets) == [1]
    assert result.jobs[1].task_tickets[1].otckt == 300.0


def test_a_user_without_a_user_object_gets_no_user_tickets():
    conf = PolicyConf(weight_tickets_functional=1000)
    result = run([pend(1, "nobody")], conf, USERS_80_20)
    assert result.jobs[1].tickets.tckts == 0.0
    assert result.jobs[1].ntckts == 0.5


def test_array_job_pending_tasks_take_part_up_to_max_pending_tasks_per_job():
    """A 10-task array and a single job of the same user, 1 oticket each... the array's
    first 3 tasks (max_pending_tasks_per_job 3) count, so the single job is valued as
    the user's 4th: 1200/4 = 300; free_slots 1 allows 2 tasks of the array."""
    entities = Entities(users={"a": Entity(oticket=1200)})
    conf = PolicyConf(max_pending_tasks_per_job=3, **TICKETS_ONLY)
    array = pend(1, "a", pending_tasks=10, pending_task_ids=tuple(range(5, 15)))
    result = run([array, pend(2, "a")], conf, entities)
    assert result.jobs[1].tickets.otckt == 1200.0
    assert result.jobs[2].tickets.otckt == 300.0
    result = run([array, pend(2, "a")], conf, entities, free_slots=1)
    assert result.jobs[2].tickets.otckt == 400.0


def test_policy_hierarchy_orders_the_policies_and_marks_the_named_ones_dependent():
    assert hierarchy(PolicyConf(policy_hierarchy="OFS")) == [
        ("O", True), ("F", True), ("S", True)]
    assert hierarchy(PolicyConf(policy_hierarchy="FS")) == [
        ("F", True), ("S", True), ("O", False)]
    assert hierarchy(PolicyConf(policy_hierarchy="")) == [
        ("O", False), ("F", False), ("S", False)]
    assert hierarchy(PolicyConf(policy_hierarchy="SOD")) == [
        ("S", True), ("O", True), ("F", False)]


def test_dependent_functional_policy_takes_override_tickets_into_its_order():
    """OFS: user a's job 2 has 1000 override tickets, so among a's jobs (one
    category) it is valued first and gets the first job's functional tickets."""
    entities = Entities(users={"a": Entity(fshare=10)})
    jobs = [pend(1, "a"), pend(2, "a", override_tickets=1000), pend(3, "a")]
    conf = PolicyConf(weight_tickets_functional=1000, **USER_ONLY, **TICKETS_ONLY)
    result = run(jobs, conf, entities)
    # the category is (job share 0, user a): job 2 comes first by its tickets
    assert result.jobs[2].tickets.ftckt == pytest.approx(1000)
    assert result.jobs[1].tickets.ftckt == pytest.approx(500)
    conf = PolicyConf(weight_tickets_functional=1000, policy_hierarchy="", **USER_ONLY,
                      **TICKETS_ONLY)
    result = run(jobs, conf, entities)
    assert result.jobs[1].tickets.ftckt == pytest.approx(1000)


# --------------------------------------------------------------------------- 8.1.9's rounds

def reference_pending_functional(jobs, entities, conf, running_counts, running_sums):
    """A transcription of 8.1.9's pending functional loop without any shortcut: every
    round values the first job of every category (independent hierarchy)."""
    shared = conf.share_functional_shares
    pool = conf.weight_tickets_functional
    w = [conf.weight_user, conf.weight_project, conf.weight_department, conf.weight_job]
    k = sum(w)
    w = [x / k for x in w] if k > 0 else w
    counts = dict(running_counts)
    sums = list(running_sums)
    cats: dict = {}
    # not dependent: a category holds its jobs in the order of 8.1.9's pending job list,
    # which is by job id
    for job in sorted(jobs, key=lambda j: j.job_id):
        u = entities.users.get(job.owner)
        shares = [u.fshare if u else 0, 0, 0, job.job_share]
        if not any(shares):
            continue
        key = (job.job_share, job.owner if shares[0] else None)
        cats.setdefault(key, []).append(job)
    result = {}

    def trial(job):
        u = entities.users.get(job.owner)
        total = 0.0
        if u is not None:
            share, s = u.fshare, sums[0] + 0.001
            if shared:
                share /= counts.get(job.owner, 0) + 1
            else:
                s += share
            total += w[0] * share * pool / s
        s = sums[3] + 0.001 + job.job_share
        total += w[3] * job.job_share * pool / s
        return total

    rounds = min(conf.max_functional_jobs_to_schedule, sum(map(len, cats.values())))
    last = {}
    for _ in range(rounds):
        best = None
        for key, queue in cats.items():
            if not queue:
                continue
            value = trial(queue[0])
            last[key] = value
            if best is None or (-value, queue[0].submit_time, queue[0].job_id) < best[0]:
                best = ((-value, queue[0].submit_time, queue[0].job_id), key)
        key = best[1]
        job = cats[key].pop(0)
        counts[job.owner] = counts.get(job.owner, 0) + 1
        u = entities.users.get(job.owner)
        share = 0.0
        if u is not None:
            share = u.fshare / counts[job.owner] if shared else u.fshare
            if not shared or counts[job.owner] <= 1:
                sums[0] += share
        sums[3] += job.job_share
        value = 0.0
        if u is not None and sums[0]:
            value += w[0] * share * pool / sums[0]
        if sums[3]:
            value += w[3] * job.job_share * pool / sums[3]
        result[job.job_id] = value
    for key, queue in cats.items():
        for job in queue:
            result[job.job_id] = last[key]
    return result


pending_jobs = st.lists(
    st.tuples(st.sampled_from("abcd"), st.sampled_from([0, 0, 5, 20]),
              st.integers(0, 50)),
    min_size=1, max_size=25)


@settings(max_examples=120, deadline=None)
@given(pending_jobs, st.dictionaries(st.sampled_from("abcd"), st.integers(0, 100)),
       st.integers(1, 30), st.booleans(), st.sampled_from("ab"))
def test_pending_functional_tickets_equal_8_1_9s_round_by_round_values(
        specs, fshares, rounds, shared, runner):
    entities = Entities(users={u: Entity(fshare=s) for u, s in fshares.items()})
    conf = PolicyConf(weight_tickets_functional=1000, max_functional_jobs_to_schedule=rounds,
                      share_functional_shares=shared, policy_hierarchy="",
                      weight_project=0.0, weight_department=0.0)
    jobs = [pend(i + 1, owner, job_share=js, submit_time=NOW - 100 + t)
            for i, (owner, js, t) in enumerate(specs)]
    running = running_job(1000, runner, 2)
    result = run(jobs + [running], conf, entities)
    user = entities.users.get(runner)
    running_sums = [user.fshare if user and shared else (2 * user.fshare if user else 0),
                    0, 0, 0]
    counts = {runner: 2} if user else {}
    expected = reference_pending_functional(jobs, entities, conf, counts, running_sums)
    for job in jobs:
        assert result.jobs[job.job_id].tickets.ftckt == pytest.approx(
            expected.get(job.job_id, 0.0), rel=1e-9, abs=1e-9)


entity_strategy = st.builds(Entity, fshare=st.integers(0, 100), oticket=st.integers(0, 1000))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from([None, "p", "q"]),
                          st.integers(0, 3), st.integers(0, 3), st.integers(0, 30),
                          st.integers(0, 200)), min_size=1, max_size=20),
       st.dictionaries(st.sampled_from("abc"), entity_strategy),
       st.dictionaries(st.sampled_from("pq"), entity_strategy),
       st.booleans(), st.booleans(), st.sampled_from(["OFS", "FOS", "", "SFO"]))
def test_tickets_are_never_negative_and_running_functional_tickets_sum_to_the_pool(
        specs, users, projects, share_f, share_o, policy_hierarchy):
    entities = Entities(users=users, projects=projects)
    conf = PolicyConf(weight_tickets_functional=777, share_functional_shares=share_f,
                      share_override_tickets=share_o, policy_hierarchy=policy_hierarchy)
    jobs = []
    for n, (owner, project, running, pending, js, ot) in enumerate(specs):
        jobs.append(PolicyJob(job_id=n + 1, owner=owner, project=project, job_share=js,
                              override_tickets=ot, submit_time=NOW - n,
                              running=tuple(RunningTask(t) for t in range(1, running + 1)),
                              pending_tasks=pending))
    result = run(jobs, conf, entities)
    total_f = 0.0
    takes_part = False
    for job in jobs:
        p = result.jobs[job.job_id]
        for t in [p.tickets, *p.task_tickets.values()]:
            assert min(t.tckts, t.otckt, t.ftckt, t.stckt) >= 0.0
            assert t.tckts == pytest.approx(t.otckt + t.ftckt + t.stckt)
        total_f += sum(t.ftckt for t in p.task_tickets.values())
        if job.running:
            u, pr = users.get(job.owner), projects.get(job.project) if job.project else None
            takes_part |= bool(job.job_share or (u and u.fshare) or (pr and pr.fshare))
    assert total_f == pytest.approx(777.0 if takes_part else 0.0)


def reference_pending_override(jobs, entities, running_counts):
    """8.1.9's shared override rounds without shortcuts (calculate_pending_shared_
    override_tickets, independent hierarchy): every round values the first job of every
    category, the most tickets win, ties to the lower job id."""
    counts = {kind: dict(c) for kind, c in running_counts.items()}

    def objects(job):
        u = entities.users.get(job.owner)
        p = entities.projects.get(job.project) if job.project else None
        d = entities.departments.get(job.department)
        return [("u", job.owner, u), ("p", job.project, p), ("d", job.department, d)]

    cats: dict = {}
    for job in sorted(jobs, key=lambda j: j.job_id):
        present = [(k, n) if e is not None and e.oticket else None for k, n, e in objects(job)]
        if not any(present) and not job.override_tickets:
            continue
        cats.setdefault((job.override_tickets, *present), []).append(job)

    def value(job):
        total = 0.0
        for kind, name, entity in objects(job):
            if entity is not None and entity.oticket > 0:
                total += entity.oticket / (counts[kind].get(name, 0) + 1)
        return total + job.override_tickets

    result = {}
    while any(cats.values()):
        best = None
        for queue in cats.values():
            if queue:
                key = (-value(queue[0]), queue[0].job_id)
                if best is None or key < best[0]:
                    best = (key, queue)
        job = best[1].pop(0)
        result[job.job_id] = -best[0][0]
        for kind, name, entity in objects(job):
            if entity is not None:
                counts[kind][name] = counts[kind].get(name, 0) + 1
    return result


@settings(max_examples=120, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from([None, "p", "q"]),
                          st.sampled_from(["d1", "d2"]), st.sampled_from([0, 0, 7])),
                min_size=1, max_size=25),
       st.dictionaries(st.sampled_from("abc"), st.integers(0, 300)),
       st.dictionaries(st.sampled_from("pq"), st.integers(0, 300)),
       st.dictionaries(st.sampled_from(["d1", "d2"]), st.integers(0, 300)),
       st.sampled_from("ab"))
def test_pending_override_tickets_equal_8_1_9s_round_by_round_values(
        specs, users, projects, depts, runner):
    entities = Entities(users={u: Entity(oticket=o) for u, o in users.items()},
                        projects={p: Entity(oticket=o) for p, o in projects.items()},
                        departments={d: Entity(oticket=o) for d, o in depts.items()})
    conf = PolicyConf(policy_hierarchy="")
    jobs = [pend(i + 1, owner, project=project, department=dept, override_tickets=ot)
            for i, (owner, project, dept, ot) in enumerate(specs)]
    running = running_job(1000, runner, 2, department="d1")
    result = run(jobs + [running], conf, entities)
    counts = {"u": {runner: 2} if runner in users else {}, "p": {},
              "d": {"d1": 2} if "d1" in depts else {}}
    expected = reference_pending_override(jobs, entities, counts)
    for job in jobs:
        assert result.jobs[job.job_id].tickets.otckt == pytest.approx(
            expected.get(job.job_id, 0.0), rel=1e-12, abs=1e-12)
