"""Hierarchical matching of hard requests against global, host and queue levels."""
from __future__ import annotations


from hypothesis import given
from hypothesis import strategies as st

from common.resource import complexes as c
from common.resource import matching as m
from common.resource.complexes import ComplexAttr, Consumable, Requestable
from common.resource.matching import Level, Verdict
from common.resource.values import Relop, ValueType

from tests.reference import REFERENCE

LIC = ComplexAttr("lic", "lic", ValueType.INT, Relop.LE, Requestable.YES, Consumable.YES,
                  "0", "0")
JLIC = ComplexAttr("jlic", "jl", ValueType.INT, Relop.LE, Requestable.YES, Consumable.JOB,
                   "0", "0")
EXCL = ComplexAttr("excl", "ex", ValueType.BOOL, Relop.EXCL, Requestable.YES,
                   Consumable.YES, "0", "1000")
T01 = ComplexAttr("t01", "t01", ValueType.INT, Relop.LE, Requestable.YES, Consumable.NO,
                  "0", "0")
ATTRS = c.default_complexes() + [LIC, JLIC, EXCL, T01]

GLOBAL = Level("global", "global")
HOST_LOAD = {"arch": "lx-amd64", "mem_free": "23.330G", "num_proc": "2", "cpu": "36.2",
             "load_avg": "2.016602"}
HOST = Level("host", "vm", load=HOST_LOAD)
QUEUE = Level("queue", "all.q@vm", values={"qname": "all.q", "hostname": "vm",
                                           "slots": "4", "h_rt": "1:0:0"})


def reqs(text: str, allow_non_requestable: bool = False) -> list[c.ResourceRequest]:
    return c.parse_request_list(text, ATTRS, allow_non_requestable=allow_non_requestable)


def run(text: str, *levels: Level, slots: int = 1, master: bool = True) -> m.MatchResult:
    chosen = levels or (GLOBAL, HOST, QUEUE)
    return m.match_job(reqs(text), ATTRS, chosen, slots=slots, master=master)


# --------------------------------------------------------------------------- reference

def test_unsatisfiable_arch_matches_qsub_w_v() -> None:
    expected = (REFERENCE / "qsub-err-w-v-unsatisfiable.err").read_text().splitlines()[0]
    result = run("arch=sparc64")
    assert result.verdict is Verdict.NEVER and result.level == "vm"
    assert expected == f"Unable to run job: Job 85 {result.reason}"


def test_unsatisfiable_arch_matches_qstat_j_scheduling_info() -> None:
    lines = (REFERENCE / "qstat-j-pending.out").read_text().splitlines()
    assert lines[-1].strip() == run("arch=sparc64").reason


def test_memory_shortfall_is_shown_like_qhost() -> None:
    assert run("mem_free=100T").reason == (
        '(-l mem_free=100T) cannot run at host "vm" because it offers only '
        "hl:mem_free=23.330G")
    assert run("mf=1G").ok


def test_everything_fits() -> None:
    assert run("arch=lx-*,mem_free=1G,h_rt=0:30:0,q=all.q,hostname=VM").ok
    assert run("").ok


# --------------------------------------------------------------------------- overriding

def test_load_and_fixed_value_keep_the_more_restrictive() -> None:
    # complex-attributes-spec-2003 section 3: custom / load report / result
    one_g = Level("host", "vm", values={"mem_free": "1G"}, load={"mem_free": "4G"})
    offer = m.offer_at(c.resolve_name(ATTRS, "mem_free"), one_g)  # type: ignore[arg-type]
    assert offer is not None and offer.per_job == 1024 ** 3 and offer.per_job_source == "hf"
    low_load = Level("host", "vm", values={"mem_free": "1G"}, load={"mem_free": "0.9G"})
    offer = m.offer_at(c.resolve_name(ATTRS, "mem_free"), low_load)  # type: ignore[arg-type]
    assert offer is not None and offer.per_job == 0.9 * 1024 ** 3
    assert offer.per_job_source == "hl"
    assert run("mf=2G", GLOBAL, one_g).reason.endswith("it offers only hf:mem_free=1.000G")


