"""Python load-sensor plugins: the API and its formatting rules (execd/plugins), the three
plugins on this machine (tmp_free, users, gpu with a fake nvidia-smi and without), and the
plugin host (execd/plugin_host.py), in-process and as a real load sensor process driven
through its stdin and stdout with test plugins that raise, hang, and return bad values.

Every wait is bounded; nothing here needs root or a particular user.
"""
from __future__ import annotations

import math
import os
import queue
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Iterator, Mapping
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import psutil
import pytest

from execd import plugin_host
from execd.plugins import ENTRY_POINT_GROUP, LoadPlugin, check_name, format_value
from execd.plugins.gpu import Gpu, parse_smi
from execd.plugins.tmp_free import PATH_ENV, TmpFree
from execd.plugins.users import Users

REPO = Path(__file__).resolve().parents[2]


def _pythonpath(*first: Path) -> str:
    """PYTHONPATH for a child: ``first``, this checkout, then what we were given."""
    parts = [str(p) for p in (*first, REPO)]
    if os.environ.get("PYTHONPATH"):
        parts.append(os.environ["PYTHONPATH"])
    return os.pathsep.join(parts)
MiB = 1024 * 1024

# --- the API: value names and formatting -----------------------------------------------


@pytest.mark.parametrize("value, text", [
    (0.444824, "0.444824"),
    (0.4448246, "0.444825"),
    (2.0, "2.000000"),
    (-1.5, "-1.500000"),
    (0, "0"),
    (3, "3"),
    (1099511627776, "1099511627776"),   # a MEMORY value in bytes stays an integer
    ("2G", "2G"),
    ("lx-amd64", "lx-amd64"),
    ("TRUE", "TRUE"),
])
def test_format_value(value: Any, text: str) -> None:
    assert format_value(value) == text


