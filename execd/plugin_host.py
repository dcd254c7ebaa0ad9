"""A Grid Engine load sensor that runs Python load-sensor plugins (``execd/plugins``).

    python -m execd.plugin_host [--host HOST] [--timeout SECONDS] NAME [NAME ...]

This module owns the sensor side of the load sensor protocol (sge_conf(5) ``load_sensor``)
for plugins, and their isolation from each other. Each line read on stdin (the execd writes
an empty one every ``load_report_time``) starts a round: every plugin's ``read()`` is called
in the plugin's own worker thread, the host waits at most ``--timeout`` seconds (default 2)
for all of them together and answers on stdout

    begin
    HOST:name:value        (one line per value of every plugin that finished in time)
    end

and flushes. ``quit`` or end of file on stdin ends the program at once: the workers are
daemon threads and the program leaves with ``os._exit``, so no hung plugin (nor a thread
a plugin started) can keep it alive.

The execd starts it (``execd/service.py``, ``execd/sensors.py``) when the execd parameter
``LOAD_PLUGINS`` names plugins (``execd_params LOAD_PLUGINS=tmp_free:users:gpu`` or
``LOAD_PLUGINS=all``); docs/load-sensor-plugins.md is the guide to writing a plugin.

NAMEs: the name of an installed plugin (an entry point of the group
``pygridengine.load_sensors``), ``all`` for every installed plugin, or ``module:Class``,
which is imported directly without any entry point (for tests and for trying a plugin
before packaging it; the module must be importable, e.g. through PYTHONPATH).

Isolation: a plugin that raises loses its own values of that round; one whose previous
``read()`` is still running is not called again (its thread is busy: threads never pile
up) and its values are left out; one that fails to import or to construct is left out for
the program's life; invalid names and values (``execd.plugins.check_name`` and
``format_value``) are dropped. Each such event is one line on stderr naming the plugin,
at most one per plugin and kind of trouble per minute (with the number of similar lines
left out since), so a plugin failing every second cannot flood the execd's log. A value
name two plugins report is taken from the first one on the command line.

The program stays cheap: only the standard library's basics, argparse at start-up,
``importlib.metadata`` when entry points are looked up, and what the plugins import;
between rounds every thread is blocked (stdin, an event, a condition), nothing polls.
"""
from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from execd.plugins import ENTRY_POINT_GROUP, check_name, format_value

DEFAULT_TIMEOUT = 2.0
LOG_INTERVAL = 60.0  # seconds between two stderr lines of one plugin's one kind of trouble
_MAX_LOG_KEYS = 1000  # beyond this, stale rate-limit entries are pruned
_MAX_LINE = 400
_MAX_REQUEST = 4096

Outcome = tuple[Any, BaseException | None]  # (what read() returned, what it raised)


class StderrLog:
    """One-line messages on stderr, rate-limited per key (plugin, kind of trouble, ...)."""

    def __init__(self, interval: float = LOG_INTERVAL,
                 clock: Callable[[], float] = time.monotonic,
                 write: Callable[[str], None] | None = None) -> None:
        self._interval = interval
        self._clock = clock
        self._write = write if write is not None else _write_stderr
        self._lock = threading.Lock()  # workers log late failures, the main thread the rest
        self._last: dict[tuple[str, ...], float] = {}
        self._suppressed: dict[tuple[str, ...], int] = {}

    def say(self, key: tuple[str, ...], message: str) -> None:
        """Write ``message`` unless a line of ``key`` was written less than interval ago."""
        now = self._clock()
        with self._lock:
            last = self._last.get(key)
            if last is not None and now - last < self._interval:
                self._suppressed[key] = self._suppressed.get(key, 0) + 1
                return
            left_out = self._suppressed.pop(key, 0)
            self._last[key] = now
            if len(self._last) > _MAX_LOG_KEYS:
                self._prune(now)
        if left_out:
            message += f" ({left_out} similar message(s) left out)"
        self._write(message)

    def _prune(self, now: float) -> None:
        # Keys can be many (a plugin inventing value names); old ones have no effect anyway.
        for key in [k for k, t in self._last.items() if now - t >= self._interval]:
            del self._last[key]
            self._suppressed.pop(key, None)


def _one_line(text: str) -> str:
    text = " ".join(text.split())  # an exception's message may hold newlines
    return text if len(text) <= _MAX_LINE else text[:_MAX_LINE] + "..."


