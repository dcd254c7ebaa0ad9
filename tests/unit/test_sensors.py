"""Load sensors in the execd (execd.sensors, execd.load): the protocol parser, the merge
into the host's load values, and real sensor processes that behave and misbehave
(sleep, exit, flood, junk) next to one that keeps reporting."""
from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, strategies as st

from execd import sensors
from common import conf_params
from execd.load import with_sensor_values
from common.load_values import clean_load_value
from execd.sensors import AnswerParser, Flood, SensorSet, same_host, sensor_commands


def feed(parser: AnswerParser, *lines: str) -> Any:
    answer = None
    for line in lines:
        answer = parser.feed(line) or answer
    return answer


def test_an_answer_between_begin_and_end() -> None:
    parser = AnswerParser("vm")
    parser.requested()
    answer = feed(parser, "ignored before begin", "begin", "vm:scratch_free:2G",
                  "VM.example.org:sensor_int:17", "global:global_val:5",
                  "otherhost:sensor_int:7", "this is garbage", "vm:scratch_free", "end")
    assert answer.host_values == {"scratch_free": "2G", "sensor_int": "17"}
    assert answer.global_values == {"global_val": "5"}
    assert answer.format_errors == ["this is garbage", "vm:scratch_free"]
    # a value may hold colons (a time), the name may not be empty
    answer = feed(parser, "begin", "vm:h_rt:0:10:00", "vm::1", "end")
    assert answer.host_values == {"h_rt": "0:10:00"} and answer.format_errors == ["vm::1"]


def test_a_flood_is_refused() -> None:
    parser = AnswerParser("vm")
    parser.requested()
    parser.feed("begin")
    with pytest.raises(Flood):
        for i in range(sensors.MAX_ANSWER_LINES + 1):
            parser.feed(f"vm:v{i}:1")


@given(st.lists(st.one_of(st.text(max_size=40),
                          st.sampled_from(["begin", "end", "vm:a:1", "global:g:2"])),
                max_size=30))
def test_the_parser_takes_any_line(lines: list[str]) -> None:
    """Whatever a sensor prints, only values a load report may carry get through."""
    parser = AnswerParser("vm")
    parser.requested()
    for line in lines:
        answer = parser.feed(line.replace("\n", " "))
        if answer is not None:
            for values in (answer.host_values, answer.global_values):
                assert all(clean_load_value(k, v) for k, v in values.items())


def test_host_names() -> None:
    assert same_host("VM", "vm") and same_host("vm.example.org", "vm")
    assert not same_host("vm.a.org", "vm.b.org") and not same_host("other", "vm")
    assert sensor_commands("none") == [] and sensor_commands("/a.sh, /b.sh") == ["/a.sh", "/b.sh"]
    assert conf_params.value("execd_params", "KEEP_ACTIVE=true,load_plugins=tmp_free:users",
                             "LOAD_PLUGINS") == "tmp_free:users"
    assert conf_params.value("execd_params", "none", "LOAD_PLUGINS") is None


def test_sensor_values_join_the_measured_ones() -> None:
    measured = {"load_avg": "0.500000", "num_proc": "2", "np_load_avg": "0.250000",
                "mem_free": "100M"}
    merged = with_sensor_values(measured, {"scratch_free": "2G", "mem_free": "1M",
                                           "np_load_avg": "3.5"})
    # 8.1.9: a sensor's mem_free replaces the measured one; its np_load_avg is ignored
    assert merged == {**measured, "mem_free": "1M", "scratch_free": "2G"}
    assert list(merged)[-1] == "scratch_free"
    # a sensor's load_avg does count, and np_load_avg follows it
    assert with_sensor_values(measured, {"load_avg": "3.5"})["np_load_avg"] == "1.750000"


SENSOR = """#!/bin/sh
# answers from files: $DIR/mode (normal, hang, exit, flood, junk) and $DIR/value
while read line; do
  [ "$line" = quit ] && exit 0
  mode=$(cat "$DIR/mode" 2>/dev/null)
  case "$mode" in
    hang) sleep 1000 ;;
    exit) exit 3 ;;
    flood) while :; do echo "$HOST:x:1"; done ;;
  esac
  echo begin
  [ "$mode" = junk ] && echo "this is junk"
  echo "$HOST:$NAME:$(cat "$DIR/value")"
  echo end
done
"""


def _sensor(tmp_path: Path, name: str) -> Path:
    d = tmp_path / name
    d.mkdir()
    (d / "value").write_text("1\n")
    (d / "mode").write_text("normal\n")
    script = d / "sensor.sh"
    script.write_text(SENSOR.replace("$DIR", str(d)).replace("$HOST", "vm")
                      .replace("$NAME", name))
    script.chmod(0o755)
    return d


