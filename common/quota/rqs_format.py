"""The resource quota set file format of sge_resource_quota(5): parser and printer (pure).

A file holds rule sets, each in braces::

    {
       name         max_u_slots
       description  "All users max use of 100 slots"
       enabled      TRUE
       limit        users {*} hosts {@lx_hosts} to slots=100,h_vmem=2G
    }

A backslash at the end of a line joins it to the next with a blank. Each ``limit`` is a
rule: an optional ``name``, the filters ``users``, ``projects``, ``pes``, ``queues``,
``hosts`` in any order (a comma list; ``!`` excludes; braces expand the list, one rule per
member), and ``to`` with comma-separated ``complex=value`` limits (a value may be a
dynamic ``$complex*w+...`` expression). The printer writes the filters in that fixed
order, as Grid Engine keeps them.

Where the documents leave a detail open, 8.1.9 decides (captured in
tests/data/reference/rqs/, README.md there): filter lists print their names first and
their exclusions after, without duplicates or empty items, ``{}`` is no filter; the
description is kept as written (quotes included, blanks collapsed); booleans are
``true false 1 0 t f yes no y n``; lines over 80 characters are broken as Grid Engine's
flat-file spooling breaks them; ``#`` lines are comments. Where the documents are
explicit we follow them and differ from 8.1.9 (docs/compatibility.md): a blank after a
comma in a list is allowed (2006 spec), names follow NAME, rule names are unique in a set
and ``to`` is mandatory (sge_resource_quota(5)).

Errors raise RqsFormatError with Grid Engine's wording.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from common.conf_values import parse_bool as conf_parse_bool
from common.conffile import ConfError

FILTERS = ("users", "projects", "pes", "queues", "hosts")
RULE_KEYWORDS = ("name",) + FILTERS + ("to",)
NAME = re.compile(r"[a-zA-Z][a-zA-Z0-9_-]*")
RESERVED_NAMES = ("TEMPLATE", "ALL", "NONE", "DEFAULT")
LINE_WIDTH = 80   # Grid Engine's MAX_LINE_LENGTH of spooled flat files
INDENT = "   "


class RqsFormatError(Exception):
    """A rule set text that is not a valid resource quota set."""


@dataclass(frozen=True)
class Filter:
    """One filter of a rule: the names it takes (``scope``) and those it excludes
    (``xscope``, written with ``!``); ``expand``: written in braces, one rule per member."""

    scope: tuple[str, ...] = ()
    xscope: tuple[str, ...] = ()
    expand: bool = False

    def text(self) -> str:
        items = ",".join([*self.scope, *(f"!{x}" for x in self.xscope)])
        return f"{{{items}}}" if self.expand else items

    @property
    def empty(self) -> bool:
        return not self.scope and not self.xscope


@dataclass(frozen=True)
class Limit:
    """``complex=value``: a static value, or a dynamic expression (``$num_proc*2``)."""

    name: str
    value: str

    @property
    def dynamic(self) -> bool:
        return "$" in self.value


@dataclass(frozen=True)
class Rule:
    name: str | None
    filters: dict[str, Filter] = field(default_factory=dict)  # only the ones given
    limits: tuple[Limit, ...] = ()

    def text(self) -> str:
        """The rule as ``limit`` prints it (without the keyword)."""
        words = [f"name {self.name}"] if self.name else []
        words += [f"{key} {self.filters[key].text()}" for key in FILTERS if key in self.filters]
        words.append("to " + ",".join(f"{lim.name}={lim.value}" for lim in self.limits))
        return " ".join(words)


@dataclass(frozen=True)
class RuleSet:
    name: str
    enabled: bool = False
    description: str = "NONE"  # as written, quotes included ("NONE": none)
    rules: tuple[Rule, ...] = ()


# ---- parsing ---------------------------------------------------------------------------
def join_continuations(text: str) -> str:
    """sge_resource_quota(5): a backslash and the newline after it become one blank."""
    return re.sub(r"\\\r?\n", " ", text)


def parse_rule_sets(text: str) -> list[RuleSet]:
    """Every rule set of ``text`` (an empty text has none)."""
    sets: list[RuleSet] = []
    current: list[tuple[str, str]] | None = None
    lines = join_continuations(text).split("\n")
    for number, raw in enumerate(lines, start=1):
        line = raw.strip(" \t")
        if not line or line.startswith("#"):
            continue
        if current is None:
            if line != "{":
                raise RqsFormatError(f'unexpected "{line}" outside of a rule set; a rule set '
                                     'begins with "{"')
            current = []
        elif line == "}":
            sets.append(rule_set_from_lines(current))
            current = None
        else:
            key, _, value = line.replace("\t", " ").partition(" ")
            if not value.strip():  # (8.1.9 counts from the line after)
                raise RqsFormatError('" " is the only character allowed between the '
                                     f"attribute name and the value in line {number + 1}")
            current.append((key, " ".join(value.split())))
    if current is not None:
        raise RqsFormatError("each value in the attribute value list in line "
                             f'{len(lines) if text.endswith(chr(10)) else len(lines) + 1} '
                             'should end with "}"')
    return sets


def rule_set_from_lines(lines: list[tuple[str, str]]) -> RuleSet:
    """A rule set from its ``key value`` lines (inside the braces)."""
    name: str | None = None
    enabled, description, rules = False, "NONE", []
    seen: set[str] = set()
    for key, value in lines:
        if key in seen and key != "limit":
            raise RqsFormatError(f'attribute "{key}" appears more than once')
        seen.add(key)
        if key == "name":
            name = value
        elif key == "enabled":
            enabled = parse_bool(value)
        elif key == "description":
            description = value or "NONE"
        elif key == "limit":
            rules.append(parse_rule(value))
        else:
            raise RqsFormatError(f'unknown attribute name "{key}"')
    if name is None:
        raise RqsFormatError("resource quota set has no name")
    check_name(name)
    if not rules:
        raise RqsFormatError("resource quota set has no rules")
    names = [r.name for r in rules if r.name]
    for dup in sorted({n for n in names if names.count(n) > 1}):
        raise RqsFormatError(f'rule name "{dup}" is used twice in resource quota set "{name}"')
    return RuleSet(name=name, enabled=enabled, description=description, rules=tuple(rules))


def check_name(name: str) -> None:
    """A rule set name: Grid Engine's object name rules, then NAME of the formal syntax."""
    if name.upper() in RESERVED_NAMES:
        raise RqsFormatError(f'Keyword ("{name.upper()}") not allowed as objectname')
    if "@" in name:
        raise RqsFormatError("At ('@') not allowed in objectname")
    if not NAME.fullmatch(name):
        raise RqsFormatError(f'resource quota set name "{name}" is not valid')


