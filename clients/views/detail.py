"""Pure conversion of one job of ``Client.jobs()`` into qstat -j's JobDetail dict.

This module owns how a submitted job's options (``clients.qsub.options.SubmitOptions``
fields, possibly sparse) become the JobDetail keys documented in ``clients.render.qstat_job``,
with Grid Engine's defaults filled in: account "sge", mail to owner@submit host,
``exec_file`` job_scripts/<id>, the ``__SGE_PREFIX__O_*`` environment entries. It also
selects the jobs a ``qstat -j`` job list names (ids, names, fnmatch patterns).
"""
from __future__ import annotations

import fnmatch
from datetime import datetime
from typing import Any

from clients.joblist import format_task_range
from common.jobspec import date_time_to_epoch
from clients.views.qstat import predecessors, pe_range
from common.jobstate import ACTIVE_STATES, State
from common.resource.complexes import default_complexes, resolve_name
from common.resource.values import NUMERIC_TYPES, BadValueError, ValueType, parse_value
from common.sched_info import MESSAGE_NUMBERS

Reply = dict[str, Any]

SGE_PREFIX = "__SGE_PREFIX__"
DEFAULT_ACCOUNT = "sge"
# CULL value types of complex(5) types, as qstat -j -xml prints CE_valtype
VALTYPES = {ValueType.INT: 1, ValueType.STRING: 2, ValueType.TIME: 3, ValueType.MEMORY: 4,
            ValueType.BOOL: 5, ValueType.CSTRING: 6, ValueType.HOST: 7, ValueType.DOUBLE: 8,
            ValueType.RESTRING: 9}
# JAT_status values the renderer knows
STATUS_RUNNING, STATUS_TRANSFERRING, STATUS_IDLE = 128, 512, 0
# -w letters as JB_verify_suitable_queues numbers
VERIFY_LEVELS = {"n": 0, "e": 1, "w": 2, "v": 3, "p": 4}
_COMPLEXES = default_complexes()
# sge_o keys in the order qsub stores them before the -v variables, and after them
_O_BEFORE = ("HOME", "LOGNAME", "PATH", "MAIL", "SHELL", "TZ")
_O_AFTER = ("HOST", "WORKDIR")


def select_jobs(jobs: list[Reply], items: list[str]) -> tuple[list[Reply], list[str]]:
    """The jobs named by a -j list (ids, names, patterns) in job id order, and the items
    that named no job."""
    chosen: dict[int, Reply] = {}
    missing = []
    for item in items:
        hits = [j for j in jobs if _names(item, j)]
        missing += [] if hits else [item]
        chosen.update({j["job_id"]: j for j in hits})
    return [chosen[k] for k in sorted(chosen)], missing


def _names(item: str, job: Reply) -> bool:
    if item.isdigit():
        return int(item) == job["job_id"]
    return fnmatch.fnmatchcase(str((job.get("opts") or {}).get("job_name") or ""), item)


def _epoch(spec: str | None, submit_time: float) -> float | None:
    if not spec:
        return None
    try:
        return float(date_time_to_epoch(spec, datetime.fromtimestamp(submit_time).astimezone()))
    except ValueError:
        return None


def _path_entry(item: Any) -> dict[str, Any]:
    """``[host:]path`` (or a [host, path] pair) as a JobDetail path entry."""
    if isinstance(item, (list, tuple)):
        host, path = item[0], item[1]
    else:
        host, colon, path = str(item).partition(":")
        host, path = (host or None, path) if colon else (None, str(item))
    return {"path": path, "host": host, "file_host": None}


def env_list(job: Reply) -> list[list[Any]]:
    """The job environment with the submit values as ``__SGE_PREFIX__O_*`` entries."""
    sge_o = job.get("sge_o") or {}
    env: list[list[Any]] = [[f"{SGE_PREFIX}O_{k}", sge_o[k]] for k in _O_BEFORE if sge_o.get(k)]
    env += [[k, v] for k, v in ((job.get("opts") or {}).get("env") or {}).items()]
    return env + [[f"{SGE_PREFIX}O_{k}", sge_o[k]] for k in _O_AFTER if sge_o.get(k)]


