"""qrsh and qlogin against a live cell, as a user runs them: through pipes and through a
terminal (a pty of the test's: pty.fork, no pexpect). Exit statuses, stdin, stdout and
stderr apart, Ctrl-C, -now y refused when nothing is free, the job in qstat while it
runs and in qacct after."""
from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import time
from typing import Any

import pytest

from clients.api import Client
from tests.commands import command

TIMEOUT = 30


def qrsh(env: dict[str, str], *args: str, stdin: bytes = b"") -> subprocess.CompletedProcess:
    return subprocess.run([*command("qrsh"), *args], env=env, input=stdin, capture_output=True,
                          timeout=TIMEOUT, cwd="/")


def test_exit_status_stdin_and_streams_apart(env: dict[str, str]) -> None:
    done = qrsh(env, "cat; echo to-err >&2; exit 7", stdin=b"line 1\nline 2\n")
    assert (done.returncode, done.stdout, done.stderr) == (7, b"line 1\nline 2\n", b"to-err\n")
    # 8.1.9 joins the words for the login shell: "sh -c exit 7" is "sh -c exit"
    assert qrsh(env, "sh", "-c", "exit 7").returncode == 0
    assert qrsh(env, "-noshell", "/bin/sh", "-c", "exit 5").returncode == 5
    assert qrsh(env, "kill -9 $$").returncode == 128 + signal.SIGKILL


def test_verbose_says_what_8_1_9_says(env: dict[str, str]) -> None:
    done = qrsh(env, "-verbose", "-now", "n", "-N", "x", "/bin/true")
    assert done.returncode == 0
    job = done.stdout.decode().split()[2]
    assert done.stdout.decode() == f'Your job {job} ("x") has been submitted\n'
    lines = done.stderr.decode().splitlines()
    assert lines[:2] == ["waiting for interactive job to be scheduled ...",
                         f"Your interactive job {job} has been successfully scheduled."]
    assert lines[2].startswith("Establishing builtin session to host ") and len(lines) == 3


