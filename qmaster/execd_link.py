"""The qmaster's side of the execd protocol: registration, load, job start and end.

The qmaster sends ``start_job`` to an execd after it accepted a dispatch order, and again
when the execd re-registers while the task is still ``transferring``; the execd answers
``job_started`` / ``job_finished``, which it repeats until acknowledged, so every handler
here is idempotent.
"""
from __future__ import annotations

import posixpath
from dataclasses import replace
from typing import Any

from common.cluster import attr, queue_instances
from common.jobstate import ACTIVE_STATES, Event, State
from common.load_values import clean_load_value
from common.mail import signal_name
from common.model import ExecHost, Task, task_key
from common.pe_tasks import PeBook, granted_hosts, pe_flag, released, with_summary
from common.objects_conf.cluster import local_conf_value
from common.objects_conf.queue import format_host_overrides, parse_host_overrides
from qmaster import mail as job_mail
from qmaster import usage_book
from qmaster.accounting_log import accounting_record
from qmaster.context import Ctx, RequestError
from qmaster.defaults import PLACEHOLDER_EXECD_SPOOL_DIR as EXECD_SPOOL_DEFAULT
from qmaster.defaults import exechost_defaults
from qmaster.lost_hosts import RESCHEDULE
from qmaster.start_spec import start_spec

FAILED_DELETED = 100  # accounting(5): "assumedly after job" — the job was killed by qdel
FAILED_LOST = 25      # the run was given up with its host (sge_conf(5) reschedule_unknown)
LOST_REASON = "rescheduling"


def execd_identity(ctx: Ctx, host: str) -> bytes:
    """Where the execd of ``host`` is reached: the connection its last proven message
    came by (b"" while it has not spoken to this qmaster: the message is not sent, and
    the execd's registration brings it again)."""
    return ctx.services.execd_routes.get(host, b"")


# ---- messages to the execd ---------------------------------------------------------
def send_start(ctx: Ctx, task: Task) -> None:
    job = ctx.store.jobs[task.job_id]
    ctx.batch.send(execd_identity(ctx, task.host or ""), "start_job",
                   {"job_id": task.job_id, "task_id": task.task_id,
                    "spec": start_spec(ctx.store.conf, job, task)})


def signal_on_host(ctx: Ctx, task: Task, action: str) -> None:
    """Ask the task's execd to ``action`` its current run (wire.JOB_ACTIONS), and the
    execd of every other host the job was granted its parallel tasks there (qrsh
    -inherit: they are suspended, resumed and ended with the job)."""
    if task.host:
        for host in [task.host, *(h for h in granted_hosts(task.granted) if h != task.host)]:
            ctx.batch.send(execd_identity(ctx, host), "signal_job",
                           {"job_id": task.job_id, "task_id": task.task_id,
                            "action": action, "dispatched": task.dispatch_time or 0.0})


def end_pe_tasks(ctx: Ctx, task: Task, *, forget: bool) -> None:
    """The job task's run ended: its parallel tasks still running are killed on every
    host (their ends are accounted as they are reported); ``forget``: the task runs
    again, and what is left of this run's tasks is not waited for."""
    book = ctx.store.pe_books.get(task.key)
    if book is None or not book.tasks:
        return
    for host in sorted({t.host for t in book.tasks.values()}):
        ctx.batch.send(execd_identity(ctx, host), "signal_job",
                       {"job_id": task.job_id, "task_id": task.task_id, "action": "kill",
                        "dispatched": task.dispatch_time or 0.0})
    if forget:
        ctx.store.put_pe_book(ctx.batch, task.key, replace(book, tasks={}, summary={}))


def kill_on_host(ctx: Ctx, task: Task) -> None:
    """End the task as qdel does: through its -notify warning and terminate_method."""
    signal_on_host(ctx, task, "terminate")


