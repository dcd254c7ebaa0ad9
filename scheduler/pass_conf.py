"""What the dispatch pass needs of the cell's configuration besides the resource view:
parallel environments, which queues offer which PE, and the members of host groups.

Pure; built once from the configuration objects (``[name, value]`` pairs by kind) by
every user of the pass: the scheduler's mirror, the qmaster's ``qsub -w e/v`` check and
its ``qstat -j`` reasons.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from common.cluster import attr, hostgroups
from common.conffile import ConfError
from common.objects_conf_host import expand_hostgroup

Pairs = list[list[str]]


@dataclass(frozen=True)
class PEConf:
    """What the pass needs of a parallel environment (sge_pe(5)). job_is_first_task
    is not here: it changes no grant (the execd allows the master queue one extra
    ``qrsh -inherit`` task), only what runs where."""

    name: str
    slots: int | None          # None: no total limit
    rule: str = "$pe_slots"    # "$pe_slots", "$fill_up", "$round_robin" or a number

    @classmethod
    def from_pairs(cls, name: str, pairs: Pairs) -> "PEConf":
        return cls(name, _int(attr(pairs, "slots", "0")),
                   attr(pairs, "allocation_rule", "$pe_slots").strip())


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        return 0


def pe_lists(conf: Mapping[str, Mapping[str, Pairs]]) -> dict[str, set[str]]:
    """Cluster queue -> the PE names of its ``pe_list``."""
    return {name: set(attr(pairs, "pe_list", "NONE").replace(",", " ").split()) - {"NONE"}
            for name, pairs in conf["queue"].items()}


def host_group_members(conf: Mapping[str, Mapping[str, Pairs]]) -> dict[str, frozenset[str]]:
    """``@group`` -> every host in it, nested groups resolved."""
    groups = hostgroups(conf)
    members: dict[str, frozenset[str]] = {}
    for name in groups:
        try:
            members[name] = frozenset(expand_hostgroup(name, groups))
        except ConfError:  # a cycle the qmaster refused to store; nothing is in it
            members[name] = frozenset()
    return members


def conf_fields(conf: Mapping[str, Mapping[str, Pairs]]) -> dict[str, Any]:
    """``PassInput`` keyword arguments that come from configuration objects."""
    return {"pe_of_queue": pe_lists(conf),
            "pes": {name: PEConf.from_pairs(name, pairs)
                    for name, pairs in conf["pe"].items()},
            "host_groups": host_group_members(conf)}


def grant_follows_rule(rule: str, granted: Sequence[Sequence[Any]]) -> bool:
    """Whether ``[[queue, host, slots], ...]`` is a spread the allocation rule allows:
    ``$pe_slots`` keeps to one host, an integer N puts exactly N on each host used;
    ``$fill_up`` and ``$round_robin`` allow any spread."""
    per_host: dict[str, int] = {}
    for _, host, slots in granted:
        per_host[str(host)] = per_host.get(str(host), 0) + int(slots)
    if rule == "$pe_slots":
        return len(per_host) == 1
    if rule.isdigit():
        return all(n == int(rule) for n in per_host.values())
    return True
