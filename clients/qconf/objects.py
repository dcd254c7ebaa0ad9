"""``qconf`` options that look across objects: ``-shgrp_tree``, ``-shgrp_resolved``,
``-sobjl`` and ``-bonsai``, as Grid Engine 8.1.9 prints them
(tests/data/reference/qconf-control/).

- ``-shgrp_tree @g``: the group, then each entry three blanks further in, a group's own
  entries below it;
- ``-shgrp_resolved @g``: every host of the group and the groups in it, once each, in
  the order the tree shows them, on one line;
- ``-sobjl obj_nm attr_nm val``: the names of the queues (``queue``) or exec hosts
  (``exechost``) whose attribute matches the wildcard pattern ``val`` as a whole (a
  queue's value without its ``[host=...]`` values). An object kind or attribute 8.1.9
  does not search lists nothing, as there; so do ``queue_domain`` and ``queue_instance``,
  for which 8.1.9 listed nothing for any value tried (docs/compatibility.md);
- ``-bonsai``: the share tree as ``-sst`` shows it (8.1.9 prints the same);
- ``-sds``: each queue's ``[host=value]`` settings for a host outside its hostlist, one
  line each in 8.1.9's attribute order and words (``nuspend`` sic), exit status 1 when
  there is one; a host group's settings are not looked at, as in 8.1.9.
"""
from __future__ import annotations

from clients.qconf.base import MISSING, QconfError, Session, out
from clients.qconf.sharetree import show_view
from common.conf_values import get
from common.conffile import ConfError
from common.objects_conf import parse_host_overrides

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

INDENT = "   "


def hgrp_members(s: Session, name: str) -> dict[str, list[str]]:
    groups = {g: get(p, "hostlist", "NONE").split() for g, p in s.objects("hgrp").items()}
    if name not in groups:
        raise QconfError(MISSING["hgrp"].format(name))
    return groups


def hgrp_tree_lines(name: str, groups: dict[str, list[str]], level: int, path: tuple[str, ...]
                ) -> list[tuple[int, str]]:
    lines = [(level, name)]
    for entry in groups.get(name, []):
        if entry.upper() == "NONE":
            continue
        if entry.startswith("@") and entry not in path:  # (the qmaster refuses cycles)
            lines += hgrp_tree_lines(entry, groups, level + 1, path + (name,))
        else:
            lines.append((level + 1, entry))
    return lines


def show_tree(s: Session, name: str) -> int:
    """``-shgrp_tree group``."""
    lines = hgrp_tree_lines(name, hgrp_members(s, name), 0, ())
    out("\n".join(INDENT * level + entry for level, entry in lines))
    return 0


def show_resolved(s: Session, name: str) -> int:
    """``-shgrp_resolved group``."""
    lines = hgrp_tree_lines(name, hgrp_members(s, name), 0, ())
    hosts = dict.fromkeys(entry for _, entry in lines[1:] if not entry.startswith("@"))
    out(" ".join(hosts))
    return 0


SEARCHED = {"queue": "queue", "exechost": "exechost"}  # obj_nm2 -> store kind


def attr_value(kind: str, pairs: list[list[str]], attr: str) -> str | None:
    for key, value in pairs:
        if key == attr:
            if kind != "queue":
                return value
            try:
                return parse_host_overrides(value)[0]
            except ConfError:
                return value
    return None


def show_matching(s: Session, obj_nm: str, attr: str, pattern: str) -> int:
    """``-sobjl obj_nm2 attr_nm val``."""
    kind = SEARCHED.get(obj_nm)
    if kind is None:
        return 0
    names = [name for name, pairs in sorted(s.objects(kind).items())
             if (value := attr_value(kind, pairs, attr)) is not None
             and fnmatch_case(value, pattern)]
    if names:
        out("\n".join(names))
    return 0


# the order 8.1.9 looks at a queue's attributes in (its attribute table, by value type),
# and the name it prints for each
DETACHED_ORDER = (
    "seq_no", "nsuspend", "slots", "tmpdir", "shell", "calendar", "priority", "processors",
    "prolog", "epilog", "shell_start_mode", "starter_method", "suspend_method",
    "resume_method", "terminate_method", "initial_state", "rerun", "s_fsize", "h_fsize",
    "s_data", "h_data", "s_stack", "h_stack", "s_core", "h_core", "s_rss", "h_rss", "s_vmem",
    "h_vmem", "s_rt", "h_rt", "s_cpu", "h_cpu", "suspend_interval", "min_cpu_interval",
    "notify", "qtype", "ckpt_list", "pe_list", "owner_list", "user_lists", "xuser_lists",
    "projects", "xprojects", "complex_values", "load_thresholds", "suspend_thresholds",
    "subordinate_list")
DETACHED_NAMES = {"nsuspend": "nuspend"}  # (sic)
DETACHED = 'unused setting for attribute "{}" and host "{}" in queue "{}".'


def detached_settings(queues: dict[str, list[list[str]]], groups: dict[str, list[str]]
                      ) -> list[str]:
    """``-sds``'s lines for ``queues`` (name -> pairs) with host groups ``groups``."""
    lines = []
    for qname in sorted(queues):
        pairs = queues[qname]
        members: set[str] = set()
        for entry in get(pairs, "hostlist", "NONE").split():
            if entry.startswith("@"):
                members |= {h for _, h in hgrp_tree_lines(entry, groups, 0, ())[1:]}
            members.add(entry)
        members = {m.lower() for m in members}
        for attr in DETACHED_ORDER:
            try:
                _, overrides = parse_host_overrides(get(pairs, attr, "NONE"))
            except ConfError:
                continue
            lines += [DETACHED.format(DETACHED_NAMES.get(attr, attr), host, qname)
                      for host in overrides
                      if not host.startswith("@") and host.lower() not in members]
    return lines


def show_detached(s: Session) -> int:
    """``-sds``."""
    groups = {g: get(p, "hostlist", "NONE").split() for g, p in s.objects("hgrp").items()}
    lines = detached_settings(s.objects("queue"), groups)
    if lines:
        out("\n".join(lines))
    return 1 if lines else 0


OBJECT_OPTIONS: dict[str, tuple[int, Callable[..., int]]] = {
    "-shgrp_tree": (1, show_tree), "-shgrp_resolved": (1, show_resolved),
    "-sobjl": (3, show_matching), "-bonsai": (0, show_view),
    "-sds": (0, show_detached),
}


def fnmatch_case(name: str, pattern: str) -> bool:
    import fnmatch  # (these options only: qconf's start loads no pattern matching)
    return fnmatch.fnmatchcase(name, pattern)
