"""Calendars (calendar_conf(5)) in a live cell, compared with what 8.1.9 printed for the
same commands (tests/data/reference/load/, section 7, and tests/data/reference/calendar/;
its ``root@vm`` is the caller here)."""
from __future__ import annotations

import getpass
import socket
import subprocess
from pathlib import Path

import pytest

from tests.commands import command

LOAD = Path(__file__).parents[1] / "data" / "reference" / "load"
CAL = Path(__file__).parents[1] / "data" / "reference" / "calendar"
WHO = f"{getpass.getuser()}@{socket.gethostname().split('.')[0]}"
# -Acal captures of load/ that need nothing but an empty cell, each followed by its -show
ADD_CASES = sorted(p.stem for p in LOAD.glob("Acal-*.input") if p.stem != "Acal-exists")
# calendar/: one -Acal each (the name cN is the capture's)
SYNTAX_CASES = sorted(p.stem for p in CAL.glob("*.input")
                      if not p.stem.startswith(("state-", "window-", "ca", "cb", "Mcal-")))


def run(env: dict[str, str], cwd: Path, *args: str, **extra: str) -> tuple[str, str, int]:
    done = subprocess.run(command("qconf") + list(args), env={**env, **extra},
                          capture_output=True, text=True, timeout=60, cwd=cwd)
    return done.stdout, done.stderr, done.returncode


def qconf(env: dict[str, str], *args: str, **extra: str) -> tuple[str, str, int]:
    return run(env, LOAD, *args, **extra)


def captured(case: str, where: Path = LOAD) -> tuple[str, str, int]:
    text = [(where / f"{case}.{ext}").read_text().replace("root@vm", WHO)
            for ext in ("out", "err")]
    return text[0], text[1], int((where / f"{case}.rc").read_text())


def name_in(path: Path) -> str:
    return path.read_text().splitlines()[0].split(None, 1)[1]


@pytest.mark.parametrize("case", ADD_CASES)
def test_add_from_a_file_as_8_1_9(env: dict[str, str], case: str) -> None:
    result = qconf(env, "-Acal", f"{case}.input")
    name = name_in(LOAD / f"{case}.input")
    try:
        assert result == captured(case)
        if (LOAD / f"{case}-show.cmd").exists():
            assert qconf(env, "-scal", name) == captured(f"{case}-show")
    finally:
        if result[2] == 0:
            qconf(env, "-dcal", name)


@pytest.mark.parametrize("case", SYNTAX_CASES)
def test_the_scanner_as_8_1_9(env: dict[str, str], case: str) -> None:
    if case.startswith("name-"):
        pytest.skip("the name cases are files of their own")
    result = run(env, CAL, "-Acal", f"{case}.input")
    name = name_in(CAL / f"{case}.input")
    try:
        assert result == captured(case, CAL)
        shown = CAL / f"{case}.shown"
        if shown.exists():
            assert run(env, CAL, "-scal", name)[0] == shown.read_text()
    finally:
        if result[2] == 0:
            run(env, CAL, "-dcal", name)


@pytest.mark.parametrize("case", ["name-NONE", "name-template", "name-ALL", "name-at",
                                  "name-colon", "name-slash"])
def test_names_as_8_1_9(env: dict[str, str], case: str) -> None:
    assert run(env, CAL, "-Acal", f"{case}.input")[1:] == captured(case, CAL)[1:]


def test_lists_and_missing_arguments(env: dict[str, str]) -> None:
    assert qconf(env, "-scall") == captured("cal-scall-none")
    assert qconf(env, "-scal", "nosuch") == captured("cal-scal-nosuch")
    assert qconf(env, "-mcal", "nosuch", EDITOR="true") == captured("cal-mcal-nosuch")
    assert qconf(env, "-dcal", "nosuch") == captured("dcal-nosuch")
    assert qconf(env, "-Mcal", "Mcal-nosuch.input") == captured("Mcal-nosuch")
    assert qconf(env, "-Acal", "/nonexistent/file") == captured("Acal-nofile")
    assert qconf(env, "-Mcal", "/nonexistent/file") == captured("Mcal-nofile")
    for case, option in (("acal-noarg", "-acal"), ("cal-mcal-noarg", "-mcal"),
                         ("dcal-noarg", "-dcal"), ("scal-noarg", "-scal")):
        assert qconf(env, option) == captured(case)
    for case, option in (("Acal-noarg", "-Acal"), ("Mcal-noarg", "-Mcal")):
        assert run(env, CAL, option) == captured(case, CAL)


