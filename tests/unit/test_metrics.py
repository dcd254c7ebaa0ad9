"""The /metrics exposition (common.metrics, qmaster.metrics), read back with
prometheus_client's parsers of both formats."""
from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
from hypothesis import given, strategies as st
from prometheus_client.openmetrics.parser import text_string_to_metric_families as om_parse
from prometheus_client.parser import text_string_to_metric_families as prom_parse

from common.metrics import (TIME_BUCKETS, CounterVec, Family, Histogram, counter, gauge,
                            labels, render, wants_openmetrics)
from common.model import ExecHost, Job, Task, TaskRanges
from deploy.cell import with_param
from qmaster import metrics
from qmaster.metrics import MAX_HEAD_BYTES, MetricsServer, QmasterMetrics, address, families


def parsed(fams: list[Family], openmetrics: bool) -> dict[str, object]:
    parse = om_parse if openmetrics else prom_parse
    return {fam.name: fam for fam in parse(render(fams, openmetrics=openmetrics))}


@pytest.mark.parametrize("openmetrics", [True, False])
def test_every_kind_parses_back(openmetrics: bool) -> None:
    hist = Histogram(TIME_BUCKETS)
    for value in (0.0005, 0.003, 0.003, 2.0, 1e9):
        hist.observe(value)
    fams = [hist.family("pyge_x_seconds", "a histogram"),
            counter("pyge_requests", "by type", {labels(type="submit"): 2}),
            gauge("pyge_jobs", "jobs", {labels(state="running", user="ann"): 3})]
    got = parsed(fams, openmetrics)
    buckets = {s.labels["le"]: s.value for s in got["pyge_x_seconds"].samples
               if s.name.endswith("_bucket")}
    assert buckets["0.001"] == 1 and buckets["0.005"] == 3 and buckets["+Inf"] == 5
    assert got["pyge_x_seconds"].type == "histogram"
    assert [(s.name, s.labels, s.value) for s in got["pyge_requests"].samples] == \
        [("pyge_requests_total", {"type": "submit"}, 2)]
    assert got["pyge_jobs"].samples[0].value == 3


def test_openmetrics_ends_with_eof_and_prometheus_text_does_not() -> None:
    fams = [gauge("pyge_a", "a", {(): 1})]
    assert render(fams, openmetrics=True).endswith("# EOF\n")
    assert "# EOF" not in render(fams, openmetrics=False)
    assert wants_openmetrics("application/openmetrics-text; version=1.0.0,text/plain;q=0.5")
    assert not wants_openmetrics("text/plain")


@given(st.text(min_size=0, max_size=30))
def test_any_label_value_survives_both_parsers(value: str) -> None:
    fams = [gauge("pyge_jobs", "jobs", {labels(user=value): 1})]
    for openmetrics in (True, False):
        sample = parsed(fams, openmetrics)["pyge_jobs"].samples[0]
        assert sample.labels == {"user": value}


def test_names_follow_the_conventions() -> None:
    with pytest.raises(ValueError):
        Family("pyge_requests_total", "counter", "a counter's family has no _total")
    with pytest.raises(ValueError):
        Family("pyge-x", "gauge", "no dashes")
    with pytest.raises(ValueError):
        Histogram((1.0, 0.5))


def test_a_counter_keeps_a_bounded_number_of_series() -> None:
    vec = CounterVec(max_series=2)
    for name in ("a", "b", "c", "d"):
        vec.inc(labels(type=name))
    assert vec.values == {labels(type="a"): 1, labels(type="b"): 1, (("type", "other"),): 2}


def _store() -> SimpleNamespace:
    jobs = {n: Job(job_id=n, owner=owner, submit_time=0.0, uid=1000 + n, group=owner,
                   gid=1000 + n, opts={}, sge_o={}) for n, owner in ((1, "ann"), (2, "bob"))}
    tasks = {"1.1": Task(job_id=1, task_id=1, state="running", queue="all.q", host="h1"),
             "2.3": Task(job_id=2, task_id=3, state="finished")}
    ranges = {2: TaskRanges(job_id=2, pending=[[1, 2, 1], [4, 9, 1]], holds=["u"])}
    hosts = {"h1": ExecHost(name="h1", load_time=90.0, alive=True),
             "h2": ExecHost(name="h2", load_time=0.0, alive=False)}
    return SimpleNamespace(jobs=jobs, tasks=tasks, ranges=ranges, hosts=hosts,
                           used_slots={("all.q", "h1"): 1})


