"""The qmaster's policy view (qmaster/policy_view.py): qstat's figures worked out when
asked, one evaluation for many questions within a second, and the policy's jobs kept by
the events the qmaster publishes exactly as a build from the whole store gives them."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from qmaster import policy_view
from qmaster.policy_view import PolicyView
from tests.unit.test_qmaster_core import ALICE, BOB, ROOT, Harness


@pytest.fixture
def qm(tmp_path: Path) -> Harness:
    return Harness(tmp_path, auto_add_hosts=True, default_slots=2)


def figures(qm: Harness, *job_ids: int) -> dict[int, dict]:
    return qm.call("job_query", {"user": ALICE.to_dict(), "job_ids": list(job_ids),
                                 "priorities": True})["priorities"]


def same_as_a_fresh_build(qm: Harness) -> None:
    store, seq = qm.server.store, qm.server.services.seq
    now = time.time()
    kept = qm.server.services.policy_view.result(store, now, seq + 1)
    fresh = PolicyView().result(store, now, seq + 1)
    assert kept.jobs == fresh.jobs and kept.order == fresh.order


def test_figures_when_asked_one_evaluation_a_second(qm: Harness,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    low = qm.submit(priority=-100)
    high = qm.submit()
    found = figures(qm, low, high)
    assert set(found) == {low, high}
    assert found[high]["npprior"] > found[low]["npprior"]
    assert found[low]["department"] == "defaultdepartment"
    assert len(found[low]["urg"]) == 4 and len(found[low]["tickets"]) == 5
    view = qm.server.services.policy_view
    before = view.evaluations
    for _ in range(20):
        figures(qm, low)
    assert view.evaluations == before  # within MAX_AGE: the same evaluation
    monkeypatch.setattr(policy_view, "MAX_AGE", 0.0)
    monkeypatch.setattr(policy_view, "REUSE_FACTOR", 0.0)
    qm.submit(BOB, priority=-500)
    figures(qm, low)
    assert view.evaluations == before + 1  # the store changed


def test_the_kept_jobs_follow_the_published_events(qm: Harness,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(policy_view, "MAX_AGE", 0.0)
    monkeypatch.setattr(policy_view, "REUSE_FACTOR", 0.0)
    first = qm.submit(priority=-10)
    figures(qm, first)  # built from the store here; events from now on
    qm.register()
    second = qm.submit(BOB)
    array = qm.submit(array=[1, 6, 1])
    same_as_a_fresh_build(qm)
    qm.dispatch(first)
    qm.dispatch(array, 2)
    same_as_a_fresh_build(qm)
    qm.call("delete", {"user": BOB.to_dict(), "targets": [{"job_id": second}]})
    dept = [["name", "d1"], ["type", "DEPT"], ["fshare", "10"], ["oticket", "0"],
            ["entries", "bob,alice"]]
    qm.call("conf_put", {"user": ROOT.to_dict(), "kind": "userset", "name": "d1",
                         "data": dept, "mode": "add"})
    same_as_a_fresh_build(qm)
    assert figures(qm, first, array)[array]["department"] == "d1"


def test_a_slow_evaluation_answers_for_longer(qm: Harness) -> None:
    """However large the cell, qstat's figures take at most about a tenth of the
    qmaster's time: an evaluation that took t seconds answers for 10 t."""
    job = qm.submit()
    view = qm.server.services.policy_view
    store, now = qm.server.store, time.time()
    first = view.result(store, now, 1)
    view._took = 0.5  # as if it had taken half a second
    assert view.result(store, now + 4.0, 2) is first  # a changed store, 4 s later
    assert view.result(store, now + 6.0, 3) is not first
    assert job in first.jobs
