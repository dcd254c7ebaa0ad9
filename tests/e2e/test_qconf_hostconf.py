"""Host-local configurations (sge_conf(5)) in a live cell, compared with what 8.1.9
printed for the same commands (tests/data/reference/hostconf/ and the host-local cases
of tests/data/reference/load/; their ``root@vm`` is the caller here and their host
``vm`` this cell's execution host)."""
from __future__ import annotations

import getpass
import socket
import subprocess
from pathlib import Path

import pytest

from tests.commands import command

HC = Path(__file__).parents[1] / "data" / "reference" / "hostconf"
LOAD = Path(__file__).parents[1] / "data" / "reference" / "load"
WHO = f"{getpass.getuser()}@{socket.gethostname().split('.')[0]}"


@pytest.fixture(scope="module")
def host(env: dict[str, str]) -> str:
    return qconf(env, "-sel")[0].split()[0]


def qconf(env: dict[str, str], *args: str, **extra: str) -> tuple[str, str, int]:
    done = subprocess.run(command("qconf") + list(args), env={**env, **extra},
                          capture_output=True, text=True, timeout=60, cwd=HC)
    return done.stdout, done.stderr, done.returncode


def captured(case: str, host: str, where: Path = HC) -> tuple[str, str, int]:
    text = [(where / f"{case}.{ext}").read_text().replace("root@vm", WHO)
            .replace('"vm"', f'"{host}"').replace("#vm:", f"#{host}:")
            .replace("configuration vm ", f"configuration {host} ")
            for ext in ("out", "err")]
    return text[0], text[1], int((where / f"{case}.rc").read_text())


def writer(tmp_path: Path, text: str | None, received: Path | None = None) -> str:
    """A script for $EDITOR: keeps what it gets in ``received``, then writes ``text``
    over its file (None: leaves it alone)."""
    script = tmp_path / "ed.sh"
    body = f'cp "$1" {received}\n' if received else ""
    if text is not None:
        body += f"cat > \"$1\" <<'EOF'\n{text}EOF\n"
    script.write_text("#!/bin/sh\n" + (body or "true\n"))
    script.chmod(0o755)
    return str(script)


def named(tmp_path: Path, name: str, source: Path) -> str:
    """``source``'s text in a file called ``name`` (-Aconf/-Mconf read the name from it)."""
    folder = tmp_path / "files"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(source.read_text())
    return str(folder / name)


def test_the_editor_options(env: dict[str, str], host: str, tmp_path: Path) -> None:
    received = tmp_path / "received"
    try:
        assert qconf(env, "-sconfl") == captured("sconfl-none", host)
        assert qconf(env, "-sconf", host) == captured("sconf-vm-none", host)
        sensor = (LOAD / "mconf-vm-not-defined.editor-writes").read_text()
        assert qconf(env, "-mconf", host, EDITOR=writer(tmp_path, sensor, received)) == \
            captured("mconf-vm-not-defined", host, LOAD)
        assert received.read_text() == "\n"
        assert qconf(env, "-sconf", host) == captured("sconf-vm-local", host, LOAD)
        assert qconf(env, "-sconfl") == captured("sconfl-vm", host, LOAD)
        assert qconf(env, "-dconf", host) == captured("dconf-vm", host, LOAD)
        mail = (HC / "aconf-vm.editor-writes").read_text()
        assert qconf(env, "-aconf", host, EDITOR=writer(tmp_path, None, received)) == \
            captured("aconf-vm-keep", host)
        assert qconf(env, "-aconf", host, EDITOR=writer(tmp_path, mail, received)) == \
            captured("aconf-vm", host)
        assert received.read_text() == "\n"
        assert qconf(env, "-aconf", host, EDITOR=writer(tmp_path, mail)) == \
            captured("aconf-vm-exists", host)
        assert qconf(env, "-sconf", host) == captured("sconf-vm", host)
        both = qconf(env, "-sconf", f"{host},global")
        assert both[0].startswith(captured("sconf-vm", host)[0] + "\n#global:\n")
        assert qconf(env, "-sconf", f"{host},nosuch.invalid") == (
            captured("sconf-vm", host)[0] + "\n",
            'can\'t resolve hostname "nosuch.invalid": can\'t resolve host name\n', 1)
        assert qconf(env, "-sconf", f"nosuch.invalid,{host}")[0] == \
            "\n" + captured("sconf-vm", host)[0]
        assert qconf(env, "-sconf", host.upper()) == captured("sconf-vm", host)
        changed = (HC / "mconf-vm-existing.editor-writes").read_text()
        assert qconf(env, "-mconf", host, EDITOR=writer(tmp_path, changed, received)) == \
            captured("mconf-vm-existing", host)
        assert received.read_text() == (HC / "mconf-vm-existing.editor-received").read_text()
        assert qconf(env, "-sconf", host) == captured("sconf-vm-after-mconf", host)
        assert qconf(env, "-mconf", host, EDITOR=writer(tmp_path, None)) == \
            captured("mconf-vm-keep", host)
        assert qconf(env, "-mconf", EDITOR=writer(tmp_path, None)) == \
            captured("mconf-global-keep", host)
        empty = qconf(env, "-mconf", host, EDITOR=writer(tmp_path, ""))
        assert (empty[1].splitlines()[-1], empty[2]) == ("error reading temp file", 1)
    finally:
        qconf(env, "-dconf", host)


