"""``qconf`` access list options (-sul -su -au -du -dul -Au -Mu -mu) against a live cell.

Expected texts are Grid Engine 8.1.9's with this machine's user and host put in. The
``test_captured_*`` tests replay, in order and with the same names, commands whose
output was captured from a real 8.1.9 cell (host "vm", manager root, plain user sgeuser);
the others follow qconf's sge_client_access.c and the qmaster's userset messages. One
cell serves the module; every test uses its own list names.
"""
from __future__ import annotations

import contextlib
import io
import socket
from pathlib import Path
from typing import Callable
from unittest import mock

import pytest

from clients.api import Client, ClientError
from common.cell import Cell
from clients.qconf.main import main as qconf_main
from tests.identity import client_as, other_user_name, other_users
from tests.e2e.test_qconf import USER, WHO, Result, qconf, qconf_all, told


@pytest.fixture(scope="module")
def env(module_cell_env: dict[str, str]) -> dict[str, str]:
    return module_cell_env


def userset_file(tmp_path: Path, name: str, type_: str = "ACL", entries: str = "NONE",
                 fshare: str = "0") -> str:
    path = tmp_path / name
    path.write_text(f"name    {name}\ntype    {type_}\nfshare  {fshare}\noticket 0\n"
                    f"entries {entries}\n")
    return str(path)


def shown(name: str, entries: str = "NONE", type_: str = "ACL", fshare: str = "0") -> str:
    return (f"name    {name}\ntype    {type_}\nfshare  {fshare}\noticket 0\n"
            f"entries {entries}\n")


def test_fresh_cell_lists(env: dict[str, str]) -> None:
    results = qconf_all(env, ("-sul",), ("-su", "arusers,defaultdepartment"),
                        ("-su", "nosuch"))
    assert results[0] == ("arusers\ndeadlineusers\ndefaultdepartment\n", "", 0)
    assert results[1] == (shown("arusers") + "\n" + shown("defaultdepartment", type_="DEPT"),
                          "", 0)
    assert results[2] == told('denied: access list "nosuch" does not exist', 1)


def test_add_users_creates_and_extends_a_list(env: dict[str, str]) -> None:
    assert qconf(env, "-au", "alice", "team1") == told('added "alice" to access list "team1"')
    assert qconf(env, "-au", "bob,@staff", "team1,team2") == told(
        'added "bob" to access list "team1"\nadded "@staff" to access list "team1"\n'
        'added "bob" to access list "team2"\nadded "@staff" to access list "team2"')
    assert qconf(env, "-au", "alice,carol", "team1") == told(
        '"alice" is already in access list "team1"\nadded "carol" to access list "team1"', 1)
    assert qconf(env, "-su", "team1") == (shown("team1", "alice,bob,@staff,carol"), "", 0)


def test_concurrent_adds_keep_every_entry(env: dict[str, str]) -> None:
    users = [f"u{i}" for i in range(8)]
    results = qconf_all(env, *[("-au", user, "busy") for user in users])
    assert all(rc == 0 for _, _, rc in results)
    out, _, _ = qconf(env, "-su", "busy")
    entries = out.splitlines()[-1].split()[1].split(",")
    assert sorted(entries) == sorted(users)


def test_delete_users(env: dict[str, str]) -> None:
    assert qconf(env, "-au", "dave,erin", "team3")[2] == 0
    assert qconf(env, "-du", "dave,zed", "team3,nolist") == told(
        'deleted user "dave" from access list "team3"\n'
        'user "zed" is not in access list "team3"\n'
        'access list "nolist" doesn\'t exist', 1)
    assert qconf(env, "-du", "erin", "team3") == told(
        'deleted user "erin" from access list "team3"')
    assert qconf(env, "-su", "team3") == (shown("team3"), "", 0)


def test_delete_list_refused_while_a_queue_names_it(env: dict[str, str]) -> None:
    assert qconf(env, "-au", "frank", "qlist")[2] == 0
    assert qconf(env, "-mattr", "queue", "xuser_lists", "qlist", "all.q")[2] == 0
    assert qconf(env, "-dul", "qlist") == told(
        'denied: userset "qlist" is still referenced in xuser list of queue "all.q"', 1)
    assert qconf(env, "-dattr", "queue", "xuser_lists", "qlist", "all.q")[2] == 0
    assert qconf(env, "-dul", "qlist,qlist") == told(
        f'{WHO} removed "qlist" from userset list\n'
        'denied: userset "qlist" does not exist', 1)


