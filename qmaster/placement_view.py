"""The qmaster's bookkeeping as the placement library's input: the one adapter from the
store to ``common.placement.inputs.pass_input``, used by the order checks, ``qsub -w`` and
``qstat -j`` reasons and the ``-F`` displays."""
from __future__ import annotations

from dataclasses import replace

from common.cluster import queue_instances
from common.model import Job
from common.placement.dispatch import PassInput
from common.placement.inputs import pass_input
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
                     used=store.used_slots if occupied else None, instances=instances)
    if not occupied:  # the empty cluster counts every host as up
        inp.instances = [replace(qi, alive=True) for qi in inp.instances]
    return inp
