"""Scheduler requests: the snapshot for its mirror (in parts), and the validation of its orders.

The scheduler has no authority. Each dispatch order carries the version of the task it was
computed from; the qmaster accepts it only if the task is still pending at that version,
every granted queue instance still exists on a live host with enough free slots and is
neither disabled, suspended nor in error (``qmod``, ``qmaster.queue_control``), the
queue, host and PE user lists admit the job's owner, the parallel environment named for a ``-pe`` job is one the job asked for, every granted
queue offers it, the grant follows its allocation rule, the slot count is in the job's
range and within the PE's total ``slots``, the grant keeps to the resource quota sets,
and the job's consumables (complex(5)) still fit, and the start keeps to the caps of
``common.placement.caps`` (sched_conf(5) ``maxujobs``, sge_conf(5) ``max_aj_instances``,
``qsub -tc``), all by the qmaster's own bookkeeping (the pure
``common.placement.resources`` model fed with the store). Refusals are published as
``order_refused`` events.
"""
from __future__ import annotations

import fnmatch
from typing import Any

from common.cluster import QueueInstance
from common.jobstate import NOT_SCHEDULED, Event, State
from common.model import Task, task_key
from qmaster.ar.orders import ar_order_refusal
from qmaster.context import Ctx
from qmaster.execd_link import send_start
from qmaster.queue_control import state_refusal
from qmaster.store import Store
from qmaster.placement_view import as_placement_job, store_caps, store_pass_input
from common.placement.caps import Caps
from common.placement.job import PlacementJob
from common.placement.dispatch import queue_matches
from common.placement.pass_conf import Access, PEConf, grant_follows_rule, pes_at
from common.placement.quotas import QuotaContext
from common.placement.resources import ResourceView, apply, check_grant, debits, job_requests


def handle_snapshot(ctx: Ctx) -> dict[str, Any]:
    """One part of the snapshot (``Store.snapshot_part``), with the epoch and the last
    event published before it: a mirror applies the events after the first part's."""
    snap = ctx.store.snapshot_part(ctx.body.get("after"))
    if ctx.body.get("after") is None:  # the first part: share tree usage, one per holder
        snap["usage"] = ctx.services.usage.wire_records()
    snap["epoch"] = ctx.services.epoch
    snap["seq"] = ctx.services.seq
    return snap


def handle_orders(ctx: Ctx) -> dict[str, Any]:
    inp = store_pass_input(ctx.store)  # the store as the pass sees it, once per batch
    instances = {(qi.queue, qi.host): qi for qi in inp.instances}
    view, pe_used = inp.resources, dict(inp.pe_used)
    assert view is not None
    fields = {"pes": inp.pes, "pe_of_queue": inp.pe_of_queue, "host_groups": inp.host_groups,
              "access": inp.access}
    capacity = {key: qi.slots for key, qi in instances.items()}
    accepted, refused = 0, []
    caps = store_caps(ctx.store, inp.caps, (o.get("job_id") for o in ctx.body["orders"]
                                            if isinstance(o, dict)))
    for order in ctx.body["orders"]:
        reason = (_refusal(ctx, order, instances)
                  or _cap_refusal(ctx.store, order, caps)
                  or _request_refusal(ctx.store, order, instances, fields)
                  or _access_refusal(ctx.store, order, fields["access"])
                  or _pe_refusal(ctx.store, order, fields, pe_used)
                  or _quota_refusal(ctx.store, order, inp.quotas)
                  or _resource_refusal(ctx, order, view)
                  or ar_order_refusal(ctx.store, order, capacity, ctx.now))
        if not reason:  # only now: a refused order must not keep PE slots counted
            _debit_pe(order, pe_used)
            caps.started(*_starting(ctx.store, order))
            if inp.quotas is not None:
                inp.quotas.take(as_placement_job(ctx.store.jobs[int(order["job_id"])]),
                                _granted(order), order.get("pe"))
        if reason:
            refused.append({"order": order, "reason": reason})
            ctx.batch.event("order_refused", "put", _order_key(order), {"reason": reason})
            continue
        _dispatch(ctx, order)
        accepted += 1
    ctx.services.refused_orders += len(refused)
    ctx.services.metrics.orders_done(accepted, len(refused))
    if ctx.body.get("pass_seconds") is not None:
        ctx.services.metrics.pass_time.observe(float(ctx.body["pass_seconds"]))
    _refuse_immediate(ctx, ctx.body.get("not_scheduled") or [])
    return {"accepted": accepted, "refused": refused}


