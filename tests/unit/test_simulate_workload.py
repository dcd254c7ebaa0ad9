"""The workload readers of ``pyge simulate`` (clients/simulate/workload.py): the
Standard Workload Format and a cell's accounting file, read strictly."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from clients.simulate.workload import (
    SWF_FIELDS, WorkloadError, category_requests, parse_accounting, parse_swf, read_workload,
)
from common.accounting import AccountingRecord

UNKNOWN = -1


def swf_line(number: int, submit: int, run: int, procs: int, user: int, *,
             wait: int = UNKNOWN, requested: int = UNKNOWN, group: int = 1) -> str:
    values = [number, submit, wait, run, procs, UNKNOWN, UNKNOWN, requested, UNKNOWN,
              UNKNOWN, 1, user, group, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN]
    return " ".join(str(v) for v in values)


swf_jobs = st.lists(st.tuples(st.integers(0, 10**7), st.integers(1, 10**6),
                              st.integers(1, 512), st.integers(0, 50)),
                    min_size=1, max_size=30)


@settings(max_examples=60, deadline=None)
@given(swf_jobs, st.sampled_from([" ", "\t", "   "]))
def test_swf_jobs_read_back(jobs: list[tuple[int, int, int, int]], blank: str) -> None:
    lines = ["; Version: 2.2", "; Computer: test", ""]
    lines += [swf_line(n, *job).replace(" ", blank) for n, job in enumerate(jobs, 1)]
    workload = parse_swf("\n".join(lines))
    first = min(submit for submit, *_ in jobs)
    by_id = {j.job_id: j for j in workload.jobs}
    assert len(by_id) == len(jobs)
    for n, (submit, run, procs, user) in enumerate(jobs, 1):
        job = by_id[n]
        assert (job.submit, job.run_time, job.slots, job.owner) == (
            submit - first, run, procs, f"user{user}")
        assert job.pe == ("mpi" if procs > 1 else None)
    assert [j.submit for j in workload.jobs] == sorted(j.submit for j in workload.jobs)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 17), st.sampled_from(["x", "1_000", "nan", "inf", "-2", "1e999",
                                            "0x10", "--1", ""]))
def test_swf_bad_field_names_the_line_and_field(index: int, bad: str) -> None:
    fields = swf_line(7, 100, 50, 2, 3).split()
    fields[index] = bad
    text = "; header\n" + swf_line(1, 0, 10, 1, 1) + "\n" + " ".join(fields) + "\n"
    if bad == "":
        message = "17 fields, an SWF job line has 18"
    elif bad in ("-2",):
        message = f"{SWF_FIELDS[index]} '-2' is negative"
    elif bad == "1e999" and index in (1, 2, 3, 5, 6, 8, 9, 17):
        message = "is not finite"
    else:
        message = f"{SWF_FIELDS[index]} {bad!r} is not"
    with pytest.raises(WorkloadError) as err:
        parse_swf(text, "trace.swf")
    assert str(err.value).startswith("trace.swf:3: ")
    assert message in str(err.value)


def test_swf_unknowns_are_left_out_and_counted() -> None:
    text = "\n".join([swf_line(1, 0, 100, 1, 1), swf_line(2, 5, -1, 1, 1),
                      swf_line(3, 6, 100, -1, 1, requested=4), swf_line(4, 7, 100, -1, 1),
                      swf_line(5, 8, 0, 2, 1)])
    workload = parse_swf(text)
    assert [j.job_id for j in workload.jobs] == [1, 3]
    assert workload.jobs[1].slots == 4  # the requested processors when none recorded
    assert workload.skipped == {"unknown or zero run time": 2, "unknown processor count": 1}


def test_swf_duplicate_job_number_and_empty_trace() -> None:
    with pytest.raises(WorkloadError, match=r"t:2: job number 1 was already given on line 1"):
        parse_swf(swf_line(1, 0, 1, 1, 1) + "\n" + swf_line(1, 1, 1, 1, 1), "t")
    with pytest.raises(WorkloadError, match="no job that can be replayed"):
        parse_swf("; only a header\n", "t")


# ---- accounting -----------------------------------------------------------------------

names = st.text(st.characters(min_codepoint=97, max_codepoint=122), min_size=1, max_size=8)
records = st.builds(
    lambda owner, project, submit, wait, run, slots, prio, n, task: AccountingRecord(
        qname="all.q", hostname="h1", group="g", owner=owner, job_name="j", job_number=n,
        submission_time=submit, start_time=submit + wait, end_time=submit + wait + run,
        slots=slots, project=project, priority=prio, task_number=task,
        granted_pe="mpi" if slots > 1 else "NONE",
        category=f"-l h_rt=1:00:00,arch=lx-amd64 -q all.q -pe mpi {slots}" if slots > 1
        else "NONE"),
    names, names | st.just("NONE"), st.integers(10**9, 2 * 10**9), st.integers(0, 10**5),
    st.integers(1, 10**5), st.integers(1, 64), st.integers(-1023, 1024),
    st.integers(1, 10**6), st.integers(0, 3))


@settings(max_examples=60, deadline=None)
@given(st.lists(records, min_size=1, max_size=20, unique_by=lambda r: (r.job_number,
                                                                      r.task_number)))
def test_accounting_records_read_back(recs: list[AccountingRecord]) -> None:
    text = "# Version: 8.1.9\n# \n" + "".join(r.to_line() + "\n" for r in recs)
    workload = parse_accounting(text)
    first = min(r.submission_time for r in recs)
    assert len(workload.jobs) == len(recs)
    got = sorted((j.submit, j.run_time, j.slots, j.owner, j.project, j.priority, j.pe,
                  tuple(sorted(j.hard_resources.items())), j.hard_queues)
                 for j in workload.jobs)
    want = sorted((r.submission_time - first, r.end_time - r.start_time, r.slots, r.owner,
                   None if r.project == "NONE" else r.project, r.priority,
                   "mpi" if r.slots > 1 else None,
                   (("arch", "lx-amd64"), ("h_rt", "1:00:00")) if r.slots > 1 else (),
                   ("all.q",) if r.slots > 1 else ()) for r in recs)
    assert got == want
    assert len({j.job_id for j in workload.jobs}) == len(recs)


def test_accounting_bad_line_and_never_started() -> None:
    ok = AccountingRecord(qname="q", hostname="h", group="g", owner="u", job_name="j",
                          job_number=1, submission_time=100, start_time=110, end_time=120)
    never = AccountingRecord(qname="q", hostname="h", group="g", owner="u", job_name="j",
                             job_number=2, submission_time=100)
    workload = parse_accounting(ok.to_line() + "\n" + never.to_line() + "\n")
    assert [j.recorded_wait for j in workload.jobs] == [10.0]
    assert workload.skipped == {"never started": 1}
    with pytest.raises(WorkloadError, match=r"^acct:2: accounting line has 3 fields"):
        parse_accounting(ok.to_line() + "\nq:h:g\n", "acct")
    with pytest.raises(WorkloadError, match=r"^acct:1: job_number: not a number"):
        parse_accounting(ok.to_line().replace(":j:1:", ":j:x:"), "acct")


def test_category_requests() -> None:
    assert category_requests("-U arusers -l h_rt=60,mem_free=1G -q a.q,b.q -soft -l "
                             "arch=x -q c.q -P proj") == (
        {"h_rt": "60", "mem_free": "1G"}, ("a.q", "b.q"), "proj")
    assert category_requests("NONE") == ({}, (), None)
    with pytest.raises(WorkloadError, match="'h_rt' is not name=value"):
        category_requests("-l h_rt", "x")


def test_read_workload_guesses_the_format(tmp_path) -> None:  # type: ignore[no-untyped-def]
    swf = tmp_path / "trace"
    swf.write_text(swf_line(1, 0, 10, 1, 1) + "\n")
    acct = tmp_path / "accounting"
    acct.write_text(AccountingRecord(qname="q", hostname="h", group="g", owner="u",
                                     job_name="j", job_number=1, submission_time=5,
                                     start_time=6, end_time=9).to_line() + "\n")
    assert read_workload(swf).jobs[0].owner == "user1"
    assert read_workload(acct).jobs[0].run_time == 3.0
    with pytest.raises(WorkloadError, match="No such file"):
        read_workload(tmp_path / "missing")
