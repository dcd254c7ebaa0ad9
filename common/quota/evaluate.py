"""How resource quota sets decide whether a grant may be made (pure).

sge_resource_quota(5) and the 2006 specification: every enabled set applies, all of the
time; within a set the first rule whose filters match the request is the set's rule for
it, and the request must fit every limit of that rule; so the tightest set wins. A filter
in braces counts each member on its own (``users {*}``: each user), one without braces
counts all the members together (``users *``: all users in sum). Usage is kept per set,
rule and such a tuple of consumers; a grant debits every set's matching rule.

A request is one job's grant on one queue instance: its user (and primary group), project
and PE, the cluster queue and host, and the amount of each complex it consumes there
(``slots`` included). What is not requested is not limited. A user is in an access list
``@acl`` of a users filter when the list holds the user's name or, as ``@group``, the
user's primary group (access_list(5), as the queues' user lists are decided).
"""
from __future__ import annotations

import fnmatch
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from common.quota.rqs_format import Filter, Rule, RuleSet

UsageKey = tuple[str, int, tuple[str, ...]]  # set name, rule index, consumer tuple


@dataclass(frozen=True)
class QuotaRequest:
    user: str
    project: str | None
    pe: str | None
    queue: str
    host: str
    amounts: Mapping[str, float]
    group: str = ""  # the job owner's primary group: access lists name groups as @group
    # the job's requests of non-consumable complexes a limit names: compared, not counted
    fixed: Mapping[str, float | str] = field(default_factory=dict)


@dataclass(frozen=True)
class Names:
    """What the filters' ``@names`` stand for: access lists (users) and host groups."""

    acls: Mapping[str, frozenset[str]] = field(default_factory=dict)
    host_groups: Mapping[str, frozenset[str]] = field(default_factory=dict)


# a limit's value for a host: (complex, limit text, host) -> number
LimitValue = Callable[[str, str, str], float]


def _member(entry: str, value: str, kind: str, names: Names, group: str = "") -> bool:
    if entry == "*":
        return True
    if entry.startswith("@"):
        lists = names.acls if kind == "users" else names.host_groups
        for members in (lists.get(entry[1:]), lists.get(entry)):
            if members and (value in members or
                            (kind == "users" and group and f"@{group}" in members)):
                return True
        return False
    if kind == "hosts":
        return fnmatch.fnmatch(value.lower(), entry.lower())
    return fnmatch.fnmatchcase(value, entry)


def filter_matches(flt: Filter | None, value: str | None, kind: str, names: Names,
                   group: str = "") -> bool:
    """Whether a request's ``value`` (None: no project or no PE) passes the filter;
    ``group``: the user's primary group, for the ``@group`` entries of access lists."""
    if flt is None:
        return True
    if value is None:  # only "!*" (or an exclusion-only list) admits "nothing requested"
        return not flt.scope and "*" in flt.xscope
    if any(_member(x, value, kind, names, group) for x in flt.xscope):
        return False
    return not flt.scope or any(_member(s, value, kind, names, group) for s in flt.scope)


def _values(req: QuotaRequest) -> dict[str, str | None]:
    return {"users": req.user, "projects": req.project, "pes": req.pe,
            "queues": req.queue, "hosts": req.host}


def rule_matches(rule: Rule, req: QuotaRequest, names: Names) -> bool:
    values = _values(req)
    return all(filter_matches(rule.filters.get(kind), values[kind], kind, names, req.group)
               for kind in values)


def matching_rule(rule_set: RuleSet, req: QuotaRequest, names: Names) -> int | None:
    """The index of the set's first rule for ``req`` (None: the set does not apply)."""
    return next((i for i, rule in enumerate(rule_set.rules) if rule_matches(rule, req, names)),
                None)


