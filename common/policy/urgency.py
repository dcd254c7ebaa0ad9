"""The urgency policy (sge_priority(5)): a job's ``urg`` = ``rrcontr`` (its resource
requests) + ``wtcontr`` (its waiting time) + ``dlcontr`` (its deadline). Pure.

How 8.1.9 computes each part (libs/sched/sge_urgency.c, sgeobj/sge_centry.c), as this
module does:

- ``rrcontr``: the implicit ``slots`` request plus every hard ``-l`` request of an
  attribute that has an urgency. A numeric attribute (INT, DOUBLE, MEMORY, TIME, BOOL)
  contributes ``urgency · amount · slots`` (the amount is per slot; 8.1.9 multiplies by
  the slots whatever the attribute's ``consumable`` says, JOB consumables too); a string
  attribute contributes its ``urgency`` once. ``slots`` itself counts as amount 1, so the
  default ``slots`` urgency of 1000 gives 1000 per slot. The slots are the job's
  ``urgency_slots`` count (``PolicyJob.slots``, resolved by the caller from the PE).
  Soft requests and default requests count for nothing (they depend on placement). The
  part depends only on the request set, so it is computed once per distinct (slots,
  requests) and shared, as 8.1.9 caches it per job category.
- ``wtcontr`` = ``weight_waiting_time`` · seconds since submission (whole seconds: 8.1.9
  keeps times as integers); running jobs go on accumulating it.
- ``dlcontr`` = ``weight_deadline`` / max(seconds left, 1): a job at or past its deadline
  keeps the value of one second left ("we're optimistic and treat it high prior").
"""
from __future__ import annotations

import math
from typing import Mapping

from common.policy.model import ResourceUrgency
from common.resource.values import BadValueError, parse_number

SLOTS = "slots"
_BOOLS = {"true": 1.0, "false": 0.0}


def request_amount(text: str) -> float:
    """A numeric request's amount (``4G`` -> bytes, ``1:00:00`` -> seconds, TRUE -> 1);
    an unreadable amount (which the qmaster's checks keep out) counts as 0."""
    folded = text.strip().lower()
    if folded in _BOOLS:
        return _BOOLS[folded]
    try:
        value = parse_number(text.strip())
    except BadValueError:
        return 0.0
    return value if math.isfinite(value) else 0.0


def contribution(slots: int, amount: float, urgency: ResourceUrgency) -> float:
    """One attribute's part of ``rrcontr`` (centry_urgency_contribution)."""
    if urgency.numeric:
        return amount * urgency.urgency * slots
    return urgency.urgency


class ResourceContributions:
    """``rrcontr`` per distinct (slots, hard requests), computed once each."""

    def __init__(self, urgencies: Mapping[str, ResourceUrgency]) -> None:
        self._urgencies = urgencies
        self._cache: dict[tuple[int, tuple[tuple[str, str], ...]], float] = {}
        # jobs of one request set often share one mapping: looked up by its identity
        # first (the mappings live as long as this object, held by the jobs)
        self._by_identity: dict[tuple[int, int], float] = {}

    def of(self, slots: int, requests: Mapping[str, str]) -> float:
        fast = (slots, id(requests))
        found = self._by_identity.get(fast)
        if found is None:
            key = (slots, tuple(requests.items()) if requests else ())
            found = self._cache.get(key)
            if found is None:
                found = self._cache[key] = self._compute(slots, requests)
            self._by_identity[fast] = found
        return found

    def _compute(self, slots: int, requests: Mapping[str, str]) -> float:
        slot_urgency = self._urgencies.get(SLOTS)
        if slot_urgency is None:
            # 8.1.9 leaves the job without any resource contribution when there is no
            # slots complex (it cannot happen in a cell: slots is built in)
            return 0.0
        total = contribution(slots, 1.0, slot_urgency)
        for name, text in requests.items():
            urgency = self._urgencies.get(name)
            if urgency is None or name == SLOTS:
                continue
            amount = request_amount(text) if urgency.numeric else 0.0
            total += contribution(slots, amount, urgency)
        return total


def deadline_contribution(deadline: float, weight_deadline: float, now: int) -> float:
    """``dlcontr`` at ``now`` (whole seconds) of a job with a deadline."""
    return weight_deadline / max(int(deadline) - now, 1)
