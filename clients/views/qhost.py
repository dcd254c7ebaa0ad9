"""Pure conversions from the qmaster's replies to qhost's HostRow dicts (documented in
``clients.render.qhost``): the pseudo host "global" first, then the execution hosts by
name, each with its load values, its ``-F`` resources, its queue instances (``-q``) and
its running jobs (``-j``). No I/O here.
"""
from __future__ import annotations

TYPE_CHECKING = False  # (typing only for type checkers: a command starts small)
if TYPE_CHECKING:
    from typing import Any

from common.qi_letters import state_string
from clients.views.qstat import (
    JobFilter, JobRow, Reply, Selected, hosts_by_name, instance_jobs, instance_name,
    queue_type, selected_jobs, started_jobs,
)


def _offered(offered: dict[str, list[list[str]]] | None, host: str) -> list[dict[str, Any]]:
    """The qmaster's qhost -F lines of one host (asked for with -F only) as render_qhost
    takes them."""
    return [{"dominance": source, "name": name, "value": value, "type": kind,
             "shortcut": shortcut or None}
            for source, name, value, kind, shortcut in (offered or {}).get(host) or []]


def host_rows(cluster: Reply, reply: Reply | None = None, *, hosts: list[str] | None = None,
              users: tuple[str, ...] | None = None) -> list[dict[str, Any]]:
    """qhost: "global" first, then the execution hosts by name (``hosts`` selects, no case)."""
    runtime = hosts_by_name(cluster)
    names = sorted(set(cluster.get("exechosts") or []) | set(runtime))
    if hosts is not None:
        wanted = {h.lower() for h in hosts}
        names = [n for n in names if n.lower() in wanted]
    flt = JobFilter(states=frozenset({"r", "s"}), users=users)
    started = started_jobs(selected_jobs(reply, flt)) if reply else []  # (once, not per host)
    offered = cluster.get("host_resources")
    rows = [{"name": "global", "load_values": {}, "resources": _offered(offered, "global"),
             "queues": [], "jobs": []}]
    for name in (n for n in names if n != "global"):
        load = (runtime.get(name) or {}).get("load") or {}
        rows.append({"name": name, "load_values": load, "resources": _offered(offered, name),
                     "queues": _host_queues(cluster, name),
                     "jobs": _host_jobs(cluster, name, reply, flt, started) if reply else []})
    return rows


def _host_queues(cluster: Reply, host: str) -> list[dict[str, Any]]:
    alive = bool((hosts_by_name(cluster).get(host) or {}).get("alive"))
    return [{"name": i["queue"], "qtype": queue_type(i), "resv": 0,
             "used": int(i.get("used") or 0), "total": int(i.get("slots") or 0),
             "states": state_string(str(i.get("states") or ""),
                                    alive and bool(i.get("alive")))}
            for i in cluster.get("instances") or [] if i["host"] == host]


def _host_jobs(cluster: Reply, host: str, reply: Reply, flt: JobFilter,
               started: Selected) -> list[JobRow]:
    return [row for inst in cluster.get("instances") or [] if inst["host"] == host
            for row in instance_jobs(instance_name(inst["queue"], host), reply, flt,
                                     selected=started)]