class Terminal:
    """A command on a terminal of ours (the pty's master side)."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        pid, fd = pty.fork()
        if pid == 0:  # pragma: no cover - the child
            try:
                os.chdir("/")
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)
        self.pid, self.fd, self.seen = pid, fd, b""

    def expect(self, text: bytes) -> None:
        deadline = time.monotonic() + TIMEOUT
        while text not in self.seen:
            left = deadline - time.monotonic()
            assert left > 0, f"{text!r} not in {self.seen!r}"
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.fd, 4096)
                except OSError:
                    chunk = b""
                assert chunk, f"{text!r} not in {self.seen!r} (closed)"
                self.seen += chunk

    def send(self, data: bytes) -> None:
        os.write(self.fd, data)

    def status(self) -> int:
        deadline = time.monotonic() + TIMEOUT
        while True:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
            assert time.monotonic() < deadline
            select.select([self.fd], [], [], 0.05)
            try:
                self.seen += os.read(self.fd, 4096)
            except OSError:
                pass


def test_qlogin_is_a_login_shell_on_a_terminal(env: dict[str, str]) -> None:
    term = Terminal(command("qlogin"), env)
    term.send(b"tty; echo $((6*7))x; exit 3\r")
    term.expect(b"42x")
    assert term.status() == 3
    assert b"/dev/pts/" in term.seen


def test_ctrl_c_ends_the_job(env: dict[str, str]) -> None:
    for pty_option in ("n", "y"):  # forwarded as SIGINT, or typed into the job's terminal
        term = Terminal([*command("qrsh"), "-pty", pty_option, "echo up; exec sleep 60"], env)
        term.expect(b"up")
        term.send(b"\x03")
        assert term.status() == 128 + signal.SIGINT


def test_the_job_is_in_qstat_while_it_runs_and_in_qacct_after(
        env: dict[str, str], client: Client) -> None:
    proc = subprocess.Popen([*command("qrsh"), "-N", "seen", "echo up; read x; echo $x"], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd="/")
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"up\n"
        shown = subprocess.run(command("qstat"), env=env, capture_output=True, text=True)
        assert shown.returncode == 0, shown.stderr
        listing = shown.stdout
        row = [line.split() for line in listing.splitlines() if " seen " in line]
        assert len(row) == 1 and row[0][4] == "r"
        job_id = int(row[0][0])
        out, _ = proc.communicate(b"bye\n", timeout=TIMEOUT)
        assert (proc.returncode, out) == (0, b"bye\n")
    finally:
        proc.kill()
        proc.wait()
    client.wait([job_id], timeout=TIMEOUT)
    acct = subprocess.run([*command("qacct"), "-j", str(job_id)], env=env, capture_output=True,
                          text=True, check=True).stdout
    fields = dict(line.split(None, 1) for line in acct.splitlines() if " " in line)
    assert fields["jobname"].strip() == "seen" and fields["exit_status"].strip() == "0"


def test_now_y_is_refused_when_nothing_is_free(env: dict[str, str], client: Client) -> None:
    """-now y (the default): no queue instance of type INTERACTIVE (qtype BATCH alone:
    the scheduler's pass must not place it there, free as all.q is)."""
    subprocess.run([*command("qconf"), "-mattr", "queue", "qtype", "BATCH", "all.q"], env=env,
                   check=True, capture_output=True)
    try:
        done = qrsh(env, "/bin/true")
        assert (done.returncode, done.stdout) == (1, b"")
        assert done.stderr == b'Your "qrsh" request could not be scheduled, try again later.\n'
        # the refused job is gone
        pending = [t for t in client.jobs()["tasks"] if t["state"] in ("pending", "hold")]
        assert pending == []
    finally:
        subprocess.run([*command("qconf"), "-mattr", "queue", "qtype", "BATCH INTERACTIVE",
                        "all.q"], env=env, check=True, capture_output=True)


def test_qsh_without_a_display_is_refused(env: dict[str, str]) -> None:
    env = {k: v for k, v in env.items() if k != "DISPLAY"}
    done = subprocess.run(command("qsh"), env=env, capture_output=True, timeout=TIMEOUT)
    assert (done.returncode, done.stderr) == \
        (1, b"error: no DISPLAY variable found with interactive job \n")


@pytest.fixture(autouse=True)
def _no_leftovers(client: Client) -> Any:
    yield
    left = [t for t in client.jobs()["tasks"] if t["state"] != "finished"]
    for task in left:
        client.delete([{"job_id": task["job_id"]}])


def test_a_job_deleted_before_it_starts_ends_the_wait(env: dict[str, str]) -> None:
    proc = subprocess.Popen([*command("qrsh"), "-verbose", "-now", "n", "-h", "/bin/true"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd="/")
    try:
        assert proc.stdout is not None
        job = proc.stdout.readline().split()[2].decode()
        subprocess.run([*command("qdel"), job], env=env, check=True, capture_output=True)
        _, err = proc.communicate(timeout=TIMEOUT)
        assert proc.returncode == 1
        assert err.decode().endswith("\nCould not start interactive job.\n")
    finally:
        proc.kill()
        proc.wait()


def test_a_hang_up_of_the_terminal_ends_the_job(env: dict[str, str], client: Client) -> None:
    term = Terminal([*command("qrsh"), "-N", "hup", "echo up; exec sleep 60"], env)
    term.expect(b"up")
    job_id = next(int(j["job_id"]) for j in client.jobs()["jobs"]
                  if j["opts"]["job_name"] == "hup")
    os.close(term.fd)  # the terminal goes: its session (qrsh) gets SIGHUP
    _, status = os.waitpid(term.pid, 0)
    assert os.waitstatus_to_exitcode(status) in (1, 128 + signal.SIGHUP)
    client.wait([job_id], timeout=TIMEOUT)  # (the job ended with it: it would sleep 60 s)
    task = client.jobs([job_id], include_finished=True)["tasks"][0]
    assert task["signal"] == signal.SIGHUP
