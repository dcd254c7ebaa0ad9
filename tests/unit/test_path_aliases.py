"""sge_aliases(5): the one parser of path alias files and the mapping of a path
(common.path_aliases), qsub's use of them (clients.qsub.main) and the start spec's
(qmaster.start_spec: the -cwd directory as the execution host sees it)."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clients.qsub.main import with_path_aliases
from clients.qsub.options import QsubError, SubmitOptions
from common import path_aliases
from common.model import Job, Task
from qmaster.start_spec import start_spec

MANUAL = """# Path Aliasing File
# src-path   sub-host   exec-host   replacement
/tmp_mnt/    *          *           /
"""


def test_the_manuals_example() -> None:
    aliases = path_aliases.parse(MANUAL, "f")
    assert aliases == [path_aliases.PathAlias("/tmp_mnt/", "*", "*", "/")]
    assert path_aliases.map_path(aliases, "/tmp_mnt/home/u/x", "any") == "/home/u/x"


def test_a_line_with_fewer_than_four_words_makes_the_file_unreadable() -> None:
    with pytest.raises(path_aliases.AliasFileError,
                       match='^invalid syntax of path alias file "/c/sge_aliases"$'):
        path_aliases.parse("/a * *\n", "/c/sge_aliases")
    assert path_aliases.parse("\n \t\n#/a\n", "f") == []


def test_hosts_and_chained_aliases() -> None:
    aliases = path_aliases.parse("//net//a  *  node1  /a\n/a  sub  *  /b\n/x hostz * /y\n", "f")
    assert aliases[0].source == "/net/a"  # (slashes folded)
    kept = path_aliases.for_submit_host(aliases, "node1")
    assert [a.source for a in kept] == ["/net/a"]
    assert path_aliases.map_path(aliases, "/net/a/w", "NODE1.example.org") == "/b/w"
    assert path_aliases.map_path(aliases, "/net/a/w", "node2") == "/net/a/w"


_WORD = st.text(alphabet="/abc*.", min_size=1, max_size=6)


@given(st.lists(st.tuples(_WORD, _WORD, _WORD, _WORD), max_size=5),
       st.lists(st.sampled_from(["", "# x y", "   "]), max_size=3))
def test_parse_reads_back_the_lines_written(rows: list[tuple[str, ...]],
                                            skipped: list[str]) -> None:
    text = "\n".join(skipped + ["\t".join(row) + "  trailing words" for row in rows])
    parsed = path_aliases.parse(text, "f")
    assert [(a.submit_host, a.exec_host) for a in parsed] == [(r[1], r[2]) for r in rows]


@given(st.lists(st.tuples(_WORD, _WORD, _WORD, _WORD), max_size=5), _WORD)
def test_a_path_no_source_leads_is_left_alone(rows: list[tuple[str, ...]], path: str) -> None:
    aliases = [path_aliases.PathAlias(*row) for row in rows if not path.startswith(row[0])]
    assert path_aliases.map_path(aliases, path, "h") == path


def test_qsub_keeps_the_submit_hosts_aliases_for_a_cwd_job() -> None:
    opts = SubmitOptions(cwd="/tmp_mnt/home/u", submit_cwd="/tmp_mnt/home/u")
    with_path_aliases(opts, [("/c", MANUAL), ("/u", "/home/u  other  *  /x\n")], host="sub")
    assert opts.submit_cwd == "/home/u"  # SGE_O_WORKDIR, for the submit host
    assert opts.path_aliases == [["/tmp_mnt/", "*", "*", "/"]]
    plain = SubmitOptions(submit_cwd="/tmp_mnt/a")
    with_path_aliases(plain, [("/c", MANUAL)], host="sub")
    assert (plain.submit_cwd, plain.path_aliases) == ("/a", [])  # (no -cwd: none carried)
    with pytest.raises(QsubError) as refused:
        with_path_aliases(opts, [("/c/sge_aliases", "bad\n")], host="sub")
    assert refused.value.exit_code == 7
    assert refused.value.message.splitlines()[0] == \
        'qsub: invalid syntax of path alias file "/c/sge_aliases"'


def test_the_start_spec_maps_cwd_for_the_execution_host() -> None:
    conf = {"queue": {"all.q": []}, "hgrp": {}, "complex": {}, "conf": {"global": []}}
    job = Job(job_id=5, owner="u", uid=1000, group="g", gid=1000, submit_time=0.0,
              opts={"job_name": "j", "cwd": "/net/a/w",
                    "path_aliases": [["/net/a", "*", "n1", "/a"]]}, sge_o={})

    def cwd(host: str) -> str:
        task = Task(job_id=5, task_id=1, queue="all.q", host=host, slots=1,
                    granted=[["all.q", host, 1]])
        return str(start_spec(conf, job, task)["cwd"])

    assert (cwd("n1"), cwd("n2")) == ("/a/w", "/net/a/w")


@given(_WORD, _WORD, st.text(alphabet="/abc", max_size=8))
def test_a_matching_alias_replaces_the_leading_part(source: str, replacement: str,
                                                    rest: str) -> None:
    alias = path_aliases.PathAlias(source, "*", "*", replacement)
    assert path_aliases.map_path([alias], source + rest, "h") == replacement + rest
