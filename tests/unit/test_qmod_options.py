"""qmod's command line (clients.qmod.options) against the texts of Grid Engine 8.1.9
(tests/data/reference/qmod): usage, option errors, the order items apply in."""
from __future__ import annotations

import string

from hypothesis import given, strategies as st

from clients.qmod.options import USAGE, Refusal, Request, parse
from tests.reference import REFERENCE

QMOD = REFERENCE / "qmod"


def captured(name: str) -> tuple[str, str, int]:
    return ((QMOD / f"{name}.out").read_text(), (QMOD / f"{name}.err").read_text(),
            int((QMOD / f"{name}.rc").read_text()))


def printed(result: Request | Refusal) -> tuple[str, str, int]:
    assert isinstance(result, Refusal)
    return result.stdout, result.stderr, result.status


def items(argv: list[str]) -> list[tuple[str, str, str]]:
    result = parse(argv)
    assert isinstance(result, Request)
    return [(i["action"], i["scope"], i["ref"]) for i in result.items]


def test_usage_and_option_errors_as_captured() -> None:
    assert USAGE == captured("help")[0]
    cases = {"help": ["-help"], "noargs": [], "bad-option": ["-bogus"],
             "d-noarg": ["-d"], "sj-noarg": ["-sj"], "help-after": ["-d", "all.q", "-help"],
             "t-alone": ["-t", "1"], "sj-two-jobs": ["-sj", "306,310"],
             "bad-task-range": ["-sj", "314.x"], "bad-t-range": ["-sj", "314", "-t", "x"]}
    for name, argv in cases.items():
        assert printed(parse(argv)) == captured(name), name


def test_options_apply_in_grid_engine_order_not_command_line_order() -> None:
    assert items(["-e", "all.q@vm", "-d", "all.q@vm"]) == [
        ("disable", "queue", "all.q@vm"), ("enable", "queue", "all.q@vm")]
    assert items(["-e", "all.q,all.q@vm"]) == [("enable", "queue", "all.q"),
                                               ("enable", "queue", "all.q@vm")]
    assert items(["--suspendjob", "5", "6", "-f", "-c", "x"]) == [
        ("clear", "any", "x"), ("suspend", "job", "5"), ("suspend", "job", "6")]
    assert parse(["-f", "-rj", "5"]) == Request(
        [{"action": "reschedule", "scope": "job", "ref": "5"}], force=True)


def test_task_ranges_and_names() -> None:
    result = parse(["-sj", "7.2-4", "name", "-t", "3"])
    assert isinstance(result, Request)
    assert result.items == [
        {"action": "suspend", "scope": "job", "ref": "7", "tasks": [[2, 4, 1]]},
        {"action": "suspend", "scope": "job", "ref": "name", "tasks": [[3, 3, 1]]}]


@given(st.lists(st.sampled_from(["-c", "-cj", "-cq", "-d", "-e", "-r", "-rj", "-rq", "-s",
                                 "-sj", "-sq", "-us", "-usj", "-usq", "-f", "-t", "-help",
                                 "1", "2.1-3", "all.q", "*@vm", "a,b", "x.y", "-zz"]),
                max_size=8))
def test_any_command_line_is_a_request_or_a_refusal(argv: list[str]) -> None:
    result = parse(argv)
    assert isinstance(result, (Request, Refusal))
    if isinstance(result, Request):
        assert result.items or argv.count("-f") == len(argv) and argv
        for item in result.items:
            assert item["ref"] and item["scope"] in ("any", "job", "queue")
    else:
        assert result.status in (0, 1) and (result.stdout or result.stderr)


@given(st.text(string.ascii_letters + string.digits + "._*@", min_size=1, max_size=12))
def test_queue_lists_split_at_commas_only(name: str) -> None:
    assert items(["-d", f"{name},{name}"]) == [("disable", "queue", name)] * 2
