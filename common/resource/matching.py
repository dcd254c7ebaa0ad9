"""Matching a job's hard resource requests against global, host and queue (complex(5)).

This module owns the pure, strictly hierarchical check Grid Engine's scheduler does for
one job on one queue instance: the global level, then the host, then the queue; the
first level that denies stops the walk and yields Grid Engine's reason text, e.g.
``(-l arch=sparc64) cannot run at host "vm" because it offers only hl:arch=lx-amd64``.

Inputs (plain data, no I/O):

- ``requests``: the job's hard requests, ``list[ResourceRequest]`` from
  :func:`common.resource.complexes.parse_request_list`.
- ``attrs``: the complex list (``list[ComplexAttr]``).
- :class:`Level`, one per level:

  ``kind``   "global", "host" or "queue";
  ``name``   "global", the host name ("vm") or the queue instance ("all.q@vm");
  ``values`` fixed values as text: the level's ``complex_values`` (for a consumable,
             its capacity) and, for a queue, its own requestable attributes
             (``qname``, ``hostname``, ``slots``, ``h_rt``, ``calendar`` ...);
  ``load``   load values as reported, as text (global and host only), already
             corrected by the caller for job load adjustments;
  ``usage``  consumables: amount debited by running jobs at this level (for an EXCL
             complex: the amount held by exclusive jobs);
  ``shared_usage`` EXCL complexes only: amount held by non-exclusive jobs.

How one level offers an attribute (complex(5) "Overriding attributes"):

- a fixed value is a per-slot limit (source ``f``), compared with the request itself;
- a consumable offers capacity minus usage as a per-job amount (source ``c``),
  compared with request x slots (``YES``) or the request once (``JOB``);
- a load value (source ``l``) is a per-job amount; it turns a fixed value of the same
  level into a per-job one and the more restrictive of the two is kept; for ``==`` and
  ``!=`` the fixed value always wins over the load value.

Per level, in this order: the implicit ``slots`` request (slots x 1), the defaults of
the consumables managed at that level that the job did not request (non-zero default
or EXCL), then the explicit requests. A request found at no level is refused at the
queue ("job requests unknown resource"). FORCED attributes present at a level must be
requested. ``requestable NO`` attributes may not be requested (defaults may use them).
EXCL: an exclusive request (non-zero) needs the complex unused; a non-exclusive one
needs it free of exclusive jobs.

Not modelled here: reservation/backfilling time slots (only "now"), load thresholds,
resource quotas, parallel slot ranges and PE allocation (callers pass ``slots``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Iterable, Mapping, Sequence

from common.resource.complexes import (
    ComplexAttr, Consumable, Requestable, ResourceRequest, format_request_list,
)
from common.resource.values import (
    STRING_TYPES, BadValueError, Relop, compare, compare_numbers, format_value,
    parse_value,
)

_LAYER = {"global": "g", "host": "h", "queue": "q"}


class Verdict(str, Enum):
    OK = "ok"
    MISSING = "missing"  # the level does not know the attribute
    LATER = "later"      # would fit once running jobs release resources (EXCL)
    NEVER = "never"      # cannot fit on this level in the current state


@dataclass(frozen=True)
class Level:
    kind: str
    name: str
    values: Mapping[str, str] = field(default_factory=dict)
    load: Mapping[str, str] = field(default_factory=dict)
    usage: Mapping[str, float] = field(default_factory=dict)
    shared_usage: Mapping[str, float] = field(default_factory=dict)
    scaled: frozenset[str] = frozenset()  # load values host_conf(5) load_scaling changed


@dataclass(frozen=True)
class Offer:
    """What one level offers for one attribute; sources read like ``hl`` or ``qc``."""

    attr: ComplexAttr
    per_slot: float | str | None = None
    per_slot_source: str = ""
    per_job: float | None = None
    per_job_source: str = ""


@dataclass(frozen=True)
class MatchResult:
    verdict: Verdict
    reason: str = ""
    level: str = ""  # name of the level that decided ("" when all matched)

    @property
    def ok(self) -> bool:
        return self.verdict is Verdict.OK


# --------------------------------------------------------------------------- offers

def _keeps_existing(relop: Relop, existing: float, new: float) -> bool:
    """Is the value already held more restrictive than ``new`` (ties keep it)?"""
    if relop in (Relop.EQ, Relop.NE):
        return True
    if relop in (Relop.GE, Relop.GT):
        return existing >= new
    return existing <= new


def _fixed_offer(attr: ComplexAttr, level: Level, layer: str) -> Offer | None:
    text = level.values.get(attr.name)
    if text is None:
        return None
    value = parse_value(attr.type, text)
    if attr.is_consumable and isinstance(value, float):
        used = level.usage.get(attr.name, 0.0)
        remaining = used if attr.relop in (Relop.GE, Relop.GT) else value - used
        return Offer(attr, per_job=remaining, per_job_source=layer + "c")
    return Offer(attr, per_slot=value, per_slot_source=layer + "f")


def _with_load(offer: Offer | None, attr: ComplexAttr, text: str, source: str
               ) -> Offer | None:
    if attr.type in STRING_TYPES:
        return Offer(attr, per_slot=text, per_slot_source=source)
    try:
        load = float(parse_value(attr.type, text))
    except BadValueError:
        return offer  # an unparsable load report is ignored
    offer = offer or Offer(attr)
    if offer.per_slot is not None and offer.per_job is None:
        # a fixed value next to a load value becomes a per-job limit
        offer = Offer(attr, per_job=float(offer.per_slot),
                      per_job_source=offer.per_slot_source)
    if offer.per_job is not None and _keeps_existing(attr.relop, offer.per_job, load):
        return offer
    return Offer(attr, offer.per_slot, offer.per_slot_source, load, source)


def offer_at(attr: ComplexAttr, level: Level) -> Offer | None:
    """The attribute as ``level`` offers it, or None when the level lacks it."""
    layer = _LAYER[level.kind]
    offer = _fixed_offer(attr, level, layer)
    text = level.load.get(attr.name)
    fixed_wins = offer is not None and attr.relop in (Relop.EQ, Relop.NE)
    if text is not None and not fixed_wins:
        # qstat(1): "L" marks a load value after the administrator's load scaling
        offer = _with_load(offer, attr, text, layer + ("L" if attr.name in level.scaled
                                                       else "l"))
    return offer


# --------------------------------------------------------------------------- one request

def _availability(offer: Offer, value: float | str | None, source: str) -> str:
    return f"{source}:{offer.attr.name}={format_value(offer.attr.type, value)}"  # type: ignore[arg-type]


def _compare_offer(request: float | str, amount: float, offer: Offer) -> str | None:
    """compare_complexes: None when it fits, else the availability text."""
    attr = offer.attr
    if attr.type in STRING_TYPES:
        if compare(attr.relop, attr.type, request, str(offer.per_slot)):
            return None
        return _availability(offer, offer.per_slot, offer.per_slot_source)
    if offer.per_job is not None and not compare_numbers(attr.relop, amount, offer.per_job):
        return _availability(offer, offer.per_job, offer.per_job_source)
    if offer.per_slot is not None and not compare_numbers(
            attr.relop, float(request), float(offer.per_slot)):
        return _availability(offer, offer.per_slot, offer.per_slot_source)
    return None


def _exclusive_in_use(attr: ComplexAttr, level: Level, request: float) -> bool:
    used = level.usage.get(attr.name, 0.0)
    if request != 0:  # an exclusive request also waits for non-exclusive holders
        used = max(used, level.shared_usage.get(attr.name, 0.0))
    return used != 0


def match_one(attr: ComplexAttr, value: float | str, level: Level, *, slots: int = 1,
              allow_non_requestable: bool = False) -> tuple[Verdict, str]:
    """One request (or default) against one level: (verdict, reason)."""
    offer = offer_at(attr, level)
    if offer is None:
        return Verdict.MISSING, ""
    if not allow_non_requestable and attr.requestable is Requestable.NO:
        # Grid Engine's message really has only the closing quote
        return Verdict.NEVER, f'job requests non requestable resource {attr.name}"'
    factor = 1 if attr.consumable is Consumable.JOB else slots
    amount = float(value) * factor if attr.type not in STRING_TYPES else 0.0
    shortfall = _compare_offer(value, amount, offer)
    if shortfall is not None:
        return Verdict.NEVER, "it offers only " + shortfall
    if attr.relop is Relop.EXCL and attr.is_consumable and \
            _exclusive_in_use(attr, level, float(value)):
        return Verdict.LATER, f"exclusive resource ({attr.name}) is already in use"
    return Verdict.OK, ""


# --------------------------------------------------------------------------- one level

def _by_name(attrs: Iterable[ComplexAttr]) -> dict[str, ComplexAttr]:
    return {a.name: a for a in attrs}


def _skip_job_consumable(attr: ComplexAttr, master: bool) -> bool:
    """A JOB consumable is debited only where the master task runs."""
    return attr.consumable is Consumable.JOB and not master


def _check_slots(catalog: Mapping[str, ComplexAttr], level: Level,
                 slots: int) -> tuple[Verdict, str]:
    attr = catalog.get("slots")
    if attr is None:
        return Verdict.OK, ""
    verdict, reason = match_one(attr, 1.0, level, slots=slots, allow_non_requestable=True)
    # a level without a slots limit does not limit slots
    return (Verdict.OK, "") if verdict is Verdict.MISSING else (verdict, reason)


def _check_defaults(catalog: Mapping[str, ComplexAttr], requested: set[str], level: Level,
                    slots: int, master: bool) -> tuple[Verdict, str]:
    for name in level.values:
        attr = catalog.get(name)
        if attr is None or not attr.is_consumable or name == "slots" or name in requested:
            continue
        if _skip_job_consumable(attr, master):
            continue
        default = attr.default_value()
        if default == 0 and attr.relop is not Relop.EXCL:
            continue
        verdict, reason = match_one(attr, default, level, slots=slots,
                                    allow_non_requestable=True)
        if verdict not in (Verdict.OK, Verdict.MISSING):
            return verdict, "for default request " + reason
    return Verdict.OK, ""


def _check_explicit(requests: Sequence[ResourceRequest], level: Level, slots: int,
                    master: bool, found: set[str]) -> tuple[Verdict, str]:
    for req in requests:
        if _skip_job_consumable(req.attr, master):
            found.add(req.name)
            continue
        verdict, reason = match_one(req.attr, req.value, level, slots=slots)
        if verdict is Verdict.OK:
            found.add(req.name)
        elif verdict is Verdict.MISSING:
            if level.kind == "queue" and req.name not in found:
                return Verdict.NEVER, f"job requests unknown resource ({req.name})"
        else:
            return verdict, reason
    return Verdict.OK, ""


def forced_missing(requests: Sequence[ResourceRequest], attrs: Iterable[ComplexAttr],
                   level: Level) -> str | None:
    """Grid Engine's message when ``level`` has a FORCED attribute not requested."""
    requested = {r.name for r in requests}
    for attr in attrs:
        if attr.requestable is not Requestable.FORCED or attr.name in requested:
            continue
        if attr.name not in level.values:
            continue
        if level.kind == "queue":
            return f"does not request 'forced' resource \"{attr.name}\" of queue instance {level.name}"
        if level.kind == "host":
            return f"does not request 'forced' resource \"{attr.name}\" of host {level.name}"
        return f"does not request globally 'forced' resource \"{attr.name}\""
    return None


