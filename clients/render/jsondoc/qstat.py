"""``qstat -fmt json``: the job listing (plain and ``-f``/``-F``/``-explain``, with the
``-r``, ``-ext``, ``-urg``, ``-pri``, ``-g t``, ``-t`` additions), ``-g c`` and ``-j``.

The rows are the ones the text and XML renderers take (``clients.render.qstat``'s JobRow,
QueueRow and ClusterQueueRow, ``clients.render.qstat_job``'s JobDetail); this module only
types and names their fields. Schemas: ``qstat-1.json`` (listing), ``qstat-cqueue-1.json``
(``-g c``), ``qstat-job-1.json`` (``-j``).
"""
from __future__ import annotations

from clients.render.jsondoc import document, dump, iso_time, job_state, queue_state

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

LISTING_SCHEMA = "qstat-1.json"
CQUEUE_SCHEMA = "qstat-cqueue-1.json"
DETAIL_SCHEMA = "qstat-job-1.json"
_SGE_PREFIX = "__SGE_PREFIX__"


def _pairs(mapping: dict[str, Any] | None) -> list[dict[str, Any]]:
    return [{"name": k, "value": str(v)} for k, v in (mapping or {}).items()]


def _requests(row: dict[str, Any]) -> dict[str, Any]:
    """-r: what the job asked for (resource_lines' facts)."""
    urgency = row.get("hard_resource_urgency") or {}
    return {
        "full_name": row.get("full_name") or row["name"],
        "master_queue": row.get("queue"),
        "requested_pe": ({"name": row["pe"], "range": row.get("pe_range") or ""}
                         if row.get("pe") else None),
        "granted_pe": ({"name": row["granted_pe"],
                        "slots": int(row.get("granted_pe_slots", row["slots"]))}
                       if row.get("granted_pe") else None),
        "checkpoint": row.get("checkpoint"),
        "hard_resources": [{"name": k, "value": str(v), "urgency": float(urgency.get(k, 0.0))}
                           for k, v in (row.get("hard_resources") or {}).items()],
        "default_requests": _pairs(row.get("default_requests")),
        "soft_resources": _pairs(row.get("soft_resources")),
        "hard_queues": list(row.get("hard_queues") or []),
        "soft_queues": list(row.get("soft_queues") or []),
        "master_queues": list(row.get("master_queues") or []),
        "predecessors_requested": [str(p) for p in row.get("predecessors_requested") or []],
        "predecessors": [int(p) for p in row.get("predecessors") or []],
        "binding": row.get("binding"),
    }


def _extended(row: dict[str, Any]) -> dict[str, Any]:
    """-ext: project, department, usage and tickets (None usage = none reported yet)."""
    def opt(key: str) -> float | None:
        return None if row.get(key) is None else float(row[key])
    return {"project": row.get("project"), "department": row.get("department"),
            "cpu": opt("cpu"), "mem": opt("mem"), "io": opt("io"),
            "tickets": int(row.get("tickets") or 0), "override_tickets": int(row.get("ovrts") or 0),
            "otickets": int(row.get("otckt") or 0), "ftickets": int(row.get("ftckt") or 0),
            "stickets": int(row.get("stckt") or 0), "share": float(row.get("share") or 0.0)}


def _urgency(row: dict[str, Any]) -> dict[str, Any]:
    return {key: float(row.get(key) or 0.0) for key in ("urg", "rrcontr", "wtcontr", "dlcontr")} \
        | {"deadline": iso_time(row.get("deadline") or None)}


def _subtask(sub: dict[str, Any]) -> dict[str, Any]:
    def opt(key: str) -> float | None:
        return None if sub.get(key) is None else float(sub[key])
    return {"id": str(sub["id"]), "state": sub["state"], "running": bool(sub.get("running")),
            "cpu": opt("cpu"), "mem": opt("mem"), "io": opt("io")}


