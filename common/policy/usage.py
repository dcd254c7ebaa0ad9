"""Share tree usage (sched_conf(5) ``halftime``, ``halflife_decay_list``,
``usage_weight_list``): what each holder has used, decayed to a time. Pure: the time is
always an argument.

A holder is a user, a project, or a user within a project. As in Grid Engine 8.1.9 a
job's usage is booked to the user holder when the job has no project, and to the user
within its project plus the project when it has one (never to both the user and the
user within the project): the share tree takes a user node's usage from the user
holder, and a user node below a project node from the user-within-project holder.

Each record keeps the raw amounts of the usage names (cpu seconds, mem GB·s, io GB)
decayed to ``stamp``, and the same amounts never decayed (``long_term``).

Decay, as 8.1.9 does it: a half-life T (``halftime`` in hours, or a usage name's
``halflife_decay_list`` entry in minutes) gives a decay rate r = ln 2 / T (per second)
and a constant c = 1 - 60·r per usage interval of 60 seconds; usage ``t`` seconds old
is multiplied by c^(t/60) (a little less than one half after T: (1 - 60 ln 2/T)^(T/60)).
T = 0 leaves usage undecayed; T < 0 (``-1`` in halflife_decay_list) makes c = 0: booked
usage is gone at the next decay, only what running jobs add since counts. Decaying over
t1 then t2 is decaying over t1 + t2 (c^(a)·c^(b) = c^(a+b)).

A task's usage arrives cumulative (per run); ``task_delta`` turns it into what is new
since the last figure booked for that run (never negative, never counted twice: a
repeated or a lower figure adds nothing and the highest figure seen stays the base).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, NamedTuple

from common.policy.conf import PolicyConf
from common.policy.model import USAGE_NAMES, Usage, UsageTable

# 8.1.9's usage interval: decay constants are per this many seconds
USAGE_INTERVAL = 60.0

USER, PROJECT = "user", "project"


class Holder(NamedTuple):
    """Who usage is booked to: ``Holder(USER, name)``, ``Holder(PROJECT, name)`` or the
    user within a project, ``Holder(USER, name, project)``."""

    kind: str
    name: str
    project: str = ""


@dataclass(slots=True)
class UsageRecord:
    """One holder's usage: ``usage`` decayed to ``stamp`` (epoch seconds),
    ``long_term`` never decayed. Amounts per usage name (model.USAGE_NAMES)."""

    usage: dict[str, float] = field(default_factory=dict)
    long_term: dict[str, float] = field(default_factory=dict)
    stamp: float = 0.0


Records = dict[Holder, UsageRecord]


def decay_constant(halflife_minutes: float) -> float:
    """The factor usage keeps per 60-second interval for a half-life in minutes (0: no
    decay, negative: none kept). Clamped at 0: a half-life under ln 2 minutes would
    give a negative constant."""
    if halflife_minutes < 0:
        return 0.0
    if halflife_minutes == 0:
        return 1.0
    rate = math.log(2.0) / (halflife_minutes * 60.0)
    return max(0.0, 1.0 - rate * USAGE_INTERVAL)


def decay_constants(conf: PolicyConf) -> dict[str, float]:
    """Each usage name's decay constant: its ``halflife_decay_list`` entry, else the
    one of ``halftime`` (hours)."""
    default = decay_constant(conf.halftime * 60.0)
    return {name: decay_constant(conf.halflife_decay[name])
            if name in conf.halflife_decay else default for name in USAGE_NAMES}


def _factor(constant: float, seconds: float) -> float:
    if constant >= 1.0:
        return 1.0
    return constant ** (seconds / USAGE_INTERVAL)


def decayed(record: UsageRecord, now: float, constants: Mapping[str, float]) -> UsageRecord:
    """``record`` decayed to ``now``, as a new record (``now`` not after its stamp: the
    same amounts)."""
    copy = UsageRecord(dict(record.usage), dict(record.long_term), record.stamp)
    decay_in_place(copy, now, constants)
    return copy


def decay_in_place(record: UsageRecord, now: float, constants: Mapping[str, float]) -> None:
    """As ``decayed``, changing ``record`` (the book's hot path: no copies)."""
    if record.stamp > 0.0 and now > record.stamp:
        elapsed = now - record.stamp
        usage = record.usage
        for name, amount in usage.items():
            usage[name] = amount * _factor(constants.get(name, 1.0), elapsed)
    if now > record.stamp:
        record.stamp = now


def charge(record: UsageRecord, delta: Usage, now: float,
           constants: Mapping[str, float]) -> None:
    """Decay ``record`` to ``now``, then add ``delta`` (negative amounts count as 0) to
    its decayed and long-term usage."""
    decay_in_place(record, now, constants)
    for name, amount in delta.items():
        if amount > 0.0:
            record.usage[name] = record.usage.get(name, 0.0) + amount
            record.long_term[name] = record.long_term.get(name, 0.0) + amount


def holders_of(owner: str, project: str | None) -> tuple[Holder, ...]:
    """Where a job's usage is booked (see the module's docstring)."""
    if project:
        return Holder(USER, owner, project), Holder(PROJECT, project)
    return (Holder(USER, owner),)


def task_delta(last: Usage, current: Usage) -> tuple[dict[str, float], dict[str, float]]:
    """(what ``current`` adds to ``last``, the new base): per usage name the increase,
    never negative; the base keeps the highest figure seen."""
    delta: dict[str, float] = {}
    base: dict[str, float] | None = None
    for name in USAGE_NAMES:
        now_amount = current.get(name, 0.0)
        before = last.get(name, 0.0)
        if now_amount > before:
            if base is None:
                base = dict(last)
            delta[name] = now_amount - before
            base[name] = now_amount
    return delta, (dict(last) if base is None else base)


def book(records: Records, owner: str, project: str | None, delta: Usage, now: float,
         constants: Mapping[str, float]) -> None:
    """Charge ``delta`` of a job of ``owner`` (in ``project``) to its holders."""
    if not any(amount > 0.0 for amount in delta.values()):
        return
    for holder in holders_of(owner, project):
        record = records.get(holder)
        if record is None:
            record = records[holder] = UsageRecord(stamp=now)
        charge(record, delta, now, constants)


def decay_all(records: Records, now: float, constants: Mapping[str, float]) -> None:
    for record in records.values():
        decay_in_place(record, now, constants)


def weighted(usage: Usage, weights: Mapping[str, float]) -> float:
    """One figure from a usage record's amounts: each weighted by its share of the sum
    of ``usage_weight_list``'s weights (8.1.9 divides by that sum); 0 without weights."""
    total = sum(weights.values())
    if total <= 0.0:
        return 0.0
    return sum(amount * weights[name] / total for name, amount in usage.items()
               if name in weights)


def usage_table(records: Records, now: float, conf: PolicyConf) -> UsageTable:
    """The share tree's view of ``records``: decayed to ``now`` (the records stay as
    they are) and weighted by ``usage_weight_list``."""
    constants = decay_constants(conf)
    users: dict[str, float] = {}
    projects: dict[str, float] = {}
    user_projects: dict[tuple[str, str], float] = {}
    for holder, record in records.items():
        figure = weighted(decayed(record, now, constants).usage, conf.usage_weights)
        if holder.kind == PROJECT:
            projects[holder.name] = figure
        elif holder.project:
            user_projects[(holder.name, holder.project)] = figure
        else:
            users[holder.name] = figure
    return UsageTable(users=users, projects=projects, user_projects=user_projects)


def policy_conf(conf: Mapping[str, Mapping[str, Any]]) -> PolicyConf:
    """The policy parameters of a store's or mirror's configuration kinds (the
    scheduler configuration ``sconf``/``global``, the global cluster configuration)."""
    return PolicyConf.from_pairs((conf.get("sconf") or {}).get("global") or [],
                                 (conf.get("conf") or {}).get("global") or [])


def holder_key(holder: Holder) -> str:
    """A holder as a spool and event key (a JSON list: no name makes it ambiguous)."""
    return json.dumps(list(holder), separators=(",", ":"))


def holder_of_key(key: str) -> Holder:
    """The inverse of ``holder_key``."""
    kind, name, project = (str(part) for part in json.loads(key))
    return Holder(kind, name, project)


def records_to_wire(records: Records) -> list[dict[str, Any]]:
    """The records as plain data (spool rows, the "usage" event), one entry a holder."""
    return [{"kind": holder.kind, "name": holder.name, "project": holder.project,
             "usage": dict(record.usage), "long_term": dict(record.long_term),
             "stamp": record.stamp} for holder, record in records.items()]


def records_from_wire(items: Iterable[Mapping[str, Any]]) -> Records:
    """The inverse of ``records_to_wire`` (already validated data)."""
    out: Records = {}
    for item in items:
        holder = Holder(str(item["kind"]), str(item["name"]), str(item.get("project") or ""))
        if holder.kind not in (USER, PROJECT) or (holder.kind == PROJECT and holder.project):
            raise ValueError(f"not a usage holder: {list(holder)}")
        out[holder] = UsageRecord(
            {str(k): max(0.0, float(v)) for k, v in dict(item.get("usage") or {}).items()},
            {str(k): max(0.0, float(v)) for k, v in dict(item.get("long_term") or {}).items()},
            float(item.get("stamp") or 0.0))
    return out
