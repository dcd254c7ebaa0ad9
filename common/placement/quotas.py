"""Resource quota sets in the dispatch pass (pure): the sets of the configuration, the
usage of the jobs holding slots, and the question "may this job have these slots on this
queue instance?" (common.quota.evaluate decides).

What a grant counts: ``slots``; each consumable the job requests, or the complex's
default when it does not, per slot (a ``JOB`` consumable once, at the master queue). A
limit on a non-consumable complex counts nothing: a job requesting that complex must
match it as it would match a queue's fixed value (``to arch=lx-amd64`` refuses
``-l arch=sol-sparc64``, ``to h_vmem=2G`` refuses ``-l h_vmem=4G``); a job not
requesting it is not limited by it.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from common.placement.job import PlacementJob
from common.quota.evaluate import (Names, QuotaRequest, QuotaUsage, UsageKey, filter_matches,
                                   limit_text, rule_label, usage_key)
from common.quota.rqs_checks import dynamic_terms, dynamic_limit
from common.quota.rqs_format import Limit, RqsFormatError, RuleSet, rule_set_from_pairs
from common.resource.complexes import ComplexAttr, Consumable, resolve_name
from common.resource.values import BadValueError, compare, parse_value

Conf = Mapping[str, Mapping[str, Any]]
# what a request costs under one set's rule: (set, rule index, usage key, [(limit, amount)]
# counted, [(limit, requested value)] compared)
Charge = tuple[RuleSet, int, UsageKey, list[tuple[Limit, float]],
               list[tuple[Limit, float | str]]]


@dataclass
class QuotaContext:
    rule_sets: list[RuleSet]
    names: Names
    attrs: list[ComplexAttr]
    host_values: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # load
    usage: QuotaUsage = field(default_factory=QuotaUsage)
    _limits: dict[tuple[str, str, str], float] = field(default_factory=dict)
    # (user, group, project, pe) -> per enabled set, the rules whose users, projects and
    # pes filters admit them (the first of those that also admits the queue and host is
    # the set's rule): worked out once per consumer, not once per queue instance
    _relevant: dict[tuple[str, str, str | None, str | None],
                    list[tuple[RuleSet, list[int]]]] = field(default_factory=dict)
    _fixed_names: frozenset[str] = field(default=frozenset(), init=False)
    _defaults: list[tuple[ComplexAttr, float]] = field(default_factory=list, init=False)

    def limit_value(self, name: str, text: str, host: str) -> float:
        """A limit's number on ``host`` (static: the same everywhere)."""
        key = (name, text, host if "$" in text else "")
        found = self._limits.get(key)
        if found is None:
            found = self._limits[key] = self._evaluate(name, text, host)
        return found

    def _evaluate(self, name: str, text: str, host: str) -> float:
        if "$" in text:
            values = {}
            for k, v in self.host_values.get(host, {}).items():
                try:
                    values[k] = float(v)
                except (TypeError, ValueError):
                    continue
            return dynamic_limit(dynamic_terms(text, self.attrs), values)
        attr = resolve_name(self.attrs, name)
        try:
            value = parse_value(attr.type, text) if attr is not None else float(text)
        except (BadValueError, ValueError):
            return float("inf")  # checked when stored; a complex changed since
        return float(value) if isinstance(value, float) else float("inf")

    def __post_init__(self) -> None:
        named = {limit.name for rs in self.rule_sets for rule in rs.rules
                 for limit in rule.limits}
        found = [resolve_name(self.attrs, name) for name in named]
        # the complexes whose limits compare the job's request rather than count it
        self._fixed_names = frozenset(a.name for a in found
                                      if a is not None and not a.is_consumable)
        # the consumables a limit names that a job uses without requesting them, with
        # their default amount (parsed once, not for every request)
        self._defaults = [(a, amount) for a in found if a is not None and a.is_consumable
                          and a.name != "slots" and (amount := _default_amount(a)) > 0]

    def request(self, job: PlacementJob, queue: str, host: str, slots: int,
                pe: str | None, master: bool = True) -> QuotaRequest:
        amounts = grant_amounts(job, slots, self.attrs, master, self._defaults)
        return QuotaRequest(job.owner, job.project, pe, queue, host, amounts, job.group,
                            self._fixed_requests(job) if self._fixed_names else {})

    def _fixed_requests(self, job: PlacementJob) -> dict[str, float | str]:
        """The job's requests of the non-consumable complexes some limit names."""
        fixed: dict[str, float | str] = {}
        for name, text in job.hard_resources.items():
            attr = resolve_name(self.attrs, name)
            if attr is not None and attr.name in self._fixed_names:
                try:
                    fixed[attr.name] = parse_value(attr.type, text)
                except BadValueError:
                    continue
        return fixed

    def trial(self) -> "QuotaContext":
        """A context to try grants in (``can_run``, explanations): the same sets and
        caches, a copy of the usage, so that nothing tried counts in the pass."""
        return QuotaContext(self.rule_sets, self.names, self.attrs, self.host_values,
                            QuotaUsage({k: dict(v) for k, v in self.usage.used.items()}),
                            self._limits, self._relevant)

    def refusal_reason(self, job: PlacementJob, queue: str, host: str, slots: int,
                       pe: str | None = None) -> str:
        """8.1.9's reason line when the grant would exceed a quota, else ""."""
        req = self.request(job, queue, host, slots, pe)
        found = self._over(self._charges(req), host)
        return "" if found is None else limit_text(found[0], found[1], req)

    def refusing_rule(self, job: PlacementJob, queue: str, host: str, slots: int,
                      pe: str | None = None) -> tuple[RuleSet, int] | None:
        """The (set, rule index) that the grant would exceed, or None; the same answer as
        common.quota.evaluate.exceeded, faster for many instances of one consumer."""
        return self._over(self._charges(self.request(job, queue, host, slots, pe)), host)

    def claim(self, job: PlacementJob, queue: str, host: str, slots: int
              ) -> tuple[RuleSet, int] | None:
        """``refusing_rule`` and, when nothing refuses, ``take`` of a serial grant in
        one go (the rules and their consumers worked out once): the refusing (set, rule
        index), or None and the grant counted."""
        charges = self._charges(self.request(job, queue, host, slots, None))
        refused = self._over(charges, host)
        if refused is None:
            self._count(charges)
        return refused

    def take(self, job: PlacementJob, granted: Sequence[Sequence[Any]],
             pe: str | None = None) -> None:
        """Count a grant ``[[queue, host, slots], ...]`` (as common.quota.evaluate.debit
        counts it)."""
        for part, (queue, host, slots) in enumerate(granted):
            self._count(self._charges(self.request(job, str(queue), str(host), int(slots),
                                                   pe, part == 0)))

    def grant_charges(self, job: PlacementJob, granted: Sequence[Sequence[Any]],
                      pe: str | None = None) -> list[tuple[UsageKey, str, float]]:
        """What ``take`` would count for a grant: (usage key, complex, amount) each; the
        planning (``common.placement.plan``) books and releases grants with these."""
        counted = []
        for part, (queue, host, slots) in enumerate(granted):
            for _, _, key, amounts, _ in self._charges(self.request(
                    job, str(queue), str(host), int(slots), pe, part == 0)):
                counted.extend((key, limit.name, amount) for limit, amount in amounts)
        return counted

    def count(self, counted: Iterable[tuple[UsageKey, str, float]], sign: int = 1) -> None:
        """Add (``sign`` 1) or give back (-1) what ``grant_charges`` found."""
        for key, name, amount in counted:
            self.usage.add(key, name, sign * amount)

    def refusal_of_grant(self, job: PlacementJob, granted: Sequence[Sequence[Any]],
                         pe: str | None = None) -> str | None:
        """The first ``set/rule`` a whole grant would exceed, its parts counted one after
        the other (in a small overlay: the usage itself is neither changed nor copied)."""
        own: dict[tuple[UsageKey, str], float] = {}
        for part, (queue, host, slots) in enumerate(granted):
            charges = self._charges(self.request(job, str(queue), str(host), int(slots), pe,
                                                 part == 0))
            refused = self._over(charges, str(host), own)
            if refused is not None:
                return rule_label(*refused)
            for _, _, key, amounts, _ in charges:
                for limit, amount in amounts:
                    own[(key, limit.name)] = own.get((key, limit.name), 0.0) + amount
        return None

    def _charges(self, req: QuotaRequest) -> list[Charge]:
        """What the request costs under each set's rule: (set, rule index, usage key,
        [(limit, amount)], [(limit, requested value)]) for the limits it requests
        something of (counted, and compared)."""
        charges = []
        for rule_set, index in self._set_rules(req):
            rule = rule_set.rules[index]
            amounts = [(limit, amount) for limit in rule.limits
                       if (amount := req.amounts.get(limit.name, 0.0)) > 0]
            compared = [(limit, req.fixed[limit.name]) for limit in rule.limits
                        if limit.name in req.fixed] if req.fixed else []
            charges.append((rule_set, index, usage_key(rule_set, index, req), amounts,
                            compared))
        return charges

    def _over(self, charges: list[Charge], host: str,
              own: Mapping[tuple[UsageKey, str], float] | None = None
              ) -> tuple[RuleSet, int] | None:
        """The first charge that would pass its limit (with ``own``: usage counted on
        top), as common.quota.evaluate.over_limit decides, or whose compared request
        does not match its limit."""
        for rule_set, index, key, amounts, compared in charges:
            for limit, amount in amounts:
                held = self.usage.get(key, limit.name) + \
                    (own.get((key, limit.name), 0.0) if own else 0.0)
                if held + amount > self.limit_value(limit.name, limit.value, host):
                    return rule_set, index
            for limit, value in compared:
                if not self._matches(limit, value, host):
                    return rule_set, index
        return None

    def _matches(self, limit: Limit, value: float | str, host: str) -> bool:
        attr = resolve_name(self.attrs, limit.name)
        if attr is None:
            return True
        offered: float | str = limit.value if isinstance(value, str) else \
            self.limit_value(limit.name, limit.value, host)
        return compare(attr.relop, attr.type, value, offered)

    def _count(self, charges: list[Charge]) -> None:
        for _, _, key, amounts, _ in charges:
            for limit, amount in amounts:
                self.usage.add(key, limit.name, amount)

    def _set_rules(self, req: QuotaRequest) -> Iterator[tuple[RuleSet, int]]:
        """Each set's rule for the request (its first rule that admits it), as
        common.quota.evaluate.set_rules finds it, from the per-consumer cache."""
        for rule_set, indexes in self._rules_for(req.user, req.group, req.project, req.pe):
            for index in indexes:
                filters = rule_set.rules[index].filters
                queues, hosts = filters.get("queues"), filters.get("hosts")
                if (queues is None or filter_matches(queues, req.queue, "queues",
                                                     self.names)) and \
                        (hosts is None or filter_matches(hosts, req.host, "hosts",
                                                         self.names)):
                    yield rule_set, index
                    break

    def _rules_for(self, user: str, group: str, project: str | None, pe: str | None
                   ) -> list[tuple[RuleSet, list[int]]]:
        key = (user, group, project, pe)
        found = self._relevant.get(key)
        if found is None:
            found = self._relevant[key] = [
                (rs, [i for i, rule in enumerate(rs.rules)
                      if filter_matches(rule.filters.get("users"), user, "users", self.names,
                                        group)
                      and filter_matches(rule.filters.get("projects"), project, "projects",
                                         self.names)
                      and filter_matches(rule.filters.get("pes"), pe, "pes", self.names)])
                for rs in self.rule_sets]
        return found


