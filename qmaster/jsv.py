"""The server-side job submission verifier (``jsv_url``, sge_conf(5)), run by the qmaster.

As 8.1.9's, the JSV is one long-running child of the qmaster that verifies the jobs one
after another (common.jsv's protocol); it is started at the first submission after
``jsv_url`` names it, and started anew when ``jsv_url`` or the script's modification time
changed, or when it misbehaved. Waiting for it never stalls the qmaster: each submission
waits in its own asyncio task (qmaster.server) while the loop serves everyone else.

Bounds: each answer is awaited at most ``qmaster_params JSV_TIMEOUT`` seconds (8.1.9's
default 10); a JSV that does not answer in time, or ends, is killed and started once
more for the same job, and a second failure refuses the job with 8.1.9's ``got no
response from JSV script "PATH"``. Lines are bounded (common.jsv.MAX_LINE, MAX_LINES) and
so is the number of submissions waiting (MAX_WAITING).

As whom (docs/security.md): as 8.1.9's runs it as its admin user, the JSV runs as the
qmaster's own user, or, when the qmaster runs as root, as the user ``jsv_url`` names
(``script:user@/path``). It never gets a submitter's environment: its environment is fixed
(PATH=/bin:/usr/bin, SGE_ROOT, SGE_CELL, HOME, USER, LOGNAME), it starts in /, in a
session of its own (killed as a group). A script a root qmaster would run must be a
regular file (not a link) owned by root or by the user it runs as and writable by no one
else: a user who could change it would run code as that user.
"""
from __future__ import annotations

import asyncio
import os
import pwd
import signal
import stat
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from common import conf_params, jsv

MAX_WAITING = 256        # submissions waiting for the JSV; more are refused at once
QUIT_SECONDS = 1.0       # time a JSV has to end after QUIT before its group is killed
STDERR_LINES = 100       # stderr lines of one JSV that go to the log


def timeout_of(qmaster_params: str) -> float:
    """``JSV_TIMEOUT=n`` of qmaster_params (seconds), else 8.1.9's default."""
    seconds = conf_params.value("qmaster_params", qmaster_params, "JSV_TIMEOUT")
    return float(seconds) if isinstance(seconds, int) and seconds > 0 else jsv.DEFAULT_TIMEOUT


@dataclass(frozen=True)
class RunAs:
    """Who the JSV runs as and its fixed environment."""

    uid: int
    gid: int
    name: str
    home: str


def run_as(url: jsv.JsvUrl, *, euid: int) -> RunAs:
    """Whom the JSV at ``url`` runs as; JsvError with 8.1.9's words when it cannot."""
    if url.user is not None:
        try:
            entry = pwd.getpwnam(url.user)
        except KeyError:
            raise jsv.JsvError(f'user "{url.user}" specified in JSV URL does not exist') \
                from None
        if euid != 0 and entry.pw_uid != euid:
            raise jsv.JsvError("process has not the necessary permission to start JSV as "
                               "different user")
    else:
        entry = pwd.getpwuid(euid)
    return RunAs(entry.pw_uid, entry.pw_gid, entry.pw_name, entry.pw_dir)


def script_refusal(st: os.stat_result, runner: RunAs) -> str | None:
    """Why the qmaster will not run a script with this (lstat) status, or None."""
    if not stat.S_ISREG(st.st_mode) or not st.st_mode & 0o111:
        return "is either not a file or not executable"
    if st.st_uid not in (0, runner.uid):
        return f"is owned by uid {st.st_uid}, neither root nor {runner.name}"
    if st.st_mode & 0o022:
        return "is writable by group or others"
    return None


def fixed_environment(runner: RunAs, sge_root: str, cell: str) -> dict[str, str]:
    return {"PATH": "/bin:/usr/bin", "SGE_ROOT": sge_root, "SGE_CELL": cell,
            "HOME": runner.home, "USER": runner.name, "LOGNAME": runner.name}