def resource_list(requests: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for name, value in requests.items():
        attr = resolve_name(_COMPLEXES, name)
        vtype = attr.type if attr else ValueType.STRING
        try:
            number = parse_value(vtype, str(value)) if vtype in NUMERIC_TYPES else 0.0
        except BadValueError:
            number = 0.0
        out.append({"name": attr.name if attr else name, "value": str(value),
                    "valtype": VALTYPES[vtype], "doubleval": float(number)})
    return out


def _mail_list(job: Reply) -> list[list[Any]]:
    given = (job.get("opts") or {}).get("mail_list") or []
    if not given:
        return [[job["owner"], (job.get("sge_o") or {}).get("HOST") or None]]
    return [[user, host or None] for user, _, host in (str(m).partition("@") for m in given)]


def _shells(opts: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"host": e["host"], "path": e["path"]}
            for e in (_path_entry(s) for s in opts.get("shell") or [])]


def _task_status(state: State) -> int:
    if state is State.TRANSFERRING:
        return STATUS_TRANSFERRING
    return STATUS_RUNNING if state in ACTIVE_STATES else STATUS_IDLE


def ja_tasks(tasks: list[Reply]) -> list[dict[str, Any]]:
    """The enrolled tasks: started ones and those in error."""
    out = []
    for task in tasks:
        state = State(task["state"])
        if state not in ACTIVE_STATES and state is not State.ERROR:
            continue
        out.append({"task_id": task["task_id"], "status": _task_status(state),
                    "start_time": task.get("start_time"), "ntix": 0.5, "binding": "NONE",
                    "usage": task.get("usage") or {},
                    "messages": [task["error_reason"]] if task.get("error_reason") else []})
    return out


def _identity(job: Reply) -> dict[str, Any]:
    opts = job.get("opts") or {}
    return {"job_number": job["job_id"], "exec_file": f"job_scripts/{job['job_id']}",
            "submission_time": job["submit_time"],
            "deadline": _epoch(opts.get("deadline"), job["submit_time"]),
            "owner": job["owner"], "uid": job["uid"], "group": job["group"], "gid": job["gid"],
            "env_list": env_list(job),
            "execution_time": _epoch(opts.get("start_time"), job["submit_time"]),
            "account": opts.get("account") or DEFAULT_ACCOUNT}


def _options(job: Reply) -> dict[str, Any]:
    opts = job.get("opts") or {}
    return {"checkpoint_name": opts.get("checkpoint_name"),
            "checkpoint_attr": opts.get("checkpoint_occasion") or "",
            "checkpoint_interval": int(opts.get("checkpoint_interval") or 0),
            "cwd": opts.get("cwd"), "reserve": bool(opts.get("reserve")),
            "merge_stderr": bool(opts.get("merge_output")),
            "stderr_path_list": [_path_entry(p) for p in opts.get("stderr_paths") or []],
            "stdout_path_list": [_path_entry(p) for p in opts.get("stdout_paths") or []],
            "stdin_path_list": [_path_entry(p) for p in opts.get("stdin_paths") or []],
            "hard_resource_list": resource_list(opts.get("hard_resources") or {}),
            "soft_resource_list": resource_list(opts.get("soft_resources") or {}),
            "mail_options": opts.get("mail_options") or "", "mail_list": _mail_list(job),
            "notify": bool(opts.get("notify"))}


def _request(job: Reply) -> dict[str, Any]:
    opts = job.get("opts") or {}
    script = job.get("script")
    return {"job_name": str(opts.get("job_name") or ""), "priority": int(opts.get("priority") or 0),
            "jobshare": int(opts.get("job_share") or 0),
            "hard_queue_list": list(opts.get("hard_queues") or []),
            "soft_queue_list": list(opts.get("soft_queues") or []),
            "master_queue_list": list(opts.get("master_queues") or []),
            "restart": opts.get("rerun"), "shell_list": _shells(opts),
            "verify": bool(opts.get("verify")), "job_args": list(opts.get("script_args") or []),
            "script_size": len(script) if isinstance(script, (bytes, str)) else 0,
            "script_file": opts.get("script_path") or "STDIN"}