@pytest.mark.parametrize("value, error", [
    (True, TypeError), (False, TypeError), (None, TypeError), ([1], TypeError),
    (b"1", TypeError), (1j, TypeError),
    (math.nan, ValueError), (math.inf, ValueError), (-math.inf, ValueError),
    ("", ValueError), ("a:b", ValueError), ("a b", ValueError), ("a\nb", ValueError),
    ("a\tb", ValueError), ("x" * 2000, ValueError),
])
def test_format_value_refuses(value: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        format_value(value)


def test_check_name() -> None:
    for good in ("tmp_free", "nuser", "gpu_free_mem", "scratch.free", "lic-matlab", "NUM"):
        assert check_name(good) == good
    for bad in ("", "a:b", "a b", "a\nb", "a=b", "a,b", "a/b", "x" * 300, "tab\t"):
        with pytest.raises(ValueError):
            check_name(bad)
    with pytest.raises(TypeError):
        check_name(5)


def test_entry_points_registered() -> None:
    found = {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}
    assert {"tmp_free", "users", "gpu"} <= set(found)
    classes = {"tmp_free": TmpFree, "users": Users, "gpu": Gpu}
    for name, cls in classes.items():
        assert found[name].load() is cls
        assert cls.name == name
        values = cls().read()
        assert isinstance(values, Mapping)


def test_construction_is_cheap(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_process(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a plugin ran a program while being constructed")
    monkeypatch.setattr(subprocess, "run", no_process)
    monkeypatch.setattr(subprocess, "Popen", no_process)
    for cls in (TmpFree, Users, Gpu):
        cls()


def test_base_class() -> None:
    class Mine(LoadPlugin):
        name = "mine"

        def read(self) -> Mapping[str, int]:
            return {"mine": 1}

    assert Mine().read() == {"mine": 1}
    with pytest.raises(NotImplementedError):
        LoadPlugin().read()


# --- the plugins on this machine -------------------------------------------------------


def _free(path: str) -> int:
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


def test_tmp_free_env_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(PATH_ENV, str(tmp_path))
    before = _free(str(tmp_path))
    values = TmpFree().read()
    after = _free(str(tmp_path))
    assert set(values) == {"tmp_free"}
    value = values["tmp_free"]
    assert isinstance(value, int) and not isinstance(value, bool)
    slack = 64 * MiB  # other processes write to the same file system meanwhile
    assert min(before, after) - slack <= value <= max(before, after) + slack
    assert format_value(value) == str(value)


def test_tmp_free_default_is_tempdir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PATH_ENV, raising=False)
    expected = _free(tempfile.gettempdir())
    assert abs(TmpFree().read()["tmp_free"] - expected) <= 64 * MiB


def test_tmp_free_missing_path_raises(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(PATH_ENV, str(tmp_path / "absent"))
    with pytest.raises(OSError):
        TmpFree().read()


def test_users_matches_psutil() -> None:
    expected = len({u.name for u in psutil.users()})
    assert Users().read() == {"nuser": expected}


def test_users_counts_each_user_once(monkeypatch: pytest.MonkeyPatch) -> None:
    class Session:
        def __init__(self, name: str) -> None:
            self.name = name
    sessions = [Session("alice"), Session("alice"), Session("bob")]
    monkeypatch.setattr(psutil, "users", lambda: sessions)
    assert Users().read() == {"nuser": 2}


FAKE_SMI_CSV = "0, 15102, 16384\n1, 81037, 81920\n"


def _fake_smi(bin_dir: Path, body: str) -> Path:
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / "nvidia-smi"
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(0o755)
    return script


@pytest.fixture
def no_nvml(monkeypatch: pytest.MonkeyPatch) -> None:
    """The nvidia-smi path even on a machine with pynvml and a driver."""
    monkeypatch.setattr(Gpu, "_nvml_module", lambda self: None)


def test_gpu_fake_nvidia_smi(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                             no_nvml: None) -> None:
    bin_dir = tmp_path / "bin"
    args_file = tmp_path / "args"
    _fake_smi(bin_dir, f'echo "$@" > {args_file}\n'
                       + "".join(f'echo "{line}"\n' for line in FAKE_SMI_CSV.splitlines()))
    monkeypatch.setenv("PATH", str(bin_dir))
    values = Gpu().read()
    assert values == {"gpu_count": 2, "gpu_free_mem": (15102 + 81037) * MiB}
    assert args_file.read_text().split() == [
        "--query-gpu=index,memory.free,memory.total", "--format=csv,noheader,nounits"]
    assert [format_value(v) for v in values.values()] == ["2", str((15102 + 81037) * MiB)]


def test_gpu_absent(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, no_nvml: None) -> None:
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert Gpu().read() == {}


def test_gpu_absent_on_this_machine() -> None:
    # Whatever this machine has: a mapping of the two names, or nothing at all.
    values = Gpu().read()
    assert set(values) in (set(), {"gpu_count", "gpu_free_mem"})


def test_gpu_no_devices_and_failures(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                     no_nvml: None) -> None:
    bin_dir = tmp_path / "bin"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin")
    _fake_smi(bin_dir, 'echo "No devices were found"\nexit 6\n')
    assert Gpu().read() == {"gpu_count": 0, "gpu_free_mem": 0}
    _fake_smi(bin_dir, 'echo "NVIDIA-SMI has failed because it couldn\'t communicate '
                       'with the NVIDIA driver."\nexit 9\n')
    with pytest.raises(RuntimeError, match="exited with 9: NVIDIA-SMI has failed"):
        Gpu().read()
    _fake_smi(bin_dir, "exec sleep 30\n")
    plugin = Gpu()
    plugin.smi_timeout = 0.3
    started = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        plugin.read()
    assert time.monotonic() - started < 10


def test_parse_smi_odd_rows() -> None:
    text = "0, [N/A], [N/A]\n1, 100, 200\n\nWARNING: something\n"
    assert parse_smi(text) == {"gpu_count": 2, "gpu_free_mem": 100 * MiB}
    assert parse_smi("") == {"gpu_count": 0, "gpu_free_mem": 0}


def test_gpu_nvml_path(monkeypatch: pytest.MonkeyPatch) -> None:
    class Memory:
        def __init__(self, free: int) -> None:
            self.free = free

    class FakeNvml:
        @staticmethod
        def nvmlDeviceGetCount() -> int:
            return 2

        @staticmethod
        def nvmlDeviceGetHandleByIndex(i: int) -> int:
            return i

        @staticmethod
        def nvmlDeviceGetMemoryInfo(handle: int) -> Memory:
            return Memory((handle + 1) * 1000)

    monkeypatch.setattr(Gpu, "_nvml_module", lambda self: FakeNvml)
    assert Gpu().read() == {"gpu_count": 2, "gpu_free_mem": 3000}


# --- the plugin host in-process --------------------------------------------------------


class Log:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.now = 0.0
        self.log = plugin_host.StderrLog(interval=60.0, clock=lambda: self.now,
                                         write=self.lines.append)


def test_stderr_log_rate_limit() -> None:
    log = Log()
    for _ in range(5):
        log.log.say(("p", "raised"), "p raised")
    log.log.say(("q", "raised"), "q raised")
    assert log.lines == ["p raised", "q raised"]
    log.now = 61.0
    log.log.say(("p", "raised"), "p raised")
    assert log.lines[-1] == "p raised (4 similar message(s) left out)"


class Counter:
    name = "counter"

    def __init__(self) -> None:
        self.n = 0

    def read(self) -> Mapping[str, int]:
        self.n += 1
        return {"t_count": self.n}


class Raises:
    name = "raises"

    def read(self) -> Mapping[str, int]:
        raise ValueError("boom")


def test_run_round_in_process() -> None:
    log = Log()
    workers = [plugin_host.Worker(0, "counter", Counter(), log.log),
               plugin_host.Worker(1, "raises", Raises(), log.log)]
    for n in (1, 2, 3):
        assert plugin_host.run_round(workers, "h", 5.0, log.log) == [
            "begin", f"h:t_count:{n}", "end"]
    assert log.lines == ["plugin 'raises': read() raised ValueError: boom"]


def test_load_plugins_specs_and_failures() -> None:
    log = Log()
    workers = plugin_host.load_plugins(
        ["tests.unit.test_load_plugins:Counter", "tmp_free", "tmp_free", "no_such_plugin",
         "no_such_module_xyz:Thing", "tests.unit.test_load_plugins:Missing"], log.log)
    assert [w.label for w in workers] == ["counter", "tmp_free"]
    assert len(log.lines) == 3
    assert "no_such_plugin" in log.lines[0] and "not installed" in log.lines[0]
    assert "no_such_module_xyz" in log.lines[1] and "ModuleNotFoundError" in log.lines[1]
    assert "Missing" in log.lines[2] and "AttributeError" in log.lines[2]


def test_all_is_every_installed_plugin() -> None:
    log = Log()
    labels = [w.label for w in plugin_host.load_plugins(["all"], log.log)]
    installed = {ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)}
    assert set(labels) == installed and labels == sorted(labels)


def test_small_import_set(tmp_path: Path) -> None:
    # The host with tmp_free and gpu (no nvidia-smi here) must not pull in psutil nor
    # subprocess; users needs psutil, only when it reads. Measured against what the
    # interpreter had already loaded at start (site and .pth files may load tempfile).
    code = textwrap.dedent("""
        import sys
        before = set(sys.modules)
        from execd import plugin_host
        log = plugin_host.StderrLog()
        workers = plugin_host.load_plugins(["execd.plugins.tmp_free:TmpFree",
                                            "execd.plugins.gpu:Gpu"], log)
        print(plugin_host.run_round(workers, "h", 5.0, log))
        print(sorted(m for m in ("psutil", "subprocess", "tempfile", "zmq", "structlog",
                                 "asyncio") if m in set(sys.modules) - before))
    """)
    (tmp_path / "empty").mkdir()
    env = {**os.environ, "PATH": str(tmp_path / "empty"), PATH_ENV: str(tmp_path),
           "PYTHONPATH": _pythonpath()}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=str(tmp_path), timeout=60, check=True).stdout
    report, loaded = out.splitlines()
    assert "h:tmp_free:" in report and "gpu" not in report
    assert loaded == "[]"


# --- the plugin host as a load sensor process ------------------------------------------

TEST_PLUGINS = '''
"""Load-sensor plugins for tests/unit/test_load_plugins.py."""
import os
import time


class Normal:
    name = "normal"

    def __init__(self):
        self.n = 0

    def read(self):
        self.n += 1
        return {"t_count": self.n, "t_float": 0.4448242, "t_mem": "2G"}


class Raising:
    name = "raising"

    def read(self):
        raise ValueError("boom\\nsecond line")


class Hanging:
    name = "hanging"

    def read(self):
        with open(os.environ["PLUGIN_CALLS"], "a") as f:
            f.write("hanging\\n")
        time.sleep(60)
        return {"t_hang": 1}


class SlowOnce:
    name = "slowonce"

    def __init__(self):
        self.calls = 0

    def read(self):
        self.calls += 1
        if self.calls == 1:
            time.sleep(1.5)
        return {"t_slow": self.calls}


class Bad:
    name = "bad"

    def read(self):
        return {"t_good": 7, "t:colon": 1, "t blank": 1, "t_nan": float("nan"),
                "t_inf": float("inf"), "t_list": [1], "t_nl": "a\\nb", "t_bool": True,
                "t_valcolon": "a:b", 5: 1, "t_none": None, "t_count": 99}


class NotMapping:
    name = "notmapping"

    def read(self):
        return [("t_x", 1)]


class BadInit:
    name = "badinit"

    def __init__(self):
        raise RuntimeError("cannot start")


class Exits:
    name = "exits"

    def read(self):
        raise SystemExit(3)
'''


class Sensor:
    """``python -m execd.plugin_host`` as the execd runs it: pipes, one request a line."""

    def __init__(self, tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> None:
        (tmp_path / "lsplugins.py").write_text(TEST_PLUGINS)
        self.calls = tmp_path / "calls"
        full_env = {**os.environ,
                    "PYTHONPATH": _pythonpath(tmp_path),
                    "PLUGIN_CALLS": str(self.calls), **(env or {})}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "execd.plugin_host", *args], cwd=str(tmp_path),
            env=full_env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE)
        self._out: queue.Queue[str | None] = queue.Queue()
        self._err: list[str] = []
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self._pumps = [
            threading.Thread(target=self._pump, args=(self.proc.stdout, self._out.put),
                             daemon=True),
            threading.Thread(target=self._pump, args=(self.proc.stderr, self._err.append),
                             daemon=True)]
        for pump in self._pumps:
            pump.start()

    @staticmethod
    def _pump(stream: Any, sink: Any) -> None:
        for raw in stream:
            sink(raw.decode("utf-8", "replace").rstrip("\n"))
        sink(None)

    def send(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text.encode())
        self.proc.stdin.flush()

    def report(self, timeout: float = 20.0) -> list[str]:
        """Send one request (an empty line) and read the answer up to ``end``."""
        self.send("\n")
        deadline = time.monotonic() + timeout
        lines: list[str] = []
        while True:
            line = self._out.get(timeout=max(deadline - time.monotonic(), 0.01))
            assert line is not None, f"sensor ended; got {lines}, stderr {self.stderr()}"
            lines.append(line)
            if line == "end":
                break
        assert lines[0] == "begin", lines
        return lines

    def wait(self, timeout: float = 10.0) -> tuple[int, float]:
        """Exit status and seconds until the process ended."""
        started = time.monotonic()
        rc = self.proc.wait(timeout=timeout)
        elapsed = time.monotonic() - started
        for pump in self._pumps:
            pump.join(timeout=5)
        return rc, elapsed

    def stderr(self) -> list[str]:
        return [line for line in self._err if line is not None]

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture
def sensors(tmp_path: Path) -> Iterator[Any]:
    started: list[Sensor] = []

    def start(*args: str, env: dict[str, str] | None = None) -> Sensor:
        sensor = Sensor(tmp_path, *args, env=env)
        started.append(sensor)
        return sensor
    yield start
    for sensor in started:
        sensor.kill()


