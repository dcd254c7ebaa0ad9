"""The scheduler configuration's policy parameters (sched_conf(5)) and the cluster
configuration's job caps (sge_conf(5) ``max_aj_instances``), typed once from the stored
``[name, value]`` pairs (which the qmaster checked when they were written). Pure.

Every policy user (the pass, ``qstat``, the usage bookkeeping, the simulator) reads these
fields, never the pairs.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from common.conf_values import get, parse_bool, parse_double, parse_time, split_assignments
from common.conffile import ConfError
from common.placement.timeline import ReserveConf
from common.sched_params import DEFAULT_DURATION_OFFSET, SchedParams, parse_sched_params

Pairs = Iterable[Sequence[str]]


@dataclass(frozen=True, slots=True)
class PolicyConf:
    weight_priority: float = 0.0
    weight_urgency: float = 0.5
    weight_ticket: float = 0.5
    weight_waiting_time: float = 0.278
    weight_deadline: float = 3600000.0
    weight_tickets_functional: int = 0
    weight_tickets_share: int = 0
    weight_user: float = 0.25
    weight_project: float = 0.25
    weight_department: float = 0.25
    weight_job: float = 0.25
    share_override_tickets: bool = True
    share_functional_shares: bool = True
    max_functional_jobs_to_schedule: int = 200
    report_pjob_tickets: bool = True
    max_pending_tasks_per_job: int = 50
    policy_hierarchy: str = "OFS"          # "" for NONE
    halftime: int = 168                    # hours; 0: usage is not decayed
    # halflife_decay_list: usage name -> half-life in minutes (0: no decay; -1: nothing
    # booked is kept, as 8.1.9 reads it)
    halflife_decay: Mapping[str, float] = field(default_factory=dict)
    usage_weights: Mapping[str, float] = field(
        default_factory=lambda: {"cpu": 1.0, "mem": 0.0, "io": 0.0})
    compensation_factor: float = 5.0
    maxujobs: int = 0                      # 0: no limit
    max_reservation: int = 0
    default_duration: float = float("inf")  # seconds
    # params DURATION_OFFSET (seconds added to every planned duration) and MONITOR (write
    # the schedule file), common.sched_params
    duration_offset: float = DEFAULT_DURATION_OFFSET
    monitor: bool = False
    schedule_interval: float = 15.0        # seconds (0:0:15)
    max_aj_instances: int = 2000           # from the cluster configuration; 0: no limit

    @classmethod
    def from_pairs(cls, sched: Pairs, cluster: Pairs = ()) -> "PolicyConf":
        """From the scheduler configuration's pairs (and the global cluster
        configuration's, for ``max_aj_instances``); an absent value is the default."""
        sched = list(sched)
        base = cls()

        def num(name: str, default: float) -> float:
            text = get(sched, name, "")
            return parse_double(text, name) if text.strip() else default

        def count(name: str, default: int) -> int:
            text = get(sched, name, "")
            return int(float(text)) if text.strip() else default

        def flag(name: str, default: bool) -> bool:
            text = get(sched, name, "")
            return parse_bool(text) if text.strip() else default

        hierarchy = get(sched, "policy_hierarchy", base.policy_hierarchy).strip().upper()
        duration = get(sched, "default_duration", "INFINITY").strip()
        aj = get(list(cluster), "max_aj_instances", "").strip()
        params = _params(get(sched, "params", "none"))
        return cls(
            weight_priority=num("weight_priority", base.weight_priority),
            weight_urgency=num("weight_urgency", base.weight_urgency),
            weight_ticket=num("weight_ticket", base.weight_ticket),
            weight_waiting_time=num("weight_waiting_time", base.weight_waiting_time),
            weight_deadline=num("weight_deadline", base.weight_deadline),
            weight_tickets_functional=count("weight_tickets_functional", 0),
            weight_tickets_share=count("weight_tickets_share", 0),
            weight_user=num("weight_user", base.weight_user),
            weight_project=num("weight_project", base.weight_project),
            weight_department=num("weight_department", base.weight_department),
            weight_job=num("weight_job", base.weight_job),
            share_override_tickets=flag("share_override_tickets", True),
            share_functional_shares=flag("share_functional_shares", True),
            max_functional_jobs_to_schedule=count("max_functional_jobs_to_schedule", 200),
            report_pjob_tickets=flag("report_pjob_tickets", True),
            max_pending_tasks_per_job=count("max_pending_tasks_per_job", 50),
            policy_hierarchy="" if hierarchy == "NONE" else hierarchy,
            halftime=count("halftime", 168),
            halflife_decay=_decay_list(get(sched, "halflife_decay_list", "none")),
            usage_weights=_weights(get(sched, "usage_weight_list", ""))
            or dict(base.usage_weights),
            compensation_factor=num("compensation_factor", base.compensation_factor),
            maxujobs=count("maxujobs", 0),
            max_reservation=count("max_reservation", 0),
            default_duration=(float("inf") if duration.upper() in ("", "INFINITY")
                              else parse_time(duration, "default_duration")),
            max_aj_instances=int(float(aj)) if aj else base.max_aj_instances,
            duration_offset=params.duration_offset, monitor=params.monitor,
            schedule_interval=_seconds(get(sched, "schedule_interval", ""),
                                       base.schedule_interval))

    def reserve_conf(self, now: float, *, ars: bool = False) -> ReserveConf | None:
        """The pass's planning configuration at ``now``: None (no planning, the pass as
        without reservation) unless ``max_reservation`` is on or advance reservations
        exist (``ars``), which are honoured whatever ``max_reservation`` says."""
        if self.max_reservation <= 0 and not ars:
            return None
        return ReserveConf(now=now, max_reservation=max(self.max_reservation, 0),
                           default_duration=self.default_duration,
                           duration_offset=self.duration_offset,
                           schedule_interval=self.schedule_interval)


def _seconds(text: str, default: float) -> float:
    try:
        return parse_time(text) if text.strip() else default
    except ConfError:
        return default


def _params(text: str) -> SchedParams:
    """The stored ``params`` (the qmaster checked it when it was written; one written by
    an older version that this one cannot read counts as unset)."""
    try:
        return parse_sched_params(text)
    except ConfError:
        return SchedParams()


def _weights(text: str) -> dict[str, float]:
    if not text.strip() or text.strip().upper() == "NONE":
        return {}
    return {name.strip().lower(): parse_double(value, "usage_weight_list")
            for name, value in split_assignments(text)}


def _decay_list(text: str) -> dict[str, float]:
    """``cpu=-1:mem=60`` (sched_conf(5): colon separated; minutes)."""
    if not text.strip() or text.strip().upper() == "NONE":
        return {}
    out: dict[str, float] = {}
    for item in text.replace(",", ":").split(":"):
        name, _, value = item.partition("=")
        if name.strip() and value.strip():
            out[name.strip().lower()] = float(value)
    return out
