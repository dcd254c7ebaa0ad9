"""qselect, qresub and qping: their texts and the pure parts, against 8.1.9's captures
(tests/data/reference/lists/q{select,resub,ping}-*). Live: tests/e2e/test_new_commands.py."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from clients import qping, qresub, qselect
from clients.qstat import QstatExit
from tests.reference import REFERENCE as REF

LISTS = REF / "lists"


def capture(name: str) -> tuple[str, str, int]:
    path = LISTS / name
    return (Path(f"{path}.out").read_text(), Path(f"{path}.err").read_text(),
            int(Path(f"{path}.rc").read_text()))


def argv_of(name: str) -> list[str]:
    return (LISTS / f"{name}.cmd").read_text().split()[1:]


def run_main(main, argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[str, str, int]:
    status = main(argv)
    out, err = capsys.readouterr()
    return out, err, status


@pytest.mark.parametrize("name", ["qselect-help", "qselect-bad", "qselect-qs-bad",
                                  "qselect-pe-noarg", "qresub-help", "qresub-none",
                                  "qresub-bad", "qping-help", "qping-noargs"])
def test_usage_and_option_errors_are_grid_engines(name: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    main = {"qselect": qselect.main, "qresub": qresub.main, "qping": qping.main}[name.split("-")[0]]
    assert run_main(main, argv_of(name), capsys) == capture(name)


def test_qselect_names_in_the_cells_order_or_none() -> None:
    cluster = {"instances": [{"queue": "all.q", "host": "vm"}, {"queue": "b.q", "host": "vm"}]}
    assert qselect.selected_names(cluster, None) == ["all.q@vm", "b.q@vm"]
    assert qselect.selected_names(cluster, frozenset({"b.q@vm"})) == ["b.q@vm"]
    with pytest.raises(qselect.NoneFound):
        qselect.selected_names(cluster, frozenset())
    with pytest.raises(QstatExit, match="^error: no such parallel environment$"):
        qselect.check_pes(["nosuch"], {"smp", "mpi"})
    qselect.check_pes(["nosuch", "smp"], {"smp"})


def test_qresub_copies_options_script_and_environment_but_not_the_hold() -> None:
    job = {"job_id": 237, "owner": "u", "opts": {"job_name": "held1", "hold": True,
                                                  "array": [1, 3, 1]},
           "script": b"echo\n", "umask": 0o027, "sge_o": {"HOME": "/home/u"}}
    copy = qresub.copy_of(job, None)
    assert copy == {"opts": {"job_name": "held1", "array": [1, 3, 1]}, "script": b"echo\n",
                    "umask": 0o027, "sge_o": {"HOME": "/home/u"}}
    assert qresub.copy_of(job, "u")["opts"]["hold"] is True
    out, _, _ = capture("qresub-array")
    assert qresub.submitted_line(257, {"job_name": "arr2", "array": [1, 3, 1]}) + "\n" == out
    out, _, _ = capture("qresub-job")
    assert qresub.submitted_line(256, {"job_name": "held1"}) + "\n" == out
    with pytest.raises(qresub.QresubExit, match="only the user hold"):
        qresub.parse_args(["-h", "o", "5"])


def test_qping_lines_and_block_are_grid_engines(utc: None) -> None:
    args = qping.parse_args(["vm", "6444", "qmaster", "1"])
    start = 1795844418.0  # the captured qmaster's start (11/28/2026 05:40:18)
    clock = iter([start + 5255, start + 5256, start + 5257])
    out = io.StringIO()
    assert qping.run(args, out, start, clock=lambda: next(clock), sleep=lambda s: None,
                     count=3) == 0
    assert out.getvalue() == (LISTS / "qping-plain.out").read_text()
    block = qping.info_block(start + 4642, start, 1)
    captured = (LISTS / "qping-qmaster.out").read_text().splitlines()
    ours = block.splitlines()
    # the same lines but the figures commlib keeps (clients, threads): docs/compatibility.md
    differ = {"no. of connected clients:", "info:"}
    assert [l for l in ours if not any(l.startswith(d) for d in differ)][1:] == \
        [l for l in captured if not any(l.startswith(d) for d in differ)][1:]
    assert len(ours) == len(captured)


def test_qping_refuses_what_it_does_not_have() -> None:
    for word in ("-dump", "-ssl"):
        with pytest.raises(qping.QpingExit, match="not supported by pygridengine"):
            qping.parse_args([word, "vm", "6444", "qmaster", "1"])


def test_qselect_and_qstat_U_select_the_instances_every_user_may_use() -> None:
    """8.1.9's select_by_queue_user_list: queue, host, global host and cluster lists;
    ``@group`` asked as the group, a user name without a group."""
    from clients.qstat import user_instances
    from qmaster.defaults import exechost_defaults, queue_defaults
    usersets = {"staff": [["name", "staff"], ["type", "ACL"], ["entries", "alice,@wheel"]]}
    conf = {"queue": {"a.q": queue_defaults("a.q", user_lists="staff"),
                      "b.q": queue_defaults("b.q", xuser_lists="staff")},
            "exechost": {"global": exechost_defaults("global"), "vm": exechost_defaults("vm")},
            "pe": {}, "userset": usersets, "hgrp": {}, "conf": {"global": []}}
    cluster = {"instances": [{"queue": "a.q", "host": "vm"}, {"queue": "b.q", "host": "vm"}]}
    assert user_instances(["alice"], cluster, conf) == {"a.q@vm"}
    assert user_instances(["bob"], cluster, conf) == {"b.q@vm"}
    assert user_instances(["@wheel"], cluster, conf) == {"a.q@vm"}
    assert user_instances(["alice", "bob"], cluster, conf) == frozenset()  # all must have it
    conf["conf"] = {"global": [["xuser_lists", "staff"]]}
    assert user_instances(["alice"], cluster, conf) == frozenset()
