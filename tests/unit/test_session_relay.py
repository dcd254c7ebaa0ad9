"""What an interactive job runs and how its status is reported (execd.session_relay,
pure parts)."""
from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest

from execd.session_relay import exit_status, resolve, session_argv, uses_pty


def spec(kind: str = "qrsh", command: str = "", args: tuple[str, ...] = (),
         **more: Any) -> dict[str, Any]:
    return {"session": {"kind": kind}, "command": command, "args": list(args),
            "pty": None, "noshell": False, **more}


def test_a_command_runs_in_the_login_shell_with_its_words_joined() -> None:
    # 8.1.9's qrsh_starter: <shell> -c "<command> <args>" (the shell parses them again)
    assert session_argv(spec(command="echo", args=("a b", "$HOME")), "/bin/bash") == \
        ("/bin/bash", ["bash", "-c", "echo a b $HOME"])


def test_noshell_runs_the_command_itself() -> None:
    assert session_argv(spec(command="echo", args=("a b",), noshell=True), "/bin/bash") == \
        ("echo", ["echo", "a b"])


@pytest.mark.parametrize("kind", ["qlogin", "qrsh"])
def test_without_a_command_a_login_shell(kind: str) -> None:
    assert session_argv(spec(kind), "/usr/bin/zsh") == ("/usr/bin/zsh", ["-zsh"])
    assert session_argv(spec(kind), "") == ("/bin/sh", ["-sh"])


def test_pty_default_is_a_login_sessions_and_an_explicit_choice_wins() -> None:
    assert uses_pty(spec("qlogin")) and uses_pty(spec("qrsh"))
    assert not uses_pty(spec(command="ls"))
    assert uses_pty(spec(command="ls", pty=True))
    assert not uses_pty(spec("qlogin", pty=False))


def test_exit_status_as_a_shell_reports_it() -> None:
    assert exit_status(7 << 8) == 7
    assert exit_status(signal.SIGKILL) == 128 + signal.SIGKILL
    assert exit_status(signal.SIGINT | 0x80) == 128 + signal.SIGINT  # (core dumped)


def test_resolve_searches_the_jobs_path(tmp_path: Path) -> None:
    program = tmp_path / "tool"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    (tmp_path / "plain").write_text("")
    path = f"/nonexistent:{tmp_path}"
    assert resolve("tool", path) == str(program)
    assert resolve("plain", path) == "plain"  # not executable: left to the exec's error
    assert resolve("./tool", path) == "./tool"
    assert resolve("sh", os.defpath).endswith("/sh")
