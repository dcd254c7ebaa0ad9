"""qstat -explain and -qs as 8.1.9 parses and applies them
(tests/data/reference/qstat-qs-explain/, captured from 8.1.9)."""
from __future__ import annotations

from pathlib import Path

import pytest

from clients.qstat import QstatExit, parse_args
from clients.render.qstat import render_full, render_full_xml
from clients.views.qstat import JobFilter, queue_rows

CAPTURES = Path(__file__).parents[1] / "data" / "reference" / "qstat-qs-explain"


def captured(name: str) -> tuple[str, str, int]:
    return ((CAPTURES / f"{name}.out").read_text(), (CAPTURES / f"{name}.err").read_text(),
            int((CAPTURES / f"{name}.rc").read_text()))


def test_explain_implies_full_and_the_last_one_wins() -> None:
    args = parse_args(["-explain", "E"])
    assert args.full and args.explain == "E"
    assert parse_args(["-explain", "E", "-explain", "a"]).explain == "a"
    assert parse_args(["-explain", "aE"]).explain == "aE"


def test_qs_does_not_imply_full_and_the_last_one_wins() -> None:
    args = parse_args(["-qs", "d", "-qs", "E"])
    assert not args.full and args.queue_states == "E"


@pytest.mark.parametrize("case, argv", [("explain-X-E", ["-explain", "X"]),
                                        ("qs-dX", ["-qs", "dX"]),
                                        ("explain-aX-E", ["-explain", "aX"])])
def test_unknown_state_letters_in_8_1_9_words(case: str, argv: list[str]) -> None:
    out, err, rc = captured(case)
    with pytest.raises(QstatExit) as caught:
        parse_args(argv)
    assert (out, caught.value.message + "\n", caught.value.status, caught.value.usage) == \
        ("", err, rc, False)


@pytest.mark.parametrize("case, argv", [("explain-noarg", ["-explain"]),
                                        ("qs-noarg", ["-qs"])])
def test_a_missing_letter_list(case: str, argv: list[str]) -> None:
    _, err, rc = captured(case)
    with pytest.raises(QstatExit) as caught:
        parse_args(argv)
    assert (caught.value.message + "\n", caught.value.status) == (err, rc)


CLUSTER = {"hosts": [{"name": "vm", "alive": True,
                      "load": {"load_avg": "0.37695", "arch": "lx-amd64"}}],
           "instances": [{"queue": "all.q", "host": "vm", "slots": 4, "used": 0,
                          "qtype": "BATCH INTERACTIVE", "pe_list": "make smp mpi",
                          "alive": True, "states": "E",
                          "reason": "queue all.q marked QERROR as result of job 90's "
                                    "failure at host vm"}]}


def test_explain_e_adds_the_reason_under_the_queue_line_as_8_1_9() -> None:
    rows = queue_rows(CLUSTER, {"jobs": [], "tasks": []}, JobFilter(), explain="E")
    text = render_full(rows, [])
    out, _, _ = captured("f-explain-E")
    assert text == out.split("\n####")[0]  # the same up to the pending block
    xml = render_full_xml(rows, [])
    assert "      <state>E</state>\n      <message>queue all.q marked QERROR as result of " \
           "job 90&apos;s failure at host vm</message>\n    </Queue-List>" in xml
    # only the letters asked for
    assert queue_rows(CLUSTER, {"jobs": [], "tasks": []}, JobFilter(),
                      explain="a")[0]["explain"] == []
