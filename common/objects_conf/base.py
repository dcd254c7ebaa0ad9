"""The frame every configuration object kind is described in: attributes, order, defaults.

An ``ObjectKind`` lists its attributes in Grid Engine's display order, each with its
template default and its checker (see ``common.conf_values``), the width of the name
column ``qconf`` aligns values to, and optionally a whole-object check. Generic
functions here parse, check, normalise and render any kind; the kinds themselves live in
``objects_conf.queue``, ``objects_conf.host`` and ``objects_conf.cluster``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

from common.conf_values import Check
from common.conffile import ConfError, ConfKind, Pairs, parse_conf, render_conf


@dataclass(frozen=True)
class Attr:
    """One attribute: its name, template default and checker.

    ``required``: a file given to ``qconf -A``/``-M`` must contain it; ``read_only``:
    shown by ``qconf -s`` when known but never part of a template (exec host
    ``load_values``, ``processors``).
    """

    name: str
    default: str
    check: Check
    required: bool = True
    read_only: bool = False


@dataclass(frozen=True)
class ObjectKind:
    """One kind of configuration object as ``qconf`` shows and reads it.

    ``width``: name column width; ``raw_values``: keep blanks inside values verbatim;
    ``key``: the attribute holding the object's name; ``object_check``: checks across
    attributes on the normalised values; ``value_check``: replaces the per-attribute
    checker call (the cluster queue uses it for ``[host=value]`` overrides).
    """

    name: str
    attrs: tuple[Attr, ...]
    width: int
    key: str = ""
    raw_values: bool = False
    object_check: Callable[[dict[str, str]], None] | None = None
    value_check: Callable[["ObjectKind", Attr, str], str] | None = None
    _index: dict[str, Attr] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._index.update({attr.name: attr for attr in self.attrs})

    def attr(self, name: str) -> Attr:
        found = self._index.get(name)
        if found is None:
            raise ConfError(f'unknown attribute name "{name}"')
        return found

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(attr.name for attr in self.attrs)

    def conf_kind(self, *, require_all: bool = True) -> ConfKind:
        required = frozenset(a.name for a in self.attrs if a.required and require_all)
        return ConfKind(self.name, self.names, required, self.raw_values)


def template(kind: ObjectKind, name: str | None = None) -> Pairs:
    """The defaults ``qconf -a*`` opens the editor with, the key set to ``name`` if given."""
    pairs = [(a.name, a.default) for a in kind.attrs if not a.read_only]
    if name is None or not kind.key:
        return pairs
    return [(key, name if key == kind.key else value) for key, value in pairs]


def check_value(kind: ObjectKind, name: str, value: str) -> str:
    """The canonical text of one attribute value, or ``ConfError``."""
    attr = kind.attr(name)
    if kind.value_check is not None:
        return kind.value_check(kind, attr, value)
    return attr.check(name, value)


def normalize(kind: ObjectKind, pairs: Iterable[Sequence[str]], *,
              complete: bool = False) -> Pairs:
    """Checked, canonical pairs in display order.

    Unknown or repeated names are refused. With ``complete`` missing attributes take
    their template defaults (read-only ones stay absent).
    """
    values: dict[str, str] = {}
    for name, value in pairs:
        if name in values:
            raise ConfError(f'attribute "{name}" appears more than once')
        values[name] = check_value(kind, name, value)
    if complete:
        for attr in kind.attrs:
            if not attr.read_only:
                values.setdefault(attr.name, attr.default)
    if kind.object_check is not None:
        kind.object_check(values)
    return [(name, values[name]) for name in kind.names if name in values]


def parse_object(kind: ObjectKind, text: str, *, require_all: bool = True) -> Pairs:
    """A file as ``qconf -A*``/``-M*`` or the editor hands it over: parsed, checked,
    normalised; with ``require_all`` every required attribute must be present."""
    pairs = parse_conf(text, kind=kind.conf_kind(require_all=require_all))
    return normalize(kind, pairs)


def render_object(kind: ObjectKind, pairs: Iterable[Sequence[str]], *, wrap: bool = True) -> str:
    """The text ``qconf -s*`` prints, attributes in display order."""
    values = {name: value for name, value in pairs}
    for name in values:
        kind.attr(name)
    ordered = [(name, values[name]) for name in kind.names if name in values]
    return render_conf(ordered, width=kind.width, wrap=wrap)
