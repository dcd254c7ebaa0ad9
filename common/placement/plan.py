"""The dispatch pass's plan of the future: resource reservation for ``-R y`` jobs
(sched_conf(5) ``max_reservation``), backfilling around the reservations, and the advance
reservations' windows (qrsub(1)). Pure.

The pass's own state (free slots per queue instance, the resource view, the quota usage,
the slots per PE) is the cluster *now*. The plan adds what changes it later, as events:

- a running task's release at its planned end (``timeline.Hold``),
- a task dispatched in this pass, released at its planned end,
- an advance reservation's acquisition at its start and release at its end,
- a reservation found in this pass (acquisition at its start, release at its end).

To know the cluster at a time ``t`` the plan applies the events up to ``t`` to the pass's
own state and undoes them afterwards (no copy of the view is ever made). Slots are applied
at once; the consumables, quotas and PE slots of an event only when a placement is tried
(most events of a long walk never need them).

A job dispatched now must not delay a reservation: over its window ``[now, end)`` it may
use a queue instance's slots only as far as every later acquisition in the window leaves
them free (:meth:`Plan.slot_caps`), and a grant that shares a consumable, a quota or a PE
with such an acquisition is checked at each of their starts (:meth:`Plan.conflicts`). A
job without an end time (``default_duration INFINITY``) therefore never uses what a
reservation will need. A reserving job's earliest start (:meth:`Plan.earliest`) is the
first release time at which the same placement, with the same checks, succeeds.
"""
from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from common.placement.job import PlacementJob
from common.placement.quotas import QuotaContext
from common.placement.resources import Change, ResourceView, apply, check_grant, debits, \
    job_requests
from common.placement.timeline import (
    AdvanceReservation, Hold, Reservation, ReserveConf, planned_end,
)

SlotKey = tuple[str, str]
Granted = Sequence[Sequence[Any]]
# a placement tried at time t for the window [t, end): (granted, PE) or None
Placer = Callable[[float, float], "tuple[list[list[Any]], str | None] | None"]

RELEASE, ACQUIRE = 1, -1


@dataclass
class Effect:
    """What a grant takes from the pass's state: slots per queue instance, consumable
    debits, quota counts and PE slots."""

    slots: list[tuple[SlotKey, int]]
    changes: list[Change]
    counted: list[tuple[Any, str, float]]
    pe: str | None
    total: int

    def view_keys(self) -> set[tuple[Any, str]]:
        return {(c[0], c[1]) for c in self.changes}

    def quota_keys(self) -> set[tuple[Any, str]]:
        return {(c[0], c[1]) for c in self.counted}


class Event:
    """A change of the pass's state at ``time``: ``sign`` RELEASE gives the effect back,
    ACQUIRE takes it. The effect is worked out when first needed."""

    __slots__ = ("time", "sign", "slots", "make", "key", "_effect", "_per_key")

    def __init__(self, time: float, sign: int, slots: tuple[tuple[SlotKey, int], ...],
                 make: Callable[[], Effect], seq: int) -> None:
        self.time, self.sign, self.slots, self.make = time, sign, slots, make
        # at one instant releases come first: what frees at t may be taken at t
        self.key = (time, 0 if sign == RELEASE else 1, seq)
        self._effect: Effect | None = None
        self._per_key: dict[SlotKey, int] | None = None

    def slots_at(self, key: SlotKey) -> int:
        """The slots the event moves on queue instance ``key``."""
        if self._per_key is None:
            per_key: dict[SlotKey, int] = {}
            for k, n in self.slots:
                per_key[k] = per_key.get(k, 0) + n
            self._per_key = per_key
        return self._per_key.get(key, 0)

    @property
    def effect(self) -> Effect:
        if self._effect is None:
            self._effect = self.make()
        return self._effect


@dataclass
class Acquisition:
    """A future hold (an advance reservation or a reservation of this pass): its window
    and what it takes, for the backfill checks."""

    start: float
    end: float
    event: Event


class _Window:
    """The acquisitions inside one window, their slot caps and their footprint."""

    def __init__(self, inside: list[Acquisition], caps: dict[SlotKey, int]) -> None:
        self.inside, self.caps = inside, caps
        self.keys = {k for a in inside for k, _ in a.event.slots}
        effects = [a.event.effect for a in inside]
        self.view_keys = set().union(*(e.view_keys() for e in effects))
        self.quota_keys = set().union(*(e.quota_keys() for e in effects))
        self.pes = {e.pe for e in effects if e.pe is not None}

    def shares_pe(self, pe: str | None) -> bool:
        return pe is not None and pe in self.pes


