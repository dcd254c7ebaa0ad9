"""Request handlers for configuration objects (what ``qconf`` shows and changes).

Only managers change configuration (access lists: operators too, see
``qmaster.conf.userset``). Every object is re-validated here with the same
checks ``qconf`` applies locally, because the qmaster trusts no client. Answers carry
Grid Engine 8.1.9's texts, which differ per kind: ``root@vm added "x.q" to cluster queue
list``, ``root@vm removed "@x" from host group entry list``, ``root@vm added "h" to
exechost list`` but ``root@vm removed "h" from execution host list``, ``changed scheduler
configuration``; refusals read ``cluster queue "all.q" already exists`` and ``denied:
host group "@x" does not exist``.

A host named in a host group becomes an execution host (with the defaults of a new one)
when the group is added or changed, as in Grid Engine; it stays when the group goes.

The administrative and submit host lists (kinds "adminhost", "submithost") are name
lists like the manager list, with their own texts: ``h added to administrative host
list`` (8.1.9 names neither user nor host there), ``adminhost "h" already exists``,
``denied: submit host "h" does not exist``; entries are matched as
``qmaster.host_rights.same_host`` says, and the qmaster's host cannot leave the
administrative list. Reads need an administrative or submit host, changes an
administrative host (``qmaster.host_rights``).

The complex attribute list (kind "complex") is ``qmaster.conf.complex``'s.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from common.cluster import attr, queue_instances
from common.conffile import ConfError
from common.model import CONF_KINDS
from common.objects_conf import KINDS, hostgroup_cycle
from common.objects_conf.base import normalize
from common.objects_conf.host import report_variables_refusal
from common.objects_conf.queue import parse_host_overrides
from common.placement.load_alarm import Check, exceeded
from common.placement.resources import global_load
from common.resource.complexes import COMPLEX_KIND, COMPLEX_OBJECT, cell_complexes, rows_of
from qmaster.conf.complex import (
    complex_values_refusal, delete_complex_entry, put_complexes,
)
from qmaster.context import Ctx, RequestError
from qmaster.defaults import GLOBAL_HOST, exechost_defaults
from qmaster.host_rights import (
    ADMIN_HOSTS, HOST_KINDS, HOST_RIGHTS, find_host, host_name_problem, require_admin_host,
    require_known_host, rights_of,
)
from qmaster.conf.calendar import KIND as CALENDAR_KIND
from qmaster.conf.hostconf import (GLOBAL_CONF, check_conf_exists, check_local_conf_name,
                                       deletable_conf)
from qmaster.conf.calendar import check_calendar, check_calendars_exist
from qmaster.conf.calendar import check_unreferenced as check_calendar_unreferenced
from qmaster.conf.ckpt import KIND as CKPT_KIND
from qmaster.conf.ckpt import check_ckpt, check_ckpts_exist
from qmaster.conf.ckpt import check_unreferenced as check_ckpt_unreferenced
from qmaster.conf.project import KIND as PROJECT_KIND
from qmaster.conf.project import check_project, check_projects_exist
from qmaster.conf.project import check_unreferenced as check_project_unreferenced
from qmaster.policy_objects import (SHARETREE_KIND, check_not_in_sharetree,
                                    check_project_name_free, check_user, delete_sharetree,
                                    put_sharetree)
from qmaster.conf.rqs import KIND as RQS_KIND
from qmaster.reprioritize import sync_global_conf
from qmaster.conf.rqs import put_rule_set
from qmaster.store import LIST_KINDS
from qmaster.conf.userset import (check_lists_exist, check_unreferenced, check_userset,
                                      require_permission)
from common.placement.offers import host_offers, instance_offers
from qmaster.placement_view import instance_alarms, instances_of, store_pass_input
from qmaster.queue_control import apply_initial_state


@dataclass(frozen=True)
class KindWords:
    """How Grid Engine names one kind: its objects_conf kind, the object in refusals
    (``exists`` and ``missing`` differ for exec hosts) and the list in confirmations
    (``deleted_from`` differs for exec hosts and host groups)."""

    conf_kind: str
    exists: str
    missing: str
    listed_in: str
    deleted_from: str
    missing_on_delete: str = ""  # if -d* words it otherwise (checkpointing environments)


WORDS: dict[str, KindWords] = {
    "queue": KindWords("queue", "cluster queue", "cluster queue", "cluster queue",
                       "cluster queue"),
    "hgrp": KindWords("hostgroup", "host group", "host group", "host group",
                      "host group entry"),
    "exechost": KindWords("exechost", "exechost", "execution host", "exechost",
                          "execution host"),
    "pe": KindWords("pe", "parallel environment", "parallel environment",
                    "parallel environment", "parallel environment"),
    "conf": KindWords("conf", "configuration", "configuration", "configuration",
                      "configuration"),
    "sconf": KindWords("sched", "scheduler configuration", "scheduler configuration",
                       "scheduler configuration", "scheduler configuration"),
    "manager": KindWords("", "manager", "manager", "manager", "manager"),
    "operator": KindWords("", "operator", "operator", "operator", "operator"),
    "userset": KindWords("userset", "userset", "userset", "userset", "userset"),
    "adminhost": KindWords("", "adminhost", "administrative host", "administrative host",
                           "administrative host"),
    "submithost": KindWords("", "submithost", "submit host", "submit host", "submit host"),
    "rqs": KindWords("", "resource quota set", "resource quota set", "resource quota set",
                     "resource quota set"),
    "project": KindWords("project", "project", "project", "project", "project"),
    "calendar": KindWords("calendar", "calendar", "calendar", "calendar", "calendar"),
    "user": KindWords("user", "user", "user", "user", "user"),
    "ckpt": KindWords("ckpt", "checkpoint interface", "checkpoint interface",
                      "checkpoint interface", "checkpointing environment",
                      "checkpointing environment"),
}
SCHED_CHANGED = "changed scheduler configuration"


def already_exists(kind: str, name: str) -> str:
    return f'{WORDS[kind].exists} "{name}" already exists'


def does_not_exist(kind: str, name: str, *, deleting: bool = False) -> str:
    words = WORDS[kind]
    missing = words.missing_on_delete if deleting and words.missing_on_delete else words.missing
    return f'denied: {missing} "{name}" does not exist'


def handle_conf_get(ctx: Ctx) -> dict[str, Any]:
    kind = ctx.body["kind"]
    # the cluster configuration is for execution hosts too (8.1.9's rule for reading it)
    require_known_host(ctx.store, ctx.user, exec_hosts=kind == "conf")
    if kind == HOST_RIGHTS:
        return {"objects": rights_of(ctx.store, ctx.user.host)}
    if kind in LIST_KINDS:
        return {"objects": list(ctx.store.lists[kind])}
    if kind not in CONF_KINDS:
        raise RequestError("malformed", f"unknown object kind \"{kind}\"")
    if kind == COMPLEX_KIND:  # a cell that never changed its list has the defaults
        return {"objects": {COMPLEX_OBJECT: rows_of(cell_complexes(ctx.store.conf))}}
    return {"objects": dict(ctx.store.conf[kind])}


def handle_cluster_query(ctx: Ctx) -> dict[str, Any]:
    require_known_host(ctx.store, ctx.user)
    store = ctx.store
    instances = instances_of(store)
    alarms = instance_alarms(store, instances)
    view = store_pass_input(store).resources if ctx.body.get("resources") else None
    offers = {(qi.queue, qi.host): instance_offers(view, qi, store.used_slots)
              for qi in instances} if view is not None else {}
    reply = {
        "hosts": [h.to_dict() for h in store.hosts.values()],
        "exechosts": sorted(store.conf["exechost"]),
        "instances": [{"queue": qi.queue, "host": qi.host, "slots": qi.slots,
                       "used": store.used_slots.get((qi.queue, qi.host), 0),
                       "qtype": qi.qtype, "alive": qi.alive,
                       "states": qi.states + _alarm_letters(alarms[(qi.queue, qi.host)]),
                       "alarms": _alarm_lines(alarms[(qi.queue, qi.host)]),
                       "reason": store.qi_states.get(qi.name, {}).get("reason", ""),
                       "pe_list": attr(store.conf["queue"][qi.queue], "pe_list", "NONE"),
                       "resources": offers.get((qi.queue, qi.host), [])}
                      for qi in instances],
        "queues": sorted(store.conf["queue"]),
        "global_load": global_load(store.hosts),  # qconf -se global's load_values
    }
    if ctx.body.get("select"):  # qstat/qselect/qhost -l (common.placement.select)
        reply["selected"] = resource_selection(store, instances, ctx.body["select"])
    if view is not None:  # qhost -F: the global pseudo host and each exec host
        reply["host_resources"] = {name: host_offers(view, None if name == GLOBAL_HOST
                                                     else name)
                                   for name in store.conf["exechost"]}
    return reply


def resource_selection(store: Any, instances: Any, text: str) -> dict[str, list[str]]:
    """The queue instances ("queue@host") and hosts that offer the -l list ``text`` now;
    a list naming no attribute gets 8.1.9's words as ``error`` (and selects nothing: the
    query itself is answered, whatever it selects)."""
    from common.placement import select
    from common.resource.complexes import ComplexError
    view = store_pass_input(store).resources
    try:
        requests = select.parse_selection(text, view)
    except ComplexError as err:
        return {"instances": [], "hosts": [], "error": str(err)}
    pairs = select.selected_instances(requests, view, [(qi.queue, qi.host) for qi in instances])
    return {"instances": [f"{q}@{h}" for q, h in pairs],
            "hosts": select.selected_hosts(requests, view, sorted(
                h for h in store.conf["exechost"] if h != GLOBAL_HOST))}


def _alarm_letters(checks: tuple[list[Check], list[Check]]) -> str:
    """``a`` over a load threshold, ``A`` over a suspend threshold."""
    return ("a" if exceeded(checks[0]) else "") + ("A" if exceeded(checks[1]) else "")


def _alarm_lines(checks: tuple[list[Check], list[Check]]) -> dict[str, list[str]]:
    """qstat -explain a/A: every threshold of an instance in alarm, exceeded or not."""
    out = {}
    if exceeded(checks[0]):
        out["a"] = [c.alarm_line("load") for c in checks[0]]
    if exceeded(checks[1]):
        out["A"] = [c.alarm_line("suspend") for c in checks[1]]
    return out


def _who(ctx: Ctx) -> str:
    user = ctx.user
    return f"{user.name}@{user.host}" if user.host else user.name


def _confirmation(ctx: Ctx, kind: str, name: str, verb: str) -> str:
    """``root@vm added "x" to ... list`` and its modified/removed forms (8.1.9 prints
    at most 100 characters of a name there)."""
    name = name[:100]
    if kind == "sconf":
        return SCHED_CHANGED
    words = WORDS[kind]
    if kind in HOST_KINDS and verb == "added":  # 8.1.9's qconf -ah/-as words it so
        return f"{name} added to {words.listed_in} list"
    if verb == "removed":
        return f'{_who(ctx)} removed "{name}" from {words.deleted_from} list'
    prep = "to" if verb == "added" else "in"
    return f'{_who(ctx)} {verb} "{name}" {prep} {words.listed_in} list'


INSTANCE_KINDS = frozenset({"queue", "hgrp", "exechost"})  # changes that add instances


def handle_conf_put(ctx: Ctx) -> dict[str, Any]:
    kind, name, mode = ctx.body["kind"], ctx.body["name"], ctx.body["mode"]
    require_permission(ctx, kind)
    require_admin_host(ctx.store, ctx.user)
    if kind in LIST_KINDS:
        return _put_list_entry(ctx, kind, name, mode)
    if kind == COMPLEX_KIND:
        return put_complexes(ctx, name, ctx.body["data"], mode, _who(ctx))
    if kind == RQS_KIND:
        pairs = put_rule_set(ctx, name, ctx.body["data"], mode)
        ctx.store.put_conf(ctx.batch, kind, name, pairs)
        return {"message": _confirmation(ctx, kind, name,
                                         "added" if mode == "add" else "modified")}
    if kind not in CONF_KINDS or mode not in ("add", "modify"):
        raise RequestError("malformed", f"cannot {mode} objects of kind \"{kind}\"")
    if kind == SHARETREE_KIND:  # one tree, replaced whole (policy_objects)
        return put_sharetree(ctx, ctx.body["data"])
    if kind == "conf" and name != GLOBAL_CONF:
        check_local_conf_name(name)
    # a host-local configuration holds only what differs from the global one
    pairs = _validated(kind, ctx.body["data"], complete=kind != "conf" or name == GLOBAL_CONF)
    if kind == PROJECT_KIND:  # its name rules come first, in 8.1.9's words
        check_project(ctx.store.conf, pairs)
    if kind == CALENDAR_KIND:  # so do a calendar's, then its year and week
        check_calendar(pairs)
    if kind == CKPT_KIND:
        pairs = check_ckpt(pairs)
    _check_object_name(kind, name, pairs)
    exists = name in ctx.store.conf[kind]
    if kind == "conf":
        check_conf_exists(name, mode, exists)
    if mode == "add" and exists:
        raise RequestError("exists", already_exists(kind, name))
    if mode == "modify" and not exists and kind != "sconf":
        raise RequestError("missing", does_not_exist(kind, name))
    if kind == "user":
        check_user(ctx.store.conf, pairs, mode)
    if kind == PROJECT_KIND and mode == "add":
        check_project_name_free(ctx.store.conf, pairs)
    _check_references(ctx, kind, name, pairs)
    if kind == "userset":
        check_userset(pairs, mode, ctx.store.conf["userset"])
    before = _instance_names(ctx) if kind in INSTANCE_KINDS else set()
    ctx.store.put_conf(ctx.batch, kind, name, pairs)
    if kind == "sconf":  # sge_conf(5) reprioritize follows reprioritize_interval
        sync_global_conf(ctx)
    if kind == "hgrp":
        _add_member_exechosts(ctx, pairs)
    if kind in INSTANCE_KINDS:
        apply_initial_state(ctx, [qi for qi in queue_instances(ctx.store.conf, ctx.store.hosts)
                                  if qi.name not in before])
    return {"message": _confirmation(ctx, kind, name, "added" if mode == "add" else "modified")}


def _instance_names(ctx: Ctx) -> set[str]:
    return {qi.name for qi in queue_instances(ctx.store.conf, ctx.store.hosts)}


def _add_member_exechosts(ctx: Ctx, pairs: list[list[str]]) -> None:
    """Grid Engine makes every host of a host group an execution host."""
    known = {h.lower() for h in ctx.store.conf["exechost"]}
    for member in attr(pairs, "hostlist", "NONE").split():
        if member.startswith("@") or member.upper() == "NONE" or member.lower() in known:
            continue
        ctx.store.put_conf(ctx.batch, "exechost", member, exechost_defaults(member))
        known.add(member.lower())


def _validated(kind: str, data: list[list[str]] | None, *,
               complete: bool = True) -> list[list[str]]:
    if data is None or not all(len(p) == 2 for p in data):  # wire: lists of strings
        raise RequestError("malformed", "configuration must be a list of [name, value] pairs")
    try:
        return [list(p) for p in normalize(KINDS[WORDS[kind].conf_kind], data,
                                           complete=complete)]
    except ConfError as err:
        raise RequestError("invalid", err.message) from None


def _check_object_name(kind: str, name: str, pairs: list[list[str]]) -> None:
    """The object is stored under the name it carries (``qname``, ``pe_name``, ...), which
    its kind's validator has checked: a request may not file it under another."""
    key = KINDS[WORDS[kind].conf_kind].key
    if key and attr(pairs, key, "") != name:
        raise RequestError("invalid", f'denied: {kind} "{name}" names itself '
                                      f'"{attr(pairs, key, "")}" in {key}')


