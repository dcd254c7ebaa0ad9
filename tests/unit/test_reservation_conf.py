"""The scheduler configuration of resource reservation (issue 28): ``max_reservation``,
``default_duration`` and ``params`` (MONITOR, DURATION_OFFSET) are checked and worded as
8.1.9's ``qconf -Msconf`` (tests/data/reference/reservation/msconf-*), and typed once
(``common.sched_params``, ``PolicyConf``) into the pass's ``ReserveConf``."""
from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clients.qconf.files import FileError, parse_object_text
from common.conffile import ConfError
from common.objects_conf import check_value, normalize_object, template
from common.policy.conf import PolicyConf
from common.sched_params import NOT_BUILT, SchedParams, parse_sched_params

CAPTURES = Path(__file__).resolve().parents[1] / "data" / "reference" / "reservation"
# keys 8.1.9 knows that this version refuses (docs/compatibility.md), by capture name
REFUSED_HERE = {"msconf-params-profile", "msconf-params-jcfilter", "msconf-params-pe-range"}


def _captures() -> list[str]:
    return sorted(p.name[:-len(".input")] for p in CAPTURES.glob("msconf-*.input"))


@pytest.mark.parametrize("name", _captures())
def test_msconf_file_is_refused_or_taken_as_8_1_9_does(name: str) -> None:
    """Each file 8.1.9 was given: the same stderr lines when it refused it (the path as
    given), taken when it took it (except the keys this version refuses, saying why)."""
    path = (CAPTURES / f"{name}.cmd").read_text().split()[-1]
    rc = int((CAPTURES / f"{name}.rc").read_text())
    text = (CAPTURES / f"{name}.input").read_text()
    if name in REFUSED_HERE:
        with pytest.raises(FileError) as err:
            parse_object_text("sched", text, path, modify=True)
        assert rc == 0
        assert err.value.lines[0].startswith("error: scheduler param ")
        assert "is not supported by this version" in err.value.lines[0]
        assert err.value.lines[-1] == "error reading in file"
        return
    if rc == 0:
        parse_object_text("sched", text, path, modify=True)
        return
    with pytest.raises(FileError) as err:
        parse_object_text("sched", text, path, modify=True)
    assert err.value.lines == (CAPTURES / f"{name}.err").read_text().splitlines()


@pytest.mark.parametrize("value,shown", [
    ("0:10:0", "0:10:0"), ("90", "90"), ("1K", "1K"), ("infinity", "INFINITY"),
])
def test_default_duration_is_kept_as_typed(value: str, shown: str) -> None:
    assert check_value("sched", "default_duration", value) == shown


def test_default_duration_zero_only_while_reservation_is_off() -> None:
    pairs = dict(template("sched"))
    off = normalize_object("sched", list({**pairs, "default_duration": "0"}.items()))
    assert dict(off)["default_duration"] == "0"
    with pytest.raises(ConfError) as err:
        normalize_object("sched", list({**pairs, "default_duration": "0:0:0",
                                        "max_reservation": "1"}.items()))
    assert err.value.message == "denied: resource reservation requires valid default duration"


@pytest.mark.parametrize("text,monitor,offset", [
    ("none", False, 60.0), ("NONE", False, 60.0), ("", False, 60.0),
    ("MONITOR=1", True, 60.0), ("monitor=TRUE", True, 60.0), ("MONITOR=false", False, 60.0),
    ("MONITOR=1,DURATION_OFFSET=30", True, 30.0), ("MONITOR=1 DURATION_OFFSET=0:1:30", True, 90.0),
    ("MONITOR=1;duration_offset=5", True, 5.0), ("DURATION_OFFSET=5,DURATION_OFFSET=7", False, 7.0),
    ("DURATION_OFFSET=0", False, 0.0),
])
def test_params_values(text: str, monitor: bool, offset: float) -> None:
    assert parse_sched_params(text) == SchedParams(monitor=monitor, duration_offset=offset)


@pytest.mark.parametrize("text,message", [
    ("MONITOR=yes", 'Invalid scheduler param setting: "MONITOR=yes"'),
    ("MONITOR", 'Invalid scheduler param setting: "MONITOR"'),
    ("FOO=1", 'found unknown param: "FOO=1"'),
    ("MONITOR=1,DURATION_OFFSET=abc", ""), ("DURATION_OFFSET=-5", ""),
    ("DURATION_OFFSET=INFINITY", ""), ("DURATION_OFFSET=", ""),
])
def test_params_refusals(text: str, message: str) -> None:
    with pytest.raises(ConfError) as err:
        parse_sched_params(text)
    assert err.value.message == message


