"""One table of the resource limits (common.limits) and one parser per value type (issue 26,
item 4): what a job's ``-l`` limit, a queue's limit and the start spec's limit mean is
the same, whatever form the value was written in.

The attack this guards against: ``qsub -l h_vmem=1e9`` and ``-l h_vmem=0x40000000`` were
accepted and stored (the resource model reads them), but the start spec read them with a
second, narrower parser that refused them, and a refusal there meant "no limit".
"""
from __future__ import annotations

import math
import resource

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from common import limits
from common.conffile import ConfError
from common.objects_conf import KINDS, check_value, template
from common.placement.offers import _QUEUE_ORDER
from common.placement.resources import QUEUE_RESOURCES
from common.resource.complexes import (BUILTIN_TYPES, ComplexError, default_complexes,
                                       requests_as_stored)
from common.resource.values import BadValueError, ValueType
from common.start_record import message_schema
from execd import cgroups, rlimits
from execd.control import MEASURED
from qmaster.start_spec import job_limits

ATTRS = default_complexes()

# queue_conf(5) RESOURCE LIMITS, in its order, with their types; per slot as sge_execd
# multiplies them for a parallel job (compatibility.md: cpu, data, rss, vmem)
QUEUE_CONF_5 = [("s_rt", "TIME"), ("h_rt", "TIME"), ("s_cpu", "TIME"), ("h_cpu", "TIME"),
                ("s_fsize", "MEMORY"), ("h_fsize", "MEMORY"), ("s_data", "MEMORY"),
                ("h_data", "MEMORY"), ("s_stack", "MEMORY"), ("h_stack", "MEMORY"),
                ("s_core", "MEMORY"), ("h_core", "MEMORY"), ("s_rss", "MEMORY"),
                ("h_rss", "MEMORY"), ("s_vmem", "MEMORY"), ("h_vmem", "MEMORY")]
PER_SLOT = {"s_cpu", "h_cpu", "s_data", "h_data", "s_rss", "h_rss", "s_vmem", "h_vmem"}


# ---- the table, and every place that names a limit takes it from there --------------

def test_the_table_is_queue_conf_5s() -> None:
    assert [(lim.name, lim.type) for lim in limits.LIMITS] == QUEUE_CONF_5
    assert limits.PER_SLOT_LIMITS == PER_SLOT
    assert limits.TIME_LIMITS == ("s_rt", "h_rt", "s_cpu", "h_cpu")
    assert list(limits.pairs())[0] == ("rt", "s_rt", "h_rt")


def test_every_reader_of_limit_names_uses_the_table() -> None:
    queue_attrs = [a.name for a in KINDS["queue"].attrs]
    assert [n for n in queue_attrs if n in limits.LIMIT_NAMES] == list(limits.NAMES)
    assert dict(template("queue"))["h_vmem"] == "INFINITY"
    assert set(limits.NAMES) <= set(QUEUE_RESOURCES)
    assert [n for n in _QUEUE_ORDER if n in limits.LIMIT_NAMES] == list(limits.NAMES)
    assert message_schema().optional["limits"][0].key.choices == limits.LIMIT_NAMES
    assert set(rlimits.RESOURCES) == set(limits.RESOURCES + limits.HOST_RESOURCES) - {"rt"}
    assert rlimits.RESOURCES["vmem"] == resource.RLIMIT_AS
    assert set(MEASURED) <= set(limits.RESOURCES)
    # the complex list's built-in attributes (whose types cannot be changed) agree
    assert {n: BUILTIN_TYPES[n].value for n in limits.NAMES} == dict(QUEUE_CONF_5)


def test_the_cgroup_memory_bound_is_the_hard_vmem_and_rss() -> None:
    assert cgroups.memory_limit({"h_vmem": 3e9, "h_rss": 2e9, "s_vmem": 1.0}) == 2 * 10**9
    assert cgroups.memory_limit({"h_vmem": 1e25}) is None  # beyond any host: no limit


# ---- one parser: what submission stores, the start spec reads alike ----------------

def submitted(name: str, text: str) -> str:
    """The text the qmaster stores for ``-l name=text`` (ComplexError if refused)."""
    return requests_as_stored({name: text}, ATTRS)[name]


def start_spec_limit(name: str, stored: str) -> float:
    """What the start spec holds the job to for a stored request (inf: no limit)."""
    return job_limits({}, {name: stored}, 1).get(name, math.inf)


@pytest.mark.parametrize("name,text,enforced", [
    ("h_vmem", "1e9", 1e9),
    ("h_vmem", "0x40000000", 1073741824.0),
    ("h_vmem", "1G", 1024.0 ** 3), ("h_vmem", "1g", 1e9),
    ("h_vmem", "1.5K", 1536.0), ("h_vmem", "010", 8.0),  # C octal, as 8.1.9 reads it
    ("s_vmem", "2E3k", 2e6), ("h_fsize", "0X10M", 16 * 1024.0 ** 2),
    ("h_rt", "1:00:00", 3600.0), ("h_rt", "0x10", 16.0), ("h_rt", "1.5", 2.0),
    ("h_cpu", "::90", 90.0), ("s_rt", "1e2", 100.0),
    # Grid Engine accepts a negative limit; the only reading that lets nothing slip is 0
    ("h_vmem", "-1", 0.0), ("h_rt", "-1", 0.0),
    ("h_vmem", "INFINITY", math.inf), ("h_rt", "infinity", math.inf),
    ("h_vmem", "1e400", math.inf), ("h_vmem", "1e25", math.inf),  # beyond any host
])
def test_accepted_values_are_the_limits_they_say(name: str, text: str,
                                                 enforced: float) -> None:
    assert start_spec_limit(name, submitted(name, text)) == enforced


