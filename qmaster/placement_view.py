"""The qmaster's bookkeeping as the placement library's input: the one adapter from the
store to ``common.placement.inputs.pass_input``, used by the order checks, ``qsub -w`` and
``qstat -j`` reasons and the ``-F`` displays."""
from __future__ import annotations

import time
from dataclasses import replace

from common.cluster import QueueInstance, attr, queue_instances
from common.conf_values import seconds_or
from common.placement.load_alarm import Check
from common.model import Job
from common.placement.dispatch import PassInput
from common.placement.inputs import host_loads, pass_input, queue_thresholds
from common.placement.resources import load_view
from common.placement.job import PlacementJob, placement_job
from qmaster.store import Store


def as_placement_job(job: Job) -> PlacementJob:
    """A stored job (its options checked by ``common.jobspec``) for placement."""
    return placement_job({"job_id": job.job_id, "owner": job.owner, "group": job.group,
                          "opts": job.opts})


def store_pass_input(store: Store, *, occupied: bool = True) -> PassInput:
    """The pass's view of the store. ``occupied`` False: the empty cluster of ``qsub -w
    e/w/v`` (no slot or consumable in use, every host up, no queue instance disabled,
    suspended or in error)."""
    active = [t.to_dict() for t in store.active_tasks() if t.job_id in store.jobs] \
        if occupied else []
    jobs = {t["job_id"]: as_placement_job(store.jobs[t["job_id"]]) for t in active}
    # the cluster as it is knows its disabled, suspended and erroneous queue instances
    instances = queue_instances(store.conf, store.hosts, store.qi_states) if occupied \
        else None
    inp = pass_input(store.conf, store.hosts, jobs, active,
                     used=store.used_slots if occupied else None, instances=instances,
                     now=time.time() if occupied else None)
    if not occupied:  # the empty cluster counts every host as up, and carries no load
        inp.instances = [replace(qi, alive=True) for qi in inp.instances]
        inp.overloaded, inp.host_loads = {}, None
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
