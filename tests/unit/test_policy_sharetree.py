"""The share tree policy (common.policy.sharetree) through ``evaluate``: targets,
compensation_factor, the default leaf, project nodes, pending shares level by level,
sge_share_mon's figures; hand-computed from share_tree(5) and 8.1.9's sgeee.c."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from common.policy.conf import PolicyConf
from common.policy.model import (PROJECT_NODE, USER_NODE, Entities, Entity, PolicyJob,
                                 ResourceUrgency, RunningTask, ShareNode, UsageTable)
from common.policy.priority import evaluate

NOW = 1_000_000
URGENCIES = {"slots": ResourceUrgency(1000.0, "YES", True)}
POOL = 1000
INDEPENDENT = dict(weight_tickets_share=POOL, policy_hierarchy="")


def tree(*children, root_shares=1):
    """Root with (name, shares[, type, (grandchildren...)]) children."""
    nodes = [ShareNode(0, "Root", USER_NODE, root_shares, ())]
    ids = []
    for spec in children:
        ids.append(_add(nodes, spec))
    nodes[0] = ShareNode(0, "Root", USER_NODE, root_shares, tuple(ids))
    return nodes


def _add(nodes, spec):
    name, shares, *rest = spec
    kind = rest[0] if rest else USER_NODE
    below = rest[1] if len(rest) > 1 else ()
    node_id = len(nodes)
    nodes.append(None)
    child_ids = tuple(_add(nodes, child) for child in below)
    nodes[node_id] = ShareNode(node_id, name, kind, shares, child_ids)
    return node_id


def users(*names):
    return Entities(users={n: Entity() for n in names},
                    projects={"P1": Entity(), "P2": Entity()})


def run(jobs, nodes, usage=UsageTable(), entities=None, **conf):
    conf = PolicyConf(**{**INDEPENDENT, **conf})
    return evaluate(jobs, conf, entities=entities or users("A", "B", "C", "X", "Y"),
                    tree=nodes, usage=usage, urgencies=URGENCIES, now=NOW)


def running(job_id, owner, tasks=1, **kw):
    return PolicyJob(job_id=job_id, owner=owner, submit_time=NOW - 9000,
                     running=tuple(RunningTask(t) for t in range(1, tasks + 1)), **kw)


def pend(job_id, owner, **kw):
    kw.setdefault("pending_tasks", 1)
    return PolicyJob(job_id=job_id, owner=owner, submit_time=NOW - 100 + job_id, **kw)


def stickets(result, job_id):
    return [t.stckt for t in result.jobs[job_id].task_tickets.values()]


def test_without_usage_running_jobs_get_their_long_term_share():
    """No usage: shr = shares² / (1·oltt) = shares·sum, so stt = ltt = 0.8 / 0.2."""
    result = run([running(1, "A"), running(2, "B")], tree(("A", 80), ("B", 20)))
    assert stickets(result, 1) == pytest.approx([800.0])
    assert stickets(result, 2) == pytest.approx([200.0])
    nodes = {n.path: n for n in result.nodes}
    assert nodes["/A"].short_target_share == pytest.approx(0.8)
    assert nodes["/A"].long_target_share == pytest.approx(0.8)


def test_usage_moves_the_short_term_target_toward_the_user_behind():
    """50/50, usage 300 and 100: shr 2500/300 and 2500/100, stt 0.25 and 0.75."""
    usage = UsageTable(users={"A": 300.0, "B": 100.0})
    result = run([running(1, "A"), running(2, "B")], tree(("A", 50), ("B", 50)), usage)
    assert stickets(result, 1) == pytest.approx([250.0])
    assert stickets(result, 2) == pytest.approx([750.0])


def test_compensation_factor_limits_how_far_a_user_behind_is_pushed():
    """cf 1: B's 0.75 > 1·0.5, so B's shr is divided by 0.75/0.5: 2500/150 against A's
    2500/300 -> 2/3 and 1/3. cf 0 switches the limit off."""
    usage = UsageTable(users={"A": 300.0, "B": 100.0})
    nodes = tree(("A", 50), ("B", 50))
    result = run([running(1, "A"), running(2, "B")], nodes, usage, compensation_factor=1.0)
    assert stickets(result, 2) == pytest.approx([2000 / 3])
    assert stickets(result, 1) == pytest.approx([1000 / 3])
    result = run([running(1, "A"), running(2, "B")], nodes, usage, compensation_factor=0.0)
    assert stickets(result, 2) == pytest.approx([750.0])


def test_a_node_counts_usage_as_at_least_one_times_its_long_term_target():
    """Tiny usage (0.1 for A) counts as 1·oltt (0.5): shr 2500/0.5 against 2500/1."""
    usage = UsageTable(users={"A": 0.1, "B": 1.0})
    result = run([running(1, "A"), running(2, "B")], tree(("A", 50), ("B", 50)), usage,
                 compensation_factor=0.0)
    assert stickets(result, 1) == pytest.approx([1000 * 2 / 3])


def test_only_active_nodes_share_and_running_tasks_of_a_node_split_its_tickets():
    """C has no jobs: A and B split the tree; A's two tasks split A's tickets."""
    result = run([running(1, "A", 2), running(2, "B")],
                 tree(("A", 50), ("B", 30), ("C", 20)))
    assert stickets(result, 1) == pytest.approx([312.5, 312.5])
    assert stickets(result, 2) == pytest.approx([375.0])
    assert sum(n.job_count for n in result.nodes if n.path == "/C") == 0


def test_job_shares_divide_a_node_among_its_running_jobs_in_whole_tickets():
    result = run([running(1, "A", job_share=1), running(2, "A", job_share=2)],
                 tree(("A", 50)))
    assert stickets(result, 1) == [333.0]
    assert stickets(result, 2) == [666.0]


def test_the_default_leaf_gives_every_unnamed_user_its_shares():
    """default has 10 shares like A: X and Y each get a node with 10 shares."""
    result = run([running(1, "A"), running(2, "X"), running(3, "Y")],
                 tree(("A", 10), ("default", 10)))
    for job_id in (1, 2, 3):
        assert stickets(result, job_id) == pytest.approx([1000 / 3])
    # sge_share_mon shows every user object that maps to default below it (C has no
    # job; A is named), with the default's shares and no targets
    paths = [n.path for n in result.nodes]
    assert paths == ["/", "/A", "/default", "/default/B", "/default/C", "/default/X",
                     "/default/Y"]
    rows = {n.path: n for n in result.nodes}
    assert rows["/default/X"].level == pytest.approx(0.25)
    assert rows["/default/X"].total == pytest.approx(0.125)
    assert rows["/default/X"].job_count == 0 and rows["/default"].user == ""


def test_a_project_node_takes_its_jobs_and_its_users_below_it():
    """Root -> P1 (project) -> A, default; Root -> B. A's job in P1 goes to /P1/A, X's
    job in P1 to a copy of /P1/default, A's job without project finds no node (project
    subtrees are only for jobs of that project) and B's goes to /B."""
    nodes = tree(("P1", 50, PROJECT_NODE, (("A", 30), ("default", 10))), ("B", 50))
    jobs = [running(1, "A", project="P1"), running(2, "X", project="P1"),
            running(3, "A"), running(4, "B"), running(5, "B", project="P2")]
    result = run(jobs, nodes)
    assert stickets(result, 4) == pytest.approx([500.0])
    assert stickets(result, 1) == pytest.approx([500 * 30 / 40])
    assert stickets(result, 2) == pytest.approx([500 * 10 / 40])
    assert stickets(result, 3) == [0.0]
    assert stickets(result, 5) == [0.0]
    rows = {n.path: n for n in result.nodes}
    assert rows["/P1/A"].project == "P1" and rows["/P1/A"].user == "A"


