"""Why a pending job does not run: the "scheduling info" lines of ``qstat -j``.

Pure: the job's options, the queue instances, the resource view and the slots in use
go in; Grid Engine's reason lines come out, one per queue instance that cannot take the
job, identical lines given once (as Grid Engine does). The lines are worked out when
someone asks, from the same data and rules the dispatch pass uses, so the pass itself
stays free of bookkeeping for explanations.
"""
from __future__ import annotations

import fnmatch
from typing import Any, Mapping

from common.cluster import QueueInstance
from common.resource.matching import match_job
from scheduler.dispatch import PassInput, queue_matches
from scheduler.resources import ResourceView, job_requests, relevant_attrs


def pending_reasons(job: Mapping[str, Any], inp: PassInput) -> list[str]:
    """Reason lines for a pending job (``opts``, a qsub SubmitOptions dict, ``owner`` and
    ``group``) in the cluster the pass would see as ``inp`` (its instances, resources,
    usage and access lists)."""
    opts = job.get("opts") or {}
    if not _may_use_some_pe(job, opts, inp):
        return [f'cannot run because no access to pe "{opts["pe"][0]}"']
    view = inp.resources
    assert view is not None, "reasons need the resource view"
    requests = job_requests(opts, view.attrs)
    if requests is None:
        return ["job requests resources unknown to the complex list"]
    slots = _slots(opts)
    lines: list[str] = []
    for qi in inp.instances:
        line = _access_reason(job, qi, inp) or _reason(opts, qi, inp, view, requests, slots)
        if line and line not in lines:
            lines.append(line)
    return lines


def _reason(opts: Mapping[str, Any], qi: QueueInstance, inp: PassInput, view: ResourceView,
            requests: list[Any], slots: int) -> str:
    name = f"{qi.queue}@{qi.host}"
    if not qi.alive:
        return f'queue instance "{name}" dropped because it is temporarily not available'
    queues = opts.get("hard_queues") or []
    if queues and not any(queue_matches(ref, qi, inp.host_groups) for ref in queues):
        return (f'cannot run in queue instance "{name}" because it is not contained in its '
                "hard queue list (-q)")
    pe = opts.get("pe")
    if pe and not any(fnmatch.fnmatchcase(p, str(pe[0]))
                      for p in inp.pe_of_queue.get(qi.queue, ())):
        return f'cannot run in queue "{name}" because PE "{pe[0]}" is not in pe list'
    result = match_job(requests, relevant_attrs(view.attrs, requests),
                       view.levels(qi.queue, qi.host), slots=1 if pe else slots)
    if not result.ok:
        return result.reason
    if not pe and inp.used.get((qi.queue, qi.host), 0) + slots > qi.slots:
        return f'queue instance "{name}" dropped because it is full'
    return ""


def _access_reason(job: Mapping[str, Any], qi: QueueInstance, inp: PassInput) -> str:
    access = inp.access
    if access is None or not access.restricted:
        return ""
    user, group = str(job.get("owner") or ""), str(job.get("group") or "")
    if not access.host_allows(user, group, qi.host):
        return f'has no permission for host "{qi.host}"'
    if not access.queue_allows(user, group, qi.queue, qi.host):
        return f'has no permission for cluster queue "{qi.queue}"'
    return ""


def _may_use_some_pe(job: Mapping[str, Any], opts: Mapping[str, Any], inp: PassInput
                     ) -> bool:
    """False when PEs match the job's ``-pe`` but its owner may use none of them."""
    pe, access = opts.get("pe"), inp.access
    if not pe or access is None:
        return True
    names = [n for n in inp.pes if fnmatch.fnmatchcase(n, str(pe[0]))]
    user, group = str(job.get("owner") or ""), str(job.get("group") or "")
    return not names or any(access.pe_allows(user, group, n) for n in names)


def _slots(opts: Mapping[str, Any]) -> int:
    pe = opts.get("pe")
    return max(1, int(pe[1])) if pe else 1
