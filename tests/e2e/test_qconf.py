"""The ``qconf`` console script against a live cell, compared with Grid Engine 8.1.9.

Expected texts are those the real qconf printed (``root@vm added "test.q" to cluster
queue list`` ...), with this machine's user and host put in. Confirmations go to stderr
with exit status 0, listings to stdout. One cell serves the whole module; every test uses
its own object names. Independent commands run concurrently (each is an interpreter start).
"""
from __future__ import annotations

import os
import pwd
import socket
import subprocess
from pathlib import Path

import pytest

from common.cell import Cell
from common.objects_conf import render_object, template
from tests.identity import client_as, other_users
from tests.commands import command

REPO = Path(__file__).resolve().parents[2]
USER = pwd.getpwuid(os.getuid()).pw_name
WHO = f"{USER}@{socket.gethostname()}"
HOST = socket.gethostname().split(".")[0]
NO_HOST = "nosuchhost.invalid"  # RFC 6761: never resolves
Result = tuple[str, str, int]


@pytest.fixture(scope="module")
def env(module_cell_env: dict[str, str]) -> dict[str, str]:
    return module_cell_env


def qconf(env: dict[str, str], *args: str) -> Result:
    done = subprocess.run(command("qconf") + list(args), env=env, capture_output=True,
                          text=True, timeout=30)
    return done.stdout, done.stderr, done.returncode


