"""``qhost -fmt json``: the hosts with their summary values, ``-F`` resources, ``-q``
queue instances and ``-j`` jobs, from the HostRows the text and XML views take
(``clients.render.qhost``). Memory values in bytes, times in seconds, the -F values
also as the text view prints them. Schema: ``qhost-1.json``.
"""
from __future__ import annotations

from clients.render.jsondoc import document, dump, iso_time, job_state, queue_state
from clients.render.qhost import parse_time, selected_resources, parse_memory, resource_value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SCHEMA = "qhost-1.json"
_COUNTS = ("num_proc", "m_socket", "m_core", "m_thread")
_MEMORY = ("mem_total", "mem_used", "swap_total", "swap_used")
_STRING_TYPES = ("STRING", "CSTRING", "RESTRING", "HOST")


def _finite(value: float | None) -> float | str | None:
    if value is None:
        return None
    return "INFINITY" if value == float("inf") else value


def _summary(raw: dict[str, str]) -> dict[str, Any]:
    """The host line's values typed ("-" in the text view: null)."""
    out: dict[str, Any] = {"arch_string": raw.get("arch")}
    for key in _COUNTS:
        value = parse_memory(raw[key]) if key in raw else None
        out[key] = None if value is None or value == float("inf") else int(value)
    out["load_avg"] = _finite(parse_memory(raw["load_avg"])) if "load_avg" in raw else None
    for key in _MEMORY:
        out[key] = _finite(parse_memory(raw[key])) if key in raw else None
    return out


def _typed(resource: dict[str, Any]) -> Any:
    """A -F value as a JSON value of its complex type (memory bytes, time seconds)."""
    kind, raw = resource["type"].upper(), str(resource["value"])
    if kind in _STRING_TYPES:
        return raw
    if raw.strip().lower() == "infinity":
        return "INFINITY"
    if kind in ("BOOL", "BOOLEAN"):
        return raw.lower() in ("true", "1", "yes", "y")
    if kind == "TIME":
        return parse_time(raw)
    return _finite(parse_memory(raw))


def _resource(resource: dict[str, Any]) -> dict[str, Any]:
    return {"name": resource["name"], "dominance": resource["dominance"],
            "type": resource["type"].upper(), "value": _typed(resource),
            "text": resource_value(resource)}


def _queue(queue: dict[str, Any]) -> dict[str, Any]:
    return {"name": queue["name"], "qtype": queue["qtype"], "slots_reserved": int(queue["resv"]),
            "slots_used": int(queue["used"]), "slots_total": int(queue["total"]),
            "state": queue_state(queue.get("states") or "")}


def _job(row: dict[str, Any]) -> dict[str, Any]:
    return {"job_number": int(row["job_id"]),
            "task_id": None if row.get("task_id") is None else int(row["task_id"]),
            "priority": float(row["prio"]), "name": row["name"], "owner": row["owner"],
            "state": job_state(row["state"]), "submit_time": iso_time(row.get("submit_time")),
            "start_time": iso_time(row.get("start_time")), "queue": row.get("queue"),
            "slots": int(row["slots"]), "master": bool(row.get("master"))}


def _host(host: dict[str, Any], *, show_queues: bool, show_jobs: bool,
          resource_names: list[str] | None, show_resources: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"name": host["name"], **_summary(host.get("load_values") or {})}
    if show_resources:
        out["resources"] = [_resource(r) for r in selected_resources(host, resource_names)]
    if show_queues:
        out["queues"] = [_queue(q) for q in host.get("queues") or []]
    if show_jobs:
        instances = [f"{q['name']}@{host['name']}" for q in host.get("queues") or []]
        out["jobs"] = [_job(row) for name in instances for row in host.get("jobs") or []
                       if row.get("queue") == name]
    return out


def render_hosts_json(hosts: list[dict[str, Any]], *, show_queues: bool = False,
                      show_jobs: bool = False, resource_names: list[str] | None = None,
                      show_resources: bool = False, topology: bool = True) -> str:
    """qhost -fmt json; the switches of render_hosts (-ncb leaves the topology out)."""
    show_resources = show_resources or resource_names is not None
    rows = [_host(h, show_queues=show_queues, show_jobs=show_jobs,
                  resource_names=resource_names, show_resources=show_resources) for h in hosts]
    if not topology:
        for row in rows:
            for key in _COUNTS[1:]:
                row.pop(key)
    return dump(document(SCHEMA, {"hosts": rows}))