def parse_bool(value: str) -> bool:
    """Grid Engine's booleans (common.conf_values), refused in its words."""
    try:
        return conf_parse_bool(value)
    except ConfError as err:
        raise RqsFormatError(err.message) from None


def parse_rule(text: str) -> Rule:
    """A rule from the text after ``limit``."""
    fields: dict[str, str] = {}
    key: str | None = None
    for word in text.split():
        continues = key is not None and (fields[key].endswith(",") or word.startswith(",")
                                         or _open_brace(fields[key]))
        if word in RULE_KEYWORDS and not continues:
            if word in fields:
                raise RqsFormatError(f'attribute "{word}" appears more than once')
            key, fields[word] = word, ""
        elif key is None or (fields[key] and not continues):
            raise RqsFormatError(f'unknown attribute name "{word.partition("=")[0]}"')
        else:
            fields[key] = f"{fields[key]} {word}".strip()
    if any(_open_brace(value) for value in fields.values()):
        raise RqsFormatError("error: no valid expanded list\nno valid expanded list")
    if "to" not in fields or not fields["to"]:
        raise RqsFormatError(f'rule "{text}" has no "to" limit')
    empty = [k for k, v in fields.items() if not v]
    if empty:
        raise RqsFormatError(f'"{empty[0]}" without a value in rule "{text}"')
    name = fields.get("name")
    if name is not None and not NAME.fullmatch(name):
        raise RqsFormatError(f'rule name "{name}" is not valid')
    filters = {k: parse_filter(fields[k], k) for k in FILTERS if k in fields}
    return Rule(name=name, filters={k: f for k, f in filters.items() if not f.empty},
                limits=parse_limits(fields["to"]))


def _open_brace(value: str) -> bool:
    return value.count("{") > value.count("}")


