"""What the qmaster exposes at ``/metrics`` (OpenMetrics / Prometheus text).

Owns three things:

- ``QmasterMetrics``: what the qmaster observes as it works (requests by type, orders
  accepted and refused, dispatch latency, scheduler pass and spool commit times, execd
  load reports), kept in bounded counters and histograms (common.metrics);
- ``families``: the families of a scrape, the observations plus what is read from the
  store at that moment (tasks by state and user, slots used and free by queue, the age
  of each execd's last report);
- ``MetricsServer``: a small HTTP/1.1 server in the qmaster's event loop that answers
  ``GET /metrics`` and nothing else.

The endpoint is off unless ``qmaster_params METRICS_PORT`` names a port; it listens on
``METRICS_BIND`` (default 127.0.0.1, loopback). It shows user, queue and host names: put
it behind a proxy with authentication to expose it further (docs/metrics.md).

Bounds: a request head is read up to ``MAX_HEAD_BYTES`` within ``HEAD_SECONDS``, at most
``MAX_CONNECTIONS`` are served at once (others are closed at once), and a scrape's text
is computed at most once per ``RENDER_SECONDS`` whatever the number of scrapers.
"""
from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from common import conf_params, task_ranges
from common.http_lite import MAX_HEAD_BYTES, HttpError, error_response, parse_head, response
from common.jobstate import State
from common.metrics import (OPENMETRICS_TYPE, PROMETHEUS_TYPE, TIME_BUCKETS, CounterVec,
                            Family, Histogram, counter, gauge, labels, render,
                            wants_openmetrics)

DEFAULT_BIND = str(conf_params.value("qmaster_params", "none", "METRICS_BIND"))  # (loopback)
HEAD_SECONDS = 5.0
MAX_CONNECTIONS = 8
RENDER_SECONDS = 1.0

# the states a task is counted in (finished tasks kept for qstat -s z are not)
_STATE_NAMES = {State.PENDING: "pending", State.HOLD: "held",
                State.TRANSFERRING: "transferring", State.RUNNING: "running",
                State.SUSPENDED: "suspended", State.ERROR: "error",
                State.DELETED: "deleting"}


def address(params: str) -> tuple[str, int] | None:
    """(bind, port) of the endpoint that ``qmaster_params`` asks for; None: off (no
    ``METRICS_PORT``, or 0, or a value that is no port: qconf refuses those)."""
    port = conf_params.value("qmaster_params", params, "METRICS_PORT")
    if not isinstance(port, int) or not 0 < port < 65536:
        return None
    return str(conf_params.value("qmaster_params", params, "METRICS_BIND")), port


@dataclass
class QmasterMetrics:
    """The qmaster's observations since it started."""

    requests: CounterVec = field(default_factory=lambda: CounterVec(max_series=256))
    orders: CounterVec = field(default_factory=lambda: CounterVec(
        max_series=2, overflow=(("result", "refused"),)))
    load_reports: CounterVec = field(default_factory=lambda: CounterVec(
        max_series=4096, overflow=(("host", "other"),)))
    dispatch_latency: Histogram = field(default_factory=lambda: Histogram(TIME_BUCKETS))
    pass_time: Histogram = field(default_factory=lambda: Histogram(TIME_BUCKETS))
    commit_time: Histogram = field(default_factory=lambda: Histogram(TIME_BUCKETS))

    def request(self, msg_type: str) -> None:
        self.requests.inc(labels(type=msg_type))

    def orders_done(self, accepted: int, refused: int) -> None:
        if accepted:
            self.orders.inc(labels(result="accepted"), accepted)
        if refused:
            self.orders.inc(labels(result="refused"), refused)

    def load_report(self, host: str) -> None:
        self.load_reports.inc(labels(host=host))


def families(metrics: QmasterMetrics, store: Any, instances: Iterable[Any], now: float,
             start_time: float) -> list[Family]:
    """Every family of one scrape: ``store`` is the qmaster's (qmaster.store.Store),
    ``instances`` its queue instances (qmaster.placement_view.instances_of)."""
    return [
        gauge("pyge_jobs", "Job tasks by state and owner (a job without -t counts one; "
              "finished tasks are not counted)", _tasks_by_state(store)),
        *_slot_families(store, instances),
        metrics.dispatch_latency.family(
            "pyge_dispatch_latency_seconds",
            "Time from a job's submission to the dispatch of each of its tasks"),
        metrics.pass_time.family(
            "pyge_scheduler_pass_seconds",
            "Duration of the scheduler's passes that gave orders or refused immediate jobs"),
        counter("pyge_orders", "Scheduler orders by what the qmaster did with them",
                metrics.orders.values),
        metrics.commit_time.family(
            "pyge_spool_commit_seconds", "Duration of each commit of the qmaster's spool"),
        counter("pyge_execd_load_reports", "Load reports received from each execd",
                metrics.load_reports.values),
        gauge("pyge_execd_last_report_age_seconds",
              "Seconds since each known execution host last reported", {
                  labels(host=name): max(0.0, now - host.load_time)
                  for name, host in store.hosts.items() if host.load_time}),
        gauge("pyge_execd_up", "Whether each execution host's execd counts as up (1) or "
              "not (0)", {labels(host=name): float(host.alive)
                          for name, host in store.hosts.items()}),
        counter("pyge_requests", "Requests the qmaster handled, by message type",
                metrics.requests.values),
        gauge("pyge_qmaster_start_time_seconds", "When the qmaster started (Unix time)",
              {(): start_time}),
    ]


