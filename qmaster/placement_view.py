"""The qmaster's bookkeeping as the placement library's input: the one adapter from the
store to ``common.placement.inputs.pass_input``, used by the order checks, ``qsub -w`` and
``qstat -j`` reasons and the ``-F`` displays."""
from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any, Iterable

from common.cluster import QueueInstance, attr, queue_instances
from common.conf_values import seconds_or
from common.placement.load_alarm import Check
from common.model import Job
from common.jobstate import State
from common.placement.caps import Caps
from common.placement.dispatch import PassInput
from common.placement.inputs import host_loads, pass_input, queue_thresholds
from common.placement.pass_conf import conf_fields
from common.placement.resources import LevelKey, complex_list, fixed_levels, load_view
from common.placement.job import PlacementJob, placement_job
from common.placement.timeline import AdvanceReservation
from qmaster.store import Store


def as_placement_job(job: Job) -> PlacementJob:
    """A stored job (its options checked by ``common.jobspec``) for placement."""
    return placement_job({"job_id": job.job_id, "owner": job.owner, "group": job.group,
                          "opts": job.opts})


@dataclass
class _Layout:
    """What the store's layout gives the pass input, kept while it stays the same."""

    store: Store
    generation: int
    instances: list[QueueInstance]
    fixed: dict[LevelKey, dict[str, str]]
    fields: dict[str, Any]
    thresholds: dict[tuple[str, str], Any]


_layout: _Layout | None = None


def instances_of(store: Store) -> list[QueueInstance]:
    """The store's queue instances with their qmod states, as long as its
    ``layout_generation`` stays (a list the caller must not change)."""
    return _current_layout(store).instances


def _current_layout(store: Store) -> _Layout:
    global _layout
    if _layout is None or _layout.store is not store or \
            _layout.generation != store.layout_generation:
        instances = queue_instances(store.conf, store.hosts, store.qi_states)
        _layout = _Layout(store, store.layout_generation, instances,
                          fixed_levels(store.conf, instances, complex_list(store.conf)),
                          conf_fields(store.conf), queue_thresholds(store.conf, instances))
    return _layout


def store_pass_input(store: Store, *, occupied: bool = True) -> PassInput:
    """The pass's view of the store. ``occupied`` False: the empty cluster of ``qsub -w
    e/w/v`` (no slot or consumable in use, every host up, no queue instance disabled,
    suspended or in error). The queue instances, their fixed resource levels and
    thresholds are kept between calls until the store's layout changes."""
    active = [t.to_dict() for t in store.active_tasks() if t.job_id in store.jobs] \
        if occupied else []
    jobs = {t["job_id"]: as_placement_job(store.jobs[t["job_id"]]) for t in active}
    if occupied:  # the cluster as it is knows its disabled, suspended, erroneous instances
        layout = _current_layout(store)
        inp = pass_input(store.conf, store.hosts, jobs, active, used=store.used_slots,
                         instances=list(layout.instances), fixed=layout.fixed,
                         fields=layout.fields, thresholds=layout.thresholds,
                         now=time.time())
    else:
        inp = pass_input(store.conf, store.hosts, jobs, active)
    if not occupied:  # the empty cluster counts every host as up, and carries no load
        inp.instances = [replace(qi, alive=True) for qi in inp.instances]
        inp.overloaded, inp.host_loads = {}, None
    else:  # the advance reservations not ending hold their slots (qmaster.ar)
        inp.ars = [AdvanceReservation.from_record(r) for r in store.ar_records()]
    return inp


def instance_alarms(store: Store, instances: list[QueueInstance]
                    ) -> dict[tuple[str, str], tuple[list[Check], list[Check]]]:
    """Each instance's load and suspend threshold checks (qstat's ``a``/``A`` and
    ``-explain a/A``), with the load adjustments of recent dispatches."""
    view = load_view(store.conf, store.hosts)
    now = time.time()
    sconf = (store.conf.get("sconf") or {}).get("global") or []
    decay = seconds_or(attr(sconf, "load_adjustment_decay_time", "0:7:30"), 450.0)
    # only the dispatches whose adjustment has not decayed yet count
    recent = [{"dispatch_time": t.dispatch_time, "granted": t.granted}
              for t in store.active_tasks()
              if t.dispatch_time is not None and now - t.dispatch_time < decay]
    loads = host_loads(store.conf, store.hosts, view, recent, now)
    return {key: (loads.checks(key[1], found.load), loads.checks(key[1], found.suspend))
            for key, found in queue_thresholds(store.conf, instances).items()}


def store_caps(store: Store, caps: Caps | None, job_ids: Iterable[Any]) -> Caps:
    """``caps`` of ``store_pass_input`` (the running tasks per owner counted) with the
    instances of the jobs ``job_ids`` counted from their enrolled tasks that have not
    finished (the store keeps finished ones until the job goes)."""
    caps = caps.copy() if caps is not None else Caps()
    for job_id in set(job_ids):
        if type(job_id) is int:
            caps.instances[job_id] = sum(1 for t in store.enrolled.get(job_id, {}).values()
                                         if t.state_enum is not State.FINISHED)
    return caps
