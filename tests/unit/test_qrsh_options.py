"""qrsh, qlogin and qsh's command lines (clients.qrsh.options) and the job qrsh submits
(clients.qrsh.main.job_spec)."""
from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, strategies as st

from clients.qrsh.main import job_spec
from clients.qrsh.options import Request, asks_inherit, parse
from clients.qsub.options import QsubError

ENV = {"HOME": "/home/u", "PATH": "/bin", "TERM": "xterm-256color", "FOO": "bar"}


def req(kind: str, *argv: str, **env: str) -> Request:
    return parse(kind, list(argv), cwd="/work", environ={**ENV, **env}, home="/home/u")


def test_the_command_starts_at_the_first_word_that_is_no_option() -> None:
    r = req("qrsh", "-l", "h_vmem=1G", "-pe", "smp", "2", "-q", "all.q", "-cwd", "ls", "-l",
            "-now", "n")
    assert r.command == ["ls", "-l", "-now", "n"]  # (qrsh's own -now is not seen there)
    s = r.submit
    assert s.hard_resources == {"h_vmem": "1G"} and s.pe == ("smp", 2, 2)
    assert s.hard_queues == ["all.q"] and s.cwd == "/work" and s.now


@pytest.mark.parametrize("kind, argv, name", [
    ("qrsh", [], "QRLOGIN"), ("qlogin", [], "QLOGIN"), ("qsh", [], "INTERACTIVE"),
    ("qrsh", ["/usr/bin/hostname"], "hostname"),
    ("qrsh", ["kill -9 $$"], "kill"),  # 8.1.9: the first word of the command line
    ("qrsh", ["-N", "mine", "true"], "mine"),
])
def test_default_job_names_as_8_1_9(kind: str, argv: list[str], name: str) -> None:
    assert req(kind, *argv).submit.job_name == name


def test_now_y_by_default_and_n_when_asked() -> None:
    assert req("qrsh", "true").submit.now and req("qlogin").submit.now
    assert not req("qrsh", "-now", "n", "true").submit.now


def test_own_flags_pty_and_environment() -> None:
    r = req("qrsh", "-verbose", "-noshell", "-nostdin", "-pty", "y", "-V", "true")
    assert (r.verbose, r.noshell, r.stdin, r.submit.pty) == (True, True, False, True)
    assert r.submit.env["FOO"] == "bar"
    plain = req("qrsh", "-v", "A=1", "true")
    assert plain.submit.env == {"A": "1", "TERM": "xterm-256color"}  # TERM goes along
    assert (plain.verbose, plain.noshell, plain.stdin, plain.submit.pty) == \
        (False, False, True, None)


def test_qsh_takes_the_display_from_its_option_or_the_environment() -> None:
    assert req("qsh", "-display", "x:1").display == "x:1"
    assert req("qsh", DISPLAY=":0").display == ":0"
    assert req("qsh", DISPLAY=":0").submit.env["DISPLAY"] == ":0"
    assert req("qsh").display is None


def test_qlogin_takes_no_command_and_refuses_unknown_options() -> None:
    # 8.1.9's words and status
    with pytest.raises(QsubError) as err:
        req("qlogin", "ls")
    assert (err.value.message, err.value.exit_code) == ("error: Unknown option script", 1)
    with pytest.raises(QsubError) as err:
        req("qrsh", "-nosuch", "ls")
    assert (err.value.message, err.value.exit_code) == \
        ('error: invalid option argument "-nosuch"', 1)


def test_inherit_is_an_option_only_before_the_command() -> None:
    assert asks_inherit(["-inherit", "-nostdin", "node1", "cmd"])
    assert asks_inherit(["-V", "-inherit", "node1", "cmd"])
    assert not asks_inherit(["cmd", "-inherit"])
    assert not asks_inherit(["-l", "a=b", "cmd"])


def test_the_job_carries_the_session_and_runs_a_binary_command() -> None:
    token = bytes(32)
    job = job_spec(req("qrsh", "-noshell", "ls", "-l"), 4242, token)
    opts: dict[str, Any] = job["opts"]
    assert (opts["binary"], opts["script_path"], opts["script_args"], opts["noshell"]) == \
        (True, "ls", ["-l"], True)
    assert opts["session"]["kind"] == "qrsh" and opts["session"]["port"] == 4242
    assert opts["session"]["token"] == token and job["script"] is None
    # 8.1.9's qstat -j of a qrsh job: stdout and stderr path lists /dev/null, restart n
    assert (opts["stdout_paths"], opts["stderr_paths"], opts["rerun"]) == \
        (["/dev/null"], ["/dev/null"], False)
    login = job_spec(req("qrsh"), 1, token)["opts"]
    assert login["session"]["kind"] == "qlogin" and login["script_path"] == "QRLOGIN"
    xterm = job_spec(req("qsh", "-display", "x:1"), 1, token)["opts"]
    assert (xterm["script_path"], xterm["script_args"]) == ("xterm", ["-display", "x:1"])


@given(st.lists(st.text(st.characters(blacklist_categories=("Cs",)), min_size=1),
                max_size=5))
def test_the_command_and_its_words_pass_unchanged(words: list[str]) -> None:
    command = ["cmd", *words]
    assert req("qrsh", "-now", "n", *command).command == command


@pytest.mark.parametrize("kind", ["qlogin", "qsh"])
def test_qlogin_and_qsh_word_an_unknown_option_with_its_argument_as_8_1_9(kind: str) -> None:
    # 8.1.9 (its -help lists -astnode): the option is refused, not its argument as a command
    with pytest.raises(QsubError) as err:
        req(kind, "-astnode", "/x=1")
    assert (err.value.message, err.value.exit_code) == \
        ('error: invalid option argument "-astnode"', 1)


@pytest.mark.parametrize("kind", ["qlogin", "qsh"])
def test_qlogin_and_qsh_read_options_from_a_file(kind: str, tmp_path: Any) -> None:
    (tmp_path / "opts").write_text("-N fromfile\n")
    request = req(kind, "-@", str(tmp_path / "opts"), DISPLAY=":0")
    assert request.submit.job_name == "fromfile"


@pytest.mark.parametrize("kind", ["qrsh", "qlogin", "qsh"])
def test_an_option_qsub_takes_later_is_refused_by_its_name_alone(kind: str) -> None:
    # 8.1.9's qrsh: "error: Unknown option -he" (qsub's adds the argument)
    with pytest.raises(QsubError) as err:
        req(kind, "-he", "y")
    assert (err.value.message, err.value.exit_code) == ("error: Unknown option -he", 1)
