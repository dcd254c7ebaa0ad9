"""sge_share_mon (clients.share_mon): options as 8.1.9's getopt reads them and the output
of 8.1.9 (captured: the oracle's g5-share-mon-* of a two-user tree, 80/20), from rows as
the qmaster's policy view gives them (qmaster.policy_view.share_tree_rows)."""
from __future__ import annotations

import io
from typing import Any

import pytest

from clients import share_mon as sm
from common.policy.model import NodeShare, PolicyResult
from common.policy.usage import USER, Holder, UsageRecord
from qmaster.policy_view import share_tree_rows

NOW, STAMP = 1795823835, 1795823833
ROWS = [
    {"curr_time": NOW, "usage_time": 0, "node_name": "/", "user_name": "",
     "project_name": "", "shares": 1, "job_count": 0, "level%": 1.0, "total%": 1.0,
     "long_target_share": 1.0, "short_target_share": 0.0, "actual_share": 1.0,
     "usage": 10.028337, "cpu": 0.0, "mem": 0.0, "io": 0.0, "ltcpu": 0.0, "ltmem": 0.0,
     "ltio": 0.0, "leaf": False},
    {"curr_time": NOW, "usage_time": STAMP, "node_name": "/sgeuser", "user_name": "sgeuser",
     "project_name": "", "shares": 80, "job_count": 0, "level%": 0.8, "total%": 0.8,
     "long_target_share": 0.0, "short_target_share": 0.0, "actual_share": 0.785955,
     "usage": 7.881825, "cpu": 7.881825, "mem": 0.009702, "io": 0.007580,
     "ltcpu": 7.940212, "ltmem": 0.009710, "ltio": 0.007691, "leaf": True},
    {"curr_time": NOW, "usage_time": STAMP, "node_name": "/sgeuser2",
     "user_name": "sgeuser2", "project_name": "", "shares": 20, "job_count": 0,
     "level%": 0.2, "total%": 0.2, "long_target_share": 0.0, "short_target_share": 0.0,
     "actual_share": 0.214045, "usage": 2.146513, "cpu": 2.146513, "mem": 0.002447,
     "io": 0.001955, "ltcpu": 2.146562, "ltmem": 0.002447, "ltio": 0.001955, "leaf": True}]

C1 = (
    "1795823835\t0\t/\t\t\t1\t0\t1.000000\t1.000000\t1.000000\t0.000000\t1.000000\t10.028337\t"
    "0.000000\t0.000000\t0.000000\t0.000000\t0.000000\t0.000000\t\n"
    "1795823835\t1795823833\t/sgeuser\tsgeuser\t\t80\t0\t0.800000\t0.800000\t0.000000\t"
    "0.000000\t0.785955\t7.881825\t7.881825\t0.009702\t0.007580\t7.940212\t0.009710\t"
    "0.007691\t\n"
    "1795823835\t1795823833\t/sgeuser2\tsgeuser2\t\t20\t0\t0.200000\t0.200000\t0.000000\t"
    "0.000000\t0.214045\t2.146513\t2.146513\t0.002447\t0.001955\t2.146562\t0.002447\t"
    "0.001955\t\n")
HEADER = ("curr_time\tusage_time\tnode_name\tuser_name\tproject_name\tshares\tjob_count\t"
          "level%\ttotal%\tlong_target_share\tshort_target_share\tactual_share\tusage\tcpu\t"
          "mem\tio\tltcpu\tltmem\tltio\t\n\n")


class Stand:
    def __init__(self, rows: list[dict[str, Any]], tree: bool = True) -> None:
        self.rows, self.tree, self.asked = rows, tree, []

    def share_tree(self, decay: bool = False) -> dict[str, Any]:
        self.asked.append(decay)
        return {"tree": self.tree, "nodes": self.rows}


def mon(*argv: str, rows: list[dict[str, Any]] = ROWS) -> str:
    out = io.StringIO()
    assert sm.run(sm.parse_args(list(argv)), Stand(rows), out) == 0
    return out.getvalue()


@pytest.fixture(autouse=True)
def _in_utc(utc: None) -> None:
    """The captures' time zone."""


def test_one_collection_and_the_header() -> None:
    assert mon("-c", "1") == C1
    assert mon("-c", "1", "-h") == HEADER + C1