def _refuse_immediate(ctx: Ctx, job_ids: list[int]) -> None:
    """Immediate jobs (-now y) the pass could not start: what of them is still pending
    ends, deleted by ``NOT_SCHEDULED`` (after this message's dispatch orders, so that
    a task one of them started keeps running; a job that is no immediate one, or
    whose pending tasks are gone, is left alone)."""
    for job_id in job_ids:
        job = ctx.store.jobs.get(job_id)
        if job is None or not job.opts.get("now"):
            continue
        ctx.store.delete_pending(ctx.batch, job_id, NOT_SCHEDULED)
        for task in ctx.store.enrolled_tasks(job_id):
            if task.state_enum in (State.PENDING, State.HOLD):
                ctx.store.transition(ctx.batch, task, Event.DELETE, deleted_by=NOT_SCHEDULED)


def _cap_refusal(store: Store, order: dict[str, Any], caps: Caps) -> str:
    """The start must keep the job's owner within maxujobs and the job within its
    instance limit (max_aj_instances, -tc), counting the orders accepted before it in
    this batch (``caps.started`` once one is accepted)."""
    reason = caps.refusal(*_starting(store, order))
    return f"cannot start: {reason}" if reason else ""


def _starting(store: Store, order: dict[str, Any]) -> tuple[PlacementJob, bool]:
    """The job an order starts a task of, and whether that task is enrolled already
    (then it is one of the job's instances: ``common.placement.caps``)."""
    job = as_placement_job(store.jobs[int(order["job_id"])])
    return job, task_key(job.job_id, int(order["task_id"])) in store.tasks


def _granted(order: dict[str, Any]) -> list[list[Any]]:
    return [[str(q), str(h), int(s)] for q, h, s in order["granted"]]


def _quota_refusal(store: Store, order: dict[str, Any], quotas: QuotaContext | None) -> str:
    """The grant must keep to every enabled resource quota set (sge_resource_quota(5)),
    counting the running jobs and the orders accepted before it in this batch."""
    if quotas is None:
        return ""
    job = as_placement_job(store.jobs[int(order["job_id"])])
    if job.ar_id is not None:  # (a job in an advance reservation is not limited)
        return ""
    pe = order.get("pe") if isinstance(order.get("pe"), str) else None
    refused = quotas.refusal_of_grant(job, _granted(order), pe)
    return f'cannot run because it exceeds limit "{refused}"' if refused else ""


def _resource_refusal(ctx: Ctx, order: dict[str, Any], view: ResourceView) -> str:
    """Refuse when the job's hard ``-l`` requests do not match the granted instances
    (fixed and load values as the qmaster knows them) or its consumables no longer fit;
    debit them when they do, so the next order of the same batch sees them taken."""
    job = ctx.store.jobs.get(int(order["job_id"]))
    requests = job_requests(job.opts["hard_resources"] if job else {}, view.attrs)
    if requests is None:
        return "job requests resources unknown to the complex list"
    granted = [[str(q), str(h), int(s)] for q, h, s in order["granted"]]
    denial = check_grant(view, requests, granted)
    if denial is not None:
        return denial.reason
    apply(view, debits(view, requests, granted))
    return ""


def _request_refusal(store: Store, order: dict[str, Any],
                     instances: dict[tuple[str, str], QueueInstance],
                     fields: dict[str, Any]) -> str:
    """The grant must be what the job asked for: one slot without ``-pe``, only queue
    instances of its kind (qtype) and only those its hard ``-q`` list names."""
    job = store.jobs[int(order["job_id"])]
    granted = order["granted"]
    if not job.opts.get("pe") and (len(granted) != 1 or int(granted[0][2]) != 1):
        return "a job without a parallel environment gets one slot"
    interactive = bool(job.opts.get("session"))
    for queue, host, _ in granted:  # (queue_conf(5) qtype: BATCH, INTERACTIVE)
        if not instances[(str(queue), str(host))].takes(interactive):
            return (f"queue instance {queue}@{host} is not of type "
                    f"{'interactive' if interactive else 'batch'}")
    refs = job.opts.get("hard_queues") or []
    for queue, host, _ in granted if refs else ():
        qi = instances[(str(queue), str(host))]
        if not any(queue_matches(ref, qi, fields["host_groups"]) for ref in refs):
            return f"queue instance {queue}@{host} is not in the job's hard queue list"
    return ""


def _access_refusal(store: Store, order: dict[str, Any], access: Access) -> str:
    """The queue, host and PE user lists must admit the job's owner, and the queue's
    and host's project lists the job's project."""
    job = store.jobs[int(order["job_id"])]
    project = as_placement_job(job).project
    for queue, host, _ in order["granted"]:
        if not access.queue_allows(job.owner, job.group, str(queue), str(host)):
            return f'job owner "{job.owner}" has no access to {queue}@{host}'
        if not access.project_allows(project, str(queue), str(host)):
            return f'the job\'s project "{project or "NONE"}" has no access to {queue}@{host}'
    name = order.get("pe")
    if isinstance(name, str) and not access.pe_allows(job.owner, job.group, name):
        return f'job owner "{job.owner}" has no access to parallel environment "{name}"'
    return ""


