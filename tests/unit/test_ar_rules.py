"""Advance reservations without a cluster: the window rules (common.ar), the command
lines of qrsub/qrstat/qrdel (clients.ar.options) and qrstat's outputs (clients.ar.render),
against 8.1.9's texts in tests/data/reference/ar/."""
from __future__ import annotations

import calendar
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, strategies as st

from clients.ar import render
from clients.ar.options import UsageError, parse_qrdel, parse_qrstat, parse_qrsub
from common import ar as rules

REF = Path(__file__).resolve().parents[1] / "data" / "reference" / "ar"
NOW = 1_795_834_133  # 11/28/2026 02:48:53 UTC


def ref(name: str) -> str:
    return (REF / name).read_text()


def epoch(text: str) -> float:
    return float(calendar.timegm(time.strptime(text, "%m/%d/%Y %H:%M:%S")))


# ---- the window --------------------------------------------------------------------
def test_duration_alone_starts_now() -> None:
    assert rules.window(NOW, None, None, 600) == (NOW, NOW + 600)


def test_end_alone_starts_now() -> None:
    assert rules.window(NOW, None, NOW + 7200, None) == (NOW, NOW + 7200)


def test_end_and_duration_start_before_the_end() -> None:
    # 8.1.9 (qrsub-e-d): start = end - duration
    assert rules.window(NOW, None, NOW + 7200, 600) == (NOW + 6600, NOW + 7200)


@pytest.mark.parametrize("start, end, duration, text", [
    (NOW + 60, None, None, rules.NO_END),          # qrsub-a-only
    (None, None, 0, rules.NO_END),                 # qrsub-d-zero
    (NOW - 60, None, 600, rules.IN_PAST),          # qrsub-a-past
    (NOW + 7200, NOW + 3600, None, rules.START_AFTER_END),  # qrsub-e-before-a
    (NOW + 3600, NOW + 7200, 600, rules.DURATION_MISMATCH),  # qrsub-a-e-d
])
def test_refused_windows_in_8_1_9_words(start: Any, end: Any, duration: Any,
                                        text: str) -> None:
    with pytest.raises(rules.WindowError) as err:
        rules.window(NOW, start, end, duration)
    assert str(err.value) == text
    assert (REF / "qrsub-a-only.out").read_text().strip() == rules.NO_END


# (whole seconds, as the commands send them: -a/-e to the second, -d in seconds)
@given(start=st.one_of(st.none(), st.integers(0, 2 * 10**9)),
       end=st.one_of(st.none(), st.integers(0, 2 * 10**9)),
       duration=st.one_of(st.none(), st.integers(0, 10**8)))
def test_a_granted_window_is_never_empty_nor_in_the_past(start: Any, end: Any,
                                                         duration: Any) -> None:
    try:
        begin, finish = rules.window(NOW, start, end, duration)
    except rules.WindowError:
        return
    assert NOW <= begin < finish
    if duration:
        assert finish - begin == pytest.approx(duration)


def test_states_follow_the_window() -> None:
    record = {"state": "w", "start": NOW + 10, "end": NOW + 20}
    assert [rules.state_at(record, t) for t in (NOW, NOW + 10, NOW + 20)] == ["w", "r", "x"]
    assert rules.state_at({**record, "state": "d"}, NOW + 15) == "d"
    assert rules.next_change(record) == NOW + 10
    assert rules.next_change({**record, "state": "r"}) == NOW + 20


def test_who_may_use_an_ar() -> None:
    record = {"owner": "ann", "acl": ["bob", "@team"]}
    sets = {"team": ["cid"]}
    assert [rules.may_use(record, u, sets) for u in ("ann", "bob", "cid", "dan")] == \
        [True, True, True, False]
    assert rules.may_use({"owner": "ann", "acl": []}, "dan", {})


def test_a_spooled_record_of_the_wrong_shape_is_refused() -> None:
    good = rules.new_record(3, {"name": "x"}, "ann", "users", NOW, NOW, NOW + 60,
                            [["all.q", "h1", 2]], None)
    assert rules.check_record(good) is good
    for bad in ({**good, "state": "q"}, {**good, "granted": [["all.q"]]}, {"ar_id": "3"}):
        with pytest.raises((ValueError, TypeError)):
            rules.check_record(bad)


# ---- qrsub's command line ----------------------------------------------------------
NOW_DT = datetime.fromtimestamp(NOW, timezone.utc)


def usage_error(argv: list[str]) -> UsageError:
    with pytest.raises(UsageError) as err:
        parse_qrsub(argv, NOW_DT)
    return err.value


