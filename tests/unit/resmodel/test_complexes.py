"""Complex definitions: qconf -sc table, validation rules, -l request parsing."""
from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from common.resource import complex_rules as rules
from common.resource import complexes as c
from common.resource.complexes import ComplexAttr, ComplexError, Consumable, Requestable
from common.resource.values import Relop, ValueType

from tests.reference import REFERENCE
DEFAULT_SC = (REFERENCE / "qconf-sc.default.txt").read_text()
CONSUMABLE_SC = (REFERENCE / "qconf-sc-with-consumable.txt").read_text()
LIC = ComplexAttr("lic", "lic", ValueType.INT, Relop.LE, Requestable.YES, Consumable.YES,
                  "0", "0")


def attr(**changes: object) -> ComplexAttr:
    """A valid user attribute with some fields changed."""
    return dataclasses.replace(LIC, **changes)  # type: ignore[arg-type]


def errors_of(a: ComplexAttr) -> list[str]:
    return rules.validate(c.default_complexes() + [a], c.default_complexes())


# --------------------------------------------------------------------------- table

def test_default_list_renders_like_qconf_sc() -> None:
    assert c.render_complex_list(c.default_complexes()) == DEFAULT_SC


def test_list_with_consumable_renders_like_qconf_sc() -> None:
    assert c.render_complex_list(c.default_complexes() + [LIC]) == CONSUMABLE_SC


def test_render_widens_columns_for_long_values() -> None:
    long = attr(name="a_very_long_attribute_name", shortcut="avlan")
    lines = c.render_complex_list(c.default_complexes() + [long]).splitlines()
    assert lines[0].startswith("#name" + " " * 25 + "shortcut")
    assert lines[2].startswith("a_very_long_attribute_name    avlan ")
    assert len(lines[1]) == 1 + 29 + 11 + 10 + 6 + 12 + 11 + 9 + 8


@pytest.mark.parametrize("text", [DEFAULT_SC, CONSUMABLE_SC])
def test_parse_round_trip(text: str) -> None:
    assert c.render_complex_list(c.parse_complex_list(text)) == text


def test_parse_reference_file() -> None:
    assert c.parse_complex_list(DEFAULT_SC) == c.default_complexes()
    assert c.resolve_name(c.parse_complex_list(CONSUMABLE_SC), "lic") == LIC


def test_parse_abbreviations_and_continuations() -> None:
    parsed = c.parse_complex_list("# comment\nlic lic int <= y j 0 0\n"
                                  "gpu g INT \\\n <= FORCED yes 0 5\n\n")
    assert parsed == [attr(consumable=Consumable.JOB),
                      attr(name="gpu", shortcut="g", requestable=Requestable.FORCED,
                           urgency="5")]


@pytest.mark.parametrize("line, message", [
    ("x x FLOAT <= YES NO 0 0", 'Invalid complex attribute type ("FLOAT")'),
    ("x x INT =< YES NO 0 0", 'Invalid complex attribute for relation operator ("=<")'),
    ("x x INT <= maybe NO 0 0", 'Invalid complex attribute for requestable ("maybe")'),
    ("x x INT <= YES perhaps 0 0", 'Invalid complex attribute for consumable ("perhaps")'),
    ("x x INT <= YES NO 0", 'invalid complex attribute definition "x x INT <= YES NO 0"'),
])
def test_parse_errors(line: str, message: str) -> None:
    with pytest.raises(ComplexError) as err:
        c.parse_complex_list(line)
    assert str(err.value) == message


def test_resolve_name() -> None:
    attrs = c.default_complexes()
    assert c.resolve_name(attrs, "arch").name == "arch"  # type: ignore[union-attr]
    assert c.resolve_name(attrs, "a").name == "arch"  # type: ignore[union-attr]
    assert c.resolve_name(attrs, "mf").name == "mem_free"  # type: ignore[union-attr]
    assert c.resolve_name(attrs, "h_vmem").name == "h_vmem"  # type: ignore[union-attr]
    assert c.resolve_name(attrs, "ARCH") is None
    assert c.resolve_name(attrs, "foo") is None


# --------------------------------------------------------------------------- validation

def test_defaults_are_valid() -> None:
    assert rules.validate(c.default_complexes(), c.default_complexes()) == []
    assert errors_of(LIC) == []


def test_unique_names_and_shortcuts() -> None:
    assert rules.validate(c.default_complexes() + [LIC, attr(shortcut="zz")], []) == [
        "complex with name lic or shortcut zz already exists"]
    # a clash with a built-in name also changes the built-in's type: both reported
    assert errors_of(attr(name="arch", shortcut="zz")) == [
        "complex with name arch or shortcut zz already exists",
        'The type of the complex "arch" cannot be changed due to its built in status']
    assert errors_of(attr(shortcut="a")) == [
        "complex with name lic or shortcut a already exists"]
    assert errors_of(attr(name="mf", shortcut="zz")) == [
        "complex with name mf or shortcut zz already exists"]


