"""Tests of the configuration object kinds (common.objects_conf and its modules) and of
the typed value reading (common.conf_values)."""
from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from common import conf_values as cv
from common.conffile import ConfError
from common.objects_conf import (KINDS, ambiguous_groups, check_value, expand_hostgroup,
                                 format_host_overrides, hostgroup_cycle, normalize_object,
                                 parse_host_overrides, parse_name_list, parse_object,
                                 queue_value, render_configuration, render_name_list,
                                 render_object, resolve, template)

from tests.reference import REFERENCE


def ref(name: str) -> str:
    return (REFERENCE / name).read_text()


def error_of(call, *args, **kwargs) -> str:
    with pytest.raises(ConfError) as err:
        call(*args, **kwargs)
    return err.value.message


# --- references -------------------------------------------------------------------

@pytest.mark.parametrize("kind,name", [
    ("queue", "qconf-sq-all.q.txt"), ("queue", "qconf-sq.template.txt"),
    ("exechost", "qconf-se-host.txt"), ("hostgroup", "qconf-shgrp-allhosts.txt"),
    ("pe", "qconf-sp-smp.txt"), ("pe", "qconf-sp-mpi.txt"), ("pe", "qconf-sp-make.txt"),
    ("sched", "qconf-ssconf.default.txt"),
])
def test_reference_parses_checks_and_renders_back(kind: str, name: str) -> None:
    text = ref(name)
    assert render_object(kind, parse_object(kind, text)) == text


def test_global_configuration_reference() -> None:
    text = ref("qconf-sconf.global.default.txt")
    assert render_configuration("global", parse_object("conf", text)) == text
    assert render_configuration("global", template("conf")) == text


@pytest.mark.parametrize("kind,name", [
    ("queue", "qconf-sq.template.txt"), ("sched", "qconf-ssconf.default.txt"),
])
def test_templates_equal_references(kind: str, name: str) -> None:
    assert render_object(kind, template(kind)) == ref(name)


def test_templates_of_other_kinds() -> None:
    assert template("hostgroup", "@new") == [("group_name", "@new"), ("hostlist", "NONE")]
    host = dict(template("exechost", "node1"))
    assert host["hostname"] == "node1" and "load_values" not in host and "processors" not in host
    pe = dict(template("pe", "mpi"))
    assert (pe["pe_name"], pe["slots"], pe["allocation_rule"], pe["urgency_slots"]) == (
        "mpi", "0", "$pe_slots", "min")
    assert dict(template("queue", "big.q"))["qname"] == "big.q"


def test_every_template_passes_its_own_checks() -> None:
    for kind in KINDS:
        pairs = template(kind)
        assert normalize_object(kind, pairs) == pairs


def test_queue_with_host_values_renders_like_reference() -> None:
    pairs = dict(parse_object("queue", ref("qconf-sq-all.q.txt")))
    assert pairs["slots"] == "1,[vm=4]" and pairs["hostlist"] == "@allhosts"


def test_manager_list() -> None:
    assert parse_name_list(ref("qconf-sm.txt")) == ["root", "sgeadmin"]
    assert render_name_list(["root", "sgeadmin"]) == ref("qconf-sm.txt")
    assert parse_name_list("# managers\nroot, alice bob\nroot\n") == ["root", "alice", "bob"]


# --- parsing whole files ----------------------------------------------------------

def test_queue_file_errors() -> None:
    text = ref("qconf-sq.template.txt")
    assert error_of(parse_object, "queue", text + "foo bar\n") == 'unknown attribute name "foo"'
    missing = "".join(line + "\n" for line in text.splitlines() if not line.startswith("h_vmem"))
    assert error_of(parse_object, "queue", missing) == 'required attribute "h_vmem" is missing'
    assert parse_object("queue", missing, require_all=False)[-1] == ("s_vmem", "INFINITY")
    assert error_of(parse_object, "queue", text + "slots 3\n") == 'attribute "slots" appears more than once'


