"""The one place that turns a cluster's state into the dispatch pass's input.

The scheduler's mirror and the qmaster (order checks, ``qsub -w``, ``qstat -j``, the ``-F``
displays) hand over the same things, each from its own bookkeeping: the configuration,
the exec hosts' runtime state, the jobs as ``PlacementJob``s, the task records that hold
slots, the pending tasks and the slots in use. Pure.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from common.cluster import (
    QueueInstance, attr, host_alive, host_value, hostgroups, queue_instances,
)
from common.conf_values import seconds_or, split_assignments
from common.placement.caps import Caps
from common.placement.dispatch import PassInput, pe_usage
from common.placement.load_alarm import (
    HostLoads, InstanceThresholds, exceeded, formula_terms, formula_value, instance_thresholds,
    overload_reason,
)
from common.placement.job import PlacementJob, placement_job
from common.placement.pass_conf import conf_fields
from common.placement.quotas import quota_context
from common.placement.resources import GLOBAL, LevelKey, build_view, host_key
from common.placement.timeline import AdvanceReservation, ReserveConf, holds_of
from common.policy.conf import PolicyConf

Conf = Mapping[str, Mapping[str, Any]]


def placement_jobs(records: Iterable[Mapping[str, Any]]
                   ) -> tuple[dict[int, PlacementJob], dict[int, str]]:
    """The jobs placement can read, and those it cannot (job id -> why: they are skipped
    and reported, never allowed to stop a pass)."""
    jobs: dict[int, PlacementJob] = {}
    unreadable: dict[int, str] = {}
    for record in records:
        try:
            job = placement_job(record)
        except (TypeError, ValueError, IndexError, AttributeError) as exc:
            unreadable[_job_id(record)] = f"{type(exc).__name__}: {exc}"
            continue
        jobs[job.job_id] = job
    return jobs, unreadable


def _job_id(record: Any) -> int:
    job_id = record.get("job_id") if isinstance(record, Mapping) else None
    return job_id if type(job_id) is int else 0


def pass_input(conf: Conf, hosts: Mapping[str, Any], jobs: Mapping[int, PlacementJob],
               active: Sequence[Mapping[str, Any]], *,
               pending: Sequence[Mapping[str, Any]] = (),
               pending_ranges: Mapping[int, tuple[list[list[int]], int]] | None = None,
               exclude: frozenset[str] | set[str] = frozenset(),
               used: Mapping[tuple[str, str], int] | None = None,
               instances: list[QueueInstance] | None = None,
               fixed: dict[LevelKey, dict[str, str]] | None = None,
               fields: dict[str, Any] | None = None,
               now: float | None = None,
               thresholds: dict[tuple[str, str], InstanceThresholds] | None = None,
               enrolled: Sequence[Mapping[str, Any]] | None = None,
               ars: Sequence[AdvanceReservation] = ()
               ) -> PassInput:
    """The pass's input. ``active``: task records that hold slots and consumables (with
    ``granted`` and ``granted_pe``); ``used``: slots in use per queue instance (none: an
    empty cluster). ``instances``, ``fixed`` and ``fields`` may be given when the caller
    keeps them between passes. The resource view is fresh: the pass debits into it.
    ``now``: the time load adjustments decay by (None: no adjustments); ``thresholds``:
    :func:`queue_thresholds` when the caller keeps them. ``pending_ranges``: job id ->
    (pending ids of its task ranges, their version); ``exclude``: "job.task" keys of
    tasks not to place (orders in flight). ``enrolled``: every enrolled task that has
    not finished, for the jobs' instance counts (None: ``active`` and ``pending``).
    ``ars``: the advance reservations not yet ended. The pass plans over time
    (``PassInput.reserve``, ``holds``) when there is a ``now`` and either
    ``max_reservation`` is on or ``ars`` are given (:func:`reserve_of`)."""
    instances = queue_instances(conf, hosts) if instances is None else instances
    fields = conf_fields(conf) if fields is None else fields
    holding = [t for t in active if t.get("granted") and t["job_id"] in jobs]
    view = build_view(conf, hosts, instances,
                      ((jobs[t["job_id"]].hard_resources, t["granted"]) for t in holding),
                      values=fixed)
    quotas = quota_context(conf, view.attrs, fields["host_groups"],
                           {name: view.load.get(host_key(name), {}) for name in hosts},
                           jobs, holding)
    thresholds = queue_thresholds(conf, instances) if thresholds is None else thresholds
    policy = policy_conf(conf)
    reserve = reserve_of(policy, now, ars)
    loads = host_loads(conf, hosts, view, holding, now)
    overloaded = {}
    for key, found in thresholds.items():
        check = exceeded(loads.checks(key[1], found.load))
        if check is not None:
            overloaded[key] = overload_reason(f"{key[0]}@{key[1]}", check)
    return PassInput(
        jobs=jobs, pending=list(pending), pending_ranges=dict(pending_ranges or {}),
        exclude=exclude, instances=instances, used=dict(used or {}),
        thresholds=thresholds, host_loads=loads, overloaded=overloaded,
        # hosts are ranked by sched_conf(5) load_formula over their load values after
        # load_scaling (as matching sees them) and with the load adjustments
        load=host_ranking_load(conf, view, loads, hosts),
        sort_by_seqno=_sort_by_seqno(conf),
        resources=view, **fields,
        pe_used=pe_usage(jobs, holding, fields["pes"], fields["pe_of_queue"]),
        quotas=quotas,
        caps=pass_caps(conf, jobs, holding, [*active, *pending] if enrolled is None
                       else enrolled, policy=policy),
        reserve=reserve, ars=list(ars) if reserve is not None else [], now=now,
        holds=holds_of(holding, jobs, reserve) if reserve is not None else [])


def policy_conf(conf: Conf) -> PolicyConf:
    """The scheduler configuration (and the global configuration's job caps), typed."""
    return PolicyConf.from_pairs((conf.get("sconf") or {}).get("global") or [],
                                 (conf.get("conf") or {}).get("global") or [])


def reserve_of(policy: PolicyConf, now: float | None,
               ars: Sequence[AdvanceReservation] = ()) -> ReserveConf | None:
    """The pass's planning at ``now``: none without a clock (the qmaster's ``qsub -w``
    on an empty cluster), else as the configuration says (``PolicyConf.reserve_conf``)."""
    return None if now is None else policy.reserve_conf(now, ars=bool(ars))


def pass_caps(conf: Conf, jobs: Mapping[int, PlacementJob],
              active: Sequence[Mapping[str, Any]], enrolled: Iterable[Mapping[str, Any]],
              *, policy: PolicyConf | None = None) -> Caps:
    """maxujobs (scheduler configuration), max_aj_instances (global configuration) and
    the counts they are checked against (``common.placement.caps``)."""
    policy = policy_conf(conf) if policy is None else policy
    return Caps.count(policy.maxujobs, policy.max_aj_instances, jobs, active, enrolled)


def host_ranking_load(conf: Conf, view: Any, loads: HostLoads, hosts: Mapping[str, Any]
                      ) -> dict[str, float]:
    sconf = (conf.get("sconf") or {}).get("global") or []
    terms = formula_terms(attr(sconf, "load_formula", "np_load_avg"))
    return {name: formula_value(terms, view.attrs, view.load.get(host_key(name), {}),
                                loads.adjustments(name)) for name in hosts}


def _sort_by_seqno(conf: Conf) -> bool:
    sconf = (conf.get("sconf") or {}).get("global") or []
    return attr(sconf, "queue_sort_method", "load").strip().lower() == "seqno"


def queue_thresholds(conf: Conf, instances: Sequence[QueueInstance]
                     ) -> dict[tuple[str, str], InstanceThresholds]:
    """Each instance's load and suspend thresholds (``[host=...]`` resolved)."""
    groups = hostgroups(conf)
    out = {}
    for qi in instances:
        pairs = conf["queue"].get(qi.queue) or []
        out[(qi.queue, qi.host)] = instance_thresholds(
            qi.queue, qi.host, host_value(pairs, "load_thresholds", qi.host, groups, "NONE"),
            host_value(pairs, "suspend_thresholds", qi.host, groups, "NONE"))
    return out


def host_loads(conf: Conf, hosts: Mapping[str, Any], view: Any,
               holding: Sequence[Mapping[str, Any]], now: float | None) -> HostLoads:
    """The load values thresholds see: a host whose execd is down reports none; the
    scheduler's job_load_adjustments of the dispatches that have not decayed yet."""
    sconf = (conf.get("sconf") or {}).get("global") or []
    factors = split_assignments(attr(sconf, "job_load_adjustments", "np_load_avg=0.50"))
    decay = seconds_or(attr(sconf, "load_adjustment_decay_time", "0:7:30"), 450.0)
    recent: dict[str, list[tuple[float, int]]] = {}
    if now is not None and factors and decay > 0:
        for task in holding:
            when = task.get("dispatch_time")
            if when is None or now - float(when) >= decay:
                continue
            for _queue, host, slots in task["granted"]:
                recent.setdefault(str(host), []).append((float(when), int(slots)))
    loads = {name: (view.load.get(host_key(name), {}) if host_alive(h) else None)
             for name, h in hosts.items()}
    return HostLoads(view.attrs, loads, view.load.get(GLOBAL, {}),
                     scaled={name: view.scaled.get(host_key(name), frozenset())
                             for name in hosts},
                     factors=[(n, v) for n, v in factors if n.upper() != "NONE"],
                     decay_time=decay, now=now or 0.0, recent=recent)
