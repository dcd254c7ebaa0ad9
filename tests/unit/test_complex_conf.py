"""The complex list as cell configuration: stored rows, ``cell_complexes`` and the
qmaster's ``conf_put``/``conf_get`` of kind "complex" (through the qmaster core harness).
"""
from __future__ import annotations

from hypothesis import given, strategies as st
import pytest

from common.resource.complexes import (
    ComplexAttr, ComplexError, Consumable, Requestable, cell_complexes,
    complexes_from_rows, default_complexes, render_complex_list, rows_of,
)
from common.resource.values import Relop, ValueType

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
    with open("/work/shared/reference/qconf-sc-with-consumable.txt") as fh:
        assert render_complex_list(attrs) == fh.read()
