"""``qconf -sc``/``-Mc``/``-mc``, the single-attribute options and ``qsub -l`` against a live cell, compared with Grid
Engine 8.1.9: the listing is the reference ``qconf -sc`` text byte for byte, changes are
answered on stderr one line per attribute (``root@vm added "lic" to complex entry
list``), refusals on stderr with exit status 1.
"""
from __future__ import annotations

import os
import pwd
import socket
import stat
import subprocess
from pathlib import Path

from common.cell import Cell
from common.objects_conf import render_object, template
from tests.identity import client_as, other_users
from deploy.cell import LocalCell

from tests.reference import REFERENCE
from tests.commands import command
DEFAULT_SC = (REFERENCE / "qconf-sc.default.txt").read_text()
WITH_LIC = (REFERENCE / "qconf-sc-with-consumable.txt").read_text()
USER = pwd.getpwuid(os.getuid()).pw_name
WHO = f"{USER}@{socket.gethostname()}"
Result = tuple[str, str, int]


def run(name: str, *args: str, editor: str | None = None) -> Result:
    """One of our console scripts (Grid Engine's own may be on PATH too)."""
    argv = command(name)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    if editor is not None:
        env["EDITOR"] = editor
    done = subprocess.run(argv + list(args), env=env, capture_output=True, text=True,
                          timeout=30)
    return done.stdout, done.stderr, done.returncode


def told(text: str, rc: int = 0) -> Result:
    return "", text + "\n", rc


def write(path: Path, text: str) -> str:
    path.write_text(text)
    return str(path)


def test_complex_list_in_a_live_cell(live_cell: LocalCell, tmp_path: Path) -> None:
    """One cell (starting one is most of the time), the steps in an order that leaves
    each with the list it expects."""
    refusals(tmp_path)
    in_the_editor(tmp_path)
    from_a_file_then_requests(tmp_path)
    still_referenced_by_a_host(tmp_path)
    only_managers(tmp_path)
    single_entries(tmp_path)
    global_host()


# qconf -se global of Grid Engine 8.1.9 after `qconf -mattr exechost complex_values lic=1
# global` (captured from the real one)
GLOBAL_HOST = """hostname              global
load_scaling          NONE
complex_values        lic=1
load_values           NONE
processors            0
user_lists            NONE
xuser_lists           NONE
projects              NONE
xprojects             NONE
usage_scaling         NONE
report_variables      NONE
"""


def global_host() -> None:
    """Every cell has the pseudo host "global": shown, changed, never listed or deleted."""
    assert run("qconf", "-mattr", "exechost", "complex_values", "lic=1", "global")[2] == 0
    assert run("qconf", "-se", "global") == (GLOBAL_HOST, "", 0)
    assert "global" not in run("qconf", "-sel")[0].split()
    assert run("qconf", "-de", "global") == told(
        'denied: pseudo host "global" may not be deleted', 1)
    assert run("qconf", "-se", "global")[2] == 0
    assert run("qconf", "-rattr", "exechost", "complex_values", "NONE", "global")[2] == 0


ARCH_ENTRY = """name        arch
shortcut    a
type        STRING
relop       ==
requestable YES
consumable  NO
default     NONE
urgency     0
"""
LIC_ENTRY = ARCH_ENTRY.replace("arch", "lic2").replace(" a\n", " l2\n").replace(
    "STRING", "INT").replace("==", "<=").replace("NO\n", "YES\n").replace("NONE", "0")


def single_entries(tmp_path: Path) -> None:
    """-scel/-sce/-Ace/-mce/-Mce/-dce/-ace: one attribute at a time."""
    names = run("qconf", "-scel")[0].split()
    assert names[:3] == ["arch", "calendar", "cpu"] and "lic" in names
    assert run("qconf", "-sce", "arch") == (ARCH_ENTRY, "", 0)
    assert run("qconf", "-sce", "nosuch") == told('complex entry "nosuch" does not exist', 1)
    entry = write(tmp_path / "lic2", LIC_ENTRY)
    assert run("qconf", "-Ace", entry) == told(f'{WHO} added "lic2" to complex entry list')
    assert run("qconf", "-Ace", entry) == told('complex entry "lic2" already exists', 1)
    assert run("qconf", "-sce", "lic2") == (LIC_ENTRY, "", 0)
    assert "lic2                l2" in run("qconf", "-sc")[0]
    editor = tmp_path / "urgent"
    editor.write_text("#!/bin/sh\nsed -i 's/^urgency .*/urgency     100/' \"$1\"\n")
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    assert run("qconf", "-mce", "lic2", editor=str(editor)) == told(
        f'{WHO} modified "lic2" in complex entry list')
    assert run("qconf", "-sce", "lic2")[0].endswith("urgency     100\n")
    assert run("qconf", "-Mce", entry) == told(f'{WHO} modified "lic2" in complex entry list')
    broken = write(tmp_path / "broken", LIC_ENTRY.replace("relop       <=\n", ""))
    assert run("qconf", "-Mce", broken) == told(
        f'error: required attribute "relop" is missing\nerror: error reading file: '
        f'"{broken}"', 1)
    assert run("qconf", "-dce", "lic2") == told(f'{WHO} removed "lic2" from complex list')
    assert run("qconf", "-ace", "lic3", editor="true") == told(
        f'{WHO} added "lic3" to complex entry list')
    assert run("qconf", "-sce", "lic3")[0].startswith("name        lic3\nshortcut    lic3\n")
    assert run("qconf", "-dc", "lic3") == told(f'{WHO} removed "lic3" from complex list')


