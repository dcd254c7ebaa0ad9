"""Load sensors: programs the execd asks for load values every ``load_report_time``.

Grid Engine's protocol (sge_conf(5) ``load_sensor``, checked against 8.1.9 in
tests/data/reference/load/README.md): the sensor is a long-lived child; for every report
the execd writes one line (an empty one) to its stdin; the sensor answers on stdout
``begin``, lines ``host:name:value`` (``global:name:value`` for the global host) and
``end``; ``quit`` asks it to exit. 8.1.9 runs each entry of the comma-separated
``load_sensor`` through ``/bin/sh -c`` and restarts a sensor whose file changed.

This module owns the parsing of answers (:class:`AnswerParser`, pure) and the life of
each sensor process (:class:`LoadSensor`) and of the set the configuration names
(:class:`SensorSet`). The execd stays in charge whatever a sensor does:

- a sensor that does not answer keeps its last values for ``HANG_REQUESTS`` requests, is
  then ended and started anew (8.1.9 keeps the stale values for ever);
- a sensor that exits is started again after a pause that doubles up to
  ``MAX_RESTART_PAUSE`` (8.1.9 never restarts it and spins on the closed pipe);
- an answer of more than ``MAX_ANSWER_LINES`` lines, or a line longer than
  ``MAX_LINE_BYTES``, ends the sensor as a flood; lines that are not ``host:name:value``
  are logged in 8.1.9's words (``Format error from loadsensor ...``), a bounded number
  per answer, and the rest of the answer is used;
- the sensor's stderr is logged line by line, a bounded number per minute.
Writing never blocks (a request is a single byte on a pipe whose reader is counted
as hung long before the pipe could fill), and every wait is bounded.
"""
from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from common.load_values import clean_load_value

BEGIN, END, QUIT = "begin", "end", "quit"
GLOBAL_HOST = "global"
HANG_REQUESTS = 3           # unanswered requests before a sensor counts as hung
MAX_ANSWER_LINES = 4096     # the wire's bound on one host's load values
MAX_LINE_BYTES = 8192
MAX_FORMAT_ERRORS = 5       # logged per answer; the rest are counted
QUIT_GRACE_SECONDS = 2.0    # after "quit", before SIGKILL
FIRST_RESTART_PAUSE = 1.0
MAX_RESTART_PAUSE = 300.0
STDERR_LINES_PER_MINUTE = 20

Log = Callable[..., None]  # log(level, event, **fields)


def same_host(reported: str, host: str) -> bool:
    """Is ``reported`` (a sensor's host part) this execd's ``host``? Without case, and a
    short name matches its fully qualified form."""
    a, b = reported.lower(), host.lower()
    if a == b:
        return True
    if "." in a and "." in b:
        return False
    return a.split(".", 1)[0] == b.split(".", 1)[0]


@dataclass
class Answer:
    """One complete answer: values for this host and for the global host, in the order
    the sensor gave them, and the lines that were no ``host:name:value``."""

    host_values: dict[str, str] = field(default_factory=dict)
    global_values: dict[str, str] = field(default_factory=dict)
    format_errors: list[str] = field(default_factory=list)


class Flood(Exception):
    """The sensor sent more than one answer may hold."""


