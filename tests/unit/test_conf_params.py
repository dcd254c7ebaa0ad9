"""sge_conf(5) qmaster_params and execd_params: the one parser and table of their keys
(common.conf_params) and the checks qconf -mconf runs with them (common.objects_conf)."""
from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from common import conf_params
from common.conffile import ConfError
from common.objects_conf.cluster import DEFAULT_ONLY, GLOBAL_CONF


def test_parse_splits_by_comma_and_blank_and_ignores_case() -> None:
    assert conf_params.parse("none") == {}
    assert conf_params.parse("a=1, jsv_timeout=3 KEEP_ACTIVE") == {
        "A": "1", "JSV_TIMEOUT": "3", "KEEP_ACTIVE": ""}


def test_typed_values_and_defaults() -> None:
    value = conf_params.value
    assert value("qmaster_params", "jsv_timeout=3", "JSV_TIMEOUT") == 3
    assert value("qmaster_params", "none", "JSV_TIMEOUT") == 10
    assert value("qmaster_params", "JSV_TIMEOUT=x", "JSV_TIMEOUT") == 10  # (an old spool)
    assert value("qmaster_params", "ENABLE_RESCHEDULE_KILL", "ENABLE_RESCHEDULE_KILL") is True
    assert value("qmaster_params", "MAX_SCRIPT_SIZE=1K", "MAX_SCRIPT_SIZE") == 1024
    assert value("qmaster_params", "MAX_USER_SPOOL=infinity", "MAX_USER_SPOOL") == math.inf
    assert value("execd_params", "none", "PTF_MIN_PRIORITY") == -999
    assert value("execd_params", "none", "LOAD_PLUGINS") is None


@pytest.mark.parametrize("attr,text,words", [
    ("qmaster_params", "COLOR=blue", 'qmaster_params "COLOR" is unknown'),
    ("qmaster_params", "JSV_TIMEOUT=0", 'qmaster_params "JSV_TIMEOUT=0": less than 1'),
    ("qmaster_params", "MAX_USER_SPOOL=lots", 'MAX_USER_SPOOL "lots" is not memory'),
    ("qmaster_params", "ENABLE_RESCHEDULE_KILL=maybe", "not a boolean"),
    ("qmaster_params", "MONITOR_TIME=0:0:10", 'qmaster_params "MONITOR_TIME=0:0:10" is not '
                                              'supported: there is no per-thread profiling'),
    ("execd_params", "S_DESCRIPTORS=lots", 'S_DESCRIPTORS "lots" is not memory'),
    ("execd_params", "USE_CGROUPS=true", "no value is accepted"),
    ("execd_params", "KEEP_ACTIVE=sometimes", "not a boolean"),
    ("execd_params", "INHERIT_ENV=true", 'only "false" is accepted'),
    ("execd_params", "NOTIFY_KILL=NOSUCH", "not a signal name"),
    ("execd_params", "PTF_MIN_PRIORITY=low", "not a number"),
])
def test_check_refuses_saying_why(attr: str, text: str, words: str) -> None:
    with pytest.raises(ConfError, match=words.replace("(", r"\(")):
        conf_params.check(attr, text)


@pytest.mark.parametrize("attr,text", [
    ("qmaster_params", "none"), ("qmaster_params", "enable_reschedule_kill=1,JSV_TIMEOUT=5"),
    ("qmaster_params", "MONITOR_TIME=0"), ("qmaster_params", "gdi_timeout=60"),
    ("execd_params", "INHERIT_ENV=false KEEP_ACTIVE=false"),
    ("execd_params", "PTF_MAX_PRIORITY=-5,LOAD_PLUGINS=tmp_free:users"),
    ("execd_params", "NOTIFY_KILL=usr2 notify_susp=none KEEP_ACTIVE=true"),
    ("execd_params", "S_DESCRIPTORS=1K,H_MEMORYLOCKED=infinity,s_maxproc=100,H_LOCKS=5"),
])
def test_check_takes_what_is_implemented_and_defaults(attr: str, text: str) -> None:
    conf_params.check(attr, text)


@given(st.sampled_from(list(conf_params.TABLES)), st.data())
def test_every_key_takes_its_accepted_value(attr: str, data: st.DataObject) -> None:
    key = data.draw(st.sampled_from(conf_params.TABLES[attr]))
    sample = {"bool": "true", "int": "5", "time": "0:0:5", "memory": "1M", "signal": "HUP",
              "text": "x"}[key.type]
    if key.refused:
        if key.accepted is not None:
            conf_params.check(attr, f"{key.name.lower()}={key.accepted}")
        if sample != key.accepted and not (key.type == "bool" and key.accepted == "true"):
            with pytest.raises(ConfError, match="is not supported"):
                conf_params.check(attr, f"{key.name}={sample}")
    else:
        conf_params.check(attr, f"{key.name}={sample}")


