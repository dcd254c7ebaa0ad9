"""Complex attribute definitions: the `qconf -sc` table and `-l` requests.

This module owns :class:`ComplexAttr` (one line of ``qconf -sc``), the built-in default
list, rendering and parsing of the table (``qconf -sc``, ``-mc``, ``-Mc``), name/shortcut
resolution and the parsing of a ``-l`` request list into typed requests
(:func:`parse_request_list`). The rules a list must follow are
``common.resource.complex_rules``. Messages are Grid Engine's.
"""
from __future__ import annotations

import functools

from dataclasses import dataclass
from enum import Enum
from typing import Any, Iterable, Mapping, Sequence

from common.resource.values import (
    BadValueError, Relop, ValueType, normalize_request_text, parse_value,
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


SLOTS_REQUESTED = '"job" denied: use parallel environments instead of requesting slots ' \
    "explicitly"


def requests_as_stored(requests: Mapping[str, str | None], attrs: Iterable[ComplexAttr], *,
                       soft: bool = False) -> dict[str, str]:
    """A job's ``-l`` list as Grid Engine 8.1.9 keeps it: full attribute names (a shortcut
    and its name are one request, the later wins and goes last), time values in seconds,
    every other value as typed, no value meaning TRUE. Refusals in 8.1.9's words (captured
    in tests/data/reference/submit): ``slots``, an empty value (but for a BOOL), a soft
    request of a consumable, and whatever :func:`make_request` refuses."""
    attrs = list(attrs)
    stored: dict[str, str] = {}
    for name, text in requests.items():
        attr = resolve_name(attrs, name)
        if attr is None:
            raise ComplexError(f'unknown resource "{name}"')
        if attr.name == "slots":
            raise ComplexError(SLOTS_REQUESTED)
        if attr.requestable is Requestable.NO:  # named as the user typed it
            raise ComplexError(f'resource "{name}" configured as non requestable')
        if text == "" and attr.type is not ValueType.BOOL:
            raise ComplexError(f'denied: missing value for resource "{attr.name}"')
        if soft and attr.is_consumable:
            raise ComplexError(f'denied: soft requests on consumables like "{attr.name}" '
                               "are not supported")
        request = make_request(attr, text or None)
        stored.pop(attr.name, None)
        stored[attr.name] = request.text
    return stored


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
