"""Cluster queues (``queue_conf(5)``): attributes, template, checks and per-host values.

Every attribute but ``qname`` and ``hostlist`` may carry host or host group specific
values, ``default,[host_or_@group=value],...``; the default is required, a host value
beats a host group value, which beats the default (``resolve``).
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, Mapping

from common.conf_values import (check_assignments, check_bool, check_choice, check_int,
                                check_memory, check_names, check_none_string, check_string,
                                check_time, check_ulong, check_ulong_range, get, no_value,
                                parse_int)
from common.conffile import ConfError
from common.limits import LIMITS, TIME
from common.objects_conf.base import Attr, ObjectKind
from common.objects_conf.host import HostGroups, check_host_list, host_in_group

SLOTS_MAX = 9999999
_PROCESSORS = re.compile(r"^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$")
_BAD_NAME_CHARS = re.compile(r"[\s,/:@\[\]{}|()=%'\"\\]")
_QTYPES = ("BATCH", "INTERACTIVE")


def check_object_name(name: str, value: str) -> str:
    """Names of queues, parallel environments and the like."""
    text = check_string(name, value)
    if text[0].isdigit() or _BAD_NAME_CHARS.search(text):
        raise ConfError(f'denied: "{text}" is not a valid object name (cannot start with a digit)'
                        if text[0].isdigit() else f'denied: "{text}" is not a valid object name')
    return text


def check_qtype(name: str, value: str) -> str:
    """BATCH, INTERACTIVE, both (comma or blank separated, any case) or NONE."""
    no_value(name, value)
    words = {word.upper() for word in re.split(r"[,\s]+", value.strip()) if word}
    if words == {"NONE"}:
        return "NONE"
    if not words or not words <= set(_QTYPES):
        raise ConfError(f'error parsing queue type from string "{value}"')
    return " ".join(qtype for qtype in _QTYPES if qtype in words)


def check_priority(name: str, value: str) -> str:
    number = parse_int(check_int(name, value))
    if not -20 <= number <= 20:
        raise ConfError("Priority not in range -20 to +20")
    return str(number)


def check_processors(name: str, value: str) -> str:
    text = check_string(name, value)
    if text.upper() in ("UNDEFINED", "NONE"):
        return text.upper()
    if not _PROCESSORS.match(text):
        raise ConfError(f'Error during parsing of attribute value "{text}"')
    return text


def check_shell(name: str, value: str) -> str:
    text = check_string(name, value)
    if not text.startswith("/"):
        raise ConfError(f'Invalid value "{text}" for shell ')
    return text


_QUEUE_ATTRS = (
    Attr("qname", "template", check_object_name),
    Attr("hostlist", "NONE", check_host_list),
    Attr("seq_no", "0", check_ulong),
    Attr("load_thresholds", "np_load_avg=1.75", check_assignments),
    Attr("suspend_thresholds", "NONE", check_assignments),
    Attr("nsuspend", "1", check_ulong),
    Attr("suspend_interval", "00:05:00", check_time),
    Attr("priority", "0", check_priority),
    Attr("min_cpu_interval", "00:05:00", check_time),
    Attr("processors", "UNDEFINED", check_processors),
    Attr("qtype", "BATCH INTERACTIVE", check_qtype),
    Attr("ckpt_list", "NONE", check_names),
    Attr("pe_list", "make smp mpi", check_names),
    Attr("rerun", "FALSE", check_bool),
    Attr("slots", "1", check_ulong_range(0, SLOTS_MAX)),
    Attr("tmpdir", "/tmp", check_string),
    Attr("shell", "/bin/sh", check_shell),
    Attr("prolog", "NONE", check_none_string),
    Attr("epilog", "NONE", check_none_string),
    Attr("shell_start_mode", "posix_compliant", check_choice(
        ("unix_behavior", "posix_compliant", "script_from_stdin"),
        'Invalid value "{value}" as shell start mode')),
    Attr("starter_method", "NONE", check_none_string),
    Attr("suspend_method", "NONE", check_none_string),
    Attr("resume_method", "NONE", check_none_string),
    Attr("terminate_method", "NONE", check_none_string),
    Attr("notify", "00:00:60", check_time),
    Attr("owner_list", "NONE", check_names),
    Attr("user_lists", "NONE", check_names),
    Attr("xuser_lists", "NONE", check_names),
    Attr("subordinate_list", "NONE", check_none_string),
    Attr("complex_values", "NONE", check_assignments),
    Attr("projects", "NONE", check_names),
    Attr("xprojects", "NONE", check_names),
    Attr("calendar", "NONE", check_none_string),
    Attr("initial_state", "default", check_choice(
        ("default", "enabled", "disabled"), 'Invalid value "{value}" as initial state')),
) + tuple(Attr(limit.name, "INFINITY", check_time if limit.type == TIME else check_memory)
          for limit in LIMITS)  # (the limits read by the parser the start spec uses)

NO_OVERRIDES = frozenset({"qname", "hostlist"})


# --- per-host values ----------------------------------------------------------------

def parse_host_overrides(text: str, attr: str = "") -> tuple[str, dict[str, str]]:
    """``default,[host=value],[@group=value]`` as (default, {host_or_group: value}).

    Raises ``ConfError`` with Grid Engine's wording for a missing default, a missing
    comma, bracket or ``=``, a trailing comma, or a host given twice.
    """
    text = text.strip()
    start = text.find("[")
    if start < 0:
        return text, {}
    default = _override_default(text, start, attr)
    return default, _override_items(text, text[start:])


def _override_default(text: str, start: int, attr: str) -> str:
    head = text[:start].rstrip()
    if head and not head.endswith(","):
        raise ConfError(f'All list elements must be separated by commas: "{text}"')
    default = head[:-1].strip()
    if not default:
        raise ConfError(f'"{attr or text}" has no default value')
    return default


def _override_items(text: str, rest: str) -> dict[str, str]:
    overrides: dict[str, str] = {}
    seen: set[str] = set()  # names without case (a slots list names every exec host)
    while rest:
        close = rest.find("]")
        if not rest.startswith("[") or close < 0:
            raise ConfError("The last character of each list item must be enclosed in brackets: "
                            f'"{text}"')
        host, equal, value = rest[1:close].partition("=")
        host = host.strip()
        if not equal or not host:
            raise ConfError("'=' has to sepatate host or group from value")
        if host.lower() in seen:
            raise ConfError(f"Multiple values for one queue domain/host ({host}) are not allowed")
        seen.add(host.lower())
        overrides[host] = value.strip()
        rest = _after_item(text, rest[close + 1:].lstrip())
    return overrides


def _after_item(text: str, rest: str) -> str:
    if not rest:
        return ""
    if not rest.startswith(","):
        raise ConfError(f'All list elements must be separated by commas: "{text}"')
    rest = rest[1:].lstrip()
    if not rest:
        raise ConfError(f'There is an extra comma at the end of the list: "{text}"')
    return rest


def format_host_overrides(default: str, overrides: Mapping[str, str] | Iterable[tuple[str, str]]
                          ) -> str:
    """The reverse of ``parse_host_overrides``: ``1,[vm=4]``."""
    items = overrides.items() if isinstance(overrides, Mapping) else overrides
    return default + "".join(f",[{host}={value}]" for host, value in items)


@lru_cache(maxsize=1024)
def _override_table(attr_value: str) -> tuple[str, dict[str, str], tuple[tuple[str, str], ...]]:
    """(default, host entries by lower-case name, group entries in order) of a value:
    read once per distinct value, since a queue's ``slots`` may name every exec host
    and is looked up for each of them."""
    default, overrides = parse_host_overrides(attr_value)
    by_host: dict[str, str] = {}
    for key, value in overrides.items():
        by_host.setdefault(key.lower(), value)
    groups = tuple((k, v) for k, v in overrides.items() if k.startswith("@"))
    return default, by_host, groups


def resolve(attr_value: str, host: str, hostgroups: HostGroups) -> str:
    """The value on ``host``: its own entry, else the first of its groups', else the default."""
    default, by_host, groups = _override_table(attr_value)
    value = by_host.get(host.lower())
    if value is not None:
        return value
    for key, value in groups:
        if host_in_group(host, key, hostgroups):
            return value
    return default


