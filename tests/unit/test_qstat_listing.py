"""qstat's job listing as a whole (clients.qstat.job_listing) against a stand-in client:
the Grid Engine 8.1.9 reference outputs, byte for byte, and the requests it makes (the
queue instances only when the output needs them, issue 12); and the pieces that make a
listing cheap: -u names matched without fnmatch, the -r and -ext blocks only when shown,
the dates of a listing formatted once per second."""
from __future__ import annotations

import fnmatch
import io
import time
from typing import Any, Callable

import pytest
from hypothesis import given, strategies as st

from clients import qstat as qs
from clients.render import qstat as rq
from clients.render.format import format_ctime
from clients.views import qstat as v
from tests.reference import REFERENCE as REF
from tests.unit.test_views import ALL, cluster, job, reference_reply, task


@pytest.fixture(autouse=True)
def _in_utc(utc: None) -> None:
    """Times as the reference shows them (UTC)."""


class StandIn:
    """What job_listing asks of a Client; ``calls`` records the requests in order."""

    class user:
        name = "sgeuser"

    def __init__(self, reply: dict[str, Any], cluster_reply: dict[str, Any]) -> None:
        self.reply, self.cluster_reply = reply, cluster_reply
        self.calls: list[str] = []
        self.waited = 0

    def conf_get(self, kind: str) -> dict[str, Any]:
        self.calls.append(f"conf_get {kind}")
        return dict(self.reply.get("conf", {}).get(kind, {}))

    def cluster(self, resources: bool = False) -> dict[str, Any]:
        self.calls.append("cluster")
        return self.cluster_reply

    def jobs(self, *, while_waiting: Callable[[], object] | None = None,
             **query: Any) -> dict[str, Any]:
        self.calls.append("jobs")
        if while_waiting is not None:
            while_waiting()
            self.waited += 1
        if query.get("priorities") and "priorities" not in self.reply:
            return {**self.reply, "priorities": default_policy(self.reply)}
        return self.reply