class Plan:
    """The events after ``conf.now`` and the operations of the pass on them. ``free``,
    ``pe_used``, the view and the quotas are the pass's own (changed and restored)."""

    def __init__(self, conf: ReserveConf, jobs: Mapping[int, PlacementJob],
                 free: dict[SlotKey, int], view: ResourceView | None,
                 quotas: QuotaContext | None, pe_used: dict[str, int]) -> None:
        self.conf, self.now = conf, conf.now
        self.jobs, self.free, self.view, self.quotas = jobs, free, view, quotas
        self.pe_used = pe_used
        self.events: list[Event] = []
        self.acquisitions: list[Acquisition] = []
        self.reservations: list[Reservation] = []
        self._keys: list[tuple[float, int, int]] = []  # the events' keys, in order
        self._seq = 0
        self._by_key: dict[SlotKey, list[Event]] | None = None
        self._acquired: set[SlotKey] = set()  # the instances acquisitions take slots of
        self._requests: dict[Any, list[Any]] = {}
        # running ARs: what each holds now for its unused slots (ar, unused, effect)
        self.ar_held: dict[int, tuple[AdvanceReservation, list[Any], Effect]] = {}
        self._windows: dict[tuple[float, float], _Window] = {}

    # ------------------------------------------------------------------ building

    def effect(self, job: PlacementJob, granted: Granted, pe: str | None,
               quotas: bool = True) -> Effect:
        view = self.view
        changes: list[Change] = []
        if view is not None:
            asked = job.requests_key[1]  # (the hard -l list: parsed once per list, not
            requests = self._requests.get(asked)  # for each of thousands of events)
            if requests is None:
                requests = self._requests[asked] = \
                    job_requests(job.hard_resources, view.attrs) or []
            changes = debits(view, requests, granted)
        counted = self.quotas.grant_charges(job, granted, pe) \
            if quotas and self.quotas is not None else []
        slots = [((str(q), str(h)), int(s)) for q, h, s in granted]
        return Effect(slots, changes, counted, pe, sum(s for _, s in slots))

    def _event(self, time: float, sign: int, granted: Granted,
               make: Callable[[], Effect]) -> Event:
        self._seq += 1
        event = Event(time, sign, tuple(((q, h), s) for q, h, s in granted), make,
                      self._seq)
        index = bisect.bisect(self._keys, event.key)
        self._keys.insert(index, event.key)
        self.events.insert(index, event)
        if self._by_key is not None:
            for key in {k for k, _ in event.slots}:
                bisect.insort(self._by_key.setdefault(key, []), event, key=_event_key)
        # the windows' answers depend only on the instances acquisitions touch: a new
        # acquisition changes them all, a release only the caps of its instances
        if sign == ACQUIRE:
            self._windows.clear()
        else:
            touched = {k for k, _ in event.slots if k in self._acquired}
            for (t0, end), window in self._windows.items():
                for key in touched & window.keys:
                    cap = self._cap(key, t0, end)
                    if cap < 0:
                        window.caps[key] = cap
                    else:
                        window.caps.pop(key, None)
        return event

    def add_holds(self, holds: Iterable[Hold], inside_ars: set[int]) -> None:
        """Running tasks give their resources back at their planned ends; tasks of jobs
        in an advance reservation give them back with the reservation (``inside_ars``:
        their job ids)."""
        for hold in holds:
            job = self.jobs.get(hold.job_id)
            if job is None or math.isinf(hold.end) or hold.job_id in inside_ars:
                continue
            self._seq += 1
            self.events.append(Event(hold.end, RELEASE,
                                     tuple(((q, h), n) for q, h, n in hold.granted),
                                     _maker(self, job, hold.granted, hold.pe), self._seq))
        self.events.sort(key=_event_key)
        self._keys = [e.key for e in self.events]
        self._by_key = None
        self._windows.clear()

    def add_dispatch(self, job: PlacementJob, granted: Granted, pe: str | None) -> None:
        """A task this pass dispatches: released at its planned end."""
        end = planned_end(job, self.now, self.conf)
        if not math.isinf(end):
            self._event(end, RELEASE, granted, _maker(self, job, granted, pe))

    def add_acquisition(self, job: PlacementJob, start: float, end: float,
                        granted: Granted, pe: str | None, quotas: bool = True) -> None:
        """A future hold: taken at ``start``, given back at ``end``."""
        make = _maker(self, job, granted, pe, quotas)
        self._acquired.update((str(q), str(h)) for q, h, _ in granted)
        event = self._event(start, ACQUIRE, granted, make)
        self.acquisitions.append(Acquisition(start, end, event))
        self.acquisitions.sort(key=lambda a: a.event.key)
        if not math.isinf(end):
            self._event(end, RELEASE, granted, lambda: event.effect)  # worked out once

    def add_ar(self, ar: AdvanceReservation, unused: Granted) -> None:
        """An advance reservation: one that has started holds ``unused`` (its slots its
        jobs do not use) now, and everything at its end; a future one is an
        acquisition. Its jobs' own tasks are released with it."""
        job = ar.as_job()
        if ar.start <= self.now:
            if unused:
                effect = self.effect(job, unused, ar.pe, quotas=False)
                self.apply(effect, ACQUIRE)
                self.ar_held[ar.ar_id] = (ar, list(unused), effect)
            if not math.isinf(ar.end):
                self._event(ar.end, RELEASE, ar.granted,
                            _maker(self, job, ar.granted, ar.pe, quotas=False))
            return
        self.add_acquisition(job, ar.start, ar.end, ar.granted, ar.pe, quotas=False)

    def open_ar(self, ar_id: int) -> None:
        """Before a job of a running AR is placed: what the AR holds for its unused slots
        (consumables, PE slots) is its jobs' to take; its slots are apart already."""
        held = self.ar_held.get(ar_id)
        if held is not None:
            self.apply(held[2], RELEASE, slots=False)

    def close_ar(self, ar_id: int, granted: Granted | None) -> None:
        """After it: the AR holds its unused slots' share again, less what the job got."""
        held = self.ar_held.get(ar_id)
        if held is None:
            return
        ar, unused, effect = held
        if granted:
            taken: dict[SlotKey, int] = {}
            for queue, host, slots in granted:
                taken[(queue, host)] = taken.get((queue, host), 0) + int(slots)
            unused = [(q, h, n - taken.get((q, h), 0)) for q, h, n in unused
                      if n > taken.get((q, h), 0)]
            effect = self.effect(ar.as_job(), unused, ar.pe, quotas=False)
            self.ar_held[ar_id] = (ar, unused, effect)
        self.apply(effect, ACQUIRE, slots=False)

    # ------------------------------------------------------------------ state

    def apply(self, effect: Effect, sign: int, slots: bool = True, rest: bool = True
              ) -> None:
        """RELEASE (1) gives the effect back to the pass's state, ACQUIRE (-1) takes it."""
        if slots:
            self.apply_slots(effect.slots, sign)
        if rest:
            if self.view is not None and effect.changes:
                apply(self.view, effect.changes, -sign)
            if self.quotas is not None and effect.counted:
                self.quotas.count(effect.counted, -sign)
            if effect.pe is not None:
                self.pe_used[effect.pe] = self.pe_used.get(effect.pe, 0) - sign * effect.total

    def apply_slots(self, slots: Iterable[tuple[SlotKey, int]], sign: int) -> None:
        free = self.free
        for key, count in slots:
            if key in free:
                free[key] += sign * count

    def first_after(self, t0: float) -> int:
        """The index of the first event after ``t0``."""
        return bisect.bisect(self._keys, (t0, 2, 0))

    def _events_of(self, key: SlotKey) -> list[Event]:
        if self._by_key is None:
            by_key: dict[SlotKey, list[Event]] = {}
            for event in self.events:
                for k, _ in event.slots:
                    by_key.setdefault(k, []).append(event)
            self._by_key = by_key
        return self._by_key.get(key, [])

    # ------------------------------------------------------------------ backfill checks

    def window(self, t0: float, end: float) -> "_Window":
        """What the acquisitions starting inside ``(t0, end)`` ask of a job holding
        resources over that window (kept until an event changes the answer)."""
        found = self._windows.get((t0, end))
        if found is None:
            inside = [a for a in self.acquisitions if t0 < a.start < end]
            found = self._windows[(t0, end)] = _Window(
                inside, self._slot_caps(inside, t0, end) if inside else {})
        return found

    def slot_caps(self, t0: float, end: float) -> dict[SlotKey, int]:
        """For a job holding slots over ``[t0, end)`` with the pass's state at ``t0``:
        per queue instance an acquisition in the window touches, how much less than its
        free slots now it may take (0 or negative), so that each acquisition still finds
        what it takes when it starts."""
        return self.window(t0, end).caps

    def _slot_caps(self, inside: list[Acquisition], t0: float, end: float
                   ) -> dict[SlotKey, int]:
        caps: dict[SlotKey, int] = {}
        for key in {k for a in inside for k, _ in a.event.slots}:
            cap = self._cap(key, t0, end)
            if cap < 0:
                caps[key] = cap
        return caps

    def _cap(self, key: SlotKey, t0: float, end: float) -> int:
        """The lowest level (0 or below) the events after ``t0`` take instance ``key``
        to at an acquisition's start before ``end``."""
        level = lowest = 0
        events = self._events_of(key)
        for index in range(bisect.bisect(events, (t0, 2, 0), key=_event_key), len(events)):
            event = events[index]
            if event.time >= end:
                break
            level += event.sign * event.slots_at(key)
            if event.sign == ACQUIRE:
                lowest = min(lowest, level)
        return lowest

    def conflicts(self, job: PlacementJob, granted: Granted, pe: str | None, t0: float,
                  end: float) -> bool:
        """Whether a grant just debited from the state at ``t0`` would, over ``[t0,
        end)``, take a consumable, quota or PE slots that an acquisition starting in the
        window needs (slots are ``slot_caps``' part). The grant stays debited."""
        window = self.window(t0, end)
        if not window.inside or not (window.shares_pe(pe) or window.view_keys or
                                     window.quota_keys):
            return False  # (what the grant takes is never worked out in the usual case)
        own = self.effect(job, granted, pe)
        view_keys, quota_keys = own.view_keys(), own.quota_keys()
        touching = [a for a in window.inside
                    if (view_keys and view_keys & a.event.effect.view_keys())
                    or (quota_keys and quota_keys & a.event.effect.quota_keys())
                    or (pe is not None and a.event.effect.pe == pe)]
        if not touching:
            return False
        starts = sorted({a.start for a in touching})
        walk = Walk(self, t0)
        self.apply(own, RELEASE)  # each start is asked whether the grant fits there
        try:
            for start in starts:
                walk.advance(start)
                walk.flush()
                if not self._fits(job, granted, pe):
                    return True
            return False
        finally:
            walk.undo()
            self.apply(own, ACQUIRE)

    def _fits(self, job: PlacementJob, granted: Granted, pe: str | None) -> bool:
        for key, count in ((( str(q), str(h)), int(s)) for q, h, s in granted):
            if self.free.get(key, 0) < count:
                return False
        view = self.view
        if view is not None:
            requests = job_requests(job.hard_resources, view.attrs)
            if requests is None or check_grant(view, requests, granted,
                                               consumables_only=True) is not None:
                return False
        if self.quotas is not None and self.quotas.refusal_of_grant(job, granted, pe):
            return False
        return True

    # ------------------------------------------------------------------ reservations

    def earliest(self, job: PlacementJob, task_id: int, place: Placer,
                 candidates: Sequence[SlotKey], need: int, per_host: bool
                 ) -> Reservation | None:
        """The first time after now at which ``place`` finds room for the job over its
        whole window, as a reservation (not yet booked: :meth:`book`), or None (no end
        in sight). ``candidates``: the queue instances it may use; ``need``: the fewest
        slots it can start with, on one host when ``per_host`` (serial, ``$pe_slots``).
        A placement is tried only when the slots could suffice: at a release on a
        candidate that makes them suffice, or at every release once they suffice and
        something else (a consumable, a quota) held the job back. After a try that
        later acquisitions in its window made fail, the next waits until the events
        passed since could have made up the slots that were missing (each slot an event
        gives back or an acquisition's start takes out of a window is counted)."""
        hosts: dict[str, int] = {}
        wanted = set(candidates)
        for key in wanted:
            hosts[key[1]] = hosts.get(key[1], 0) + max(self.free.get(key, 0), 0)
        total = sum(hosts.values())
        roomy = sum(n >= need for n in hosts.values())  # hosts with ``need`` slots

        def enough() -> bool:
            return roomy > 0 if per_host else total >= need
        held_otherwise = enough()  # slots suffice now: something else keeps it waiting
        missing = gained = 0  # slots the last try lacked in its window; made up since
        walk = Walk(self, self.now)
        try:
            for time, events in walk.steps():
                touched = False
                for event in events:
                    for key, count in event.slots:
                        if key in wanted:
                            touched = True
                            gained += count
                            before = hosts[key[1]]
                            hosts[key[1]] = after = before + event.sign * count
                            total += event.sign * count
                            roomy += (after >= need) - (before >= need)
                released = any(e.sign == RELEASE for e in events)
                if not released or not enough() or not (touched or held_otherwise) \
                        or gained < missing:
                    continue
                walk.flush()
                end = planned_end(job, time, self.conf)
                placed = place(time, end)
                if placed is None:
                    held_otherwise = True
                    missing, gained = self._missing(wanted, time, end, need), 0
                    continue
                granted, pe = placed
                self.apply(self.effect(job, granted, pe), RELEASE)  # (only a trial)
                return Reservation(job.job_id, task_id, time, end,
                                   tuple((str(q), str(h), int(s)) for q, h, s in granted),
                                   pe)
            return None
        finally:
            walk.undo()
            for key in [k for k in self._windows if k[0] != self.now]:
                del self._windows[key]  # (a search's windows: nobody asks them again)

    def _missing(self, wanted: set[SlotKey], t0: float, end: float, need: int) -> int:
        """How many slots the candidates lack over ``[t0, end)`` (the state at ``t0``
        less what acquisitions in the window take), 0 when they would do."""
        caps = self.slot_caps(t0, end)
        free = self.free
        room = sum(max(0, free.get(key, 0) + caps.get(key, 0)) for key in wanted)
        return max(0, need - room)

    def book(self, reservation: Reservation) -> None:
        """Count a reservation: what it needs is taken from its start to its end."""
        job = self.jobs[reservation.job_id]
        self.add_acquisition(job, reservation.start, reservation.end, reservation.granted,
                             reservation.pe)
        self.reservations.append(reservation)