def test_unknown_list_in_a_queue_is_refused(env: dict[str, str], tmp_path: Path) -> None:
    # 8.1.9 (captured): the refusal alone, without the "is empty" note
    assert qconf(env, "-mattr", "queue", "user_lists", "nosuchlist", "all.q") == told(
        'Userset "nosuchlist" does not exist', 1)
    assert qconf(env, "-aattr", "pe", "user_lists", "nosuchlist", "smp") == told(
        'Userset "nosuchlist" does not exist', 1)
    conf = tmp_path / "global"
    conf.write_text("xuser_lists nosuchlist\n")
    assert qconf(env, "-Mconf", str(conf)) == told('Userset "nosuchlist" does not exist', 1)
    conf.write_text("xuser_lists arusers\n")
    assert qconf(env, "-Mconf", str(conf))[2] == 0
    assert qconf(env, "-dul", "arusers") == told(
        'denied: userset "arusers" is still referenced in xuser list of configuration '
        '"global"', 1)
    conf.write_text("xuser_lists none\n")
    assert qconf(env, "-Mconf", str(conf))[2] == 0


def test_add_and_modify_from_files(env: dict[str, str], tmp_path: Path) -> None:
    path = userset_file(tmp_path, "filed", "DEPT", "gina,@ops")
    assert qconf(env, "-Au", path) == told(f'{WHO} added "filed" to userset list')
    assert qconf(env, "-Au", path) == told('userset "filed" already exists', 1)
    assert qconf(env, "-su", "filed") == (shown("filed", "gina,@ops", "DEPT"), "", 0)
    changed = userset_file(tmp_path, "filed", "ACL DEPT", "gina", fshare="5")
    assert qconf(env, "-Mu", changed) == told(f'{WHO} modified "filed" in userset list')
    assert qconf(env, "-su", "filed") == (shown("filed", "gina", "ACL DEPT", "5"), "", 0)
    acl = userset_file(tmp_path, "filed", "ACL", "gina", fshare="5")
    assert qconf(env, "-Mu", acl) == told('not allowed to set "fshare" for ACL lists', 1)
    assert qconf(env, "-Mu", userset_file(tmp_path, "unfiled")) == told(
        "unfiled is not known as a project", 1)
    bad = tmp_path / "bad"
    bad.write_text("name x\ntype ACL\nfshare 0\noticket 0\nentries NONE\nfoo 1\n")
    assert qconf(env, "-Au", str(bad)) == told(
        f'error: unknown attribute name "foo"\nerror: error reading file: "{bad}"\n'
        "error reading in file", 1)
    _, said, rc = qconf(env, "-Au", userset_file(tmp_path, "wrongtype", "FOO"))
    assert said.startswith('error: reading conf file: unknown specifier "FOO" for userset '
                           "type\n") and said.endswith("error reading in file\n") and rc == 1


def test_modify_in_the_editor(env: dict[str, str], tmp_path: Path) -> None:
    editor = tmp_path / "editor.sh"
    editor.write_text("#!/bin/sh\nsed -i 's/^entries .*/entries hank,ivy/' \"$1\"\n")
    editor.chmod(0o755)
    with_editor = {**env, "EDITOR": str(editor)}
    assert qconf(env, "-au", "x", "edited")[2] == 0
    assert qconf(with_editor, "-mu", "edited,brandnew") == told(
        f'{WHO} modified "edited" in userset list\n{WHO} added "brandnew" to userset list')
    results = qconf_all(env, ("-su", "edited"), ("-su", "brandnew"))
    assert results[0] == (shown("edited", "hank,ivy"), "", 0)
    assert results[1] == (shown("brandnew", "hank,ivy", "ACL DEPT"), "", 0)
    assert qconf(with_editor, "-mu", "edited") == ("file unchanged\n", "", 0)
    assert qconf({**env, "EDITOR": "sed -i s/^type.*/type/"}, "-mu", "edited") == told(
        'error: reading conf file: empty specifier for "userset type"\n'
        "error reading userset from file")


def test_default_department_rules(env: dict[str, str]) -> None:
    assert qconf(env, "-au", "jack", "defaultdepartment") == told(
        'all users are assigned to the "defaultdepartment" automatically', 1)


def _admin_name() -> str:
    return other_users(2)[1]


def _as_admin(env: dict[str, str]) -> Client:
    return client_as(Cell(Path(env["PYGE_ROOT"])), _admin_name())


