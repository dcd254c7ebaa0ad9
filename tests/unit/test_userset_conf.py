"""Access lists (access_list(5)) as configuration objects: the file format, the value
checks, the qmaster's list rules and references, the lists of a fresh cell."""
from __future__ import annotations

from typing import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clients.qconf.main import run
from clients.qconf.base import QconfError, Session
from common.conffile import ConfError
from common.objects_conf import KINDS, parse_object, render_object, template
from common.objects_conf.userset import (check_userset_type, entries_of, userset_pairs,
                                         userset_problems, with_entries)
from qmaster.context import RequestError
from qmaster.defaults import bootstrap, ensure_usersets
from qmaster.store import Batch, Store
from qmaster.conf.userset import check_lists_exist, referrers

ARUSERS = "name    arusers\ntype    ACL\nfshare  0\noticket 0\nentries NONE\n"


def error_of(call: Callable[..., object], *args: object, **kwargs: object) -> str:
    with pytest.raises(ConfError) as err:
        call(*args, **kwargs)
    return err.value.message


def test_renders_like_grid_engine() -> None:
    assert render_object("userset", userset_pairs("arusers")) == ARUSERS
    assert parse_object("userset", ARUSERS) == [tuple(p) for p in userset_pairs("arusers")]
    assert KINDS["userset"].names == ("name", "type", "fshare", "oticket", "entries")
    assert template("userset", "x")[0] == ("name", "x")


def test_file_is_checked() -> None:
    text = "name x\ntype dept, acl\nfshare 10\noticket 2\nentries a  b,@g\n"
    assert dict(parse_object("userset", text)) == {
        "name": "x", "type": "ACL DEPT", "fshare": "10", "oticket": "2", "entries": "a,b,@g"}
    assert error_of(parse_object, "userset", ARUSERS.replace("entries NONE\n", "")) == \
        'required attribute "entries" is missing'
    assert error_of(parse_object, "userset", ARUSERS.replace("0\noticket", "x\noticket")) == \
        'error parsing unsigned long value from string "x"'
    assert error_of(parse_object, "userset", ARUSERS.replace("arusers", "1st")) == \
        'denied: "1st" is not a valid object name (cannot start with a digit)'


@pytest.mark.parametrize("value,canonical", [
    ("ACL", "ACL"), ("dept", "DEPT"), ("DEPT ACL", "ACL DEPT"), ("acl,dept", "ACL DEPT"),
])
def test_type_values(value: str, canonical: str) -> None:
    assert check_userset_type("type", value) == canonical


@pytest.mark.parametrize("value,message", [
    ("FOO", 'reading conf file: unknown specifier "FOO" for userset type'),
    ("ACL acl", 'reading config file: specifier "ACL" given twice for "userset type"'),
    (" , ", 'reading conf file: empty specifier for "userset type"'),
])
def test_type_errors(value: str, message: str) -> None:
    assert error_of(check_userset_type, "type", value) == message


# @?[A-Za-z_][A-Za-z0-9_.-]{0,11} but "none", built from its parts (from_regex draws it
# several times slower)
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
_NAME = st.tuples(st.sampled_from(["", "@"]), st.sampled_from(_LETTERS),
                  st.text(alphabet=_LETTERS + "0123456789.-", max_size=11)).map("".join).filter(
    lambda n: n.strip("@").lower() != "none")


@given(st.lists(_NAME, max_size=40))
def test_entries_round_trip(entries: list[str]) -> None:
    pairs = userset_pairs("list1", "DEPT", entries)
    text = render_object("userset", pairs)
    parsed = [list(p) for p in parse_object("userset", text)]
    assert parsed == pairs and entries_of(parsed) == entries
    assert entries_of(with_entries(parsed, entries[:1])) == entries[:1]