def _check_references(ctx: Ctx, kind: str, name: str, pairs: list[list[str]]) -> None:
    conf = ctx.store.conf
    if kind == "hgrp":
        groups = {g: attr(p, "hostlist", "NONE").split() for g, p in conf["hgrp"].items()}
        cycle = hostgroup_cycle(name, attr(pairs, "hostlist", "NONE").split(), groups)
        if cycle:
            raise RequestError("invalid", cycle)
    if kind in ("queue", "exechost"):
        refusal = complex_values_refusal(kind, pairs, cell_complexes(conf))
        if refusal:
            raise RequestError("invalid", refusal)
    if kind == "exechost":  # (the reporting file's host records)
        refusal = report_variables_refusal(pairs, (n for a in cell_complexes(conf)
                                                    for n in (a.name, a.shortcut)))
        if refusal:
            raise RequestError("invalid", refusal)
    if kind == "queue":
        for pe in sorted(_pe_list_names(attr(pairs, "pe_list", "NONE"))):
            if pe not in conf["pe"]:
                raise RequestError("invalid", does_not_exist("pe", pe))
    check_lists_exist(conf, kind, pairs)
    check_projects_exist(conf, kind, name, pairs)
    check_calendars_exist(conf, kind, pairs)
    check_ckpts_exist(conf, kind, pairs)


