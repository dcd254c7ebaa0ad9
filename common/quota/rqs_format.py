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

Errors raise RqsFormatError with Grid Engine's wording where it is known.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

FILTERS = ("users", "projects", "pes", "queues", "hosts")
RULE_KEYWORDS = ("name",) + FILTERS + ("to",)
NAME = re.compile(r"[a-zA-Z][a-zA-Z0-9_-]*")
TRUE_WORDS = ("true", "1")
FALSE_WORDS = ("false", "0")


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
    description: str = "NONE"
    rules: tuple[Rule, ...] = ()


# ---- parsing ---------------------------------------------------------------------------
def join_continuations(text: str) -> str:
    """sge_resource_quota(5): a backslash and the newline after it become one blank."""
    return re.sub(r"\\\r?\n", " ", text)


def parse_rule_sets(text: str) -> list[RuleSet]:
    """Every rule set of ``text`` (an empty text has none)."""
    sets: list[RuleSet] = []
    current: list[tuple[str, str]] | None = None
    for raw in join_continuations(text).splitlines():
        line = raw.strip()
        if not line:
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
            key, _, value = line.partition(" ")
            current.append((key.strip(), value.strip()))
    if current is not None:
        raise RqsFormatError('rule set without its closing "}"')
    return sets


def rule_set_from_lines(lines: list[tuple[str, str]]) -> RuleSet:
    """A rule set from its ``key value`` lines (inside the braces)."""
    name: str | None = None
    enabled, description, rules = False, "NONE", []
    for key, value in lines:
        if key == "name":
            name = value
        elif key == "enabled":
            enabled = parse_bool(value)
        elif key == "description":
            description = unquote(value) or "NONE"
        elif key == "limit":
            rules.append(parse_rule(value))
        else:
            raise RqsFormatError(f'unknown attribute "{key}" in resource quota set')
    if name is None:
        raise RqsFormatError("resource quota set has no name")
    check_name(name)
    if not rules:
        raise RqsFormatError(f'resource quota set "{name}" has no rule')
    names = [r.name for r in rules if r.name]
    for dup in sorted({n for n in names if names.count(n) > 1}):
        raise RqsFormatError(f'rule name "{dup}" is used twice in resource quota set "{name}"')
    return RuleSet(name=name, enabled=enabled, description=description, rules=tuple(rules))


def check_name(name: str) -> None:
    if not NAME.fullmatch(name):
        raise RqsFormatError(f'resource quota set name "{name}" is not valid')


def parse_bool(value: str) -> bool:
    word = value.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise RqsFormatError(f'"{value}" is not a boolean value')


def unquote(value: str) -> str:
    text = value.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1]
    return text


def parse_rule(text: str) -> Rule:
    """A rule from the text after ``limit``."""
    fields: dict[str, str] = {}
    key: str | None = None
    for word in text.split():
        if word in RULE_KEYWORDS and (key is None or fields.get(key)):
            if word in fields:
                raise RqsFormatError(f'"{word}" is given twice in rule "{text}"')
            key, fields[word] = word, ""
        elif key is None:
            raise RqsFormatError(f'rule "{text}" does not begin with a keyword')
        else:
            fields[key] = f"{fields[key]} {word}".strip()
    if "to" not in fields or not fields["to"]:
        raise RqsFormatError(f'rule "{text}" has no "to" limit')
    empty = [k for k, v in fields.items() if not v]
    if empty:
        raise RqsFormatError(f'"{empty[0]}" without a value in rule "{text}"')
    name = fields.get("name")
    if name is not None and not NAME.fullmatch(name):
        raise RqsFormatError(f'rule name "{name}" is not valid')
    filters = {k: parse_filter(fields[k]) for k in FILTERS if k in fields}
    return Rule(name=name, filters=filters, limits=parse_limits(fields["to"]))


def parse_filter(text: str) -> Filter:
    value = text.strip()
    expand = value.startswith("{")
    if expand:
        if not value.endswith("}"):
            raise RqsFormatError(f'filter "{text}" lacks its closing "}}"')
        value = value[1:-1]
    scope, xscope = [], []
    for item in (v.strip() for v in value.split(",")):
        if not item:
            raise RqsFormatError(f'empty name in filter "{text}"')
        if item.startswith("!"):
            xscope.append(item[1:].strip())
        else:
            scope.append(item)
    return Filter(scope=tuple(scope), xscope=tuple(xscope), expand=expand)


def parse_limits(text: str) -> tuple[Limit, ...]:
    limits: list[Limit] = []
    for item in (v.strip() for v in text.replace(" ", "").split(",")):
        name, sep, value = item.partition("=")
        if not sep or not name or not value:
            raise RqsFormatError(f'"{item}" is not a limit of the form complex=value')
        if any(lim.name == name for lim in limits):
            raise RqsFormatError(f'"{name}" is limited twice in "{text}"')
        limits.append(Limit(name=name, value=value))
    return tuple(limits)


# ---- printing --------------------------------------------------------------------------
def format_rule_set(rule_set: RuleSet) -> str:
    """``qconf -srqs`` of one set."""
    description = rule_set.description
    shown = f'"{description}"' if description != "NONE" else "NONE"
    lines = ["{", f"   {'name':<12} {rule_set.name}", f"   {'description':<12} {shown}",
             f"   {'enabled':<12} {'TRUE' if rule_set.enabled else 'FALSE'}"]
    lines += [f"   {'limit':<12} {rule.text()}" for rule in rule_set.rules]
    return "\n".join(lines + ["}"]) + "\n"


def format_rule_sets(rule_sets: list[RuleSet]) -> str:
    return "".join(format_rule_set(rs) for rs in rule_sets)
