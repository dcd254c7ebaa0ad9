"""Execution hosts (``host_conf(5)``) and host groups (``hostgroup(5)``).

Owns their attribute lists, defaults and checks, and the expansion of a host group
into its hosts through nested groups (``expand_hostgroup``), with cycle detection.
"""
from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from common.conf_values import (check_assignments, check_comma_names, check_double_assignments,
                                check_names, check_string, check_ulong, split_names)
from common.conffile import ConfError
from common.objects_conf.base import Attr, ObjectKind

HostGroups = Mapping[str, Sequence[str]]


def check_hostname(name: str, value: str) -> str:
    text = check_string(name, value)
    if any(ch.isspace() or ch in ",[]=@" for ch in text):
        raise ConfError(f'unable to resolve host "{text}"')
    return text


def check_hostgroup_name(name: str, value: str) -> str:
    text = check_string(name, value)
    bad = any(ch.isspace() or ch in ",[]=" for ch in text)
    if not text.startswith("@") or len(text) < 2 or bad:
        raise ConfError(f'host group name "{text}" is not valid')
    return text


def check_host_list(name: str, value: str) -> str:
    """Hosts and ``@groups`` shown blank-separated, or NONE."""
    items = split_names(check_names(name, value))
    for item in items:
        (check_hostgroup_name if item.startswith("@") else check_hostname)(name, item)
    return " ".join(items) or "NONE"


def check_report_variables(name: str, value: str) -> str:
    """The load values and consumables the reporting file's host and consumable records
    show (qmaster.reporting), comma-separated, or NONE; every name must be a complex
    attribute (``report_variables_refusal``, checked where the complexes are known)."""
    return check_comma_names(name, value)


def report_variables_refusal(pairs: Sequence[Sequence[str]], attribute_names: Iterable[str]
                             ) -> str | None:
    """8.1.9's refusal of a ``report_variables`` name that is no complex attribute's name
    or shortcut (``attribute_names``: both). A shortcut is taken as 8.1.9 takes it, and
    matches no load value or consumable in the records, which name them in full."""
    known = set(attribute_names)
    for key, value in pairs:
        if key == "report_variables":
            for item in split_names(value):
                if item not in known:
                    return f'unknown resource "{item}"'
    return None


EXECHOST = ObjectKind(
    name="exechost",
    key="hostname",
    width=21,
    attrs=(
        Attr("hostname", "template", check_hostname),
        Attr("load_scaling", "NONE", check_double_assignments),
        Attr("complex_values", "NONE", check_assignments),
        # Reported by the execd, shown by qconf -se, ignored in files given to qconf.
        Attr("load_values", "NONE", check_string, required=False, read_only=True),
        Attr("processors", "0", check_ulong, required=False, read_only=True),
        Attr("user_lists", "NONE", check_names),
        Attr("xuser_lists", "NONE", check_names),
        Attr("projects", "NONE", check_names),
        Attr("xprojects", "NONE", check_names),
        Attr("usage_scaling", "NONE", check_double_assignments),
        Attr("report_variables", "NONE", check_report_variables),
    ),
)

HOSTGROUP = ObjectKind(
    name="hostgroup",
    key="group_name",
    width=0,
    attrs=(
        Attr("group_name", "@template", check_hostgroup_name),
        Attr("hostlist", "NONE", check_host_list),
    ),
)


def expand_hostgroup(name: str, groups: HostGroups) -> set[str]:
    """All hosts of group ``name``, through nested groups.

    ``groups`` maps ``@name`` to its hostlist entries (hosts and ``@groups``); an
    unknown group is empty. A group reached again through its own members raises
    ``ConfError``.
    """
    hosts: set[str] = set()
    _expand(name, groups, (), hosts)
    return hosts


def _expand(name: str, groups: HostGroups, path: tuple[str, ...], hosts: set[str]) -> None:
    if name in path:
        raise ConfError(f'host group "{path[-1]}" would create a cycle by referencing "{name}"')
    for entry in groups.get(name, ()):
        if entry.startswith("@"):
            _expand(entry, groups, path + (name,), hosts)
        elif entry.upper() != "NONE":
            hosts.add(entry)


def hostgroup_cycle(name: str, hostlist: Sequence[str], groups: HostGroups) -> str | None:
    """The error text if giving group ``name`` this ``hostlist`` would make a cycle."""
    trial = dict(groups)
    trial[name] = list(hostlist)
    try:
        expand_hostgroup(name, trial)
    except ConfError as err:
        return err.message
    return None


def host_in_group(host: str, group: str, groups: HostGroups) -> bool:
    """Whether ``host`` (compared without case, as Grid Engine compares host names) is in
    ``group``."""
    wanted = host.lower()
    return any(member.lower() == wanted for member in expand_hostgroup(group, groups))
