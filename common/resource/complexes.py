"""Complex attribute definitions: the `qconf -sc` table, its validation and `-l` requests.

This module owns :class:`ComplexAttr` (one line of ``qconf -sc``), the built-in default
list, rendering and parsing of the table (``qconf -sc``, ``-mc``, ``-Mc``), the rules of
complex-attributes-spec-2003 section 2 as Grid Engine 8.1.9 enforces them
(:func:`validate`), name/shortcut resolution and the parsing of a ``-l`` request list
into typed requests (:func:`parse_request_list`). Messages are Grid Engine's.
"""
from __future__ import annotations

import functools

from dataclasses import dataclass
from enum import Enum
from typing import Any, Iterable, Mapping, Sequence

from common.resource.values import (
    BOOL, DOUBLE, STRING, STRING_TYPES, BadValueError, Relop, ValueType,
    normalize_request_text, parse_value,
)


class Requestable(str, Enum):
    NO = "NO"
    YES = "YES"
    FORCED = "FORCED"


class Consumable(str, Enum):
    NO = "NO"
    YES = "YES"
    JOB = "JOB"


class ComplexError(ValueError):
    """A request or table refused; ``str()`` is Grid Engine's message."""


@dataclass(frozen=True)
class ComplexAttr:
    """One complex attribute. ``default`` and ``urgency`` keep their text as written."""

    name: str
    shortcut: str
    type: ValueType
    relop: Relop
    requestable: Requestable = Requestable.YES
    consumable: Consumable = Consumable.NO
    default: str = "0"
    urgency: str = "0"

    @property
    def is_consumable(self) -> bool:
        return self.consumable is not Consumable.NO

    def default_value(self) -> float:
        """The numeric default (0 when absent or unparsable, as Grid Engine uses it)."""
        try:
            value = parse_value(self.type, self.default)
        except BadValueError:
            return 0.0
        return value if isinstance(value, float) else 0.0


# --------------------------------------------------------------------------- built-ins

def _row(line: str) -> ComplexAttr:
    name, short, typ, relop, req, cons, default, urgency = line.split()
    return ComplexAttr(name, short, ValueType(typ), Relop(relop), Requestable(req),
                       Consumable(cons), default, urgency)


_DEFAULT_ROWS = """\
arch a STRING == YES NO NONE 0
calendar c STRING == YES NO NONE 0
cpu cpu DOUBLE >= YES NO 0 0
display_win_gui dwg BOOL == YES NO 0 0
h_core h_core MEMORY <= YES NO 0 0
h_cpu h_cpu TIME <= YES NO 0:0:0 0
h_data h_data MEMORY <= YES NO 0 0
h_fsize h_fsize MEMORY <= YES NO 0 0
h_rss h_rss MEMORY <= YES NO 0 0
h_rt h_rt TIME <= YES NO 0:0:0 0
h_stack h_stack MEMORY <= YES NO 0 0
h_vmem h_vmem MEMORY <= YES NO 0 0
hostname h HOST == YES NO NONE 0
load_avg la DOUBLE >= NO NO 0 0
load_long ll DOUBLE >= NO NO 0 0
load_medium lm DOUBLE >= NO NO 0 0
load_short ls DOUBLE >= NO NO 0 0
m_core core INT <= YES NO 0 0
m_socket socket INT <= YES NO 0 0
m_thread thread INT <= YES NO 0 0
m_topology topo STRING == YES NO NONE 0
m_topology_inuse utopo STRING == YES NO NONE 0
mem_free mf MEMORY <= YES NO 0 0
mem_total mt MEMORY <= YES NO 0 0
mem_used mu MEMORY >= YES NO 0 0
min_cpu_interval mci TIME <= NO NO 0:0:0 0
np_load_avg nla DOUBLE >= NO NO 0 0
np_load_long nll DOUBLE >= NO NO 0 0
np_load_medium nlm DOUBLE >= NO NO 0 0
np_load_short nls DOUBLE >= NO NO 0 0
num_proc p INT == YES NO 0 0
qname q STRING == YES NO NONE 0
rerun re BOOL == NO NO 0 0
s_core s_core MEMORY <= YES NO 0 0
s_cpu s_cpu TIME <= YES NO 0:0:0 0
s_data s_data MEMORY <= YES NO 0 0
s_fsize s_fsize MEMORY <= YES NO 0 0
s_rss s_rss MEMORY <= YES NO 0 0
s_rt s_rt TIME <= YES NO 0:0:0 0
s_stack s_stack MEMORY <= YES NO 0 0
s_vmem s_vmem MEMORY <= YES NO 0 0
seq_no seq INT == NO NO 0 0
slots s INT <= YES YES 1 1000
swap_free sf MEMORY <= YES NO 0 0
swap_rate sr MEMORY >= YES NO 0 0
swap_rsvd srsv MEMORY >= YES NO 0 0
swap_total st MEMORY <= YES NO 0 0
swap_used su MEMORY >= YES NO 0 0
tmpdir tmp STRING == NO NO NONE 0
virtual_free vf MEMORY <= YES NO 0 0
virtual_total vt MEMORY <= YES NO 0 0
virtual_used vu MEMORY >= YES NO 0 0
"""

