"""The qmaster's side of the execd protocol: registration, load, job start and end.

The qmaster sends ``start_job`` to an execd after it accepted a dispatch order, and again
when the execd re-registers while the task is still ``transferring``; the execd answers
``job_started`` / ``job_finished``, which it repeats until acknowledged, so every handler
here is idempotent.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from common.cluster import attr
from common.jobstate import ACTIVE_STATES, Event, State
from common.model import ExecHost, Job, Task, task_key
from common.objects_conf_queue import format_host_overrides, parse_host_overrides
from qmaster.accounting_log import accounting_record
from qmaster.context import Ctx, RequestError
from qmaster.defaults import exechost_defaults

FAILED_DELETED = 100  # accounting(5): "assumedly after job" — the job was killed by qdel


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
                    "spec": start_spec(ctx, job, task)})


def signal_on_host(ctx: Ctx, task: Task, action: str) -> None:
    """Ask the task's execd to ``action`` it (wire.JOB_ACTIONS)."""
    if task.host:
        ctx.batch.send(execd_identity(ctx, task.host), "signal_job",
                       {"job_id": task.job_id, "task_id": task.task_id, "action": action})


def kill_on_host(ctx: Ctx, task: Task) -> None:
    """End the task as qdel does: through its -notify warning and terminate_method."""
    signal_on_host(ctx, task, "terminate")


def start_spec(ctx: Ctx, job: Job, task: Task) -> dict[str, Any]:
    """Everything the shepherd needs to run the task (see execd.shepherd)."""
    opts, store = job.opts, ctx.store
    queue_pairs = store.conf["queue"].get(task.queue or "", [])
    hosts = sorted({g[1] for g in task.granted})
    return {
        "job_id": job.job_id, "task_id": task.task_id if job.is_array else None,
        "job_name": job.name, "owner": job.owner, "uid": job.uid, "gid": job.gid,
        "group": job.group, "binary": bool(opts.get("binary")),
        "command": str(opts.get("script_path") or ""),
        "args": [str(a) for a in opts.get("script_args") or []],
        "script": job.script,
        "shell": path_for_host(opts.get("shell"), task.host or "")
        or attr(queue_pairs, "shell", "/bin/sh"),
        "shell_start_mode": _shell_start_mode(ctx, queue_pairs),
        "cwd": opts.get("cwd"),
        "stdout_path": path_for_host(opts.get("stdout_paths"), task.host or ""),
        "stderr_path": path_for_host(opts.get("stderr_paths"), task.host or ""),
        "merge": bool(opts.get("merge_output")),
        "env": dict(opts.get("env") or {}), "sge_o": dict(job.sge_o),
        "queue": task.queue, "host": task.host, "slots": task.slots,
        "nhosts": len(hosts), "array": list(opts["array"]) if job.is_array else None,
        "pe": task.granted_pe or (opts.get("pe") or [None])[0],
        "pe_hostfile": pe_hostfile(task) if opts.get("pe") else None,
        "tmpdir_base": attr(queue_pairs, "tmpdir", "/tmp"),
        "umask": job.umask,
    }


def _shell_start_mode(ctx: Ctx, queue_pairs: list[list[str]]) -> str:
    mode = attr(queue_pairs, "shell_start_mode", "posix_compliant")
    if mode.lower() in ("none", ""):
        return ctx.store.conf_value("conf", "global", "shell_start_mode", "posix_compliant")
    return mode


def path_for_host(paths: Any, host: str) -> str | None:
    """Pick the path for ``host`` from a Grid Engine ``[host:]path,...`` list."""
    if not paths:
        return None
    default = None
    for entry in paths:
        entry = str(entry)
        head, sep, tail = entry.partition(":")
        if sep and "/" not in head and head:
            if head == host:
                return tail
        elif default is None:
            default = entry
    return default


def pe_hostfile(task: Task) -> str:
    return "".join(f"{host} {slots} {queue}@{host} UNDEFINED\n"
                   for queue, host, slots in task.granted)