def _pe_list_names(text: str) -> set[str]:
    """Every PE a queue's ``pe_list`` names, its ``[host=...]`` entries included."""
    try:
        default, overrides = parse_host_overrides(text)
    except ConfError:
        default, overrides = text, {}
    return {name for value in (default, *overrides.values())
            for name in value.replace(",", " ").split() if name.upper() != "NONE"}


def _put_list_entry(ctx: Ctx, kind: str, name: str, mode: str) -> dict[str, Any]:
    names = ctx.store.lists[kind]
    if mode != "add":
        raise RequestError("malformed", f"cannot {mode} {kind} list")
    if kind in HOST_KINDS:
        problem = host_name_problem(name)
        if problem:
            raise RequestError("invalid", problem)
        present = find_host(name, names)  # vm is vm.example.org (host_rights.same_host)
        if present is not None:
            raise RequestError("exists", already_exists(kind, present))
    if name in names:
        raise RequestError("exists", already_exists(kind, name))
    ctx.store.set_list(ctx.batch, kind, names + [name])
    return {"message": _confirmation(ctx, kind, name, "added")}


def handle_conf_del(ctx: Ctx) -> dict[str, Any]:
    kind, name = ctx.body["kind"], ctx.body["name"]
    require_permission(ctx, kind)
    require_admin_host(ctx.store, ctx.user)
    if kind in LIST_KINDS:
        return _delete_list_entry(ctx, kind, name)
    if kind == COMPLEX_KIND:
        return delete_complex_entry(ctx, name, _who(ctx))
    if kind not in CONF_KINDS:
        raise RequestError("malformed", f"cannot delete objects of kind \"{kind}\"")
    if kind == "exechost" and name == GLOBAL_HOST:
        raise RequestError("denied", f'denied: pseudo host "{name}" may not be deleted')
    if kind == SHARETREE_KIND:
        return delete_sharetree(ctx)
    if kind == "conf":
        stored = deletable_conf(name, ctx.store.conf[kind])
        if stored is None:  # 8.1.9 says "removed" for a host without one
            return {"message": _confirmation(ctx, kind, name, "removed")}
        name = stored  # "VM" removes the configuration of "vm", which it is
    if name not in ctx.store.conf[kind]:
        raise RequestError("missing", does_not_exist(kind, name, deleting=True))
    _check_unreferenced(ctx, kind, name)
    ctx.store.delete_conf(ctx.batch, kind, name)
    if kind == "exechost":
        ctx.store.hosts.pop(name, None)
    return {"message": _confirmation(ctx, kind, name, "removed")}