def test_a_scrape_counts_tasks_slots_and_host_ages() -> None:
    instances = [SimpleNamespace(queue="all.q", host="h1", slots=4),
                 SimpleNamespace(queue="all.q", host="h2", slots=2)]
    seen = QmasterMetrics()
    seen.request("submit")
    seen.orders_done(3, 1)
    seen.load_report("h1")
    got = {f.name: f for f in om_parse(render(families(seen, _store(), instances, 100.0, 5.0),
                                              openmetrics=True))}
    jobs = {(s.labels["state"], s.labels["user"]): s.value for s in got["pyge_jobs"].samples}
    assert jobs == {("running", "ann"): 1, ("held", "bob"): 8}  # finished tasks not counted
    assert got["pyge_queue_slots_used"].samples[0].value == 1
    assert got["pyge_queue_slots_free"].samples[0].value == 5
    assert {s.labels["result"]: s.value for s in got["pyge_orders"].samples} == \
        {"accepted": 3, "refused": 1}
    ages = {s.labels["host"]: s.value for s in got["pyge_execd_last_report_age_seconds"].samples}
    assert ages == {"h1": 10.0}  # h2 never reported
    assert {s.labels["host"]: s.value for s in got["pyge_execd_up"].samples} == \
        {"h1": 1, "h2": 0}


def test_the_endpoint_follows_qmaster_params() -> None:
    assert address("none") is None
    assert address("METRICS_PORT=0") is None
    assert address("METRICS_PORT=junk") is None
    assert address("metrics_port=9100") == ("127.0.0.1", 9100)
    assert address("MAX_SCRIPT_SIZE=4M,METRICS_PORT=9100,METRICS_BIND=::1") == ("::1", 9100)


def test_pyge_up_sets_one_key_and_keeps_the_others() -> None:
    assert with_param("none", "METRICS_PORT", "9100") == "METRICS_PORT=9100"
    assert with_param("A=1,METRICS_PORT=1,B=2", "METRICS_PORT", "9") == "A=1,B=2,METRICS_PORT=9"
    assert with_param("METRICS_PORT=1", "METRICS_PORT", None) == "none"


def _answer(head: bytes) -> bytes:
    return MetricsServer(lambda om: "# EOF\n" if om else "x 1\n", lambda *a, **k: None
                         )._answer(head)


def test_only_get_of_metrics_is_answered() -> None:
    assert _answer(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").startswith(b"HTTP/1.1 200")
    assert b"text/plain; version=0.0.4" in _answer(b"GET /metrics HTTP/1.1\r\n\r\n")
    om = _answer(b"GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text\r\n\r\n")
    assert b"application/openmetrics-text" in om and om.endswith(b"# EOF\n")
    head = _answer(b"HEAD /metrics HTTP/1.1\r\n\r\n")
    assert head.endswith(b"\r\n\r\n") and b"Content-Length: 4" in head
    assert _answer(b"GET / HTTP/1.1\r\n\r\n").startswith(b"HTTP/1.1 404")
    assert _answer(b"POST /metrics HTTP/1.1\r\n\r\n").startswith(b"HTTP/1.1 405")
    assert _answer(b"nonsense\r\n\r\n").startswith(b"HTTP/1.1 400")


async def test_a_served_scrape_and_an_oversized_head() -> None:
    server = MetricsServer(lambda om: "pyge_a 1\n", lambda *a, **k: None)
    await server.start("127.0.0.1", 0)
    try:
        assert server.address is not None
        reader, writer = await asyncio.open_connection(*server.address)
        writer.write(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        answer = await reader.read()
        writer.close()
        assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"pyge_a 1\n")
        reader, writer = await asyncio.open_connection(*server.address)
        writer.write(b"GET /metrics HTTP/1.1\r\nX: " + b"y" * (2 * MAX_HEAD_BYTES))
        assert await reader.read() == b""  # closed without an answer
        writer.close()
    finally:
        await server.stop()


def test_scrapes_within_a_second_share_one_rendering() -> None:
    calls = []
    server = MetricsServer(lambda om: calls.append(om) or "pyge_a 1\n", lambda *a, **k: None)
    for _ in range(5):
        server._answer(b"GET /metrics HTTP/1.1\r\n\r\n")
    assert calls == [False]
    assert metrics.RENDER_SECONDS >= 1.0
