"""``qconf`` options for resource quota sets: ``-srqsl``, ``-srqs``, ``-Arqs``, ``-arqs``,
``-Mrqs``, ``-mrqs``, ``-drqs`` and ``-aattr/-mattr/-dattr/-rattr resource_quota``, with
8.1.9's messages and streams
(tests/data/reference/rqs/README.md, section 3): a file is read and checked here
(common.quota.rqs_format), and again by the qmaster, which also checks the limits against
the complex list and words the confirmations.

Deliberate differences: ``-Mrqs file`` and ``-mrqs`` without a set name (8.1.9 replaces
the whole list) are refused, since that would take several requests of which some could
fail; every set of a file is answered, not only the first.
"""
from __future__ import annotations

from dataclasses import replace

from clients.api import ClientError
from clients.qconf.attr import ADD, DELETE, MODIFY
from clients.qconf.base import QconfError, Session, edit_text, err, out
from clients.qconf.hosts import canonical_name
from common.quota.rqs_format import (Limit, RqsFormatError, Rule, RuleSet, format_rule_sets,
                                     parse_bool, parse_limits, parse_rule_sets,
                                     rule_set_from_pairs, rule_set_pairs, with_host_names)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

KIND = "rqs"
NO_SETS = "No resource quota set found"
NO_LIST = "no resource quota set list defined"
# what -arqs gives the editor (8.1.9's template; "template" is replaced by a name given)
TEMPLATE = RuleSet(name="template", rules=(Rule(name=None, limits=(Limit("slots", "0"),)),))
REPLACE_ALL = ("error: replacing every resource quota set at once is not supported; name "
               "the sets to modify")


def stored_rule_sets(s: Session) -> dict[str, RuleSet]:
    return {name: rule_set_from_pairs(pairs) for name, pairs in s.objects(KIND).items()}


def _parse(text: str) -> list[RuleSet]:
    try:
        sets = parse_rule_sets(text)
    except RqsFormatError as exc:
        raise QconfError(str(exc)) from None
    if not sets:
        raise QconfError("error: no resource quota set in the input")
    return sets


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError as exc:
        raise QconfError(f'error opening file "{path}" for reading: {exc.strerror}') from None


def _send(s: Session, rule_set: RuleSet, mode: str) -> int:
    """One set to the qmaster; 8.1.9 prints an addition on stdout, a change on stderr."""
    rule_set = with_host_names(rule_set, canonical_name)  # as 8.1.9 stores host names
    try:
        reply = s.client.conf_put(KIND, rule_set.name, rule_set_pairs(rule_set), mode)
    except ClientError as exc:
        err(exc.message)
        return 1
    (out if mode == "add" else err)(reply["message"])
    return 0


def show_list(s: Session) -> int:
    names = sorted(s.objects(KIND), key=lambda n: n.encode())
    if not names:
        raise QconfError(NO_LIST)
    out("\n".join(names))
    return 0


def show(s: Session, names: str | None = None) -> int:
    stored = stored_rule_sets(s)
    wanted = set(names.split(",")) if names else None
    chosen = [rs for name, rs in stored.items() if wanted is None or name in wanted]
    if not chosen:
        raise QconfError(NO_SETS)
    out(format_rule_sets(chosen).rstrip("\n"))
    return 0


def add_from_file(s: Session, path: str) -> int:
    return max(_send(s, rs, "add") for rs in _parse(_read(path)))


def add_in_editor(s: Session, name: str | None = None) -> int:
    text = format_rule_sets([TEMPLATE if name is None else replace(TEMPLATE, name=name)])
    edited = edit_text(text)
    if edited == text:
        raise QconfError("file unchanged")
    return max(_send(s, rs, "add") for rs in _parse(edited))


def modify_from_file(s: Session, path: str, names: str | None = None) -> int:
    if not names:
        raise QconfError(REPLACE_ALL)
    sets = {rs.name: rs for rs in _parse(_read(path))}
    rc = 0
    for name in names.split(","):
        if name not in sets:
            err(f'resource quota set "{name}" not found in file "{path}"')
            rc = 1
            continue
        rc = max(rc, _send(s, sets[name], "modify"))
    return rc


def modify_in_editor(s: Session, names: str | None = None) -> int:
    if not names:
        raise QconfError(REPLACE_ALL)
    stored = stored_rule_sets(s)
    chosen = [stored[n] for n in names.split(",") if n in stored]
    text = format_rule_sets(chosen) if chosen else "\n"
    edited = edit_text(text)
    if edited == text:
        raise QconfError("file unchanged")
    return max(_send(s, rs, "modify") for rs in _parse(edited))


def delete(s: Session, names: str) -> int:
    rc = 0
    for name in names.split(","):
        try:
            reply = s.client.conf_del(KIND, name)
        except ClientError as exc:
            err(exc.message)
            rc = 1
            continue
        err(reply["message"])
    return rc


