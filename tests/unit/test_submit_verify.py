"""``qsub -w e|w|v|p`` in the qmaster: what an empty cluster (e, w, v) or the cluster as
it is (p) could do with the job, answered in Grid Engine's words."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from clients.api import job_request
from tests.unit.test_qmaster_core import ALICE, ROOT, Harness

from tests.reference import REFERENCE


@pytest.fixture
def qm(tmp_path: Path) -> Harness:
    h = Harness(tmp_path, auto_add_hosts=True, default_slots=1)
    # (a real execd reports np_load_avg: without it the default load threshold alarms)
    h.call("register", {"host": "vm", "load": {"arch": "lx-amd64", "num_proc": "1",
                                               "np_load_avg": "0.10"},
                        "jobs": []}, identity=b"execd:vm")
    return h


def submit(qm: Harness, **opts: Any) -> dict[str, Any]:
    return qm.call("submit", {"user": ALICE.to_dict(),
                              "jobs": [job_request("/bin/true", binary=True, **opts)]})


def test_w_v_refusal_lists_the_reasons_for_the_next_job_number(qm: Harness) -> None:
    expected = (REFERENCE / "qsub-err-w-v-unsatisfiable.err").read_text().splitlines()
    # Grid Engine's capture: "Unable to run job: Job 85 (-l arch=sparc64) ..."
    reason = expected[0].split("Job 85 ", 1)[1]
    qm.submit()  # job 1
    with pytest.raises(RuntimeError) as refused:
        submit(qm, verify_mode="v", hard_resources={"arch": "sparc64"})
    assert str(refused.value).splitlines() == [f"Job 2 {reason}", expected[1]]
    assert set(qm.server.store.jobs) == {1}  # nothing submitted


def test_w_v_and_w_p_accept_with_the_verification_text(qm: Harness) -> None:
    for mode in ("v", "p"):
        assert submit(qm, verify_mode=mode) == {
            "job_ids": [], "verification": ["verification: found suitable queue(s)"]}


def test_w_p_looks_at_the_cluster_as_it_is(qm: Harness) -> None:
    running = qm.submit()
    qm.dispatch(running, host="vm")
    # the one slot is taken: an empty cluster could run it (v), the current one not (p)
    assert submit(qm, verify_mode="v")["verification"] == [
        "verification: found suitable queue(s)"]
    with pytest.raises(RuntimeError) as refused:
        submit(qm, verify_mode="p")
    # Grid Engine 8.1.9 with every slot taken: the slots request it does not meet
    assert str(refused.value).splitlines() == [
        'Job 2 (-l NONE) cannot run in queue "all.q@vm" because it offers only '
        'qc:slots=0.000000', "verification: no suitable queues"]


def test_w_w_submits_with_a_warning(qm: Harness) -> None:
    reply = submit(qm, verify_mode="w", hard_resources={"arch": "sparc64"})
    assert reply["notes"] == [{"lines": ["warning: no suitable queues"], "unable": False}]
    assert reply["job_ids"] == [1] and set(qm.server.store.jobs) == {1}
    assert "notes" not in submit(qm, verify_mode="w")


def test_w_e_counts_hosts_that_are_down(qm: Harness) -> None:
    qm.server.store.hosts["vm"].alive = False
    assert submit(qm, verify_mode="e")["job_ids"] == [1]
    with pytest.raises(RuntimeError, match="error: no suitable queues"):
        submit(qm, verify_mode="e", hard_resources={"arch": "sparc64"})


def test_w_v_for_a_pe_that_cannot_hold_the_job(qm: Harness) -> None:
    """Grid Engine 8.1.9 for -pe smp 64 on a small host: 'Job 7 cannot run in PE "smp"
    because it only offers 0 slots'."""
    with pytest.raises(RuntimeError) as refused:
        submit(qm, verify_mode="v", pe=["sm*", 64, 64])
    assert str(refused.value).splitlines() == [
        'Job 1 cannot run in PE "smp" because it only offers 0 slots',
        "verification: no suitable queues"]


@pytest.mark.parametrize("ref, known", [
    ("all.q", True), ("all.*", True), ("all.q@vm", True), ("*@vm", True),
    ("all.q@@allhosts", True), ("nosuch.q", False), ("all.q@nosuchhost", False),
    ("*@nosuchhost", False), ("all.q@@nosuchgroup", False)])
def test_w_v_refuses_queues_that_do_not_exist(qm: Harness, ref: str, known: bool) -> None:
    """Grid Engine 8.1.9: 'Job was rejected because job requests unknown queue
    "all.q@nosuchhost"' (captured)."""
    qm.call("conf_put", {"user": ROOT.to_dict(), "kind": "hgrp", "name": "@allhosts",
                         "data": [["group_name", "@allhosts"], ["hostlist", "vm"]],
                         "mode": "modify"})
    if known:
        assert submit(qm, verify_mode="v", hard_queues=[ref])["verification"]
    else:
        with pytest.raises(RuntimeError, match=re.escape(
                f'Job was rejected because job requests unknown queue "{ref}"')):
            submit(qm, verify_mode="v", hard_queues=[ref])


@pytest.mark.parametrize("opts", [{"pe": ["mpi", "x", 2]}, {"pe": ["mpi"]},
                                  {"pe": ["mpi", 4, 2]}, {"pe": ["mpi", 0, 2]},
                                  {"pe": ["mpi", 1, 2], "pe_ranges": [["a", "b"]]},
                                  {"pe": ["mpi", True, 2]}, {"pe": [1, 1, 1]}])
def test_malformed_pe_requests_are_refused(qm: Harness, opts: dict[str, Any]) -> None:
    """A hand-made request must not store a job the scheduler cannot read."""
    with pytest.raises(RuntimeError, match=r"submit: jobs\[0\]\.opts\.pe"):
        submit(qm, **opts)
    assert qm.server.store.jobs == {}
