"""Why a pending job does not run: the "scheduling info" lines of ``qstat -j``.

Pure: the job's options, the queue instances, the resource view and the slots in use
go in; Grid Engine's reason lines come out, one per queue instance that cannot take the
job, identical lines given once (as Grid Engine does). The lines are worked out when
someone asks, from the same data and rules the dispatch pass uses, so the pass itself
stays free of bookkeeping for explanations.
"""
from __future__ import annotations

from typing import Any, Callable

from common.cluster import QueueInstance
from common.resource.matching import match_job
from common.resource.complexes import format_request_list
from common.placement.caps import USER_LIMIT_REASON, Caps
from common.placement.dispatch import PassInput, can_run, queue_matches
from common.placement.job import PlacementJob
from common.placement.pass_conf import GLOBAL_HOST, Access, matching_pes, pes_at
from common.placement.resources import ResourceView, job_requests, relevant_attrs


def pending_reasons(job: PlacementJob, inp: PassInput, *, verify: bool = False
                    ) -> list[str]:
    """Reason lines for a pending job in the cluster the pass would see as ``inp`` (its
    instances, resources, usage and access lists). ``verify``: worded as ``qsub -w v/p``
    words them (a full queue instance is a slots request it does not meet)."""
    view = inp.resources
    assert view is not None, "reasons need the resource view"
    requests = job_requests(job.hard_resources, view.attrs)
    if requests is None:
        return ["job requests resources unknown to the complex list"]
    lines: list[str] = []
    for qi in inp.instances:
        line = _access_reason(job, qi, inp) or _reason(job, qi, inp, view, requests, verify)
        if line and line not in lines:
            lines.append(line)
    return lines + _pe_reasons(job, inp)


def _reason(job: PlacementJob, qi: QueueInstance, inp: PassInput, view: ResourceView,
            requests: list[Any], verify: bool) -> str:
    """Why ``qi`` does not take one slot of the job (a parallel job's whole grant is
    ``_pe_reasons``'s), or ""."""
    name = f"{qi.queue}@{qi.host}"
    if not qi.alive or set(qi.states) & set("ECS"):  # 8.1.9 words C and S so too
        return f'queue instance "{name}" dropped because it is temporarily not available'
    if "d" in qi.states or "D" in qi.states:
        return f'queue instance "{name}" dropped because it is disabled'
    if "s" in qi.states:
        return f'queue instance "{name}" dropped because it is suspended'
    overloaded = inp.overloaded.get((qi.queue, qi.host))
    if overloaded:
        return overloaded
    queues = job.hard_queues
    if queues and not any(queue_matches(ref, qi, inp.host_groups) for ref in queues):
        return (f'cannot run in queue instance "{name}" because it is not contained in its '
                "hard queue list (-q)")
    if not qi.takes(job.interactive):  # (8.1.9's words, queue or queue instance)
        return (f'cannot run in queue "{name}" because it is not of type interactive'
                if job.interactive else
                f'cannot run in queue instance "{name}" because it is not of type batch')
    if job.checkpoint is not None and not qi.takes_checkpointing(job.checkpoint):
        return f'cannot run in queue instance "{name}" because it is not of type checkpointing'
    pe = job.pe
    offered = matching_pes(pe[0], pes_at(inp.pe_of_queue, qi.queue, qi.host)) if pe else []
    if pe and not offered:
        return f'cannot run in queue "{name}" because PE "{pe[0]}" is not in pe list'
    result = match_job(requests, relevant_attrs(view.attrs, requests),
                       view.levels(qi.queue, qi.host), slots=1)
    if not result.ok:
        return result.reason
    free = qi.slots - inp.used.get((qi.queue, qi.host), 0)
    if not pe and free < 1:
        if verify:
            return (f"(-l {format_request_list(requests)}) cannot run in queue \"{name}\" "
                    f"because it offers only qc:slots={max(free, 0):f}")
        return f'queue instance "{name}" dropped because it is full'
    if inp.quotas is None:
        return ""
    # one slot, of a parallel job too: 8.1.9 names a quota only when not even that fits
    return inp.quotas.refusal_reason(job, qi.queue, qi.host, 1, offered[0] if pe else None)


def _access_reason(job: PlacementJob, qi: QueueInstance, inp: PassInput) -> str:
    access = inp.access
    if access is None or not access.restricted:
        return ""
    user, group = job.owner, job.group
    if not access.global_allows(user, group):
        return 'has no permission for host "global"'
    if not access.host_allows(user, group, qi.host):
        return f'has no permission for host "{qi.host}"'
    if not access.queue_allows(user, group, qi.queue, qi.host):
        return f'has no permission for cluster queue "{qi.queue}"'
    return _project_reason(job.project, qi, access)


def _project_reason(project: str | None, qi: QueueInstance, access: Access) -> str:
    """8.1.9's words for a project the global host, exec host or cluster queue does not
    admit (``projects``) or excludes (``xprojects``). 8.1.9 writes "(no project)" in
    every cluster queue line and, in ``qstat -j``, one job's project for all jobs alike
    in other respects; here each line names the job's own project
    (docs/compatibility.md)."""
    who = f"(project {project})" if project else "(no project)"
    for host in (GLOBAL_HOST, qi.host):
        if not access.host_project_allows(project, host):
            return _project_words(who, access.host_excludes(project, host),
                                  f'host "{host}"')
    if not access.queue_project_allows(project, qi.queue, qi.host):
        return _project_words(who, access.queue_excludes(project, qi.queue, qi.host),
                              f'cluster queue "{qi.queue}"')
    return ""


def _project_words(who: str, excluded: bool, where: str) -> str:
    if excluded:
        return f"{who} is not allowed to run in {where} based on the excluded project list"
    return f"{who} does not have the correct project to run in {where}"


def _pe_reasons(job: PlacementJob, inp: PassInput) -> list[str]:
    """For each PE matching ``-pe``: no access to it, and that it cannot offer the
    slots (Grid Engine then says it offers 0)."""
    if job.pe is None:
        return []
    lines = []
    for name in matching_pes(job.pe[0], inp.pes):
        denied = inp.access is not None and not inp.access.pe_allows(job.owner, job.group,
                                                                     name)
        if denied:
            lines.append(f'cannot run because no access to PE "{name}"')
        if denied or not can_run(job.with_pe(name), inp):
            lines.append(f'cannot run in PE "{name}" because it only offers 0 slots')
    return lines


def with_cap_reasons(job: PlacementJob, caps: Caps, unenrolled: int, enrolled_pending: bool,
                     placement: Callable[[], list[str]]) -> list[str]:
    """A pending job's lines with the caps' (``common.placement.caps``), as 8.1.9 words
    them: a user at maxujobs has all jobs dropped before any placement ("job dropped
    because of user limitations", alone, twice as 8.1.9 prints it); a job whose
    unenrolled pending ids the instance limit (max_aj_instances, -tc) holds back gets
    "not all array tasks may be started due to 'max_aj_instances'" after the placement
    lines of what may still start (none when nothing may). ``unenrolled``: its pending
    ids not enrolled yet; ``enrolled_pending``: whether it has enrolled pending tasks
    (these may start); ``placement``: the placement lines (worked out only when
    needed)."""
    capped = caps.reasons(job, unenrolled)
    if USER_LIMIT_REASON in capped:
        return capped
    if capped and caps.room(job) == 0 and not enrolled_pending:
        return capped
    return placement() + capped