def only_managers(tmp_path: Path) -> None:
    """-mc refuses a non-manager before opening the editor; -Mc is refused by the qmaster."""
    [admin_name] = other_users(1)
    assert run("qconf", "-am", admin_name)[2] == 0
    admin = client_as(Cell(Path(os.environ["PYGE_ROOT"])), admin_name)
    marker = tmp_path / "editor-opened"
    for name in {USER, "root"}:
        admin.conf_del("manager", name)
    try:
        results = [run("qconf", "-mc", editor=f"touch {marker}"),
                   run("qconf", "-Mc", write(tmp_path / "default", DEFAULT_SC))]
    finally:
        for name in {USER, "root"}:
            admin.conf_put("manager", name, None, "add")
        admin.close()
    assert results == [told(f'denied: "{USER}" must be manager for this operation', 1)] * 2
    assert not marker.exists()


def still_referenced_by_a_host(tmp_path: Path) -> None:
    """The sge-oracle gotcha 9: a consumable an exec host uses cannot go."""
    host = run("qconf", "-sel")[0].split()[0]
    pairs = [(k, "lic=2" if k == "complex_values" else v) for k, v in template("exechost", host)]
    host_file = write(tmp_path / host, render_object("exechost", pairs) + "\n")
    assert run("qconf", "-Me", host_file) == told(f'{WHO} modified "{host}" in exechost list')
    assert run("qconf", "-Mc", write(tmp_path / "default", DEFAULT_SC)) == told(
        f'denied: Complex attribute "lic" is still referenced in host "{host}".', 1)
    assert run("qconf", "-sc") == (WITH_LIC, "", 0)


def from_a_file_then_requests(tmp_path: Path) -> None:
    assert run("qconf", "-Mc", write(tmp_path / "default", DEFAULT_SC)) == told(
        f'{WHO} removed "lic" from complex list')
    assert run("qconf", "-sc") == (DEFAULT_SC, "", 0)
    with_lic = write(tmp_path / "with_lic", WITH_LIC)
    assert run("qconf", "-Mc", with_lic) == told(f'{WHO} added "lic" to complex entry list')
    assert run("qconf", "-sc") == (WITH_LIC, "", 0)
    assert run("qconf", "-Mc", with_lic) == told(
        "Complex attribute configuration has not been changed")
    out, err, rc = run("qsub", "-b", "y", "-l", "lic=1", "/bin/true")
    assert rc == 0 and out.startswith("Your job ") and err == ""
    out, err, rc = run("qsub", "-b", "y", "-l", "nosuch=1", "/bin/true")
    assert rc != 0 and 'unknown resource "nosuch"' in err and out == ""


def refusals(tmp_path: Path) -> None:
    assert run("qconf", "-sc") == (DEFAULT_SC, "", 0)
    bad_type = write(tmp_path / "bad_type", DEFAULT_SC + "lic lic INTEGER <= YES YES 0 0\n")
    assert run("qconf", "-Mc", bad_type) == told(
        'error: Invalid complex attribute type ("INTEGER")\n'
        f'error: error reading file: "{bad_type}"\n'
        f'Complex attribute file "{bad_type}" is not correct', 1)
    missing = tmp_path / "missing"
    assert run("qconf", "-Mc", str(missing)) == told(
        f'error: error opening file "{missing}" for reading: No such file or directory\n'
        f'Complex attribute file "{missing}" is not correct', 1)
    bad_relop = write(tmp_path / "bad_relop", DEFAULT_SC + "lic lic INT >= YES YES 0 0\n")
    assert run("qconf", "-Mc", bad_relop) == told(
        'Consumable "lic" can have only <= as an relational operator', 1)
    no_arch = write(tmp_path / "no_arch", "".join(
        line for line in DEFAULT_SC.splitlines(True) if not line.startswith("arch ")))
    assert run("qconf", "-Mc", no_arch) == told(
        'The built-in complex "arch" cannot be deleted', 1)
    for option in ("-dce", "-dc"):  # -dc: Grid Engine 5's spelling, accepted as -dce
        assert run("qconf", option, "arch") == told(
            'The built-in complex "arch" cannot be deleted', 1)
    assert run("qconf", "-sc") == (DEFAULT_SC, "", 0)


def in_the_editor(tmp_path: Path) -> None:
    assert run("qconf", "-mc", editor="true") == told(
        "Complex attribute configuration has not been changed")
    editor = tmp_path / "add-lic"
    editor.write_text('#!/bin/sh\necho "lic lic INT <= YES YES 0 0" >> "$1"\n')
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    assert run("qconf", "-mc", editor=str(editor)) == told(
        f'{WHO} added "lic" to complex entry list')
    assert run("qconf", "-sc") == (WITH_LIC, "", 0)
    emptying = tmp_path / "empty"
    emptying.write_text('#!/bin/sh\n: > "$1"\n')
    emptying.chmod(emptying.stat().st_mode | stat.S_IXUSR)
    assert run("qconf", "-mc", editor=str(emptying)) == told("error reading in file", 1)