def parse_filter(text: str, kind: str = "users") -> Filter:
    """A filter value: names first and exclusions after, as Grid Engine keeps them,
    without duplicates or empty items; ``{}`` is no filter at all."""
    value = text.strip()
    if value.startswith("!{"):
        raise RqsFormatError(f"resource quota set contains invalid {kind[:-1]} filter")
    expand = value.startswith("{")
    if expand:
        if not value.endswith("}") or value.count("{") != 1 or value.count("}") != 1:
            raise RqsFormatError("error: no valid expanded list\nno valid expanded list")
        value = value[1:-1]
    else:
        value = value.replace("}", "")  # 8.1.9 drops a stray closing brace
    scope: list[str] = []
    xscope: list[str] = []
    for item in (v.strip() for v in value.split(",")):
        if not item:
            continue
        names = xscope if item.startswith("!") else scope
        name = item[1:].strip() if item.startswith("!") else item
        if name and name not in names:
            names.append(name)
    return Filter(scope=tuple(scope), xscope=tuple(xscope), expand=expand)


def parse_limits(text: str) -> tuple[Limit, ...]:
    limits: list[Limit] = []
    for item in (v.strip() for v in text.replace(" ", "").split(",")):
        name, sep, value = item.partition("=")
        if not sep or not name or not value:  # 8.1.9 drops such a rule, then has none
            raise RqsFormatError("resource quota set has no rules")
        limits.append(Limit(name=name, value=value))
    return tuple(limits)


# ---- printing --------------------------------------------------------------------------
def format_rule_set(rule_set: RuleSet) -> str:
    """``qconf -srqs`` of one set."""
    pairs = [("name", rule_set.name), ("description", rule_set.description),
             ("enabled", "TRUE" if rule_set.enabled else "FALSE")]
    pairs += [("limit", rule.text()) for rule in rule_set.rules]
    lines = [piece for key, value in pairs
             for piece in wrap_line(f"{INDENT}{key:<13}{value}")]
    return "\n".join(["{", *lines, "}"]) + "\n"


def wrap_line(line: str, width: int = LINE_WIDTH) -> list[str]:
    """A line broken as Grid Engine breaks spooled lines longer than ``width``: at the
    last blank (which becomes `` \\``) or after the last comma (followed by `` \\``)
    that keeps the piece and `` \\`` within ``width``, else at the first one after a word
    too long; continuation lines are indented by three blanks."""
    out = []
    rest = line
    while len(rest) > width:
        breaks = [(i, i, i + 1) if ch == " " else (i, i + 1, i + 1)
                  for i, ch in enumerate(rest) if ch in " ," and i >= len(INDENT)]
        breaks = [b for b in breaks if b[1] > len(INDENT)]
        if not breaks:
            break
        fitting = [b for b in breaks if b[1] <= width - 2]
        _, end, resume = fitting[-1] if fitting else breaks[0]
        out.append(rest[:end] + " \\")
        rest = INDENT + rest[resume:]
    out.append(rest)
    return out


def rule_set_pairs(rule_set: RuleSet) -> list[list[str]]:
    """The set as stored: ``[key, value]`` pairs in the printed order, one ``limit`` per
    rule (the qmaster's spool and events carry configuration objects so)."""
    pairs = [["name", rule_set.name], ["description", rule_set.description],
             ["enabled", "TRUE" if rule_set.enabled else "FALSE"]]
    return pairs + [["limit", rule.text()] for rule in rule_set.rules]


def rule_set_from_pairs(pairs: list[list[str]]) -> RuleSet:
    """A stored or sent set back (raises RqsFormatError as a file would)."""
    return rule_set_from_lines([(str(k), " ".join(str(v).split())) for k, v in pairs])


def format_rule_sets(rule_sets: list[RuleSet]) -> str:
    return "".join(format_rule_set(rs) for rs in rule_sets)


def with_host_names(rule_set: RuleSet, resolve: Callable[[str], str | None]) -> RuleSet:
    """The set with each host name of its ``hosts`` filters as ``resolve`` names it (a
    name it cannot resolve kept as given), as 8.1.9 stores them: ``hosts VM,localhost``
    becomes ``hosts vm,localhost``. Host groups and wildcard patterns stay."""
    def named(entry: str) -> str:
        if entry.startswith("@") or any(c in entry for c in "*?["):
            return entry
        return resolve(entry) or entry

    def rule_of(rule: Rule) -> Rule:
        flt = rule.filters.get("hosts")
        if flt is None:
            return rule
        hosts = Filter(tuple(dict.fromkeys(named(e) for e in flt.scope)),
                       tuple(dict.fromkeys(named(e) for e in flt.xscope)), flt.expand)
        return Rule(rule.name, {**rule.filters, "hosts": hosts}, rule.limits)
    return RuleSet(rule_set.name, rule_set.enabled, rule_set.description,
                   tuple(rule_of(rule) for rule in rule_set.rules))