def _event_key(event: Event) -> tuple[float, int, int]:
    return event.key


def _maker(plan: Plan, job: PlacementJob, granted: Granted, pe: str | None,
           quotas: bool = True) -> Callable[[], Effect]:
    return lambda: plan.effect(job, granted, pe, quotas)


class Walk:
    """The pass's state moved forward in time by the events after ``t0``, and restored by
    :meth:`undo`. :meth:`advance` only passes events; :meth:`flush` applies the events
    passed so far (a search passes thousands and applies them only when it tries)."""

    def __init__(self, plan: Plan, t0: float) -> None:
        self.plan = plan
        self.events = plan.events  # (no event is added while a walk is out)
        self.start = self.index = plan.first_after(t0)
        self.flushed = self.start  # events before this index are applied

    def advance(self, until: float) -> list[Event]:
        """Pass the events up to and including ``until``."""
        events, first = self.events, self.index
        index = first
        while index < len(events) and events[index].time <= until:
            index += 1
        self.index = index
        return events[first:index]

    def steps(self) -> Iterable[tuple[float, list[Event]]]:
        """Each instant with events, with them (passed, not applied)."""
        while self.index < len(self.events):
            time = self.events[self.index].time
            yield time, self.advance(time)

    def flush(self) -> None:
        self._apply(self.flushed, self.index, 1)
        self.flushed = self.index

    def undo(self) -> None:
        self._apply(self.start, self.flushed, -1)
        self.flushed = self.index = self.start

    def _apply(self, first: int, last: int, direction: int) -> None:
        """Apply (``direction`` 1, in order) or undo (-1, backwards) events
        ``first``..``last``; slots inline, the rest only for events that have any."""
        plan, free, events = self.plan, self.plan.free, self.events
        indexes = range(first, last) if direction > 0 else range(last - 1, first - 1, -1)
        for index in indexes:
            event = events[index]
            effect, sign = event.effect, event.sign * direction
            for key, count in effect.slots:
                if key in free:
                    free[key] += sign * count
            if effect.changes or effect.counted or effect.pe is not None:
                plan.apply(effect, sign, slots=False)