def test_fixed_value_wins_over_load_for_equality() -> None:
    host = Level("host", "vm", values={"arch": "lx-custom"}, load={"arch": "lx-amd64"})
    offer = m.offer_at(c.resolve_name(ATTRS, "arch"), host)  # type: ignore[arg-type]
    assert offer is not None and offer.per_slot == "lx-custom" and offer.per_slot_source == "hf"
    assert run("arch=lx-custom", GLOBAL, host).ok
    assert not run("arch=lx-amd64", GLOBAL, host).ok


def test_equality_cannot_be_overridden_on_a_lower_level() -> None:
    queue = Level("queue", "all.q@vm", values={"arch": "sol-amd64", "slots": "4"})
    result = run("arch=sol-amd64", GLOBAL, HOST, queue)
    assert result.level == "vm"  # the host's load value still decides


def test_strict_hierarchy_stops_at_first_denial() -> None:
    glob = Level("global", "global", values={"lic": "1"}, usage={"lic": 1})
    result = run("lic=1,arch=sparc64", glob, HOST, QUEUE)
    assert result.reason == ("(-l arch=sparc64,lic=1) cannot run globally because it "
                             "offers only gc:lic=0.000000")


def test_queue_limits_and_time_display() -> None:
    assert run("h_rt=2:0:0").reason == (
        '(-l h_rt=7200) cannot run in queue "all.q@vm" because it offers only '
        "qf:h_rt=01:00:00")
    assert run("h_rt=3600").ok


def test_greater_equal_relop_request_on_left() -> None:
    assert run("cpu=50").ok  # 50 >= 36.2
    assert run("cpu=10").reason.endswith("it offers only hl:cpu=36.200000")


def test_unparsable_load_is_ignored() -> None:
    host = Level("host", "vm", load={"mem_free": "garbage"})
    assert m.offer_at(c.resolve_name(ATTRS, "mem_free"), host) is None  # type: ignore[arg-type]


# --------------------------------------------------------------------------- slots, consumables

def test_fixed_values_are_per_slot() -> None:
    # complex-attributes-spec-2003 example E1: t01=10 with 4 slots on t01 <= 20
    queue = Level("queue", "q1@vm", values={"slots": "5", "t01": "20"})
    assert run("t01=10", GLOBAL, HOST, queue, slots=4).ok


def test_consumables_are_per_slot() -> None:
    host = Level("host", "vm", values={"lic": "40"})
    assert run("lic=20", GLOBAL, host, QUEUE, slots=2).ok
    assert run("lic=20", GLOBAL, host, QUEUE, slots=4).reason == (
        '(-l lic=20) cannot run at host "vm" because it offers only hc:lic=40.000000')


def test_job_consumables_count_once_and_only_for_the_master() -> None:
    host = Level("host", "vm", values={"jlic": "40"})
    assert run("jlic=20", GLOBAL, host, QUEUE, slots=4).ok
    assert not run("jlic=50", GLOBAL, host, QUEUE, slots=4).ok
    assert run("jlic=50", GLOBAL, host, QUEUE, slots=4, master=False).ok


def test_consumable_usage_is_subtracted() -> None:
    queue = Level("queue", "all.q@vm", values={"slots": "4", "lic": "2"}, usage={"lic": 2})
    assert run("lic=1", GLOBAL, HOST, queue).reason == (
        '(-l lic=1) cannot run in queue "all.q@vm" because it offers only qc:lic=0.000000')


def test_implicit_slot_request() -> None:
    full = Level("queue", "all.q@vm", values={"slots": "4"}, usage={"slots": 4})
    assert run("", GLOBAL, HOST, full).reason == (
        '(-l NONE) cannot run in queue "all.q@vm" because it offers only qc:slots=0.000000')
    assert run("", GLOBAL, HOST, QUEUE, slots=4).ok
    assert not run("", GLOBAL, HOST, QUEUE, slots=5).ok


def test_default_requests_of_unrequested_consumables() -> None:
    with_default = [a if a.name != "lic" else c.ComplexAttr(
        "lic", "lic", ValueType.INT, Relop.LE, Requestable.YES, Consumable.YES, "1", "0")
        for a in ATTRS]
    host = Level("host", "vm", values={"lic": "1"}, usage={"lic": 1})
    result = m.match_job([], with_default, [GLOBAL, host, QUEUE])
    assert result.reason == ('(-l NONE) cannot run at host "vm" because for default '
                             "request it offers only hc:lic=0.000000")
    assert m.match_job([], ATTRS, [GLOBAL, host, QUEUE]).ok  # default 0: not checked
    free = Level("host", "vm", values={"lic": "1"})
    assert m.match_job([], with_default, [GLOBAL, free, QUEUE]).ok


