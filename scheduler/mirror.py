"""The scheduler's mirror of the qmaster's store, built from a snapshot and kept by events.

Pure: ``Mirror.from_snapshot``, ``Mirror.add_part`` (the snapshot's further parts) and
``Mirror.apply`` take the dicts the qmaster publishes;
jobs are kept as ``PlacementJob``s (a job record placement cannot read is kept aside in
``unreadable`` and reported); ``Mirror.pass_input`` hands the mirror to
``common.placement.inputs.pass_input``, ``Mirror.policy`` to the scheduling policy
(``common.policy.inputs``), whose order the pass takes the pending jobs in.
"""
from __future__ import annotations

import time

from dataclasses import dataclass, field
from typing import Any, Mapping

from common.cluster import queue_instances
from common.jobstate import ACTIVE_STATES, State
from common.model import CONF_KINDS, ORDERED_KINDS
from common.placement.dispatch import PassInput
from common.placement.inputs import pass_input, placement_jobs, queue_thresholds
from common.placement.job import PlacementJob
from common.placement.pass_conf import conf_fields
from common.placement.resources import LevelKey, complex_list, fixed_levels
from common.placement.timeline import AdvanceReservation
from common.policy import inputs as policy_inputs
from common.policy.model import PolicyResult, UsageTable
from common.policy.usage import (
    Holder, holder_of_key, policy_conf, records_from_wire, usage_table)

# events that can make a pass find something new to do
TRIGGER_KINDS = frozenset({"job", "task", "ranges", "host", "queue", "hgrp", "pe", "exechost", "userset",
                           "complex", "order_refused", "qstate", "rqs",
                           "sconf", "conf",  # maxujobs, max_aj_instances (placement.caps)
                           "ar", "ar_deleted"})  # advance reservations (their slots)