class AnswerParser:
    """Turns the sensor's stdout lines into answers. Pure: ``feed`` one line (without
    its newline) at a time; it returns the answer an ``end`` completed, else None.

    Lines outside ``begin`` ... ``end`` are ignored (8.1.9 does the same), but count
    towards the flood bound like any other line read since the last request.
    """

    def __init__(self, host: str) -> None:
        self.host = host
        self.current: Answer | None = None
        self.lines_since_request = 0

    def requested(self) -> None:
        self.lines_since_request = 0

    def feed(self, line: str) -> Answer | None:
        self.lines_since_request += 1
        if self.lines_since_request > MAX_ANSWER_LINES * 2:
            raise Flood(f"more than {MAX_ANSWER_LINES * 2} lines for one request")
        word = line.strip()
        if word == BEGIN:
            self.current = Answer()
            return None
        if word == END:
            done, self.current = self.current, None
            return done
        if self.current is None:
            return None
        self._value_line(self.current, line)
        return None

    def _value_line(self, answer: Answer, line: str) -> None:
        parts = line.split(":", 2)
        if len(parts) < 3 or not parts[0] or not clean_load_value(parts[1], parts[2]):
            answer.format_errors.append(line)
            return
        host, name, value = parts
        if len(answer.host_values) + len(answer.global_values) >= MAX_ANSWER_LINES:
            raise Flood(f"more than {MAX_ANSWER_LINES} values in one answer")
        if host == GLOBAL_HOST:
            answer.global_values[name] = value
        elif same_host(host, self.host):
            answer.host_values[name] = value
        # a line for another host is ignored without a word, as 8.1.9 does


def sensor_commands(load_sensor: str) -> list[str]:
    """The programs of sge_conf(5) ``load_sensor`` (comma-separated; ``none``: none)."""
    return [item.strip() for item in load_sensor.split(",")
            if item.strip() and item.strip().lower() != "none"]


def _mtime(path: str) -> float | None:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return None


