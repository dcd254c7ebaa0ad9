"""common.mail against the mails Grid Engine 8.1.9 sent (tests/data/reference/mail/):
subject, recipient, argv and the exact text on the mailer's stdin."""
from __future__ import annotations

import calendar
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from common import mail
from common.mail import TaskFacts

REFERENCE = Path(__file__).resolve().parents[1] / "data" / "reference" / "mail"


@pytest.fixture(autouse=True)
def utc() -> Iterator[None]:
    """The captures' times are the oracle's local time, UTC."""
    old = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    yield
    if old is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = old
    time.tzset()


def at(text: str) -> float:
    return float(calendar.timegm(time.strptime(text, "%m/%d/%Y %H:%M:%S")))


def capture(prefix: str) -> tuple[list[str], str]:
    """(argv[1:], stdin) of the captured mailer call whose file starts with ``prefix``."""
    path = next(REFERENCE.glob(f"{prefix}-*.txt"))
    lines = path.read_text().split("\n")
    argv = [line.split("=", 1)[1] for line in lines if line.startswith("argv[")]
    text = "\n".join(lines)
    stdin = text.split("--- stdin\n", 1)[1].rsplit("--- end\n", 1)[0]
    return argv, stdin


def assert_sent(prefix: str, subject: str, body: str, recipient: str) -> None:
    argv, stdin = capture(prefix)
    assert mail.mailer_argv(subject, recipient)[1:] == argv
    assert mail.Mail((recipient,), subject, body).stdin().decode() == stdin


def facts(job_id: int, name: str, start: str | None, end: str | None = None,
          task_id: int | None = None) -> TaskFacts:
    return TaskFacts(job_id, task_id, name, "sgeuser", "all.q", "vm",
                     at(start) if start else None, at(end) if end else None)


def test_start_mail_of_a_job_and_of_an_array_task() -> None:
    assert_sent("01", *mail.started(facts(185, "mb", "11/28/2026 05:53:59")), "sgeuser@vm")
    assert_sent("15", *mail.started(facts(191, "marr", "11/28/2026 05:54:07", task_id=1)),
                "sgeuser@vm")


def test_end_mail_with_exit_status_0_and_3() -> None:
    usage = {"ru_utime": 0.001, "ru_stime": 0.002, "ru_wallclock": 0, "cpu": 0.003}
    t = facts(186, "me0", "11/28/2026 05:53:59", "11/28/2026 05:53:59")
    assert_sent("02", *mail.completed(t, usage, 0), "sgeuser@vm")
    t = facts(187, "me3", "11/28/2026 05:54:03", "11/28/2026 05:54:03")
    assert_sent("09", *mail.completed(t, usage, 3), "sgeuser@vm")
    t = facts(191, "marr", "11/28/2026 05:54:07", "11/28/2026 05:54:07", task_id=2)
    assert_sent("19", *mail.completed(t, usage, 0), "sgeuser@vm")


def test_abort_mails_of_a_deleted_running_job() -> None:
    t = facts(192, "mkill", "11/28/2026 05:54:07", "11/28/2026 05:54:27")
    assert_sent("22", *mail.killed(t, "sgeuser", "vm"), "sgeuser@vm")
    usage = {"cpu": 0.01, "maxvmem": 3.012 * 1024 * 1024 + 1}
    subject, body = mail.state_changed(
        t, failed=100, failed_reason="assumedly after job",
        error="job 192.1 died through signal KILL (9)", exit_status=137, signal=9,
        usage=usage, error_state=False)
    assert_sent("23", subject, body, "sgeuser@vm")
    t = facts(197, "marrk", "11/28/2026 05:56:07", task_id=1)
    assert_sent("31", *mail.killed(t, "sgeuser", "vm"), "sgeuser@vm")


def test_abort_mails_of_failed_jobs() -> None:
    t = facts(188, "ma100", "11/28/2026 05:54:03", "11/28/2026 05:54:03")
    subject, body = mail.state_changed(
        t, failed=30, failed_reason="application error returned",
        error="11/28/2026 05:54:03 [104:3890]: exit_status of job start = 100",
        exit_status=100, signal=0, usage={"cpu": 0.0}, error_state=True)
    assert_sent("10", subject, body, "sgeuser@vm")
    t = facts(189, "mafail", None)
    error = ('11/28/2026 05:54:03 [1001:4103]: error: can\'t open output file '
             '"/nonexistent/dir/x": No such file or directory')
    subject, body = mail.state_changed(
        t, failed=26, failed_reason="opening input/output file", error=error,
        exit_status=None, signal=0, usage={}, error_state=True)
    assert_sent("11", subject, body, "sgeuser@vm")


def test_the_administrator_s_mail_about_a_failed_job() -> None:
    argv, stdin = capture("08")
    t = facts(189, "mafail", None)
    error = ('11/28/2026 05:54:03 [1001:4103]: error: can\'t open output file '
             '"/nonexistent/dir/x": No such file or directory')
    subject, body = mail.admin_failure(t, failed_reason="opening input/output file",
                                       error=error)
    assert argv == ["-s", subject, "sgeadmin@vm"]
    # 8.1.9 then appends its shepherd's trace file, which we do not keep
    head = stdin.split("Shepherd trace:")[0]
    assert body.startswith(head)


def test_suspend_and_continue_mails() -> None:
    t = facts(193, "msusp", "11/28/2026 05:54:07")
    assert_sent("20", *mail.suspended(t, True), "sgeuser@vm")
    assert_sent("21", *mail.suspended(t, False), "sgeuser@vm")


def test_recipients() -> None:
    assert mail.job_recipients([], "sgeuser", "vm") == ("sgeuser@vm",)
    given = ["someone@example.com", "sgeuser", "other@vm"]
    assert mail.job_recipients(given, "sgeuser", "vm") == tuple(given)
    for prefix, rcpt in (("04", "sgeuser"), ("05", "someone@example.com"), ("06", "other@vm")):
        assert capture(prefix)[0][2] == rcpt
    assert mail.address_list("none") == mail.address_list("") == ()
    assert mail.address_list("root, a@b,root") == ("root", "a@b")


def test_mail_options() -> None:
    assert mail.wants("bea", "b") and not mail.wants("e", "b") and not mail.wants("", "e")
    assert not mail.wants("n", "a")


def test_advance_reservation_mails() -> None:
    assert_sent("26", *mail.ar_mail("start", 4, "myar2", "root", at("11/28/2026 05:55:48")),
                "sgeuser@vm")
    assert_sent("27", *mail.ar_mail("end", 4, "myar2", "root", at("11/28/2026 05:55:54")),
                "sgeuser@vm")
    assert_sent("24", *mail.ar_mail("delete", 3, None, "root", at("11/28/2026 05:55:35")),
                "x@y.z")


def test_signal_names_and_values() -> None:
    assert (mail.signal_name(9), mail.signal_name(0), mail.signal_name(999)) == \
        ("KILL", "unknown signal", "unknown signal")
    assert mail.hms(3725) == "01:02:05" and mail.hms(100 * 3600) == "100:00:00"
    assert mail.memory(2.941 * 1024 * 1024) == "2.941M" and mail.ctime(None) == "<unknown>"
