"""One complex attribute as an object of its own ("complex entry"): pure.

``qconf -sce/-ace/-Ace/-mce/-Mce/-dce`` show, add, change and delete a single attribute
instead of the whole ``qconf -sc`` table. Grid Engine's qconf has these options in its
debug builds and spools each attribute in this form (one ``name value`` line per field);
this module owns that text form and the list edits the options make. Validation of the
resulting list stays with :func:`common.resource.complex_rules.validate`.
"""
from __future__ import annotations

from typing import Sequence

from common.resource.complexes import ComplexAttr, ComplexError, parse_complex_line
from common.resource.values import Relop, ValueType

FIELDS = ("name", "shortcut", "type", "relop", "requestable", "consumable", "default",
          "urgency")
_WIDTH = 12  # the longest field name ("requestable") and one blank


def render_centry(attr: ComplexAttr) -> str:
    """``qconf -sce name``: one ``field value`` line per field."""
    values = (attr.name, attr.shortcut, attr.type.value, attr.relop.value,
              attr.requestable.value, attr.consumable.value, attr.default, attr.urgency)
    return "".join(f"{field:<{_WIDTH}}{value}\n" for field, value in zip(FIELDS, values))


def centry_template(name: str) -> ComplexAttr:
    """What ``qconf -ace name`` opens in the editor: a requestable string attribute."""
    return ComplexAttr(name, name, ValueType.RESTRING, Relop.EQ, default="NONE")


def parse_centry(text: str) -> ComplexAttr:
    """The attribute of a ``-Ace``/``-Mce`` file or an edited ``-ace``/``-mce`` text.
    Every field must be there once; '#' starts a comment line."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        field = words[0]
        if field not in FIELDS:
            raise ComplexError(f'unknown attribute name "{field}"')
        if len(words) != 2:
            raise ComplexError(f'invalid value for attribute "{field}"')
        if field in found:
            raise ComplexError(f'attribute "{field}" is given twice')
        found[field] = words[1]
    missing = [f for f in FIELDS if f not in found]
    if missing:
        raise ComplexError(f'required attribute "{missing[0]}" is missing')
    return parse_complex_line(" ".join(found[f] for f in FIELDS))


def find_entry(attrs: Sequence[ComplexAttr], name: str) -> ComplexAttr:
    for attr in attrs:
        if attr.name == name:
            return attr
    raise ComplexError(f'complex entry "{name}" does not exist')


def with_entry(attrs: Sequence[ComplexAttr], attr: ComplexAttr, *, add: bool
               ) -> list[ComplexAttr]:
    """The list with ``attr`` added (``add``) or replacing the attribute of its name."""
    names = {a.name for a in attrs}
    if add and attr.name in names:
        raise ComplexError(f'complex entry "{attr.name}" already exists')
    if not add:
        find_entry(attrs, attr.name)
        return [attr if a.name == attr.name else a for a in attrs]
    return [*attrs, attr]


def without_entry(attrs: Sequence[ComplexAttr], name: str) -> list[ComplexAttr]:
    find_entry(attrs, name)
    return [a for a in attrs if a.name != name]