class LoadSensor:
    """One sensor process. ``argv`` is run as given; ``command`` (a ``load_sensor``
    entry) is run as ``/bin/sh -c command`` and watched for changes of its file."""

    def __init__(self, name: str, host: str, log: Log, *, command: str | None = None,
                 argv: Sequence[str] | None = None, env: dict[str, str] | None = None
                 ) -> None:
        if (command is None) == (argv is None):
            raise ValueError("a sensor has a command or an argv")
        self.name, self.host, self.log = name, host, log
        self.command = command
        self.argv = list(argv) if argv is not None else ["/bin/sh", "-c", command or ""]
        self.env = env
        self.proc: asyncio.subprocess.Process | None = None
        self.parser = AnswerParser(host)
        self.answer = Answer()          # the last complete answer
        self.answered = asyncio.Event()  # set by an answer to the latest request
        self.unanswered = 0
        self.started_mtime: float | None = None
        self.next_start = 0.0            # monotonic time before which no start is tried
        self.restart_pause = FIRST_RESTART_PAUSE
        self.format_errors = 0
        self._tasks: list[asyncio.Task[Any]] = []
        self._stderr_budget = (0.0, 0)   # (minute start, lines logged)
        self._closing = False

    # ---- life cycle ------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    async def start(self) -> bool:
        """Start the process (False, logged, when it cannot be started)."""
        if self.proc is not None:  # an earlier run that ended: let go of its pipes
            self._release(self.proc)
        self._closing = False
        self.parser = AnswerParser(self.host)
        self.unanswered = 0
        if self.command is not None:
            self.started_mtime = _mtime(self._watched_path())
        try:
            # from /: the execd's working directory may be one users can write to, and
            # a program there (or python -m's sys.path) must not pick up their files
            self.proc = await asyncio.create_subprocess_exec(
                *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, env=self.env, start_new_session=True,
                limit=MAX_LINE_BYTES, cwd="/")
        except OSError as exc:
            self.log("error", "load sensor cannot be started", sensor=self.name,
                     error=str(exc))
            self._pause_restart()
            return False
        self.log("info", "load sensor started", sensor=self.name, pid=self.proc.pid)
        proc = self.proc
        self._tasks = [asyncio.ensure_future(self._read_stdout(proc)),
                       asyncio.ensure_future(self._read_stderr(proc))]
        return True

    def _watched_path(self) -> str:
        return (self.command or "").split()[0] if (self.command or "").split() else ""

    def changed_on_disk(self) -> bool:
        """Has the sensor's file changed since it was started (8.1.9 restarts it)?"""
        if self.command is None or self.started_mtime is None:
            return False
        return _mtime(self._watched_path()) != self.started_mtime

    async def stop(self, *, why: str = "") -> None:
        """Ask the sensor to quit, then end its session if it does not; its values are
        gone. Whatever interrupts the wait, the session is killed."""
        self._closing = True
        proc, self.proc = self.proc, None
        self.answer = Answer()
        running = proc is not None and proc.returncode is None
        try:
            if proc is not None and running:
                if why:
                    self.log("warning", "load sensor stopped", sensor=self.name,
                             pid=proc.pid, reason=why)
                self._write(proc, QUIT + "\n")
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(proc.wait(), QUIT_GRACE_SECONDS)
        finally:
            if proc is not None and running:
                self._kill(proc)  # it, or what it left behind in its session
            for task in self._tasks:
                task.cancel()
            self._tasks = []
            if proc is not None:
                self._release(proc)

    @staticmethod
    def _release(proc: asyncio.subprocess.Process) -> None:
        """Close the pipes of a run that is over (asyncio offers no public call that
        closes the transport; left to the garbage collector it warns, or closes on a
        loop that is gone)."""
        transport = getattr(proc, "_transport", None)
        if transport is not None:
            with contextlib.suppress(Exception):
                transport.close()

    @staticmethod
    def _kill(proc: asyncio.subprocess.Process) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)

    def _pause_restart(self) -> None:
        self.next_start = time.monotonic() + self.restart_pause
        self.restart_pause = min(self.restart_pause * 2, MAX_RESTART_PAUSE)

    # ---- requests and answers --------------------------------------------------------
    def request(self) -> None:
        """Ask for values: one empty line (``SensorSet`` restarts a sensor that left
        more than ``HANG_REQUESTS`` requests unanswered)."""
        if self.proc is None:
            return
        self.answered.clear()
        self.parser.requested()
        self.unanswered += 1
        self._write(self.proc, "\n")

    def hung(self) -> bool:
        return self.unanswered > HANG_REQUESTS

    @staticmethod
    def _write(proc: asyncio.subprocess.Process, text: str) -> None:
        stdin = proc.stdin
        if stdin is None or stdin.is_closing():
            return
        with contextlib.suppress(OSError, RuntimeError):
            stdin.write(text.encode())

    async def _read_stdout(self, proc: asyncio.subprocess.Process) -> None:
        assert proc.stdout is not None
        try:
            while True:
                try:
                    raw = await proc.stdout.readline()
                except (ValueError, asyncio.LimitOverrunError):
                    raise Flood(f"a line longer than {MAX_LINE_BYTES} bytes") from None
                if not raw:
                    break
                answer = self.parser.feed(raw.decode("utf-8", "replace").rstrip("\r\n"))
                if answer is not None:
                    self._take(answer)
        except Flood as flood:
            if proc is self.proc:
                self.log("error", "load sensor floods the execd; ended", sensor=self.name,
                         reason=str(flood))
                self._kill(proc)
                self.answer = Answer()
                self._pause_restart()
            return
        await proc.wait()
        if proc is self.proc and not self._closing:
            self.log("error", "load sensor exited", sensor=self.name, pid=proc.pid,
                     status=proc.returncode)
            self.answer = Answer()
            self._kill(proc)
            self._pause_restart()

    def _take(self, answer: Answer) -> None:
        for line in answer.format_errors[:MAX_FORMAT_ERRORS]:
            # 8.1.9's words; it keeps the newline inside the quotes
            self.log("error", f'Format error from loadsensor "{self.name}". '
                              f'Received: "{line}\n"', sensor=self.name)
        if len(answer.format_errors) > MAX_FORMAT_ERRORS:
            self.log("error", "more format errors from load sensor", sensor=self.name,
                     count=len(answer.format_errors) - MAX_FORMAT_ERRORS)
        self.format_errors += len(answer.format_errors)
        self.answer = answer
        self.unanswered = 0
        self.restart_pause = FIRST_RESTART_PAUSE  # it works again
        self.answered.set()

    async def _read_stderr(self, proc: asyncio.subprocess.Process) -> None:
        assert proc.stderr is not None
        while True:
            try:
                raw = await proc.stderr.readline()
            except (ValueError, asyncio.LimitOverrunError):
                raw = b"(a line too long to log)\n"
                with contextlib.suppress(Exception):
                    await proc.stderr.read(MAX_LINE_BYTES)
            if not raw:
                return
            now = time.monotonic()
            start, count = self._stderr_budget
            if now - start >= 60.0:
                start, count = now, 0
            if count < STDERR_LINES_PER_MINUTE:
                self.log("warning", "load sensor says", sensor=self.name,
                         line=raw.decode("utf-8", "replace").rstrip("\n")[:1024])
            self._stderr_budget = (start, count + 1)