def test_exechost_file_may_omit_read_only_values() -> None:
    text = "".join(line + "\n" for line in render_object("exechost", template("exechost", "n1"))
                   .splitlines())
    assert dict(parse_object("exechost", text))["hostname"] == "n1"


def test_host_configuration_may_be_partial_and_keeps_text() -> None:
    pairs = parse_object("conf", "mailer   /usr/bin/mailx  -s\nenforce_user TRUE\n")
    assert pairs == [("mailer", "/usr/bin/mailx  -s"), ("enforce_user", "TRUE")]
    assert render_configuration("vm", pairs) == (
        "#vm:\nmailer                       /usr/bin/mailx  -s\n"
        "enforce_user                 TRUE\n\n")
    assert error_of(parse_object, "conf", "libjvm_path x\n") == 'unknown attribute name "libjvm_path"'
    assert error_of(parse_object, "conf", "min_uid x\n") == (
        'error parsing unsigned long value from string "x"')


def test_normalize_completes_and_orders() -> None:
    pairs = normalize_object("pe", [("slots", "8"), ("pe_name", "p")], complete=True)
    assert tuple(name for name, _ in pairs) == KINDS["pe"].names
    assert dict(pairs)["slots"] == "8"


def test_render_refuses_unknown_attributes() -> None:
    assert error_of(render_object, "pe", [("nonsense", "1")]) == 'unknown attribute name "nonsense"'


# --- value checks -----------------------------------------------------------------

@pytest.mark.parametrize("kind,name,value,canonical", [
    ("queue", "rerun", "true", "TRUE"), ("queue", "rerun", "n", "FALSE"),
    ("queue", "qtype", "interactive,batch", "BATCH INTERACTIVE"), ("queue", "qtype", "none", "NONE"),
    ("queue", "pe_list", "make,smp  mpi", "make smp mpi"), ("queue", "pe_list", "none", "NONE"),
    ("queue", "load_thresholds", "np_load_avg=1.75 mem_free=1G", "np_load_avg=1.75,mem_free=1G"),
    ("queue", "slots", "0004", "4"), ("queue", "slots", "1,[vm=04],[@big=8]", "1,[vm=4],[@big=8]"),
    ("queue", "prolog", "none", "NONE"), ("queue", "s_rt", "infinity", "INFINITY"),
    ("queue", "h_vmem", "4G", "4G"), ("queue", "notify", "00:00:60", "00:00:60"),
    ("queue", "priority", "-20", "-20"), ("queue", "processors", "1-4,8", "1-4,8"),
    ("queue", "initial_state", "Disabled", "disabled"),
    ("queue", "shell_start_mode", "unix_behavior", "unix_behavior"),
    ("queue", "hostlist", "vm, @allhosts", "vm @allhosts"),
    ("pe", "allocation_rule", "$FILL_UP", "$FILL_UP"), ("pe", "urgency_slots", "AVG", "avg"),
    ("pe", "control_slaves", "yes", "TRUE"),
    ("sched", "weight_user", "0.5", "0.500000"),
    ("sched", "usage_weight_list", "cpu=1,mem=0,io=0", "cpu=1.000000,mem=0.000000,io=0.000000"),
    ("sched", "policy_hierarchy", "of", "OF"),
    ("exechost", "complex_values", "lic=4, mem=2G", "lic=4,mem=2G"),
    ("exechost", "report_variables", "none", "NONE"),
    ("exechost", "report_variables", "cpu np_load_avg", "cpu,np_load_avg"),
    ("hostgroup", "hostlist", "a,b @sub", "a b @sub"),
])
def test_values_are_checked_and_made_canonical(kind: str, name: str, value: str,
                                               canonical: str) -> None:
    assert check_value(kind, name, value) == canonical