# ---- handlers ----------------------------------------------------------------------
def handle_execd_conf(ctx: Ctx) -> dict[str, Any]:
    """Where the execd of the host spools: its ``execd_spool_dir`` (host-local over global)
    joined with the host's name, as 8.1.9's execd makes it. Asked before it registers."""
    host = ctx.body["host"]
    spool_dir = local_conf_value(ctx.store.conf, host, "execd_spool_dir",
                                 EXECD_SPOOL_DEFAULT)
    return {"execd_spool_dir": spool_dir, "spool": posixpath.join(spool_dir, host)}


def handle_register(ctx: Ctx) -> dict[str, Any]:
    host = ctx.body["host"]
    if host not in ctx.store.conf["exechost"]:
        # Grid Engine compares host names without case: "VM" is host "vm", and adding
        # it again would give queues two values for one host
        known = next((h for h in ctx.store.conf["exechost"] if h.lower() == host.lower()),
                     None)
        if known is not None:
            raise RequestError("denied", f"denied: host \"{host}\" is known as \"{known}\"")
        if not ctx.services.auto_add_hosts:
            raise RequestError("denied", f"denied: host \"{host}\" is not an execution host")
        _auto_add_host(ctx, host, ctx.body["load"])
    coming_up = not (ctx.store.hosts.get(host) or ExecHost(name=host)).alive
    _update_host(ctx, host, ctx.body["load"], ctx.body["global_load"], alive=True)
    if coming_up:  # queue_conf(5) initial_state: "on start-up of the sge_execd"
        from qmaster.queue_control import apply_initial_state  # (it imports this module)
        apply_initial_state(ctx, queue_instances(ctx.store.conf, ctx.store.hosts,
                                                 on_host=host))
    reported = {task_key(j["job_id"], j["task_id"]): float(j["dispatched"])
                for j in ctx.body["jobs"]}
    _reconcile(ctx, host, reported)
    _reconcile_pe_tasks(ctx, host, ctx.body["pe_tasks"])
    return _host_reply(ctx, host)


def _reconcile_pe_tasks(ctx: Ctx, host: str, reported: list[dict[str, Any]]) -> None:
    """Parallel tasks the host still has that no running job counts on (its end was
    told while the execd was away, or the qmaster forgot them with a rescheduled run)
    are killed, with every task of that run on the host."""
    done: set[tuple[int, int, float]] = set()
    _forget_lost_pe_tasks(ctx, host, {(int(i["job_id"]), int(i["task_id"]), int(i["seq"]))
                                      for i in reported})
    for item in reported:
        key = task_key(item["job_id"], item["task_id"])
        task, book = ctx.store.tasks.get(key), ctx.store.pe_books.get(key)
        run = float(item["dispatched"])
        found = book.by_number(int(item["seq"])) if book is not None else None
        if task is not None and task.state_enum in ACTIVE_STATES and found is not None \
                and found[1].host == host and (not run or run == task.dispatch_time):
            continue
        which = (item["job_id"], item["task_id"], run)
        if which not in done:
            done.add(which)
            ctx.batch.send(execd_identity(ctx, host), "signal_job",
                           {"job_id": item["job_id"], "task_id": item["task_id"],
                            "action": "kill", "dispatched": run})


# what the execd takes from its configuration (host-local over global, sge_conf(5))
EXECD_CONF = (("load_report_time", "00:00:40"), ("load_sensor", "none"),
              ("execd_params", "none"), ("reprioritize", "0"), ("shepherd_cmd", "none"),
              ("gid_range", "65400-65500"))


def _host_reply(ctx: Ctx, host: str) -> dict[str, Any]:
    reply: dict[str, Any] = {"epoch": ctx.services.epoch}
    for name, default in EXECD_CONF:
        reply[name] = local_conf_value(ctx.store.conf, host, name, default)
    return reply


