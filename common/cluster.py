"""Queue instances derived from the configuration: pure code shared by qmaster and scheduler.

A cluster queue (``queue_conf(5)``) has a ``hostlist`` of hosts and ``@hostgroups``; it
has one queue instance ``queue@host`` on each of those hosts that is a known execution host.
Per-host values such as ``slots 1,[vm=4]`` are resolved here for each instance.

An instance also carries the states ``qmod`` gives it (``d`` disabled, ``E`` error, ``s``
suspended; the qmaster stores them, see ``qmaster.queue_control``): an instance that is
down or in any of them gets no new jobs (``QueueInstance.accepts_jobs``).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping

from common.objects_conf.host import expand_hostgroup
from common.objects_conf.queue import resolve

Pairs = list[list[str]]


@dataclass(frozen=True, slots=True)
class QueueInstance:
    queue: str
    host: str
    slots: int
    seq_no: int
    qtype: str
    alive: bool
    states: str = ""  # letters of common.qi_letters.QI_STATES
    ckpt_list: str = "NONE"  # checkpointing environments its checkpointed jobs may name

    @property
    def name(self) -> str:
        return f"{self.queue}@{self.host}"

    @property
    def accepts_jobs(self) -> bool:
        """A new job may be dispatched here: the execd is up and no qmod state says no."""
        return self.alive and not self.states

    def takes(self, interactive: bool) -> bool:
        """Whether its qtype (queue_conf(5)) takes a job of this kind: an interactive
        one (qrsh, qlogin) needs INTERACTIVE, any other BATCH."""
        return ("INTERACTIVE" if interactive else "BATCH") in _qtype_words(self.qtype)

    def takes_checkpointing(self, name: str) -> bool:
        """Whether a job checkpointed by environment ``name`` (qsub -ckpt) may run here:
        the queue's ``ckpt_list`` names it (queue_conf(5))."""
        return name in self.ckpt_list.replace(",", " ").split()

    @property
    def takes_jobs(self) -> bool:
        """Whether its qtype takes batch or interactive jobs (NONE: neither); its slots
        are shared by both kinds."""
        return bool({"BATCH", "INTERACTIVE"} & set(_qtype_words(self.qtype)))


def _qtype_words(qtype: str) -> list[str]:
    return qtype.upper().replace(",", " ").split()


def attr(pairs: Pairs, name: str, default: str = "") -> str:
    for key, value in pairs:
        if key == name:
            return value
    return default


def hostgroups(conf: Mapping[str, Mapping[str, Pairs]]) -> dict[str, list[str]]:
    """Host group name -> its hostlist entries (hosts and nested @groups)."""
    return {name: _split(attr(pairs, "hostlist", "NONE")) for name, pairs in conf["hgrp"].items()}


def _split(value: str) -> list[str]:
    items = value.replace(",", " ").split()
    return [] if items in ([], ["NONE"]) else items


def queue_hosts(queue_pairs: Pairs, groups: dict[str, list[str]]) -> set[str]:
    hosts: set[str] = set()
    for entry in _split(attr(queue_pairs, "hostlist", "NONE")):
        if entry.startswith("@"):
            hosts |= expand_hostgroup(entry, groups)
        else:
            hosts.add(entry)
    return hosts


def queue_has_host(queue_pairs: Pairs, host: str, groups: dict[str, list[str]]) -> bool:
    """Whether ``host`` is in the queue's hostlist: ``host in queue_hosts(...)``, without
    the set of every host (1,000 hosts registering would each build it)."""
    if host.startswith("@"):
        return False
    in_groups = host.upper() != "NONE"  # (a group's NONE entries name no host)
    return any(entry == host or (in_groups and entry.startswith("@") and
                                 _group_has(entry, host, groups, ()))
               for entry in _split(attr(queue_pairs, "hostlist", "NONE")))


def _group_has(name: str, host: str, groups: dict[str, list[str]],
               path: tuple[str, ...]) -> bool:
    if name in path:  # a cycle: expand_hostgroup's error, as for the whole set
        expand_hostgroup(path[0], groups)
    members = groups.get(name, ())
    return host in members or any(
        m.startswith("@") and _group_has(m, host, groups, path + (name,)) for m in members)


def host_value(queue_pairs: Pairs, name: str, host: str, groups: dict[str, list[str]],
               default: str = "") -> str:
    """The value of a queue attribute on one host, honouring ``[host=..]`` and ``[@group=..]``."""
    return resolve(attr(queue_pairs, name, default), host, groups)


def queue_instances(conf: Mapping[str, Mapping[str, Pairs]], hosts: Mapping[str, Any],
                    states: Mapping[str, Mapping[str, Any]] | None = None, *,
                    on_host: str | None = None) -> list[QueueInstance]:
    """All queue instances on known exec hosts, in queue then host order (``on_host``:
    only that host's).

    ``hosts`` maps host names to objects with an ``alive`` attribute or dicts with "alive";
    ``states`` maps ``queue@host`` to the stored qmod state (``{"states": "dE", ...}``).
    """
    groups = hostgroups(conf)
    out: list[QueueInstance] = []
    for qname in sorted(conf["queue"]):
        pairs = conf["queue"][qname]
        if on_host is not None:  # one host (a registration): no group expanded whole
            chosen = [on_host] if queue_has_host(pairs, on_host, groups) else []
        else:
            chosen = sorted(queue_hosts(pairs, groups))
        for host in chosen:
            if host not in hosts:
                continue
            qi = _instance(qname, pairs, host, groups, host_alive(hosts[host]))
            letters = str((states or {}).get(qi.name, {}).get("states") or "")
            out.append(replace(qi, states=letters) if letters else qi)
    return out


def _instance(qname: str, pairs: Pairs, host: str, groups: dict[str, list[str]],
              alive: bool) -> QueueInstance:
    slots = _int(host_value(pairs, "slots", host, groups, "1"))
    seq_no = _int(host_value(pairs, "seq_no", host, groups, "0"))
    qtype = host_value(pairs, "qtype", host, groups, "BATCH INTERACTIVE")
    ckpt_list = host_value(pairs, "ckpt_list", host, groups, "NONE")
    return QueueInstance(qname, host, slots, seq_no, qtype, alive, ckpt_list=ckpt_list)


def host_alive(host: Any) -> bool:
    """Is the exec host (an ``ExecHost`` or its dict, as the scheduler's mirror keeps
    it) up?"""
    return bool(host.get("alive") if isinstance(host, dict) else getattr(host, "alive", False))


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        return 0