def _check_unreferenced(ctx: Ctx, kind: str, name: str) -> None:
    conf = ctx.store.conf
    if kind == "hgrp":
        for qname, pairs in conf["queue"].items():
            if name in attr(pairs, "hostlist", "").split():
                raise RequestError("referenced", f"denied: host group \"{name}\" is still "
                                                 f"referenced in cluster queue \"{qname}\"")
    if kind == "pe":
        for qname, pairs in conf["queue"].items():
            if name in _pe_list_names(attr(pairs, "pe_list", "NONE")):
                raise RequestError("referenced", f"denied: Parallel environment \"{name}\" "
                                                 f"is still referenced in queue \"{qname}\".")
    if kind == "userset":
        check_unreferenced(ctx, name)
    if kind in (PROJECT_KIND, "user"):
        check_not_in_sharetree(conf, kind, name)
    if kind == PROJECT_KIND:
        check_project_unreferenced(conf, name)
    if kind == CALENDAR_KIND:
        check_calendar_unreferenced(conf, name)
    if kind == CKPT_KIND:
        check_ckpt_unreferenced(conf, name)
    if kind == "queue" and any(t.queue == name and t.state in ("transferring", "running",
                                                               "suspended", "deleted")
                               for t in ctx.store.tasks.values()):
        raise RequestError("busy", f"denied: cluster queue \"{name}\" has running jobs")


def _delete_list_entry(ctx: Ctx, kind: str, name: str) -> dict[str, Any]:
    names = ctx.store.lists[kind]
    if kind in HOST_KINDS:
        name = find_host(name, names) or name
        if kind == ADMIN_HOSTS and find_host(ctx.services.qmaster_host, [name]):
            raise RequestError("denied", f'denied: can\'t delete master host "{name}" from '
                                         "admin host list")
    if name not in names:
        raise RequestError("missing", does_not_exist(kind, name))
    ctx.store.set_list(ctx.batch, kind, [n for n in names if n != name])
    return {"message": _confirmation(ctx, kind, name, "removed")}
