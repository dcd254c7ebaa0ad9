"""``qconf -aattr/-mattr/-dattr/-rattr/-purge``: change one attribute of one object.

Pure functions: they take an object's current pairs and return the changed pairs plus the
informational lines Grid Engine 8.1.9 prints on the way; the qconf client sends the
whole object with ``conf_put`` (as for ``-Mq``), so the qmaster validates it again and
words the confirmation. The list semantics follow the 8.1.9 qmaster's sublist update:

* ``-aattr`` appends elements; an element already there stops the whole change with
  ``No modification because "x" already exists in "attr" of "obj"``.
* ``-mattr`` replaces elements by name; a replaced element moves to the end of the list
  and a missing one is added with an ``Unable to find ...`` note. ``NONE`` is refused.
* ``-dattr`` removes elements; a missing one is noted (``"x" does not exist in ...``).
* ``-rattr`` replaces the whole list.
* Non-list attributes are set by every option, as the qmaster does. Queue attributes
  are per host (``1,[vm=4]``): ``obj@host`` or ``[host=value]`` picks the host entry;
  ``-dattr`` changes existing host entries only, ``-rattr`` drops the others and
  ``-purge queue attr q@host`` removes one.
"""
from __future__ import annotations

from common.record import Record, field
from common.conf_values import is_none, split_assignments, split_names
from common.conffile import ConfError
from common.objects_conf.queue import NO_OVERRIDES, format_host_overrides, parse_host_overrides

Pairs = list[list[str]]

ADD, MODIFY, DELETE, REPLACE, PURGE = "-aattr", "-mattr", "-dattr", "-rattr", "-purge"
# qconf's object names -> the qmaster's store kinds
STORE_KINDS = {"queue": "queue", "exechost": "exechost", "hostgroup": "hgrp", "pe": "pe",
               "ckpt": "ckpt"}
KEYS = {"queue": "qname", "exechost": "hostname", "hostgroup": "group_name", "pe": "pe_name",
        "ckpt": "ckpt_name"}
MISSING = {"queue": "cluster queue", "exechost": "execution host", "hostgroup": "host group",
           "pe": "parallel environment", "ckpt": "checkpoint interface"}
# lists of name=value elements, keyed by the name
ASSIGNMENT_LISTS = frozenset({"complex_values", "load_scaling", "usage_scaling",
                              "load_thresholds", "suspend_thresholds"})
NAME_LISTS = frozenset({"user_lists", "xuser_lists", "projects", "xprojects", "pe_list",
                        "ckpt_list", "owner_list", "hostlist", "report_variables"})
DEFAULT = ""  # the host-entry key of a queue attribute's default value

NOT_SUPPORTED = 'Modification of object "{}" not supported'
NOT_FOUND = 'Attribute name ("{}") and/or value ("{}") not found'
# (checkpointing environments: 8.1.9 adds the line of its temporary file, not shown here)
INVALID = 'The attribute name ("{}") and/or value ("{}") is invalid'
CANT_MODIFY_NONE = ('"NONE" is not a valid list attribute value for -mattr.  '
                    "Try using -rattr instead.")
INCOMPLETE = 'Given object_instance "{}" is incomplete'
ALREADY_THERE = 'No modification because "{}" already exists in "{}" of "{}"'
NOT_THERE = '"{}" does not exist in "{}" of "{}"'
ADDING_ONE = 'Unable to find "{}" in "{}" of "{}" - Adding new element.'
ADDING_ALL = '"{}" of "{}" is empty - Adding new element(s).'


class AttrError(Exception):
    """A refusal, with Grid Engine's text."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Request(Record, frozen=True):
    """One option as given: ``option attr value`` (``value`` is empty for -purge)."""

    option: str
    attr: str
    value: str = ""


class Outcome(Record):
    """The changed value and Grid Engine's notes; ``applied`` False: send nothing."""

    value: str
    notes: list[str] = field(default_factory=list)
    applied: bool = True


class Result(Record):
    pairs: Pairs
    notes: list[str]
    applied: bool