@pytest.mark.parametrize("vtype", ["STRING", "CSTRING", "RESTRING", "HOST"])
def test_string_types_cannot_be_consumable(vtype: str) -> None:
    a = attr(type=ValueType(vtype), relop=Relop.EQ, default="NONE")
    assert f'Complex "lic" of type "{vtype}" cannot be a consumable' in errors_of(a)


@pytest.mark.parametrize("vtype, relop, ok", [
    ("STRING", "==", True), ("STRING", "!=", True), ("STRING", "<=", False),
    ("HOST", ">", False), ("CSTRING", "EXCL", False),
    ("BOOL", "==", True), ("BOOL", "!=", False), ("BOOL", ">=", False),
    ("INT", "==", True), ("INT", "!=", True), ("INT", "<", True), ("INT", "<=", True),
    ("MEMORY", ">", True), ("TIME", ">=", True), ("DOUBLE", "!=", True),
])
def test_relops_per_type_for_non_consumables(vtype: str, relop: str, ok: bool) -> None:
    default = "NONE" if vtype in ("STRING", "CSTRING", "HOST") else "0"
    a = attr(type=ValueType(vtype), relop=Relop(relop), consumable=Consumable.NO,
             default=default)
    assert (errors_of(a) == []) is ok, errors_of(a)


def test_excl_rules() -> None:
    excl = attr(type=ValueType.BOOL, relop=Relop.EXCL, default="0")
    assert errors_of(excl) == []
    assert errors_of(dataclasses.replace(excl, consumable=Consumable.NO)) == [
        'Exclusive complex "lic" must be a consumable']
    assert errors_of(dataclasses.replace(excl, relop=Relop.EQ)) == [
        'Exclusive complex "lic" must have EXCL as relational operator',
        'Consumable "lic" can have only <= as an relational operator']
    assert errors_of(attr(relop=Relop.EXCL)) == [
        'Complex "lic" must be BOOL to use EXCL as relational operator']


@pytest.mark.parametrize("relop", [">=", ">", "<", "==", "!="])
def test_consumables_only_le(relop: str) -> None:
    assert errors_of(attr(relop=Relop(relop))) == [
        'Consumable "lic" can have only <= as an relational operator']


def test_consumable_defaults() -> None:
    assert errors_of(attr(requestable=Requestable.NO, default="0")) == [
        'Consumable "lic" needs a default value because it is not requestable.']
    assert errors_of(attr(requestable=Requestable.NO, default="2")) == []
    assert errors_of(attr(requestable=Requestable.FORCED, default="2")) == [
        'Consumable "lic" cannot have a (non-zero) default value because it is forced.']
    assert errors_of(attr(requestable=Requestable.FORCED, default="0")) == []
    assert errors_of(attr(default="2")) == []
    assert errors_of(attr(type=ValueType.MEMORY, requestable=Requestable.NO,
                          default="lots")) == [
        'Complex "lic"\'s default value should be of type "memory value"',
        'Consumable "lic" needs a default value because it is not requestable.']


def test_defaults_only_for_consumables() -> None:
    assert errors_of(attr(consumable=Consumable.NO, default="5")) == [
        'Complex "lic" cannot have a (non-zero) default value']
    assert errors_of(attr(type=ValueType.STRING, relop=Relop.EQ, consumable=Consumable.NO,
                          default="x")) == [
        'Complex "lic" cannot have a (non-zero) default value']
    assert errors_of(attr(consumable=Consumable.NO, default="0")) == []
    assert errors_of(attr(consumable=Consumable.NO, default="abc")) == [
        'Complex "lic"\'s default value should be of type "integer value"']


def test_urgency_must_be_a_number() -> None:
    assert errors_of(attr(urgency="high")) == [
        'The following error occoured for complex "lic", while parsing the urgency value: '
        '"double value"']
    assert errors_of(attr(urgency="1.5e3")) == []


def test_builtin_type_cannot_change_except_among_strings() -> None:
    base = c.default_complexes()

    def change(name: str, **kw: object) -> list[str]:
        new = [dataclasses.replace(a, **kw) if a.name == name else a for a in base]
        return rules.validate(new, base)

    assert change("h_vmem", type=ValueType.INT) == [
        'The type of the complex "h_vmem" cannot be changed due to its built in status']
    assert change("arch", type=ValueType.CSTRING) == []
    assert change("arch", type=ValueType.RESTRING) == []
    assert change("hostname", type=ValueType.STRING) == [
        'The type of the complex "hostname" cannot be changed due to its built in status']
    assert change("h_vmem", consumable=Consumable.YES) == []
    assert change("tmpdir", requestable=Requestable.YES) == [
        'Complex attribute "tmpdir" is not requestable']


