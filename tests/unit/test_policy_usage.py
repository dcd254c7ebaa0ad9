"""The pure share tree usage (common.policy.usage): booking deltas, decay as 8.1.9
computes it, weighting into a UsageTable."""
from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from common.policy.conf import PolicyConf
from common.policy.usage import (
    PROJECT, USER, Holder, UsageRecord, book, charge, decay_constant, decay_constants,
    decayed, holder_key, holder_of_key, records_from_wire, records_to_wire, task_delta,
    usage_table, weighted)

HOUR = 3600.0
amounts = st.floats(min_value=0.0, max_value=1e9, allow_nan=False)
usages = st.fixed_dictionaries({}, optional={"cpu": amounts, "mem": amounts, "io": amounts})
halftimes = st.integers(min_value=1, max_value=24 * 365)
spans = st.floats(min_value=0.0, max_value=1e7, allow_nan=False)


def conf(**changes) -> PolicyConf:
    return PolicyConf(**changes)


def test_decay_constant_follows_the_source_formula():
    # 8.1.9: rate ln2/(T·60) per second, constant 1 - 60·rate per 60 s interval
    assert decay_constant(60.0) == pytest.approx(1 - math.log(2) / 60)
    assert decay_constant(0.0) == 1.0     # 0: not decayed
    assert decay_constant(-1.0) == 0.0    # -1: nothing booked is kept
    assert decay_constant(0.1) == 0.0     # too short for the formula: clamped, not negative


def test_halflife_decay_list_overrides_halftime_per_name():
    constants = decay_constants(conf(halftime=1, halflife_decay={"mem": 0, "io": -1}))
    assert constants["cpu"] == pytest.approx(decay_constant(60.0))
    assert constants["mem"] == 1.0
    assert constants["io"] == 0.0


@given(halftime=halftimes, amount=st.floats(min_value=1.0, max_value=1e9))
def test_usage_about_halves_after_halftime(halftime, amount):
    constants = decay_constants(conf(halftime=halftime))
    record = UsageRecord({"cpu": amount}, {"cpu": amount}, stamp=1000.0)
    after = decayed(record, 1000.0 + halftime * HOUR, constants)
    # (1 - 60 ln2/T)^(T/60): within 0.5 % of a half for T of an hour or more
    assert after.usage["cpu"] == pytest.approx(amount / 2, rel=5e-3)
    assert after.long_term["cpu"] == amount  # never decayed


def test_halftime_zero_does_not_decay():
    record = UsageRecord({"cpu": 10.0}, {"cpu": 10.0}, stamp=1.0)
    assert decayed(record, 1e9, decay_constants(conf(halftime=0))).usage["cpu"] == 10.0


@given(halftime=halftimes, usage=usages, t1=spans, t2=spans)
def test_decay_composes(halftime, usage, t1, t2):
    constants = decay_constants(conf(halftime=halftime))
    record = UsageRecord(dict(usage), dict(usage), stamp=5000.0)
    stepwise = decayed(decayed(record, 5000.0 + t1, constants), 5000.0 + t1 + t2, constants)
    at_once = decayed(record, 5000.0 + t1 + t2, constants)
    for name in usage:
        assert stepwise.usage[name] == pytest.approx(at_once.usage[name], rel=1e-9, abs=1e-9)


@given(halftime=st.integers(min_value=0, max_value=1000), usage=usages, span=spans)
def test_decay_never_raises_nor_makes_negative(halftime, usage, span):
    record = UsageRecord(dict(usage), dict(usage), stamp=10.0)
    after = decayed(record, 10.0 + span, decay_constants(conf(halftime=halftime)))
    for name, amount in usage.items():
        assert 0.0 <= after.usage[name] <= amount


def test_decay_backwards_in_time_changes_nothing():
    record = UsageRecord({"cpu": 8.0}, {}, stamp=100.0)
    assert decayed(record, 50.0, decay_constants(conf(halftime=1))) == record


@given(reports=st.lists(usages, max_size=12))
def test_task_delta_never_counts_twice(reports):
    base: dict[str, float] = {}
    total = {name: 0.0 for name in ("cpu", "mem", "io")}
    for report in reports:
        delta, base = task_delta(base, report)
        assert all(value > 0.0 for value in delta.values())
        for name, value in delta.items():
            total[name] += value
    for name in total:  # what was booked is the highest cumulative figure reported
        highest = max([r.get(name, 0.0) for r in reports], default=0.0)
        assert total[name] == pytest.approx(highest, rel=1e-9, abs=1e-6)


