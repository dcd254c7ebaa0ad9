"""Why a pending job waits for a reservation (``qstat -j``): 8.1.9's scheduling info line
for a job that a free slot would take now but that would hold it into a reservation's
window (tests/data/reference/reservation/bf-qstat-j-*-free.out)::

    (-l h_rt=1800) cannot run in queue "all.q@vm" because it offers only qc:slots=0.000000 due to a reservation

Pure: the pass's input (with its planning, ``PassInput.reserve`` and ``holds``) and the
reservations a pass found (``PassStats.reservations``) in, lines out. 8.1.9 prints nothing
about the reservation of the reserving job itself.
"""
from __future__ import annotations

from typing import Sequence

from common.placement.dispatch import PassInput
from common.placement.job import PlacementJob
from common.placement.plan import Plan
from common.placement.resources import job_requests
from common.placement.timeline import Reservation, planned_end
from common.resource.complexes import format_request_list


def reservation_reasons(job: PlacementJob, inp: PassInput,
                        reservations: Sequence[Reservation]) -> list[str]:
    """One line per queue instance that has a free slot now which ``job``, running from
    now to its planned end, would take from a reservation (none without planning, or for
    the reserving jobs themselves)."""
    conf = inp.reserve
    if conf is None or inp.resources is None or not reservations or \
            any(found.job_id == job.job_id for found in reservations):
        return []
    requests = job_requests(job.hard_resources, inp.resources.attrs)
    if requests is None:
        return []
    free = {(qi.queue, qi.host): qi.slots - inp.used.get((qi.queue, qi.host), 0)
            for qi in inp.instances}
    plan = Plan(conf, inp.jobs, dict(free), inp.resources, inp.quotas, dict(inp.pe_used))
    plan.add_holds(inp.holds, set())
    for found in reservations:
        if found.job_id in inp.jobs:
            plan.book(found)
    caps = plan.slot_caps(conf.now, planned_end(job, conf.now, conf))
    asked = format_request_list(requests)
    lines = []
    for qi in inp.instances:
        key = (qi.queue, qi.host)
        offered = free[key] + caps.get(key, 0)
        if free[key] > 0 and key in caps and offered < 1:
            lines.append(f'(-l {asked}) cannot run in queue "{qi.queue}@{qi.host}" because '
                         f"it offers only qc:slots={max(offered, 0):f} due to a reservation")
    return lines