# ---- handlers ----------------------------------------------------------------------
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
    _update_host(ctx, host, ctx.body["load"], alive=True)
    reported = {task_key(int(j["job_id"]), int(j["task_id"])) for j in ctx.body["jobs"]
                if isinstance(j, dict) and "job_id" in j and "task_id" in j}
    _reconcile(ctx, host, reported)
    return _host_reply(ctx)


def _host_reply(ctx: Ctx) -> dict[str, Any]:
    report = ctx.store.conf_value("conf", "global", "load_report_time", "00:00:40")
    return {"epoch": ctx.services.epoch, "load_report_time": report}


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


def _update_host(ctx: Ctx, name: str, load: dict[str, Any], *, alive: bool) -> None:
    old = ctx.store.hosts.get(name) or ExecHost(name=name)
    host = replace(old, load={str(k): str(v) for k, v in load.items()}, load_time=ctx.now,
                   alive=alive)
    ctx.store.put_host(ctx.batch, host, spool=old.alive != alive)


def _reconcile(ctx: Ctx, host: str, reported: set[str]) -> None:
    """Bring the qmaster's view of the host's tasks in line with what the execd has."""
    for task in list(ctx.store.tasks.values()):
        if task.host != host or task.state_enum not in ACTIVE_STATES:
            continue
        if task.key in reported:
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
    for key in reported - {t.key for t in ctx.store.tasks.values() if t.host == host
                           and t.state_enum in ACTIVE_STATES}:
        job_id, task_id = (int(x) for x in key.split("."))
        ctx.batch.send(execd_identity(ctx, host), "signal_job",
                       {"job_id": job_id, "task_id": task_id, "action": "kill"})


def handle_load_report(ctx: Ctx) -> dict[str, Any]:
    host = ctx.body["host"]
    if host not in ctx.store.hosts or not ctx.store.hosts[host].alive:
        return {"epoch": ctx.services.epoch, "reregister": True}
    _update_host(ctx, host, ctx.body["load"], alive=True)
    return _host_reply(ctx)


def handle_job_started(ctx: Ctx) -> dict[str, Any]:
    task = ctx.store.tasks.get(task_key(ctx.body["job_id"], ctx.body["task_id"]))
    if task is None or task.host != ctx.body["host"]:
        return {"known": False}
    if task.state_enum is State.TRANSFERRING:
        ctx.store.transition(ctx.batch, task, Event.STARTED,
                             start_time=float(ctx.body["start_time"]))
    elif task.state_enum is State.DELETED:
        kill_on_host(ctx, task)
    return {"known": True}


def handle_job_finished(ctx: Ctx) -> dict[str, Any]:
    task = ctx.store.tasks.get(task_key(ctx.body["job_id"], ctx.body["task_id"]))
    if task is not None and task.host == ctx.body["host"] and \
            task.state_enum in ACTIVE_STATES:
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


def finish_task(ctx: Ctx, task: Task, result: dict[str, Any]) -> None:
    """End an active task with ``result`` (as a shepherd reports it) and account for it."""
    deleted = task.deleted_by is not None
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
    if failed and failed != FAILED_DELETED and not deleted and task.start_time is None:
        # the shepherd's own words say more than the failure code's text (a planted TMPDIR)
        reason = str(result.get("error_message") or "") or changes["failed_reason"]
        ctx.store.transition(ctx.batch, task, Event.FAIL, error_reason=reason,
                             **{k: v for k, v in changes.items() if k != "failed_reason"})
    else:
        ctx.store.transition(ctx.batch, task, Event.EXITED, **changes)
    ctx.services.job_log("finished", job_id=task.job_id, task_id=task.task_id,
                         host=task.host, queue=task.queue, exit_status=task.exit_status,
                         failed=task.failed)
    record = accounting_record(job, task, ctx.store)
    ctx.batch.accounting.append(record)
    ctx.batch.txn.put("acct", task.key, record)