def store_kind(obj_nm: str) -> str:
    """The qmaster's kind for qconf's object name, or the refusal."""
    if obj_nm not in STORE_KINDS:
        raise AttrError(NOT_SUPPORTED.format(obj_nm))
    return STORE_KINDS[obj_nm]


def split_object_id(obj_nm: str, obj_id: str) -> tuple[str, str | None]:
    """``all.q@vm`` as (``all.q``, ``vm``); only queues have instances."""
    if obj_nm != "queue" or "@" not in obj_id:
        return obj_id, None
    name, _, host = obj_id.partition("@")
    return name, host


def missing_object(obj_nm: str, name: str) -> str:
    return f'denied: {MISSING[obj_nm]} "{name}" does not exist'


# --- the whole object -------------------------------------------------------------

def change_object(obj_nm: str, pairs: Pairs, req: Request, obj_id: str) -> Result:
    """``pairs`` of the object ``obj_id`` (``q@host`` for a queue instance) after ``req``."""
    if req.option == PURGE and obj_nm != "queue":
        raise AttrError(NOT_SUPPORTED.format(obj_nm))
    name, host = split_object_id(obj_nm, obj_id)
    current = dict((k, v) for k, v in pairs)
    if req.attr not in current or req.attr == KEYS[obj_nm]:
        raise AttrError((INVALID if obj_nm == "ckpt" else NOT_FOUND).format(req.attr,
                                                                             req.value))
    if req.option == MODIFY and req.attr in _LISTS and is_none(req.value):
        raise AttrError(CANT_MODIFY_NONE)
    if req.option == PURGE:
        outcome = purge(current[req.attr], req.attr, obj_id, host)
    elif obj_nm == "queue" and req.attr not in NO_OVERRIDES:
        outcome = change_queue_value(current[req.attr], req, name, host)
    elif obj_nm == "ckpt" and req.option == DELETE:
        # 8.1.9 confirms -dattr of a checkpointing environment's value and keeps it
        outcome = Outcome(current[req.attr])
    else:
        # 8.1.9 names the object kind, not the host, when an exec host list was empty
        outcome = change_value(current[req.attr], req, name,
                               empty_of="exechost" if obj_nm == "exechost" else None)
    new = [[k, outcome.value if k == req.attr else v] for k, v in pairs]
    return Result(new, outcome.notes, outcome.applied)


# --- one value --------------------------------------------------------------------

_LISTS = ASSIGNMENT_LISTS | NAME_LISTS


def change_value(current: str, req: Request, obj: str, *, empty_of: str | None = None
                 ) -> Outcome:
    """One attribute value (no host entries) after ``req``; ``empty_of`` names the
    object in the note for a list that was empty (default ``obj``)."""
    if req.attr not in _LISTS or req.option == REPLACE:
        return Outcome(req.value)
    old, new = elements(req.attr, current), elements(req.attr, req.value)
    if req.option == ADD:
        return _append(req.attr, old, new, obj, current)
    if req.option == MODIFY:
        return _modify(req.attr, old, new, obj, empty_of or obj)
    return _remove(req.attr, old, new, obj)


def elements(attr: str, text: str) -> list[tuple[str, str]]:
    """A list value as (key, element text); NONE is the empty list."""
    if attr in ASSIGNMENT_LISTS:
        return [(name, f"{name}={value}" if value else name)
                for name, value in split_assignments(text) if not is_none(name)]
    return [(name, name) for name in split_names(text)]


def join(attr: str, items: list[tuple[str, str]]) -> str:
    """The reverse of ``elements``: Grid Engine writes assignments with commas."""
    sep = "," if attr in ASSIGNMENT_LISTS else " "
    return sep.join(text for _, text in items) or "NONE"


def _same(attr: str, a: str, b: str) -> bool:
    # host names compare without case, as sge_hostcmp does
    return a.lower() == b.lower() if attr == "hostlist" else a == b


def _find(attr: str, items: list[tuple[str, str]], key: str) -> int:
    return next((i for i, (k, _) in enumerate(items) if _same(attr, k, key)), -1)