def test_a_project_leaf_takes_all_its_jobs_and_project_usage():
    nodes = tree(("P1", 50, PROJECT_NODE), ("P2", 50, PROJECT_NODE))
    usage = UsageTable(projects={"P1": 300.0, "P2": 100.0})
    result = run([running(1, "A", project="P1"), running(2, "B", project="P2")], nodes,
                 usage)
    assert stickets(result, 1) == pytest.approx([250.0])


def test_pending_jobs_get_the_node_target_divided_by_their_place():
    """A and B 50/50, two pending jobs each, nothing running: each user's first gets
    0.5/1 of the pool, the second 0.5/2."""
    jobs = [pend(1, "A"), pend(2, "A"), pend(3, "B"), pend(4, "B")]
    result = run(jobs, tree(("A", 50), ("B", 50)))
    got = [result.jobs[i].tickets.stckt for i in (1, 2, 3, 4)]
    assert got == pytest.approx([500, 250, 500, 250])


def test_pending_jobs_count_the_running_ones_of_their_node():
    """A runs 1 job: its pending job is its 2nd."""
    jobs = [running(9, "A"), pend(1, "A"), pend(2, "B")]
    result = run(jobs, tree(("A", 50), ("B", 50)))
    assert result.jobs[1].tickets.stckt == pytest.approx(500 / 2)
    assert result.jobs[2].tickets.stckt == pytest.approx(500 / 1)