@pytest.mark.parametrize("kind,name,value,message", [
    ("queue", "slots", "abc", 'error parsing unsigned long value from string "abc"'),
    ("queue", "slots", "10000000",
     '10000000 is an invalid value for the "slots" attribute - it must be a value between 0 and 9999999'),
    ("queue", "seq_no", "-1", 'error parsing unsigned long value from string "-1"'),
    ("queue", "rerun", "maybe", 'error parsing value "maybe"'),
    ("queue", "qtype", "PARALLEL", 'error parsing queue type from string "PARALLEL"'),
    ("queue", "s_rt", "1:2", 'value for attribute s_rt "1:2" is not time'),
    ("queue", "h_vmem", "4X", 'value for attribute h_vmem "4X" is not memory'),
    ("conf", "reporting_params", "accounting=true reporting=maybe",
     'error parsing value "accounting=true reporting=maybe"'),
    ("conf", "jsv_url", "java:/a.jar", 'type "java" in JSV URL is invalid'),
    ("conf", "jsv_url", "relative.sh", 'JSV URL "relative.sh" is invalid'),
    ("conf", "jsv_allowed_mod", "N,l hard", 'error parsing value "N,l hard"'),
    ("conf", "rsh_command", "/usr/bin/ssh -X",
     'attribute rsh_command "/usr/bin/ssh -X" is not supported: this version has only the '
     'builtin transport of qrsh and qlogin (only builtin)'),
    ("conf", "qlogin_daemon", "/usr/sbin/sshd -i",
     'attribute qlogin_daemon "/usr/sbin/sshd -i" is not supported: this version has only '
     'the builtin transport of qrsh and qlogin (only builtin)'),
    ("queue", "priority", "21", "Priority not in range -20 to +20"),
    ("queue", "initial_state", "on", 'Invalid value "on" as initial state'),
    ("queue", "shell_start_mode", "bash", 'Invalid value "bash" as shell start mode'),
    ("queue", "shell", "sh", 'Invalid value "sh" for shell '),
    ("queue", "qname", "1q", 'denied: "1q" is not a valid object name (cannot start with a digit)'),
    ("queue", "load_thresholds", "np_load_avg", 'Error during parsing of attribute value "np_load_avg"'),
    ("queue", "tmpdir", "", "No value specified"),
    ("queue", "slots", "[vm=4]", '"slots" has no default value'),
    ("queue", "slots", "1,[vm=x]", 'error parsing unsigned long value from string "x"'),
    ("queue", "slots", "1,[vm=2],[VM=3]", "Multiple values for one queue domain/host (VM) are not allowed"),
    ("hostgroup", "group_name", "allhosts", 'host group name "allhosts" is not valid'),
    ("pe", "urgency_slots", "most", 'rejecting invalid urgency_slots setting "most"'),
    ("pe", "job_is_first_task", "perhaps", 'error parsing value "perhaps"'),
    ("sched", "queue_sort_method", "random", 'error parsing value "random"'),
    ("sched", "weight_user", "heavy", 'value for attribute weight_user "heavy" is not a double'),
    ("conf", "load_report_time", "soon", 'value for attribute load_report_time "soon" is not time'),
])
def test_invalid_values_are_refused(kind: str, name: str, value: str, message: str) -> None:
    assert error_of(check_value, kind, name, value) == message


@pytest.mark.parametrize("rule,ok", [
    ("$pe_slots", True), ("$fill_up", True), ("$round_robin", True), ("4", True),
    ("0", False), ("-2", False), ("$any", False), ("many", False),
])
def test_allocation_rule(rule: str, ok: bool) -> None:
    pairs = template("pe", "smp")
    pairs = [(k, rule if k == "allocation_rule" else v) for k, v in pairs]
    if ok:
        assert dict(normalize_object("pe", pairs))["allocation_rule"] == rule
    else:
        assert error_of(normalize_object, "pe", pairs).startswith(
            'parameter allocation_rule of pe "smp": ')


# --- host overrides ------------------------------------------------------------------

def test_parse_and_format_host_overrides() -> None:
    assert parse_host_overrides("1") == ("1", {})
    assert parse_host_overrides("1,[vm=4]") == ("1", {"vm": "4"})
    value = "np_load_avg=1.75,mem_free=1G,[@big=np_load_avg=3,mem_free=2G], [h1=NONE]"
    default, overrides = parse_host_overrides(value)
    assert default == "np_load_avg=1.75,mem_free=1G"
    assert overrides == {"@big": "np_load_avg=3,mem_free=2G", "h1": "NONE"}
    assert format_host_overrides(default, overrides) == value.replace(", [", ",[")
    assert format_host_overrides("1", [("a", "2")]) == "1,[a=2]"