def test_misbehaving_sensors_cost_only_their_own_values(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    monkeypatch.setattr(sensors, "FIRST_RESTART_PAUSE", 0.05)
    monkeypatch.setattr(sensors, "MAX_ANSWER_LINES", 500)
    good, bad = _sensor(tmp_path, "good_val"), _sensor(tmp_path, "bad_val")
    logged: list[tuple[str, str]] = []

    def log(level: str, event: str, **kw: Any) -> None:
        logged.append((level, event))

    async def scenario() -> None:
        sset = SensorSet("vm", log, env={"PATH": os.environ.get("PATH", "/bin")})
        sset.configure([str(good / "sensor.sh"), str(bad / "sensor.sh")])
        try:
            async def report(value: str) -> dict[str, str]:
                (good / "value").write_text(value)
                answer = await sset.collect(0.3)
                return answer.host_values
            assert await report("1") == {"good_val": "1", "bad_val": "1"}
            for mode in ("junk", "hang", "exit", "flood"):
                (bad / "mode").write_text(mode)
                for round_ in range(sensors.HANG_REQUESTS + 3):
                    values = await report(f"{mode}{round_}")
                    assert values["good_val"] == f"{mode}{round_}", (mode, values)
                    await asyncio.sleep(0.06)
                (bad / "mode").write_text("normal")
                for _ in range(40):  # back once it is restarted (bounded)
                    values = await report("back")
                    if values.get("bad_val") == "1":
                        break
                    await asyncio.sleep(0.1)
                assert values == {"good_val": "back", "bad_val": "1"}, mode
        finally:
            await sset.close()
        assert not sset.sensors

    asyncio.run(asyncio.wait_for(scenario(), 120))
    events = [e for _, e in logged]
    assert any(e.startswith('Format error from loadsensor') and "this is junk" in e
               for e in events)
    assert "load sensor exited" in events
    assert "load sensor floods the execd; ended" in events
    assert any(e == "load sensor stopped" for e in events)  # the hung one


def test_a_changed_sensor_file_is_restarted(tmp_path: Path) -> None:
    d = _sensor(tmp_path, "v")
    logged: list[str] = []

    async def scenario() -> None:
        sset = SensorSet("vm", lambda level, event, **kw: logged.append(event))
        sset.configure([str(d / "sensor.sh")])
        try:
            assert (await sset.collect(1.0)).host_values == {"v": "1"}
            pid = sset.sensors[str(d / "sensor.sh")].proc.pid  # type: ignore[union-attr]
            script = d / "sensor.sh"
            script.write_text(script.read_text().replace('echo end', 'echo "vm:w:2"; echo end'))
            os.utime(script, (1, 1))
            answer = await sset.collect(1.0)
            assert answer.host_values == {"v": "1", "w": "2"}
            assert sset.sensors[str(script)].proc.pid != pid  # type: ignore[union-attr]
        finally:
            await sset.close()

    asyncio.run(asyncio.wait_for(scenario(), 30))
    assert "load sensor stopped" in logged


def test_the_plugin_host_is_a_sensor_like_any_other(tmp_path: Path) -> None:
    async def scenario() -> dict[str, str]:
        sset = SensorSet("vm", lambda *a, **k: None)
        sset.configure([], {"plugins": [sys.executable, "-m", "execd.plugin_host", "--host",
                                        "vm", "--timeout", "1", "tmp_free"]})
        try:
            for _ in range(20):
                answer = await sset.collect(2.0)
                if answer.host_values:
                    return answer.host_values
            return {}
        finally:
            await sset.close()

    root = Path(__file__).resolve().parents[2]
    os.environ.setdefault("PYTHONPATH", str(root))
    values = asyncio.run(asyncio.wait_for(scenario(), 60))
    assert int(values["tmp_free"]) > 0


def test_names_and_values_that_would_break_qconf_se_are_format_errors() -> None:
    parser = AnswerParser("vm")
    parser.requested()
    answer = feed(parser, "begin", "vm:a,b:1", "vm:x=y:1", "vm:v:1,2", "vm:w:two words",
                  "vm:ok:1", "end")
    assert answer.host_values == {"ok": "1"} and len(answer.format_errors) == 4


def test_the_execd_follows_its_hosts_configuration(tmp_path: Path) -> None:
    """The qmaster's answer carries the host's load_report_time, load_sensor and
    execd_params (host-local over global: qmaster.execd_link); an execd started without
    --load-interval reports at that interval, and runs the sensors and plugins named."""
    from tests.unit.test_execd_safety import service
    execd = service(tmp_path / "spool")
    execd.epoch = "e"
    execd._on_host_reply("load_report", {"epoch": "e", "load_report_time": "00:00:07",
                                         "load_sensor": "/a.sh,/b.sh",
                                         "execd_params": "LOAD_PLUGINS=tmp_free:users"})
    assert execd._interval == 7.0
    wanted = execd.sensors.wanted
    assert list(wanted) == ["/a.sh", "/b.sh", "plugins"]
    assert wanted["plugins"][1][-2:] == ("tmp_free", "users")
    execd._on_host_reply("ping", {"epoch": "e"})  # no configuration: nothing changes
    assert list(execd.sensors.wanted) == ["/a.sh", "/b.sh", "plugins"]
    execd._on_host_reply("load_report", {"epoch": "e", "load_report_time": "00:00:40",
                                         "load_sensor": "none", "execd_params": "none"})
    assert execd._interval == 40.0 and execd.sensors.wanted == {}