@dataclass
class Mirror:
    epoch: str = ""
    seq: int = 0
    jobs: dict[int, PlacementJob] = field(default_factory=dict)
    unreadable: dict[int, str] = field(default_factory=dict)  # job id -> why
    tasks: dict[str, dict[str, Any]] = field(default_factory=dict)  # enrolled tasks
    ranges: dict[int, dict[str, Any]] = field(default_factory=dict)  # job id -> TaskRanges
    placeable: set[int] = field(default_factory=set)  # jobs with pending ids, no holds
    hosts: dict[str, dict[str, Any]] = field(default_factory=dict)
    conf: dict[str, dict[str, Any]] = field(default_factory=lambda: {k: {} for k in CONF_KINDS})
    pending: set[str] = field(default_factory=set)
    used: dict[tuple[str, str], int] = field(default_factory=dict)
    # "queue@host" -> its qmod states (disabled, error, suspended: no new jobs there)
    qstates: dict[str, dict[str, Any]] = field(default_factory=dict)
    _instances: list[Any] | None = None  # queue instances, rebuilt after conf/host changes
    _fixed: dict[LevelKey, dict[str, str]] | None = None  # resource levels, same lifetime
    _conf_fields: dict[str, Any] | None = None  # PassInput's share of conf, until it changes
    # each instance's load and suspend thresholds, as long as the instances stay
    _thresholds: dict[tuple[str, str], Any] | None = None
    # the policy's view of the jobs, rebuilt job by job as events change them
    _policy_jobs: policy_inputs.PolicyJobCache = field(
        default_factory=policy_inputs.PolicyJobCache)
    # share tree usage as the qmaster books it (event kind "usage"), one record a holder
    usage_records: dict[Holder, Any] = field(default_factory=dict)
    # the advance reservations not yet ended (snapshot key "ars", events "ar" and
    # "ar_deleted"); a record the pass cannot read is kept aside with why
    ars: dict[int, AdvanceReservation] = field(default_factory=dict)
    unreadable_ars: dict[int, str] = field(default_factory=dict)

    @classmethod
    def from_snapshot(cls, snap: dict[str, Any]) -> "Mirror":
        """The mirror from the snapshot's first part (the configuration and the hosts,
        and the first jobs); ``add_part`` takes the others."""
        mirror = cls(epoch=snap["epoch"], seq=int(snap["seq"]))
        mirror.hosts = {h["name"]: h for h in snap["hosts"]}
        for kind in CONF_KINDS:
            mirror.conf[kind] = dict(snap["conf"].get(kind, {}))
        mirror.qstates = dict(snap.get("qstates") or {})
        mirror.usage_records = records_from_wire(snap.get("usage") or [])
        for record in snap.get("ars") or []:
            mirror._put_ar(record)
        mirror.add_part(snap)
        return mirror

    def add_part(self, part: dict[str, Any]) -> None:
        """Jobs, task ranges and enrolled tasks of one snapshot part. Parts after the
        first are taken later; the events since the first part, applied afterwards,
        bring everything to the same point (they carry complete records)."""
        jobs, unreadable = placement_jobs(part["jobs"])
        self.jobs.update(jobs)
        self.unreadable.update(unreadable)
        for rng in part.get("ranges") or []:
            self._put_ranges(rng)
            self._policy_jobs.put_ranges(int(rng["job_id"]), rng)
        for task in part["tasks"]:
            self._put_task(task)
            self._policy_jobs.put_task(int(task["job_id"]), int(task["task_id"]), task)

    def apply(self, event: dict[str, Any]) -> bool:
        """Apply one event; True when it may give the dispatch pass something to do."""
        kind, op, key, obj = event["kind"], event["op"], event["key"], event.get("obj")
        self.seq = int(event["seq"])
        if kind in ("job", "task", "ranges") or kind in self.conf:
            self._policy_jobs.note(kind, op, key, obj)
        if kind == "job":
            self._apply_job(op, key, obj)
        elif kind == "task":
            self._apply_task(op, key, obj)
        elif kind == "ranges":
            if op == "del":
                self._drop_ranges(int(key))
            else:
                self._put_ranges(obj)
        elif kind == "host":
            self._apply_host(key, obj)
        elif kind == "qstate":
            self._instances = None  # the resource levels and thresholds do not depend on states
            if op == "del":
                self.qstates.pop(key, None)
            else:
                self.qstates[key] = obj
        elif kind == "usage":
            self._apply_usage(op, key, obj)
        elif kind == "ar":
            self._put_ar((obj or {}).get("ar"), key)
        elif kind == "ar_deleted":
            self._drop_ar((obj or {}).get("ar_id", key))
        elif kind in self.conf:
            self._instances = self._fixed = self._conf_fields = self._thresholds = None
            if op == "del" or kind in ORDERED_KINDS:  # a changed one goes last
                self.conf[kind].pop(key, None)
            if op != "del":
                self.conf[kind][key] = obj
        return kind in TRIGGER_KINDS

    def _apply_usage(self, op: str, key: str, obj: Any) -> None:
        """One holder's usage record (the key names the holder: qmaster.usage_book)."""
        if op == "del":
            self.usage_records.pop(holder_of_key(key), None)
        else:
            self.usage_records.update(records_from_wire([obj]))

    def usage_at(self, now: float) -> UsageTable:
        """The share tree usage decayed to ``now`` and weighted as the scheduler
        configuration says (common.policy.usage)."""
        return usage_table(self.usage_records, now, policy_conf(self.conf))

    @property
    def usage(self) -> UsageTable:
        """The share tree usage as of the time it is read (the pass's time)."""
        return self.usage_at(time.time())

    def _put_ar(self, record: Any, key: Any = None) -> None:
        """One AR's record (``AdvanceReservation.to_record``); a record of the wrong
        shape drops what the mirror knew of that AR and is reported, never raised."""
        try:
            ar = AdvanceReservation.from_record(record)
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            ar_id = _int_or_zero(record.get("ar_id") if isinstance(record, Mapping)
                                 else key)
            self.ars.pop(ar_id, None)
            self.unreadable_ars[ar_id] = f"{type(exc).__name__}: {exc}"
            return
        self.unreadable_ars.pop(ar.ar_id, None)
        self.ars[ar.ar_id] = ar

    def _drop_ar(self, ar_id: Any) -> None:
        ar_id = _int_or_zero(ar_id)
        self.ars.pop(ar_id, None)
        self.unreadable_ars.pop(ar_id, None)

    def _apply_host(self, key: str, obj: Any) -> None:
        old = self.hosts.get(key)
        if old is None or old.get("alive") != obj.get("alive"):
            self._instances = self._fixed = self._thresholds = None
        self.hosts[key] = obj

    def _apply_job(self, op: str, key: str, obj: Any) -> None:
        job_id = int(key)
        self.jobs.pop(job_id, None)
        self.unreadable.pop(job_id, None)
        if op == "del":
            self._drop_ranges(job_id)
        else:
            jobs, unreadable = placement_jobs([obj])
            self.jobs.update(jobs)
            self.unreadable.update(unreadable)

    def _put_ranges(self, rng: dict[str, Any]) -> None:
        job_id = int(rng["job_id"])
        self.ranges[job_id] = rng
        if rng["pending"] and not rng["holds"]:
            self.placeable.add(job_id)
        else:
            self.placeable.discard(job_id)

    def _drop_ranges(self, job_id: int) -> None:
        self.ranges.pop(job_id, None)
        self.placeable.discard(job_id)

    def has_pending(self) -> bool:
        return bool(self.pending or self.placeable)

    def _apply_task(self, op: str, key: str, obj: Any) -> None:
        if op == "del" or obj["state"] == State.FINISHED:
            self._count(self.tasks.pop(key, None), -1)
            self.pending.discard(key)
        else:
            self._put_task(obj)

    def _count(self, task: dict[str, Any] | None, sign: int) -> None:
        if task is None or State(task["state"]) not in ACTIVE_STATES:
            return
        for queue, host, slots in task["granted"]:
            self.used[(queue, host)] = self.used.get((queue, host), 0) + sign * int(slots)

    def _put_task(self, task: dict[str, Any]) -> None:
        key = f"{task['job_id']}.{task['task_id']}"
        self._count(self.tasks.get(key), -1)
        self._count(task, +1)
        self.tasks[key] = task
        if task["state"] == State.PENDING:
            self.pending.add(key)
        else:
            self.pending.discard(key)

    def instances(self) -> list[Any]:
        if self._instances is None:
            self._instances = queue_instances(self.conf, self.hosts, self.qstates)
        return self._instances

    def free_slots(self, extra_used: dict[tuple[str, str], int]) -> int:
        """Free slots on live hosts in instances that take jobs, counting
        ``extra_used`` (orders in flight)."""
        return sum(max(0, qi.slots - self.used.get((qi.queue, qi.host), 0)
                       - extra_used.get((qi.queue, qi.host), 0))
                   for qi in self.instances() if qi.accepts_jobs and qi.takes_jobs)

    def active_tasks(self) -> list[dict[str, Any]]:
        return [t for t in self.tasks.values()
                if State(t["state"]) in ACTIVE_STATES and t.get("granted")]

    def policy_inputs_jobs(self) -> list[Any]:
        """The ``PolicyJob``s of the mirrored jobs (kept between passes)."""
        return policy_inputs.policy_inputs(self.conf, self.jobs, (), (),
                                           cache=self._policy_jobs).jobs

    def policy(self, now: float, free_slots: int | None = None) -> PolicyResult:
        """The scheduling policy over the mirrored jobs at ``now`` (sge_priority(5));
        ``free_slots``: the cell's free batch slots."""
        inputs = policy_inputs.policy_inputs(self.conf, self.jobs, (), (),
                                             cache=self._policy_jobs)
        return policy_inputs.evaluate(inputs, self.usage_at(now), now, free_slots)

    def pass_input(self, exclude: set[str] | frozenset[str] = frozenset(),
                   inflight: Mapping[str, tuple[list[list[Any]], str | None]] | None = None
                   ) -> PassInput:
        """The pass's input; its resource view is fresh (the pass debits into it).
        ``inflight``: task key -> (granted, PE) of orders sent but not yet seen as
        events; their consumables and PE slots count as taken."""
        pending = [self.tasks[k] for k in self.pending if k not in exclude]
        ranges = {j: (self.ranges[j]["pending"], int(self.ranges[j]["version"]))
                  for j in self.placeable}
        instances = self.instances()
        if self._fixed is None:
            self._fixed = fixed_levels(self.conf, instances, complex_list(self.conf))
        active = self.active_tasks()
        active += [{**self.tasks[key], "granted": granted, "granted_pe": pe}
                   for key, (granted, pe) in (inflight or {}).items() if key in self.tasks
                   and State(self.tasks[key]["state"]) not in ACTIVE_STATES]
        # an order in flight for a pending id not enrolled yet: its task holds its grant
        # and is one more instance of its job (common.placement.caps) from now on
        unenrolled = [_inflight_task(key, granted, pe)
                      for key, (granted, pe) in (inflight or {}).items()
                      if key not in self.tasks]
        active += unenrolled
        if self._conf_fields is None:
            self._conf_fields = conf_fields(self.conf)
        if self._thresholds is None:
            self._thresholds = queue_thresholds(self.conf, instances)
        now = time.time()
        return pass_input(self.conf, self.hosts, self.jobs, active, pending=pending,
                          pending_ranges=ranges, exclude=exclude,
                          used=self.used, instances=instances, fixed=self._fixed,
                          fields=self._conf_fields, now=now,
                          thresholds=self._thresholds,
                          enrolled=[*self.tasks.values(), *unenrolled],
                          ars=self.live_ars(now))

    def live_ars(self, now: float) -> list[AdvanceReservation]:
        """The ARs the pass honours at ``now``: those not yet ended."""
        return [ar for ar in self.ars.values() if ar.end > now]


def _int_or_zero(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _inflight_task(key: str, granted: list[list[Any]], pe: str | None) -> dict[str, Any]:
    job_id, _, task_id = key.partition(".")
    return {"job_id": int(job_id), "task_id": int(task_id), "granted": granted,
            "granted_pe": pe}