def _dependencies(job: Reply, all_jobs: list[Reply]) -> dict[str, Any]:
    opts = job.get("opts") or {}
    pe = opts.get("pe")
    array = opts.get("array")
    return {"pe": pe[0] if pe else None, "pe_range": pe_range(pe) or "",
            "jid_request_list": [str(w) for w in opts.get("hold_jid") or []],
            "jid_predecessor_list": predecessors(job, all_jobs) if opts.get("hold_jid") else [],
            "jid_successor_list": [j["job_id"] for j in all_jobs if (j.get("opts") or {}).get(
                "hold_jid") and job["job_id"] in predecessors(j, all_jobs)],
            "ja_ad_predecessor_list": _ad_predecessors(job, all_jobs),
            "ja_ad_successor_list": [j["job_id"] for j in all_jobs
                                     if job["job_id"] in _ad_predecessors(j, all_jobs)],
            "verify_suitable_queues": VERIFY_LEVELS.get(str(opts.get("verify_mode") or "n"), 0),
            "project": opts.get("project"), "ar_id": int(opts.get("ar_id") or 0),
            "job_array_tasks": format_task_range(tuple(array)) if array else None,
            "ja_task_concurrency": int(opts.get("task_concurrency") or 0),
            "context": [[k, v] for k, v in (opts.get("context") or {}).items()]}


def _ad_predecessors(job: Reply, all_jobs: list[Reply]) -> list[int]:
    """The jobs ``-hold_jid_ad`` names that exist (ids, or names of the owner's jobs),
    read as -hold_jid's are (qmaster.store's ad_predecessor_ids reads them so too)."""
    wanted = (job.get("opts") or {}).get("hold_jid_ad")
    return predecessors({**job, "opts": {"hold_jid": wanted}}, all_jobs) if wanted else []


def _job_type(opts: dict[str, Any]) -> list[str]:
    flags = [("binary", bool(opts.get("binary"))),
             ("noshell", opts.get("use_shell") is False),
             ("immediate", bool(opts.get("now")))]
    return [name for name, on in flags if on]


def job_detail(job: Reply, tasks: list[Reply], all_jobs: list[Reply],
               reasons: list[str] | None = None, globals_: list[str] | None = None
               ) -> dict[str, Any]:
    """The JobDetail of ``job``; ``all_jobs`` resolves -hold_jid predecessors/successors;
    ``reasons`` are the qmaster's scheduling info lines for a pending job, ``globals_``
    the scheduler's global messages (shown for every job, as 8.1.9 does)."""
    detail = {**_identity(job), **_options(job), **_request(job), **_dependencies(job, all_jobs)}
    detail.update({"binding": "NONE", "job_type": _job_type(job.get("opts") or {}),
                   "ja_tasks": ja_tasks(tasks),
                   "scheduling_info": [
                       {"message": line, "number": MESSAGE_NUMBERS.get(line, 0), "global": True}
                       for line in globals_ or []] + [
                       {"message": line, "number": 0, "global": False}
                       for line in reasons or []],
                   "override_tickets": int((job.get("opts") or {}).get("override_tickets") or 0),
                   "version": 0})
    _policy_figures(detail, job.get("policy"))
    return detail


def _policy_figures(detail: dict[str, Any], figures: dict[str, Any] | None) -> None:
    """JB_nurg and each running task's JAT_ntix from the qmaster's policy figures (a job
    the policy does not look at: 8.1.9's defaults with the default policy, 0.5)."""
    figures = figures or {}
    detail["nurg"] = float(figures.get("nurg", 0.5))
    ntckts = float(figures.get("ntckts", 0.5))
    for task in detail["ja_tasks"]:
        task["ntix"] = ntckts