@pytest.mark.parametrize("key", NOT_BUILT)
def test_params_keys_nothing_serves_are_refused_saying_so(key: str) -> None:
    with pytest.raises(ConfError) as err:
        parse_sched_params(f"MONITOR=1,{key}=1")
    assert "not supported by this version" in err.value.message


_WORDS = st.sampled_from(["MONITOR=1", "MONITOR=0", "monitor=true", "MONITOR=False",
                          "DURATION_OFFSET=10", "duration_offset=0:2:0", "DURATION_OFFSET=1K"])


@settings(max_examples=60, deadline=None)
@given(st.lists(_WORDS, min_size=1, max_size=5), st.sampled_from([",", ";", " ", ", "]))
def test_params_last_word_of_each_key_counts(words: list[str], sep: str) -> None:
    """Any mix of the two keys in any separator: each key's last value counts."""
    got = parse_sched_params(sep.join(words))
    monitors = [w.split("=")[1].lower() in ("1", "true") for w in words
                if w.upper().startswith("MONITOR")]
    offsets = [w.split("=")[1] for w in words if w.upper().startswith("DURATION_OFFSET")]
    assert got.monitor is (monitors[-1] if monitors else False)
    want = {"10": 10.0, "0:2:0": 120.0, "1K": 1024.0}[offsets[-1]] if offsets else 60.0
    assert got.duration_offset == want


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=20))
def test_params_never_fails_other_than_conf_error(text: str) -> None:
    """Whatever the text, parsing either gives typed params or a ConfError."""
    try:
        got = parse_sched_params(text)
    except ConfError:
        return
    assert got.duration_offset >= 0 and math.isfinite(got.duration_offset)


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=-5, max_value=2**33))
def test_max_reservation_is_an_u_long32(number: int) -> None:
    if 0 <= number < 2**32:
        assert check_value("sched", "max_reservation", str(number)) == str(number)
    else:
        with pytest.raises(ConfError):
            check_value("sched", "max_reservation", str(number))


def test_reserve_conf_from_the_scheduler_configuration() -> None:
    conf = PolicyConf.from_pairs([("max_reservation", "10"), ("default_duration", "0:10:0"),
                                  ("params", "MONITOR=1,DURATION_OFFSET=30"),
                                  ("schedule_interval", "0:0:2")])
    assert conf.monitor is True
    got = conf.reserve_conf(1000.0)
    assert got is not None
    assert (got.now, got.max_reservation, got.default_duration, got.duration_offset,
            got.schedule_interval) == (1000.0, 10, 600.0, 30.0, 2.0)


def test_no_planning_without_reservation_unless_advance_reservations_exist() -> None:
    conf = PolicyConf.from_pairs(template("sched"))
    assert conf.reserve_conf(5.0) is None
    planned = conf.reserve_conf(5.0, ars=True)
    assert planned is not None and planned.max_reservation == 0
    assert planned.default_duration == math.inf and planned.duration_offset == 60.0


# ---- qalter -R (tests/data/reference/reservation/qalter-R-*) ----------------------------

def test_qalter_reads_dash_r_as_qsub_does() -> None:
    from clients.qalter import QalterError, parse_qalter
    assert parse_qalter(["-R", "y", "5"]).changes == {"reserve": True}
    assert parse_qalter(["-R", "no", "5"]).changes == {"reserve": False}
    with pytest.raises(QalterError) as err:
        parse_qalter(["-R", "x", "5"])
    assert (err.value.message, err.value.status) == ('qalter: invalid option argument "-R x"', 7)


def test_qalter_dash_r_changes_the_pending_job_in_8_1_9s_words(tmp_path: Path) -> None:
    from tests.unit.test_qalter import alter
    from tests.unit.test_qmaster_core import Harness
    qm = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    job = qm.submit(hold=True)
    expected = (CAPTURES / "qalter-R-y.out").read_text().replace("135", str(job))
    for reserve in (False, True):
        result = alter(qm, job, {"reserve": reserve})
        assert result["result"] == "modified"
        assert result["messages"] == [expected.rstrip("\n")]
        assert bool(qm.server.store.jobs[job].opts.get("reserve")) is reserve
