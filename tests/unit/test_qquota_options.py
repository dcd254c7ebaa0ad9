"""qquota's options as 8.1.9 reads them from the cell's ``sge_qquota``, ``~/.sge_qquota``
and the command line (tests/data/reference/rqs-sched/sge_qquota-*, qquota-cmdline-*)."""
from __future__ import annotations

from pathlib import Path

import pytest

from clients.qquota import USAGE, QquotaExit, option_files, parse_args, parse_sources

CAPTURES = Path(__file__).parents[1] / "data" / "reference" / "rqs-sched"


def test_help_and_refusal_are_8_1_9s_text() -> None:
    help_8_1_9 = (CAPTURES / "sge_qquota-cell-help.out").read_text()
    ours = "\n  [-fmt plain|json]                    output format (json: not in 8.1.9)\n"
    assert USAGE == help_8_1_9 + ours  # (-fmt: after 8.1.9's lines)
    with pytest.raises(QquotaExit) as caught:
        parse_args(["-x"])
    assert caught.value.message.replace(ours, "") + "\n" == \
        (CAPTURES / "qquota-cmdline-invalid-option.err").read_text()
    assert caught.value.status == 1


@pytest.mark.parametrize("words, lists", [
    (["-l", "lic", "-l", "slots"], {"resources": ["lic", "slots"]}),   # files add up
    (["-u", "*", "-l", "slots"], {"users": ["*"], "resources": ["slots"]}),
    (["-u", "root", "#", "sgeuser"], {"users": ["root", "#", "sgeuser"]}),
    (["-u", "root", "sgeuser"], {"users": ["root", "sgeuser"]}),
    (["-u"], {}),                                                       # no value: no effect
    (["-l", "lic", "-u", "*"], {"resources": ["lic"], "users": ["*"]}),
    (["-h", "a,b", "-h", "c"], {"hosts": ["a", "b", "c"]})])
def test_options_accumulate(words: list[str], lists: dict[str, list[str]]) -> None:
    assert parse_args(words) == (lists, False, False)


def test_both_files_are_read_and_only_whole_comment_lines_left_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    common, home = tmp_path / "common", tmp_path / "home"
    common.mkdir()
    home.mkdir()
    (common / "sge_qquota").write_text("# a comment\n\n-l lic\n")
    (home / ".sge_qquota").write_text("   # indented comment\n-u root # sgeuser\n")
    monkeypatch.setenv("HOME", str(home))
    sources = option_files(common)
    assert sources == [["-l", "lic"], ["-u", "root", "#", "sgeuser"]]
    assert parse_sources(sources + [["-l", "slots"]])[0] == {
        "resources": ["lic", "slots"], "users": ["root", "#", "sgeuser"]}


def test_each_source_is_read_on_its_own() -> None:
    """A file ending in a list option does not take the command line's words, and a
    flag ends a list."""
    with pytest.raises(QquotaExit):
        parse_sources([["-u", "root"], ["foo"]])
    with pytest.raises(QquotaExit):
        parse_args(["-u", "root", "-xml", "sgeuser"])
    assert parse_sources([["-u", "root"], ["-u", "sgeuser", "-xml"]]) == \
        ({"users": ["root", "sgeuser"]}, True, False)


class _NoQuotaClient:
    """A cell without resource quota sets, as the report asks it."""

    class user:
        name = "root"

    def conf_get(self, kind: str) -> dict[str, object]:
        return {}

    def jobs(self, **kwargs: object) -> dict[str, object]:
        return {"jobs": [], "tasks": []}

    def cluster(self) -> dict[str, object]:
        return {"hosts": []}


def test_xml_of_nothing_is_the_empty_document_as_8_1_9s() -> None:
    from clients.qquota import report
    assert report(_NoQuotaClient(), {}, False) == ""
    assert report(_NoQuotaClient(), {}, True) == (
        "<?xml version='1.0'?>\n<qquota_result xmlns=\"http://arc.liv.ac.uk/repos/darcs/sge/"
        "source/source/dist/util/resources/schemas/qquota/qquota.xsd\">\n</qquota_result>\n")