def everywhere(rule_set: RuleSet, index: int) -> bool:
    """Whether a refusal by this rule holds on every queue instance: neither it nor an
    earlier rule of its set filters on queues or hosts (an earlier one that does could be
    the set's rule elsewhere). Then no instance can take the job in this pass."""
    return all("queues" not in rule.filters and "hosts" not in rule.filters
               for rule in rule_set.rules[:index + 1])


def grant_amounts(job: PlacementJob, slots: int, attrs: Sequence[ComplexAttr],
                  master: bool, defaults: Sequence[tuple[ComplexAttr, float]] = ()
                  ) -> dict[str, float]:
    """What ``slots`` slots of ``job`` on one queue instance consume: the consumables it
    requests and, of ``defaults``, those it does not request, at their default amount;
    per slot, a ``JOB`` consumable once, on the master queue only."""
    amounts = {"slots": float(slots)}
    used: list[tuple[ComplexAttr, float]] = []
    for name, text in job.hard_resources.items():
        attr = resolve_name(attrs, name)
        if attr is None or not attr.is_consumable or attr.name == "slots":
            continue
        try:
            value = parse_value(attr.type, text)
        except BadValueError:
            continue
        if isinstance(value, float):
            used.append((attr, value))
    requested = {attr.name for attr, _ in used}
    used += [(attr, value) for attr, value in defaults if attr.name not in requested]
    for attr, value in used:
        if attr.consumable is not Consumable.JOB:
            amounts[attr.name] = value * slots
        elif master:
            amounts[attr.name] = value
    return amounts


