"""The rules a complex attribute list must follow: complex-attributes-spec-2003 section 2
as Grid Engine 8.1.9 enforces them (``qconf -Mc/-mc`` and the single-attribute options).

Pure: :func:`validate` takes the new list, the list it replaces and where attributes are
still used, and gives Grid Engine's refusals, one per broken rule (none: accepted).
"""
from __future__ import annotations

from typing import Mapping, Sequence

from common.resource.complexes import BUILTIN_TYPES, ComplexAttr, Requestable
from common.resource.values import (
    BOOL, DOUBLE, STRING, STRING_TYPES, BadValueError, Relop, ValueType, parse_value,
)


def _type_errors(a: ComplexAttr) -> list[str]:
    """Relop and consumable rules per type (centry_elem_validate's switch)."""
    q = f'"{a.name}"'
    if a.type in STRING_TYPES:
        errs = [] if a.relop in (Relop.EQ, Relop.NE) else [
            f"Complex {q} has an invalid relational operator"]
        if a.is_consumable:
            errs.append(f'Complex {q} of type "{a.type.value}" cannot be a consumable')
        return errs
    if a.type is BOOL:
        errs = [] if a.relop in (Relop.EQ, Relop.EXCL) else [
            f"Complex {q} has an invalid relational operator"]
        if a.is_consumable and a.relop is not Relop.EXCL:
            errs.append(f"Exclusive complex {q} must have EXCL as relational operator")
        if a.relop is Relop.EXCL and not a.is_consumable:
            errs.append(f"Exclusive complex {q} must be a consumable")
        return errs
    if a.relop is Relop.EXCL:
        return [f"Complex {q} must be BOOL to use EXCL as relational operator"]
    return []


def _parse_default(a: ComplexAttr, errs: list[str]) -> float:
    try:
        value = parse_value(a.type, a.default)
    except BadValueError as err:
        errs.append(f'Complex "{a.name}"\'s default value should be of type "{err.kind}"')
        return 0.0
    return float(value)


def _default_errors(a: ComplexAttr) -> list[str]:
    """Defaults: forced/non-requestable consumables, zero for non-consumables."""
    errs: list[str] = []
    q = f'"{a.name}"'
    if a.is_consumable:
        if a.relop not in (Relop.EXCL, Relop.LE):
            errs.append(f"Consumable {q} can have only <= as an relational operator")
        if a.requestable is Requestable.NO and _parse_default(a, errs) == 0:
            errs.append(f"Consumable {q} needs a default value because it is not requestable.")
        elif a.requestable is Requestable.FORCED and _parse_default(a, errs) != 0:
            errs.append(f"Consumable {q} cannot have a (non-zero) default value "
                        "because it is forced.")
    elif a.type in STRING_TYPES:
        if a.default.lower() != "none":
            errs.append(f"Complex {q} cannot have a (non-zero) default value")
    elif _parse_default(a, errs) != 0:
        errs.append(f"Complex {q} cannot have a (non-zero) default value")
    return errs


def _urgency_errors(a: ComplexAttr) -> list[str]:
    try:
        parse_value(DOUBLE, a.urgency)
    except BadValueError as err:
        return [f'The following error occoured for complex "{a.name}", '
                f'while parsing the urgency value: "{err.kind}"']
    return []


def _builtin_errors(a: ComplexAttr) -> list[str]:
    errs = []
    if a.name == "tmpdir" and a.requestable is not Requestable.NO:
        errs.append(f'Complex attribute "{a.name}" is not requestable')
    builtin = BUILTIN_TYPES.get(a.name)
    string_like = {STRING, ValueType.CSTRING, ValueType.RESTRING}
    if builtin is not None and builtin is not a.type and not (
            builtin in string_like and a.type in string_like):
        errs.append(f'The type of the complex "{a.name}" cannot be changed '
                    "due to its built in status")
    return errs


def validate_attr(attr: ComplexAttr) -> list[str]:
    """Every rule that concerns one attribute alone."""
    return (_type_errors(attr) + _default_errors(attr) + _urgency_errors(attr)
            + _builtin_errors(attr))


def _duplicate_errors(attrs: Sequence[ComplexAttr]) -> list[str]:
    """Each attribute whose name or shortcut clashes with an earlier one."""
    errs = []
    for i, a in enumerate(attrs):
        for b in attrs[:i]:
            if {a.name, a.shortcut} & {b.name, b.shortcut}:
                errs.append(f"complex with name {a.name} or shortcut {a.shortcut} "
                            "already exists")
                break
    return errs


# order in which Grid Engine looks for references, and its wording for each kind
_REFERENCE_KINDS = {
    "sconf": 'Complex attribute "{attr}" is still referenced in scheduler configuration.',
    "queue": 'Complex attribute "{attr}" is still referenced in queue "{obj}".',
    "host": 'Complex attribute "{attr}" is still referenced in host "{obj}".',
    "rqs": 'Complex attribute "{attr}" is still referenced in resource quota set "{obj}".',
}


def _reference_error(name: str, refs: Sequence[tuple[str, str]]) -> str | None:
    for kind, template in _REFERENCE_KINDS.items():
        for ref_kind, obj in refs:
            if ref_kind == kind:
                return "denied: " + template.format(attr=name, obj=obj)
    return None


def _removal_errors(new: Sequence[ComplexAttr], old: Sequence[ComplexAttr],
                    referenced: Mapping[str, Sequence[tuple[str, str]]]) -> list[str]:
    kept = {a.name for a in new}
    errs = []
    for gone in (a.name for a in old if a.name not in kept):
        if gone in BUILTIN_TYPES:
            errs.append(f'The built-in complex "{gone}" cannot be deleted')
            continue
        ref = _reference_error(gone, referenced.get(gone, ()))
        if ref is not None:
            errs.append(ref)
    return errs


def validate(new_list: Sequence[ComplexAttr], old_list: Sequence[ComplexAttr],
             referenced: Mapping[str, Sequence[tuple[str, str]]] | None = None) -> list[str]:
    """All errors of replacing ``old_list`` by ``new_list`` (empty list: accepted).

    ``referenced`` maps an attribute name to (kind, object name) pairs where kind is
    "host", "queue", "rqs" or "sconf"; only the first reference is reported, in that
    order of kinds: sconf, queue, host, rqs (Grid Engine's order).
    """
    errs = _duplicate_errors(new_list)
    for attr in new_list:
        errs.extend(validate_attr(attr))
    if errs:
        return errs  # Grid Engine checks removals only once the new list is sound
    return _removal_errors(new_list, old_list, referenced or {})