def test_qrsub_options_make_the_request() -> None:
    req = parse_qrsub(["-N", "myar", "-A", "acct1", "-d", "1:0:0", "-l", "h_rt=100",
                       "-pe", "smp", "2", "-q", "all.q", "-u", "sgeuser2,sgeuser",
                       "-he", "y", "-w", "v", "-M", "a@b"], NOW_DT)
    assert req.verify
    assert req.body == {"name": "myar", "account": "acct1", "duration": 3600.0,
                        "hard_resources": {"h_rt": "100"}, "pe": ["smp", 2, 2],
                        "pe_ranges": [[2, 2]], "hard_queues": ["all.q"],
                        "acl": ["sgeuser2", "sgeuser"], "error_handling": True,
                        "mail_list": ["a@b"]}


@pytest.mark.parametrize("argv, ref_name", [
    (["-d", "abc"], "qrsub-bad-d"), (["-a", "2025xx", "-d", "600"], "qrsub-bad-date"),
    (["-d", "600", "-w", "w"], "qrsub-ww"), (["-d", "600", "-m", "z"], "qrsub-m-bad"),
    (["-d", "600", "-zz"], "qrsub-bad-opt"), (["-d"], "qrsub-d-noarg"),
    (["-d", "60", "-pe", "smp"], "qrsub-pe-noarg"),
])
def test_qrsub_refusals_are_8_1_9s(argv: list[str], ref_name: str) -> None:
    err = usage_error(argv)
    assert err.text + "\n" == ref(f"{ref_name}.err")
    assert err.status == int(ref(f"{ref_name}.rc"))


def test_qrsub_without_arguments_prints_the_usage() -> None:
    from clients.ar.usage import QRSUB_USAGE
    err = usage_error([])
    assert err.usage and QRSUB_USAGE + err.text + "\n" == ref("qrsub-noargs.err")
    assert QRSUB_USAGE == ref("qrsub-help.out")


@given(st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2037, 12, 31)),
       st.sampled_from(["%Y%m%d%H%M.%S", "%y%m%d%H%M.%S", "%m%d%H%M.%S", "%Y%m%d%H%M",
                        "%m%d%H%M"]))
def test_qrsub_dates_in_every_form(when: datetime, form: str) -> None:
    """[[CC]YY]MMDDhhmm[.SS]: a missing century or year is the current one."""
    now = datetime(when.year, 6, 1, tzinfo=timezone.utc)
    text = when.strftime(form)
    req = parse_qrsub(["-a", text, "-d", "60"], now)
    expect = when.replace(tzinfo=timezone.utc, microsecond=0)
    if ".%S" not in form:
        expect = expect.replace(second=0)
    assert req.body["start"] == expect.timestamp()


@given(st.integers(0, 99), st.integers(0, 59), st.integers(0, 59))
def test_qrsub_durations(hours: int, minutes: int, seconds: int) -> None:
    total = hours * 3600 + minutes * 60 + seconds
    for text in (f"{hours}:{minutes}:{seconds}", str(total)):
        assert parse_qrsub(["-d", text], NOW_DT).body["duration"] == total


# ---- qrstat's and qrdel's command lines --------------------------------------------
def test_qrstat_options() -> None:
    got = parse_qrstat(["-ar", "3,4", "-xml"])
    assert got.ar_ids == [3, 4] and got.xml
    assert parse_qrstat(["-u", "a,b"]).owners == ["a", "b"]
    for argv, name in ((["-ar"], "qrstat-ar-noarg"), (["-ar", "abc"], "qrstat-ar-bad"),
                       (["-zz"], "qrstat-bad-opt")):
        with pytest.raises(UsageError) as err:
            parse_qrstat(argv)
        assert err.value.text + "\n" == ref(f"{name}.err")


def test_qrdel_options() -> None:
    got = parse_qrdel(["-f", "3", "abc", "-u", "ann"])
    assert (got.force, got.ar_ids, got.not_ids, got.owners) == (True, [3], ["abc"], ["ann"])
    with pytest.raises(UsageError) as err:
        parse_qrdel([])
    assert err.value.usage


# ---- qrstat's outputs --------------------------------------------------------------
def _ar(ar_id: int, name: str, start: str, end: str, **more: Any) -> dict[str, Any]:
    record = rules.new_record(ar_id, {"name": name, **more}, "sgeuser", "sgeadmin",
                              epoch(start), epoch(start), epoch(end),
                              more.pop("granted", [["all.q", "vm", 1]]),
                              more.get("granted_pe"))
    return record


def test_qrstat_listing(utc: None) -> None:
    ars = [_ar(1, "", "11/28/2026 02:48:53", "11/28/2026 02:58:53"),
           _ar(2, "myar", "11/28/2026 02:48:54", "11/28/2026 03:48:54")]
    assert render.listing(ars) == ref("qrstat-u.out")
    assert render.listing([]) == ref("qrstat-empty.out")