RQS_OPTIONS: dict[str, tuple[int, Callable[..., int]]] = {
    "-srqsl": (0, show_list), "-srqs": (-1, show),
    "-Arqs": (1, add_from_file), "-arqs": (-1, add_in_editor),
    "-Mrqs": (-2, modify_from_file), "-mrqs": (-1, modify_in_editor),
    "-drqs": (1, delete),
}


# ---- -aattr/-mattr/-dattr/-rattr resource_quota ----------------------------------------
OBJECT = "resource_quota"
RULES_ATTR = "resource_quota_rules"  # how 8.1.9 names the limits in its notes
NO_RULE = "no resource quota rule specified for modification"
CANNOT_RENAME = "qconf: cannot change name"
INVALID_ATTR = 'The attribute name ("{}") and/or value ("{}") is invalid'


def find_rule(rule_set: RuleSet, ref: str | None) -> int:
    """The index of rule ``ref`` (its name, or its 1-based position), or -1."""
    if ref is None:
        return -1
    for index, rule in enumerate(rule_set.rules):
        if rule.name == ref:
            return index
    if ref.isdigit() and 1 <= int(ref) <= len(rule_set.rules):
        return int(ref) - 1
    return -1


def change_rule_set(rule_set: RuleSet, option: str, attr: str, value: str,
                    rule_ref: str | None) -> tuple[RuleSet, list[str]]:
    """The set after ``-aattr/-mattr/-dattr/-rattr resource_quota attr value
    set[/rule]`` and 8.1.9's notes on the way (raises QconfError for a refusal). The
    limit list follows the qmaster's sublist update: an element added that is there
    already changes nothing, a changed one moves to the end, a missing one is noted."""
    if attr == "name":
        raise QconfError(CANNOT_RENAME)
    if attr in ("enabled", "description"):
        if option not in (MODIFY, "-rattr"):
            return rule_set, []  # 8.1.9 answers "modified" and changes nothing
        try:
            changed = replace(rule_set, enabled=parse_bool(value)) if attr == "enabled" \
                else replace(rule_set, description=" ".join(value.split()) or "NONE")
        except RqsFormatError as exc:
            raise QconfError(str(exc)) from None
        return changed, []
    if attr != "limit":
        raise QconfError(INVALID_ATTR.format(attr, value))
    index = find_rule(rule_set, rule_ref)
    if index < 0:
        raise QconfError(NO_RULE)
    try:
        given = parse_limits(value)
    except RqsFormatError as exc:
        raise QconfError(str(exc)) from None
    rule = rule_set.rules[index]
    limits, notes = list(rule.limits), []
    if option == ADD:
        for limit in given:
            if any(old.name == limit.name for old in limits):
                return rule_set, [f'No modification because "{limit.name}" already exists '
                                  f'in "{RULES_ATTR}" of "{OBJECT}"']
            limits.append(limit)
    elif option == MODIFY:
        for limit in given:
            kept = [old for old in limits if old.name != limit.name]
            if len(kept) == len(limits):
                notes.append(f'Unable to find "{limit.name}" in "{RULES_ATTR}" of "{OBJECT}" '
                             "- Adding new element.")
            limits = kept + [limit]
    elif option == DELETE:
        for limit in given:
            kept = [old for old in limits if old.name != limit.name]
            if len(kept) == len(limits):
                notes.append(f'"{limit.name}" does not exist in "{RULES_ATTR}" of "{OBJECT}"')
            limits = kept
    else:
        limits = list(given)
    rules = list(rule_set.rules)
    rules[index] = replace(rule, limits=tuple(limits))
    return replace(rule_set, rules=tuple(rules)), notes


def change_attribute(s: Session, option: str, changes: list[tuple[str, str]], ids: str
                     ) -> int:
    """``-aattr/-mattr/-dattr/-rattr resource_quota`` (one change) and their file forms
    (a file's changes): each set changed here and sent whole, all its changes or none;
    notes and the confirmation on stdout, refusals on stderr (8.1.9)."""
    stored = stored_rule_sets(s)
    rc = 0
    for obj_id in ids.split(","):
        name, _, rule_ref = obj_id.partition("/")
        if name not in stored:
            err(f'denied: resource quota set "{name}" does not exist')
            rc = 1
            continue
        try:
            changed, notes = stored[name], []
            for attr, value in changes:
                changed, more = change_rule_set(changed, option, attr, value, rule_ref or None)
                notes += more
        except QconfError as exc:
            err(exc.message)
            rc = 1
            continue
        try:
            reply = s.client.conf_put(KIND, name, rule_set_pairs(changed), "modify")
        except ClientError as exc:
            err(exc.message)
            rc = 1
            continue
        for line in [*notes, reply["message"]]:
            out(line)
        stored[name] = changed
    return rc
