"""Configuration objects as ``qconf`` shows and reads them: one entry point for every kind.

Kinds (``KINDS``): ``queue`` (queue_conf(5)), ``exechost`` (host_conf(5)), ``hostgroup``
(hostgroup(5)), ``conf`` (sge_conf(5), global and host-local), ``pe`` (sge_pe(5)),
``sched`` (sched_conf(5)), ``userset`` (access_list(5)), ``project`` (project(5)),
``calendar`` (calendar_conf(5)), ``user`` (user(5)) and ``ckpt`` (checkpoint(5)); the share tree's file is
``objects_conf.sharetree``'s;
plus plain name lists (managers, operators: ``qconf -sm``).

Objects are ordered ``(name, value)`` string pairs, the text the qmaster spools; the
functions here turn files into checked canonical pairs and pairs into ``qconf -s*``
output. Typed reading of values is ``common.conf_values``; the per-kind details are in
``objects_conf.queue``, ``objects_conf.host``, ``objects_conf.cluster``,
``objects_conf.userset``, ``objects_conf.project``, ``objects_conf.calendar`` and ``objects_conf.ckpt``.
"""
from __future__ import annotations

from typing import Iterable, Sequence

from common.conffile import ConfError, Pairs
from common.objects_conf.base import Attr, ObjectKind
from common.objects_conf.base import check_value as _check_value
from common.objects_conf.base import normalize as _normalize
from common.objects_conf.base import parse_object as _parse_object
from common.objects_conf.base import render_object as _render_object
from common.objects_conf.base import template as _template
from common.objects_conf.calendar import CALENDAR
from common.objects_conf.ckpt import CKPT
from common.objects_conf.cluster import (ALLOCATION_RULES, GLOBAL_CONF, PE, SCHED_CONF,
                                         URGENCY_SLOTS, render_configuration)
from common.objects_conf.host import (EXECHOST, HOSTGROUP, expand_hostgroup, host_in_group,
                                      hostgroup_cycle)
from common.objects_conf.queue import (QUEUE, ambiguous_groups, format_host_overrides,
                                       parse_host_overrides, queue_value, resolve)
from common.objects_conf.project import PROJECT
from common.objects_conf.user import USER
from common.objects_conf.userset import USERSET

KINDS: dict[str, ObjectKind] = {kind.name: kind for kind in
                                (QUEUE, EXECHOST, HOSTGROUP, GLOBAL_CONF, PE, SCHED_CONF,
                                 USERSET, PROJECT, CALENDAR, USER, CKPT)}

__all__ = [
    "ALLOCATION_RULES", "Attr", "ConfError", "KINDS", "ObjectKind", "URGENCY_SLOTS",
    "ambiguous_groups", "check_value", "expand_hostgroup", "format_host_overrides",
    "host_in_group", "hostgroup_cycle", "kind_of", "normalize_object", "parse_host_overrides",
    "parse_name_list", "parse_object", "queue_value", "render_configuration", "render_name_list",
    "render_object", "resolve", "template",
]


def kind_of(kind: str | ObjectKind) -> ObjectKind:
    """The ``ObjectKind`` named ``kind`` (or ``kind`` itself)."""
    if isinstance(kind, ObjectKind):
        return kind
    try:
        return KINDS[kind]
    except KeyError:
        raise ValueError(f"unknown configuration object kind {kind!r}") from None


def template(kind: str | ObjectKind, name: str | None = None) -> Pairs:
    """Template defaults (``qconf -aq`` etc.), the object's name set if given."""
    return _template(kind_of(kind), name)


def check_value(kind: str | ObjectKind, name: str, value: str) -> str:
    """Canonical text of one attribute value (queues: with its ``[host=..]`` values)."""
    return _check_value(kind_of(kind), name, value)


def normalize_object(kind: str | ObjectKind, pairs: Iterable[Sequence[str]], *,
                     complete: bool = False) -> Pairs:
    """Checked canonical pairs in display order; ``complete`` fills in template defaults."""
    return _normalize(kind_of(kind), pairs, complete=complete)


def parse_object(kind: str | ObjectKind, text: str, *, require_all: bool | None = None) -> Pairs:
    """A file given to ``qconf -A*``/``-M*`` or saved from the editor, checked.

    Every attribute is required except for the cluster configuration (a host-local
    configuration holds only what differs) and the exec host's read-only values;
    ``require_all=False`` accepts partial files for any kind.
    """
    obj = kind_of(kind)
    required = obj is not GLOBAL_CONF if require_all is None else require_all
    return _parse_object(obj, text, require_all=required)


def render_object(kind: str | ObjectKind, pairs: Iterable[Sequence[str]], *,
                  wrap: bool = True) -> str:
    """What ``qconf -s*`` prints for the object (for ``conf`` see ``render_configuration``,
    which adds the ``#name:`` line)."""
    return _render_object(kind_of(kind), pairs, wrap=wrap)


def render_name_list(names: Iterable[str]) -> str:
    """``qconf -sm`` / ``-so``: one name a line."""
    return "".join(f"{name}\n" for name in names)


def parse_name_list(text: str) -> list[str]:
    """Names of a manager or operator list file: blank, comma or line separated,
    ``#`` comments ignored, duplicates dropped in order."""
    names: list[str] = []
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            continue
        for name in line.replace(",", " ").split():
            if name not in names:
                names.append(name)
    return names