def ambiguous_groups(attr_value: str, host: str, hostgroups: HostGroups) -> list[str]:
    """Groups of ``host`` giving it different values with no host entry to decide:
    the configuration ambiguity that puts a queue instance in state ``c``."""
    _, overrides = parse_host_overrides(attr_value)
    if any(key.lower() == host.lower() for key in overrides):
        return []
    matching = [key for key in overrides
                if key.startswith("@") and host_in_group(host, key, hostgroups)]
    values = {overrides[key] for key in matching}
    return matching if len(values) > 1 else []


def queue_value(pairs: Iterable[tuple[str, str]] | Iterable[list[str]], attr: str, host: str,
                hostgroups: HostGroups) -> str:
    """Attribute ``attr`` of a stored queue resolved for ``host`` (template default if absent)."""
    fallback = next(a.default for a in _QUEUE_ATTRS if a.name == attr)
    return resolve(get(pairs, attr, fallback), host, hostgroups)


def _check_queue_value(kind: ObjectKind, attr: Attr, value: str) -> str:
    """Checks the default and every host value with the attribute's checker."""
    if attr.name in NO_OVERRIDES:
        return attr.check(attr.name, value)
    default, overrides = parse_host_overrides(value, attr.name)
    checked = {host: attr.check(attr.name, val) for host, val in overrides.items()}
    for host in checked:
        check_host_list(attr.name, host)
    return format_host_overrides(attr.check(attr.name, default), checked)


QUEUE = ObjectKind(name="queue", key="qname", width=21, attrs=_QUEUE_ATTRS,
                   value_check=_check_queue_value)