def test_files(env: dict[str, str], host: str, tmp_path: Path) -> None:
    mail = named(tmp_path, host, HC / "files" / "Aconf-vm" / "vm")
    try:
        assert qconf(env, "-Mconf", mail) == captured("Mconf-vm-adds", host)
        assert qconf(env, "-Mconf", "/nonexistent/" + host) == captured("Mconf-nofile", host)
        assert qconf(env, "-Aconf", mail) == captured("Aconf-vm", host)
        assert qconf(env, "-Aconf", mail) == captured("Aconf-vm-exists", host)
        assert qconf(env, "-Mconf", "/nonexistent/" + host) == (
            "", f'error: error opening file "/nonexistent/{host}" for reading: No such file '
                f"or directory\nerror reading configuration from file /nonexistent/{host}\n",
            1)
        xterm = named(tmp_path, host, HC / "files" / "Mconf-vm" / "vm")
        assert qconf(env, "-Mconf", xterm) == captured("Mconf-vm", host)
        assert qconf(env, "-sconf", host) == captured("Mconf-vm-show", host)
        assert qconf(env, "-dconf", host) == captured("dconf-vm-2", host)
        assert qconf(env, "-dconf", host) == captured("dconf-vm-3", host)  # none: "removed"
        empty = named(tmp_path, host, HC / "files" / "Aconf-empty" / "vm")
        assert qconf(env, "-Aconf", empty)[1:] == (
            f'error: error reading file: "{empty}"\n'
            f"error reading configuration from file {empty}\n", 1)
        assert qconf(env, "-Aconf", "/nonexistent/" + host)[1].splitlines()[-1] == \
            f"error reading configuration from file /nonexistent/{host}"
        # 8.1.9 accepts any parameter a local configuration should not set, and ignores it
        limit = named(tmp_path, host, HC / "files" / "Aconf-param-max_u_jobs" / "vm")
        assert qconf(env, "-Aconf", limit) == captured("Aconf-param-max_u_jobs", host)
        assert qconf(env, "-sconf", host) == captured("Aconf-param-max_u_jobs-show", host)
    finally:
        qconf(env, "-dconf", host)


def test_names_that_are_no_host(env: dict[str, str], host: str) -> None:
    for case in ("Aconf-nosuch", "Mconf-nosuch"):
        args = (HC / f"{case}.cmd").read_text().split()[2:]
        assert qconf(env, *args) == captured(case, host)
    for case, option in (("aconf-nosuch", "-aconf"), ("mconf-nosuch", "-mconf")):
        assert qconf(env, option, "nosuch.invalid", EDITOR="true") == captured(case, host)
    assert qconf(env, "-dconf", "nosuch.invalid") == captured("dconf-nosuch", host)
    assert qconf(env, "-dconf", "global") == captured("dconf-global", host)
    assert qconf(env, "-sconf", "global")[2] == 0
    assert qconf(env, "-dconf") == captured("dconf-noarg", host)
    assert qconf(env, "-aconf") == captured("aconf-noarg", host)
    assert qconf(env, "-Aconf") == captured("Aconf-noarg", host)
    assert qconf(env, "-aconf", "global") == captured("aconf-global", host)


def test_local_configurations_are_checked(env: dict[str, str], host: str,
                                          tmp_path: Path) -> None:
    # 8.1.9 takes "color blue" and "load_report_time abc" (docs/compatibility.md)
    unknown = named(tmp_path, host, HC / "files" / "Aconf-unknown-attr" / "vm")
    assert qconf(env, "-Aconf", unknown)[1:] == (
        f'error: unknown attribute name "color"\nerror: error reading file: "{unknown}"\n'
        f"error reading configuration from file {unknown}\n", 1)
    bad = named(tmp_path, host, HC / "files" / "Aconf-bad-time" / "vm")
    assert qconf(env, "-Aconf", bad)[2] == 1
    assert qconf(env, "-sconfl") == captured("sconfl-none", host)


def test_local_configurations_survive_a_restart(cell, env: dict[str, str],  # type: ignore[no-untyped-def]
                                                host: str, tmp_path: Path) -> None:
    from deploy.cell import LocalCell
    assert qconf(env, "-Aconf", named(tmp_path, host, HC / "files" / "Aconf-vm" / "vm"))[2] == 0
    try:
        local = LocalCell(cell)
        local.down()
        local.up()
        assert qconf(env, "-sconf", host) == captured("sconf-vm", host)
    finally:
        qconf(env, "-dconf", host)