def _values(lines: list[str]) -> dict[str, str]:
    assert lines[0] == "begin" and lines[-1] == "end"
    out: dict[str, str] = {}
    for line in lines[1:-1]:
        host, name, value = line.split(":")
        assert host == "node1"
        out[name] = value
    return out


def test_host_normal_values_flow(sensors: Any) -> None:
    sensor = sensors("--host", "node1", "lsplugins:Normal")
    for n in (1, 2, 3):
        assert sensor.report() == ["begin", f"node1:t_count:{n}", "node1:t_float:0.444824",
                                   "node1:t_mem:2G", "end"]
    sensor.send("quit\n")
    rc, elapsed = sensor.wait()
    assert rc == 0 and elapsed < 5
    assert sensor.stderr() == []


def test_host_hung_plugin_costs_only_its_values(sensors: Any) -> None:
    sensor = sensors("--host", "node1", "--timeout", "1", "lsplugins:Normal",
                     "lsplugins:Hanging")
    started = time.monotonic()
    first = sensor.report()
    assert time.monotonic() - started < 10
    assert _values(first) == {"t_count": "1", "t_float": "0.444824", "t_mem": "2G"}
    for n in (2, 3, 4):
        assert _values(sensor.report())["t_count"] == str(n)
    # The hung read() was called once: later rounds skip it instead of piling up threads.
    assert sensor.calls.read_text() == "hanging\n"
    sensor.send("quit\n")
    rc, elapsed = sensor.wait()
    assert rc == 0 and elapsed < 5  # the sleeping worker does not keep it alive
    slow = [line for line in sensor.stderr() if "'hanging'" in line]
    assert len(slow) == 1 and "still running" in slow[0]


