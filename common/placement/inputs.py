"""The one place that turns a cluster's state into the dispatch pass's input.

The scheduler's mirror and the qmaster (order checks, ``qsub -w``, ``qstat -j``, the ``-F``
displays) hand over the same things, each from its own bookkeeping: the configuration,
the exec hosts' runtime state, the jobs as ``PlacementJob``s, the task records that hold
slots, the pending tasks and the slots in use. Pure.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from common.cluster import QueueInstance, queue_instances
from common.placement.dispatch import PassInput, pe_usage
from common.placement.job import PlacementJob, placement_job
from common.placement.pass_conf import conf_fields
from common.placement.quotas import quota_context
from common.placement.resources import LevelKey, build_view, host_key

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
               used: Mapping[tuple[str, str], int] | None = None,
               instances: list[QueueInstance] | None = None,
               fixed: dict[LevelKey, dict[str, str]] | None = None,
               fields: dict[str, Any] | None = None) -> PassInput:
    """The pass's input. ``active``: task records that hold slots and consumables (with
    ``granted`` and ``granted_pe``); ``used``: slots in use per queue instance (none: an
    empty cluster). ``instances``, ``fixed`` and ``fields`` may be given when the caller
    keeps them between passes. The resource view is fresh: the pass debits into it."""
    instances = queue_instances(conf, hosts) if instances is None else instances
    fields = conf_fields(conf) if fields is None else fields
    holding = [t for t in active if t.get("granted") and t["job_id"] in jobs]
    view = build_view(conf, hosts, instances,
                      ((jobs[t["job_id"]].hard_resources, t["granted"]) for t in holding),
                      values=fixed)
    quotas = quota_context(conf, view.attrs, fields["host_groups"],
                           {name: view.load.get(host_key(name), {}) for name in hosts},
                           jobs, holding)
    return PassInput(
        jobs=jobs, pending=list(pending), instances=instances, used=dict(used or {}),
        # hosts are ranked by their load after load_scaling, as matching sees it
        load={name: _float(view.load.get(host_key(name), {}).get("np_load_avg"))
              for name in hosts},
        resources=view, **fields,
        pe_used=pe_usage(jobs, holding, fields["pes"], fields["pe_of_queue"]),
        quotas=quotas)


def _float(text: Any) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        return 0.0
