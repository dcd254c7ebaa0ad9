"""Pure conversions from the qmaster's replies to qhost's HostRow dicts (documented in
``clients.render_qhost``): the pseudo host "global" first, then the execution hosts by
name, each with its load values, its ``-F`` resources, its queue instances (``-q``) and
its running jobs (``-j``). No I/O here.
"""
from __future__ import annotations

from typing import Any

from clients.views import (
    JobFilter, JobRow, Reply, complex_attr, hosts_by_name, instance_jobs, instance_name,
    queue_type,
)

def _host_resource_list(load: dict[str, str]) -> list[dict[str, Any]]:
    """qhost -F entries in load report order, typed by the complex of the same name."""
    attrs = {name: complex_attr(name) for name in load}
    return [{"name": name, "dominance": "hl", "value": value,
             "type": attrs[name].type.value if attrs[name] else "STRING",
             "shortcut": attrs[name].shortcut if attrs[name] else None}
            for name, value in load.items()]


def _offered(offered: dict[str, list[list[str]]], host: str) -> list[dict[str, Any]]:
    """The qmaster's qhost -F lines of one host as render_qhost takes them."""
    return [{"dominance": source, "name": name, "value": value, "type": kind,
             "shortcut": shortcut or None}
            for source, name, value, kind, shortcut in offered.get(host) or []]


def host_rows(cluster: Reply, reply: Reply | None = None, *, hosts: list[str] | None = None,
              users: tuple[str, ...] | None = None) -> list[dict[str, Any]]:
    """qhost: "global" first, then the execution hosts by name (``hosts`` selects, no case)."""
    runtime = hosts_by_name(cluster)
    names = sorted(set(cluster.get("exechosts") or []) | set(runtime))
    if hosts is not None:
        wanted = {h.lower() for h in hosts}
        names = [n for n in names if n.lower() in wanted]
    flt = JobFilter(states=frozenset({"r", "s"}), users=users)
    offered = cluster.get("host_resources")
    rows = [{"name": "global", "load_values": {},
             "resources": _offered(offered, "global") if offered is not None else [],
             "queues": [], "jobs": []}]
    for name in (n for n in names if n != "global"):
        load = (runtime.get(name) or {}).get("load") or {}
        resources = _offered(offered, name) if offered is not None and name in offered \
            else _host_resource_list(load)
        rows.append({"name": name, "load_values": load, "resources": resources,
                     "queues": _host_queues(cluster, name),
                     "jobs": _host_jobs(cluster, name, reply, flt) if reply else []})
    return rows


def _host_queues(cluster: Reply, host: str) -> list[dict[str, Any]]:
    alive = bool((hosts_by_name(cluster).get(host) or {}).get("alive"))
    return [{"name": i["queue"], "qtype": queue_type(i), "resv": 0,
             "used": int(i.get("used") or 0), "total": int(i.get("slots") or 0),
             "states": "" if alive and i.get("alive") else "u"}
            for i in cluster.get("instances") or [] if i["host"] == host]


def _host_jobs(cluster: Reply, host: str, reply: Reply, flt: JobFilter) -> list[JobRow]:
    return [row for inst in cluster.get("instances") or [] if inst["host"] == host
            for row in instance_jobs(instance_name(inst["queue"], host), reply, flt)]
