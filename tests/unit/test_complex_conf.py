"""The complex list as cell configuration: stored rows, ``cell_complexes`` and the
qmaster's ``conf_put``/``conf_get`` of kind "complex" (through the qmaster core harness).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given, strategies as st
import pytest

from common.resource.complexes import (
    ComplexAttr, ComplexError, Consumable, Requestable, cell_complexes,
    complexes_from_rows, default_complexes, render_complex_list, rows_of,
)
from common.resource.values import Relop, ValueType
from qmaster.conf.complex import COMPLEX_NOT_CHANGED, complex_references
from qmaster.defaults import exechost_defaults, queue_defaults
from tests.unit.test_qmaster_core import ALICE, ROOT, Harness

from tests.reference import REFERENCE

LIC = ["lic", "lic", "INT", "<=", "YES", "YES", "0", "0"]


def test_rows_round_trip_the_default_list() -> None:
    rows = rows_of(default_complexes())
    assert rows[0] == ["arch", "a", "STRING", "==", "YES", "NO", "NONE", "0"]
    assert all(len(row) == 8 and all(isinstance(w, str) for w in row) for row in rows)
    assert complexes_from_rows(rows) == default_complexes()


_WORD = st.text(st.characters(min_codepoint=33, max_codepoint=126, blacklist_characters="#"),
                min_size=1, max_size=8)


@given(name=_WORD, short=_WORD, typ=st.sampled_from(list(ValueType)),
       relop=st.sampled_from(list(Relop)), req=st.sampled_from(list(Requestable)),
       cons=st.sampled_from(list(Consumable)), default=_WORD, urgency=_WORD)
def test_any_attribute_survives_the_stored_form(name: str, short: str, typ: ValueType,
                                                relop: Relop, req: Requestable,
                                                cons: Consumable, default: str,
                                                urgency: str) -> None:
    attr = ComplexAttr(name, short, typ, relop, req, cons, default, urgency)
    assert complexes_from_rows(rows_of([attr])) == [attr]


@pytest.mark.parametrize("row", [LIC[:7], LIC + ["x"], ["lic", "", *LIC[2:]],
                                 ["lic", "l c", *LIC[2:]], "lic lic INT", [1] * 8,
                                 ["lic", "lic", "INTEGER", *LIC[3:]]])
def test_malformed_rows_are_refused(row: object) -> None:
    with pytest.raises(ComplexError):
        complexes_from_rows([row])  # type: ignore[list-item]


def test_cell_complexes_is_the_stored_list_else_the_defaults() -> None:
    assert cell_complexes({}) == default_complexes()
    assert cell_complexes({"complex": {}}) == default_complexes()
    stored = rows_of(default_complexes()) + [LIC]
    attrs = cell_complexes({"complex": {"global": stored}, "queue": {}})
    assert attrs[-1] == ComplexAttr("lic", "lic", ValueType.INT, Relop.LE,
                                    Requestable.YES, Consumable.YES, "0", "0")
    expected = (REFERENCE / "qconf-sc-with-consumable.txt").read_text()
    assert render_complex_list(attrs) == expected


# --------------------------------------------------------------------------- qmaster

@pytest.fixture
def qm(tmp_path: Path) -> Harness:
    return Harness(tmp_path, auto_add_hosts=True, default_slots=2)


def rows(qm: Harness) -> list[list[str]]:
    objects = qm.call("conf_get", {"user": ROOT.to_dict(), "kind": "complex"})["objects"]
    assert list(objects) == ["global"]
    return [list(r) for r in objects["global"]]


def put(qm: Harness, data: Any, user: Any = ROOT) -> str:
    body = {"user": user.to_dict(), "kind": "complex", "name": "global", "data": data,
            "mode": "modify"}
    return str(qm.call("conf_put", body)["message"])


def put_conf(qm: Harness, kind: str, name: str, pairs: list[list[str]], mode: str) -> None:
    qm.call("conf_put", {"user": ROOT.to_dict(), "kind": kind, "name": name,
                         "data": pairs, "mode": mode})


def put_entry(qm: Harness, row: list[str], mode: str, user: Any = ROOT) -> str:
    body = {"user": user.to_dict(), "kind": "complex", "name": row[0], "data": [row],
            "mode": mode}
    return str(qm.call("conf_put", body)["message"])


def delete_entry(qm: Harness, name: str) -> str:
    body = {"user": ROOT.to_dict(), "kind": "complex", "name": name}
    return str(qm.call("conf_del", body)["message"])


def with_value(pairs: list[list[str]], key: str, value: str) -> list[list[str]]:
    return [[k, value if k == key else v] for k, v in pairs]


def test_a_new_cell_has_the_default_list(qm: Harness) -> None:
    assert rows(qm) == rows_of(default_complexes())
    assert put(qm, rows(qm)) == COMPLEX_NOT_CHANGED
    # a new cell stores Grid Engine's default list; an unchanged -Mc writes nothing new
    assert qm.server.spool.load()[0]["complex"] == {"global": rows_of(default_complexes())}


def test_adding_a_consumable_is_kept_and_spooled(qm: Harness, tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match='unknown resource "lic"'):
        qm.submit(hard_resources={"lic": "1"})
    assert put(qm, rows(qm) + [LIC]) == 'root@qm added "lic" to complex entry list'
    assert LIC in rows(qm)
    assert cell_complexes(qm.server.store.conf)[-1].name == "virtual_used"  # sorted
    assert qm.submit(hard_resources={"lic": "1"}) > 0
    with pytest.raises(RuntimeError, match='unknown resource "nosuch"'):
        qm.submit(hard_resources={"nosuch": "1"})
    again = Harness(tmp_path)
    assert LIC in rows(again)


def test_one_line_per_change_removed_modified_added(qm: Harness) -> None:
    put(qm, rows(qm) + [LIC, ["foo", "foo", "INT", "<=", "YES", "NO", "0", "0"]])
    new = [r for r in rows(qm) if r[0] != "foo"]
    new = [r[:4] + ["NO"] + r[5:] if r[0] == "cpu" else r for r in new]
    new.append(["bar", "br", "DOUBLE", ">=", "YES", "NO", "0", "0"])
    assert put(qm, new).splitlines() == [
        'root@qm removed "foo" from complex list',
        'root@qm modified "cpu" in complex entry list',
        'root@qm added "bar" to complex entry list']


@pytest.mark.parametrize("change, message", [
    (lambda r: [x for x in r if x[0] != "arch"], 'The built-in complex "arch" cannot be deleted'),
    (lambda r: r + [["lic", "a", "INT", "<=", "YES", "YES", "0", "0"]],
     "complex with name lic or shortcut a already exists"),
    (lambda r: r + [["lic", "lic", "STRING", "<=", "YES", "YES", "0", "0"]],
     'Complex "lic" has an invalid relational operator'),
    (lambda r: r + [["lic", "lic", "INT", "<=", "YES"]], "invalid complex attribute definition"),
])
def test_refusals_in_grid_engine_words(qm: Harness, change: Any, message: str) -> None:
    before = rows(qm)
    with pytest.raises(RuntimeError, match=message):
        put(qm, change(before))
    assert rows(qm) == before


def test_only_managers_change_the_list(qm: Harness) -> None:
    with pytest.raises(RuntimeError, match="must be manager"):
        put(qm, rows(qm) + [LIC], ALICE)
    with pytest.raises(RuntimeError, match="must be manager"):
        put_entry(qm, LIC, "add", ALICE)
    # the list as a whole cannot go: "global" names no attribute
    with pytest.raises(RuntimeError, match='complex entry "global" does not exist'):
        delete_entry(qm, "global")


def test_a_referenced_attribute_cannot_be_removed(qm: Harness) -> None:
    defaults = rows(qm)
    put(qm, defaults + [LIC])
    put_conf(qm, "exechost", "vm", with_value(exechost_defaults("vm"), "complex_values",
                                               "lic=2"), "add")
    with pytest.raises(RuntimeError, match='denied: Complex attribute "lic" is still '
                                           'referenced in host "vm"'):
        put(qm, defaults)
    put_conf(qm, "exechost", "vm", exechost_defaults("vm"), "modify")
    put_conf(qm, "queue", "all.q", queue_defaults(
        "all.q", hostlist="@allhosts", complex_values="NONE,[vm=lic=3]"), "modify")
    with pytest.raises(RuntimeError, match='referenced in queue "all.q"'):
        put(qm, defaults)
    put_conf(qm, "queue", "all.q", queue_defaults("all.q", hostlist="@allhosts"), "modify")
    assert put(qm, defaults) == 'root@qm removed "lic" from complex list'


def test_references_name_every_user_of_an_attribute() -> None:
    attrs = default_complexes() + complexes_from_rows([LIC])
    conf = {"sconf": {"global": [["load_formula", "np_load_avg+lic*2"],
                                 ["job_load_adjustments", "lic=0.5"]]},
            "queue": {"b.q": [["complex_values", "lic=1"]],
                      "a.q": [["complex_values", "NONE,[@g=lic=1,mf=1G]"]]},
            "exechost": {"global": [["complex_values", "lic=4"]],
                         "vm": [["complex_values", "NONE"]]}}
    refs = complex_references(conf, attrs)
    assert refs["lic"] == [("sconf", "global"), ("sconf", "global"), ("queue", "a.q"),
                           ("queue", "b.q"), ("host", "global")]
    assert refs["mem_free"] == [("queue", "a.q")]  # shortcuts resolve to full names


def test_single_entries_are_added_changed_and_deleted_in_the_held_list(qm: Harness) -> None:
    assert put_entry(qm, LIC, "add") == 'root@qm added "lic" to complex entry list'
    assert LIC in rows(qm)
    with pytest.raises(RuntimeError, match='complex entry "lic" already exists'):
        put_entry(qm, LIC, "add")
    changed = LIC[:6] + ["1", "0"]
    assert put_entry(qm, changed, "modify") == 'root@qm modified "lic" in complex entry list'
    assert changed in rows(qm)
    assert put_entry(qm, changed, "modify") == COMPLEX_NOT_CHANGED
    with pytest.raises(RuntimeError, match='complex entry "nosuch" does not exist'):
        put_entry(qm, ["nosuch", *LIC[1:]], "modify")
    assert delete_entry(qm, "lic") == 'root@qm removed "lic" from complex list'
    assert rows(qm) == rows_of(default_complexes())


def test_single_entries_are_validated_like_the_whole_list(qm: Harness) -> None:
    with pytest.raises(RuntimeError, match='The built-in complex "arch" cannot be deleted'):
        delete_entry(qm, "arch")
    with pytest.raises(RuntimeError, match="cannot be a consumable"):
        put_entry(qm, ["s", "s", "STRING", "==", "YES", "YES", "NONE", "0"], "add")
    with pytest.raises(RuntimeError, match="complex with name"):
        put_entry(qm, ["lic", "a", "INT", "<=", "YES", "YES", "0", "0"], "add")
    put_entry(qm, LIC, "add")
    put_conf(qm, "exechost", "global", with_value(exechost_defaults("global"),
                                                   "complex_values", "lic=2"), "modify")
    with pytest.raises(RuntimeError, match='"lic" is still referenced in host "global"'):
        delete_entry(qm, "lic")


@pytest.mark.parametrize("data", [[LIC, LIC], [["other", *LIC[1:]]], LIC, []])
def test_an_entry_must_be_one_row_named_like_the_object(qm: Harness, data: Any) -> None:
    body = {"user": ROOT.to_dict(), "kind": "complex", "name": "lic", "data": data,
            "mode": "add"}
    with pytest.raises(RuntimeError):
        qm.call("conf_put", body)
    assert rows(qm) == rows_of(default_complexes())


@pytest.mark.parametrize("kind, name, value, message", [
    ("queue", "all.q", "nosuch=1", 'Complex attribute "nosuch" does not exist'),
    ("queue", "all.q", "NONE,[h1=nosuch=1]", 'Complex attribute "nosuch" does not exist'),
    ("queue", "all.q", "slots=abc", 'attribute "slots" is not a integer value'),
    ("exechost", "global", "nosuch=1", 'denied: attribute "nosuch" is not a complex attribute'),
    ("exechost", "global", "mem_free=abc", 'attribute "mem_free" is not a memory value'),
])
def test_complex_values_name_attributes_of_the_list(qm: Harness, kind: str, name: str,
                                                    value: str, message: str) -> None:
    """Grid Engine 8.1.9's refusals of `qconf -aattr/-mattr ... complex_values`."""
    pairs = (queue_defaults(name, hostlist="@allhosts", complex_values=value)
             if kind == "queue" else with_value(exechost_defaults(name), "complex_values",
                                                value))
    with pytest.raises(RuntimeError) as refused:
        put_conf(qm, kind, name, pairs, "modify")
    assert str(refused.value) == message
    put_conf(qm, kind, name, [[k, "mf=1G,slots=2" if k == "complex_values" else v]
                              for k, v in pairs], "modify")


def test_an_attribute_named_global_is_still_one_entry(qm: Harness) -> None:
    row = ["global", "glob", "INT", "<=", "YES", "NO", "0", "0"]
    assert put_entry(qm, row, "add") == 'root@qm added "global" to complex entry list'
    changed = row[:7] + ["5"]
    assert put_entry(qm, changed, "modify") == 'root@qm modified "global" in complex entry list'
    assert changed in rows(qm) and len(rows(qm)) == len(rows_of(default_complexes())) + 1