class _Child:
    """One running JSV process."""

    def __init__(self, proc: asyncio.subprocess.Process, key: tuple[Any, ...],
                 log: Callable[..., None]) -> None:
        self.proc, self.key = proc, key
        self._buf = b""
        self._stderr = asyncio.ensure_future(self._drain_stderr(log))

    async def _drain_stderr(self, log: Callable[..., None]) -> None:
        assert self.proc.stderr is not None
        shown = 0
        while line := await self.proc.stderr.readline():
            if shown < STDERR_LINES:  # (8.1.9: "JSV stderr: ..." in the messages file)
                shown += 1
                log("JSV stderr", line=line[:512].decode(errors="replace").rstrip())

    def send(self, lines: list[str]) -> bool:
        if self.proc.stdin is None or self.proc.stdin.is_closing():
            return False
        self.proc.stdin.write("".join(f"{line}\n" for line in lines).encode())
        return True

    async def read_line(self, timeout: float) -> str | None:
        assert self.proc.stdout is not None
        try:
            raw = await asyncio.wait_for(self.proc.stdout.readuntil(b"\n"), timeout)
        except (asyncio.TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError,
                ConnectionError):
            return None
        return raw[:-1].decode(errors="replace")

    async def stop(self, *, soft: bool) -> None:
        """QUIT and a moment to end (``soft``), else at once (one that failed, as 8.1.9)."""
        try:
            if soft:
                self.send(["QUIT"])
                if self.proc.stdin is not None:
                    self.proc.stdin.close()
                await asyncio.wait_for(self.proc.wait(), QUIT_SECONDS)
        except (asyncio.TimeoutError, ConnectionError, OSError):
            pass
        if self.proc.returncode is None:  # (its whole session: a script's children too)
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        await self.proc.wait()
        self._stderr.cancel()


class ServerJsv:
    """The qmaster's JSV: at most one process, one verification at a time."""

    def __init__(self, sge_root: str, cell: str, log: Callable[..., None]) -> None:
        self.sge_root, self.cell, self._log = sge_root, cell, log
        self._child: _Child | None = None
        self._lock = asyncio.Lock()
        self.waiting = 0

    async def verify(self, url_text: str, timeout: float, params: list[tuple[str, str]],
                     env: Mapping[str, str | None]) -> jsv.Verdict:
        """The verdict on one job (its parameters and environment)."""
        self.waiting += 1
        try:
            async with self._lock:
                return await self._verify(url_text, timeout, params, env)
        finally:
            self.waiting -= 1

    async def _verify(self, url_text: str, timeout: float, params: list[tuple[str, str]],
                      env: Mapping[str, str | None]) -> jsv.Verdict:
        try:
            url = jsv.parse_url(url_text, client=False)
            if url is None:
                return jsv.Verdict(accepted=True)
            runner = run_as(url, euid=os.geteuid())
        except jsv.JsvError as err:
            return jsv.Verdict(accepted=False, message=str(err))
        for attempt in range(2):
            child = await self._running(url, runner)
            if child is None:
                return jsv.Verdict(accepted=False, message=f'JSV file "{url.path}" can\'t '
                                   "be started")
            exchange = jsv.Exchange(params, env)
            verdict = await self._exchange(child, exchange, timeout)
            if verdict is None:  # no answer in time, or it ended: once more, anew
                await self.close(soft=False)
                continue
            if verdict.restart:
                self._log("JSV will be restarted", path=url.path)
                await self.close(soft=False)
            return verdict
        return jsv.Verdict(accepted=False, message=jsv.no_response(url.path))

    async def _exchange(self, child: _Child, exchange: jsv.Exchange, timeout: float
                        ) -> jsv.Verdict | None:
        if not child.send(exchange.opening()):
            return None
        while exchange.verdict is None:
            line = await child.read_line(timeout)
            if line is None:
                return None
            answer = exchange.feed(line)
            if answer and not child.send(answer):
                return None
        return exchange.verdict

    async def _running(self, url: jsv.JsvUrl, runner: RunAs) -> _Child | None:
        try:
            st = os.lstat(url.path)
        except OSError:
            self._log("JSV file does not exist", path=url.path)
            return None
        key = (url, runner, st.st_mtime_ns, st.st_ino)
        if self._child is not None and (self._child.key != key or
                                        self._child.proc.returncode is not None):
            await self.close()  # (8.1.9: "JSV setting/modification time has changed")
        if self._child is not None:
            return self._child
        why = script_refusal(st, runner)
        if why is not None:
            self._log("JSV refused", path=url.path, reason=why)
            return None
        switch = os.geteuid() == 0 and runner.uid != 0
        try:
            proc = await asyncio.create_subprocess_exec(
                url.path, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, cwd="/", close_fds=True,
                env=fixed_environment(runner, self.sge_root, self.cell),
                start_new_session=True, limit=jsv.MAX_LINE,
                **({"user": runner.uid, "group": runner.gid, "extra_groups": []}
                   if switch else {}))
        except OSError as err:
            self._log("JSV can't be started", path=url.path, error=str(err))
            return None
        self._child = _Child(proc, key, self._log)
        self._log("JSV has been started", path=url.path, user=runner.name)
        return self._child

    def idle(self, url_text: str) -> asyncio.Task[None] | None:
        """With jsv_url none, a JSV left from before is stopped (8.1.9: "JSV setting
        has changed"); the task doing it, or None."""
        if self._child is None or self.waiting or \
                url_text.strip().lower() not in ("", "none"):
            return None
        return asyncio.ensure_future(self.close())

    async def close(self, *, soft: bool = True) -> None:
        child, self._child = self._child, None
        if child is not None:
            await child.stop(soft=soft)