def test_list_rules() -> None:
    acl = [["name", "a"], ["type", "ACL"], ["fshare", "3"], ["oticket", "4"],
           ["entries", "NONE"]]
    assert userset_problems(acl, add=True) == []  # Grid Engine checks shares on changes only
    assert userset_problems(acl, add=False) == [
        'not allowed to set "fshare" for ACL lists', 'not allowed to set "oticket" for ACL lists']
    dept = [[key, "ACL DEPT" if key == "type" else value] for key, value in acl]
    assert userset_problems(with_entries(dept, ["x"]), add=False) == []
    default = userset_pairs("defaultdepartment", "ACL", ["bob"])
    assert userset_problems(default, add=True) == [
        'the "defaultdepartment" has to be of type "DEPT"',
        'all users are assigned to the "defaultdepartment" automatically']
    assert userset_problems(userset_pairs("defaultdepartment", "DEPT"), add=False) == []


def _conf() -> dict[str, dict[str, list[list[str]]]]:
    return {
        "userset": {"staff": userset_pairs("staff")},
        "queue": {"a.q": [["qname", "a.q"], ["user_lists", "staff,[h1=staff],[@g=other]"],
                          ["xuser_lists", "NONE"]]},
        "pe": {"smp": [["pe_name", "smp"], ["user_lists", "NONE"], ["xuser_lists", "staff"]]},
        "exechost": {"h1": [["hostname", "h1"], ["user_lists", "staff"],
                            ["xuser_lists", "staff"]],
                     "h2": [["hostname", "h2"], ["user_lists", "staff"]]},
        "conf": {"global": [["user_lists", "none"], ["xuser_lists", "staff"]]},
    }


def test_references_of_a_list() -> None:
    conf = _conf()
    assert referrers(conf, "staff") == [
        'denied: userset "staff" is still referenced in user list of queue "a.q"',
        'denied: userset "staff" is still referenced in user list of queue "a.q"',
        'denied: userset "staff" is still referenced in xuser list of parallel environment '
        '"smp"',
        'denied: userset "staff" is still referenced in user list of exechost "h1"',
    ]
    del conf["exechost"]
    assert referrers(conf, "staff")[-1] == \
        'denied: userset "staff" is still referenced in xuser list of configuration "global"'
    assert referrers(conf, "other") == [
        'denied: userset "other" is still referenced in user list of queue "a.q"']
    assert referrers(conf, "nobody") == []


def test_named_lists_must_exist() -> None:
    conf = _conf()
    check_lists_exist(conf, "pe", conf["pe"]["smp"])
    check_lists_exist(conf, "sconf", [["user_lists", "whatever"]])  # not a referring kind
    with pytest.raises(RequestError) as err:
        check_lists_exist(conf, "queue", conf["queue"]["a.q"])
    assert err.value.message == 'Userset "other" does not exist'


def test_fresh_and_old_cells_get_the_default_lists() -> None:
    store = Store()
    bootstrap(store, Batch(), ["admin"], None)
    assert {name: dict(p)["type"] for name, p in store.conf["userset"].items()} == {
        "arusers": "ACL", "deadlineusers": "ACL", "defaultdepartment": "DEPT"}
    assert render_object("userset", store.conf["userset"]["arusers"]) == ARUSERS
    old = Store()
    batch = Batch()
    ensure_usersets(old, batch)
    assert sorted(old.conf["userset"]) == ["arusers", "deadlineusers", "defaultdepartment"]
    assert ("userset", "arusers") in batch.txn.puts
    del old.conf["userset"]["arusers"]  # deleted by an operator: stays deleted
    ensure_usersets(old, Batch())
    assert "arusers" not in old.conf["userset"]



class _NoLists:
    """A qmaster that has no access lists."""

    def conf_get(self, kind: str) -> dict[str, list[list[str]]]:
        return {}


def _session() -> Session:
    return Session(_NoLists)  # type: ignore[arg-type]


def test_empty_list_of_lists(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(QconfError) as err:
        run(["-sul"], _session())
    assert (err.value.message, err.value.code) == ("no userset list defined", 1)
    assert run(["-su", "a,b"], _session()) == 1
    assert capsys.readouterr().err == ('denied: access list "a" does not exist\n'
                                       'denied: access list "b" does not exist\n')