def test_qrstat_detail_and_xml(utc: None) -> None:
    record = _ar(49, "allopts", "11/28/2026 02:54:06", "11/28/2026 02:56:06",
                 account="acc", hard_resources={"h_rt": "60"}, error_handling=True,
                 granted=[["all.q", "vm", 2]], mail_options="be", mail_list=["sgeuser@vm"],
                 acl=["sgeuser", "sgeuser2"])
    record["granted_pe"] = "smp"
    assert render.detail(record) == ref("qrstat-ar-all.out")
    assert render.xml([record], full=True) == ref("qrstat-ar-all-xml.out")
    plain = _ar(1, "", "11/28/2026 02:48:53", "11/28/2026 02:58:53")
    assert render.xml([plain], full=False) == ref("qrstat-xml.out")
    assert render.detail(plain) == ref("qrstat-ar.out")


# ---- qacct -ar over 8.1.9's accounting file -----------------------------------------
@pytest.mark.parametrize("args, name", [(["-ar"], "qacct-f-ar"), (["-ar", "38"], "qacct-f-ar-38")])
def test_qacct_ar_sums_as_8_1_9(args: list[str], name: str,
                                capsys: pytest.CaptureFixture[str]) -> None:
    from clients.qacct.main import main
    assert main(["-f", str(REF / "accounting-bench.txt"), *args]) == 0
    assert capsys.readouterr().out == ref(f"{name}.out")


def test_max_advance_reservations_in_the_global_configuration() -> None:
    """Absent from a new cell's configuration and templates; once set, shown last and
    kept (tests/data/reference/ar/qconf-sconf-max.out); a non-number refused."""
    from common.conffile import ConfError
    from common.objects_conf import parse_object, render_configuration, template
    text = ref("qconf-sconf-max.out")
    assert render_configuration("global", parse_object("conf", text)) == text
    assert "max_advance_reservations" not in dict(template("conf"))
    with pytest.raises(ConfError):
        parse_object("conf", text.replace("max_advance_reservations     1",
                                          "max_advance_reservations     many"))


def test_qrstat_shows_e_and_w_with_their_reason(utc: None) -> None:
    """8.1.9 (qrstat-*-disabled): a granted instance disabled turns a running AR to E and
    a waiting one to W, with ``message`` in the detail and under the row with -explain."""
    running = _ar(50, "runE", "11/28/2026 03:25:37", "11/28/2026 03:35:37")
    waiting = _ar(51, "waitW", "11/28/2026 04:25:00", "11/28/2026 04:35:00")
    waiting["submission_time"] = running["submission_time"]
    problem = rules.trouble(running, {"all.q@vm": "d"}, [])
    assert problem == "reserved queue all.q@vm is disabled"
    now = epoch("11/28/2026 03:26:00")
    shown = [{**r, "state": rules.shown_state(r, now, problem), "message": problem}
             for r in (running, waiting)]
    assert [r["state"] for r in shown] == ["E", "W"]
    assert render.listing(shown) == ref("qrstat-disabled.out")
    assert render.listing(shown, explain=True) == ref("qrstat-explain-disabled.out")
    assert render.detail(shown[0]) == ref("qrstat-ar-disabled.out")
    xml_one = {**shown[0], "ar_id": 52, "start": epoch("11/28/2026 03:26:38"),
               "end": epoch("11/28/2026 03:36:38"),
               "submission_time": epoch("11/28/2026 03:26:38")}
    assert render.xml([xml_one], full=True) == ref("qrstat-ar-disabled-xml.out")
    assert render.xml([xml_one], full=False) == ref("qrstat-disabled-xml.out")
    assert rules.trouble(running, {}, ["vm"]) == "reserved queue all.q@vm is unknown"
    assert rules.trouble(running, {"all.q@vm": "s"}, []) is None
    assert rules.shown_state(running, now, None) == "r"


# ---- options 8.1.9's -help lists that its commands refuse (the surface table) ----------
def test_qrsub_refuses_explain_and_masterq() -> None:
    assert usage_error(["-d", "600", "-explain"]).text == \
        'error: invalid option argument "-explain"'  # 8.1.9's words
    assert usage_error(["-d", "600", "-masterq", "all.q"]).text == \
        'qrsub: Unsupported: "-masterq" is not supported in this version'


def test_qrstat_and_qrdel_refuse_he_as_8_1_9() -> None:
    for argv in (["-he", "y"], ["-terse"]):
        with pytest.raises(UsageError) as err:
            parse_qrstat(argv)
        assert (err.value.text, err.value.usage) == ("error: too many options", True)
    with pytest.raises(UsageError) as err:
        parse_qrdel(["-he", "y", "1"])
    assert (err.value.text, err.value.usage) == ('error: invalid option argument "-he"', True)