def _auto_add_host(ctx: Ctx, host: str, load: dict[str, Any]) -> None:
    """Personal cells add a new execd's host like the Grid Engine installer does."""
    store = ctx.store
    store.put_conf(ctx.batch, "exechost", host, exechost_defaults(host))
    group = store.conf["hgrp"].get("@allhosts")
    if group is not None:
        hostlist = attr(group, "hostlist", "NONE")
        entries = [] if hostlist == "NONE" else hostlist.split()
        store.put_conf(ctx.batch, "hgrp", "@allhosts",
                       [["group_name", "@allhosts"], ["hostlist", " ".join(entries + [host])]])
    queue = store.conf["queue"].get("all.q")
    if queue is not None:
        slots = ctx.services.default_slots or int(float(load.get("num_proc", "1") or 1))
        store.put_conf(ctx.batch, "queue", "all.q", _with_host_slots(queue, host, slots))


def _with_host_slots(pairs: list[list[str]], host: str, slots: int) -> list[list[str]]:
    out = []
    for key, value in pairs:
        if key == "slots":
            base, overrides = parse_host_overrides(value)
            overrides[host] = str(slots)
            value = format_host_overrides(base, overrides)
        out.append([key, value])
    return out


def _update_host(ctx: Ctx, name: str, load: dict[str, Any], global_load: dict[str, Any],
                 *, alive: bool) -> None:
    old = ctx.store.hosts.get(name) or ExecHost(name=name)
    host = replace(old, load={str(k): str(v) for k, v in load.items()}, load_time=ctx.now,
                   global_load=_global_values(global_load), alive=alive)
    ctx.store.put_host(ctx.batch, host, spool=old.alive != alive)


MAX_GLOBAL_VALUES = 256  # global:name:value lines one execd may contribute


def _global_values(values: dict[str, Any]) -> dict[str, str]:
    """What one execd reports for the global host, as far as it may: every execd's
    values are merged for the whole cell, so one host gets a bounded share, and names
    or values that would break ``qconf -se global`` are dropped."""
    kept: dict[str, str] = {}
    for name, value in values.items():
        if len(kept) >= MAX_GLOBAL_VALUES:
            break
        if clean_load_value(str(name), str(value)):
            kept[str(name)] = str(value)
    return kept


def _reconcile(ctx: Ctx, host: str, reported: dict[str, float]) -> None:
    """Bring the qmaster's view of the host's tasks in line with what the execd has
    (``reported``: task key -> the dispatch time of the run the execd has, 0 unknown).

    A run the execd still has is re-attached; a run the qmaster gave up (rescheduled
    while the host was lost, or never known) is killed, even when the task has been sent
    back to this same host since."""
    on_host = set()
    for task in ctx.store.active_tasks():  # (a list: the loop changes tasks' states)
        if task.host != host or task.state_enum not in ACTIVE_STATES:
            continue
        on_host.add(task.key)
        run = reported.get(task.key)
        current = run is not None and (not run or not task.dispatch_time
                                       or run == task.dispatch_time)
        if run is not None and not current:
            _kill_run(ctx, host, task.job_id, task.task_id, run)
        if current:
            if task.state_enum is State.DELETED:
                kill_on_host(ctx, task)
        elif task.state_enum is State.TRANSFERRING:
            send_start(ctx, task)
        elif task.state_enum is State.DELETED:
            finish_task(ctx, task, {"exit_status": 137, "signal": 9, "failed": FAILED_DELETED,
                                "failed_reason": "assumedly after job"})
        else:
            ctx.store.transition(ctx.batch, task, Event.FAIL, error_reason=(
                f"job lost: execd on host \"{host}\" has no record of it"))
    for key, run in reported.items():
        if key not in on_host:
            job_id, task_id = (int(x) for x in key.split("."))
            _kill_run(ctx, host, job_id, task_id, run)


def _kill_run(ctx: Ctx, host: str, job_id: int, task_id: int, dispatched: float) -> None:
    """SIGKILL to one run (by its dispatch time) of a task on ``host``."""
    ctx.batch.send(execd_identity(ctx, host), "signal_job",
                   {"job_id": job_id, "task_id": task_id, "action": "kill",
                    "dispatched": dispatched})
    ctx.services.job_log("killing a run given up", job_id=job_id, task_id=task_id, host=host)


# a task ordered this long ago that its host does not have was lost on the way (an execd
# that restarted before it took the order); younger ones may still be on their way
PE_TASK_LOST_SECONDS = 10.0


