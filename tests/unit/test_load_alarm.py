"""Load and suspend thresholds, load adjustments and their words (common.placement.
load_alarm), against Grid Engine 8.1.9's captures in tests/data/reference/load/."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from common.placement.load_alarm import (
    Adjustment, HostLoads, check_thresholds, decay_factor, exceeded, host_adjustments,
    overload_reason, parse_thresholds, suspend_alarm_reason,
)
from common.resource.complexes import default_complexes, parse_complex_line

LOAD = Path(__file__).resolve().parents[1] / "data" / "reference" / "load"
SENSOR_COMPLEXES = [
    "scratch_free scf MEMORY <= YES NO 0 0",
    "sensor_int si INT <= YES NO 0 0",
    "global_val gval INT <= YES NO 0 0",
]


@pytest.fixture(scope="module")
def attrs():  # type: ignore[no-untyped-def]
    return list(default_complexes()) + [parse_complex_line(r) for r in SENSOR_COMPLEXES]


def captured(name: str) -> str:
    return (LOAD / f"{name}.out").read_text()


def test_a_memory_threshold_is_exceeded_at_or_below_it(attrs) -> None:  # type: ignore[no-untyped-def]
    [check] = check_thresholds(parse_thresholds("scratch_free=100M"), attrs,
                               {"scratch_free": "50M"}, {})
    assert check.exceeded and check.source == "hl"
    # the words of qstat -f -explain a and qstat -j, as 8.1.9 printed them
    assert f"\t{check.alarm_line('load')}\n" in captured("lt-alarm-qstat-f-explain-a")
    reason = overload_reason("all.q@vm", check)
    assert f"scheduling info:            {reason}" in captured("lt-alarm-qstat-j")
    [clear] = check_thresholds(parse_thresholds("scratch_free=100M"), attrs,
                               {"scratch_free": "2G"}, {})
    assert not clear.exceeded


def test_np_load_avg_alarms_at_the_threshold_itself(attrs) -> None:  # type: ignore[no-untyped-def]
    """8.1.9: load_avg 3.5 on 2 processors -> np_load_avg 1.75 >= 1.75 is an alarm."""
    [check] = check_thresholds([("np_load_avg", "1.75")], attrs, {"np_load_avg": "1.750000"},
                               {})
    assert check.exceeded
    [below] = check_thresholds([("np_load_avg", "1.75")], attrs,
                               {"np_load_avg": "1.749999"}, {})
    assert not below.exceeded


def test_every_threshold_is_listed_and_the_first_exceeded_named(attrs) -> None:  # type: ignore[no-untyped-def]
    checks = check_thresholds(parse_thresholds("scratch_free=100M,sensor_int=10,"
                                               "np_load_avg=1.75"), attrs,
                              {"scratch_free": "50M", "sensor_int": "3",
                               "np_load_avg": "0.092773"}, {})
    lines = [c.alarm_line("load") for c in checks]
    assert lines == ["alarm hl:scratch_free=50M load-threshold=100M",
                     "alarm hl:sensor_int=3 load-threshold=10",
                     "alarm hl:np_load_avg=0.092773 load-threshold=1.75"]
    text = captured("lt2-alarm-qstat-f-explain-a")
    for line in lines:
        assert f"\t{line}\n" in text
    assert exceeded(checks) is checks[0]


def test_global_values_and_missing_values(attrs) -> None:  # type: ignore[no-untyped-def]
    [check] = check_thresholds([("gval", "10")], attrs, {}, {"global_val": "5"})
    assert check.exceeded and check.source == "gl" and check.name == "global_val"
    # a host that reports nothing (its execd is down) is in alarm: 8.1.9's "au"
    [down] = check_thresholds([("np_load_avg", "1.75")], attrs, None, {})
    assert down.exceeded and down.value is None
    assert down.alarm_line("load") == "alarm np_load_avg=-NA- load-threshold=1.75"
    # so is a value that is no number
    [junk] = check_thresholds([("scratch_free", "100M")], attrs, {"scratch_free": "x"}, {})
    assert junk.exceeded


def test_suspend_alarm_words(attrs) -> None:  # type: ignore[no-untyped-def]
    [check] = check_thresholds([("scratch_free", "100M")], attrs, {"scratch_free": "50M"}, {})
    assert check.alarm_line("suspend") == "alarm hl:scratch_free=50M suspend-threshold=100M"
    assert f"\t{check.alarm_line('suspend')}\n" in captured("st-A-qstat-f-explain-A")
    assert suspend_alarm_reason("all.q@vm", check) in captured("st-T-qstat-j")


def test_load_adjustments_decay_linearly_and_np_values_are_per_processor(attrs) -> None:  # type: ignore[no-untyped-def]
    assert decay_factor(0, 450) == 1.0
    assert decay_factor(225, 450) == 0.5
    assert decay_factor(450, 450) == 0.0
    assert decay_factor(10, 0) == 0.0
    adjust = host_adjustments([("np_load_avg", "0.50"), ("load_avg", "1")], attrs,
                              [(100.0, 2), (325.0, 1)], now=325.0, decay_time=450.0, nproc=2)
    # 2 slots half decayed (1.0) and 1 slot fresh (1.0): 2.0 weighted slots
    assert adjust["np_load_avg"] == Adjustment(0.5, 0.5, 2.0, 2)
    assert adjust["load_avg"].total == 2.0


def test_a_pass_overloads_a_host_with_its_own_dispatches(attrs) -> None:  # type: ignore[no-untyped-def]
    loads = HostLoads(attrs, {"h": {"np_load_avg": "0.25", "num_proc": "1"}}, {},
                      factors=[("np_load_avg", "0.50")], decay_time=450.0, now=1000.0)
    thresholds = [("np_load_avg", "1.75")]
    assert exceeded(loads.checks("h", thresholds)) is None
    trial = loads.copy()
    for _ in range(3):
        trial.dispatched("h", 1)
    check = exceeded(trial.checks("h", thresholds))
    assert check is not None and check.value == pytest.approx(1.75)
    assert check.reason_text() == ("np_load_avg=1.750000 (= 0.250000 + 0.500000 * 3.000000 "
                                   "with nproc=1) >= 1.75")
    assert exceeded(loads.checks("h", thresholds)) is None  # the copy kept them apart


@given(st.floats(min_value=0, max_value=1e12, allow_nan=False),
       st.floats(min_value=0, max_value=1e12, allow_nan=False))
def test_a_less_or_equal_threshold_is_exceeded_exactly_at_or_below(value: float,
                                                                  limit: float) -> None:
    attrs = [parse_complex_line(r) for r in SENSOR_COMPLEXES]
    [check] = check_thresholds([("scratch_free", repr(limit))], attrs,
                               {"scratch_free": repr(value)}, {})
    assert check.exceeded == (value <= limit)


def test_load_formula_weighs_load_values(attrs) -> None:  # type: ignore[no-untyped-def]
    from common.placement.load_alarm import formula_terms, formula_value
    terms = formula_terms("np_load_avg*2+sensor_int-0.5")
    assert terms == [(1.0, "np_load_avg", 2.0), (1.0, "sensor_int", 1.0), (-1.0, None, 0.5)]
    load = {"np_load_avg": "0.25", "sensor_int": "3"}
    assert formula_value(terms, attrs, load, {}) == pytest.approx(3.0)
    adjusted = {"np_load_avg": Adjustment(0.5, 0.5, 1.0, 1)}
    assert formula_value(terms, attrs, load, adjusted) == pytest.approx(4.0)
    assert formula_value(formula_terms("np_load_avg"), attrs, {}, {}) == 0.0


def test_queue_sort_method_orders_by_load_or_by_sequence_number() -> None:
    from common.cluster import QueueInstance
    from common.placement.dispatch import PassInput, dispatch_pass
    from common.placement.job import placement_job
    job = placement_job({"job_id": 1, "owner": "u", "group": "g", "opts": {}})
    busy = QueueInstance("a.q", "busy", 1, 0, "BATCH", True)
    idle = QueueInstance("b.q", "idle", 1, 1, "BATCH", True)
    inp = PassInput(jobs={1: job}, pending=[{"job_id": 1, "task_id": 1, "version": 1}],
                    instances=[busy, idle], used={}, load={"busy": 1.5, "idle": 0.1})
    assert dispatch_pass(inp)[0]["granted"] == [["b.q", "idle", 1]]  # load first
    inp.sort_by_seqno = True
    assert dispatch_pass(inp)[0]["granted"] == [["a.q", "busy", 1]]  # seq_no first