def default_complexes() -> list[ComplexAttr]:
    """The complex list of a fresh Grid Engine 8.1.9 cell (``qconf -sc``); a new list
    each call (the attributes themselves are immutable and parsed once)."""
    return list(_default_rows())


@functools.lru_cache(maxsize=1)
def _default_rows() -> tuple[ComplexAttr, ...]:
    return tuple(_row(line) for line in _DEFAULT_ROWS.splitlines())


# The attributes Grid Engine's code relies on (its queue_resource and host_resource
# tables), with the type it relies on: exactly the default list. They cannot be
# deleted nor change type, except among STRING, CSTRING and RESTRING.
BUILTIN_TYPES: Mapping[str, ValueType] = {a.name: a.type for a in default_complexes()}


def resolve_name(attrs: Iterable[ComplexAttr], name_or_shortcut: str) -> ComplexAttr | None:
    """The attribute called ``name_or_shortcut``: by full name first, then shortcut."""
    attrs = list(attrs)
    for attr in attrs:
        if attr.name == name_or_shortcut:
            return attr
    for attr in attrs:
        if attr.shortcut == name_or_shortcut:
            return attr
    return None


# --------------------------------------------------------------------------- qconf -sc

_HEADERS = ("name", "shortcut", "type", "relop", "requestable", "consumable",
            "default", "urgency")
FOOTER = "# >#< starts a comment but comments are not saved across edits --------"


def _columns(attr: ComplexAttr) -> tuple[str, ...]:
    return (attr.name, attr.shortcut, attr.type.value, attr.relop.value,
            attr.requestable.value, attr.consumable.value, attr.default, attr.urgency)


def render_complex_list(attrs: Iterable[ComplexAttr]) -> str:
    """``qconf -sc`` output: sorted by name, columns as wide as the data plus three."""
    rows = [_columns(a) for a in sorted(attrs, key=lambda a: a.name)]
    widths = [max([len(h)] + [len(r[i]) + 3 for r in rows]) for i, h in enumerate(_HEADERS)]
    header = "#" + "".join(f"{h:<{w + (1 if i else 0)}}"
                           for i, (h, w) in enumerate(zip(_HEADERS, widths)))
    dashes = "#" + "-" * (sum(widths) + len(widths) - 1)
    lines = [header, dashes]
    for row in rows:
        padded = [f"{cell:<{w}}" for cell, w in zip(row[:-1], widths)]
        lines.append(" ".join(padded + [row[-1]]))
    lines.append(FOOTER)
    return "\n".join(lines) + "\n"


def _parse_enum(kind: str, value: str, choices: Mapping[str, Enum]) -> Enum:
    found = choices.get(value.lower())
    if found is None:
        raise ComplexError(f'Invalid complex attribute {kind} ("{value}")')
    return found


_TYPES = {t.value.lower(): t for t in ValueType}
_RELOPS = {r.value.lower(): r for r in Relop}
_REQUESTABLE = {"y": Requestable.YES, "yes": Requestable.YES, "n": Requestable.NO,
                "no": Requestable.NO, "f": Requestable.FORCED, "forced": Requestable.FORCED}
_CONSUMABLE = {"y": Consumable.YES, "yes": Consumable.YES, "n": Consumable.NO,
               "no": Consumable.NO, "j": Consumable.JOB, "job": Consumable.JOB}


def parse_complex_line(line: str) -> ComplexAttr:
    """One definition line of eight columns."""
    fields = line.split()
    if len(fields) != len(_HEADERS):
        raise ComplexError(f'invalid complex attribute definition "{line.strip()}"')
    name, short, typ, relop, req, cons, default, urgency = fields
    if typ.lower() not in _TYPES:
        raise ComplexError(f'Invalid complex attribute type ("{typ}")')
    return ComplexAttr(
        name, short, _TYPES[typ.lower()],
        _parse_enum("for relation operator", relop, _RELOPS),  # type: ignore[arg-type]
        _parse_enum("for requestable", req, _REQUESTABLE),  # type: ignore[arg-type]
        _parse_enum("for consumable", cons, _CONSUMABLE),  # type: ignore[arg-type]
        default, urgency)


