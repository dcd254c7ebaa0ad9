"""Load and suspend thresholds of queue instances (queue_conf(5) ``load_thresholds``,
``suspend_thresholds``) and the scheduler's load adjustments (sched_conf(5)
``job_load_adjustments``, ``load_adjustment_decay_time``). Pure: load values, thresholds
and the recent dispatches go in, verdicts and Grid Engine's words come out.

A threshold ``name=value`` is exceeded when the instance's load value for ``name``
(the host's, after ``load_scaling``, else the global host's), plus the load adjustment,
stands to the threshold as the attribute's relation says: ``np_load_avg>=1.75`` when the
load is 1.75 or more, ``scratch_free<=100M`` when 100M or less are free. A threshold
whose load value is not reported (a host whose execd is down, a sensor that is not
running) counts as exceeded, which is why 8.1.9 shows a down host's instances as
``au``. Consumables without a load value are no load and are left out.

The words (8.1.9, tests/data/reference/load/):
- ``qstat -explain a``: ``alarm hl:scratch_free=50M load-threshold=100M``, one line per
  threshold, exceeded or not; ``-explain A`` the same with ``suspend-threshold``;
- ``qstat -j``: ``queue instance "all.q@vm" dropped because it is overloaded:
  scratch_free=52428800.000000 (no load adjustment) <= 100M`` for the first exceeded one,
  and ``... is in suspend alarm: ...`` for a suspend threshold.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping, Sequence

from common.conf_values import split_assignments
from common.resource.complexes import ComplexAttr, resolve_name
from common.resource.values import (
    STRING_TYPES, BadValueError, Relop, compare, compare_numbers, parse_value,
)

LOAD, SUSPEND = "load", "suspend"
_RELOP_TEXT = {Relop.EQ: "==", Relop.NE: "!=", Relop.LT: "<", Relop.LE: "<=",
               Relop.GT: ">", Relop.GE: ">=", Relop.EXCL: "EXCL"}


@dataclass(frozen=True)
class Adjustment:
    """What recent dispatches add to one load value of a host: ``total`` and, for the
    words, the factor per slot and the slots weighted by their decay."""

    total: float
    factor: float
    slots: float
    nproc: int


@dataclass(frozen=True)
class Check:
    """One threshold of one queue instance."""

    name: str
    source: str            # "hl", "hL" (scaled), "gl"; "" when no load value is reported
    load_text: str         # the load value as reported ("" when none)
    threshold: str         # as configured
    exceeded: bool
    value: float | None    # the load value with its adjustment (None: not reported)
    relop: Relop
    adjustment: Adjustment | None = None

    def alarm_line(self, kind: str) -> str:
        """``alarm hl:scratch_free=50M load-threshold=100M`` (qstat -explain a/A)."""
        shown = f"{self.source}:{self.name}={self.load_text}" if self.source \
            else f"{self.name}=-NA-"
        return f"alarm {shown} {kind}-threshold={self.threshold}"

    def reason_text(self) -> str:
        """``scratch_free=52428800.000000 (no load adjustment) <= 100M`` (qstat -j)."""
        if self.value is None:
            return f"{self.name}=-NA- (no load value) {_RELOP_TEXT[self.relop]} " \
                   f"{self.threshold}"
        adj = self.adjustment
        if adj is None or adj.total == 0:
            how = "no load adjustment"
        else:
            how = (f"= {self.value - adj.total:f} + {adj.factor:f} * {adj.slots:f} "
                   f"with nproc={adj.nproc}")
        return f"{self.name}={self.value:f} ({how}) {_RELOP_TEXT[self.relop]} {self.threshold}"


def parse_thresholds(text: str) -> list[tuple[str, str]]:
    """``np_load_avg=1.75,scratch_free=100M`` -> pairs (``NONE``: none)."""
    return [(n, v) for n, v in split_assignments(text or "NONE") if n.upper() != "NONE"]


def check_thresholds(thresholds: Sequence[tuple[str, str]], attrs: Sequence[ComplexAttr],
                     host_load: Mapping[str, str] | None, global_load: Mapping[str, str],
                     *, scaled: frozenset[str] = frozenset(),
                     adjustments: Mapping[str, Adjustment] | None = None) -> list[Check]:
    """Each threshold of an instance checked against its host's load (``None``: the
    host reports none, its execd is down) and the global load."""
    checks = []
    for name, threshold in thresholds:
        attr = resolve_name(attrs, name)
        if attr is None:
            continue  # qconf refuses unknown names; a complex removed since is no load
        text, source = None, ""
        if host_load is not None and attr.name in host_load:
            text, source = host_load[attr.name], "hL" if attr.name in scaled else "hl"
        elif attr.name in global_load:
            text, source = global_load[attr.name], "gl"
        if text is None and attr.is_consumable:
            continue
        adjustment = (adjustments or {}).get(attr.name)
        checks.append(_check(attr, threshold, text, source, adjustment))
    return checks


def _check(attr: ComplexAttr, threshold: str, text: str | None, source: str,
           adjustment: Adjustment | None) -> Check:
    name = attr.name
    if text is None:
        return Check(name, "", "", threshold, True, None, attr.relop)
    if attr.type in STRING_TYPES:
        exceeded = compare(attr.relop, attr.type, text, threshold)
        return Check(name, source, text, threshold, exceeded, None, attr.relop)
    try:
        value = float(parse_value(attr.type, text))
        limit = float(parse_value(attr.type, threshold))
    except (BadValueError, ValueError):
        return Check(name, source, text, threshold, True, None, attr.relop)
    if adjustment is not None:
        value += adjustment.total
    exceeded = attr.relop is not Relop.EXCL and compare_numbers(attr.relop, value, limit)
    return Check(name, source, text, threshold, exceeded, value, attr.relop, adjustment)


def exceeded(checks: Sequence[Check]) -> Check | None:
    """The first exceeded threshold (the one ``qstat -j`` names), or None."""
    return next((c for c in checks if c.exceeded), None)


def overload_reason(queue_instance: str, check: Check) -> str:
    return f'queue instance "{queue_instance}" dropped because it is overloaded: ' \
           f"{check.reason_text()}"


def suspend_alarm_reason(queue_instance: str, check: Check) -> str:
    return f'queue instance "{queue_instance}" is in suspend alarm: {check.reason_text()}'


# ---- load adjustments ---------------------------------------------------------------
def decay_factor(elapsed: float, decay_time: float) -> float:
    """How much of a dispatch's load adjustment is left ``elapsed`` seconds after it:
    all of it at once, falling linearly to nothing at ``load_adjustment_decay_time``
    (0: adjustments last no time at all)."""
    if decay_time <= 0 or elapsed >= decay_time:
        return 0.0
    return 1.0 - max(elapsed, 0.0) / decay_time


def host_adjustments(factors: Sequence[tuple[str, str]], attrs: Sequence[ComplexAttr],
                     recent: Sequence[tuple[float, int]], now: float, decay_time: float,
                     nproc: int) -> dict[str, Adjustment]:
    """The adjustments of one host's load values from its ``recent`` dispatches
    ((dispatch time, slots) each). ``np_load_*`` adjustments are per processor, as the
    values they adjust (8.1.9 divides them by the host's num_proc)."""
    weighted = sum(slots * decay_factor(now - when, decay_time) for when, slots in recent)
    if weighted <= 0:
        return {}
    out = {}
    for name, text in factors:
        attr = resolve_name(attrs, name)
        if attr is None or attr.type in STRING_TYPES:
            continue
        try:
            factor = float(parse_value(attr.type, text))
        except (BadValueError, ValueError):
            continue
        per = factor / max(nproc, 1) if attr.name.startswith("np_") else factor
        out[attr.name] = Adjustment(per * weighted, factor, weighted, max(nproc, 1))
    return out


# ---- the cluster's thresholds for a pass or a display --------------------------------
@dataclass(frozen=True)
class InstanceThresholds:
    queue: str
    host: str
    load: tuple[tuple[str, str], ...]
    suspend: tuple[tuple[str, str], ...]


class HostLoads:
    """The load values thresholds are checked against, with the load adjustments of
    recent dispatches; a pass adds its own dispatches as it makes them
    (``dispatched``), so that one pass does not fill a host before its load rises."""

    def __init__(self, attrs: Sequence[ComplexAttr], loads: Mapping[str, Mapping[str, str] | None],
                 global_load: Mapping[str, str], *,
                 scaled: Mapping[str, frozenset[str]] | None = None,
                 factors: Sequence[tuple[str, str]] = (), decay_time: float = 0.0,
                 now: float = 0.0, recent: Mapping[str, Sequence[tuple[float, int]]] | None = None
                 ) -> None:
        self.attrs, self.loads, self.global_load = attrs, loads, global_load
        self.scaled = scaled or {}
        self.factors, self.decay_time, self.now = list(factors), decay_time, now
        self.recent = {host: list(items) for host, items in (recent or {}).items()}
        self._adjust: dict[str, dict[str, Adjustment]] = {}
        # host -> thresholds -> checks: a host's queues mostly share their thresholds
        self._checks: dict[str, dict[tuple[tuple[str, str], ...], list[Check]]] = {}

    def copy(self) -> "HostLoads":
        """The same loads, with dispatches added to the copy kept apart."""
        return HostLoads(self.attrs, self.loads, self.global_load, scaled=self.scaled,
                         factors=self.factors, decay_time=self.decay_time, now=self.now,
                         recent=self.recent)

    def nproc(self, host: str) -> int:
        try:
            return max(int(float((self.loads.get(host) or {}).get("num_proc", "1"))), 1)
        except ValueError:
            return 1

    def adjustments(self, host: str) -> dict[str, Adjustment]:
        found = self._adjust.get(host)
        if found is None:
            found = self._adjust[host] = host_adjustments(
                self.factors, self.attrs, self.recent.get(host, ()), self.now,
                self.decay_time, self.nproc(host)) if self.factors else {}
        return found

    def checks(self, host: str, thresholds: Sequence[tuple[str, str]]) -> list[Check]:
        if not thresholds:
            return []
        known = self._checks.setdefault(host, {})
        key = tuple(thresholds)
        found = known.get(key)
        if found is None:
            found = known[key] = check_thresholds(
                thresholds, self.attrs, self.loads.get(host), self.global_load,
                scaled=self.scaled.get(host, frozenset()), adjustments=self.adjustments(host))
        return found

    def dispatched(self, host: str, slots: int) -> None:
        """A dispatch of this pass: its full adjustment counts from now on."""
        if self.factors and self.decay_time > 0:
            self.recent.setdefault(host, []).append((self.now, slots))
            self._adjust.pop(host, None)
            self._checks.pop(host, None)


def instance_thresholds(queue: str, host: str, load_text: str, suspend_text: str
                        ) -> InstanceThresholds:
    return InstanceThresholds(queue, host, tuple(parse_thresholds(load_text)),
                              tuple(parse_thresholds(suspend_text)))


# ---- sched_conf(5) load_formula ------------------------------------------------------
def formula_terms(text: str) -> list[tuple[float, str | None, float]]:
    """``np_load_avg*2+mem_used-0.5`` -> terms (sign, load value name or None for a
    plain weight, weight). sched_conf(5): a sum of weighted load values,
    ``{w|name[*w]}[{+|-}{w|name[*w]}...]``; a weight may be negative (``name*-1``) or
    written with an exponent (``name*1e-3``). A term that is neither a number nor a
    name with a number is left out."""
    terms: list[tuple[float, str | None, float]] = []
    sign, term = 1.0, ""
    for char in (text or "").replace(" ", "") + "+":
        operator = char in "+-" and term and not term.endswith("*") \
            and not _EXPONENT.search(term)
        if operator:
            terms.append(_term(sign, term))
            sign, term = (1.0 if char == "+" else -1.0), ""
        elif char in "+-" and not term:
            sign = -sign if char == "-" else sign
        else:
            term += char
    return [t for t in terms if t[2] == t[2]]  # (NaN: a term that did not parse)


_EXPONENT = re.compile(r"(^|[*])[0-9]+(\.[0-9]*)?[eE]$")  # "1e" of "1e-3"


def _term(sign: float, term: str) -> tuple[float, str | None, float]:
    name, _, weight = term.partition("*")
    try:
        return sign, None, float(name) * (float(weight) if weight else 1.0)
    except ValueError:
        pass
    try:
        return sign, name, float(weight) if weight else 1.0
    except ValueError:
        return sign, name, float("nan")


def formula_value(terms: Sequence[tuple[float, str | None, float]], attrs: Sequence[ComplexAttr],
                  load: Mapping[str, str], adjustments: Mapping[str, Adjustment]) -> float:
    """The host's weighted load (its load values after scaling and adjustments); a
    value the host does not report counts as 0."""
    total = 0.0
    for sign, name, weight in terms:
        if name is None:
            total += sign * weight
            continue
        attr = resolve_name(attrs, name)
        full = attr.name if attr is not None else name
        try:
            value = float(parse_value(attr.type, load[full])) if attr is not None \
                and attr.type not in STRING_TYPES else float(load[full])
        except (KeyError, BadValueError, ValueError):
            value = 0.0
        if full in adjustments:
            value += adjustments[full].total
        total += sign * weight * value
    return total
