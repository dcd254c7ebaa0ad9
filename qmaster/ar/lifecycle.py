"""An advance reservation's life in the qmaster: ``w`` until its start, ``r`` until its
end, then ``x`` while its jobs are ended (``d`` after qrdel), gone with its last job.

The clock is a heap of when each AR next changes (``ArClock``); the qmaster's AR timer
(``QmasterServer._ar_timer``) sleeps until its top is due, and is woken when an entry
earlier than the top is added: nothing runs while nothing is due. Entries are checked
against the AR when they come due (a request that was rolled back, or an AR deleted
meanwhile, leaves a stale entry that is dropped then).

8.1.9 (tests/data/reference/ar/): at the end or at qrdel, the AR's pending jobs are
deleted at once and its running jobs are terminated (``dr`` in qstat); the AR stays, in
state ``x`` or ``d``, until its last job has ended (``Store._ar_job_done``).
"""
from __future__ import annotations

import heapq
from typing import Any, Callable, Iterable

from common.ar import ENDING_STATES, next_change, state_at
from common.jobstate import State
from qmaster import mail as job_mail
from qmaster.context import Ctx


class ArClock:
    """When each AR next changes state by time (start, end)."""

    def __init__(self, wake: Callable[[], None] | None = None) -> None:
        self._heap: list[tuple[float, int]] = []
        self.wake = wake  # called when an entry comes before the earliest (the timer)

    def add(self, record: dict[str, Any]) -> None:
        when = next_change(record)
        if when is None:
            return
        earlier = not self._heap or when < self._heap[0][0]
        heapq.heappush(self._heap, (when, int(record["ar_id"])))
        if earlier and self.wake is not None:
            self.wake()

    def rebuild(self, records: Iterable[dict[str, Any]]) -> None:
        self._heap = [(w, int(r["ar_id"])) for r in records
                      if (w := next_change(r)) is not None]
        heapq.heapify(self._heap)

    def next_due(self) -> float | None:
        return self._heap[0][0] if self._heap else None

    def due(self, now: float) -> list[int]:
        """The ARs whose time has come (each once)."""
        out: list[int] = []
        while self._heap and self._heap[0][0] <= now:
            ar_id = heapq.heappop(self._heap)[1]
            if ar_id not in out:
                out.append(ar_id)
        return out


def advance(ctx: Ctx, clock: ArClock, ar_ids: list[int]) -> None:
    """Move each AR to the state its window gives it now; one whose end has passed
    ends its jobs (and goes when they have)."""
    for ar_id in ar_ids:
        record = ctx.store.ars.get(ar_id)
        if record is None or record["state"] in ENDING_STATES:
            continue
        state = state_at(record, ctx.now)
        if state == record["state"]:
            clock.add(record)  # (an entry for an earlier window: look again later)
            continue
        if state == "x":
            end_ar(ctx, record, "x", by="root")
            continue
        changed = {**record, "state": state}
        ctx.store.put_ar(ctx.batch, changed)
        clock.add(changed)
        if state == "r":
            job_mail.ar_event(ctx, changed, "start")


def end_ar(ctx: Ctx, record: dict[str, Any], state: str, *, by: str,
           force: bool = False) -> bool:
    """The AR goes to ``state`` (``d`` or ``x``): its jobs are ended as qdel ends them
    (``force``: as qdel -f). True when it went at once (it had no unfinished job)."""
    from qmaster import jobs as job_handlers
    ar_id = int(record["ar_id"])
    ctx.store.put_ar(ctx.batch, {**record, "state": state})
    if record.get("state") != state:  # (a second qrdel -f: no second mail)
        job_mail.ar_event(ctx, record, "end" if state == "x" else "delete")
    job_ids = sorted(ctx.store.ar_jobs.get(ar_id, ()))
    if not job_ids:
        ctx.store.delete_ar(ctx.batch, ar_id)
        return True
    end_ctx = Ctx(ctx.store, ctx.batch, ctx.services, ctx.identity, ctx.request_id,
                  ctx.now, {"user": {"name": by, "uid": 0, "group": "", "gid": 0},
                            "force": force})
    for job_id in job_ids:
        job = ctx.store.jobs.get(job_id)
        if job is None or ctx.store.job_finished(job_id):
            continue
        tasks = [t for t in ctx.store.enrolled_tasks(job_id)
                 if t.state_enum is not State.FINISHED]
        pending = bool(ctx.store.pending_ids(job_id))
        sel = job_handlers.Selected(job, tasks, [], pending)
        job_handlers._delete_tasks(end_ctx, sel, False)
    if not ctx.store.ar_jobs.get(ar_id) and ar_id in ctx.store.ars:
        ctx.store.delete_ar(ctx.batch, ar_id)
    return ar_id not in ctx.store.ars  # (its last job's end may have taken it already)


def settle(store: Any, batch: Any) -> None:
    """At start-up: an AR that was ending (``d``, ``x``) when the qmaster stopped and has
    no unfinished job left goes now (its last job ended meanwhile, or before the stop
    in the same moment). ARs whose start or end passed meanwhile are the clock's."""
    for ar_id, record in list(store.ars.items()):
        if record["state"] in ENDING_STATES and not store.ar_jobs.get(ar_id):
            store.delete_ar(batch, ar_id)
