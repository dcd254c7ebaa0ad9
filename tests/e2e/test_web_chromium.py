"""``pyge web`` in a real browser (Debian's headless chromium, driven over the DevTools
pipe by tests/chromium.py): the page loads, shows the cell's queue and host, and a job
submitted afterwards appears and then leaves without the page being reloaded. A
screenshot is saved under the test's tmp_path (its path is printed)."""
from __future__ import annotations

import os
import select
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from deploy.cell import LocalCell
from tests.chromium import Browser, chromium_path
from tests.commands import command
from tests.integration.cellutil import client, hostname, running_cell, sleeper

pytestmark = pytest.mark.skipif(chromium_path() is None,
                                reason="chromium is not installed (Debian's chromium package; "
                                       ".ci/run installs it when run as root)")


def started_web(root: Path, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    """``pyge web`` on a free loopback port, and the address it prints."""
    with log.open("wb") as err:
        proc = subprocess.Popen(command("pyge") + ["web", "--root", str(root), "--port", "0"],
                                stdout=subprocess.PIPE, stderr=err, stdin=subprocess.DEVNULL)
    assert proc.stdout is not None
    line = b""
    deadline = time.monotonic() + 15
    while not line.endswith(b"\n") and time.monotonic() < deadline:
        if select.select([proc.stdout], [], [], 0.2)[0]:
            chunk = os.read(proc.stdout.fileno(), 256)
            if not chunk:
                break
            line += chunk
    if not line.startswith(b"web: http://"):
        proc.kill()
        proc.wait()
        raise AssertionError(f"pyge web did not start: {line!r} {log.read_text()}")
    return proc, line.decode().split(" ", 1)[1].strip()


@pytest.fixture()
def web(tmp_path: Path) -> Iterator[tuple[LocalCell, str]]:
    with running_cell(tmp_path, slots=4) as local:
        proc, url = started_web(local.cell.root, tmp_path / "web.log")
        try:
            yield local, url
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def row(table: str, job_id: int) -> str:
    return f"document.querySelector('#{table} tbody tr[data-job=\"{job_id}\"]')"


def test_a_job_appears_and_leaves_without_reloading(web: tuple[LocalCell, str],
                                                    tmp_path: Path) -> None:
    local, url = web
    with Browser.start(tmp_path / "profile") as browser:
        browser.navigate(url)
        browser.wait_for("document.body && document.body.dataset.version", 15, "the first state")
        host = hostname()
        assert browser.wait_for(f"[...document.querySelectorAll('#queues td')]"
                                f".some(td => td.textContent === 'all.q@{host}')", 10)
        assert browser.evaluate("document.querySelector('#hosts tbody td').textContent") == host
        browser.evaluate("window.loadedOnce = true")  # (gone if the page were reloaded)
        with client(local) as cl:
            [job_id] = cl.submit([sleeper(2, job_name="webjob")])
        browser.wait_for(f"!!({row('running', job_id)} || {row('pending', job_id)})", 10,
                         f"job {job_id}'s row")
        browser.wait_for(f"!!{row('running', job_id)}", 10, f"job {job_id} running")
        assert browser.evaluate(f"{row('running', job_id)}.children[2].textContent") == "webjob"
        shot = browser.screenshot(tmp_path / "web-view.png")
        print(f"screenshot: {shot}")
        browser.wait_for(f"!{row('running', job_id)} && !{row('pending', job_id)}", 15,
                         f"job {job_id} gone")
        assert browser.evaluate("window.loadedOnce === true")
        assert shot.stat().st_size > 1000 and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