@pytest.mark.parametrize("value,message", [
    ("1[vm=4]", 'All list elements must be separated by commas: "1[vm=4]"'),
    ("1,[vm=4", 'The last character of each list item must be enclosed in brackets: "1,[vm=4"'),
    ("1,[vm4]", "'=' has to sepatate host or group from value"),
    ("1,[vm=4],", 'There is an extra comma at the end of the list: "1,[vm=4],"'),
    ("1,[vm=4][h=2]", 'All list elements must be separated by commas: "1,[vm=4][h=2]"'),
    (",[vm=4]", '"slots" has no default value'),
])
def test_override_syntax_errors(value: str, message: str) -> None:
    assert error_of(parse_host_overrides, value, "slots") == message


GROUPS = {"@all": ["@big", "@small"], "@big": ["b1", "b2"], "@small": ["s1", "b2"],
          "@other": ["b1"]}


def test_resolve_host_beats_group_beats_default() -> None:
    value = "1,[@big=8],[B1=16]"
    assert resolve(value, "b1", GROUPS) == "16"
    assert resolve(value, "b2", GROUPS) == "8"
    assert resolve(value, "s1", GROUPS) == "1"
    assert resolve(value, "elsewhere", GROUPS) == "1"
    assert resolve("2,[@all=3]", "s1", GROUPS) == "3"


def test_ambiguous_groups() -> None:
    assert ambiguous_groups("1,[@big=8],[@small=4]", "b2", GROUPS) == ["@big", "@small"]
    assert ambiguous_groups("1,[@big=8],[@small=8]", "b2", GROUPS) == []
    assert ambiguous_groups("1,[@big=8],[@small=4],[b2=1]", "b2", GROUPS) == []
    assert ambiguous_groups("1,[@big=8],[@small=4]", "b1", GROUPS) == []


def test_queue_value_reads_stored_pairs() -> None:
    pairs = [["qname", "all.q"], ["slots", "1,[vm=4]"]]
    assert queue_value(pairs, "slots", "vm", {}) == "4"
    assert queue_value(pairs, "seq_no", "vm", {}) == "0"


HOSTS = st.text(alphabet="abcdefgh0123456789-", min_size=1, max_size=10)
SIMPLE_VALUES = st.text(alphabet="abcxyz0123456789.:", min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(SIMPLE_VALUES, st.dictionaries(st.one_of(HOSTS, HOSTS.map(lambda h: "@" + h)),
                                      SIMPLE_VALUES, max_size=5))
def test_overrides_round_trip(default: str, overrides: dict[str, str]) -> None:
    overrides = {k: v for k, v in overrides.items()
                 if k.lower() not in [o.lower() for o in overrides if o != k]}
    text = format_host_overrides(default, overrides)
    assert parse_host_overrides(text) == (default, overrides)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 9999999), st.dictionaries(HOSTS, st.integers(0, 9999999), max_size=20))
def test_long_override_lists_render_wrapped_and_parse_back(default: int,
                                                          overrides: dict[str, int]) -> None:
    overrides = {k: v for k, v in overrides.items()
                 if k.lower() not in [o.lower() for o in overrides if o != k]}
    slots = format_host_overrides(str(default), {h: str(v) for h, v in overrides.items()})
    pairs = normalize_object("queue", [("slots", slots)], complete=True)
    text = render_object("queue", pairs)
    assert parse_object("queue", text) == pairs
    assert all(len(line) <= 82 for line in text.splitlines())


# --- host groups ---------------------------------------------------------------------

def test_expand_hostgroup_through_nested_groups() -> None:
    assert expand_hostgroup("@all", GROUPS) == {"b1", "b2", "s1"}
    assert expand_hostgroup("@missing", GROUPS) == set()
    assert expand_hostgroup("@x", {"@x": ["NONE"]}) == set()


