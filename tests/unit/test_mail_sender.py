"""qmaster.mail.MailSender: the mailer runs as 8.1.9 runs it (``mail -s subject rcpt``,
the body on stdin), with a fixed environment, bounded in number; one that fails, hangs
or is missing is logged and nothing else happens."""
from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from common.mail import Mail
from qmaster.mail import MAILER_ENV, MailSender

RECORDER = """#!/bin/sh
out={out}/$$
{{ echo "argv0=$0"; for a in "$@"; do echo "arg=$a"; done; echo "cwd=$(pwd)"; env | sort;
   echo "--- stdin"; cat; }} > $out.tmp
mv $out.tmp $out
"""


class Log:
    def __init__(self) -> None:
        self.lines: list[tuple[str, str, dict[str, Any]]] = []

    def _add(self, level: str, event: str, **kw: Any) -> None:
        self.lines.append((level, event, kw))

    def info(self, event: str, **kw: Any) -> None:
        self._add("info", event, **kw)

    def warning(self, event: str, **kw: Any) -> None:
        self._add("warning", event, **kw)

    def error(self, event: str, **kw: Any) -> None:
        self._add("error", event, **kw)


def script(path: Path, text: str) -> str:
    path.write_text(text)
    path.chmod(0o755)
    return str(path)


async def test_the_mailer_gets_argv_stdin_and_a_clean_environment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LD_PRELOAD", "/nowhere/evil.so")  # the qmaster's: never passed on
    (tmp_path / "out").mkdir()
    mailer = script(tmp_path / "mailer", RECORDER.format(out=tmp_path / "out"))
    log = Log()
    sender = MailSender(log)
    sender.send([Mail(("a@h", "b"), "Job 1 (x) Started", "Job 1 (x) Started\n User = u")],
                mailer)
    assert await sender.drain(10)
    calls = sorted(p.read_text() for p in (tmp_path / "out").iterdir())
    assert len(calls) == 2 and sender.sent == 2
    for text, rcpt in zip(calls, ("a@h", "b")):
        head, stdin = text.split("--- stdin\n")
        assert f"arg=-s\narg=Job 1 (x) Started\narg={rcpt}\n" in head
        assert "argv0=" in head and "cwd=/\n" in head
        env = dict(line.split("=", 1) for line in head.splitlines()[5:] if "=" in line)
        assert "LD_PRELOAD" not in env and env["PATH"] == MAILER_ENV["PATH"]
        assert stdin == "Job 1 (x) Started\n User = u\n"


async def test_a_failing_hanging_or_missing_mailer_is_logged(tmp_path: Path) -> None:
    log = Log()
    sender = MailSender(log, timeout=0.5)
    failing = script(tmp_path / "fails", "#!/bin/sh\necho no such user >&2\nexit 67\n")
    hanging = script(tmp_path / "hangs", "#!/bin/sh\nexec sleep 60\n")
    one = [Mail(("u",), "s", "b")]
    sender.send(one, failing)
    sender.send(one, hanging)
    sender.send(one, str(tmp_path / "missing"))
    sender.send(one, "relative/mailer")
    assert await sender.drain(10)
    events = {(level, event) for level, event, _ in log.lines}
    assert ("warning", "mailer failed") in events
    assert ("error", "mailer timed out and was killed") in events
    assert ("error", "mailer could not be started") in events
    assert ("warning", "mail not sent: mailer is not an absolute path") in events
    failed = [kw for _, event, kw in log.lines if event == "mailer failed"][0]
    assert failed["status"] == 67 and "no such user" in failed["stderr"]
    assert sender.failed == 3 and sender.sent == 0


async def test_mailers_run_a_bounded_number_at_a_time(tmp_path: Path) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    # each records how many ran at once when it started (a file per running mailer)
    mailer = script(tmp_path / "m", f"#!/bin/sh\ntouch {marks}/$$\nls {marks} | wc -l "
                                    f">> {tmp_path}/seen\nsleep 0.2\nrm {marks}/$$\ncat >/dev/null\n")
    sender = MailSender(Log(), max_running=2, max_queued=5)
    sender.send([Mail(tuple(f"u{i}" for i in range(8)), "s", "b")], mailer)
    assert len(sender.running) == 2 and len(sender.queue) == 3 and sender.dropped == 3
    assert await sender.drain(20)
    seen = [int(x) for x in (tmp_path / "seen").read_text().split()]
    assert len(seen) == 5 and max(seen) <= 2


async def test_a_bad_recipient_never_reaches_the_mailer(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    mailer = script(tmp_path / "mailer", RECORDER.format(out=tmp_path / "out"))
    log = Log()
    sender = MailSender(log)
    sender.send([Mail(("--exec=touch /tmp/x", "ok"), "s", "b")], mailer)
    assert await sender.drain(10)
    assert len(os.listdir(tmp_path / "out")) == 1
    assert ("warning", "mail not sent: bad recipient") in {(lv, ev) for lv, ev, _ in log.lines}


def test_without_a_running_loop_mails_wait(tmp_path: Path) -> None:
    sender = MailSender(Log())
    sender.send([Mail(("u",), "s", "b")], "/bin/true")
    assert len(sender.queue) == 1 and not sender.running
    asyncio.run(sender.drain(10))
    assert not sender.queue and sender.sent == 1