@pytest.mark.parametrize("name,text,message", [
    ("h_vmem", "12abc", 'attribute "h_vmem" is not a memory value'),
    ("h_vmem", "1GB", 'attribute "h_vmem" is not a memory value'),
    ("h_vmem", "lots", 'attribute "h_vmem" is not a memory value'),
    ("h_rt", "1:xx", 'attribute "h_rt" is not a time value'),
    ("s_rt", "1:30", 'attribute "s_rt" is not a time value'),
])
def test_a_value_no_parser_reads_is_refused_at_submission(name: str, text: str,
                                                          message: str) -> None:
    with pytest.raises(ComplexError) as refused:
        submitted(name, text)
    assert str(refused.value) == message  # 8.1.9's words (tests/data/reference/submit)
    with pytest.raises(BadValueError) as unread:
        limits.parse(name, text)
    assert str(unread.value) == message


def test_a_stored_value_that_no_longer_reads_holds_the_job_to_nothing() -> None:
    # (a damaged spool: never "no limit")
    assert job_limits({"h_vmem": "lots"}, {}, 1) == {"h_vmem": 0.0}
    assert job_limits({}, {"h_rt": "soon"}, 2) == {"h_rt": 0.0}


_DIGITS = st.integers(0, 10**12).map(str)
_FORMS = st.one_of(
    _DIGITS, st.integers(-10**6, -1).map(str),
    st.integers(0, 2**40).map(hex), st.integers(0, 2**30).map(lambda n: f"0{n:o}"),
    st.floats(0, 1e13, allow_nan=False, allow_infinity=False).map(repr),
    st.builds("{}e{}".format, st.integers(0, 999), st.integers(-3, 25)),
    st.builds("{}:{}:{}".format, st.sampled_from(["", "0", "1", "12"]),
              st.sampled_from(["", "0", "30", "90"]), st.sampled_from(["", "5", "1.5"])),
    st.sampled_from(["INFINITY", "infinity", "TRUE", "false"]),
)
VALUES = st.one_of(
    st.builds(str.__add__, _FORMS, st.sampled_from(["", "k", "K", "m", "M", "g", "G",
                                                    "t", "T"])),
    st.text(alphabet="0123456789xXeE.+-:kKmGbB", max_size=10),  # mostly malformed
)
NAMES = st.sampled_from(limits.NAMES)


@given(NAMES, VALUES)
@example("h_vmem", "1e9")
@example("h_vmem", "0x40000000")
@example("h_vmem", "1G")
@example("h_rt", "1:00:00")
@example("h_vmem", "-1")
def test_submission_and_the_start_spec_read_every_value_alike(name: str, text: str) -> None:
    try:
        number = limits.parse(name, text)
    except BadValueError:
        with pytest.raises(ComplexError):
            submitted(name, text)
        return
    stored = submitted(name, text)  # accepted at submission exactly when parsed here
    if limits.BY_NAME[name].type == limits.TIME and math.isfinite(number):
        number = float(f"{number:.0f}")  # 8.1.9 stores time requests in whole seconds
    assert start_spec_limit(name, stored) == limits.bound(number)


@given(NAMES, VALUES)
@example("h_vmem", "1e9")
@example("h_vmem", "0x40000000")
@example("h_vmem", "-1")
def test_qconf_and_the_start_spec_read_a_queue_limit_alike(name: str, text: str) -> None:
    try:
        number = limits.parse(name, text)
    except BadValueError:
        number = -1.0
    if not number >= 0:  # unread, or negative: refused when the queue is written
        kind = "time" if limits.BY_NAME[name].type == limits.TIME else "memory"
        with pytest.raises(ConfError) as refused:
            check_value("queue", name, text)
        assert refused.value.message == (
            f'value for attribute {name} "{text}" is not {kind}' if text else
            "No value specified")
        return
    stored = check_value("queue", name, text)
    assert job_limits({name: stored}, {}, 1).get(name, math.inf) == limits.bound(number)


@given(NAMES, st.floats(-1e30, 1e30, allow_nan=False), st.integers(1, 64))
def test_a_start_spec_limit_always_fits_the_wire_and_setrlimit(name: str, value: float,
                                                              slots: int) -> None:
    found = job_limits({}, {name: repr(value)}, slots)
    schema = message_schema().optional["limits"][0]
    assert schema.check(found, "limits") == found
    for soft, hard in rlimits.plan(found, {r: (rlimits.INFINITY,) * 2
                                           for r in rlimits.RESOURCES.values()},
                                   privileged=True).values():
        assert hard == rlimits.INFINITY or 0 <= soft <= hard < 2 ** 63
        assert soft == rlimits.INFINITY or 0 <= soft < 2 ** 63


def test_the_types_match_the_resource_model() -> None:
    assert {lim.type for lim in limits.LIMITS} == {ValueType.TIME.value,
                                                  ValueType.MEMORY.value}


def test_the_host_limits_are_execd_params_keys_of_the_same_table() -> None:
    from common import conf_params
    assert {limit.name.upper() for limit in limits.HOST_LIMITS} == {
        key.name for key in conf_params.EXECD_KEYS if key.type == "memory"}
    assert not limits.HOST_LIMIT_NAMES & limits.LIMIT_NAMES
    assert rlimits.RESOURCES["descriptors"] == resource.RLIMIT_NOFILE
    assert limits.host_limits({"s_locks": 5.0, "h_maxproc": 7.0}) == {
        "s_locks": 5.0, "h_locks": 5.0, "h_maxproc": 7.0, "s_maxproc": 7.0}
