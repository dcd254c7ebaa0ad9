"""The threads that keep a ``WebState`` up to date with the cell, as the user who runs
``pyge web`` (each thread has its own ``Client``: a client is one connection).

- the follower reads the state (``Client.jobs``, ``Client.cluster``) after taking the
  cursor of now, then applies the subscription's events (``clients.events.subscribe``),
  and reads the state again on ``resync``;
- the refresher samples the plot every ``SAMPLE_SECONDS``, reads the quotas in use as
  qquota does (``clients.qquota.usage_rows``) as often, the ``qstat -j`` reasons of the
  first pending jobs every ``EXPLAIN_SECONDS`` (only while some wait), and the cluster
  again when an event named an instance or host it does not know.

``notify`` is called (from these threads) after every change; the server wakes its
streams with it.
"""
from __future__ import annotations

import threading
import time
from typing import Any, Callable

from clients.api import Client, ClientError
from clients.events import Cursor, subscribe
from clients.web.state import SAMPLE_SECONDS, WebState, quota_row
from common.cell import Cell

EXPLAIN_SECONDS = 5.0    # the reasons of the first pending jobs are read this often
ASKED_SECONDS = 2.0      # a job clicked again within this long gets the reasons kept
POLL_SECONDS = 10.0      # one long poll (a stopping process waits for it at most)
RETRY_SECONDS = 2.0      # after a failed read of the whole state
TICK_SECONDS = 1.0


class Follower:
    """Fills ``state`` (guarded by ``lock``) from the cell; ``start``, then ``stop``."""

    def __init__(self, cell: Cell, state: WebState, lock: threading.Lock,
                 notify: Callable[[], None], log: Any, *,
                 sample_seconds: float = SAMPLE_SECONDS) -> None:
        self.cell, self.state, self.lock, self.notify, self.log = cell, state, lock, notify, log
        self.sample_seconds = sample_seconds
        self._stop = threading.Event()
        self._client_lock = threading.Lock()  # the refresher's client, shared with explain
        self._client: Client | None = None
        self._asked: dict[int, float] = {}
        self.ready = threading.Event()  # set once the state was read a first time

    def start(self) -> None:
        for target in (self._follow, self._refresh):
            threading.Thread(target=target, daemon=True, name=f"web-{target.__name__}").start()

    def stop(self) -> None:
        self._stop.set()

    # ---- the subscription ------------------------------------------------------------
    def _follow(self) -> None:
        while not self._stop.is_set():
            try:
                with Client(self.cell) as client:
                    self._follow_with(client)
            except ClientError as err:
                self.log.warning("subscription failed", error=err.message)
                self._stop.wait(RETRY_SECONDS)

    def _follow_with(self, client: Client) -> None:
        now = client.events(timeout=0)
        cursor = Cursor(now["epoch"], int(now["seq"]))
        self._read_all(client, cursor)
        for event in subscribe(client, cursor=cursor, poll_seconds=POLL_SECONDS):
            if self._stop.is_set():
                return
            if event["kind"] == "resync":
                self.log.info("resync", epoch=event["epoch"], seq=event["seq"])
                self._read_all(client, cursor)
                continue
            with self.lock:
                self.state.apply(event)
                self.state.cursor = cursor.text()
            self.notify()

    def _read_all(self, client: Client, cursor: Cursor) -> None:
        """The whole state, read after ``cursor`` was taken: events that follow it may
        already show in the read, and applying them again changes nothing."""
        jobs, cluster = client.jobs(brief=True, ranges=True), client.cluster()
        with self.lock:
            self.state.reset(jobs, cluster, cursor.text())
        self.ready.set()
        self.notify()

    # ---- the periodic reads ----------------------------------------------------------
    def _refresh(self) -> None:
        next_sample = next_explain = 0.0
        while not self._stop.wait(TICK_SECONDS):
            if not self.ready.is_set():
                continue  # (the follower reads the state first)
            now = time.monotonic()
            try:
                if self.state.needs_cluster:
                    self._read_cluster()
                if now >= next_sample:
                    next_sample = now + self.sample_seconds
                    self._sample_and_quotas()
                if now >= next_explain:
                    next_explain = now + EXPLAIN_SECONDS
                    with self.lock:
                        ids = self.state.to_explain()
                    if ids:
                        self._explain(ids)
            except ClientError as err:
                self.log.warning("refresh failed", error=err.message)

    def _read_cluster(self) -> None:
        with self._client_lock:
            cluster = self._own_client().cluster()
        with self.lock:
            self.state.reset_cluster(cluster)
        self.notify()

    def _sample_and_quotas(self) -> None:
        from clients.qquota import usage_rows  # (loads the placement library)
        with self._client_lock:
            rows = [quota_row(row) for row in usage_rows(self._own_client(), {})]
        with self.lock:
            self.state.set_quotas(rows)
            self.state.sample(time.time())
        self.notify()

    def _explain(self, job_ids: list[int]) -> None:
        with self._client_lock:
            reply = self._own_client().jobs(job_ids, explain=True, brief=True)
        with self.lock:
            self.state.set_explained(reply, time.time())
        self.notify()

    def explain(self, job_id: int) -> list[str] | None:
        """The reasons of one pending job, read now (a page's click), unless read within
        ASKED_SECONDS; None when the job does not wait."""
        with self.lock:
            if job_id not in self.state.pending_jobs():
                return None
            kept = self.state.reasons.get(job_id)
        if kept is not None and time.monotonic() - self._asked.get(job_id, 0.0) < ASKED_SECONDS:
            return kept
        self._asked = {j: t for j, t in self._asked.items()
                       if time.monotonic() - t < ASKED_SECONDS}
        self._asked[job_id] = time.monotonic()
        self._explain([job_id])
        with self.lock:
            return self.state.reasons.get(job_id, [])

    def _own_client(self) -> Client:
        if self._client is None:
            self._client = Client(self.cell)
        return self._client