def test_host_slow_plugin_comes_back(sensors: Any) -> None:
    sensor = sensors("--host", "node1", "--timeout", "0.3", "lsplugins:Normal",
                     "lsplugins:SlowOnce")
    assert "t_slow" not in _values(sensor.report())
    deadline = time.monotonic() + 15
    while True:  # once its slow first call has returned, it is called again
        values = _values(sensor.report())
        if "t_slow" in values or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert values["t_slow"] == "2"


def test_host_raising_plugin_rate_limited(sensors: Any) -> None:
    sensor = sensors("--host", "node1", "lsplugins:Raising", "lsplugins:Normal",
                     "lsplugins:Exits")
    for n in range(1, 6):
        assert _values(sensor.report()) == {"t_count": str(n), "t_float": "0.444824",
                                            "t_mem": "2G"}
    sensor.send("quit\n")
    assert sensor.wait()[0] == 0
    err = sensor.stderr()
    raising = [line for line in err if "'raising'" in line]
    assert raising == ["plugin_host: plugin 'raising': read() raised ValueError: boom "
                       "second line"]
    assert [line for line in err if "'exits'" in line] == [
        "plugin_host: plugin 'exits': read() raised SystemExit: 3"]


def test_host_bad_values_dropped(sensors: Any) -> None:
    sensor = sensors("--host", "node1", "lsplugins:Normal", "lsplugins:Bad",
                     "lsplugins:NotMapping", "lsplugins:BadInit", "lsplugins:Nope",
                     "no_such_module_xyz:X")
    for n in (1, 2):
        # t_count of Bad is dropped too: Normal, first on the command line, has it.
        assert _values(sensor.report()) == {"t_count": str(n), "t_float": "0.444824",
                                            "t_mem": "2G", "t_good": "7"}
    sensor.send("quit\n")
    assert sensor.wait()[0] == 0
    err = sensor.stderr()
    bad = [line for line in err if "'bad'" in line]
    # One line per dropped value, not repeated in the second round.
    for name in ("t:colon", "t blank", "t_nan", "t_inf", "t_list", "t_nl", "t_bool",
                 "t_valcolon", "5", "t_none", "t_count"):
        assert sum(f"{name!r}" in line or f" {name} " in line for line in bad) == 1, (
            name, bad)
    assert len(bad) == 11
    assert any("'notmapping'" in line and "not a mapping" in line for line in err)
    assert any("'badinit'" in line and "RuntimeError: cannot start" in line for line in err)
    assert any("lsplugins:Nope" in line and "AttributeError" in line for line in err)
    assert any("no_such_module_xyz" in line for line in err)