def test_repeated_and_lower_reports_add_nothing():
    delta, base = task_delta({}, {"cpu": 10.0})
    assert delta == {"cpu": 10.0}
    assert task_delta(base, {"cpu": 10.0})[0] == {}
    delta, base = task_delta(base, {"cpu": 4.0})  # a restarted execd's smaller figure
    assert delta == {} and base["cpu"] == 10.0
    assert task_delta(base, {"cpu": 12.0})[0] == {"cpu": 2.0}


def test_project_jobs_book_to_user_in_project_and_project_only():
    records: dict = {}
    constants = decay_constants(conf(halftime=0))
    book(records, "alice", None, {"cpu": 5.0}, 100.0, constants)
    book(records, "alice", "p1", {"cpu": 7.0}, 100.0, constants)
    assert records[Holder(USER, "alice")].usage == {"cpu": 5.0}
    assert records[Holder(USER, "alice", "p1")].usage == {"cpu": 7.0}
    assert records[Holder(PROJECT, "p1")].usage == {"cpu": 7.0}
    table = usage_table(records, 100.0, conf(halftime=0))
    assert table.users == {"alice": 5.0}
    assert table.projects == {"p1": 7.0}
    assert table.user_projects == {("alice", "p1"): 7.0}


def test_book_decays_before_adding():
    constants = decay_constants(conf(halftime=1))
    record = UsageRecord({"cpu": 100.0}, {"cpu": 100.0}, stamp=0.5)
    charge(record, {"cpu": 10.0}, 0.5 + HOUR, constants)
    assert record.usage["cpu"] == pytest.approx(100.0 * constants["cpu"] ** 60 + 10.0)
    assert record.long_term["cpu"] == 110.0
    assert record.stamp == 0.5 + HOUR


def test_weights_are_divided_by_their_sum():
    # sge_calc_node_usage: value · weight / sum of weights
    assert weighted({"cpu": 10.0, "mem": 4.0, "io": 2.0},
                    {"cpu": 1.0, "mem": 1.0, "io": 0.0}) == pytest.approx(7.0)
    assert weighted({"cpu": 10.0}, {}) == 0.0


@given(a=usages, b=usages, k=st.floats(min_value=0.0, max_value=1e3),
       w=st.fixed_dictionaries({"cpu": st.floats(0.0, 10.0), "mem": st.floats(0.0, 10.0),
                                "io": st.floats(0.0, 10.0)}))
def test_weighting_is_linear(a, b, k, w):
    both = {name: a.get(name, 0.0) + k * b.get(name, 0.0) for name in set(a) | set(b)}
    assert weighted(both, w) == pytest.approx(weighted(a, w) + k * weighted(b, w),
                                              rel=1e-9, abs=1e-6)


def test_table_decays_to_now_without_changing_records():
    records = {Holder(USER, "bob"): UsageRecord({"cpu": 64.0}, {"cpu": 64.0}, stamp=10.0)}
    table = usage_table(records, 10.0 + 168 * HOUR, conf())
    assert table.users["bob"] == pytest.approx(32.0, rel=1e-3)
    assert records[Holder(USER, "bob")].usage["cpu"] == 64.0


@settings(max_examples=50)
@given(items=st.lists(st.tuples(st.sampled_from(["u1", "u2"]),
                                st.sampled_from([None, "p1"]), usages), max_size=8))
def test_wire_round_trip(items):
    records: dict = {}
    for owner, project, delta in items:
        book(records, owner, project, delta, 50.0, decay_constants(conf()))
    assert records_from_wire(records_to_wire(records)) == records


@given(name=st.text(max_size=20), project=st.text(max_size=20))
def test_holder_keys_round_trip(name, project):
    for holder in (Holder(USER, name, project), Holder(PROJECT, name)):
        assert holder_of_key(holder_key(holder)) == holder


def test_a_record_of_no_holder_kind_is_refused():
    with pytest.raises(ValueError):
        records_from_wire([{"kind": "queue", "name": "q", "usage": {}, "stamp": 1.0}])
    with pytest.raises(ValueError):
        records_from_wire([{"kind": PROJECT, "name": "p", "project": "x", "stamp": 1.0}])
