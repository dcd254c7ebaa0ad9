"""The complex attribute list in the qmaster: ``qconf -Mc`` replaces it whole,
``qconf -ace/-mce/-dce`` change one attribute of the list the qmaster holds.

Kind "complex": the object "global" is the whole list of ``qconf -sc`` rows; any other
name is one attribute, sent as a list holding its single row. Either way the new list is
re-validated against the list it replaces and the attributes exec hosts, queues and the
scheduler configuration still use, then answered with one line per attribute removed,
modified and added, in that order, as Grid Engine does.
"""
from __future__ import annotations

import re
from typing import Any, Mapping

from common.cluster import attr
from common.conf_values import split_assignments
from common.conffile import ConfError
from common.objects_conf.queue import parse_host_overrides
from common.resource.centry import with_entry, without_entry
from common.resource.complex_rules import validate
from common.resource.complexes import (
    COMPLEX_KIND, COMPLEX_OBJECT, ComplexAttr, ComplexError, cell_complexes,
    complexes_from_rows, resolve_name, rows_of,
)
from common.resource.values import BadValueError, parse_value
from qmaster.context import Ctx, RequestError

COMPLEX_NOT_CHANGED = "Complex attribute configuration has not been changed"


def put_complexes(ctx: Ctx, name: str, data: Any, mode: str, who: str) -> dict[str, Any]:
    """The whole list (object "global", mode "modify") or one attribute (add/modify)."""
    if data is None:
        raise RequestError("malformed", "the complex list must be a list of rows")
    try:
        rows = complexes_from_rows(data)
    except ComplexError as err:
        raise RequestError("invalid", str(err)) from None
    old = cell_complexes(ctx.store.conf)
    one_named_global = len(rows) == 1 and rows[0].name == COMPLEX_OBJECT
    if name == COMPLEX_OBJECT and mode == "modify" and not one_named_global:
        return _replace(ctx, rows, old, who)  # the whole list (an attribute may be "global")
    if mode not in ("add", "modify") or len(rows) != 1 or rows[0].name != name:
        raise RequestError("malformed", "a complex entry is one row named like the object")
    try:
        new = with_entry(old, rows[0], add=mode == "add")
    except ComplexError as err:
        raise RequestError("exists" if mode == "add" else "missing", str(err)) from None
    return _replace(ctx, new, old, who)


def delete_complex_entry(ctx: Ctx, name: str, who: str) -> dict[str, Any]:
    old = cell_complexes(ctx.store.conf)
    try:
        new = without_entry(old, name)
    except ComplexError as err:
        raise RequestError("missing", str(err)) from None
    return _replace(ctx, new, old, who)


def _replace(ctx: Ctx, new: list[ComplexAttr], old: list[ComplexAttr], who: str
             ) -> dict[str, Any]:
    """Replace the cell's complex list; refusals are validate()'s texts, one per line."""
    errors = validate(new, old, complex_references(ctx.store.conf, old))
    if errors:
        raise RequestError("invalid", "\n".join(errors))
    lines = _complex_changes(who, new, old)
    if not lines:
        return {"message": COMPLEX_NOT_CHANGED}
    ctx.store.put_conf(ctx.batch, COMPLEX_KIND, COMPLEX_OBJECT,
                       rows_of(sorted(new, key=lambda a: a.name)))
    return {"message": "\n".join(lines)}


def complex_values_refusal(kind: str, pairs: list[list[str]], attrs: list[ComplexAttr]
                           ) -> str | None:
    """An exec host's or queue's ``complex_values`` may name only attributes of the
    complex list, each with a value of its type; Grid Engine's refusal, else None."""
    text = attr(pairs, "complex_values", "NONE")
    try:
        default, overrides = parse_host_overrides(text) if kind == "queue" else (text, {})
    except ConfError as err:
        return err.message
    for value in [default, *overrides.values()]:
        for name, raw in split_assignments(value):
            found = resolve_name(attrs, name)
            if found is None:
                return (f'Complex attribute "{name}" does not exist' if kind == "queue"
                        else f'denied: attribute "{name}" is not a complex attribute')
            try:
                parse_value(found.type, raw, attr=found.name)
            except BadValueError as err:
                return str(err)
    return None


def _complex_changes(who: str, new: list[ComplexAttr], old: list[ComplexAttr]) -> list[str]:
    """Grid Engine's answers: removals (object "complex"), then modifications and
    additions (object "complex entry")."""
    before = {a.name: a for a in old}
    kept = {a.name for a in new}
    lines = [f'{who} removed "{a.name}" from complex list' for a in old if a.name not in kept]
    lines += [f'{who} modified "{a.name}" in complex entry list' for a in new
              if a.name in before and before[a.name] != a]
    lines += [f'{who} added "{a.name}" to complex entry list' for a in new
              if a.name not in before]
    return lines


_FORMULA_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


def complex_references(conf: Mapping[str, Mapping[str, Any]], attrs: list[ComplexAttr]
                       ) -> dict[str, list[tuple[str, str]]]:
    """Attribute (full name) -> where it is still used: ("sconf", "global") for the
    scheduler's load_formula and job_load_adjustments, ("queue", q) and ("host", h) for
    ``complex_values`` (queues' per-host values included, "global" for the global host)."""
    refs: dict[str, list[tuple[str, str]]] = {}

    def note(name: str, kind: str, obj: str) -> None:
        found = resolve_name(attrs, name)
        refs.setdefault(found.name if found else name, []).append((kind, obj))

    sconf = conf.get("sconf", {}).get("global", [])
    for name in _FORMULA_NAME.findall(attr(sconf, "load_formula", "")):
        note(name, "sconf", "global")
    for name, _ in split_assignments(attr(sconf, "job_load_adjustments", "NONE")):
        note(name, "sconf", "global")
    for qname, pairs in sorted(conf.get("queue", {}).items()):
        for name in _queue_value_names(attr(pairs, "complex_values", "NONE")):
            note(name, "queue", qname)
    for host, pairs in sorted(conf.get("exechost", {}).items()):
        for name, _ in split_assignments(attr(pairs, "complex_values", "NONE")):
            note(name, "host", host)
    return refs


def _queue_value_names(text: str) -> list[str]:
    """Attribute names of a queue's ``complex_values``, per-host entries included."""
    try:
        default, overrides = parse_host_overrides(text)
    except ConfError:
        return []  # the qmaster accepted it; an unreadable value references nothing
    values = [default, *overrides.values()]
    return [name for value in values for name, _ in split_assignments(value)]
