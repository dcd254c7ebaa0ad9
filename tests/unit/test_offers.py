"""qstat -F lines: the dominating value of each attribute with its level and kind."""
from __future__ import annotations

from tests.unit.test_resources_sched import cluster, make_input
from common.placement.offers import instance_offers


def offers(conf: dict, names: set[str] | None = None, **kw: object) -> dict[str, list[str]]:
    inp = make_input(conf, [], **kw)  # type: ignore[arg-type]
    assert inp.resources is not None
    lines = instance_offers(inp.resources, inp.instances[0], inp.used, names)
    return {line[1]: [line[0], line[2]] for line in lines}


def test_load_fixed_and_queue_values() -> None:
    conf = cluster({"h1": 4})
    shown = offers(conf, load={"h1": {"arch": "lx-amd64", "mem_free": "2048M"}})
    assert shown["arch"] == ["hl", "lx-amd64"]
    assert shown["mem_free"] == ["hl", "2.000G"]
    assert shown["qname"] == ["qf", "all.q"]
    assert shown["slots"] == ["qc", "4"]


def test_consumable_shows_what_is_left_at_the_most_restrictive_level() -> None:
    conf = cluster({"h1": 4}, exechost={"h1": "lic=3"},
                   complexes=("lic lic INT <= YES YES 0 0",))
    assert offers(conf, {"lic"}) == {"lic": ["hc", "3"]}
    busy = [({"job_id": 7, "opts": {"hard_resources": {"lic": "1"}}}, [["all.q", "h1", 2]])]
    shown = offers(conf, {"lic", "slots"}, running=busy)
    assert shown == {"lic": ["hc", "1"], "slots": ["qc", "2"]}


def test_a_load_value_below_a_fixed_limit_dominates() -> None:
    conf = cluster({"h1": 1}, exechost={"h1": "mem_free=4G"})
    shown = offers(conf, {"mem_free"}, load={"h1": {"mem_free": "1024M"}})
    assert shown == {"mem_free": ["hl", "1.000G"]}


def ordered(conf: dict, **kw: object) -> list[str]:
    inp = make_input(conf, [], **kw)  # type: ignore[arg-type]
    assert inp.resources is not None
    return [f"{s}:{n}={v}" for s, n, v in
            instance_offers(inp.resources, inp.instances[0], inp.used)]


def test_grid_engine_order_global_host_then_queue() -> None:
    """Grid Engine 8.1.9 (captured): qstat -F lic,slots,hfix gives gc:lic=1, hc:slots=2,
    hf:hfix=7 with lic=1 on the global host and slots=2,hfix=7 on the exec host."""
    conf = cluster({"h1": 4}, exechost={"global": "lic=1", "h1": "slots=2,hfix=7"},
                   complexes=("lic lic INT <= YES JOB 0 0", "hfix hfix INT <= YES NO 0 0"))
    lines = ordered(conf, load={"h1": {"load_avg": "0.5", "arch": "lx-amd64"}})
    assert lines[:5] == ["gc:lic=1", "hl:load_avg=0.500000", "hl:arch=lx-amd64",
                         "hc:slots=2", "hf:hfix=7"]
    queue_part = [line.split("=")[0] for line in lines[5:]]
    assert queue_part[:4] == ["qf:qname", "qf:hostname", "qf:tmpdir", "qf:seq_no"]
    assert queue_part[-1] == "qf:min_cpu_interval"
    assert "qc:slots" not in queue_part  # the host's 2 slots bind before the queue's 4


def test_queue_slots_come_first_of_the_queue_values() -> None:
    lines = ordered(cluster({"h1": 4}))
    assert [line.split("=")[0] for line in lines[:3]] == ["qc:slots", "qf:qname",
                                                         "qf:hostname"]


def test_load_scaling_multiplies_the_reported_value() -> None:
    """host_conf(5) load_scaling; qstat(1): "L" marks a scaled load value."""
    conf = cluster({"h1": 4})
    conf["exechost"]["h1"] = [["hostname", "h1"], ["load_scaling", "np_load_avg=2.5"]]
    shown = offers(conf, {"np_load_avg", "load_avg"},
                   load={"h1": {"np_load_avg": "0.4", "load_avg": "0.8"}})
    assert shown == {"np_load_avg": ["hL", "1.000000"], "load_avg": ["hl", "0.800000"]}


def test_scaled_load_values_decide_matching() -> None:
    from common.placement.dispatch import dispatch_pass
    from tests.unit.test_resources_sched import job
    conf = cluster({"h1": 4, "h2": 4})
    conf["exechost"]["h1"] = [["hostname", "h1"], ["load_scaling", "mem_free=0.1"]]
    load = {h: {"mem_free": "1000M"} for h in ("h1", "h2")}
    orders = dispatch_pass(make_input(conf, [job(1, {"mem_free": "500M"})], load=load))
    assert orders[0]["granted"][0][1] == "h2"  # h1 offers 1000M * 0.1