def test_exclusive_complex() -> None:
    host = Level("host", "vm", values={"excl": "true"})
    assert run("excl=true", GLOBAL, host, QUEUE).ok
    shared = Level("host", "vm", values={"excl": "true"}, shared_usage={"excl": 1})
    result = run("excl=true", GLOBAL, shared, QUEUE)
    assert result.verdict is Verdict.LATER
    assert result.reason.endswith("because exclusive resource (excl) is already in use")
    assert run("", GLOBAL, shared, QUEUE).ok  # non-exclusive jobs share
    held = Level("host", "vm", values={"excl": "true"}, usage={"excl": 1})
    result = run("", GLOBAL, held, QUEUE)
    assert result.verdict is Verdict.LATER
    assert result.reason.endswith(
        "for default request exclusive resource (excl) is already in use")
    assert run("excl=true", GLOBAL, held, QUEUE).reason.endswith(
        "it offers only hc:excl=false")


# --------------------------------------------------------------------------- request rules

def test_forced_attributes_must_be_requested() -> None:
    forced = [a if a.name != "lic" else c.ComplexAttr(
        "lic", "lic", ValueType.INT, Relop.LE, Requestable.FORCED, Consumable.YES, "0", "0")
        for a in ATTRS]
    host = Level("host", "vm", values={"lic": "4"})
    queue = Level("queue", "all.q@vm", values={"slots": "4", "lic": "4"})
    glob = Level("global", "global", values={"lic": "4"})
    assert m.match_job([], forced, [GLOBAL, host, QUEUE]).reason == (
        "does not request 'forced' resource \"lic\" of host vm")
    assert m.match_job([], forced, [GLOBAL, HOST, queue]).reason == (
        "does not request 'forced' resource \"lic\" of queue instance all.q@vm")
    assert m.match_job([], forced, [glob, HOST, QUEUE]).reason == (
        "does not request globally 'forced' resource \"lic\"")
    lic = c.parse_request_list("lic=1", forced)
    assert m.match_job(lic, forced, [glob, host, queue]).ok


def test_non_requestable_attribute() -> None:
    result = m.match_job(reqs("load_avg=5", allow_non_requestable=True), ATTRS,
                         [GLOBAL, HOST, QUEUE])
    assert result.reason == ('(-l load_avg=5) cannot run at host "vm" because job '
                             'requests non requestable resource load_avg"')


def test_unknown_everywhere_is_refused_at_the_queue() -> None:
    assert run("lic=1").reason == ('(-l lic=1) cannot run in queue "all.q@vm" because '
                                   "job requests unknown resource (lic)")
    glob = Level("global", "global", values={"lic": "4"})
    assert run("lic=1", glob, HOST, QUEUE).ok


def test_match_one_missing() -> None:
    assert m.match_one(LIC, 1.0, HOST) == (Verdict.MISSING, "")


# --------------------------------------------------------------------------- hypothesis

@given(st.integers(0, 50), st.integers(0, 50), st.integers(0, 20), st.integers(1, 8))
def test_consumable_arithmetic(capacity: int, used: int, request: int, slots: int) -> None:
    queue = Level("queue", "q@vm", values={"slots": "100", "lic": str(capacity)},
                  usage={"lic": used})
    result = run(f"lic={request}", GLOBAL, HOST, queue, slots=slots)
    assert result.ok is (request * slots <= capacity - used)


@given(st.integers(0, 50), st.integers(0, 50), st.integers(0, 50))
def test_adding_a_level_never_helps(host_cap: int, queue_cap: int, request: int) -> None:
    host = Level("host", "vm", values={"lic": str(host_cap)})
    queue = Level("queue", "q@vm", values={"slots": "1", "lic": str(queue_cap)})
    both = run(f"lic={request}", GLOBAL, host, queue).ok
    assert both is (request <= min(host_cap, queue_cap))
    if not run(f"lic={request}", GLOBAL, host).ok:
        assert not both
