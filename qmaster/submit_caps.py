"""The caps a submission must stay under: ``max_jobs`` and ``max_u_jobs`` of the global
cluster configuration (sge_conf(5)) with Grid Engine 8.1.9's refusals, and our own
``qmaster_params`` keys ``MAX_SCRIPT_SIZE`` and ``MAX_USER_SPOOL`` (docs/compatibility.md):
what one user's scripts may take of the qmaster's spool.

Counted from the store's running totals (``Store.active_jobs``: unfinished jobs and the
bytes of their scripts per owner), so a check costs the same whatever the cell holds. An
array job is one job, as Grid Engine counts it (``suser_job_count`` counts jobs).
"""
from __future__ import annotations

import math
from typing import Any

from common import conf_params
from qmaster.context import RequestError
from qmaster.store import Store

# Grid Engine 8.1.9's refusals (msg_qmaster.h: MSG_JOB_ALLOWEDJOBSPERCLUSTER,
# MSG_JOB_ALLOWEDJOBSPERUSER_UU), given as STATUS_NOTOK_DOAGAIN: qsub says
# "Unable to run job: ..." and exits 1
CLUSTER_REFUSAL = "job rejected: Only {limit} jobs are allowed per cluster"
USER_REFUSAL = ("job rejected: Only {limit} jobs are allowed per user "
                "(current job count: {count})")
# ours, in the same words' style
SCRIPT_REFUSAL = ("job rejected: the job script has {size} bytes, more than the {limit} "
                  "bytes allowed (qmaster_params MAX_SCRIPT_SIZE)")
SPOOL_REFUSAL = ('job rejected: the unfinished jobs of user "{user}" would spool {size} '
                 "bytes of scripts, more than the {limit} bytes allowed "
                 "(qmaster_params MAX_USER_SPOOL)")


class SubmitCaps:
    """The caps of one submit request, the jobs of it checked so far counted in."""

    def __init__(self, store: Store, user: str) -> None:
        def conf(name: str, default: str) -> str:
            return store.conf_value("conf", "global", name, default) or default

        self.user = user
        self.max_jobs = _ulong(conf("max_jobs", "0"))
        self.max_u_jobs = _ulong(conf("max_u_jobs", "0"))
        params = conf("qmaster_params", "none")
        self.max_script = _bytes(params, "MAX_SCRIPT_SIZE")
        self.max_spool = _bytes(params, "MAX_USER_SPOOL")
        self.cluster_jobs = store.active_job_count() if self.max_jobs else 0
        self.user_jobs, self.user_bytes = store.active_jobs.get(user, (0, 0))

    def check(self, spec: dict[str, Any]) -> None:
        """Count one job in, or refuse it (RequestError, Grid Engine's order: the cluster's
        cap first, then the user's, which a -w v or -w p verification does not meet)."""
        if self.max_jobs and self.cluster_jobs >= self.max_jobs:
            raise RequestError("rejected", CLUSTER_REFUSAL.format(limit=self.max_jobs))
        verifying = (spec["opts"].get("verify_mode") or "n") in ("v", "p")
        if self.max_u_jobs and not verifying and self.user_jobs >= self.max_u_jobs:
            raise RequestError("rejected", USER_REFUSAL.format(limit=self.max_u_jobs,
                                                               count=self.user_jobs))
        size = len(spec.get("script") or b"")
        if size > self.max_script:
            raise RequestError("rejected", SCRIPT_REFUSAL.format(
                size=size, limit=_whole(self.max_script)))
        if not verifying and self.user_bytes + size > self.max_spool:
            raise RequestError("rejected", SPOOL_REFUSAL.format(
                user=self.user, size=self.user_bytes + size, limit=_whole(self.max_spool)))
        if not verifying:
            self.cluster_jobs += 1
            self.user_jobs += 1
            self.user_bytes += size


def _ulong(text: str) -> int:
    return int(text) if text.strip().isdigit() else 0  # (checked by qconf: ulong)


def _whole(limit: float) -> int:
    return int(limit) if limit != math.inf else 0


def _bytes(qmaster_params: str, key: str) -> float:
    """A memory-valued key of ours; 0 or INFINITY: no limit (``math.inf``)."""
    number = conf_params.value("qmaster_params", qmaster_params, key)
    assert isinstance(number, float)
    return math.inf if number <= 0 else number
