"""What a queue instance offers, attribute by attribute: the lines of ``qstat -F``.

Pure. For each complex attribute some level (global ``g``, host ``h``, queue ``q``) has a
value for, the value shown is the dominating one, with Grid Engine's two-letter source:
the level, then ``l`` (load value), ``f`` (fixed value) or ``c`` (consumable: capacity
minus what running jobs hold). For numeric attributes the most restrictive value across
the levels dominates; for ``==``/``!=`` attributes (strings, host names) the deepest level
that has one. Queue slots come from the scheduler's slot count (``qc:slots``).
"""
from __future__ import annotations

from typing import Any, Mapping

from common.cluster import QueueInstance
from common.resource.complexes import ComplexAttr
from common.resource.matching import Level, offer_at
from common.resource.values import Relop, ValueType, format_value
from scheduler.resources import ResourceView

Line = list[str]  # [source, name, value]


def instance_offers(view: ResourceView, qi: QueueInstance,
                    used: Mapping[tuple[str, str], int], names: set[str] | None = None
                    ) -> list[Line]:
    """``qstat -F`` lines of one queue instance, in complex-name order; ``names`` (names
    or shortcuts) limits them as ``qstat -F name,...`` does."""
    levels = view.levels(qi.queue, qi.host)
    lines = []
    for attr in sorted(view.attrs, key=lambda a: a.name):
        if names is not None and attr.name not in names and attr.shortcut not in names:
            continue
        if attr.name == "slots":
            free = max(0, qi.slots - used.get((qi.queue, qi.host), 0))
            lines.append(["qc", "slots", str(free)])
            continue
        found = _dominating(attr, levels)
        if found is not None:
            lines.append([found[0], attr.name, _shown(attr, found[0], found[1])])
    return lines


def _shown(attr: ComplexAttr, source: str, value: Any) -> str:
    """Load values are reported as doubles; fixed and consumable INTs as integers."""
    if attr.type is ValueType.INT and source[1] != "l" and not isinstance(value, str):
        return str(int(value)) if float(value) != float("inf") else "infinity"
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


def _replaces(attr: ComplexAttr, held: Any, new: Any) -> bool:
    """Does ``new`` (a deeper level's value) dominate ``held``?"""
    if attr.relop in (Relop.EQ, Relop.NE) or isinstance(new, str) or isinstance(held, str):
        return True  # the deeper level overrides
    if attr.relop in (Relop.GE, Relop.GT):
        return float(new) > float(held)  # for >= attributes the larger value binds
    return float(new) < float(held)