def _append(attr: str, old: list[tuple[str, str]], new: list[tuple[str, str]], obj: str,
            current: str) -> Outcome:
    out = list(old)
    for key, text in new:
        if _find(attr, out, key) >= 0:
            return Outcome(current, [ALREADY_THERE.format(key, attr, obj)], applied=False)
        out.append((key, text))
    return Outcome(join(attr, out))


def _modify(attr: str, old: list[tuple[str, str]], new: list[tuple[str, str]], obj: str,
            empty_of: str) -> Outcome:
    if not old:
        return Outcome(join(attr, new), [ADDING_ALL.format(attr, empty_of)])
    out, notes = list(old), []
    for key, text in new:
        at = _find(attr, out, key)
        if at < 0:
            notes.append(ADDING_ONE.format(key, attr, obj))
        else:
            del out[at]  # the qmaster re-appends a changed element at the end
        out.append((key, text))
    return Outcome(join(attr, out), notes)


def _remove(attr: str, old: list[tuple[str, str]], new: list[tuple[str, str]], obj: str
            ) -> Outcome:
    out, notes = list(old), []
    for key, _ in new:
        at = _find(attr, out, key)
        if at < 0:
            notes.append(NOT_THERE.format(key, attr, obj))
        else:
            del out[at]
    return Outcome(join(attr, out), notes)


# --- queue values with host entries --------------------------------------------------

def host_targets(value: str, host: str | None, attr: str) -> dict[str, str]:
    """Which host entries ``value`` sets: ``q@host`` names one; ``[h=v],..`` several;
    ``d,[h=v]`` the default and some; a plain value the default."""
    if host is not None:
        return {host: value}
    try:
        if value.lstrip().startswith("["):
            # only host entries: parse them behind a stand-in default
            return parse_host_overrides("_," + value, attr)[1]
        default, overrides = parse_host_overrides(value, attr)
    except ConfError as err:
        raise AttrError(err.message) from None
    return {DEFAULT: default, **overrides}


def change_queue_value(current: str, req: Request, queue: str, host: str | None) -> Outcome:
    """A queue attribute ``1,[vm=4]`` after ``req`` on the given host entries."""
    default, overrides = _parse_current(current, req.attr)
    entries = {DEFAULT: default, **overrides}
    targets = host_targets(req.value, host, req.attr)
    if req.option == REPLACE:
        entries = {k: v for k, v in entries.items()
                   if k == DEFAULT or _key_in(k, targets)}
    notes: list[str] = []
    for key, value in targets.items():
        key = _existing_key(key, entries)
        if key not in entries and req.option == DELETE:
            continue  # -dattr does not create host entries
        one = change_value(entries.get(key, "NONE"), Request(req.option, req.attr, value), queue)
        notes += one.notes
        if not one.applied:
            return Outcome(current, notes, applied=False)
        entries[key] = one.value
    rest = {k: v for k, v in entries.items() if k != DEFAULT}
    return Outcome(format_host_overrides(entries[DEFAULT], rest), notes)


def _parse_current(current: str, attr: str) -> tuple[str, dict[str, str]]:
    try:
        return parse_host_overrides(current, attr)
    except ConfError as err:
        raise AttrError(err.message) from None


def _key_in(key: str, targets: dict[str, str]) -> bool:
    return any(key.lower() == t.lower() for t in targets)


def _existing_key(key: str, entries: dict[str, str]) -> str:
    """The stored spelling of a host entry (host names compare without case)."""
    return next((k for k in entries if k and k.lower() == key.lower()), key)


def purge(current: str, attr: str, obj_id: str, host: str | None) -> Outcome:
    """``-purge queue attr q@host``: drop the host entry, leaving the default."""
    if host is None:
        raise AttrError(INCOMPLETE.format(obj_id))
    if attr in NO_OVERRIDES:
        raise AttrError(NOT_FOUND.format(attr, ""))
    default, overrides = _parse_current(current, attr)
    rest = {k: v for k, v in overrides.items() if k.lower() != host.lower()}
    return Outcome(format_host_overrides(default, rest))