def test_three_levels_sort_pending_jobs_at_each_level():
    """Root -> G1 (50) -> u A, B; Root -> G2 (50) -> C. A has 2 pending, B 1, C 1.
    Leaves: A 0.5, 0.25; B 0.5; C 1. G1 sorts A1 (500), B1 (500), A2 (250) (ties by
    job id) and gives 0.5/1, 0.5/2, 0.5/3; G2 0.5/1. The root does not sort again."""
    nodes = tree(("G1", 50, USER_NODE, (("A", 10), ("B", 10))),
                 ("G2", 50, USER_NODE, (("C", 10),)))
    jobs = [pend(1, "A"), pend(2, "A"), pend(3, "B"), pend(4, "C")]
    result = run(jobs, nodes, weight_urgency=0.0, weight_ticket=1.0)
    got = {i: result.jobs[i].tickets.stckt for i in (1, 2, 3, 4)}
    assert got == pytest.approx({1: 500, 3: 250, 2: 1000 / 6, 4: 500})
    assert result.order == (1, 4, 3, 2)


def test_a_single_active_branch_below_the_root_is_skipped():
    """Only G1 has pending jobs: the level below it decides (A and B each 0.5)."""
    nodes = tree(("G1", 50, USER_NODE, (("A", 10), ("B", 10))), ("G2", 50))
    result = run([pend(1, "A"), pend(2, "B")], nodes)
    assert [result.jobs[i].tickets.stckt for i in (1, 2)] == pytest.approx([500, 500])


def test_pending_jobs_make_their_nodes_active_for_the_normalisation_only():
    """A runs, B only waits. 8.1.9's first computation (B active) gives A 500; the
    second (running jobs alone) gives A the whole 1000, which A keeps and which is the
    maximum ntckts divides by."""
    result = run([running(1, "A"), pend(2, "B")], tree(("A", 50), ("B", 50)))
    assert stickets(result, 1) == pytest.approx([1000.0])
    assert result.jobs[2].tickets.stckt == pytest.approx(500.0)
    assert result.jobs[2].ntckts == pytest.approx(0.5)


def test_dependent_share_tree_sorts_by_the_tickets_of_the_policies_above():
    """OFS: B's job 4 has 900 override tickets, so it is B's first for the share tree."""
    jobs = [pend(3, "B"), pend(4, "B", override_tickets=900)]
    result = run(jobs, tree(("B", 50)), policy_hierarchy="OFS")
    assert result.jobs[4].tickets.stckt == pytest.approx(1000.0)
    assert result.jobs[3].tickets.stckt == pytest.approx(500.0)
    result = run(jobs, tree(("B", 50)), policy_hierarchy="")
    assert result.jobs[3].tickets.stckt == pytest.approx(1000.0)


