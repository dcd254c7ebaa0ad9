"""Request handlers for configuration objects (what ``qconf`` shows and changes).

Only managers change configuration. Every object is re-validated here with the same
checks ``qconf`` applies locally, because the qmaster trusts no client. Answers carry
Grid Engine's confirmation texts (``root@vm added "@x" to host group list``).
"""
from __future__ import annotations

from typing import Any

from common.cluster import attr, queue_instances
from common.conffile import ConfError
from common.objects_conf import KINDS, hostgroup_cycle
from common.objects_conf_base import normalize
from qmaster.context import Ctx, RequestError
from qmaster.store import CONF_KINDS, LIST_KINDS

# store kind -> (objects_conf kind name, Grid Engine's list name in messages)
KIND_INFO: dict[str, tuple[str, str]] = {
    "queue": ("queue", "cluster queue list"),
    "hgrp": ("hostgroup", "host group list"),
    "exechost": ("exechost", "execution host list"),
    "pe": ("pe", "parallel environment list"),
    "conf": ("conf", "configuration list"),
    "sconf": ("sched", "scheduler configuration"),
}
LIST_NAMES = {"manager": "manager list", "operator": "operator list"}


def handle_conf_get(ctx: Ctx) -> dict[str, Any]:
    kind = ctx.body["kind"]
    if kind in LIST_KINDS:
        return {"objects": list(ctx.store.lists[kind])}
    if kind not in CONF_KINDS:
        raise RequestError("malformed", f"unknown object kind \"{kind}\"")
    return {"objects": dict(ctx.store.conf[kind])}


def handle_cluster_query(ctx: Ctx) -> dict[str, Any]:
    store = ctx.store
    instances = queue_instances(store.conf, store.hosts)
    return {
        "hosts": [h.to_dict() for h in store.hosts.values()],
        "exechosts": sorted(store.conf["exechost"]),
        "instances": [{"queue": qi.queue, "host": qi.host, "slots": qi.slots,
                       "used": store.used_slots.get((qi.queue, qi.host), 0),
                       "qtype": qi.qtype, "alive": qi.alive,
                       "pe_list": attr(store.conf["queue"][qi.queue], "pe_list", "NONE")}
                      for qi in instances],
        "queues": sorted(store.conf["queue"]),
    }


def _who(ctx: Ctx) -> str:
    user = ctx.user
    return f"{user.name}@{user.host}" if user.host else user.name


def handle_conf_put(ctx: Ctx) -> dict[str, Any]:
    ctx.require_manager()
    kind, name, mode = ctx.body["kind"], ctx.body["name"], ctx.body["mode"]
    if kind in LIST_KINDS:
        return _put_list_entry(ctx, kind, name, mode)
    if kind not in CONF_KINDS or mode not in ("add", "modify"):
        raise RequestError("malformed", f"cannot {mode} objects of kind \"{kind}\"")
    pairs = _validated(kind, ctx.body["data"])
    exists = name in ctx.store.conf[kind]
    if mode == "add" and exists:
        raise RequestError("exists", f"\"{name}\" already exists")
    if mode == "modify" and not exists and kind not in ("conf", "sconf"):
        raise RequestError("missing", f"\"{name}\" does not exist")
    _check_references(ctx, kind, name, pairs)
    ctx.store.put_conf(ctx.batch, kind, name, pairs)
    verb = "added" if mode == "add" else "modified"
    prep = "to" if mode == "add" else "in"
    return {"message": f"{_who(ctx)} {verb} \"{name}\" {prep} {KIND_INFO[kind][1]}"}


def _validated(kind: str, data: Any) -> list[list[str]]:
    if not isinstance(data, list) or not all(isinstance(p, (list, tuple)) and len(p) == 2
                                             and all(isinstance(x, str) for x in p)
                                             for p in data):
        raise RequestError("malformed", "configuration must be a list of [name, value] pairs")
    try:
        return [list(p) for p in normalize(KINDS[KIND_INFO[kind][0]], data, complete=True)]
    except ConfError as err:
        raise RequestError("invalid", err.message) from None


def _check_references(ctx: Ctx, kind: str, name: str, pairs: list[list[str]]) -> None:
    conf = ctx.store.conf
    if kind == "hgrp":
        groups = {g: attr(p, "hostlist", "NONE").split() for g, p in conf["hgrp"].items()}
        cycle = hostgroup_cycle(name, attr(pairs, "hostlist", "NONE").split(), groups)
        if cycle:
            raise RequestError("invalid", cycle)
    if kind == "queue":
        for pe in attr(pairs, "pe_list", "NONE").replace(",", " ").split():
            if pe != "NONE" and "[" not in pe and "=" not in pe and pe not in conf["pe"]:
                raise RequestError("invalid", f"denied: parallel environment \"{pe}\" "
                                              "does not exist")


def _put_list_entry(ctx: Ctx, kind: str, name: str, mode: str) -> dict[str, Any]:
    names = ctx.store.lists[kind]
    label = LIST_NAMES[kind]
    if mode == "add":
        if name in names:
            raise RequestError("exists", f"\"{name}\" already exists in {label}")
        ctx.store.set_list(ctx.batch, kind, names + [name])
        return {"message": f"{_who(ctx)} added \"{name}\" to {label}"}
    raise RequestError("malformed", f"cannot {mode} {label}")


def handle_conf_del(ctx: Ctx) -> dict[str, Any]:
    ctx.require_manager()
    kind, name = ctx.body["kind"], ctx.body["name"]
    if kind in LIST_KINDS:
        return _delete_list_entry(ctx, kind, name)
    if kind not in CONF_KINDS:
        raise RequestError("malformed", f"unknown object kind \"{kind}\"")
    if name not in ctx.store.conf[kind]:
        raise RequestError("missing", f"\"{name}\" does not exist")
    _check_unreferenced(ctx, kind, name)
    ctx.store.delete_conf(ctx.batch, kind, name)
    if kind == "exechost":
        ctx.store.hosts.pop(name, None)
    return {"message": f"{_who(ctx)} removed \"{name}\" from {KIND_INFO[kind][1]}"}


def _check_unreferenced(ctx: Ctx, kind: str, name: str) -> None:
    conf = ctx.store.conf
    if kind == "hgrp":
        for qname, pairs in conf["queue"].items():
            if name in attr(pairs, "hostlist", "").split():
                raise RequestError("referenced", f"denied: host group \"{name}\" is still "
                                                 f"referenced in cluster queue \"{qname}\"")
    if kind == "pe":
        for qname, pairs in conf["queue"].items():
            if name in attr(pairs, "pe_list", "").replace(",", " ").split():
                raise RequestError("referenced", f"denied: parallel environment \"{name}\" is "
                                                 f"still referenced in queue \"{qname}\"")
    if kind == "queue" and any(t.queue == name and t.state in ("transferring", "running",
                                                               "suspended", "deleted")
                               for t in ctx.store.tasks.values()):
        raise RequestError("busy", f"denied: cluster queue \"{name}\" has running jobs")


def _delete_list_entry(ctx: Ctx, kind: str, name: str) -> dict[str, Any]:
    names = ctx.store.lists[kind]
    label = LIST_NAMES[kind]
    if name not in names:
        raise RequestError("missing", f"denied: \"{name}\" does not exist in {label}")
    ctx.store.set_list(ctx.batch, kind, [n for n in names if n != name])
    return {"message": f"{_who(ctx)} removed \"{name}\" from {label}"}
