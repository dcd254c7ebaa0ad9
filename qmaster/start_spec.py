"""What the qmaster tells an execd to run: the start spec of a task, every value resolved
for the host it runs on.

Grid Engine gives each queue attribute a value per host (``/bin/sh,[hostA=/bin/bash]``)
and lets some fall back to the host's and then the cluster's configuration (``prolog``,
``epilog``, ``login_shells``); the execd and the shepherd see only the resolved values.
The resource limits of queue_conf(5) (``common.limits``: their table and the one parser
of their values) are the job's hard ``-l`` request bounded by the queue instance's value;
the per-slot ones (``*_cpu``, ``*_data``, ``*_rss``, ``*_vmem``) are multiplied by the
slots the job holds on the host, as sge_execd does for parallel jobs.

``execution_settings`` is pure (configuration in, values out); ``start_spec`` feeds it
from the store.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from common import conf_params, limits, path_aliases, start_record
from common.cluster import Pairs, attr, hostgroups
from common.conf_values import ConfError, parse_time
from common.model import Job, Task
from common.objects_conf.cluster import local_conf_value
from common.objects_conf.queue import resolve
from common.resource.complexes import ComplexAttr, cell_complexes, resolve_name
from common.resource.values import BadValueError

METHODS = ("starter_method", "suspend_method", "resume_method", "terminate_method")
DEFAULT_NOTIFY = 60.0
DEFAULT_LOGIN_SHELLS = ",".join(start_record.DEFAULT_LOGIN_SHELLS)
PE_TASK_NAME = "petask"


def _none(value: str) -> bool:
    return value.strip().lower() in ("", "none", "undefined")


def stored_limit(name: str, text: str) -> float:
    """Seconds or bytes a stored limit value holds the job to (``math.inf``: no limit),
    read by the limit's one parser (``common.limits``), as at submission and by
    ``qconf``. Both refuse what it cannot read, so a refusal here means a damaged spool:
    the job is held to 0 (it fails under the limit) rather than run without one."""
    try:
        return limits.enforced(name, text)
    except BadValueError:
        return 0.0


def job_limits(queue_values: Mapping[str, str], requests: Mapping[str, str],
               slots_here: int) -> dict[str, float]:
    """The finite limits of a job: its request, else the queue's value, never above the
    queue's; per-slot limits times ``slots_here``."""
    out: dict[str, float] = {}
    for limit in limits.LIMITS:
        name = limit.name
        queue = stored_limit(name, queue_values.get(name, "INFINITY"))
        wanted = stored_limit(name, requests[name]) if name in requests else math.inf
        value = min(queue, wanted)
        if limit.per_slot:
            value = limits.bound(value * max(1, slots_here))
        if math.isfinite(value):
            out[name] = value
    return out


def _conf_chain(host_conf: Pairs, global_conf: Pairs, name: str, default: str) -> str:
    """A cluster configuration value: the host's local configuration over the global."""
    for pairs in (host_conf, global_conf):
        value = attr(pairs, name, "")
        if value:
            return value
    return default


def _optional(value: str) -> str | None:
    return None if _none(value) else value.strip()


def execution_settings(queue_pairs: Pairs, host: str, groups: Mapping[str, Sequence[str]],
                       host_conf: Pairs, global_conf: Pairs) -> dict[str, Any]:
    """The queue instance's execution attributes on ``host``, resolved."""
    def value(name: str, default: str) -> str:
        return resolve(attr(queue_pairs, name, default), host, groups)

    mode = value("shell_start_mode", "posix_compliant")
    if _none(mode):
        mode = _conf_chain(host_conf, global_conf, "shell_start_mode", "posix_compliant")
    settings: dict[str, Any] = {
        "shell": value("shell", "/bin/sh"),
        "shell_start_mode": mode,
        "tmpdir_base": value("tmpdir", "/tmp"),
        "login_shells": [s for s in _conf_chain(host_conf, global_conf, "login_shells",
                                                DEFAULT_LOGIN_SHELLS).split(",") if s],
        "notify": _seconds(value("notify", "00:00:60"), DEFAULT_NOTIFY),
        "priority": _priority(value("priority", "0")),
        "processors": _optional(value("processors", "UNDEFINED")),
    }
    for name in ("prolog", "epilog"):  # the queue's, else the host's, else the cluster's
        settings[name] = _optional(value(name, "NONE")) or \
            _optional(_conf_chain(host_conf, global_conf, name, "none"))
    for name in METHODS:
        settings[name] = _optional(value(name, "NONE"))
    return settings


def _seconds(text: str, default: float) -> float:
    try:
        seconds = parse_time(text)
    except ConfError:
        return default
    return seconds if math.isfinite(seconds) else default


