"""The qmaster's side of parallel tasks (qrsh -inherit, sge_pe(5) ``control_slaves``).

``pe_task_start`` (from the job's owner, inside the job): decided by
``common.pe_tasks.decide`` before any work, then the task is entered in the job's book
(spooled: a restarted qmaster still counts it) and ``start_pe_task`` goes to the host's
execd with the start record of ``qmaster.start_spec.pe_task_spec``. ``pe_task_finished``
(from that execd, repeated until answered, so idempotent): the task leaves the book and
is accounted, one record with its ``pe_taskid``, or its usage joins the job's one record
when the PE has ``accounting_summary TRUE``. When the job ends, is deleted, suspended or
resumed, ``qmaster.execd_link.signal_on_host`` tells every host the job was granted.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, NoReturn

from common.jobstate import ACTIVE_STATES, State
from common import pe_tasks
from common.model import Task, task_key
from qmaster.accounting_log import accounting_record
from qmaster.context import Ctx, RequestError
from qmaster.execd_link import execd_identity, release_held, signal_on_host
from qmaster.host_rights import find_host, require_known_host
from qmaster.start_spec import pe_task_spec

HANGUP = "hangup"  # (execd.shepherd.HANGUP: the task's qrsh client went away)


def _pe_of(ctx: Ctx, task: Task) -> tuple[str | None, list[list[str]] | None]:
    job = ctx.store.jobs[task.job_id]
    name = task.granted_pe or (job.opts.get("pe") or [None])[0]
    return name, ctx.store.conf["pe"].get(name) if name else None


def handle_pe_task_start(ctx: Ctx) -> dict[str, Any]:
    body, user = ctx.body, ctx.user
    # from where the job runs: an execution host, or an administrative or submit host
    require_known_host(ctx.store, user, exec_hosts=True)
    job_id, task_id, host = int(body["job_id"]), int(body["task_id"]), str(body["host"])
    job = ctx.store.jobs.get(job_id)
    key = task_key(job_id, task_id)
    task = ctx.store.tasks.get(key)
    book = ctx.store.pe_books.get(key, pe_tasks.PeBook())
    if job is None or task is None:
        decision: pe_tasks.Grant | str = pe_tasks.NOT_HERE.format(job_id=job_id)
    else:
        pe_name, pe = _pe_of(ctx, task)
        decision = pe_tasks.decide(job_id=job_id, owner=job.owner, user=user.name,
                                   state=task.state_enum, granted=task.granted,
                                   master_host=task.host or "", pe_name=pe_name, pe=pe,
                                   host=host, book=book)
    route = execd_identity(ctx, decision.host if isinstance(decision, pe_tasks.Grant)
                           else host)
    if isinstance(decision, str) or not route:
        _refuse(ctx, job_id, task_id, host, decision if isinstance(decision, str)
                else "its execution daemon is not connected", known=bool(route))
    assert job is not None and task is not None and isinstance(decision, pe_tasks.Grant)
    spec = pe_task_spec(ctx.store.conf, job, task, host=decision.host,
                        queue=decision.queue, pe_task_id=decision.task_id,
                        command=body["command"], args=body["args"], env=body["env"],
                        cwd=body["cwd"], session=body["session"],
                        noshell=body["noshell"])
    ctx.store.put_pe_book(ctx.batch, key, book.started(decision.task_id, pe_tasks.Running(
        decision.number, decision.host, decision.queue, ctx.now)))
    ctx.batch.send(route, "start_pe_task", {"job_id": job_id, "task_id": task_id,
                                            "seq": decision.number, "spec": spec})
    ctx.services.job_log("pe task started", job_id=job_id, task_id=task_id,
                         pe_task_id=decision.task_id, host=decision.host)
    return {"pe_task_id": decision.task_id, "host": decision.host}


def _refuse(ctx: Ctx, job_id: int, task_id: int, host: str, why: str, *,
            known: bool) -> NoReturn:
    """Refuse a task as 8.1.9's qrsh -inherit reports it: the execd of a host it can
    reach "didn't accept task" (the reason is logged, as that execd logs it); a host
    without an execd here is one it cannot send the task to."""
    ctx.services.job_log("pe task refused", job_id=job_id, task_id=task_id, host=host,
                         reason=why)
    known = known or find_host(host, ctx.store.conf["exechost"]) is not None
    raise RequestError("denied", pe_tasks.STARTING.format(
        job_id=job_id, why=(pe_tasks.REFUSED if known else pe_tasks.UNREACHABLE).format(
            host=host)))


def handle_pe_task_finished(ctx: Ctx) -> dict[str, Any]:
    """Account for a parallel task's end (once: a repeated report finds it gone)."""
    body = ctx.body
    job_id, task_id = int(body["job_id"]), int(body["task_id"])
    key = task_key(job_id, task_id)
    answer = {"job_id": job_id, "task_id": task_id, "seq": body["seq"]}
    book = ctx.store.pe_books.get(key)
    found = book.by_number(int(body["seq"])) if book is not None else None
    job, task = ctx.store.jobs.get(job_id), ctx.store.tasks.get(key)
    if book is None or found is None or job is None or task is None or \
            found[1].host != body["host"] or found[0] != body["pe_task_id"]:
        return answer
    pe_task_id, running = found
    result = body["result"]
    usage = {k: v for k, v in result.items() if k.startswith("ru_")
             or k in ("maxvmem", "cpu", "mem", "io", "iow")}
    _, pe = _pe_of(ctx, task)
    summary = pe_tasks.pe_flag(pe, "accounting_summary", "FALSE")
    # (summed while the job's one record is still to be written: it runs, or waits)
    counted = summary and (task.state_enum in ACTIVE_STATES or book.held is not None)
    ctx.store.put_pe_book(ctx.batch, key, release_held(
        ctx, key, book.ended(pe_task_id, usage if counted else None)))
    ctx.services.job_log("pe task finished", job_id=job_id, task_id=task_id,
                         pe_task_id=pe_task_id, host=running.host,
                         exit_status=int(result.get("exit_status") or 0))
    if int(result.get("failed") or 0) and task.state_enum in (State.RUNNING,
                                                              State.SUSPENDED) \
            and result.get("ended_by") != HANGUP:
        # 8.1.9: a task that failed (killed, or not started) takes its job with it; not
        # one whose qrsh client went away (the job's end kills the clients it started)
        ctx.services.job_log(pe_tasks.TASK_FAILED.format(
            job_id=job_id, task_id=task_id, pe_task_id=pe_task_id), job_id=job_id)
        signal_on_host(ctx, task, "kill")
    if summary:
        return answer  # (in the job's record, written at its end)
    record = pe_task_record(ctx, task, pe_task_id, running, result, usage)
    ctx.batch.accounting.append(record)
    ctx.batch.txn.put("acct", f"{key}/{pe_task_id}", record)
    return answer


def pe_task_record(ctx: Ctx, task: Task, pe_task_id: str, running: pe_tasks.Running,
                   result: dict[str, Any], usage: dict[str, Any]) -> dict[str, Any]:
    """accounting(5) of one parallel task: the job's record with the task's host, queue,
    times, status and usage, one slot, and its ``pe_taskid``."""
    job = ctx.store.jobs[task.job_id]
    start = float(result.get("start_time") or running.started)
    end = float(result.get("end_time") or ctx.now)
    ran = replace(task, host=running.host, queue=running.queue,  # (the job's slots)
                  start_time=start, end_time=end,
                  exit_status=int(result.get("exit_status") or 0),
                  failed=int(result.get("failed") or 0), usage=usage)
    record = accounting_record(job, ran, ctx.store)
    # 8.1.9: a task's qsub_time is when it was asked for, its pe_taskid its id
    record.update(pe_taskid=pe_task_id, submission_time=running.started)
    return record


def summary_of(ctx: Ctx, task: Task) -> dict[str, float]:
    """The summed usage of the job task's parallel tasks (accounting_summary TRUE)."""
    book = ctx.store.pe_books.get(task.key)
    return dict(book.summary) if book is not None else {}
