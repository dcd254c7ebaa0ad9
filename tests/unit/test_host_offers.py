"""qhost -F lines: the global pseudo host and each exec host, in Grid Engine's order."""
from __future__ import annotations

from common.placement.offers import host_offers
from tests.unit.test_resources_sched import cluster, make_input

CONF = cluster({"h1": 4}, exechost={"global": "lic=1", "h1": "slots=2,hfix=7"},
               complexes=("lic lic INT <= YES JOB 0 0", "hfix hfix INT <= YES NO 0 0"))
LOAD = {"h1": {"arch": "lx-amd64", "num_proc": "2", "mystery": "x"}}


def test_global_row_has_the_global_values_only() -> None:
    view = make_input(CONF, [], load=LOAD).resources
    assert view is not None
    assert host_offers(view, None) == [["gc", "lic", "1.0", "INT", "lic"]]


def test_host_row_global_then_load_then_fixed_and_consumable() -> None:
    busy = [({"job_id": 7, "opts": {"hard_resources": {"lic": "1"}}}, [["all.q", "h1", 1]])]
    view = make_input(CONF, [], load=LOAD, running=busy).resources
    assert view is not None
    assert host_offers(view, "h1") == [
        ["gc", "lic", "0.0", "INT", "lic"],  # taken by the running job, as in 8.1.9
        ["hl", "arch", "lx-amd64", "STRING", "a"],
        ["hl", "num_proc", "2.0", "INT", "p"],  # "mystery" is no complex: not shown
        ["hc", "slots", "1.0", "INT", "s"],
        ["hf", "hfix", "7.0", "INT", "hfix"]]