class SensorSet:
    """The sensors the configuration names, kept in step with it.

    ``configure`` takes the wanted sensors as name -> (command or argv); ``collect``
    asks every running sensor once and returns what they answered within the wait,
    the values of sensors that did not answer in time being their last ones.
    """

    def __init__(self, host: str, log: Log, env: dict[str, str] | None = None) -> None:
        self.host, self.log, self.env = host, log, env
        self.sensors: dict[str, LoadSensor] = {}
        self.wanted: dict[str, tuple[str | None, tuple[str, ...] | None]] = {}

    def configure(self, commands: Sequence[str],
                  programs: dict[str, Sequence[str]] | None = None) -> None:
        """Wanted sensors: ``commands`` (load_sensor entries, run through /bin/sh) and
        ``programs`` (name -> argv, e.g. the plugin host). Applied by ``collect``."""
        wanted: dict[str, tuple[str | None, tuple[str, ...] | None]] = {
            c: (c, None) for c in commands}
        for name, argv in (programs or {}).items():
            wanted[name] = (None, tuple(argv))
        self.wanted = wanted

    async def _apply(self) -> None:
        stopping = [self.sensors.pop(name).stop(why="no longer configured")
                    for name in [n for n in self.sensors if n not in self.wanted
                                 or self._spec(self.sensors[n]) != self.wanted[n]]]
        hung = []
        for name, (command, argv) in self.wanted.items():
            sensor = self.sensors.get(name)
            if sensor is None:
                sensor = self.sensors[name] = LoadSensor(
                    name, self.host, self.log, command=command, argv=argv, env=self.env)
            if sensor.running:
                if sensor.changed_on_disk():
                    stopping.append(sensor.stop(why="its file changed"))
                elif sensor.hung():
                    stopping.append(sensor.stop(
                        why=f"{HANG_REQUESTS} requests were not answered"))
                    hung.append(sensor)
        if stopping:  # side by side: each may take its quit grace
            await asyncio.gather(*stopping)
        for sensor in hung:
            sensor._pause_restart()
        now = time.monotonic()
        for sensor in self.sensors.values():
            if not sensor.running and now >= sensor.next_start:
                await sensor.start()

    @staticmethod
    def _spec(sensor: LoadSensor) -> tuple[str | None, tuple[str, ...] | None]:
        return (sensor.command, None) if sensor.command is not None \
            else (None, tuple(sensor.argv))

    async def collect(self, wait: float) -> Answer:
        """Request values from every sensor and wait up to ``wait`` seconds for the
        answers; the merged values (in sensor order, a later sensor's value for the same
        name winning)."""
        await self._apply()
        asked = [s for s in self.sensors.values() if s.running]
        for sensor in asked:
            sensor.request()
        if asked and wait > 0:
            waits = [asyncio.ensure_future(s.answered.wait()) for s in asked]
            done, pending = await asyncio.wait(waits, timeout=wait)
            for w in pending:
                w.cancel()
        merged = Answer()
        for sensor in self.sensors.values():
            merged.host_values.update(sensor.answer.host_values)
            merged.global_values.update(sensor.answer.global_values)
        return merged

    async def close(self) -> None:
        self.wanted = {}
        sensors, self.sensors = list(self.sensors.values()), {}
        await asyncio.gather(*(sensor.stop() for sensor in sensors))