def _forget_lost_pe_tasks(ctx: Ctx, host: str, reported: set[tuple[int, int, int]]) -> None:
    """Tasks the books count on ``host`` that its execd does not have leave the books
    (their slots free again; there is nothing to account)."""
    for key, book in list(ctx.store.pe_books.items()):
        job_id, task_id = (int(x) for x in key.split("."))
        lost = [tid for tid, t in book.tasks.items() if t.host == host
                and (job_id, task_id, t.number) not in reported
                and ctx.now - t.started > PE_TASK_LOST_SECONDS]
        for tid in lost:
            book = book.ended(tid)
            ctx.services.job_log("pe task lost", job_id=job_id, task_id=task_id,
                                 pe_task_id=tid, host=host)
        if lost:
            ctx.store.put_pe_book(ctx.batch, key, release_held(ctx, key, book))


def handle_load_report(ctx: Ctx) -> dict[str, Any]:
    host = ctx.body["host"]
    if host not in ctx.store.hosts or not ctx.store.hosts[host].alive:
        return {"epoch": ctx.services.epoch, "reregister": True}
    _update_host(ctx, host, ctx.body["load"], ctx.body["global_load"], alive=True)
    ctx.services.metrics.load_report(host)
    runs = [run for item in ctx.body["usage"] if (run := _note_usage(ctx, host, item))]
    usage_book.note_running(ctx, runs)  # (one booking for the whole report)
    return _host_reply(ctx, host)


USAGE_KEYS = ("cpu", "mem", "io", "vmem", "maxvmem")


def _note_usage(ctx: Ctx, host: str, item: dict[str, Any]
                ) -> tuple[Task, dict[str, Any]] | None:
    """A running task's usage so far, as its execd reports it (qstat -j's usage line);
    the task and the report's item when it is about the task's current run (for the
    share tree's usage book)."""
    task = ctx.store.tasks.get(task_key(item["job_id"], item["task_id"]))
    if task is None or not _this_run(task, {"host": host, "dispatched": item["dispatched"]}) \
            or task.state_enum not in (State.RUNNING, State.SUSPENDED):
        return None
    ctx.store.note_running_usage(task, {k: float(item[k]) for k in USAGE_KEYS})
    return task, item


def _this_run(task: Task | None, body: dict[str, Any]) -> bool:
    """Whether an execd's message is about the task's current run on that host."""
    dispatched = float(body.get("dispatched") or 0.0)
    return task is not None and task.host == body["host"] and \
        (not dispatched or dispatched == task.dispatch_time)


def handle_job_started(ctx: Ctx) -> dict[str, Any]:
    task = ctx.store.tasks.get(task_key(ctx.body["job_id"], ctx.body["task_id"]))
    if task is None or not _this_run(task, ctx.body):
        return {"known": False}
    if task.state_enum is State.TRANSFERRING:
        ctx.store.transition(ctx.batch, task, Event.STARTED,
                             start_time=float(ctx.body["start_time"]))
        if task.suspend_reasons:  # qmod -sj while it was on its way: the execd has it
            ctx.store.transition(ctx.batch, task, Event.SUSPEND)
    elif task.state_enum is State.DELETED:
        kill_on_host(ctx, task)
    return {"known": True}


def handle_job_finished(ctx: Ctx) -> dict[str, Any]:
    task = ctx.store.tasks.get(task_key(ctx.body["job_id"], ctx.body["task_id"]))
    if task is not None and _this_run(task, ctx.body) and task.state_enum in ACTIVE_STATES:
        finish_task(ctx, task, ctx.body["result"])
    return {"job_id": ctx.body["job_id"], "task_id": ctx.body["task_id"]}


