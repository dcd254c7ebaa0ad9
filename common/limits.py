"""The resource limits of a job (queue_conf(5) "RESOURCE LIMITS"): one table of their
names, and what a limit's text means.

Every module that names a limit takes it from ``LIMITS`` here: the queue's attributes
(``common.objects_conf.queue``), the queue resources a job may request and ``qstat -F``
shows (``common.placement``), the start spec the qmaster builds (``qmaster.start_spec``),
its wire schema (``common.start_record``), and what the shepherd does with each limit
(``execd.rlimits``, ``execd.control``, ``execd.cgroups``).

A limit's text is read by the one parser of its value type, the resource model's
(``common.resource.values``: decimal, exponent, C octal and hex, ``k K m M g G t T``,
``h:m:s``, INFINITY), at submission, in the queue configuration and for the start spec
alike, so a value means the same everywhere. ``bound`` turns a parsed figure into what the
execution host enforces: a negative figure is 0 (Grid Engine accepts ``-l h_vmem=-1``; the
smallest limit is the only reading that lets nothing slip), and a figure no host can hold
(at or above 2**63 bytes or seconds) is no limit. Pure; the parser is imported where it
is used, so that the table costs a command nothing.
"""
from __future__ import annotations

import math

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterator

TIME, MEMORY = "TIME", "MEMORY"


class Limit:
    """One row of the table: ``name`` (``h_vmem``), its value type (TIME or MEMORY), the
    resource it bounds (``vmem``: the shepherd's rlimit or measured figure), whether it is
    hard, and whether it is per slot (multiplied by the job's slots on the host, as
    sge_execd does for ``cpu``, ``data``, ``rss`` and ``vmem``)."""

    __slots__ = ("name", "type", "resource", "hard", "per_slot")

    def __init__(self, name: str, vtype: str, per_slot: bool) -> None:
        self.name = name
        self.type = vtype
        self.resource = name[2:]
        self.hard = name.startswith("h_")
        self.per_slot = per_slot

    def __repr__(self) -> str:
        return f"Limit({self.name!r}, {self.type}, per_slot={self.per_slot})"


def _pairs(resource: str, vtype: str, per_slot: bool) -> tuple[Limit, Limit]:
    return Limit(f"s_{resource}", vtype, per_slot), Limit(f"h_{resource}", vtype, per_slot)


# queue_conf(5)'s order (qconf -sq, qstat -F)
LIMITS: tuple[Limit, ...] = (
    *_pairs("rt", TIME, False), *_pairs("cpu", TIME, True),
    *_pairs("fsize", MEMORY, False), *_pairs("data", MEMORY, True),
    *_pairs("stack", MEMORY, False), *_pairs("core", MEMORY, False),
    *_pairs("rss", MEMORY, True), *_pairs("vmem", MEMORY, True),
)
BY_NAME: dict[str, Limit] = {limit.name: limit for limit in LIMITS}
NAMES: tuple[str, ...] = tuple(BY_NAME)
LIMIT_NAMES = frozenset(NAMES)
TIME_LIMITS: tuple[str, ...] = tuple(n for n in NAMES if BY_NAME[n].type == TIME)
MEMORY_LIMITS: tuple[str, ...] = tuple(n for n in NAMES if BY_NAME[n].type == MEMORY)
PER_SLOT_LIMITS = frozenset(n for n in NAMES if BY_NAME[n].per_slot)
RESOURCES: tuple[str, ...] = tuple(dict.fromkeys(limit.resource for limit in LIMITS))
# sge_conf(5) execd_params S_/H_DESCRIPTORS, MAXPROC, MEMORYLOCKED, LOCKS: limits every
# job of an execution host gets (the key is the name in capitals), not queue attributes;
# counts and bytes alike are written as memory values (k K m M g G, INFINITY)
HOST_LIMITS: tuple[Limit, ...] = (
    *_pairs("descriptors", MEMORY, False), *_pairs("maxproc", MEMORY, False),
    *_pairs("memorylocked", MEMORY, False), *_pairs("locks", MEMORY, False),
)
HOST_LIMIT_NAMES = frozenset(limit.name for limit in HOST_LIMITS)
HOST_RESOURCES: tuple[str, ...] = tuple(dict.fromkeys(limit.resource for limit in HOST_LIMITS))
# what bounds a job's cgroup memory.max (execd.cgroups): the hard vmem and rss limits
MEMORY_MAX_LIMITS = ("h_vmem", "h_rss")

# A limit at or above this many bytes or seconds is no limit: setrlimit takes 64-bit
# values (RLIM_INFINITY is 2**64-1) and no clock runs that long.
UNLIMITED_FROM = 2.0 ** 63


def soft(resource: str) -> str:
    """``s_<resource>``, a name of the table."""
    return BY_NAME[f"s_{resource}"].name


def hard(resource: str) -> str:
    """``h_<resource>``, a name of the table."""
    return BY_NAME[f"h_{resource}"].name


def pairs() -> Iterator[tuple[str, str, str]]:
    """(resource, soft name, hard name) of each limited resource, in table order."""
    for resource in RESOURCES:
        yield resource, soft(resource), hard(resource)


def host_limits(given: dict[str, float]) -> dict[str, float]:
    """The host limits to set from those ``given`` (name -> figure): sge_conf(5) "if
    only one limit of a resource is set (soft or hard), the corresponding other limit is
    set to the same value"."""
    out = dict(given)
    for resource in HOST_RESOURCES:
        soft_name, hard_name = f"s_{resource}", f"h_{resource}"
        if soft_name in out and hard_name not in out:
            out[hard_name] = out[soft_name]
        elif hard_name in out and soft_name not in out:
            out[soft_name] = out[hard_name]
    return out


def parse(name: str, text: str) -> float:
    """Seconds or bytes of limit ``name`` written ``text`` (``math.inf`` for INFINITY),
    read by the resource model's parser of the limit's type. Raises
    ``common.resource.values.BadValueError`` worded as Grid Engine words it at submission
    (``attribute "h_vmem" is not a memory value``); never reads a refusal as no limit."""
    from common.resource.values import MEMORY as MEMORY_TYPE
    from common.resource.values import TIME as TIME_TYPE
    from common.resource.values import parse_value
    vtype = TIME_TYPE if BY_NAME[name].type == TIME else MEMORY_TYPE
    return float(parse_value(vtype, text, attr=name))  # (as make_request reads -l values)


def bound(value: float) -> float:
    """What a host enforces for a parsed limit: at least 0, and ``math.inf`` (no limit)
    from ``UNLIMITED_FROM`` on."""
    if math.isnan(value):  # (the parser makes none; a limit is never "not a number")
        raise ValueError("a limit is not a number")
    if value >= UNLIMITED_FROM:
        return math.inf
    return max(0.0, value)


def enforced(name: str, text: str) -> float:
    """``bound(parse(name, text))``: the figure the start spec carries (inf: no limit)."""
    return bound(parse(name, text))