def test_hostgroup_cycles_are_detected() -> None:
    groups = {"@a": ["h1", "@b"], "@b": ["@c"], "@c": ["@a"]}
    assert error_of(expand_hostgroup, "@a", groups) == (
        'host group "@c" would create a cycle by referencing "@a"')
    assert hostgroup_cycle("@small", ["@all"], GROUPS) is not None
    assert hostgroup_cycle("@small", ["s1", "@other"], GROUPS) is None


# --- typed accessors -------------------------------------------------------------------

def test_time_specifiers() -> None:
    assert cv.parse_time("00:05:00") == 300
    assert cv.parse_time("1::1") == 3601
    assert cv.parse_time("00:00:60") == 60
    assert cv.parse_time("90") == 90
    assert cv.parse_time("INFINITY") == math.inf


def test_memory_specifiers() -> None:
    assert cv.parse_memory("4G") == 4 * 1024**3
    assert cv.parse_memory("512m") == 512 * 1000**2
    assert cv.parse_memory("1.5K") == 1536
    assert cv.parse_memory("100") == 100
    assert cv.parse_memory("infinity") == math.inf


def test_typed_accessors_over_pairs() -> None:
    pairs = parse_object("queue", ref("qconf-sq-all.q.txt"))
    assert cv.get_bool(pairs, "rerun") is False
    assert cv.get_int(pairs, "seq_no") == 0
    assert cv.get_time(pairs, "suspend_interval") == 300
    assert cv.get_time(pairs, "h_rt") == math.inf
    assert cv.get_memory(pairs, "h_vmem") == math.inf
    assert cv.get_list(pairs, "pe_list") == ["make", "smp", "mpi"]
    assert cv.get_list(pairs, "ckpt_list") == []
    assert cv.get_assignments(pairs, "load_thresholds") == [("np_load_avg", "1.75")]
    sched = parse_object("sched", ref("qconf-ssconf.default.txt"))
    assert cv.get_double(sched, "weight_deadline") == 3600000.0
    assert cv.get(sched, "absent", "x") == "x"


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 99), st.integers(0, 99), st.integers(0, 99))
def test_time_specifier_fields(hours: int, minutes: int, seconds: int) -> None:
    text = f"{hours or ''}:{minutes:02d}:{seconds or ''}"
    assert cv.parse_time(text) == hours * 3600 + minutes * 60 + seconds
    assert cv.check_time("h_rt", text) == text


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from(list("kKmMgGtT") + [""]))
def test_memory_specifier_multipliers(number: int, unit: str) -> None:
    factor = {"": 1, "k": 1e3, "K": 1024, "m": 1e6, "M": 1024**2, "g": 1e9, "G": 1024**3,
              "t": 1e12, "T": 1024**4}[unit]
    assert cv.parse_memory(f"{number}{unit}") == number * factor


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=12))
def test_bool_parsing_accepts_only_grid_engine_words(text: str) -> None:
    word = text.strip().lower()
    if word in cv.TRUE_WORDS | cv.FALSE_WORDS:
        assert cv.parse_bool(text) is (word in cv.TRUE_WORDS)
    else:
        with pytest.raises(ConfError):
            cv.parse_bool(text)


def test_reprioritize_interval_takes_a_time() -> None:
    """reprioritize_interval renices running jobs (execd/reprioritize.py): any time."""
    assert check_value("sched", "reprioritize_interval", "0:0:1") == "0:0:1"
    assert "reprioritize_interval" in error_of(check_value, "sched",
                                               "reprioritize_interval", "soon")


@pytest.mark.parametrize("name,value,why", [
    ("algorithm", "fast", 'default is the only scheduling algorithm; only "default"'),
])
def test_scheduler_parameters_nothing_serves_are_refused(name: str, value: str,
                                                         why: str) -> None:
    """A value that would be stored and do nothing is refused, saying why; the default
    (and its other spellings) passes."""
    assert why in error_of(check_value, "sched", name, value)
    default = dict(template("sched"))[name]
    assert check_value("sched", name, default) == default
