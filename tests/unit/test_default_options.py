"""sge_qstat(5): the default option files of qstat (common.default_options, read by
clients.qstat): comments and blank lines skipped, the cell's file then the user's, an
option of the command line replacing the files' same option."""
from __future__ import annotations

import pwd
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clients import qstat
from common import default_options
from common.task_letters import parse_state_filter


def test_words_skip_comments_and_blank_lines() -> None:
    text = "# Just show me my own running and suspended jobs\n\n-s rs -u $user\n-f\t-r\n"
    assert default_options.words(text) == ["-s", "rs", "-u", "$user", "-f", "-r"]
    assert default_options.words(" # not a comment in the first column") == [
        "#", "not", "a", "comment", "in", "the", "first", "column"]


@given(st.lists(st.text(alphabet="-# \tabc\n", max_size=12), max_size=6))
def test_words_are_the_blank_separated_words_of_the_lines_kept(lines: list[str]) -> None:
    text = "\n".join(lines)
    kept = [line for line in text.splitlines() if not line.startswith("#")]
    assert default_options.words(text) == " ".join(kept).split()


def test_the_command_line_replaces_the_files_same_options() -> None:
    args = qstat.parse_args(["-s", "p"], ["-s rs -u $user\n", "-u bob\n-r\n"])
    assert args.states == parse_state_filter("p")
    assert args.users == ["$user", "bob"] and args.resources
    args = qstat.parse_args(["-u", "carol"], ["-s rs -u $user\n"])
    assert args.users == ["carol"] and args.states == parse_state_filter("rs")
    assert qstat.parse_args([], []).states == qstat.QstatArgs().states


def test_an_unknown_option_in_a_file_is_refused_as_on_the_command_line() -> None:
    with pytest.raises(qstat.QstatExit, match='invalid option argument "-bogus"'):
        qstat.parse_args([], ["-bogus\n"])


def test_the_cells_file_then_the_users(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                       ) -> None:
    common = tmp_path / "default" / "common"
    common.mkdir(parents=True)
    (common / "sge_qstat").write_text("-s r\n")
    home = tmp_path / "home"
    home.mkdir()
    (home / ".sge_qstat").write_text("-u $user\n")
    monkeypatch.setenv("PYGE_ROOT", str(tmp_path))
    monkeypatch.setenv("PYGE_CELL", "default")
    monkeypatch.setattr(pwd, "getpwuid", lambda uid: SimpleNamespace(pw_dir=str(home)))
    assert qstat.default_option_texts() == ["-s r\n", "-u $user\n"]
    (home / ".sge_qstat").unlink()
    assert qstat.default_option_texts() == ["-s r\n"]