def rule_sets_of(conf: Conf) -> list[RuleSet]:
    """The enabled sets of the configuration (a stored set that no longer reads is left
    out rather than stopping every pass)."""
    sets = []
    for pairs in (conf.get("rqs") or {}).values():
        try:
            rule_set = rule_set_from_pairs(pairs)
        except RqsFormatError:
            continue
        if rule_set.enabled:
            sets.append(rule_set)
    return sets


def acl_members(conf: Conf) -> dict[str, frozenset[str]]:
    """Access list name -> its user names (``entries`` of userset(5))."""
    out = {}
    for name, pairs in (conf.get("userset") or {}).items():
        entries = next((v for k, v in pairs if k == "entries"), "NONE")
        out[name] = frozenset(e for e in entries.replace(",", " ").split()
                              if e.upper() != "NONE")
    return out


def quota_context(conf: Conf, attrs: list[ComplexAttr],
                  host_groups: Mapping[str, frozenset[str]],
                  host_values: Mapping[str, Mapping[str, str]],
                  jobs: Mapping[int, PlacementJob],
                  holding: Iterable[Mapping[str, Any]]) -> QuotaContext | None:
    """The pass's quota view with the usage of the tasks ``holding`` slots; None when no
    enabled set exists (the pass then skips quotas at no cost). Jobs in an advance
    reservation count nothing (sge_resource_quota(5): they are "neither subject to the
    resulting limit, nor debited in the usage consumption")."""
    sets = rule_sets_of(conf)
    if not sets:
        return None
    ctx = QuotaContext(sets, Names(acls=acl_members(conf), host_groups=host_groups), attrs,
                       host_values)
    for task in holding:
        job = jobs.get(task["job_id"])
        if job is not None and task.get("granted") and job.ar_id is None:
            ctx.take(job, task["granted"], task.get("granted_pe"))
    return ctx


def _default_amount(attr: ComplexAttr) -> float:
    try:
        value = parse_value(attr.type, attr.default)
    except BadValueError:
        return 0.0
    return value if isinstance(value, float) else 0.0
