"""The urgency policy and the normalisation of prio (common.policy.urgency, .priority):
hand-computed examples from sge_priority(5) and 8.1.9's formulas, and properties."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from common.policy.conf import PolicyConf
from common.policy.model import (Entities, PolicyJob, ResourceUrgency, RunningTask,
                                 UsageTable)
from common.policy.priority import evaluate, normalize
from common.policy.urgency import ResourceContributions, request_amount

URGENCIES = {
    "slots": ResourceUrgency(1000.0, "YES", True),
    "lic": ResourceUrgency(100.0, "YES", True),
    "h_vmem": ResourceUrgency(0.000001, "YES", True),
    "arch": ResourceUrgency(50.0, "NO", False),
    "h_rt": ResourceUrgency(0.0, "NO", True),
}
NOW = 1_000_000


def run(jobs, conf=None, urgencies=URGENCIES, **kw):
    return evaluate(jobs, conf or PolicyConf(), entities=Entities(), tree=(),
                    usage=UsageTable(), urgencies=urgencies, now=NOW, **kw)


def job(job_id, **kw):
    kw.setdefault("submit_time", NOW)
    kw.setdefault("pending_tasks", 1)
    return PolicyJob(job_id=job_id, owner="u", **kw)


def test_slots_give_1000_per_slot_and_a_pe_job_counts_its_urgency_slots():
    result = run([job(1), job(2, slots=4)])
    assert result.jobs[1].urgency.rrcontr == 1000.0
    assert result.jobs[2].urgency.rrcontr == 4000.0


def test_numeric_request_counts_amount_times_urgency_times_slots():
    rr = ResourceContributions(URGENCIES)
    assert rr.of(4, {"lic": "2"}) == 4000.0 + 2 * 100.0 * 4
    # memory amounts in bytes: 1G per slot * 0.000001 * 2 slots
    assert rr.of(2, {"h_vmem": "1G"}) == pytest.approx(2000.0 + 1024 ** 3 * 1e-6 * 2)


def test_string_request_counts_its_urgency_once_and_unknown_ones_nothing():
    rr = ResourceContributions(URGENCIES)
    assert rr.of(8, {"arch": "lx-amd64"}) == 8000.0 + 50.0
    assert rr.of(1, {"nosuch": "3", "h_rt": "1:0:0"}) == 1000.0


def test_without_a_slots_complex_there_is_no_resource_contribution():
    assert ResourceContributions({"lic": URGENCIES["lic"]}).of(1, {"lic": "1"}) == 0.0


def test_request_amount_reads_grid_engine_numbers():
    assert request_amount("2") == 2.0
    assert request_amount("1:00:00") == 3600.0
    assert request_amount("1K") == 1024.0
    assert request_amount("TRUE") == 1.0
    assert request_amount("nonsense") == 0.0


def test_waiting_time_contribution_is_weight_times_seconds_waited():
    conf = PolicyConf(weight_waiting_time=0.278)
    result = run([job(1, submit_time=NOW - 100), job(2, submit_time=NOW - 0.5)], conf)
    assert result.jobs[1].urgency.wtcontr == pytest.approx(27.8)
    # whole seconds, as 8.1.9 keeps times
    assert result.jobs[2].urgency.wtcontr == pytest.approx(0.278)


def test_deadline_contribution_is_weight_over_time_left_and_at_most_one_second():
    conf = PolicyConf(weight_deadline=3600000.0, weight_waiting_time=0.0)
    result = run([job(1, deadline=NOW + 3600), job(2, deadline=NOW - 50),
                  job(3, deadline=NOW), job(4)], conf)
    assert result.jobs[1].urgency.dlcontr == pytest.approx(1000.0)
    assert result.jobs[2].urgency.dlcontr == 3600000.0
    assert result.jobs[3].urgency.dlcontr == 3600000.0
    assert result.jobs[4].urgency.dlcontr == 0.0
    assert result.jobs[1].urgency.urg == pytest.approx(2000.0)


def test_nurg_is_normalised_over_pending_and_running_jobs():
    conf = PolicyConf(weight_waiting_time=0.0)
    running = PolicyJob(job_id=9, owner="u", slots=3, running=(RunningTask(1, 3),))
    result = run([job(1), job(2, slots=2), running], conf)
    assert result.jobs[1].nurg == 0.0
    assert result.jobs[2].nurg == 0.5
    assert result.jobs[9].nurg == 1.0
    assert result.order == (2, 1)


def test_all_equal_gives_prio_050000_with_the_default_configuration():
    result = run([job(i) for i in range(1, 5)])
    for i in range(1, 5):
        p = result.jobs[i]
        assert (p.nurg, p.npprior, p.ntckts) == (0.5, 0.5, 0.5)
        assert p.prio == 0.5
    assert result.order == (1, 2, 3, 4)


def test_posix_priority_is_normalised_over_its_whole_range():
    conf = PolicyConf(weight_priority=1.0, weight_urgency=0.0, weight_ticket=0.0)
    result = run([job(1, priority=-1023), job(2), job(3, priority=1024),
                  job(4, priority=-100)], conf)
    assert result.jobs[1].npprior == pytest.approx(1 / 2048)
    assert result.jobs[2].npprior == 0.5
    assert result.jobs[3].npprior == 1.0
    assert result.jobs[3].prio == 1.0
    assert result.order == (3, 2, 4, 1)


def test_unweighted_unreported_figures_stay_at_half():
    conf = PolicyConf(weight_priority=0.0, weight_urgency=0.0, report_pjob_tickets=False)
    result = run([job(1, priority=-500), job(2, slots=8)], conf)
    assert result.jobs[1].npprior == 0.5 and result.jobs[2].nurg == 0.5


def test_equal_prios_go_by_submission_then_job_id():
    conf = PolicyConf(weight_waiting_time=0.0)
    result = run([job(5, submit_time=NOW - 10), job(3, submit_time=NOW - 5),
                  job(4, submit_time=NOW - 5), job(1, slots=2)], conf)
    assert result.order == (1, 5, 3, 4)


def test_running_jobs_are_not_in_the_order_and_held_jobs_have_no_pending_tasks():
    jobs = [job(1), job(2, pending_tasks=0), PolicyJob(job_id=3, owner="u",
                                                       running=(RunningTask(1),))]
    assert run(jobs).order == (1,)


def test_normalize_gives_half_without_a_range():
    assert normalize(3.0, 3.0, 3.0) == 0.5
    assert normalize(2.0, 1.0, 3.0) == 0.5
    assert normalize(3.0, 1.0, 3.0) == 1.0


job_strategy = st.builds(
    lambda i, p, s, wait, dl, pend: PolicyJob(
        job_id=i, owner="u", priority=p, slots=s, submit_time=NOW - wait,
        deadline=(NOW + dl) if dl is not None else None, pending_tasks=pend,
        requests={"lic": str(s)}),
    st.integers(1, 10_000), st.integers(-1023, 1024), st.integers(1, 64),
    st.integers(0, 10 ** 6), st.one_of(st.none(), st.integers(-1000, 10 ** 6)),
    st.integers(0, 3))


@settings(max_examples=150, deadline=None)
@given(st.lists(job_strategy, max_size=30, unique_by=lambda j: j.job_id),
       st.floats(0, 10), st.floats(0, 10), st.floats(0, 10))
def test_normalised_figures_lie_in_0_1_and_the_order_is_the_pending_jobs_by_prio(
        jobs, wp, wu, wt):
    conf = PolicyConf(weight_priority=wp, weight_urgency=wu, weight_ticket=wt)
    result = run(jobs, conf)
    for p in result.jobs.values():
        assert 0.0 <= p.nurg <= 1.0 and 0.0 <= p.npprior <= 1.0 and 0.0 <= p.ntckts <= 1.0
        assert p.prio == pytest.approx(wp * p.npprior + wu * p.nurg + wt * p.ntckts)
    pending = sorted(j.job_id for j in jobs if j.pending_tasks > 0)
    assert sorted(result.order) == pending
    prios = [result.jobs[i].prio for i in result.order]
    assert prios == sorted(prios, reverse=True)