def editor(tmp_path: Path, text: str | None) -> str:
    """A script for $EDITOR writing ``text`` over its file (None: leaving it)."""
    script = tmp_path / "ed.sh"
    action = f"cat > \"$1\" <<'EOF'\n{text}EOF\n" if text is not None else "true\n"
    script.write_text("#!/bin/sh\n" + action)
    script.chmod(0o755)
    return str(script)


def test_the_editor_options(env: dict[str, str], tmp_path: Path) -> None:
    template = (LOAD / "cal-acal-cal1.editor-writes").read_text()
    received = tmp_path / "received"
    keep = tmp_path / "keep.sh"
    keep.write_text(f"#!/bin/sh\ncp \"$1\" {received}\n")
    keep.chmod(0o755)
    try:
        assert qconf(env, "-acal", "cal1", EDITOR=str(keep)) == \
            captured("cal-acal-keep-template")
        assert received.read_text() == (LOAD / "cal-acal-keep-template.editor-received"
                                        ).read_text()
        assert qconf(env, "-acal", "cal1", EDITOR=editor(tmp_path, template)) == \
            captured("cal-acal-cal1")
        assert qconf(env, "-acal", "cal1", EDITOR=editor(tmp_path, template)) == \
            captured("cal-acal-cal1-exists")
        assert qconf(env, "-scal", "cal1") == captured("cal-scal-cal1")
        assert qconf(env, "-scall") == captured("cal-scall-one")
        changed = (LOAD / "cal-mcal-cal1.editor-writes").read_text()
        assert qconf(env, "-mcal", "cal1", EDITOR=editor(tmp_path, changed)) == \
            captured("cal-mcal-cal1")
        assert qconf(env, "-scal", "cal1") == captured("cal-mcal-cal1-show")
        assert qconf(env, "-mcal", "cal1", EDITOR=str(keep)) == captured("cal-mcal-keep")
        assert received.read_text() == (LOAD / "cal-mcal-keep.editor-received").read_text()
        assert qconf(env, "-Mcal", "Mcal-cal1.input") == captured("Mcal-cal1")
        assert qconf(env, "-scal", "cal1") == captured("Mcal-cal1-show")
        assert qconf(env, "-Mcal", "Mcal-bad.input") == captured("Mcal-bad")
    finally:
        qconf(env, "-dcal", "cal1")


def test_references_from_queues(env: dict[str, str], tmp_path: Path) -> None:
    try:
        for case in ("Acal-night", "Acal-weekend"):
            assert qconf(env, "-Acal", f"{case}.input")[2] == 0
        assert qconf(env, "-Acal", "Acal-exists.input") == captured("Acal-exists")
        assert qconf(env, "-mattr", "queue", "calendar", "nosuchcal", "all.q") == \
            captured("calendar-mattr-nosuch")
        assert qconf(env, "-mattr", "queue", "calendar", "weekend", "all.q") == tuple(
            part.replace("cal.q", "all.q") if isinstance(part, str) else part
            for part in captured("calendar-mattr-weekend"))
        assert "calendar              weekend\n" in qconf(env, "-sq", "all.q")[0]
        assert qconf(env, "-dcal", "weekend") == (
            "", 'denied: Calendar "weekend" is still referenced in queue "all.q"\n', 1)
        host = qconf(env, "-sel")[0].split()[0]
        assert qconf(env, "-mattr", "queue", "calendar", "night", f"all.q@{host}")[2] == 0
        assert qconf(env, "-dcal", "night")[1] == \
            'denied: Calendar "night" is still referenced in queue "all.q"\n'
        assert qconf(env, "-mattr", "queue", "calendar", "NONE", "all.q") == tuple(
            part.replace("cal.q", "all.q") if isinstance(part, str) else part
            for part in captured("calendar-mattr-none"))
        assert qconf(env, "-purge", "queue", "calendar", f"all.q@{host}")[2] == 0
        assert qconf(env, "-dcal", "night") == captured("dcal-night")
    finally:
        qconf(env, "-mattr", "queue", "calendar", "NONE", "all.q")
        qconf(env, "-dcal", "night")
        qconf(env, "-dcal", "weekend")


def test_calendars_survive_a_restart(cell, env: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    from deploy.cell import LocalCell
    assert qconf(env, "-Acal", "Acal-full.input")[2] == 0
    try:
        local = LocalCell(cell)
        local.down()
        local.up()
        assert qconf(env, "-scal", "full") == captured("Acal-full-show")
    finally:
        qconf(env, "-dcal", "full")