def test_host_eof_ends_promptly(sensors: Any) -> None:
    sensor = sensors("--host", "node1", "--timeout", "0.2", "lsplugins:Hanging",
                     "lsplugins:Normal")
    sensor.report()
    assert sensor.proc.stdin is not None
    sensor.proc.stdin.close()
    rc, elapsed = sensor.wait()
    assert rc == 0 and elapsed < 5


def test_host_quit_first(sensors: Any) -> None:
    sensor = sensors("--host", "node1", "lsplugins:Normal")
    sensor.send("quit\n")
    rc, elapsed = sensor.wait(timeout=30)
    assert rc == 0


def test_host_real_plugins_with_fake_gpu(sensors: Any, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    _fake_smi(bin_dir, "".join(f'echo "{line}"\n' for line in FAKE_SMI_CSV.splitlines()))
    # A fake NVML must not win over the fake nvidia-smi: hide any real pynvml.
    (tmp_path / "pynvml.py").write_text("raise ImportError('hidden by the test')\n")
    sensor = sensors("--host", "node1", "all", env={
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        PATH_ENV: str(tmp_path)})
    values = _values(sensor.report())
    assert values["gpu_count"] == "2"
    assert values["gpu_free_mem"] == str((15102 + 81037) * MiB)
    assert int(values["tmp_free"]) > 0
    assert values["nuser"] == str(len({u.name for u in psutil.users()}))
    sensor.send("quit\n")
    assert sensor.wait()[0] == 0
    assert sensor.stderr() == []


def test_host_usage_errors(tmp_path: Path) -> None:
    for args in ([], ["--timeout", "0", "tmp_free"], ["--timeout", "nan", "tmp_free"],
                 ["--host", "a:b", "tmp_free"]):
        proc = subprocess.run([sys.executable, "-m", "execd.plugin_host", *args],
                              capture_output=True, text=True, timeout=60, cwd=str(tmp_path),
                              env={**os.environ, "PYTHONPATH": _pythonpath()},
                              stdin=subprocess.DEVNULL)
        assert proc.returncode == 2, (args, proc.stderr)
        assert "usage:" in proc.stderr


class Slow:
    """Answers after 0.3 s: slower than the rounds' 0.1 s timeout."""
    name = "slow"

    def __init__(self) -> None:
        self.n = 0

    def read(self) -> dict[str, int]:
        time.sleep(0.3)
        self.n += 1
        return {"t_slow": self.n}


def test_a_slow_plugin_reports_one_round_behind() -> None:
    log = Log()
    workers = [plugin_host.Worker(0, "slow", Slow(), log.log)]
    assert plugin_host.run_round(workers, "h", 0.1, log.log) == ["begin", "end"]
    time.sleep(0.4)  # its read() ends after the round closed
    # the next round calls it again and, while that runs, reports the late answer
    assert plugin_host.run_round(workers, "h", 0.1, log.log) == ["begin", "h:t_slow:1", "end"]
    time.sleep(0.4)
    assert plugin_host.run_round(workers, "h", 0.1, log.log) == ["begin", "h:t_slow:2", "end"]
