"""Scheduling info for qstat -j: one Grid Engine reason line per queue instance, no repeats."""
from __future__ import annotations
from common.placement.job import placement_job

from tests.unit.test_resources_sched import cluster, make_input
from common.placement.explain import pending_reasons


def reasons(conf: dict, opts: dict, **kw: object) -> list[str]:
    inp = make_input(conf, [], **kw)  # type: ignore[arg-type]
    assert inp.resources is not None
    return pending_reasons(placement_job({"job_id": 1, "opts": opts, "owner": "u",
                                          "group": "g"}), inp)


def test_a_string_request_no_host_offers() -> None:
    conf = cluster({"h1": 2, "h2": 2})
    load = {"h1": {"arch": "lx-amd64"}, "h2": {"arch": "lx-amd64"}}
    lines = reasons(conf, {"hard_resources": {"arch": "sparc64"}}, load=load)
    assert lines == ['(-l arch=sparc64) cannot run at host "h1" because it offers only '
                     'hl:arch=lx-amd64',
                     '(-l arch=sparc64) cannot run at host "h2" because it offers only '
                     'hl:arch=lx-amd64']


def test_queue_list_pe_list_and_full_instances() -> None:
    conf = cluster({"h1": 1})
    assert reasons(conf, {"hard_queues": ["other.q"]}) == [
        'cannot run in queue instance "all.q@h1" because it is not contained in its hard '
        "queue list (-q)"]
    assert reasons(conf, {"pe": ["mpi", 2, 2]}) == [
        'cannot run in queue "all.q@h1" because PE "mpi" is not in pe list']
    busy = [({"job_id": 9, "opts": {}}, [["all.q", "h1", 1]])]
    assert reasons(conf, {}, running=busy) == [
        'queue instance "all.q@h1" dropped because it is full']


def test_a_job_that_fits_has_no_reason() -> None:
    assert reasons(cluster({"h1": 2}), {}) == []
