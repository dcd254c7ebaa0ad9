"""Resource levels of the cluster for matching jobs (complex(5)): pure, shared by the
scheduler's dispatch pass and the qmaster's re-check of dispatch orders.

This module owns :class:`ResourceView`: for every level (the global host, each exec
host, each queue instance) its fixed values, its load values and the consumable amounts
debited by running jobs. It is built from configuration objects (``[name, value]``
pairs), host load reports and the grants of active tasks; matching itself is
:func:`common.resource.matching.match_job`. Level keys: ``("global",)``,
``("host", host)`` and ``("queue", queue, host)``.

Slots of a queue instance are the pass's own bookkeeping (``PassInput.used``), so the
queue level carries the ``slots`` capacity but never its usage; ``slots`` configured
as a consumable on the global or a host level is debited here like any other.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from common import limits
from common.cluster import QueueInstance, attr, host_alive, hostgroups
from common.conf_values import split_assignments, split_names
from common.objects_conf.queue import QUEUE, parse_host_overrides, resolve
from common.resource.complexes import (
    ComplexAttr, ComplexError, Consumable, Requestable, ResourceRequest,
    cell_complexes, parse_request_list, resolve_name,
)
from common.resource.matching import Level, MatchResult, match_job
from common.resource.values import STRING_TYPES, BadValueError, Relop, parse_value

LevelKey = tuple[str, ...]
GLOBAL: LevelKey = ("global",)
Pairs = list[list[str]]
# one debit: (level, attribute, amount, True when it counts as non-exclusive use of EXCL)
Change = tuple[LevelKey, str, float, bool]
EMPTY: Mapping[str, Any] = {}  # a level that lacks a mapping (never written to)

# queue_conf(5) attributes a queue instance offers as requestable values (Grid Engine's
# queue resource table), besides qname, hostname and slots
QUEUE_RESOURCES = ("seq_no", "tmpdir", "rerun", "calendar", "min_cpu_interval",
                   *limits.NAMES)


def host_key(host: str) -> LevelKey:
    return ("host", host)


def queue_key(queue: str, host: str) -> LevelKey:
    return ("queue", queue, host)


@dataclass
class ResourceView:
    attrs: list[ComplexAttr]
    values: dict[LevelKey, dict[str, str]] = field(default_factory=dict)
    load: dict[LevelKey, Mapping[str, str]] = field(default_factory=dict)
    scaled: dict[LevelKey, frozenset[str]] = field(default_factory=dict)
    usage: dict[LevelKey, dict[str, float]] = field(default_factory=dict)
    shared: dict[LevelKey, dict[str, float]] = field(default_factory=dict)
    _slots_above: bool | None = field(default=None, repr=False)
    _queue_names: frozenset[str] | None = field(default=None, repr=False)
    _by_queue: dict[str, list[LevelKey]] | None = field(default=None, repr=False)
    _uniform: dict[tuple[str, tuple[str, ...]], bool] = field(default_factory=dict,
                                                              repr=False)
    _amounts: dict[tuple[Any, ...], list[tuple[ComplexAttr, float]]] = field(
        default_factory=dict, repr=False)

    def consumable_amounts(self, requests: Sequence[ResourceRequest]
                           ) -> list[tuple[ComplexAttr, float]]:
        """Per consumable, what a job takes per slot (or per job): its request, else
        the default; the same request set is worked out once."""
        key = tuple((r.name, r.value) for r in requests)
        found = self._amounts.get(key)
        if found is None:
            # only what some level manages can be debited (queue slots: see module doc)
            managed = self.names_at_queues() - {"slots"} | {
                name for k, values in self.values.items() if k[0] != "queue"
                for name in values}
            found = self._amounts[key] = [
                (a, value) for a, value in _consumable_amounts(self.attrs, requests)
                if a.name in managed and (value or a.relop is Relop.EXCL)]
        return found

    def slots_above_queue(self) -> bool:
        """Is ``slots`` a consumable of the global or a host level (then slots can run
        out there before the queue instances are full)?"""
        if self._slots_above is None:
            self._slots_above = any(key[0] != "queue" and "slots" in values
                                    for key, values in self.values.items())
        return self._slots_above

    def names_at_queues(self) -> frozenset[str]:
        """Every attribute some queue instance has a value for (consumables are debited
        only where they have one)."""
        if self._queue_names is None:
            self._queue_names = frozenset(name for key, values in self.values.items()
                                          if key[0] == "queue" for name in values)
        return self._queue_names

    def uniform_at_queue(self, queue: str, names: tuple[str, ...]) -> bool:
        """Do all instances of cluster queue ``queue`` have the same values for
        ``names`` (no ``[host=..]`` override touches them)?"""
        if self._by_queue is None:
            self._by_queue = {}
            for key in self.values:
                if key[0] == "queue":
                    self._by_queue.setdefault(key[1], []).append(key)
        found = self._uniform.get((queue, names))
        if found is None:
            keys = self._by_queue.get(queue, [])
            found = self._uniform[(queue, names)] = len(
                {tuple(self.values[k].get(n) for n in names) for k in keys}) <= 1
        return found

    def level(self, key: LevelKey) -> Level:
        kind = key[0]
        name = "global" if kind == "global" else key[1] if kind == "host" \
            else f"{key[1]}@{key[2]}"
        return Level(kind, name, self.values.get(key, {}), self.load.get(key, {}),
                     self.usage.get(key, {}), self.shared.get(key, {}),
                     self.scaled.get(key, frozenset()))

    def levels(self, queue: str, host: str) -> list[Level]:
        return [self.level(k) for k in (GLOBAL, host_key(host), queue_key(queue, host))]

    def copy(self) -> "ResourceView":
        """The same cluster with its usage copied (a pass debits into its view)."""
        return ResourceView(self.attrs, self.values, self.load, self.scaled,
                            {key: dict(used) for key, used in self.usage.items()},
                            {key: dict(used) for key, used in self.shared.items()},
                            _slots_above=self._slots_above, _amounts=self._amounts)


# --------------------------------------------------------------------------- building

def complex_list(conf: Mapping[str, Mapping[str, Any]]) -> list[ComplexAttr]:
    """The cell's complex list (``qconf -sc``): the stored one, else Grid Engine's defaults."""
    return cell_complexes(conf)


def complex_values(text: str, attrs: Sequence[ComplexAttr]) -> dict[str, str]:
    """``lic=2,mf=4G`` -> {"lic": "2", "mem_free": "4G"} (full names; NONE is empty)."""
    out: dict[str, str] = {}
    for item in split_names(text or "NONE"):
        name, _, value = item.partition("=")
        if name.upper() == "NONE":
            continue
        found = resolve_name(attrs, name)
        out[found.name if found else name] = value
    return out


def _load_of(host: Any, field: str = "load") -> Mapping[str, str]:
    load = host.get(field) if isinstance(host, dict) else getattr(host, field, None)
    return load or {}


def global_load(hosts: Mapping[str, Any]) -> dict[str, str]:
    """The global host's load values: what the load sensors of the execds that are up
    report as ``global:name:value`` (by host name, a later host's value winning)."""
    merged: dict[str, str] = {}
    for name in sorted(hosts):
        if host_alive(hosts[name]):
            merged.update(_load_of(hosts[name], "global_load"))
    return merged


def fixed_levels(conf: Mapping[str, Mapping[str, Pairs]], instances: Iterable[QueueInstance],
                 attrs: Sequence[ComplexAttr]) -> dict[LevelKey, dict[str, str]]:
    """Fixed values of every level: global and exec host ``complex_values``, and per
    queue instance its queue resources and ``complex_values`` resolved for its host."""
    exechosts = conf.get("exechost") or {}
    values = {GLOBAL: complex_values(attr(exechosts.get("global", []), "complex_values"),
                                     attrs)}
    for name, pairs in exechosts.items():  # hosts without queues too (qhost -F)
        if name != "global":
            values[host_key(name)] = complex_values(attr(pairs, "complex_values"), attrs)
    groups = hostgroups(conf)
    per_queue = {name: _queue_template(pairs) for name, pairs in conf["queue"].items()}
    for qi in instances:
        hkey = host_key(qi.host)
        if hkey not in values:
            values[hkey] = complex_values(
                attr(exechosts.get(qi.host, []), "complex_values"), attrs)
        values[queue_key(qi.queue, qi.host)] = _queue_values(
            per_queue[qi.queue], qi, groups, attrs)
    return values


_QUEUE_DEFAULTS = {a.name: a.default for a in QUEUE.attrs}


def _queue_template(pairs: Pairs) -> dict[str, tuple[str, dict[str, str]]]:
    """Each queue resource parsed once: (default, {host or @group: value}); attributes
    missing from ``pairs`` take the queue template's value (``qconf -sq template``)."""
    names = QUEUE_RESOURCES + ("complex_values",)
    return {name: parse_host_overrides(attr(pairs, name, _QUEUE_DEFAULTS[name]))
            for name in names}


def _queue_values(template: Mapping[str, tuple[str, dict[str, str]]], qi: QueueInstance,
                  groups: dict[str, list[str]], attrs: Sequence[ComplexAttr]
                  ) -> dict[str, str]:
    out = {"qname": qi.queue, "hostname": qi.host, "slots": str(qi.slots)}
    for name, (default, overrides) in template.items():
        value = default
        if overrides:
            text = default + "".join(f",[{h}={v}]" for h, v in overrides.items())
            value = resolve(text, qi.host, groups)
        if name == "complex_values":
            out.update(complex_values(value, attrs))
        else:
            out[name] = value
    return out


def build_view(conf: Mapping[str, Mapping[str, Pairs]], hosts: Mapping[str, Any],
               instances: Sequence[QueueInstance],
               active: Iterable[tuple[Mapping[str, str], Sequence[Sequence[Any]]]],
               *, values: dict[LevelKey, dict[str, str]] | None = None) -> ResourceView:
    """The view for a pass or a re-check. ``active``: (hard ``-l`` list, granted) of
    every task holding resources; ``values``: :func:`fixed_levels` when the caller cached
    them."""
    attrs = complex_list(conf)
    view = ResourceView(attrs, values if values is not None else
                        fixed_levels(conf, instances, attrs))
    _add_loads(view, conf, hosts)
    for hard_resources, granted in active:
        requests = job_requests(hard_resources, attrs)
        if requests is not None and granted:
            apply(view, debits(view, requests, granted))
    return view


def load_view(conf: Mapping[str, Mapping[str, Pairs]], hosts: Mapping[str, Any]
              ) -> ResourceView:
    """A view with the load values only (after load_scaling): what thresholds and load
    displays need, without the cost of fixed values and consumable usage."""
    view = ResourceView(complex_list(conf))
    _add_loads(view, conf, hosts)
    return view


def _add_loads(view: ResourceView, conf: Mapping[str, Mapping[str, Pairs]],
               hosts: Mapping[str, Any]) -> None:
    view.load = {host_key(name): _load_of(h) for name, h in hosts.items()}
    view.load[GLOBAL] = global_load(hosts)
    _scale_loads(view, conf.get("exechost") or {})


def _scale_loads(view: ResourceView, exechosts: Mapping[str, Pairs]) -> None:
    """host_conf(5) ``load_scaling``: each named load value of the host times its factor
    (load values that are no number stay as reported)."""
    for name, pairs in exechosts.items():
        factors = split_assignments(attr(pairs, "load_scaling", "NONE"))
        key = host_key(name)
        load = view.load.get(key)
        if not factors or not load:
            continue
        scaled, changed = dict(load), set()
        for load_name, factor in factors:
            found = resolve_name(view.attrs, load_name)
            if found is None or found.type in STRING_TYPES or load_name not in load:
                continue
            try:
                value = float(parse_value(found.type, load[load_name])) * float(factor)
            except (BadValueError, ValueError):
                continue
            scaled[load_name] = repr(value)
            changed.add(load_name)
        view.scaled[key] = frozenset(changed)
        view.load[key] = scaled


# --------------------------------------------------------------------------- requests

def job_requests(items: Mapping[str, str], attrs: Sequence[ComplexAttr]
                 ) -> list[ResourceRequest] | None:
    """A job's ``-l`` list (hard or soft) typed against the complex list; None when it
    does not parse any more (the complex list changed since submission): nothing can
    match."""
    if not items:
        return []
    text = ",".join(f"{name}={value}" for name, value in items.items())
    try:
        return parse_request_list(text, attrs)
    except ComplexError:
        return None


def relevant_attrs(attrs: Sequence[ComplexAttr], requests: Sequence[ResourceRequest]
                   ) -> list[ComplexAttr]:
    """The attributes a match can depend on: requested, FORCED, ``slots``, consumables
    with a default. Matching with only these gives the same verdict, much faster."""
    wanted = {r.name for r in requests}
    return [a for a in attrs if a.name in wanted or a.name == "slots"
            or a.requestable is Requestable.FORCED or _has_default(a)]


def _has_default(a: ComplexAttr) -> bool:
    return a.is_consumable and (a.relop is Relop.EXCL or a.default_value() != 0)


# --------------------------------------------------------------------------- debits

def debits(view: ResourceView, requests: Sequence[ResourceRequest],
           granted: Sequence[Sequence[Any]], *, has_master: bool = True) -> list[Change]:
    """What a job granted ``granted`` takes from each level: per slot for YES, once at
    the master queue (first entry, unless ``has_master`` is False) for JOB, defaults
    for consumables not requested."""
    amounts = view.consumable_amounts(requests)
    changes: list[Change] = []
    if not amounts:
        return changes
    for index, (queue, host, slots) in enumerate(granted):
        for key in (GLOBAL, host_key(str(host)), queue_key(str(queue), str(host))):
            managed = view.values.get(key, {})
            for a, value in amounts:
                if a.name not in managed or (a.name == "slots" and key[0] == "queue"):
                    continue
                change = _one_debit(key, a, value, int(slots), has_master and index == 0)
                if change is not None:
                    changes.append(change)
    return changes


def _consumable_amounts(attrs: Sequence[ComplexAttr], requests: Sequence[ResourceRequest]
                        ) -> list[tuple[ComplexAttr, float]]:
    asked = {r.name: r for r in requests}
    out = []
    for a in attrs:
        if not a.is_consumable:
            continue
        req = asked.get(a.name)
        out.append((a, float(req.value) if req is not None else a.default_value()))
    return out


def _one_debit(key: LevelKey, a: ComplexAttr, value: float, slots: int,
               master: bool) -> Change | None:
    if a.relop is Relop.EXCL:
        # exclusive holders count in usage, everyone else in shared usage
        return (key, a.name, float(slots), value == 0)
    if a.consumable is Consumable.JOB:
        return (key, a.name, value, False) if master and value else None
    return (key, a.name, value * slots, False) if value else None


def apply(view: ResourceView, changes: Iterable[Change], sign: int = 1) -> None:
    for key, name, amount, shared in changes:
        book = (view.shared if shared else view.usage).setdefault(key, {})
        book[name] = book.get(name, 0.0) + sign * amount


# --------------------------------------------------------------------------- checks

def check_grant(view: ResourceView, requests: Sequence[ResourceRequest],
                granted: Sequence[Sequence[Any]], *,
                consumables_only: bool = False) -> MatchResult | None:
    """Whether ``granted`` fits now, entry after entry (each debited before the next);
    the first denial, or None when it fits. The view is left unchanged.
    ``consumables_only``: judge the consumable bookkeeping alone (the qmaster's check)."""
    attrs = relevant_attrs(view.attrs, requests)
    if consumables_only:
        attrs = [a for a in attrs if a.is_consumable]
        requests = [r for r in requests if r.attr.is_consumable]
    taken: list[Change] = []
    try:
        for index, entry in enumerate(granted):
            queue, host, slots = str(entry[0]), str(entry[1]), int(entry[2])
            result = match_job(requests, attrs, view.levels(queue, host), slots=slots,
                               master=index == 0)
            if not result.ok:
                return result
            step = debits(view, requests, [entry], has_master=index == 0)
            apply(view, step)
            taken.extend(step)
        return None
    finally:
        apply(view, taken, -1)