def _write_stderr(message: str) -> None:
    data = ("plugin_host: " + _one_line(message) + "\n").encode("utf-8", "replace")
    try:
        os.write(2, data)
    except OSError:
        pass  # nobody reads stderr any more; the protocol on stdout is what matters


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class _Round:
    """The results of one request: workers deliver, the main thread collects once."""

    def __init__(self, expected: int) -> None:
        self._cond = threading.Condition()
        self._pending = expected
        self._results: dict[int, Outcome] = {}
        self._closed = False

    def deliver(self, index: int, outcome: Outcome) -> bool:
        """Record a worker's outcome; False when the round was already answered."""
        with self._cond:
            if self._closed:
                return False
            self._results[index] = outcome
            self._pending -= 1
            if self._pending <= 0:
                self._cond.notify()
            return True

    def collect(self, timeout: float) -> dict[int, Outcome]:
        """The outcomes delivered within ``timeout`` seconds (all of them, if sooner)."""
        with self._cond:
            self._cond.wait_for(lambda: self._pending <= 0, timeout)
            self._closed = True
            return dict(self._results)


class Worker:
    """One plugin and the daemon thread that calls its ``read()``, one call at a time."""

    def __init__(self, index: int, label: str, plugin: Any, log: StderrLog) -> None:
        self.index = index
        self.label = label
        self.plugin = plugin
        self._log = log
        self._go = threading.Event()
        self._round: _Round | None = None
        self._thread: threading.Thread | None = None
        # True from submit() until read() has returned or raised; only the main thread
        # sets it, only the worker clears it.
        self.busy = False
        # values a read() returned after its round had closed: reported with the next
        # round, so that a plugin slower than the timeout still reports (one behind)
        self._late: Any = None
        self._late_lock = threading.Lock()

    def take_late(self) -> Any:
        """The values of a read() that finished too late for its round, once."""
        with self._late_lock:
            late, self._late = self._late, None
        return late

    def submit(self, round_: _Round) -> None:
        """Have the worker call ``read()`` for ``round_`` (only when not busy)."""
        self._round = round_
        self.busy = True
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=f"plugin-{self.label}",
                                            daemon=True)
            self._thread.start()
        self._go.set()

    def _run(self) -> None:
        while True:
            self._go.wait()
            self._go.clear()
            round_ = self._round
            assert round_ is not None
            outcome: Outcome
            try:
                outcome = (self.plugin.read(), None)
            except BaseException as exc:  # SystemExit too: it must not end this worker
                outcome = (None, exc)
            # Cleared before delivering, so that the next round, which may start as soon
            # as this delivery completes the current one, finds the worker free.
            self.busy = False
            if not round_.deliver(self.index, outcome):
                if outcome[1] is not None:
                    # Too late for its round, but the failure is still worth a line.
                    self._log.say((self.label, "raised"), f"plugin {self.label!r}: read() "
                                                          f"raised {_describe(outcome[1])}")
                else:
                    with self._late_lock:
                        self._late = outcome[0]


# --- loading ---------------------------------------------------------------------------

Loader = Callable[[], Any]  # returns the plugin class


def _import_spec(spec: str) -> Any:
    import importlib

    module_name, _, attr = spec.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def _installed() -> dict[str, Loader]:
    from importlib.metadata import entry_points

    found: dict[str, Loader] = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(ep.name, ep.load)  # a name installed twice: the first one
    return found


def _requested(names: Sequence[str], log: StderrLog) -> Iterator[tuple[str, Loader]]:
    """(label, loader) for each requested plugin, without repetitions."""
    installed: dict[str, Loader] | None = None
    for name in names:
        if ":" in name:
            yield name, (lambda spec=name: _import_spec(spec))
            continue
        if installed is None:
            installed = _installed()
        if name == "all":
            if not installed:
                log.say(("all",), f"no plugins installed (entry point group {ENTRY_POINT_GROUP})")
            yield from sorted(installed.items())
        elif name in installed:
            yield name, installed[name]
        else:
            log.say((name, "unknown"), f"plugin {name!r}: not installed (no entry point "
                                       f"{name!r} in group {ENTRY_POINT_GROUP}), left out")


def load_plugins(names: Sequence[str], log: StderrLog) -> list[Worker]:
    """Import and construct the plugins ``names`` asks for; failures are left out."""
    workers: list[Worker] = []
    seen: set[str] = set()
    for label, loader in _requested(names, log):
        if label in seen:
            continue
        seen.add(label)
        try:
            cls = loader()
        except (Exception, SystemExit) as exc:
            log.say((label, "import"), f"plugin {label!r}: import failed: {_describe(exc)}; "
                                       "left out")
            continue
        if ":" in label:
            # A module:Class spec is named by its class's ``name`` when that is usable.
            own = getattr(cls, "name", None)
            if isinstance(own, str) and own and ":" not in own and own not in seen:
                label = own
                seen.add(own)
        try:
            plugin = cls()
        except (Exception, SystemExit) as exc:
            log.say((label, "construct"), f"plugin {label!r}: construction failed: "
                                          f"{_describe(exc)}; left out")
            continue
        if not callable(getattr(plugin, "read", None)):
            log.say((label, "construct"), f"plugin {label!r}: has no read() method; left out")
            continue
        workers.append(Worker(len(workers), label, plugin, log))
    return workers