def handle_job_start_failed(ctx: Ctx) -> dict[str, Any]:
    task = ctx.store.tasks.get(task_key(ctx.body["job_id"], ctx.body["task_id"]))
    if task is not None and task.host == ctx.body["host"] and \
            task.state_enum is State.TRANSFERRING:
        ctx.store.transition(ctx.batch, task, Event.FAIL, error_reason=ctx.body["reason"])
        ctx.services.job_log("start failed", job_id=task.job_id, task_id=task.task_id,
                             host=task.host, queue=task.queue, reason=ctx.body["reason"])
    return {}


def finish_task(ctx: Ctx, task: Task, result: dict[str, Any], *,
                ran: bool | None = None, end: bool = False) -> None:
    """End an active task with ``result`` (as a shepherd reports it) and account for it.

    The result's ``action`` (execd.jobdir) decides what follows: ``reschedule`` (exit or
    prolog/epilog status 99, or qmod -rj) puts the task back to pending, ``job_error``
    (status 100) into error state Eqw, ``queue_error`` (a failed prolog/epilog) puts the
    queue instance into error state E and reschedules the task. A deleted task ends.
    ``ran``: whether the job itself ran (default: the result has its pid); ``end``: the
    task finishes whatever the result says (never the error state of a failed start).
    """
    deleted = task.deleted_by is not None or task.state_enum is State.DELETED
    failed = int(result.get("failed") or 0)
    if deleted and failed == 0 and result.get("signal"):
        failed = FAILED_DELETED
    changes = dict(exit_status=int(result.get("exit_status") or 0),
                   signal=int(result.get("signal") or 0), failed=failed,
                   failed_reason=str(result.get("failed_reason") or ""),
                   start_time=float(result.get("start_time") or task.start_time or ctx.now),
                   end_time=float(result.get("end_time") or ctx.now),
                   usage={k: v for k, v in result.items() if k.startswith("ru_")
                          or k in ("maxvmem", "cpu", "mem", "io", "iow")})
    job = ctx.store.jobs[task.job_id]
    message = str(result.get("error_message") or "") or changes["failed_reason"]
    action = "" if deleted else ("reschedule" if task.reschedule
                                 else str(result.get("action") or ""))
    error_reason = ""
    if action == "queue_error":
        _queue_error(ctx, task)
        action, error_reason = "reschedule", message
    ended = replace(task, **changes)
    book = ctx.store.pe_books.get(task.key)
    # sge_pe(5) accounting_summary: the parallel tasks' usage in the job's one record
    summed = with_summary(changes["usage"], book.summary) if book is not None \
        and book.summary else changes["usage"]
    record = accounting_record(job, replace(ended, usage=summed), ctx.store)
    # ... and the tasks still running: the record waits for their reports
    hold = book is not None and bool(book.tasks) and action != "reschedule" and \
        _summarised(ctx, task)
    end_pe_tasks(ctx, task, forget=action == "reschedule")
    usage_book.note_finished(ctx, task, changes["usage"])  # (before the task forgets its run)
    ran = int(result.get("pid") or 0) > 0 if ran is None else ran
    job_error = action == "job_error" or bool(
        failed and failed != FAILED_DELETED and not deleted and task.start_time is None
        and not end and action != "reschedule")
    job_mail.task_ended(ctx, job, ended, ran=ran, error=_why(ended, message),
                        error_state=job_error)
    if action == "reschedule":
        # a task whose job ran shows "Rq" (restarted); one stopped by its prolog "qw"
        _requeue(ctx, task, ran=ran, error_reason=error_reason)
    elif action == "job_error":
        ctx.store.transition(ctx.batch, task, Event.FAIL, error_reason=message or (
            f"job {task.job_id}.{task.task_id} exited with exit status "
            f"{changes['exit_status']}"), **changes)
    elif failed and failed != FAILED_DELETED and not deleted and task.start_time is None \
            and not end:
        # the shepherd's own words say more than the failure code's text (a planted TMPDIR)
        ctx.store.transition(ctx.batch, task, Event.FAIL, error_reason=message,
                             **{k: v for k, v in changes.items() if k != "failed_reason"})
    else:
        ctx.store.transition(ctx.batch, task, Event.EXITED, **changes)
    ctx.services.job_log("finished", job_id=task.job_id, task_id=task.task_id,
                         host=record.get("hostname"), queue=record.get("qname"),
                         exit_status=changes["exit_status"], failed=failed,
                         action=action or "end",
                         # why, in the shepherd's words: the execd's job directory that
                         # held them is gone once this result is acknowledged
                         **({"reason": message[:500]} if failed else {}))
    if hold and book is not None:
        ctx.store.put_pe_book(ctx.batch, task.key, replace(book, summary={}, held=record))
    else:
        ctx.batch.accounting.append(record)
        ctx.batch.txn.put("acct", task.key, record)