def _cannot_run(requests: Sequence[ResourceRequest], level: Level, reason: str) -> str:
    where = {"global": "globally",
             "host": f'at host "{level.name}"',
             "queue": f'in queue "{level.name}"'}[level.kind]
    return f"(-l {format_request_list(requests)}) cannot run {where} because {reason}"


def match_level(requests: Sequence[ResourceRequest], attrs: Iterable[ComplexAttr],
                level: Level, *, slots: int = 1, master: bool = True,
                found: set[str] | None = None) -> MatchResult:
    """All checks of one level; ``found`` collects the requests seen so far."""
    attrs = list(attrs)
    found = set() if found is None else found
    forced = forced_missing(requests, attrs, level)
    if forced is not None:
        return MatchResult(Verdict.NEVER, forced, level.name)
    catalog = _by_name(attrs)
    requested = {r.name for r in requests}
    for check in (lambda: _check_slots(catalog, level, slots),
                  lambda: _check_defaults(catalog, requested, level, slots, master),
                  lambda: _check_explicit(requests, level, slots, master, found)):
        verdict, reason = check()
        if verdict is not Verdict.OK:
            return MatchResult(verdict, _cannot_run(requests, level, reason), level.name)
    return MatchResult(Verdict.OK)


def match_job(requests: Sequence[ResourceRequest], attrs: Iterable[ComplexAttr],
              levels: Sequence[Level], *, slots: int = 1,
              master: bool = True) -> MatchResult:
    """Walk ``levels`` (global, host, queue) in order; the first denial decides."""
    attrs = list(attrs)
    found: set[str] = set()
    for level in levels:
        result = match_level(requests, attrs, level, slots=slots, master=master,
                             found=found)
        if not result.ok:
            return result
    return MatchResult(Verdict.OK)