@given(st.text(alphabet="AZaz_=, 019", max_size=30))
def test_parse_never_fails_and_check_fails_only_with_conf_error(text: str) -> None:
    conf_params.parse(text)
    for attr in conf_params.TABLES:
        try:
            conf_params.check(attr, text)
        except ConfError:
            pass


def test_default_only_parameters_of_the_global_configuration() -> None:
    attrs = {attr.name: attr for attr in GLOBAL_CONF.attrs}
    for name, why in DEFAULT_ONLY.items():
        attr = attrs[name]
        assert attr.check(name, attr.default) == attr.default
        other = {"gid_range": "20000-20100", "token_extend_time": "0:1:0",
                 "delegated_file_staging": "true", "loglevel": "log_info"}.get(name, "/bin/x")
        with pytest.raises(ConfError, match=f'{name} "{other}": {why}'):
            attr.check(name, other)


def test_shepherd_cmd_is_an_absolute_path_or_none() -> None:
    attr = GLOBAL_CONF.attr("shepherd_cmd")
    assert attr.check("shepherd_cmd", "/opt/wrap.sh") == "/opt/wrap.sh"
    assert attr.check("shepherd_cmd", "NONE") == "NONE"
    with pytest.raises(ConfError, match='denied: the path given for "shepherd_cmd" must start'):
        attr.check("shepherd_cmd", "wrap.sh")


def test_a_root_execd_runs_only_a_wrapper_nobody_else_can_have_planted(tmp_path) -> None:
    import os

    from execd.safefs import admin_executable_problem
    base = tmp_path / "admin"
    base.mkdir(mode=0o755)
    base.chmod(0o755)
    wrapper = base / "wrap.sh"
    wrapper.write_text("#!/bin/sh\nexec \"$@\"\n")
    wrapper.chmod(0o755)
    me = os.geteuid()
    assert admin_executable_problem(str(wrapper), me) is None
    assert "not an absolute path" in str(admin_executable_problem("wrap.sh", me))
    wrapper.chmod(0o775)
    assert "writable by group or others" in str(admin_executable_problem(str(wrapper), me))
    wrapper.chmod(0o755)
    base.chmod(0o777)
    assert f"lies below {base}" in str(admin_executable_problem(str(wrapper), me))
    base.chmod(0o755)
    link = base / "link.sh"
    link.symlink_to(wrapper)
    assert "not a file" in str(admin_executable_problem(str(link), me))
    if me != 0:  # (a file of ours is not one a root execd may run)
        assert "belongs to another user" in str(admin_executable_problem(str(wrapper), 12345))


@given(st.lists(st.tuples(st.integers(1, 70000), st.integers(0, 30)), min_size=1, max_size=4),
       st.sets(st.integers(1, 70100), max_size=40))
def test_gid_range_is_read_and_the_first_free_id_taken(pairs: list[tuple[int, int]],
                                                        used: set[int]) -> None:
    from common.objects_conf.cluster import free_gid, gid_ranges
    text = ",".join(f"{low}-{low + width}" if width else str(low) for low, width in pairs)
    ranges = gid_ranges(text)
    assert ranges == [(low, low + width) for low, width in pairs]
    ids = [gid for low, high in ranges for gid in range(low, high + 1)]
    assert free_gid(ranges, used) == next((gid for gid in ids if gid not in used), None)


def test_gid_range_text() -> None:
    from common.objects_conf.cluster import gid_ranges
    assert gid_ranges("65400-65500") == [(65400, 65500)]
    assert gid_ranges("20000 20010-20011") == [(20000, 20000), (20010, 20011)]
    assert gid_ranges("5-3") == [] and gid_ranges("none") == []
    with pytest.raises(ConfError, match='Error during parsing of attribute value "5-3"'):
        GLOBAL_CONF.attr("gid_range").check("gid_range", "5-3")


def test_use_qsub_gid_chooses_the_submit_group_else_the_passwd_one() -> None:
    names = {1: "daemon", 100: "users"}.get
    submit = (100, "users")
    assert conf_params.primary_group("none", submit, 1, names) == (1, "daemon")
    assert conf_params.primary_group("USE_QSUB_GID=true", submit, 1, names) == submit
    assert conf_params.primary_group("none", submit, None, names) == submit  # (no entry)
    assert conf_params.primary_group("none", submit, 4242, names) == (4242, "4242")