def test_name_value_fields_leaves_and_nodes() -> None:
    assert mon("-c", "1", "-n").splitlines()[1].startswith(
        "curr_time=1795823835\tusage_time=1795823833\tnode_name=/sgeuser\tuser_name=sgeuser"
        "\tproject_name=\tshares=80\tjob_count=0\tlevel%=0.800000\t")
    assert mon("-c1", "-h", "-f", "node_name,shares,actual_share,usage") == (
        "node_name\tshares\tactual_share\tusage\t\n\n/\t1\t1.000000\t10.028337\t\n"
        "/sgeuser\t80\t0.785955\t7.881825\t\n/sgeuser2\t20\t0.214045\t2.146513\t\n")
    assert mon("-c", "1", "-x") == "".join(C1.splitlines(keepends=True)[1:])
    assert mon("-c", "1", "/sgeuser2") == C1.splitlines(keepends=True)[2]


def test_formatted_times() -> None:
    lines = mon("-c", "1", "-t").splitlines()
    assert lines[0].startswith("Fri Nov 27 23:57:15 2026\t0\t/\t")
    assert lines[1].startswith("Fri Nov 27 23:57:15 2026\tFri Nov 27 23:57:13 2026\t/sgeuser\t")


def test_collections_are_separated_by_the_record_delimiter() -> None:
    text = mon("-c", "2", "-i", "1", "-r", "--\n", "-d", ",", "-f", "shares")
    assert text == "1,\n80,\n20,\n--\n1,\n80,\n20,\n"


def test_options_as_getopt_reads_them() -> None:
    with pytest.raises(sm.ShareMonExit) as stop:
        sm.parse_args(["-help"])
    assert stop.value.status == 1
    assert stop.value.message.startswith("sge_share_mon: invalid option -- 'e'\nusage: "
                                         "sge_share_mon [-cdfhilmnorsux] [node_names ...]")
    assert stop.value.message.endswith("   -x                exclude non-leaf nodes\n\n")
    with pytest.raises(sm.ShareMonExit) as stop:
        sm.parse_args(["-c", "x"])
    assert stop.value.message == '"x" is not a valid count'
    assert sm.parse_args(["-u", "-c", "3", "a", "b"]).names == ["a", "b"]


def test_no_share_tree() -> None:
    with pytest.raises(sm.ShareMonExit) as stop:
        sm.run(sm.parse_args(["-c", "1"]), Stand([], tree=False), io.StringIO())
    assert (stop.value.message, stop.value.status) == ("No share tree", 2)


def test_rows_from_the_policy_view() -> None:
    nodes = (NodeShare("/", "", "", 1, 0, 1.0, 1.0, 1.0, 0.0, 1.0, 10.0),
             NodeShare("/sgeuser", "sgeuser", "", 80, 1, 0.8, 0.8, 0.7, 0.6, 0.8, 8.0),
             NodeShare("/p1", "", "p1", 20, 0, 0.2, 0.2, 0.3, 0.4, 0.2, 2.0),
             NodeShare("/p1/bob", "bob", "p1", 1, 0, 1.0, 0.2, 0.3, 0.4, 0.2, 2.0))
    raw = {Holder(USER, "sgeuser"): UsageRecord({"cpu": 8.0}, {"cpu": 9.0}, STAMP),
           Holder(USER, "bob", "p1"): UsageRecord({"cpu": 2.0, "io": 1.0}, {}, STAMP)}
    decayed = {h: UsageRecord({k: v / 2 for k, v in r.usage.items()}, r.long_term, NOW)
               for h, r in raw.items()}
    rows = share_tree_rows(PolicyResult({}, (), nodes), raw, decayed, NOW, decay=False)
    assert [r["leaf"] for r in rows] == [False, True, False, True]
    assert (rows[1]["usage_time"], rows[1]["cpu"], rows[1]["ltcpu"]) == (STAMP, 8.0, 9.0)
    assert (rows[3]["cpu"], rows[3]["io"], rows[2]["cpu"]) == (2.0, 1.0, 0.0)
    assert rows[0]["usage_time"] == 0 and rows[1]["short_target_share"] == 0.6
    later = share_tree_rows(PolicyResult({}, (), nodes), raw, decayed, NOW, decay=True)
    assert (later[1]["usage_time"], later[1]["cpu"]) == (NOW, 4.0)