# --- rounds ----------------------------------------------------------------------------

def _plugin_lines(worker: Worker, values: Any, host: str, taken: set[str],
                  log: StderrLog) -> list[str]:
    label = worker.label
    if not isinstance(values, Mapping):
        log.say((label, "type"), f"plugin {label!r}: read() returned "
                                 f"{type(values).__name__}, not a mapping; values left out")
        return []
    lines: list[str] = []
    try:
        items = list(values.items())
    except Exception as exc:  # a mapping of the plugin's own making may fail here
        log.say((label, "raised"), f"plugin {label!r}: reading its values raised "
                                   f"{_describe(exc)}")
        return []
    for name, value in items:
        try:
            check_name(name)
            text = format_value(value)
        except (TypeError, ValueError) as exc:
            shown = repr(name)[:60]
            log.say((label, "invalid", shown), f"plugin {label!r}: value {shown} dropped: "
                                               f"{exc}")
            continue
        if name in taken:
            log.say((label, "duplicate", name), f"plugin {label!r}: value {name!r} "
                                                "already reported by another plugin; dropped")
            continue
        taken.add(name)
        lines.append(f"{host}:{name}:{text}")
    return lines


def run_round(workers: Sequence[Worker], host: str, timeout: float, log: StderrLog
              ) -> list[str]:
    """One report: call the free workers, wait at most ``timeout``, the protocol lines."""
    called = [w for w in workers if not w.busy]
    round_ = _Round(len(called))
    for worker in called:
        worker.submit(round_)
    results = round_.collect(timeout) if called else {}
    lines = ["begin"]
    taken: set[str] = set()
    for worker in workers:
        outcome = results.get(worker.index)
        late = worker.take_late()
        if outcome is None and late is not None:
            outcome = (late, None)  # an earlier round's answer that came after its end
        if outcome is None:
            # Still running: this round's, or an earlier round's call that has hung.
            log.say((worker.label, "slow"), f"plugin {worker.label!r}: read() still running "
                                            f"after {timeout:g} s; its values left out")
            continue
        values, error = outcome
        if error is not None:
            log.say((worker.label, "raised"), f"plugin {worker.label!r}: read() raised "
                                              f"{_describe(error)}")
            continue
        lines.extend(_plugin_lines(worker, values, host, taken, log))
    lines.append("end")
    return lines


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def serve(workers: Sequence[Worker], host: str, timeout: float, log: StderrLog,
          stdin: Any = None, stdout_fd: int = 1) -> int:
    """Answer requests on ``stdin`` until ``quit`` or end of file; the exit status."""
    stream = stdin if stdin is not None else sys.stdin.buffer
    while True:
        # Bounded: a request is an empty line; a runaway writer must not grow our memory.
        line = stream.readline(_MAX_REQUEST)
        if not line:
            return 0  # EOF: the execd has gone
        if line.strip() == b"quit":
            return 0
        report = "\n".join(run_round(workers, host, timeout, log)) + "\n"
        try:
            # Written straight to the descriptor: one write per report, no buffer to flush.
            _write_all(stdout_fd, report.encode("utf-8"))
        except OSError:  # BrokenPipeError: the reader has gone
            return 0


# --- command line ----------------------------------------------------------------------

def _positive_seconds(text: str) -> float:
    import argparse

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not (0 < value < float("inf")):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds: {text!r}")
    return value


def _host_name(text: str) -> str:
    import argparse

    if not text or ":" in text or not text.isprintable() or " " in text:
        raise argparse.ArgumentTypeError(f"invalid host name {text!r}")
    return text


def parse_args(argv: Sequence[str] | None) -> Any:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m execd.plugin_host",
        description="Grid Engine load sensor running Python load-sensor plugins.")
    parser.add_argument("--host", type=_host_name, default=None,
                        help="host name written in the reports (default: this host's name)")
    parser.add_argument("--timeout", type=_positive_seconds, default=DEFAULT_TIMEOUT,
                        help="seconds to wait for all plugins of a report together "
                             f"(default {DEFAULT_TIMEOUT:g})")
    parser.add_argument("names", nargs="+", metavar="NAME",
                        help="an installed plugin, 'all', or module:Class")
    args = parser.parse_args(argv)
    if args.host is None:
        import socket

        args.host = socket.gethostname()
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the load sensor; returns the exit status."""
    args = parse_args(argv)
    log = StderrLog()
    workers = load_plugins(args.names, log)
    try:
        return serve(workers, args.host, args.timeout, log)
    except KeyboardInterrupt:  # run by hand and stopped with ^C
        return 130


if __name__ == "__main__":
    status = main()
    # os._exit, not sys.exit: a plugin's hung read() or a non-daemon thread it started
    # must not keep the sensor alive after quit (the execd would wait for it).
    os._exit(status)