def test_non_operator_refused_operator_allowed(env: dict[str, str], tmp_path: Path) -> None:
    """The caller stops being a manager: refused; as an operator it may change lists."""
    assert qconf(env, "-am", _admin_name())[2] == 0
    assert qconf(env, "-au", "kim", "guarded")[2] == 0
    admin = _as_admin(env)
    for name in {USER, "root"}:
        admin.conf_del("manager", name)
    try:
        refused = _caller_changes(env, tmp_path)
        admin.conf_put("operator", USER, None, "add")
        allowed = qconf(env, "-au", "lee", "guarded")
    finally:
        for name in {USER, "root"}:
            admin.conf_put("manager", name, None, "add")
        _quietly(admin.conf_del, "operator", USER)
        admin.close()
    operator = told(f'denied: "{USER}" must be operator for this operation', 1)
    assert refused[:3] == [operator] * 3
    assert refused[3] == told(f'denied: "{USER}" must be manager for this operation', 1)
    assert refused[4] == told('"kim" is already in access list "guarded"', 1)
    assert allowed == told('added "lee" to access list "guarded"')


def _caller_changes(env: dict[str, str], tmp_path: Path) -> list[Result]:
    return qconf_all(env, ("-au", "x", "guarded"), ("-dul", "guarded"),
                     ("-Au", userset_file(tmp_path, "newlist")), ("-mu", "guarded"),
                     ("-au", "kim", "guarded"))


def _quietly(call: Callable[..., object], *args: str) -> None:
    try:
        call(*args)
    except ClientError:
        pass


# ---- replays of captured Grid Engine 8.1.9 sessions -------------------------------------
OTHER = other_user_name()  # the captures' plain user was sgeuser; made an operator in one
OTHER_WHO = f"{OTHER}@{socket.gethostname()}"


def qconf_as_other(env: dict[str, str], *args: str) -> Result:
    """qconf run by OTHER, who is no manager: its main, in this process, with a
    connection made as OTHER (tests.identity; skips unless root)."""
    cell = Cell(Path(env["PYGE_ROOT"]), env.get("PYGE_CELL", "default"))
    client = client_as(cell, OTHER)
    out, errors = io.StringIO(), io.StringIO()
    try:
        with mock.patch("clients.qconf.main.connect_or_exit", lambda prog: client), \
                contextlib.redirect_stdout(out), contextlib.redirect_stderr(errors):
            rc = qconf_main(list(args))
    finally:
        client.close()
    return out.getvalue(), errors.getvalue(), rc


