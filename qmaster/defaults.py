"""The objects a new cell starts with, as Grid Engine's installer creates them.

Global configuration and scheduler configuration with Grid Engine's defaults, the parallel
environments ``make``, ``smp`` and ``mpi``, the host group ``@allhosts`` and the queue
``all.q`` over it, the manager list and the access lists ``arusers``, ``deadlineusers`` and
``defaultdepartment``; the qmaster's host as administrative and submit host
(``ensure_host_lists``).
"""
from __future__ import annotations

from common.objects_conf.base import template
from common.objects_conf.cluster import GLOBAL_CONF, PE, SCHED_CONF
from common.objects_conf.host import EXECHOST, HOSTGROUP
from common.objects_conf.queue import QUEUE
from common.objects_conf.userset import CELL_DEFAULTS, userset_pairs
from common.resource.complexes import (COMPLEX_KIND, COMPLEX_OBJECT, default_complexes,
                                       rows_of)
from qmaster.host_rights import ADMIN_HOSTS, SUBMIT_HOSTS, find_host
from qmaster.store import Batch, Store

Pairs = list[list[str]]
GLOBAL_HOST = "global"

# Attributes that differ from the PE template, per installer PE (see sge_pe(5) files
# in $SGE_ROOT/util/resources/pe of Grid Engine 8.1.9).
_PES: dict[str, dict[str, str]] = {
    "make": {"slots": "999", "allocation_rule": "$round_robin", "job_is_first_task": "FALSE"},
    "smp": {"slots": "999", "allocation_rule": "$pe_slots", "job_is_first_task": "TRUE"},
    "mpi": {"slots": "99999", "allocation_rule": "$fill_up", "job_is_first_task": "TRUE",
            "accounting_summary": "FALSE"},
}


def _with(pairs: list[tuple[str, str]] | Pairs, changes: dict[str, str]) -> Pairs:
    return [[k, changes.get(k, v)] for k, v in pairs]


def exechost_defaults(host: str) -> Pairs:
    return _with(template(EXECHOST, host), {})


def queue_defaults(name: str, **changes: str) -> Pairs:
    return _with(template(QUEUE, name), changes)


def pe_defaults(name: str) -> Pairs:
    return _with(template(PE, name), {"control_slaves": "TRUE", "urgency_slots": "min",
                                      "accounting_summary": "TRUE", **_PES.get(name, {})})


def bootstrap(store: Store, batch: Batch, managers: list[str], min_uid: int | None) -> None:
    """Fill an empty store with the objects of a freshly installed cell."""
    ids = {} if min_uid is None else {"min_uid": str(min_uid), "min_gid": str(min_uid)}
    store.put_conf(batch, "conf", "global", _with(template(GLOBAL_CONF), ids))
    store.put_conf(batch, "sconf", "global", _with(template(SCHED_CONF), {}))
    for pe in _PES:
        store.put_conf(batch, "pe", pe, pe_defaults(pe))
    store.put_conf(batch, "hgrp", "@allhosts",
                   _with(template(HOSTGROUP, "@allhosts"), {"hostlist": "NONE"}))
    store.put_conf(batch, "queue", "all.q",
                   queue_defaults("all.q", hostlist="@allhosts", pe_list="make smp mpi"))
    store.set_list(batch, "manager", sorted(set(managers) | {"root"}))
    ensure_complexes(store, batch)
    ensure_usersets(store, batch)
    ensure_global_host(store, batch)


def ensure_global_host(store: Store, batch: Batch) -> None:
    """The pseudo host "global" (host_conf(5)): its complex_values and user lists apply
    cluster-wide; every cell has it, ``qconf -se global`` shows it."""
    if GLOBAL_HOST not in store.conf["exechost"]:
        store.put_conf(batch, "exechost", GLOBAL_HOST, exechost_defaults(GLOBAL_HOST))


def ensure_complexes(store: Store, batch: Batch) -> None:
    """Give a cell without a stored complex list Grid Engine's default one."""
    if COMPLEX_OBJECT not in store.conf[COMPLEX_KIND]:
        store.put_conf(batch, COMPLEX_KIND, COMPLEX_OBJECT, rows_of(default_complexes()))


def ensure_usersets(store: Store, batch: Batch) -> None:
    """Give a cell without any access list those of a fresh 8.1.9 cell (cells spooled
    before access lists were stored have none). A cell that has some keeps what it has,
    so a default list deleted with ``qconf -dul`` stays deleted while another list
    remains; a cell whose every list was deleted gets the three back at its next start
    (documented in docs/compatibility.md)."""
    if store.conf["userset"]:
        return
    for name, type_ in CELL_DEFAULTS.items():
        store.put_conf(batch, "userset", name, userset_pairs(name, type_))


# 8.1.9's default execd_spool_dir (common.objects_conf.cluster), which a cell made before
# the value was used still carries although its execds spool in the cell
PLACEHOLDER_EXECD_SPOOL_DIR = dict(template(GLOBAL_CONF))["execd_spool_dir"]


def ensure_execd_spool_dir(store: Store, batch: Batch, cell_spool: str,
                           cell_spool_exists: bool) -> None:
    """The global ``execd_spool_dir`` names where the cell's execds spool: a new cell's
    (``cell_spool``, ``<cell>/spool/execd``) instead of 8.1.9's default, and so does a
    cell's that was made before execds read it (its value the default, its execds'
    spool ``cell_spool`` there already). An administrator's own value stays."""
    pairs = store.conf["conf"].get("global")
    if pairs is None:
        return
    current = next((v for k, v in pairs if k == "execd_spool_dir"), None)
    fresh = not store.jobs and not store.hosts and not cell_spool_exists
    if current == PLACEHOLDER_EXECD_SPOOL_DIR and (fresh or cell_spool_exists):
        store.put_conf(batch, "conf", "global",
                       [[k, cell_spool if k == "execd_spool_dir" else v] for k, v in pairs])


def ensure_host_lists(store: Store, batch: Batch, qmaster_host: str) -> None:
    """The qmaster's host is an administrative host, as at every start of Grid Engine's
    qmaster; in a cell whose host lists were never stored (a new cell, or a spool from
    before the lists existed) it also becomes a submit host, as Grid Engine's installer
    makes the master host.

    A stored administrative host list is never empty (its qmaster's host cannot be
    deleted), so an empty one means "never stored". The submit list is left as it is
    otherwise: a host an administrator removed with ``qconf -ds`` stays removed."""
    if not qmaster_host:
        return
    never_stored = not store.lists[ADMIN_HOSTS]
    if find_host(qmaster_host, store.lists[ADMIN_HOSTS]) is None:
        store.set_list(batch, ADMIN_HOSTS, store.lists[ADMIN_HOSTS] + [qmaster_host])
    if never_stored and not store.lists[SUBMIT_HOSTS]:
        store.set_list(batch, SUBMIT_HOSTS, [qmaster_host])