def _tasks_by_state(store: Any) -> dict[tuple[tuple[str, str], ...], float]:
    counts: dict[tuple[tuple[str, str], ...], float] = {}

    def add(state: State, owner: str, n: int) -> None:
        name = _STATE_NAMES.get(state)
        if name and n:
            key = labels(state=name, user=owner)
            counts[key] = counts.get(key, 0.0) + n

    for task in store.tasks.values():
        job = store.jobs.get(task.job_id)
        if job is not None:
            add(task.state_enum, job.owner, 1)
    for job_id, rng in store.ranges.items():
        job = store.jobs.get(job_id)
        if job is not None:
            add(rng.state, job.owner, task_ranges.count(rng.pending))
    return counts


def _slot_families(store: Any, instances: Iterable[Any]) -> list[Family]:
    used: dict[tuple[tuple[str, str], ...], float] = {}
    free: dict[tuple[tuple[str, str], ...], float] = {}
    for qi in instances:
        key = labels(queue=qi.queue)
        taken = store.used_slots.get((qi.queue, qi.host), 0)
        used[key] = used.get(key, 0.0) + taken
        free[key] = free.get(key, 0.0) + max(0, qi.slots - taken)
    return [gauge("pyge_queue_slots_used", "Slots in use by cluster queue", used),
            gauge("pyge_queue_slots_free", "Slots configured and not in use by cluster queue "
                  "(whatever the instances' states)", free)]


class MetricsServer:
    """``GET /metrics`` over HTTP/1.1 (one request per connection), in the running loop.
    ``text(openmetrics)`` makes the body; it is called at most once per RENDER_SECONDS
    for each format."""

    def __init__(self, text: Callable[[bool], str], log: Callable[..., None]) -> None:
        self._text = text
        self._log = log
        self._server: asyncio.base_events.Server | None = None
        self._cache: dict[bool, tuple[float, bytes]] = {}
        self._serving = 0
        self.address: tuple[str, int] | None = None

    async def start(self, bind: str, port: int) -> None:
        self._server = await asyncio.start_server(self._serve, bind, port,
                                                  limit=MAX_HEAD_BYTES)
        self.address = self._server.sockets[0].getsockname()[:2]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server, self.address = None, None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._serving >= MAX_CONNECTIONS:
            writer.close()
            return
        self._serving += 1
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), HEAD_SECONDS)
            writer.write(self._answer(head))
            await asyncio.wait_for(writer.drain(), HEAD_SECONDS)
        except (asyncio.TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError,
                ConnectionError):
            pass  # a slow, short or oversized request gets nothing more
        finally:
            self._serving -= 1
            writer.close()

    def _answer(self, head: bytes) -> bytes:
        try:
            request = parse_head(head, ("GET", "HEAD"))
            if request.path != "/metrics":
                raise HttpError(404, "Not Found", "only /metrics\n")
        except HttpError as err:
            return error_response(err)
        openmetrics = wants_openmetrics(request.headers.get("accept", ""))
        body = self._body(openmetrics)
        return response(200, "OK", OPENMETRICS_TYPE if openmetrics else PROMETHEUS_TYPE,
                        b"" if request.method == "HEAD" else body, length=len(body))

    def _body(self, openmetrics: bool) -> bytes:
        now = time.monotonic()
        cached = self._cache.get(openmetrics)
        if cached is not None and now - cached[0] < RENDER_SECONDS:
            return cached[1]
        body = self._text(openmetrics).encode()
        self._cache[openmetrics] = (now, body)
        return body


def exposition(metrics: QmasterMetrics, store: Any, instances: Iterable[Any],
               start_time: float, openmetrics: bool) -> str:
    return render(families(metrics, store, instances, time.time(), start_time),
                  openmetrics=openmetrics)