def captured_file(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_captured_manager_session(env: dict[str, str]) -> None:
    """acl-sul ... acl-mattr-allq-unknown: entries, then a list a queue names."""
    _captured_entries(env)
    _captured_queue_reference(env)


def _captured_entries(env: dict[str, str]) -> None:
    assert qconf(env, "-su", "arusers") == (
        "name    arusers\ntype    ACL\nfshare  0\noticket 0\nentries NONE\n", "", 0)
    assert qconf(env, "-au", "sgeuser", "newlist") == told(
        'added "sgeuser" to access list "newlist"')
    assert qconf(env, "-au", "sgeuser", "newlist") == told(
        '"sgeuser" is already in access list "newlist"', 1)
    # one user refused, the other added all the same
    assert qconf(env, "-au", "root,sgeuser", "newlist") == told(
        'added "root" to access list "newlist"\n'
        '"sgeuser" is already in access list "newlist"', 1)
    assert qconf(env, "-su", "newlist") == (
        "name    newlist\ntype    ACL\nfshare  0\noticket 0\nentries sgeuser,root\n", "", 0)
    assert qconf(env, "-du", "sgeuser", "newlist") == told(
        'deleted user "sgeuser" from access list "newlist"')
    assert qconf(env, "-du", "sgeuser", "newlist") == told(
        'user "sgeuser" is not in access list "newlist"', 1)
    assert qconf(env, "-su", "newlist") == (
        "name    newlist\ntype    ACL\nfshare  0\noticket 0\nentries root\n", "", 0)
    names = qconf(env, "-sul")[0].splitlines()
    assert names == sorted(names) and {"arusers", "deadlineusers", "defaultdepartment",
                                       "newlist"} <= set(names)


def _captured_queue_reference(env: dict[str, str]) -> None:
    assert qconf(env, "-mattr", "queue", "user_lists", "newlist", "all.q") == (
        '"user_lists" of "all.q" is empty - Adding new element(s).\n'
        f'{WHO} modified "all.q" in cluster queue list\n', "", 0)
    assert qconf(env, "-dul", "newlist") == told(
        'denied: userset "newlist" is still referenced in user list of queue "all.q"', 1)
    assert qconf(env, "-mattr", "queue", "user_lists", "NONE", "all.q") == told(
        '"NONE" is not a valid list attribute value for -mattr.  Try using -rattr '
        "instead.", 1)
    assert qconf(env, "-rattr", "queue", "user_lists", "NONE", "all.q") == (
        f'{WHO} modified "all.q" in cluster queue list\n', "", 0)
    assert qconf(env, "-dul", "newlist") == told(
        f'{WHO} removed "newlist" from userset list')
    assert qconf(env, "-dul", "newlist") == told(
        'denied: userset "newlist" does not exist', 1)
    assert qconf(env, "-mattr", "queue", "user_lists", "nosuchlist", "all.q") == told(
        'Userset "nosuchlist" does not exist', 1)


ACL_FILELIST = "name    filelist\ntype    ACL\nfshare  0\noticket 0\nentries alice,bob\n"


def test_captured_file_session(env: dict[str, str], tmp_path: Path) -> None:
    """acl-Au ... acl-dul-filelist; -Mu's type ACL,DEPT is shown blank separated."""
    added = captured_file(tmp_path, "acl-filelist", ACL_FILELIST)
    assert qconf(env, "-Au", added) == told(f'{WHO} added "filelist" to userset list')
    assert qconf(env, "-su", "filelist") == (ACL_FILELIST, "", 0)
    assert qconf(env, "-Au", added) == told('userset "filelist" already exists', 1)
    modified = captured_file(tmp_path, "acl-filelist-mod",
                             "name    filelist\ntype    ACL,DEPT\nfshare  10\n"
                             "oticket 0\nentries carol,@staff\n")
    assert qconf(env, "-Mu", modified) == told(f'{WHO} modified "filelist" in userset list')
    assert qconf(env, "-su", "filelist") == (
        "name    filelist\ntype    ACL DEPT\nfshare  10\noticket 0\n"
        "entries carol,@staff\n", "", 0)
    missing = captured_file(tmp_path, "acl-nosuch", "name    nosuchfilelist\ntype    ACL\n"
                            "fshare  0\noticket 0\nentries alice\n")
    # sic: Grid Engine 8.1.9 calls the access list a project here
    assert qconf(env, "-Mu", missing) == told("nosuchfilelist is not known as a project", 1)
    assert qconf(env, "-dul", "filelist") == told(
        f'{WHO} removed "filelist" from userset list')


def test_captured_non_manager_refused_once_per_user(env: dict[str, str]) -> None:
    """acl-au-nonmanager: the refusal once for each user named, the list unchanged."""
    denied = f'denied: "{OTHER}" must be operator for this operation\n'
    assert qconf_as_other(env, "-au", "x,y", "deadlineusers") == ("", denied * 2, 1)
    assert qconf(env, "-su", "deadlineusers")[0].endswith("entries NONE\n")


def test_captured_operator_session(env: dict[str, str], tmp_path: Path) -> None:
    """acl-ao-sgeuser ... acl-so-after: an operator may -au (creating a list), -du, -dul
    and -Au, but not -mattr a queue."""
    assert qconf(env, "-ao", OTHER) == told(f'{WHO} added "{OTHER}" to operator list')
    try:
        assert qconf(env, "-so") == (f"{OTHER}\n", "", 0)
        _captured_operator_changes(env, tmp_path)
    finally:
        removed = qconf(env, "-do", OTHER)
    assert removed == told(f'{WHO} removed "{OTHER}" from operator list')
    assert qconf(env, "-so") == told("no operator defined", 1)


def _captured_operator_changes(env: dict[str, str], tmp_path: Path) -> None:
    assert qconf_as_other(env, "-au", "x", "deadlineusers") == told(
        'added "x" to access list "deadlineusers"')
    assert qconf_as_other(env, "-au", "x", "oplist") == told(
        'added "x" to access list "oplist"')
    assert qconf_as_other(env, "-su", "deadlineusers") == (
        "name    deadlineusers\ntype    ACL\nfshare  0\noticket 0\nentries x\n", "", 0)
    assert qconf_as_other(env, "-du", "x", "deadlineusers") == told(
        'deleted user "x" from access list "deadlineusers"')
    assert qconf_as_other(env, "-dul", "oplist") == told(
        f'{OTHER_WHO} removed "oplist" from userset list')
    added = captured_file(tmp_path, "acl-filelist", ACL_FILELIST)
    assert qconf_as_other(env, "-Au", added) == told(
        f'{OTHER_WHO} added "filelist" to userset list')
    assert qconf_as_other(env, "-dul", "filelist") == told(
        f'{OTHER_WHO} removed "filelist" from userset list')
    assert qconf_as_other(env, "-mattr", "queue", "user_lists", "deadlineusers",
                          "all.q") == told(f'denied: "{OTHER}" must be manager for this '
                                           "operation", 1)