def job(row: dict[str, Any], *, resources: bool = False, extended: bool = False,
        urgency: bool = False, priority: bool = False) -> dict[str, Any]:
    """One JobRow; the blocks of -r, -ext, -urg and -pri only when asked for."""
    out: dict[str, Any] = {
        "job_number": int(row["job_id"]),
        "task_id": None if row.get("task_id") is None else int(row["task_id"]),
        "pending_tasks": row.get("pending_tasks") or None,
        "priority": float(row["prio"]),
        "name": row["name"], "owner": row["owner"], "state": job_state(row["state"]),
        "submit_time": iso_time(row.get("submit_time")),
        "start_time": iso_time(row.get("start_time")),
        "queue": row.get("queue") or None, "slots": int(row["slots"]),
    }
    if "master_label" in row:  # -g t: one entry per slot
        out["master"] = row["master_label"] or None  # (a waiting job: none)
        out["continuation"] = bool(row.get("continuation"))
    if row.get("subtasks") is not None:  # -t
        out["subtasks"] = [_subtask(sub) for sub in row["subtasks"]]
    if resources:
        out["requests"] = _requests(row)
    if extended or priority:
        out["ntckts"] = float(row.get("ntckts") or 0.0)
    if urgency or priority:
        out["nurg"] = float(row.get("nurg") or 0.0)
    if priority:
        out["npprior"] = float(row.get("npprior") or 0.0)
        out["posix_priority"] = int(row.get("ppri") or 0)
    if extended:
        out["extended"] = _extended(row)
    if urgency:
        out["urgency"] = _urgency(row)
    return out


def _queue(queue: dict[str, Any], shown: dict[str, bool]) -> dict[str, Any]:
    return {"name": queue["name"], "qtype": queue["qtype"],
            "slots_reserved": int(queue["resv"]), "slots_used": int(queue["used"]),
            "slots_total": int(queue["total"]),
            "load_avg": None if queue.get("load_avg") is None else float(queue["load_avg"]),
            "arch": queue.get("arch"), "state": queue_state(queue.get("states") or ""),
            "explain": list(queue.get("explain") or []),
            "resources": [{"dominance": dom, "name": name, "value": str(value)}
                          for dom, name, value in queue.get("resources") or []],
            "jobs": [job(row, **shown) for row in queue.get("jobs") or []]}


def render_listing(running: list[dict[str, Any]], pending: list[dict[str, Any]], *,
                   queues: list[dict[str, Any]] | None = None, resources: bool = False,
                   extended: bool = False, urgency: bool = False,
                   priority: bool = False) -> str:
    """qstat (``queues`` None) or qstat -f (the queue instances with their jobs): the
    waiting jobs, then the finished ones (-s z) apart, as the text view shows them."""
    shown = {"resources": resources, "extended": extended, "urgency": urgency,
             "priority": priority}
    body: dict[str, Any] = {"full": queues is not None}
    if queues is not None:
        body["queues"] = [_queue(q, shown) for q in queues]
    else:
        body["jobs_running"] = [job(row, **shown) for row in running]
    body["jobs_pending"] = [job(row, **shown) for row in pending if row["state"] != "z"]
    body["jobs_finished"] = [job(row, **shown) for row in pending if row["state"] == "z"]
    return dump(document(LISTING_SCHEMA, body))


_CQ_KEYS = ("used", "resv", "available", "total", "temp_disabled", "manual_intervention",
            "suspend_manual", "suspend_threshold", "suspend_on_subordinate", "suspend_calendar",
            "unknown", "load_alarm", "disabled_manual", "disabled_calendar", "ambiguous",
            "orphaned", "error")


def render_cluster_queues(cqueues: list[dict[str, Any]]) -> str:
    """qstat -g c: every count of a cluster queue (-ext's too: a document has room)."""
    rows = [{"name": cq["name"], "load": None if cq.get("load") is None else float(cq["load"]),
             **{key: int(cq.get(key, 0)) for key in _CQ_KEYS}} for cq in cqueues]
    return dump(document(CQUEUE_SCHEMA, {"cluster_queues": rows}))


# --------------------------------------------------------------------------- -j

def _env(pairs: list[list[Any]] | None) -> list[dict[str, Any]]:
    return [{"name": str(n), "value": None if v is None else str(v)} for n, v in pairs or []]


