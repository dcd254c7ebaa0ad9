"""``qconf -fmt json -s...``: configuration objects, lists of names, complex attributes,
resource quota sets and share tree nodes as JSON, from the data ``qconf -s...`` shows.

An object's attributes are typed by their checker (``common.conf_values``): booleans,
integers, times in seconds and memory in bytes (``"INFINITY"`` when unlimited), lists of
names (NONE: ``[]``), lists of ``{"name", "value"}`` assignments; any other attribute
keeps its text. A cluster queue's attributes (but ``qname`` and ``hostlist``) are lists
of ``{"host": null | host | @group, "value": typed}``, the default first (host null).
Schema: ``qconf-1.json``.
"""
from __future__ import annotations

import math

from clients.render.jsondoc import document, dump
from common import conf_values as cv
from common.conffile import ConfError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable, Sequence

    from common.objects_conf import ObjectKind
    from common.quota.rqs_format import RuleSet
    from common.resource.complexes import ComplexAttr

SCHEMA = "qconf-1.json"
_UNLIMITED = "INFINITY"


def _quantity(parse: Callable[[str], float]) -> Callable[[str], Any]:
    def typed(text: str) -> Any:
        number = parse(text)
        if math.isinf(number):
            return _UNLIMITED
        return int(number) if number == int(number) else number
    return typed


def _names(text: str) -> list[str]:
    return cv.split_names(text)


def _assignments(text: str) -> list[dict[str, str]]:
    return [] if cv.is_none(text) else [{"name": n, "value": v}
                                         for n, v in cv.split_assignments(text)]


# checker -> how its values read as JSON (any checker not here: the text)
_BY_CHECK: dict[Any, Callable[[str], Any]] = {
    cv.check_bool: cv.parse_bool, cv.check_ulong: cv.parse_ulong, cv.check_int: cv.parse_int,
    cv.check_time: _quantity(cv.parse_time), cv.check_memory: _quantity(cv.parse_memory),
    cv.check_double6: cv.parse_double, cv.check_names: _names, cv.check_comma_names: _names,
    cv.check_assignments: _assignments, cv.check_double_assignments: _assignments,
}


# attributes whose checker says less than their values are: qconf -se's load values
# (read only, shown as "name=value,...")
_BY_ATTRIBUTE: dict[tuple[str, str], Callable[[str], Any]] = {
    ("exechost", "load_values"): _assignments,
}


def _reader(check: Any) -> Callable[[str], Any] | None:
    check = getattr(check, "__wrapped__", check)  # (the cluster configuration's keep())
    found = _BY_CHECK.get(check)
    if found is None and getattr(check, "__qualname__", "").startswith("check_ulong_range."):
        found = cv.parse_ulong
    return found


def typed(check: Any, text: str) -> Any:
    """``text`` as the JSON value of an attribute checked by ``check``; the text itself
    when the checker has no typed reading or the value does not read (kept as stored)."""
    reader = _reader(check)
    if reader is None:
        return text
    try:
        return reader(text)
    except (ConfError, ValueError):
        return text


def _queue_value(check: Any, text: str) -> list[dict[str, Any]]:
    from common.objects_conf import parse_host_overrides
    try:
        default, overrides = parse_host_overrides(text)
    except ConfError:
        return [{"host": None, "value": text}]
    return [{"host": None, "value": typed(check, default)}] + [
        {"host": host, "value": typed(check, value)} for host, value in overrides.items()]


def attributes(kind: ObjectKind, pairs: Iterable[Sequence[str]]) -> dict[str, Any]:
    """One object's attributes in display order, typed; an attribute the kind does not
    describe (none should be stored) keeps its text."""
    out: dict[str, Any] = {}
    for name, value in pairs:
        try:
            check = kind.attr(name).check
        except ConfError:
            out[name] = value
            continue
        if (kind.name, name) in _BY_ATTRIBUTE:
            out[name] = _BY_ATTRIBUTE[kind.name, name](value)
        elif kind.name == "queue" and name not in ("qname", "hostlist"):
            out[name] = _queue_value(check, value)
        elif kind.name == "queue" and name == "hostlist":
            out[name] = _names(value)
        else:
            out[name] = typed(check, value)
    return out


def complex_entry(attr: ComplexAttr) -> dict[str, Any]:
    """One line of ``qconf -sc`` (``-sce``'s attribute)."""
    return {"name": attr.name, "shortcut": attr.shortcut, "type": str(attr.type.value),
            "relop": str(attr.relop.value), "requestable": str(attr.requestable.value),
            "consumable": str(attr.consumable.value), "default": attr.default,
            "urgency": attr.urgency}


def rule_set(rs: RuleSet) -> dict[str, Any]:
    """One resource quota set (``qconf -srqs``)."""
    rules = []
    for rule in rs.rules:
        filters = {key: {"scope": list(f.scope), "xscope": list(f.xscope), "expand": f.expand}
                   for key, f in rule.filters.items()}
        rules.append({"name": rule.name, "filters": filters,
                      "limits": [{"name": lim.name, "value": lim.value, "dynamic": lim.dynamic}
                                 for lim in rule.limits]})
    description = None if rs.description == "NONE" else rs.description.strip('"')
    return {"name": rs.name, "description": description, "enabled": rs.enabled, "rules": rules}


def render(option: str, argument: str | None, body: dict[str, Any]) -> str:
    """The document of one show option: what it showed (``objects``, ``names``,
    ``complex_entries``, ``rule_sets``, ``sharetree``) and the names it did not find."""
    return dump(document(SCHEMA, {"option": option, "argument": argument,
                                  "missing": [], **body}))
