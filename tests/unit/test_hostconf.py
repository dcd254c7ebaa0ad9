"""Host-local configurations (sge_conf(5)): which value holds for a host
(``local_conf_value``), the qmaster's rules for the ``conf`` kind and the calendar
references, against Grid Engine 8.1.9's captures (tests/data/reference/hostconf/)."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from common.objects_conf import render_configuration
from common.objects_conf.cluster import GLOBAL_CONF_NAME, LOCAL_PARAMS, local_conf_value
from qmaster.conf.calendar import (check_calendars_exist, check_unreferenced,
                                       queue_calendars)
from qmaster.context import RequestError
from qmaster.conf.hostconf import check_conf_exists, check_local_conf_name, deletable_conf

HC = Path(__file__).parents[1] / "data" / "reference" / "hostconf"
GLOBAL = [["mailer", "/usr/bin/mail"], ["load_report_time", "00:00:40"],
          ["max_u_jobs", "0"], ["execd_params", "none"]]


def cell(**local: list[list[str]]) -> dict[str, dict[str, list[list[str]]]]:
    return {"conf": {"global": GLOBAL, **local}}


def test_a_local_value_overrides_the_global_one() -> None:
    conf = cell(vm=[["mailer", "/bin/mail"]])
    assert local_conf_value(conf, "vm", "mailer", "x") == "/bin/mail"
    assert local_conf_value(conf, "other", "mailer", "x") == "/usr/bin/mail"
    assert local_conf_value(conf, "vm", "load_report_time", "x") == "00:00:40"
    assert local_conf_value(conf, "vm", "no_such_param", "dflt") == "dflt"
    assert local_conf_value({}, "vm", "mailer", "dflt") == "dflt"


def test_parameters_a_local_configuration_cannot_set_are_ignored() -> None:
    """8.1.9 stores them (Aconf-param-max_u_jobs) but a local max_u_jobs 1 limits
    nobody (effect-qsub-1, effect-qsub-2)."""
    assert (HC / "effect-qsub-2.rc").read_text().strip() == "0"
    conf = cell(vm=[["max_u_jobs", "1"]])
    assert local_conf_value(conf, "vm", "max_u_jobs", "0") == "0"


def test_host_names_meet_as_the_cell_compares_them() -> None:
    conf = cell(**{"vm.example.org": [["mailer", "/bin/mail"]]})
    assert local_conf_value(conf, "vm", "mailer", "") == "/bin/mail"
    assert local_conf_value(conf, "VM.example.org", "mailer", "") == "/bin/mail"
    assert local_conf_value(conf, "vm.other.org", "mailer", "") == "/usr/bin/mail"
    assert local_conf_value(conf, GLOBAL_CONF_NAME, "mailer", "") == "/usr/bin/mail"


@given(st.sampled_from(sorted(LOCAL_PARAMS | {"max_u_jobs", "min_uid", "loglevel"})),
       st.text("abc/ ", min_size=1, max_size=8), st.booleans())
def test_local_value_is_the_local_one_exactly_for_local_params(name: str, value: str,
                                                              local: bool) -> None:
    conf = cell(h=[[name, value]] if local else [])
    expected = value if local and name in LOCAL_PARAMS else \
        next((v for k, v in GLOBAL if k == name), "D")
    assert local_conf_value(conf, "h", name, "D") == expected


def test_local_configuration_shown_as_8_1_9() -> None:
    assert render_configuration("vm", [("mailer", "/bin/mail")]) == \
        (HC / "sconf-vm.out").read_text()


def test_qmaster_rules_in_8_1_9_words() -> None:
    with pytest.raises(RequestError) as exc:
        check_conf_exists("vm", "add", True)
    assert exc.value.message == (HC / "aconf-vm-exists.err").read_text().strip()
    with pytest.raises(RequestError) as exc:
        check_conf_exists("vm", "modify", False)
    assert exc.value.message == (HC / "Mconf-vm-adds.err").read_text().strip()
    check_conf_exists("global", "modify", True)
    with pytest.raises(RequestError) as exc:
        deletable_conf("global", {"global": []})
    assert exc.value.message == (HC / "dconf-global.err").read_text().strip()
    assert deletable_conf("vm", {"vm": []}) and not deletable_conf("vm", {})
    for bad in ("a b", "", "a,b", "none"):
        with pytest.raises(RequestError):
            check_local_conf_name(bad)
    check_local_conf_name("vm.example.org")


def test_calendar_references() -> None:
    queue = [["qname", "q"], ["calendar", "night,[vm=weekend],[h2=NONE]"]]
    assert queue_calendars(queue) == ["night", "weekend"]
    conf = {"calendar": {"night": [], "weekend": []}, "queue": {"q": queue}}
    check_calendars_exist(conf, "queue", queue)
    with pytest.raises(RequestError) as exc:
        check_calendars_exist(conf, "queue", [["calendar", "nosuchcal"]])
    assert exc.value.message == 'Calendar "nosuchcal" does not exist'
    check_calendars_exist(conf, "queue", [["calendar", "NONE"]])
    with pytest.raises(RequestError) as exc:
        check_unreferenced(conf, "weekend")
    assert exc.value.message == 'denied: Calendar "weekend" is still referenced in queue "q"'
    check_unreferenced(conf, "other")


def test_dconf_names_a_host_configuration_as_local_conf_value_finds_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from tests.unit.test_qmaster_core import ROOT, Harness
    qm = Harness(tmp_path, auto_add_hosts=True, default_slots=1)
    qm.register("vm")
    qm.call("conf_put", {"user": ROOT.to_dict(), "kind": "conf", "name": "vm",
                         "data": [["load_sensor", "/bin/true"]], "mode": "add"})
    reply = qm.call("conf_del", {"user": ROOT.to_dict(), "kind": "conf", "name": "VM"})
    assert "removed" in reply["message"]
    assert "vm" not in qm.server.store.conf["conf"]