def _priority(text: str) -> int:
    try:
        return max(-20, min(20, int(text.strip())))
    except ValueError:
        return 0


def limit_requests(hard: Mapping[str, str], attrs: Sequence[ComplexAttr]) -> dict[str, str]:
    """The job's hard requests of limit attributes, by full name (``-l h_vmem=1G``)."""
    out = {}
    for name, text in hard.items():
        found = resolve_name(attrs, name)
        if found is not None and found.name in limits.LIMIT_NAMES and text is not None:
            out[found.name] = str(text)
    return out


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


def start_spec(conf: Mapping[str, Mapping[str, Pairs]], job: Job, task: Task,
               slots_here: int | None = None) -> dict[str, Any]:
    """Everything the shepherd needs to run the task: the record of
    ``common.start_record`` (its qmaster fields), which the wire checks and the execd
    reads. ``slots_here``: the slots the per-slot limits are multiplied by (default:
    those the task holds on its host)."""
    opts, host = job.opts, task.host or ""
    queue_pairs = conf["queue"].get(task.queue or "", [])
    groups = hostgroups(conf)
    settings = execution_settings(queue_pairs, host, groups,
                                  conf["conf"].get(host, []), conf["conf"].get("global", []))
    queue_limits = {name: resolve(attr(queue_pairs, name, "INFINITY"), host, groups)
                    for name in limits.NAMES}
    if slots_here is None:
        slots_here = sum(int(g[2]) for g in task.granted if g[1] == host) or task.slots
    requests = limit_requests(opts.get("hard_resources") or {}, cell_complexes(conf))
    hosts = sorted({g[1] for g in task.granted})
    restart = restart_command(conf, job, task)
    spec = start_record.message(
        job_id=job.job_id, task_id=task.task_id if job.is_array else None,
        job_name=job.name, owner=job.owner, uid=job.uid, gid=job.gid,
        group=job.group, binary=bool(opts.get("binary")) or restart is not None,
        command=restart[0] if restart else qsh_xterm(conf, opts, host)
        or str(opts.get("script_path") or ""),
        args=restart[1:] if restart else [str(a) for a in opts.get("script_args") or []],
        script=None if restart else job.script,
        # sge_aliases(5): the -cwd/-wd directory as the execution host sees it
        cwd=path_aliases.map_path(opts.get("path_aliases") or [], opts["cwd"], host)
        if opts.get("cwd") else None,
        stdout_path=path_for_host(opts.get("stdout_paths"), host),
        stderr_path=path_for_host(opts.get("stderr_paths"), host),
        merge=bool(opts.get("merge_output")),
        env=dict(opts.get("env") or {}), sge_o=dict(job.sge_o),
        queue=task.queue, host=host, slots=task.slots,
        nhosts=len(hosts), array=list(opts["array"]) if job.is_array else None,
        pe=task.granted_pe or (opts.get("pe") or [None])[0],
        pe_hostfile=pe_hostfile(task) if opts.get("pe") else None,
        umask=job.umask,
        limits=job_limits(queue_limits, requests, slots_here),
        notify_job=bool(opts.get("notify")),
        restarted=1 if task.restarts else 0,
        dispatched=float(task.dispatch_time or 0.0),
        session=opts.get("session"), pty=opts.get("pty"),
        # qrsh -noshell; qsub -shell n runs a binary job's command without the shell
        noshell=bool(opts.get("noshell")) or (bool(opts.get("binary"))
                                              and opts.get("use_shell") is False),
        stdin_path=path_for_host(opts.get("stdin_paths"), host),
        ckpt=checkpointing(conf, job, queue_pairs, host, groups),
        **forbidden_exits(conf["conf"].get("global", [])),
        **pe_procedures(conf, task.granted_pe or (opts.get("pe") or [None])[0]),
        **{**settings, "shell": path_for_host(opts.get("shell"), host) or settings["shell"]})
    return spec


def qsh_xterm(conf: Mapping[str, Mapping[str, Pairs]], opts: Mapping[str, Any],
              host: str) -> str | None:
    """sge_conf(5) ``xterm`` of the execution host (host-local over global) for a qsh
    job, whose command is the xterm; None for any other job."""
    if (opts.get("session") or {}).get("kind") != "qsh":
        return None
    return local_conf_value(conf, host, "xterm", DEFAULT_XTERM)


