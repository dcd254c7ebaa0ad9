"""One complex attribute as its own object (``qconf -sce/-Ace/-Mce``): the text form and
the list edits of :mod:`common.resource.centry`."""
from __future__ import annotations

from hypothesis import given, strategies as st
import pytest

from common.resource.centry import (
    centry_template, find_entry, parse_centry, render_centry, with_entry, without_entry,
)
from common.resource.complexes import (
    ComplexAttr, ComplexError, Consumable, Requestable, default_complexes,
)
from common.resource.values import Relop, ValueType

_WORD = st.text(st.characters(min_codepoint=33, max_codepoint=126, blacklist_characters="#"),
                min_size=1, max_size=10)
LIC = ComplexAttr("lic", "l", ValueType.INT, Relop.LE, Requestable.YES, Consumable.JOB,
                  "0", "10")


def test_render_puts_every_field_on_its_own_line() -> None:
    assert render_centry(LIC) == ("name        lic\nshortcut    l\ntype        INT\n"
                                  "relop       <=\nrequestable YES\nconsumable  JOB\n"
                                  "default     0\nurgency     10\n")


@given(name=_WORD, short=_WORD, typ=st.sampled_from(list(ValueType)),
       relop=st.sampled_from(list(Relop)), req=st.sampled_from(list(Requestable)),
       cons=st.sampled_from(list(Consumable)), default=_WORD, urgency=_WORD)
def test_every_attribute_round_trips(name: str, short: str, typ: ValueType, relop: Relop,
                                     req: Requestable, cons: Consumable, default: str,
                                     urgency: str) -> None:
    attr = ComplexAttr(name, short, typ, relop, req, cons, default, urgency)
    assert parse_centry(render_centry(attr)) == attr


def test_parse_accepts_any_order_comments_and_grid_engine_spellings() -> None:
    text = ("# a license\nurgency 10\ndefault 0\nconsumable j\nrequestable y\n"
            "relop <=\ntype int\nshortcut l\nname lic\n")
    assert parse_centry(text) == LIC


@pytest.mark.parametrize("text, message", [
    ("", 'required attribute "name" is missing'),
    (render_centry(LIC) + "color red\n", 'unknown attribute name "color"'),
    (render_centry(LIC) + "urgency 5\n", 'attribute "urgency" is given twice'),
    (render_centry(LIC).replace("default     0", "default"),
     'invalid value for attribute "default"'),
    (render_centry(LIC).replace("INT", "INTEGER"), 'Invalid complex attribute type'),
    (render_centry(LIC).replace("<=", "=<"), "for relation operator"),
])
def test_parse_refuses_what_is_not_one_attribute(text: str, message: str) -> None:
    with pytest.raises(ComplexError, match=message):
        parse_centry(text)


def test_the_template_is_a_requestable_string() -> None:
    attr = centry_template("site")
    assert (attr.name, attr.shortcut, attr.type, attr.relop, attr.default) == \
        ("site", "site", ValueType.RESTRING, Relop.EQ, "NONE")
    assert not attr.is_consumable


def test_list_edits() -> None:
    attrs = default_complexes()
    added = with_entry(attrs, LIC, add=True)
    assert added[-1] == LIC and added[:-1] == attrs
    with pytest.raises(ComplexError, match='complex entry "lic" already exists'):
        with_entry(added, LIC, add=True)
    urgent = ComplexAttr(**{**LIC.__dict__, "urgency": "100"})
    changed = with_entry(added, urgent, add=False)
    assert find_entry(changed, "lic") == urgent and len(changed) == len(added)
    with pytest.raises(ComplexError, match='complex entry "lic" does not exist'):
        with_entry(attrs, LIC, add=False)
    assert without_entry(changed, "lic") == attrs
    with pytest.raises(ComplexError, match='complex entry "nosuch" does not exist'):
        without_entry(attrs, "nosuch")