def parse_complex_list(text: str) -> list[ComplexAttr]:
    """Parse a ``qconf -Mc`` file; '#' lines are comments, '\\' joins lines."""
    joined = text.replace("\\\n", " ")
    return [parse_complex_line(line) for line in joined.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


# --------------------------------------------------------------------------- validation

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


# --------------------------------------------------------------------------- -l requests

@dataclass(frozen=True)
class ResourceRequest:
    """One validated ``-l name=value``: full attribute, typed value, text as stored."""

    attr: ComplexAttr
    value: float | str
    text: str

    @property
    def name(self) -> str:
        return self.attr.name


def split_request_list(text: str) -> list[tuple[str, str | None]]:
    """``"a=1,b=x c"`` -> [("a", "1"), ("b", "x"), ("c", None)]; later names win."""
    items: dict[str, str | None] = {}
    for token in text.replace(" ", ",").split(","):
        if not token:
            continue
        name, sep, value = token.partition("=")
        if not name:
            raise ComplexError('unknown resource ""')
        items[name] = value if sep else None
    return list(items.items())


def make_request(attr: ComplexAttr, text: str | None, *,
                 allow_non_requestable: bool = False) -> ResourceRequest:
    """Type-check one request for ``attr``; a missing value means TRUE."""
    if not allow_non_requestable and attr.requestable is Requestable.NO:
        raise ComplexError(f'resource "{attr.name}" configured as non requestable')
    raw = "TRUE" if text is None else text
    try:
        value = parse_value(attr.type, raw, attr=attr.name,
                            allow_infinity=not attr.is_consumable)
    except BadValueError as err:
        raise ComplexError(str(err)) from err
    if attr.is_consumable and isinstance(value, float) and value < 0:
        raise ComplexError(f'attribute "{attr.name}" is consumable but has a negative value')
    return ResourceRequest(attr, value, normalize_request_text(attr.type, raw, value))


def parse_request_list(text: str, attrs: Iterable[ComplexAttr], *,
                       allow_non_requestable: bool = False) -> list[ResourceRequest]:
    """Parse and validate a ``-l`` list; the first error raises :class:`ComplexError`."""
    attrs = list(attrs)
    requests = []
    for name, value in split_request_list(text):
        attr = resolve_name(attrs, name)
        if attr is None:
            raise ComplexError(f'unknown resource "{name}"')
        requests.append(make_request(attr, value,
                                     allow_non_requestable=allow_non_requestable))
    return requests


def format_request_list(requests: Iterable[ResourceRequest]) -> str:
    """``arch=sparc64,h_rt=3600``: sorted by name, as in scheduler messages; ``NONE``
    when there is no request."""
    ordered = sorted(requests, key=lambda r: r.name)
    return ",".join(f"{r.name}={r.text}" for r in ordered) or "NONE"


# --------------------------------------------------------------------------- cell list

# The qmaster keeps the cell's list as configuration kind "complex", one object "global"
# whose data is one row of the eight ``qconf -sc`` columns per attribute.
COMPLEX_KIND = "complex"
COMPLEX_OBJECT = "global"
Row = Sequence[str]


def rows_of(attrs: Iterable[ComplexAttr]) -> list[list[str]]:
    """The stored form: ``[name, shortcut, type, relop, requestable, consumable,
    default, urgency]`` per attribute, in the given order."""
    return [list(_columns(a)) for a in attrs]


def complexes_from_rows(rows: Iterable[Row]) -> list[ComplexAttr]:
    """Attributes from stored rows (the inverse of :func:`rows_of`); a row that is not
    eight non-blank words raises :class:`ComplexError`."""
    return list(_attrs_of_rows(tuple(_checked_row(row) for row in rows)))


def _checked_row(row: Row) -> tuple[str, ...]:
    words = tuple(row) if isinstance(row, (list, tuple)) else ()
    if len(words) != len(_HEADERS) or not all(
            isinstance(w, str) and w and len(w.split()) == 1 for w in words):
        raise ComplexError(f'invalid complex attribute definition "{row}"')
    return words


@functools.lru_cache(maxsize=8)
def _attrs_of_rows(rows: tuple[tuple[str, ...], ...]) -> tuple[ComplexAttr, ...]:
    # cached: the scheduler asks for the same list on every pass
    return tuple(parse_complex_line(" ".join(row)) for row in rows)


def cell_complexes(conf: Mapping[str, Mapping[str, Any]]) -> list[ComplexAttr]:
    """The cell's complex list from the qmaster's configuration objects (``Store.conf``
    or a scheduler mirror of it): the stored list, or the defaults when none is stored."""
    rows = (conf.get(COMPLEX_KIND) or {}).get(COMPLEX_OBJECT)
    if not rows:
        return default_complexes()
    if _last_rows and _last_rows[0] is rows:
        return list(_last_rows[1])
    attrs = complexes_from_rows(rows)
    # The store replaces the stored list on every change, never edits it in place, so
    # the same object means the same list: no need to check its rows again.
    _last_rows[:] = [rows, tuple(attrs)]
    return attrs


_last_rows: list[Any] = []
