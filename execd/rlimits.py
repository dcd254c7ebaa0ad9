"""The setrlimit(2) limits of a job's processes, from the limits in its spec.

queue_conf(5): the ``s_``/``h_`` pairs of ``cpu``, ``fsize``, ``data``, ``stack``,
``core``, ``rss`` and ``vmem`` are the soft and hard limits of each process (``vmem`` is
RLIMIT_AS on Linux); sge_conf(5) execd_params adds the host's ``descriptors``,
``maxproc``, ``memorylocked`` and ``locks`` (RLIMIT_NOFILE, _NPROC, _MEMLOCK, _LOCKS). A hard limit without a soft one gives the soft limit the same value,
as sge_shepherd does; a soft limit is never above the hard one. Limits the shepherd may
not raise (an unprivileged execd) are kept at what it has. ``plan`` is pure.
"""
from __future__ import annotations

import math
import resource
from collections.abc import Mapping

from common import limits

# Linux's RLIMIT_LOCKS, which Python's resource module does not name (set as asked; the
# kernel no longer enforces it)
_RLIMIT_LOCKS = int(getattr(resource, "RLIMIT_LOCKS", 10))
# the setrlimit resource of each limited resource of the table (common.limits) but the
# wall clock ("rt"), which the shepherd measures itself (execd.control)
_RLIMIT_OF = {"cpu": resource.RLIMIT_CPU, "fsize": resource.RLIMIT_FSIZE,
              "data": resource.RLIMIT_DATA, "stack": resource.RLIMIT_STACK,
              "core": resource.RLIMIT_CORE, "rss": resource.RLIMIT_RSS,
              "vmem": resource.RLIMIT_AS,
              # the host's (sge_conf(5) execd_params, common.limits HOST_LIMITS)
              "descriptors": resource.RLIMIT_NOFILE, "maxproc": resource.RLIMIT_NPROC,
              "memorylocked": resource.RLIMIT_MEMLOCK, "locks": _RLIMIT_LOCKS}
RESOURCES = {name: _RLIMIT_OF[name] for name in limits.RESOURCES + limits.HOST_RESOURCES
             if name != "rt"}
INFINITY = resource.RLIM_INFINITY


def _rlim(value: float | None) -> int:
    """A limit in setrlimit's terms: none, infinite, or too large to hold (a spec of an
    older qmaster may carry up to 1e30) is RLIM_INFINITY."""
    if value is None or not math.isfinite(value) or value >= limits.UNLIMITED_FROM:
        return INFINITY
    return max(0, int(math.ceil(value)))


def _lower(a: int, b: int) -> int:
    if a == INFINITY:
        return b
    if b == INFINITY:
        return a
    return min(a, b)


def plan(spec_limits: Mapping[str, float], current: Mapping[int, tuple[int, int]],
         privileged: bool) -> dict[int, tuple[int, int]]:
    """resource -> (soft, hard) to set for the job; only resources the spec limits.

    ``current`` holds the shepherd's own (soft, hard) per resource; ``privileged`` says
    whether it may raise a hard limit.
    """
    out = {}
    for name, res in RESOURCES.items():
        soft_v = spec_limits.get(f"s_{name}")  # (both tables name their pairs so)
        hard_v = spec_limits.get(f"h_{name}")
        if soft_v is None and hard_v is None:
            continue
        hard = _rlim(hard_v)
        if not privileged:
            hard = _lower(hard, current[res][1])
        soft = _lower(_rlim(soft_v if soft_v is not None else hard_v), hard)
        out[res] = (soft, hard)
    return out


def current_limits() -> dict[int, tuple[int, int]]:
    return {res: resource.getrlimit(res) for res in RESOURCES.values()}


def apply(settings: Mapping[int, tuple[int, int]]) -> None:
    """Set the planned limits on this process (called in the job's child before exec)."""
    for res, (soft, hard) in settings.items():
        resource.setrlimit(res, (soft, hard))