def forbidden_exits(global_conf: Pairs) -> dict[str, bool]:
    """qmaster_params FORBID_RESCHEDULE and FORBID_APPERROR (sge_conf(5)) as the spec's
    ``forbid_reschedule`` and ``forbid_apperror``."""
    params = next((value for key, value in global_conf if key == "qmaster_params"), "none")
    return {"forbid_reschedule": conf_params.value("qmaster_params", params,
                                                   "FORBID_RESCHEDULE") is True,
            "forbid_apperror": conf_params.value("qmaster_params", params,
                                                 "FORBID_APPERROR") is True}


DEFAULT_XTERM = "/usr/bin/xterm"  # sge_conf(5) xterm of a new cell

CKPT_KEYS = ("interface", "ckpt_command", "migr_command", "clean_command", "ckpt_dir",
             "signal")


def restart_command(conf: Mapping[str, Mapping[str, Pairs]], job: Job, task: Task
                    ) -> list[str] | None:
    """A restarted job of a userdefined checkpointing environment runs its
    ``restart_command`` instead (checkpoint(5)); None for any other start."""
    name = job.opts.get("checkpoint_name")
    pairs = (conf.get("ckpt") or {}).get(name) if name and task.restarts else None
    if pairs is None:
        return None
    from common.objects_conf.ckpt import restart_argv  # (checkpointed jobs only)
    return restart_argv(pairs, {"job_id": str(job.job_id), "job_name": job.name,
                                "job_owner": job.owner, "host": task.host or "",
                                "queue": task.queue or ""})


def checkpointing(conf: Mapping[str, Mapping[str, Pairs]], job: Job, queue_pairs: Pairs,
                  host: str, groups: Mapping[str, Any]) -> dict[str, str] | None:
    """The spec's ``ckpt`` for a job of ``qsub -ckpt`` (None otherwise): what of its
    environment the shepherd carries out, its ``when`` (``-c`` letters win) and the
    seconds between periodic checkpoints: the larger of the queue's
    ``min_cpu_interval`` and ``-c interval`` (queue_conf(5))."""
    from common.objects_conf.ckpt import effective_when  # (checkpointed jobs only)
    name = job.opts.get("checkpoint_name")
    pairs = (conf.get("ckpt") or {}).get(name) if name else None
    if pairs is None:
        return None
    try:
        queue_interval = parse_time(resolve(attr(queue_pairs, "min_cpu_interval",
                                                 "00:05:00"), host, groups))
    except (ConfError, ValueError):
        queue_interval = 300.0
    if not math.isfinite(queue_interval):
        queue_interval = 0.0
    interval = max(float(queue_interval or 0), float(job.opts.get("checkpoint_interval") or 0))
    values = {key: attr(pairs, key, "none") for key in CKPT_KEYS}
    return {**values, "when": effective_when(pairs, job.opts.get("checkpoint_occasion")),
            "interval": str(int(interval))}


def pe_procedures(conf: Mapping[str, Mapping[str, Pairs]], pe: str | None
                  ) -> dict[str, str | None]:
    """sge_pe(5) start_proc_args and stop_proc_args of the job's PE ("none": None)."""
    pairs = conf.get("pe", {}).get(pe, []) if pe else []
    return {"pe_start_proc_args": _optional(attr(pairs, "start_proc_args", "NONE")),
            "pe_stop_proc_args": _optional(attr(pairs, "stop_proc_args", "NONE"))}


def pe_task_spec(conf: Mapping[str, Mapping[str, Pairs]], job: Job, task: Task, *,
                 host: str, queue: str, pe_task_id: str, command: str, args: Sequence[str],
                 env: Mapping[str, str | None], cwd: str | None,
                 session: Mapping[str, Any], noshell: bool = False) -> dict[str, Any]:
    """The start record of a parallel task (qrsh -inherit): the job's, on ``host`` in
    ``queue``, with the per-slot limits of ONE slot (a task takes one of the job's
    slots there), the command run as a binary job's through the queue's shell, the
    job's variables with the task's own (-V, -v) over them, stdio over ``session``.
    No prolog, epilog or PE procedure runs for it: they are the job's (8.1.9)."""
    here = replace(task, host=host, queue=queue)
    spec = start_spec(conf, job, here, slots_here=1)
    # 8.1.9 names a task "petask" (JOB_NAME, REQUEST) and gives it no PE_HOSTFILE
    spec.update(job_name=PE_TASK_NAME, pe_hostfile=None,
                binary=True, command=command, args=[str(a) for a in args], script=None,
                stdout_path=None, stderr_path=None, merge=False,
                env={**spec["env"], **dict(env)}, cwd=cwd if cwd else spec["cwd"],
                prolog=None, epilog=None, pe_start_proc_args=None, pe_stop_proc_args=None,
                session=dict(session), pe_task_id=pe_task_id, pty=False, noshell=noshell)
    return spec