def qconf_all(env: dict[str, str], *calls: tuple[str, ...]) -> list[Result]:
    """Independent qconf calls at once."""
    procs = [subprocess.Popen(command("qconf") + list(c), env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for c in calls]
    outs = [p.communicate(timeout=30) for p in procs]
    return [(out, err, p.returncode) for p, (out, err) in zip(procs, outs)]


def told(text: str, rc: int = 0) -> Result:
    """What qconf says on stderr with nothing on stdout."""
    return "", text + "\n", rc


def object_file(tmp_path: Path, kind: str, name: str, **changes: str) -> str:
    pairs = [(k, changes.get(k, v)) for k, v in template(kind, name)]
    path = tmp_path / name.strip("@")
    path.write_text(render_object(kind, pairs) + "\n")
    return str(path)


def test_cluster_queue_add_modify_delete(env: dict[str, str], tmp_path: Path) -> None:
    path = object_file(tmp_path, "queue", "test.q", hostlist="@allhosts")
    assert qconf(env, "-Aq", path) == told(f'{WHO} added "test.q" to cluster queue list')
    existing = object_file(tmp_path, "queue", "all.q")
    changed = object_file(tmp_path, "queue", "test.q", slots="2")
    results = qconf_all(env, ("-Aq", existing), ("-Mq", changed), ("-sql",))
    assert results[0] == told('cluster queue "all.q" already exists', 1)
    assert results[1] == told(f'{WHO} modified "test.q" in cluster queue list')
    assert results[2] == ("all.q\ntest.q\n", "", 0)
    out, err, rc = qconf(env, "-sq", "test.q")
    assert "\nslots                 2\n" in out and (err, rc) == ("", 0)
    assert qconf(env, "-dq", "test.q") == told(f'{WHO} removed "test.q" from cluster queue list')


def test_cluster_queue_refusals(env: dict[str, str], tmp_path: Path) -> None:
    missing = object_file(tmp_path, "queue", "nosuch.q")
    results = qconf_all(env, ("-Mq", missing), ("-dq", "nosuch.q"), ("-sq", "nosuch.q"),
                        ("-sq",))
    assert results[:3] == [told('denied: cluster queue "nosuch.q" does not exist', 1)] * 2 + [
        told('No cluster queue or queue instance matches the phrase "nosuch.q"', 1)]
    assert results[3][0].startswith("qname                 template\nhostlist              NONE\n")


def test_queue_file_errors(env: dict[str, str], tmp_path: Path) -> None:
    good = render_object("queue", template("queue", "bad.q"))
    bad_attr, bad_slots, no_seq = (tmp_path / n for n in ("badattr.q", "badslots.q", "missing.q"))
    bad_attr.write_text(good + "\nbogus_attr 1\n")
    bad_slots.write_text(good.replace("slots                 1", "slots                 abc"))
    no_seq.write_text("\n".join(ln for ln in good.splitlines() if not ln.startswith("seq_no")))
    nofile = tmp_path / "does-not-exist"
    results = qconf_all(env, ("-Aq", str(bad_attr)), ("-Aq", str(bad_slots)),
                        ("-Aq", str(no_seq)), ("-Aq", str(nofile)))
    assert results == [
        told(f'error: unknown attribute name "bogus_attr"\n'
             f'error: error reading file: "{bad_attr}"', 1),
        told('error: error parsing unsigned long value from string "abc"\n'
             'error: Error during parsing of attribute value "abc"\n'
             f'error: error reading file: "{bad_slots}"', 1),
        told('error: required attribute "seq_no" is missing', 1),
        told(f'error: error opening file "{nofile}" for reading: No such file or directory', 1)]


def test_exec_hosts(env: dict[str, str], tmp_path: Path) -> None:
    path = object_file(tmp_path, "exechost", "fakehost1")
    assert qconf(env, "-Ae", path) == told(f'{WHO} added "fakehost1" to exechost list')
    results = qconf_all(env, ("-Ae", path), ("-se", "fakehost1"), ("-se", NO_HOST),
                        ("-se", "localhost"), ("-de", "localhost"), ("-de", NO_HOST))
    assert results[0] == told('exechost "fakehost1" already exists', 1)
    out, err, rc = results[1]
    assert out.startswith("hostname              fakehost1\nload_scaling          NONE\n"
                          "complex_values        NONE\nload_values           NONE\n"
                          "processors            0\nuser_lists            NONE\n")
    assert (err, rc) == ("", 0)
    assert results[2:] == [told(f'can\'t resolve hostname "{NO_HOST}"', 1),
                           told("localhost is not an execution host", 1),
                           told('denied: execution host "localhost" does not exist', 1),
                           told(f'can\'t resolve hostname "{NO_HOST}"', 1)]
    assert qconf(env, "-de", "fakehost1") == told(
        f'{WHO} removed "fakehost1" from execution host list')


def test_exec_host_in_the_editor(env: dict[str, str], tmp_path: Path) -> None:
    editor = tmp_path / "editor.sh"
    editor.write_text("#!/bin/sh\nsed -i 's/^hostname .*/hostname fakehost3/' \"$1\"\n")
    editor.chmod(0o755)
    with_editor = {**env, "EDITOR": str(editor)}
    assert qconf(with_editor, "-ae") == told("added host fakehost3 to exec host list")
    assert qconf(with_editor, "-ae") == told('exechost "fakehost3" already exists', 1)


def test_host_group_members_become_exec_hosts(env: dict[str, str], tmp_path: Path) -> None:
    path = object_file(tmp_path, "hostgroup", "@t2", hostlist="fakehost2")
    assert qconf(env, "-Ahgrp", path) == told(f'{WHO} added "@t2" to host group list')
    results = qconf_all(env, ("-Ahgrp", path), ("-sel",), ("-shgrp", "@t2"),
                        ("-shgrp", "@nosuch"), ("-ahgrp", "noat"), ("-sh",))
    assert results[0] == told('host group "@t2" already exists', 1)
    assert "fakehost2\n" in results[1][0]
    assert results[2] == ("group_name @t2\nhostlist fakehost2\n", "", 0)
    assert results[3] == told('Host group "@nosuch" does not exist', 1)
    assert results[4] == told('host group name "noat" is not valid', 1)
    assert "fakehost2" not in results[5][0]  # configured only: no admin host
    assert qconf(env, "-dhgrp", "@t2") == told(f'{WHO} removed "@t2" from host group entry list')
    results = qconf_all(env, ("-dhgrp", "@t2"), ("-sel",))
    assert results[0] == told('denied: host group "@t2" does not exist', 1)
    assert "fakehost2\n" in results[1][0]


def test_manager_and_operator_lists(env: dict[str, str]) -> None:
    assert qconf(env, "-am", "u1,u2") == told(f'{WHO} added "u1" to manager list\n'
                                              f'{WHO} added "u2" to manager list')
    results = qconf_all(env, ("-am", "u1"), ("-so",), ("-sm",))
    assert results[0] == told('manager "u1" already exists', 1)
    assert results[1] == told("no operator defined", 1)
    assert results[2][0].splitlines() == sorted({"root", USER, "u1", "u2"})
    assert qconf(env, "-dm", "u1,u2") == told(f'{WHO} removed "u1" from manager list\n'
                                              f'{WHO} removed "u2" from manager list')
    assert qconf(env, "-dm", "u1") == told('denied: manager "u1" does not exist', 1)
    assert qconf(env, "-ao", "op1") == told(f'{WHO} added "op1" to operator list')
    assert qconf(env, "-so") == ("op1\n", "", 0)
    assert qconf(env, "-do", "op1") == told(f'{WHO} removed "op1" from operator list')


def test_parallel_environments(env: dict[str, str], tmp_path: Path) -> None:
    path = object_file(tmp_path, "pe", "testpe", slots="999")
    assert qconf(env, "-Ap", path) == told(f'{WHO} added "testpe" to parallel environment list')
    bad = tmp_path / "pe.badattr"
    bad.write_text(Path(path).read_text() + "bogus_attr 1\n")
    results = qconf_all(env, ("-Ap", path), ("-dp", "smp"), ("-sp", "nosuchpe"),
                        ("-Ap", str(bad)))
    assert results == [
        told('parallel environment "testpe" already exists', 1),
        told('denied: Parallel environment "smp" is still referenced in queue "all.q".', 1),
        told("nosuchpe is not a parallel environment", 1),
        told(f'error: unknown attribute name "bogus_attr"\nerror: error reading file: "{bad}"\n'
             "error reading in file", 1)]
    assert qconf(env, "-dp", "testpe") == told(
        f'{WHO} removed "testpe" from parallel environment list')
    assert qconf(env, "-dp", "testpe") == told(
        'denied: parallel environment "testpe" does not exist', 1)


def test_scheduler_and_global_configuration(env: dict[str, str], tmp_path: Path) -> None:
    sconf, _, _ = qconf(env, "-ssconf")
    fast = tmp_path / "sconf.fast"
    fast.write_text(sconf.replace("flush_submit_sec                  0",
                                  "flush_submit_sec 1"))
    conf, _, _ = qconf(env, "-sconf")
    glob = tmp_path / "global"
    glob.write_text(conf)
    results = qconf_all(env, ("-Msconf", str(fast)), ("-Mconf", str(glob)))
    assert results == [told("changed scheduler configuration"),
                       told(f'{WHO} modified "global" in configuration list')]
    assert "flush_submit_sec                  1\n" in qconf(env, "-ssconf")[0]
    editor = tmp_path / "editor.sh"
    editor.write_text("#!/bin/sh\nsed -i 's/^flush_finish_sec .*/flush_finish_sec 2/' \"$1\"\n")
    editor.chmod(0o755)
    assert qconf({**env, "EDITOR": str(editor)}, "-msconf") == told(
        "changed scheduler configuration")
    assert "flush_finish_sec                  2\n" in qconf(env, "-ssconf")[0]


def test_help_and_bad_options(env: dict[str, str]) -> None:
    helped, bogus = qconf_all(env, ("-help",), ("-bogus",))
    lines = helped[0].splitlines()
    assert lines[:3] == ["SGE 8.1.9", "usage: qconf [options]",
                         "   [-aattr obj_nm attr_nm val obj_id_list]  add to a list "
                         "attribute of an object"]
    # 8.1.9's 157 lines, then a blank one and our -fmt line (-fmt json: not in 8.1.9)
    assert len(lines) == 159 and lines[157] == "" and "-fmt" in lines[158]
    assert helped[1:] == ("", 0)
    assert bogus == told('error: invalid option argument "-bogus"\nUsage: qconf -help', 1)


def test_changes_need_a_manager(env: dict[str, str], tmp_path: Path) -> None:
    """The caller stops being a manager; another manager (through the API) restores it."""
    [admin_name] = other_users(1)
    assert qconf(env, "-am", admin_name)[2] == 0
    admin = client_as(Cell(Path(env["PYGE_ROOT"])), admin_name)
    for name in {USER, "root"}:
        admin.conf_del("manager", name)
    try:
        path = object_file(tmp_path, "queue", "user.q")
        results = qconf_all(env, ("-Aq", path), ("-am", "x"), ("-dq", "all.q"), ("-sm",))
    finally:
        for name in {USER, "root"}:
            admin.conf_put("manager", name, None, "add")
        admin.close()
    denied = told(f'denied: "{USER}" must be manager for this operation', 1)
    assert results[:3] == [denied] * 3
    assert results[3] == (f"{admin_name}\n", "", 0)
