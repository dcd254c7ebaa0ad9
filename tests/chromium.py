"""Headless Chromium driven through the DevTools protocol over a pipe (stdlib only), for
tests of the web view: ``chromium --headless --remote-debugging-pipe`` reads CDP
messages (JSON, each ended by a NUL byte) on its fd 3 and writes on its fd 4.

    with Browser.start(tmp_path) as browser:
        browser.navigate("http://127.0.0.1:8080/")
        browser.wait_for("document.title === 'x'", timeout=5)
        browser.screenshot(tmp_path / "page.png")
"""
from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class CdpError(Exception):
    pass


class Browser:
    """One headless browser with one page (a flat CDP session)."""

    def __init__(self, proc: subprocess.Popen[bytes], to_browser: int, from_browser: int
                 ) -> None:
        self.proc, self._out, self._in = proc, to_browser, from_browser
        self._buffer = b""
        self._next_id = 0
        self.session: str | None = None

    @classmethod
    def start(cls, profile: Path, width: int = 1280, height: int = 1000) -> "Browser":
        binary = chromium_path()
        if binary is None:
            raise CdpError("no chromium")
        commands_r, commands_w = os.pipe()   # we write, its fd 3 reads
        answers_r, answers_w = os.pipe()     # its fd 4 writes, we read

        def pipes_as_3_and_4() -> None:
            os.dup2(commands_r, 3)
            os.dup2(answers_w, 4)
        args = [binary, "--headless", "--remote-debugging-pipe", f"--user-data-dir={profile}",
                "--no-first-run", "--no-default-browser-check", "--disable-gpu",
                "--disable-extensions", "--disable-background-networking",
                "--disable-dev-shm-usage", f"--window-size={width},{height}"]
        # Chromium refuses to run as root with its sandbox, and an ordinary user's sandbox
        # needs user namespaces a container may not give; the browser only loads the
        # test's own page on loopback
        args.append("--no-sandbox")
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, pass_fds=(3, 4),
                                preexec_fn=pipes_as_3_and_4)
        os.close(commands_r)
        os.close(answers_w)
        browser = cls(proc, commands_w, answers_r)
        try:
            target = browser.call("Target.createTarget", url="about:blank")["targetId"]
            browser.session = browser.call("Target.attachToTarget", targetId=target,
                                           flatten=True)["sessionId"]
            browser.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                         deviceScaleFactor=1, mobile=False)
        except BaseException:
            browser.close()
            raise
        return browser

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for fd in (self._out, self._in):
            try:
                os.close(fd)
            except OSError:
                pass
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    # ---- the protocol ----------------------------------------------------------------
    def call(self, method: str, timeout: float = 15.0, **params: Any) -> dict[str, Any]:
        """Send one command and wait for its answer (events on the way are dropped)."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if self.session is not None:
            message["sessionId"] = self.session
        os.write(self._out, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            answer = self._read(deadline, method)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise CdpError(f"{method}: {answer['error']}")
                return answer.get("result") or {}

    def _read(self, deadline: float, method: str) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._in], [], [], left)[0]:
                raise CdpError(f"{method}: no answer from chromium")
            chunk = os.read(self._in, 65536)
            if not chunk:
                raise CdpError(f"{method}: chromium closed its pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    # ---- what tests use --------------------------------------------------------------
    def navigate(self, url: str) -> None:
        self.call("Page.enable")
        self.call("Page.navigate", url=url)

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                           awaitPromise=True)
        if "exceptionDetails" in result:
            raise CdpError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float, what: str = "") -> Any:
        """The first true value of ``expression``, polled every 0.1 s."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() >= deadline:
                raise AssertionError(f"not seen within {timeout} s: {what or expression}")
            time.sleep(0.1)

    def screenshot(self, path: Path) -> Path:
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))
        return path