def default_policy(reply: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """What the qmaster's policy view gives every job with 8.1.9's default scheduler
    configuration when all jobs are alike (each normalised part is 0.5: no spread)."""
    return {j["job_id"]: {"prio": 0.5, "nurg": 0.5, "npprior": 0.5, "ntckts": 0.5,
                          "urg": [0.0] * 4, "tickets": [0.0] * 5, "tasks": {}}
            for j in reply.get("jobs") or []}


def listing(argv: list[str], reply: dict[str, Any] | None = None,
            cluster_reply: dict[str, Any] | None = None) -> tuple[str, StandIn]:
    client = StandIn(reference_reply() if reply is None else reply,
                     cluster() if cluster_reply is None else cluster_reply)
    out = io.StringIO()
    assert qs.job_listing(qs.parse_args(argv), client, out) == 0  # type: ignore[arg-type]
    return out.getvalue(), client


@pytest.mark.parametrize("argv, reference", [
    (["-u", "*"], "qstat.out"), (["-u", "*", "-r"], "qstat-r.out"),
    (["-u", "*", "-s", "p"], "qstat-s-p.out"), (["-u", "*", "-xml"], "qstat-xml.out"),
    (["-u", "*", "-f"], "qstat-f.out"), (["-u", "*", "-f", "-xml"], "qstat-f-xml.out"),
    (["-u", "*", "-g", "c"], "qstat-g-c.out")])
def test_a_listing_is_grid_engines(argv: list[str], reference: str) -> None:
    text, client = listing(argv)
    assert text == (REF / reference).read_text()
    assert client.waited == (0 if "c" in argv else 1)  # the views load while it waits


def test_the_queue_instances_only_when_the_output_needs_them() -> None:
    # running jobs: their rows come in the instances' order, asked for after the jobs
    assert listing(["-u", "*"])[1].calls == ["jobs", "cluster"]
    # none shown (-s p), or none at all: the jobs alone
    assert listing(["-u", "*", "-s", "p"])[1].calls == ["jobs"]
    pending = {"jobs": [job(3, "wait")], "tasks": [task(3)]}
    text, client = listing(["-u", "*"], pending)
    assert client.calls == ["jobs"] and text.splitlines()[2].split()[:5] == [
        "3", "0.50000", "wait", "sgeuser", "qw"]
    # queue output or selection, or names as wide as the longest: the instances first
    for argv in (["-f"], ["-q", "all.q"], ["-qs", "E"], ["-pe", "smp"], ["-g", "c"]):
        assert listing(["-u", "*", *argv], pending)[1].calls[0] == "cluster", argv


def test_sge_long_qnames_minus_one_reads_the_instances_first(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SGE_LONG_QNAMES", "-1")
    pending = {"jobs": [job(3, "wait")], "tasks": [task(3)]}
    text, client = listing(["-u", "*"], pending)
    assert client.calls == ["cluster", "jobs"]
    assert text.splitlines()[0] == rq.job_header(extended=False, queue_width=8).splitlines()[0]


def test_rows_without_the_blocks_they_do_not_show() -> None:
    reply = reference_reply()
    bare = v.Columns(resources=False, extended=False, policy=False)
    for kind in (lambda c: v.running_rows(reply, cluster(), ALL, columns=c),
                 lambda c: v.pending_rows(reply, ALL, columns=c)):
        full, lean = kind(v.ALL_COLUMNS), kind(bare)
        assert [{k: r[k] for k in s} for r, s in zip(full, lean)] == lean
        assert rq.render_job_table(lean) == rq.render_job_table(full)
        assert rq.render_job_table_xml(lean, []) == rq.render_job_table_xml(full, [])
        assert "hard_resources" not in lean[0] and "ntckts" not in lean[0]
    ext = v.pending_rows(reply, ALL, columns=v.Columns(resources=False))
    assert rq.render_job_table(ext, extended=True) == \
        rq.render_job_table(v.pending_rows(reply, ALL), extended=True)


def test_one_selection_serves_every_kind_of_row() -> None:
    reply = reference_reply()
    flt = v.JobFilter(states=frozenset({"p", "r", "s", "z"}), users=None)
    selected = v.selected_jobs(reply, flt)
    assert v.pending_rows(reply, flt, selected=selected) == v.pending_rows(reply, flt)
    assert v.zombie_rows(reply, flt, selected=selected) == v.zombie_rows(reply, flt)
    assert v.running_rows(reply, cluster(), flt, selected=selected) == \
        v.running_rows(reply, cluster(), flt)
    assert v.queue_rows(cluster(), reply, flt, selected=selected) == \
        v.queue_rows(cluster(), reply, flt)


NAMES = st.text(alphabet="ab*?[]!-", max_size=6)


@given(owners=st.lists(NAMES, min_size=1, max_size=4), users=st.lists(NAMES, max_size=3))
def test_owner_matching_is_fnmatch(owners: list[str], users: list[str]) -> None:
    flt = v.JobFilter(users=tuple(users))
    reply = {"jobs": [{**job(n + 1, "j"), "owner": o} for n, o in enumerate(owners)]}
    expected = [o for o in owners if any(fnmatch.fnmatchcase(o, u) for u in users)]
    assert [flt.owner_ok(o) for o in owners] == [o in expected for o in owners]
    assert [j["owner"] for j, _ in v.selected_jobs(reply, flt)] == expected


@given(st.lists(st.floats(min_value=-2e9, max_value=4e9, allow_nan=False), max_size=20))
def test_a_listings_dates_are_formatted_as_each_alone(stamps: list[float]) -> None:
    seen: dict[float, str] = {}
    for ts in stamps + stamps:
        assert format_ctime(ts, seen) == format_ctime(ts) == \
            time.strftime("%m/%d/%Y %H:%M:%S", time.localtime(ts))