def consumer_tuple(rule: Rule, req: QuotaRequest) -> tuple[str, ...]:
    """Whom the rule's usage is counted for: the request's own value in each expanded
    filter, everyone together ("") in the others (users, projects, pes, queues, hosts).
    Spelt out rather than looped: the pass asks this for every instance it tries."""
    get = rule.filters.get
    return ((req.user if _expanded(get("users")) else ""),
            ((req.project or "") if _expanded(get("projects")) else ""),
            ((req.pe or "") if _expanded(get("pes")) else ""),
            (req.queue if _expanded(get("queues")) else ""),
            (req.host if _expanded(get("hosts")) else ""))


def _expanded(flt: Filter | None) -> bool:
    return flt is not None and flt.expand


def limit_text(rule_set: RuleSet, index: int, req: QuotaRequest) -> str:
    """8.1.9's reason for a refusal (``qstat -j``, ``qsub -w v``): ``cannot run because
    it exceeds limit "user/project/pe/queue/host/" in rule "set/rule"``, each field filled
    only where the rule's filter is expanded."""
    consumers = "".join(f"{value}/" for value in
                        consumer_tuple(rule_set.rules[index], req))
    return (f'cannot run because it exceeds limit "{consumers}" in rule '
            f'"{rule_label(rule_set, index)}"')


def rule_label(rule_set: RuleSet, index: int) -> str:
    """``set/rule``: the rule's name, else its position (qquota, qstat -j)."""
    rule = rule_set.rules[index]
    return f"{rule_set.name}/{rule.name or index + 1}"


@dataclass
class QuotaUsage:
    """What the running and already granted jobs hold, per set, rule and consumers."""

    used: dict[UsageKey, dict[str, float]] = field(default_factory=dict)

    def get(self, key: UsageKey, complex_name: str) -> float:
        return self.used.get(key, {}).get(complex_name, 0.0)

    def add(self, key: UsageKey, complex_name: str, amount: float) -> None:
        self.used.setdefault(key, {})
        self.used[key][complex_name] = self.used[key].get(complex_name, 0.0) + amount


def set_rules(rule_sets: Iterable[RuleSet], req: QuotaRequest, names: Names
              ) -> Iterator[tuple[RuleSet, int]]:
    """Each enabled set's rule for the request (its first matching rule)."""
    for rule_set in rule_sets:
        if rule_set.enabled:
            index = matching_rule(rule_set, req, names)
            if index is not None:
                yield rule_set, index


def usage_key(rule_set: RuleSet, index: int, req: QuotaRequest) -> UsageKey:
    """Where the usage of the request's consumers under this rule is kept."""
    return (rule_set.name, index, consumer_tuple(rule_set.rules[index], req))


def over_limit(rule_set: RuleSet, index: int, usage: QuotaUsage, req: QuotaRequest,
               limit_value: LimitValue) -> bool:
    """Whether the request would pass a limit of this rule (its consumers' usage)."""
    rule = rule_set.rules[index]
    key = usage_key(rule_set, index, req)
    for limit in rule.limits:
        amount = req.amounts.get(limit.name, 0.0)
        if amount > 0 and usage.get(key, limit.name) + amount > \
                limit_value(limit.name, limit.value, req.host):
            return True
    return False


def count(rule_set: RuleSet, index: int, usage: QuotaUsage, req: QuotaRequest) -> None:
    """Add the request to the usage of this rule's consumers."""
    rule = rule_set.rules[index]
    key = usage_key(rule_set, index, req)
    for limit in rule.limits:
        amount = req.amounts.get(limit.name, 0.0)
        if amount > 0:
            usage.add(key, limit.name, amount)


def exceeded(rule_sets: Iterable[RuleSet], usage: QuotaUsage, req: QuotaRequest,
             names: Names, limit_value: LimitValue) -> str | None:
    """The first ``set/rule`` whose limit the request would exceed, or None."""
    for rule_set, index in set_rules(rule_sets, req, names):
        if over_limit(rule_set, index, usage, req, limit_value):
            return rule_label(rule_set, index)
    return None


def debit(rule_sets: Iterable[RuleSet], usage: QuotaUsage, req: QuotaRequest,
          names: Names) -> None:
    """Count a grant (a running job, or one just placed) against every set."""
    for rule_set, index in set_rules(rule_sets, req, names):
        count(rule_set, index, usage, req)
