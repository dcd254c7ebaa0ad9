"""What a queue instance or a host offers, attribute by attribute: the lines of
``qstat -F`` and ``qhost -F``.

Pure. For each complex attribute some level (global ``g``, host ``h``, queue ``q``) has a
value for, the value shown is the dominating one, with Grid Engine's two-letter source:
the level, then ``l`` (load value), ``f`` (fixed value) or ``c`` (consumable: capacity
minus what running jobs hold). For numeric attributes the most restrictive value across
the levels dominates; for ``==``/``!=`` attributes (strings, host names) the deepest level
that has one. Queue slots come from the scheduler's slot count (``qc:slots``).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from common import limits
from common.cluster import QueueInstance
from common.resource.complexes import ComplexAttr
from common.resource.matching import Level, offer_at
from common.resource.values import STRING_TYPES, Relop, ValueType, format_value
from common.placement.resources import GLOBAL, ResourceView, host_key

Line = list[str]  # [source, name, value]


# queue_conf(5) values in the order Grid Engine's qstat -F lists them
_QUEUE_ORDER = ("slots", "qname", "hostname", "tmpdir", "seq_no", "rerun", "calendar",
                *limits.NAMES, "min_cpu_interval")


def instance_offers(view: ResourceView, qi: QueueInstance,
                    used: Mapping[tuple[str, str], int], names: set[str] | None = None
                    ) -> list[Line]:
    """``qstat -F`` lines of one queue instance; ``names`` (names or shortcuts) limits
    them as ``qstat -F name,...`` does. Grid Engine's order: global values, the host's
    load values (report order) and fixed values, then the queue's (``slots``, ``qname``,
    ``hostname``, its limits ..., its complex_values); each attribute once, where it
    first appears, with its dominating value. The queue's slots are a consumable of
    the instance: its capacity minus the slots in use there."""
    global_level, host_level, queue_level = view.levels(qi.queue, qi.host)
    queue_level = replace(queue_level, usage={
        **queue_level.usage, "slots": float(used.get((qi.queue, qi.host), 0))})
    levels = [global_level, host_level, queue_level]
    by_name = {a.name: a for a in view.attrs}
    lines = []
    for name in _listing_order(global_level, host_level, queue_level):
        attr = by_name.get(name)
        if attr is None or (names is not None and name not in names
                            and attr.shortcut not in names):
            continue
        found = _dominating(attr, levels) or _unreadable_load(attr, levels)
        if found is not None:
            lines.append([found[0], name, _shown(attr, found[0], found[1])])
    return lines


def _listing_order(global_level: Level, host_level: Level, queue_level: Level
                   ) -> list[str]:
    queue_names = [n for n in _QUEUE_ORDER if n in queue_level.values]
    queue_names += [n for n in queue_level.values if n not in _QUEUE_ORDER]
    return list(dict.fromkeys([*global_level.values, *global_level.load, *host_level.load,
                               *host_level.values, *queue_names]))


def _shown(attr: ComplexAttr, source: str, value: Any) -> str:
    """INT values as integers (8.1.9's qstat -F: ``hl:num_proc=2``), a load value
    that is no whole number as a double."""
    if attr.type is ValueType.INT and not isinstance(value, str):
        if float(value) == float("inf"):
            return "infinity"
        if source[1] != "l" or float(value).is_integer():
            return str(int(value))
    return format_value(attr.type, value)


def _dominating(attr: ComplexAttr, levels: list[Level]) -> tuple[str, Any] | None:
    best: tuple[str, Any] | None = None
    for level in levels:
        offer = offer_at(attr, level)
        if offer is None:
            continue
        if offer.per_job is not None:
            candidate = (offer.per_job_source, offer.per_job)
        else:
            candidate = (offer.per_slot_source, offer.per_slot)
        if candidate[1] is None:
            continue
        if best is None or _replaces(attr, best[1], candidate[1]):
            best = candidate
    return best


def _unreadable_load(attr: ComplexAttr, levels: list[Level]) -> tuple[str, Any] | None:
    """8.1.9 shows a load value it cannot read as a number (``notanumber`` for a MEMORY
    attribute) with the source ``?v`` and the value 0; matching ignores it."""
    if any(attr.name in level.load for level in levels) and attr.type not in STRING_TYPES:
        return ("?v", 0.0)
    return None


def _replaces(attr: ComplexAttr, held: Any, new: Any) -> bool:
    """Does ``new`` (a deeper level's value) dominate ``held``?"""
    if attr.relop in (Relop.EQ, Relop.NE) or isinstance(new, str) or isinstance(held, str):
        return True  # the deeper level overrides
    if attr.relop in (Relop.GE, Relop.GT):
        return float(new) > float(held)  # for >= attributes the larger value binds
    return float(new) < float(held)


HostLine = list[str]  # [source, name, value, complex type, shortcut]


def host_offers(view: ResourceView, host: str | None) -> list[HostLine]:
    """``qhost -F`` lines of an exec host (global and host level) or, for ``None``, of
    the pseudo host "global". Grid Engine's order: the global values, then the host's
    load values in report order, then its fixed and consumable values; each attribute
    once, with its dominating value. Values are raw (numbers unformatted): qhost
    formats them by type."""
    keys = [GLOBAL] if host is None else [GLOBAL, host_key(host)]
    levels = [view.level(k) for k in keys]
    names = list(view.values.get(GLOBAL, {})) + list(view.load.get(GLOBAL, {}))
    if host is not None:
        names += list(view.load.get(host_key(host), {})) + list(view.values.get(
            host_key(host), {}))
    by_name = {a.name: a for a in view.attrs}
    lines: list[HostLine] = []
    for name in dict.fromkeys(names):
        attr = by_name.get(name)
        found = (_dominating(attr, levels) or _unreadable_load(attr, levels)) \
            if attr is not None else None
        if attr is not None and found is not None:  # unknown load values are not shown
            lines.append([found[0], name, _raw(attr, found[1]), attr.type.value,
                          attr.shortcut])
    return lines


def _raw(attr: ComplexAttr, value: Any) -> str:
    if isinstance(value, str):
        return value
    if attr.type in (ValueType.BOOL,):
        return "TRUE" if value else "FALSE"
    return "infinity" if float(value) == float("inf") else repr(float(value))