def _paths(paths: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    return [{"path": p["path"], "host": p.get("host"), "file_host": p.get("file_host")}
            for p in paths or []]


def _resource_list(items: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    return [{"name": r["name"], "value": str(r["value"])} for r in items or []]


def _task(task: dict[str, Any]) -> dict[str, Any]:
    usage = task.get("usage")
    return {"task_id": int(task["task_id"]), "status": int(task.get("status", 0)),
            "running": task.get("status") == 128, "transferring": task.get("status") == 512,
            "start_time": iso_time(task.get("start_time") or None),
            "ntix": float(task.get("ntix", 0.0)), "binding": task.get("binding"),
            "usage": None if usage is None else {k: float(usage.get(k, 0.0)) for k in
                                                 ("cpu", "mem", "io", "vmem", "maxvmem")},
            "error_reasons": list(task.get("messages") or [])}


def detail(d: dict[str, Any]) -> dict[str, Any]:
    """One JobDetail, every line of the text view typed (and the -xml view's extras)."""
    env = d.get("env_list")
    submit_env = {name[len(_SGE_PREFIX):].lower(): value for name, value in env or []
                  if str(name).startswith(_SGE_PREFIX)}
    restart = d.get("restart")
    return {
        "job_number": int(d["job_number"]), "job_name": d["job_name"],
        "exec_file": d.get("exec_file"),
        "submission_time": iso_time(d.get("submission_time")),
        "deadline": iso_time(d.get("deadline") or None),
        "execution_time": iso_time(d.get("execution_time") or None),
        "owner": d["owner"], "uid": int(d["uid"]), "group": d["group"], "gid": int(d["gid"]),
        "submit_environment": submit_env,
        "env_list": None if env is None else _env([p for p in env
                                                   if not str(p[0]).startswith(_SGE_PREFIX)]),
        "account": d.get("account"), "checkpoint_name": d.get("checkpoint_name"),
        "checkpoint_attr": d.get("checkpoint_attr") or "",
        "checkpoint_interval": int(d.get("checkpoint_interval") or 0),
        "cwd": d.get("cwd"),
        "stdout_path_list": _paths(d.get("stdout_path_list")),
        "stderr_path_list": _paths(d.get("stderr_path_list")),
        "stdin_path_list": _paths(d.get("stdin_path_list")),
        "reserve": bool(d.get("reserve")), "merge_stderr": bool(d.get("merge_stderr")),
        "hard_resource_list": _resource_list(d.get("hard_resource_list")),
        "soft_resource_list": _resource_list(d.get("soft_resource_list")),
        "mail_options": d.get("mail_options") or "",
        "mail_list": [{"user": u, "host": h} for u, h in d.get("mail_list") or []],
        "notify": bool(d.get("notify")), "priority": int(d.get("priority") or 0),
        "jobshare": int(d.get("jobshare", 0)),
        "hard_queue_list": list(d.get("hard_queue_list") or []),
        "soft_queue_list": list(d.get("soft_queue_list") or []),
        "master_queue_list": list(d.get("master_queue_list") or []),
        "restart": restart if restart is None else bool(restart),
        "shell_list": [{"host": s.get("host"), "path": s["path"]} for s in d.get("shell_list") or []],
        "verify": bool(d.get("verify")),
        "job_args": None if d.get("job_args") is None else list(d["job_args"]),
        "script_size": int(d.get("script_size") or 0), "script_file": d.get("script_file"),
        "override_tickets": int(d.get("override_tickets") or 0),
        "pe": ({"name": d["pe"], "range": d.get("pe_range") or ""} if d.get("pe") else None),
        "jid_request_list": [str(j) for j in d.get("jid_request_list") or []],
        **{key: [int(j) for j in d.get(key) or []] for key in (
            "jid_predecessor_list", "jid_successor_list", "ja_ad_predecessor_list",
            "ja_ad_successor_list")},
        "verify_suitable_queues": int(d.get("verify_suitable_queues") or 0),
        "project": d.get("project"), "ar_id": int(d.get("ar_id") or 0),
        "job_array_tasks": d.get("job_array_tasks"),
        "ja_task_concurrency": int(d.get("ja_task_concurrency") or 0),
        "context": _env(d.get("context")), "binding": d.get("binding"),
        "job_type": list(d.get("job_type") or []),
        "nurg": float(d.get("nurg") or 0.0),
        "ja_tasks": [_task(t) for t in d.get("ja_tasks") or []],
        "scheduling_info": [{"message": m["message"], "number": int(m.get("number") or 0),
                             "global": bool(m.get("global"))}
                            for m in d.get("scheduling_info") or []],
    }


def render_job_details(details: list[dict[str, Any]], *, unknown: list[str] | None = None,
                       global_messages: list[str] | None = None) -> str:
    """qstat -j: the jobs found, the names that found none, the scheduler's global
    messages (``qstat -j`` without a list shows those alone)."""
    return dump(document(DETAIL_SCHEMA, {
        "jobs": [detail(d) for d in details], "unknown_jobs": list(unknown or []),
        "global_messages": list(global_messages or [])}))