def _summarised(ctx: Ctx, task: Task) -> bool:
    """Whether the task's PE has accounting_summary TRUE."""
    job = ctx.store.jobs[task.job_id]
    name = task.granted_pe or (job.opts.get("pe") or [None])[0]
    return pe_flag(ctx.store.conf["pe"].get(name) if name else None, "accounting_summary",
                   "FALSE")


def release_held(ctx: Ctx, key: str, book: PeBook) -> PeBook:
    """Write the job's held record (accounting_summary) once its last task reported:
    the book without it."""
    if not book.releasable() or book.held is None:
        return book
    record = released(book.held, book.summary)
    ctx.batch.accounting.append(record)
    ctx.batch.txn.put("acct", key, record)
    return replace(book, summary={}, held=None)


def _why(task: Task, message: str) -> str:
    """A failed run's reason as 8.1.9's mails give it: the shepherd's words, else how
    its job died (``job 192.1 died through signal KILL (9)``)."""
    if message and message != task.failed_reason:
        return message
    if task.signal:
        return (f"job {task.job_id}.{task.task_id} died through signal "
                f"{signal_name(task.signal)} ({task.signal})")
    return message


def _requeue(ctx: Ctx, task: Task, *, ran: bool, error_reason: str = "") -> None:
    """Back to pending for another run elsewhere: the task forgets where it ran."""
    ctx.store.transition(ctx.batch, task, Event.RESCHEDULE, queue=None, host=None,
                         granted=[], granted_pe=None, slots=1, dispatch_time=None,
                         start_time=None, end_time=None, exit_status=None, signal=0,
                         failed=0, failed_reason="", usage={}, suspend_reasons=[],
                         reschedule=False, restarts=task.restarts + (1 if ran else 0),
                         error_reason=error_reason)


def _queue_error(ctx: Ctx, task: Task) -> None:
    """Put the task's queue instance into error state E, in 8.1.9's words."""
    from qmaster.queue_control import set_queue_error  # it signals execds through us
    queue, host = task.queue or "", task.host or ""
    set_queue_error(ctx, queue, host, f"queue {queue} marked QERROR as result of job "
                                      f"{task.job_id}'s failure at host {host}")


def end_lost_task(ctx: Ctx, task: Task, action: str) -> None:
    """A task on a host lost for reschedule_unknown (qmaster.lost_hosts): rescheduled, or
    ended when it cannot run again. The qmaster accounts for the run on its own; should
    the execd come back with the run still going, the registration's reconcile ends it."""
    host = task.host or ""
    ended = action != RESCHEDULE
    result = {"exit_status": 137 if ended else 0, "signal": 9 if ended else 0,
              "failed": FAILED_LOST, "end_time": ctx.now,
              "failed_reason": LOST_REASON, "action": "" if ended else "reschedule",
              "error_message": f"job {task.job_id}.{task.task_id} "
                               f"{'ended' if ended else 'rescheduled'} because host "
                               f"\"{host}\" is unknown"}
    ctx.services.job_log("host lost", job_id=task.job_id, task_id=task.task_id, host=host,
                         queue=task.queue, action=action)
    # The master host may be up (a lost slave host, ENABLE_RESCHEDULE_SLAVE) or only
    # unreachable for now: told at once, or by its registration's reconcile.
    _kill_run(ctx, host, task.job_id, task.task_id, task.dispatch_time or 0.0)
    finish_task(ctx, task, result, ran=task.start_time is not None, end=ended)