def test_builtins_cannot_be_deleted() -> None:
    base = c.default_complexes()
    new = [a for a in base if a.name not in ("h_vmem", "arch")]
    assert rules.validate(new, base) == ['The built-in complex "arch" cannot be deleted',
                                     'The built-in complex "h_vmem" cannot be deleted']


def test_referenced_attribute_cannot_be_removed() -> None:
    old = c.default_complexes() + [LIC]
    refs = {"lic": [("host", "vm")]}
    assert rules.validate(c.default_complexes(), old, refs) == [
        'denied: Complex attribute "lic" is still referenced in host "vm".']
    refs = {"lic": [("rqs", "max_lic"), ("host", "vm"), ("queue", "all.q")]}
    assert rules.validate(c.default_complexes(), old, refs) == [
        'denied: Complex attribute "lic" is still referenced in queue "all.q".']
    assert rules.validate(c.default_complexes(), old, {"lic": [("rqs", "max_lic")]}) == [
        'denied: Complex attribute "lic" is still referenced in resource quota set '
        '"max_lic".']
    assert rules.validate(c.default_complexes(), old, {"lic": [("sconf", "")]}) == [
        'denied: Complex attribute "lic" is still referenced in scheduler configuration.']
    assert rules.validate(c.default_complexes(), old, {}) == []
    assert rules.validate(old, old, refs) == []


# --------------------------------------------------------------------------- -l requests

def test_parse_request_list() -> None:
    reqs = c.parse_request_list("a=lx*,h_rt=1:30:00,mf=1G,dwg,s=2", c.default_complexes())
    assert [(r.name, r.value, r.text) for r in reqs] == [
        ("arch", "lx*", "lx*"), ("h_rt", 5400.0, "5400"),
        ("mem_free", 1024.0 ** 3, "1G"), ("display_win_gui", 1.0, "TRUE"),
        ("slots", 2.0, "2")]
    assert c.format_request_list(reqs) == (
        "arch=lx*,display_win_gui=TRUE,h_rt=5400,mem_free=1G,slots=2")
    assert c.format_request_list([]) == "NONE"


def test_split_request_list() -> None:
    assert c.split_request_list("a=1,b=x c,,a=2") == [("a", "2"), ("b", "x"), ("c", None)]
    assert c.split_request_list("arch=lx-*|sol*") == [("arch", "lx-*|sol*")]
    with pytest.raises(ComplexError, match='unknown resource ""'):
        c.split_request_list("=1")


def _reference_message(name: str) -> str:
    first = (REFERENCE / f"{name}.err").read_text().splitlines()[0]
    return first.removeprefix("Unable to run job: ")


def _reference_request(name: str) -> str:
    return (REFERENCE / f"{name}.cmd").read_text().split(" -l ")[1].split()[0]


@pytest.mark.parametrize("name", ["qsub-err-unknown-resource", "qsub-err-bad-memory-spec",
                                  "qsub-err-bad-memory-spec2", "qsub-err-bad-time-spec"])
def test_request_errors_match_reference(name: str) -> None:
    with pytest.raises(ComplexError) as err:
        c.parse_request_list(_reference_request(name), c.default_complexes())
    assert str(err.value) == _reference_message(name)


@pytest.mark.parametrize("request_text, message", [
    ("la=1", 'resource "load_avg" configured as non requestable'),
    ("slots=INFINITY", 'attribute "slots" is not a value that can be set to infinity'),
    ("slots=-1", 'attribute "slots" is consumable but has a negative value'),
    ("num_proc=x", 'attribute "num_proc" is not a integer value'),
    ("dwg=maybe", 'attribute "display_win_gui" is not a boolean value'),
])
def test_request_errors(request_text: str, message: str) -> None:
    with pytest.raises(ComplexError) as err:
        c.parse_request_list(request_text, c.default_complexes())
    assert str(err.value) == message


def test_non_requestable_allowed_when_asked() -> None:
    reqs = c.parse_request_list("la=1", c.default_complexes(), allow_non_requestable=True)
    assert reqs[0].value == 1.0


def test_infinity_allowed_for_non_consumables() -> None:
    assert c.parse_request_list("h_rt=INFINITY", c.default_complexes())[0].text == "INFINITY"


def test_default_value() -> None:
    assert c.resolve_name(c.default_complexes(), "slots").default_value() == 1.0  # type: ignore[union-attr]
    assert attr(default="lots").default_value() == 0.0


names = st.text(alphabet="abcdefgh_", min_size=1, max_size=8)


@given(st.lists(st.tuples(names, names), min_size=1, max_size=6, unique_by=lambda t: t[0]))
def test_render_parse_round_trip(pairs: list[tuple[str, str]]) -> None:
    attrs = [attr(name="u_" + n, shortcut="s_" + s) for n, s in pairs]
    text = c.render_complex_list(attrs)
    assert sorted(c.parse_complex_list(text), key=lambda a: a.name) == sorted(
        attrs, key=lambda a: a.name)
