"""The users' event subscription, version 1: job, task, queue instance and host changes
as the qmaster publishes them, for the client API's ``events`` long poll (clients.events)
and ``qevent``. docs/events.md documents it for programs.

Built on the qmaster's own event stream (``Batch.event``, published with a sequence number
``seq`` per qmaster run, named by its ``epoch``): the raw events of the last
``RING_EVENTS`` are kept while someone subscribes (none are kept once nobody has asked
for ``IDLE_SECONDS``), and each request reads what follows its cursor (epoch, seq),
projected to what every user may see anyway with ``qstat``, ``qstat -j`` and ``qhost``
(never a job's script, environment, paths or session token, nor configuration). A cursor
of another epoch (the qmaster restarted) or older than what is kept gets ``gap: true``:
the subscriber re-reads the current state (``Client.jobs``, ``Client.cluster``) and goes
on from the reply's cursor. Nothing is lost silently.

A request that finds nothing new waits (``timeout`` seconds at most) and is answered as
soon as events come. Bounds: ``MAX_EVENTS`` per answer, ``MAX_USER_POLLS`` waiting
requests per user and ``MAX_POLLS`` in all (refused beyond, in words), ``MAX_TIMEOUT``.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from qmaster.context import DEFERRED, Ctx, RequestError
from qmaster.host_rights import require_known_host

FEED_VERSION = 1
RING_EVENTS = 10000
IDLE_SECONDS = 600.0
MAX_EVENTS = 1000
MAX_USER_POLLS = 8
MAX_POLLS = 256
MAX_TIMEOUT = 60.0
KINDS = ("job", "pending", "task", "queue", "host")

# raw kind of the qmaster's stream -> the subscription's kind
_RAW_KINDS = {"job": "job", "ranges": "pending", "task": "task", "qstate": "queue",
              "host": "host"}
_TASK_FIELDS = ("job_id", "task_id", "state", "holds", "error_reason", "suspend_reasons",
                "queue", "host", "slots", "granted", "granted_pe", "dispatch_time",
                "start_time", "end_time", "exit_status", "signal", "failed", "deleted_by",
                "restarts")
_HOST_FIELDS = ("alive", "load_time", "load")


@dataclass
class Poll:
    """A request waiting for events after its cursor."""

    identity: bytes
    request_id: int
    user: str
    after: int
    deadline: float
    limit: int
    kinds: frozenset[str]
    owners: frozenset[str] | None


@dataclass
class EventFeed:
    """The kept events and the waiting requests. ``since``: the ring holds the events
    after it (a cursor older than ``since`` has missed some)."""

    ring: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=RING_EVENTS))
    since: int = 0
    last_asked: float = float("-inf")
    polls: list[Poll] = field(default_factory=list)

    def note(self, events: list[dict[str, Any]], now: float,
             job_finished: Callable[[int], bool]) -> None:
        """Events just published (each with its ``seq``) at ``now``; ``job_finished``
        says whether a job has no unfinished task left, as the store is now (a job's
        task and pending events carry it as ``job_finished``: qevent's JB_END)."""
        if not events:
            return
        if now - self.last_asked > IDLE_SECONDS and not self.polls:
            self.ring.clear()  # nobody subscribes: keep nothing
            self.since = events[-1]["seq"]
            return
        last_of_job = _last_of_each_job(events)
        for index, event in enumerate(events):
            kind = event.get("kind")
            if kind not in _RAW_KINDS:
                continue
            if kind in ("task", "ranges"):  # (a copy: the published event is the scheduler's)
                # the store is as after the whole batch: only the job's last event in it
                # may say that the job has ended
                job_id = _job_id(event)
                event = {**event, "job_finished": last_of_job.get(job_id) == index
                         and job_finished(job_id)}
            if len(self.ring) == self.ring.maxlen:
                self.since = self.ring[0]["seq"]
            self.ring.append(event)

    def read(self, after: int, limit: int, kinds: frozenset[str],
             owners: frozenset[str] | None, owner_of: Callable[[int], str | None],
             ) -> tuple[list[dict[str, Any]], int]:
        """The raw events after ``after`` that the filter keeps (at most ``limit``), and
        the cursor to go on from (the last event looked at)."""
        found: list[dict[str, Any]] = []
        cursor = after
        for event in self._after(after):
            if len(found) >= limit:
                break
            cursor = event["seq"]
            if _RAW_KINDS[event["kind"]] in kinds and _owner_kept(event, owners, owner_of):
                found.append(event)
        return found, cursor

    def _after(self, after: int) -> Iterable[dict[str, Any]]:
        if not self.ring or self.ring[-1]["seq"] <= after:
            return ()
        # seqs rise by one and not every published event is kept: at most the last
        # (newest - after) kept ones follow ``after``
        start = max(0, len(self.ring) - (self.ring[-1]["seq"] - after))
        while start < len(self.ring) and self.ring[start]["seq"] <= after:
            start += 1
        return (self.ring[i] for i in range(start, len(self.ring)))

    def newest(self) -> int:
        return self.ring[-1]["seq"] if self.ring else self.since

    def add_poll(self, poll: Poll) -> None:
        if len(self.polls) >= MAX_POLLS:
            raise RequestError("denied", f"too many event subscriptions wait ({MAX_POLLS}); "
                                         "try again later")
        if sum(p.user == poll.user for p in self.polls) >= MAX_USER_POLLS:
            raise RequestError("denied", f'user "{poll.user}" has {MAX_USER_POLLS} event '
                                         "subscriptions waiting already")
        self.polls.append(poll)

    def due(self, now: float) -> list[Poll]:
        """The waiting requests to answer now: those with news, and those whose time is up."""
        newest = self.newest()
        ready = [p for p in self.polls if p.deadline <= now or newest > p.after]
        if ready:
            self.polls = [p for p in self.polls if p not in ready]
        return ready


def _last_of_each_job(events: list[dict[str, Any]]) -> dict[int, int]:
    """job id -> the index of its last task or pending event in ``events``."""
    return {_job_id(event): index for index, event in enumerate(events)
            if event.get("kind") in ("task", "ranges")}


def _owner_kept(event: dict[str, Any], owners: frozenset[str] | None,
                owner_of: Callable[[int], str | None]) -> bool:
    if owners is None or _RAW_KINDS[event["kind"]] in ("queue", "host"):
        return True
    job_id = _job_id(event)
    owner = (event.get("obj") or {}).get("owner") if event["kind"] == "job" else None
    return (owner or owner_of(job_id)) in owners


def _job_id(event: dict[str, Any]) -> int:
    return int(str(event["key"]).partition(".")[0])


def project(event: dict[str, Any], job_of: Callable[[int], Any]) -> dict[str, Any]:
    """A raw event as a subscriber sees it (docs/events.md): what qstat shows anyway."""
    kind, op, key = _RAW_KINDS[event["kind"]], event["op"], str(event["key"])
    out: dict[str, Any] = {"seq": event["seq"], "kind": kind, "op": op}
    obj = event.get("obj") or {}
    if kind in ("job", "pending", "task"):
        out["job_id"] = _job_id(event)
    if "job_finished" in event:
        out["job_finished"] = event["job_finished"]
    if kind == "job" and op == "put":
        job = job_of(out["job_id"])
        opts = job.opts if job is not None else obj.get("opts") or {}
        out.update(owner=job.owner if job is not None else obj.get("owner"),
                   name=opts.get("job_name"), project=opts.get("project"),
                   priority=opts.get("priority") or 0,
                   submit_time=job.submit_time if job is not None else obj.get("submit_time"))
    elif kind == "pending" and op == "put":
        out.update(pending=obj.get("pending") or [], holds=obj.get("holds") or [],
                   deleted=obj.get("deleted") or [])
    elif kind == "task":
        out["task_id"] = int(key.partition(".")[2] or 0)
        if op == "put":
            out.update({name: obj.get(name) for name in _TASK_FIELDS if name in obj})
    elif kind == "queue":
        out["queue_instance"] = key
        out["states"] = obj.get("states", "") if op == "put" else ""
    elif kind == "host":
        out["host"] = key
        if op == "put":
            out.update({name: obj.get(name) for name in _HOST_FIELDS if name in obj})
    return out


def handle_events(ctx: Ctx) -> Any:
    """``events``: what follows the cursor, at once or when it comes."""
    require_known_host(ctx.store, ctx.user)
    body = ctx.body
    unknown = sorted(set(body.get("kinds") or ()) - set(KINDS))
    if unknown:
        raise RequestError("invalid", f"unknown event kind \"{unknown[0]}\" (one of "
                                      f"{', '.join(KINDS)})")
    if ctx.services.event_feed is None:  # the first subscriber: from now on events are kept
        ctx.services.event_feed = EventFeed(since=ctx.services.seq)
    feed: EventFeed = ctx.services.event_feed
    feed.last_asked = ctx.now
    kinds = frozenset(body.get("kinds") or KINDS)
    owners = frozenset(body["owners"]) if body.get("owners") is not None else None
    limit = min(int(body.get("max") or MAX_EVENTS), MAX_EVENTS)
    epoch, after = body.get("epoch"), body.get("after")
    seq, store = ctx.services.seq, ctx.store
    if after is None or epoch != ctx.services.epoch or after > seq:
        # a new subscriber starts from now; another epoch's cursor has missed everything
        return _reply(ctx.services.epoch, store, [], seq, gap=after is not None)
    if after < feed.since:
        return _reply(ctx.services.epoch, store, [], seq, gap=True)
    found, cursor = feed.read(after, limit, kinds, owners, _owner_lookup(store))
    timeout = min(float(body.get("timeout") or 0.0), MAX_TIMEOUT)
    if found or timeout <= 0:
        return _reply(ctx.services.epoch, store, found, cursor)
    # nothing for this subscriber yet: wait from what was looked at
    feed.add_poll(Poll(ctx.identity, ctx.request_id, ctx.user.name, cursor,
                       ctx.now + timeout, limit, kinds, owners))
    return DEFERRED


def answer_polls(feed: EventFeed, store: Any, epoch: str, now: float
                 ) -> list[tuple[bytes, int, dict[str, Any]]]:
    """(identity, request id, reply) for each waiting request that is due at ``now``."""
    answers = []
    for poll in feed.due(now):
        if poll.after < feed.since:  # (it waited while the ring moved past it)
            answer = _reply(epoch, store, [], feed.newest(), gap=True)
        else:
            found, cursor = feed.read(poll.after, poll.limit, poll.kinds, poll.owners,
                                      _owner_lookup(store))
            answer = _reply(epoch, store, found, cursor)
        answers.append((poll.identity, poll.request_id, answer))
    return answers


def _owner_lookup(store: Any) -> Callable[[int], str | None]:
    def owner_of(job_id: int) -> str | None:
        job = store.jobs.get(job_id)
        return job.owner if job is not None else None
    return owner_of


def _reply(epoch: str, store: Any, events: list[dict[str, Any]], cursor: int, *,
           gap: bool = False) -> dict[str, Any]:
    return {"version": FEED_VERSION, "epoch": epoch, "seq": cursor, "gap": gap,
            "events": [project(e, store.jobs.get) for e in events]}
