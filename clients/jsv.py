"""``qsub -jsv URL`` (and qrsh's, qlogin's, qsh's): the client-side job submission verifier.

The JSV runs as the submitting user (it is the user's own program, with qsub's
environment), once per qsub, before the job is sent: it sees the job as qsub parsed it
(every source of options merged), and what it corrects is what is submitted. The protocol
is common.jsv's; this module only runs the process: lines in and out through pipes, each
wait bounded by SGE_JSV_TIMEOUT seconds (8.1.9's default 10). A JSV that does not answer
in time, or ends, is restarted once and the verification begins again; a second failure
refuses the job with 8.1.9's ``got no response from JSV script "PATH"``.
"""
from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import time
from typing import Any, Mapping

from common import jsv

QUIT_SECONDS = 1.0   # what a JSV has to end after QUIT before it is killed


class JsvRejected(Exception):
    """The job was refused; ``str()`` is the text qsub prints after "Unable to run job: "."""


def timeout_from_env(environ: Mapping[str, str]) -> float:
    text = environ.get("SGE_JSV_TIMEOUT", "")
    return float(text) if text.isdigit() and int(text) > 0 else jsv.DEFAULT_TIMEOUT


class _Process:
    """One running JSV: its pipes and a line reader bounded by a deadline."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, close_fds=True,
                                     start_new_session=True)
        self._buf = b""
        self._sel = selectors.DefaultSelector()
        assert self.proc.stdout is not None
        os.set_blocking(self.proc.stdout.fileno(), False)
        self._sel.register(self.proc.stdout, selectors.EVENT_READ)

    def send(self, lines: list[str]) -> bool:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write("".join(f"{line}\n" for line in lines).encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            return False
        return True

    def read_line(self, deadline: float) -> str | None:
        """The next line, or None when the JSV ended or the deadline passed."""
        assert self.proc.stdout is not None
        while b"\n" not in self._buf:
            if len(self._buf) > jsv.MAX_LINE:
                return None
            left = deadline - time.monotonic()
            if left <= 0 or not self._sel.select(left):
                return None
            chunk = self.proc.stdout.read(65536)
            if not chunk:
                return None
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return line.decode(errors="replace")

    def stop(self, *, soft: bool) -> None:
        """QUIT and a moment to end (``soft``), else at once: the JSV's whole session."""
        if soft:
            self.send(["QUIT"])
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(QUIT_SECONDS if soft else 0)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        self._sel.close()
        assert self.proc.stdout is not None
        self.proc.stdout.close()


def _one_try(proc: _Process, exchange: jsv.Exchange, timeout: float) -> jsv.Verdict | None:
    if not proc.send(exchange.opening()):
        return None
    while exchange.verdict is None:
        line = proc.read_line(time.monotonic() + timeout)
        if line is None:
            return None
        answer = exchange.feed(line)
        if answer and not proc.send(answer):
            return None
    return exchange.verdict


def verify(path: str, params: list[tuple[str, str]], env: Mapping[str, str | None],
           timeout: float) -> jsv.Verdict:
    """One verification by the JSV at ``path`` (restarted once when it fails)."""
    for _ in range(2):
        try:
            proc = _Process(path)
        except OSError:
            break  # (not startable: the same answer as one that does not speak)
        verdict = None
        try:
            verdict = _one_try(proc, jsv.Exchange(params, env), timeout)
        finally:
            proc.stop(soft=verdict is not None)
        if verdict is not None:
            return verdict
    return jsv.Verdict(accepted=False, message=jsv.no_response(path))


def run_client_jsvs(urls: list[str], opts: dict[str, Any], *, user: str, group: str,
                    environ: Mapping[str, str], program: str = "qsub") -> dict[str, Any]:
    """The job's options after every ``-jsv`` in order; LOG lines are printed (INFO on
    stdout, as 8.1.9's qsub); JsvRejected when one refuses."""
    timeout = timeout_from_env(environ)
    for url in urls:
        try:
            parsed = jsv.parse_url(url, client=True)
        except jsv.JsvError as err:
            raise JsvRejected(str(err)) from None
        if parsed is None:
            continue
        if not (os.path.isfile(parsed.path) and os.access(parsed.path, os.X_OK)):
            raise JsvRejected(f'JSV "{parsed.path}" is either not a file or not executable')
        params = jsv.job_params(opts, context="client", client=program, user=user,
                                group=group)
        verdict = verify(parsed.path, params, opts.get("env") or {}, timeout)
        for level, text in verdict.logs:
            print(text, file=sys.stdout if level == "INFO" else sys.stderr, flush=True)
        if not verdict.accepted:
            raise JsvRejected(verdict.message)
        try:
            opts = jsv.apply_changes(opts, verdict.params, verdict.env)
        except jsv.JsvError as err:
            raise JsvRejected(str(err)) from None
    return opts
