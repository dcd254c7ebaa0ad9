"""Pure tests of ``clients.qconf.attr``: list and per-host attribute changes with Grid
Engine 8.1.9's notes and refusals."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from clients.qconf.attr import (
    ADD, DELETE, MODIFY, PURGE, REPLACE, AttrError, Request, change_object, change_value,
    elements, host_targets, join, split_object_id, store_kind,
)
from common.objects_conf import template


def host(**values: str) -> list[list[str]]:
    pairs = template("exechost", "vm")
    return [[k, values.get(k, v)] for k, v in pairs]


def queue(**values: str) -> list[list[str]]:
    pairs = template("queue", "all.q")
    return [[k, values.get(k, v)] for k, v in pairs]


def value(pairs: list[list[str]], attr: str) -> str:
    return dict((k, v) for k, v in pairs)[attr]


def test_aattr_appends_to_an_empty_list() -> None:
    out = change_object("exechost", host(), Request(ADD, "complex_values", "lic=2"), "vm")
    assert value(out.pairs, "complex_values") == "lic=2"
    assert out.notes == [] and out.applied


def test_aattr_of_an_element_already_there_changes_nothing() -> None:
    pairs = host(complex_values="lic=2")
    out = change_object("exechost", pairs, Request(ADD, "complex_values", "lic=5"), "vm")
    assert not out.applied
    assert out.notes == ['No modification because "lic" already exists in "complex_values" '
                         'of "vm"']
    assert out.pairs == pairs


def test_mattr_replaces_and_moves_to_the_end_and_notes_new_ones() -> None:
    pairs = host(complex_values="a=1,b=2")
    out = change_object("exechost", pairs, Request(MODIFY, "complex_values", "a=3,c=4"), "vm")
    assert value(out.pairs, "complex_values") == "b=2,a=3,c=4"
    assert out.notes == ['Unable to find "c" in "complex_values" of "vm" - Adding new element.']


def test_mattr_on_an_empty_list_says_so() -> None:
    out = change_object("exechost", host(), Request(MODIFY, "load_scaling", "np=2"), "vm")
    assert value(out.pairs, "load_scaling") == "np=2"
    assert out.notes == ['"load_scaling" of "exechost" is empty - Adding new element(s).']


@pytest.mark.parametrize("none", ["NONE", "none"])
def test_mattr_none_is_refused(none: str) -> None:
    with pytest.raises(AttrError) as err:
        change_object("exechost", host(), Request(MODIFY, "complex_values", none), "vm")
    assert err.value.message == ('"NONE" is not a valid list attribute value for -mattr.  '
                                 "Try using -rattr instead.")


def test_rattr_none_empties_the_list() -> None:
    pairs = host(complex_values="a=1,b=2")
    out = change_object("exechost", pairs, Request(REPLACE, "complex_values", "NONE"), "vm")
    assert value(out.pairs, "complex_values") == "NONE"


def test_dattr_removes_and_notes_missing_elements() -> None:
    pairs = [["group_name", "@allhosts"], ["hostlist", "vm h2"]]
    out = change_object("hostgroup", pairs, Request(DELETE, "hostlist", "VM,h9"), "@allhosts")
    assert value(out.pairs, "hostlist") == "h2"
    assert out.notes == ['"h9" does not exist in "hostlist" of "@allhosts"']


def test_dattr_of_the_last_element_leaves_none() -> None:
    out = change_value("lic=2", Request(DELETE, "complex_values", "lic"), "vm")
    assert out.value == "NONE"


def test_scalar_attributes_are_set_by_every_option() -> None:
    pe = template("pe", "smp")
    for option in (ADD, MODIFY, DELETE, REPLACE):
        out = change_object("pe", pe, Request(option, "slots", "7"), "smp")
        assert value(out.pairs, "slots") == "7"


def test_queue_default_value() -> None:
    out = change_object("queue", queue(slots="1,[vm=4]"), Request(MODIFY, "slots", "3"), "all.q")
    assert value(out.pairs, "slots") == "3,[vm=4]"


def test_queue_host_entry_by_bracket_and_by_instance() -> None:
    out = change_object("queue", queue(), Request(ADD, "slots", "[vm=5]"), "all.q")
    assert value(out.pairs, "slots") == "1,[vm=5]"
    out = change_object("queue", out.pairs, Request(MODIFY, "slots", "6"), "all.q@VM")
    assert value(out.pairs, "slots") == "1,[vm=6]"


def test_queue_list_attribute_per_host() -> None:
    pairs = queue(complex_values="a=1,[vm=b=2]")
    out = change_object("queue", pairs, Request(ADD, "complex_values", "c=3"), "all.q@vm")
    assert value(out.pairs, "complex_values") == "a=1,[vm=b=2,c=3]"
    out = change_object("queue", pairs, Request(ADD, "pe_list", "[h2=x]"), "all.q")
    assert value(out.pairs, "pe_list") == "make smp mpi,[h2=x]"


def test_queue_dattr_does_not_create_host_entries() -> None:
    out = change_object("queue", queue(), Request(DELETE, "slots", "[vm=5]"), "all.q")
    assert value(out.pairs, "slots") == "1"


def test_queue_rattr_drops_other_host_entries() -> None:
    pairs = queue(slots="1,[vm=4],[h2=3]")
    out = change_object("queue", pairs, Request(REPLACE, "slots", "2,[h2=8]"), "all.q")
    assert value(out.pairs, "slots") == "2,[h2=8]"


def test_purge_removes_one_host_entry() -> None:
    pairs = queue(slots="1,[vm=4],[h2=3]")
    out = change_object("queue", pairs, Request(PURGE, "slots"), "all.q@vm")
    assert value(out.pairs, "slots") == "1,[h2=3]"


def test_purge_needs_an_instance_and_a_queue() -> None:
    with pytest.raises(AttrError, match='Given object_instance "all.q" is incomplete'):
        change_object("queue", queue(), Request(PURGE, "slots"), "all.q")
    with pytest.raises(AttrError, match='Modification of object "exechost" not supported'):
        change_object("exechost", host(), Request(PURGE, "complex_values"), "vm@x")


def test_unknown_attribute_and_key_attribute_are_refused() -> None:
    for attr in ("bogus", "hostname"):
        with pytest.raises(AttrError) as err:
            change_object("exechost", host(), Request(ADD, attr, "x"), "vm")
        assert err.value.message == f'Attribute name ("{attr}") and/or value ("x") not found'


def test_object_names() -> None:
    assert store_kind("hostgroup") == "hgrp"
    assert store_kind("ckpt") == "ckpt"
    # (tests/data/reference/rqs/addr-objname-rqs: 8.1.9's name is resource_quota)
    with pytest.raises(AttrError, match='Modification of object "rqs" not supported'):
        store_kind("rqs")
    assert split_object_id("queue", "all.q@@allhosts") == ("all.q", "@allhosts")
    assert split_object_id("hostgroup", "@allhosts") == ("@allhosts", None)


def test_host_targets_syntax_errors_use_grid_engine_wording() -> None:
    with pytest.raises(AttrError, match="'=' has to sepatate host or group from value"):
        host_targets("[vm]", None, "slots")


# [a-z][a-z0-9_]{0,6} but "none", built from its parts (from_regex draws it several
# times slower)
_LOWER = "abcdefghijklmnopqrstuvwxyz"
NAME = st.tuples(st.sampled_from(_LOWER), st.text(alphabet=_LOWER + "0123456789_", max_size=6)
                 ).map("".join).filter(lambda s: s != "none")


@given(st.lists(NAME, unique=True, max_size=6))
def test_elements_and_join_round_trip(names: list[str]) -> None:
    text = ",".join(f"{n}={i}" for i, n in enumerate(names)) or "NONE"
    assert join("complex_values", elements("complex_values", text)) == text


@given(st.lists(NAME, unique=True, max_size=6), st.lists(NAME, unique=True, max_size=6))
def test_add_then_delete_restores_the_list(old: list[str], new: list[str]) -> None:
    new = [n for n in new if n not in old]
    start = " ".join(old) or "NONE"
    added = change_value(start, Request(ADD, "user_lists", ",".join(new) or "NONE"), "q")
    assert added.applied
    removed = change_value(added.value, Request(DELETE, "user_lists", " ".join(new)), "q")
    assert removed.value == start and removed.notes == []