def _debit_pe(order: dict[str, Any], pe_used: dict[str, int]) -> None:
    name = order.get("pe")
    if isinstance(name, str):
        pe_used[name] = pe_used.get(name, 0) + sum(int(g[2]) for g in order["granted"])


def _pe_refusal(store: Store, order: dict[str, Any], fields: dict[str, Any],
                pe_used: dict[str, int]) -> str:
    """Check the order's PE against the slots ``pe_used`` already holds."""
    job = store.jobs[int(order["job_id"])]
    requested, name = job.opts.get("pe"), order.get("pe")
    if not requested:
        return "" if name is None else "order grants a parallel environment not requested"
    if not isinstance(name, str) or name not in fields["pes"]:
        return "order names no configured parallel environment"
    if not fnmatch.fnmatchcase(name, str(requested[0])):
        return f'parallel environment "{name}" is not the requested "{requested[0]}"'
    granted = order["granted"]
    offered = fields["pe_of_queue"]
    if any(name not in pes_at(offered, str(q), str(h)) for q, h, _ in granted):
        return f'a granted queue does not offer parallel environment "{name}"'
    conf: PEConf = fields["pes"][name]
    if not grant_follows_rule(conf.rule, granted):
        return f'the grant does not follow allocation rule "{conf.rule}"'
    total = sum(int(s) for _, _, s in granted)
    ranges = as_placement_job(job).slot_ranges()
    if not any(low <= total <= high for low, high in ranges):
        wanted = ",".join(f"{lo}-{hi}" for lo, hi in sorted(ranges))
        return f"{total} slots are outside the requested range {wanted}"
    if conf.slots is not None and pe_used.get(name, 0) + total > conf.slots:
        return f'parallel environment "{name}" has not enough free slots'
    return ""


def _order_key(order: Any) -> str:
    if isinstance(order, dict):
        return f"{order.get('job_id')}.{order.get('task_id')}"
    return "?"


def _refusal(ctx: Ctx, order: Any, instances: dict[tuple[str, str], QueueInstance]) -> str:
    if not isinstance(order, dict) or order.get("type") != "dispatch":
        return "unknown order"
    try:
        job_id, task_id = int(order["job_id"]), int(order["task_id"])
        task = ctx.store.tasks.get(task_key(job_id, task_id)) or \
            ctx.store.unenrolled_task(job_id, task_id)
        granted = [(str(q), str(h), int(s)) for q, h, s in order["granted"]]
    except (KeyError, TypeError, ValueError):
        return "malformed order"
    if task is None or task.state_enum is not State.PENDING:
        return "task is not pending"
    if task.version != order.get("task_version"):
        return "task changed since the order was computed"
    if not granted:
        return "order grants nothing"
    return _slots_refusal(ctx, granted, instances)


def _slots_refusal(ctx: Ctx, granted: list[tuple[str, str, int]],
                   instances: dict[tuple[str, str], QueueInstance]) -> str:
    wanted: dict[tuple[str, str], int] = {}
    for queue, host, slots in granted:
        if slots <= 0:
            return "order grants no slots"
        wanted[(queue, host)] = wanted.get((queue, host), 0) + slots
    for key, slots in wanted.items():
        qi = instances.get(key)
        if qi is None or not qi.alive:
            return f"queue instance {key[0]}@{key[1]} is not available"
        refusal = state_refusal(ctx.store, qi.name)
        if refusal:
            return refusal
        if ctx.store.used_slots.get(key, 0) + slots > qi.slots:
            return f"queue instance {key[0]}@{key[1]} has not enough free slots"
    return ""


def _dispatch(ctx: Ctx, order: dict[str, Any]) -> None:
    job_id, task_id = int(order["job_id"]), int(order["task_id"])
    task: Task | None = ctx.store.tasks.get(task_key(job_id, task_id))
    if task is None:  # a pending id of the job's ranges becomes a task of its own
        task = ctx.store.enroll(ctx.batch, job_id, task_id)
    granted = [[str(q), str(h), int(s)] for q, h, s in order["granted"]]
    master_queue, master_host, _ = granted[0]
    ctx.store.transition(ctx.batch, task, Event.DISPATCH, granted=granted,
                         granted_pe=order.get("pe"),
                         queue=master_queue, host=master_host,
                         slots=sum(g[2] for g in granted), dispatch_time=ctx.now)
    ctx.services.metrics.dispatch_latency.observe(ctx.now - ctx.store.jobs[job_id].submit_time)
    send_start(ctx, task)
    ctx.services.job_log("dispatched", job_id=task.job_id, task_id=task.task_id,
                         host=master_host, queue=master_queue, slots=task.slots)
