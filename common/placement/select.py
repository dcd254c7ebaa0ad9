"""Which queue instances and hosts offer a ``-l`` list, for the commands that select by
resources without a job (``qstat -l``, ``qselect -l``, ``qhost -l``): 8.1.9's
select_by_resource_list, which asks sge_select_queue of every queue instance.

Pure: the resource view (common.placement.resources.ResourceView, the one the dispatch
pass uses, with the slots and consumables in use) and the request list in, names out.
A request is matched level by level (global, host, queue instance) as a one-slot job's
hard request is (common.resource.matching.match_job); what could only run later (a
consumable in use) is not offered now. A host is matched on its global and host levels.
"""
from __future__ import annotations

from typing import Iterable, Sequence

from common.placement.resources import GLOBAL, ResourceView, host_key
from common.resource.complexes import ResourceRequest, parse_request_list
from common.resource.matching import match_job


def parse_selection(text: str, view: ResourceView) -> list[ResourceRequest]:
    """The ``-l`` list typed against the cell's complexes; ComplexError (8.1.9's words,
    ``unknown resource "x"``) when it names no attribute or a bad value."""
    return parse_request_list(text, view.attrs, allow_non_requestable=True)


def selected_instances(requests: Sequence[ResourceRequest], view: ResourceView,
                       instances: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """The (queue, host) pairs whose levels satisfy every request now."""
    return [(queue, host) for queue, host in instances
            if match_job(requests, view.attrs, view.levels(queue, host)).ok]


def selected_hosts(requests: Sequence[ResourceRequest], view: ResourceView,
                   hosts: Iterable[str]) -> list[str]:
    """The hosts whose global and host levels satisfy every request now."""
    return [host for host in hosts
            if match_job(requests, view.attrs, [view.level(GLOBAL), view.level(host_key(host))]).ok]