def test_node_shares_show_levels_totals_targets_and_usage():
    nodes = tree(("G1", 60, USER_NODE, (("A", 10), ("B", 30))), ("C", 40))
    usage = UsageTable(users={"A": 100.0, "B": 300.0, "C": 600.0})
    result = run([running(1, "A"), running(2, "C")], nodes, usage)
    rows = {n.path: n for n in result.nodes}
    assert [n.path for n in result.nodes] == ["/", "/G1", "/G1/A", "/G1/B", "/C"]
    assert rows["/"].level == 1.0 and rows["/"].total == 1.0
    assert rows["/G1/B"].level == pytest.approx(0.75)
    assert rows["/G1/B"].total == pytest.approx(0.45)
    assert rows["/G1"].usage == 400.0 and rows["/G1"].actual_share == pytest.approx(0.4)
    assert rows["/G1/A"].job_count == 1 and rows["/G1"].job_count == 1
    # B has no job: A takes G1's whole long term share
    assert rows["/G1/A"].long_target_share == pytest.approx(0.6)
    assert rows["/G1/B"].long_target_share == 0.0
    assert rows["/C"].user == "C" and rows["/G1"].user == ""


def test_project_usage_not_accounted_for_by_named_users_goes_to_default():
    """P1 used 1000, its named user A 100: 900 is added on the way to P1's default."""
    nodes = tree(("P1", 50, PROJECT_NODE, (("A", 10), ("default", 10))))
    usage = UsageTable(projects={"P1": 1000.0}, user_projects={("A", "P1"): 100.0})
    result = run([running(1, "A", project="P1")], nodes, usage)
    rows = {n.path: n for n in result.nodes}
    assert rows["/P1"].usage == 1000.0
    assert rows["/P1/default"].usage == 900.0
    assert rows["/P1/A"].usage == 100.0


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("ABCXY"), st.integers(0, 3), st.integers(0, 3)),
                min_size=1, max_size=12),
       st.dictionaries(st.sampled_from("ABCXY"), st.floats(0, 1e6)),
       st.sampled_from([0.0, 1.0, 5.0]), st.sampled_from(["OFS", ""]))
def test_running_share_tree_tickets_sum_to_the_pool_and_none_is_negative(
        specs, used, cf, policy_hierarchy):
    nodes = tree(("G1", 60, USER_NODE, (("A", 10), ("B", 30), ("default", 5))), ("C", 40))
    jobs = [PolicyJob(job_id=n + 1, owner=owner, submit_time=NOW - n,
                      running=tuple(RunningTask(t) for t in range(1, r + 1)),
                      pending_tasks=p)
            for n, (owner, r, p) in enumerate(specs)]
    result = run(jobs, nodes, UsageTable(users=used), compensation_factor=cf,
                 policy_hierarchy=policy_hierarchy)
    total = 0.0
    for p in result.jobs.values():
        assert p.tickets.stckt >= 0.0
        total += sum(t.stckt for t in p.task_tickets.values())
        assert 0.0 <= p.ntckts <= 1.0
    any_running = any(r for _, r, _ in specs)
    assert total == pytest.approx(POOL if any_running else 0.0)
    for row in result.nodes:
        assert 0.0 <= row.short_target_share <= 1.0 + 1e-9


def test_users_behind_a_default_node_carry_their_usage_in_sge_share_mon():
    usage = UsageTable(users={"X": 30.0, "A": 10.0})
    result = run([running(1, "X")], tree(("A", 10), ("default", 10)), usage)
    rows = {n.path: n for n in result.nodes}
    assert rows["/default/X"].usage == 30.0 and rows["/default"].usage == 30.0
    assert rows["/"].usage == 40.0
    assert rows["/default"].actual_share == pytest.approx(0.75)
    assert rows["/"].short_target_share == 0.0 and rows["/"].long_target_share == 1.0
