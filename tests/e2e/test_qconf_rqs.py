"""``qconf`` and resource quota sets in a live cell, compared with what 8.1.9's qconf
printed for the same commands (tests/data/reference/rqs/; its ``root@vm`` is the
caller here)."""
from __future__ import annotations

import getpass
import socket
import subprocess
from pathlib import Path

import pytest

from tests.commands import command

RQS = Path(__file__).parents[1] / "data" / "reference" / "rqs"
WHO = f"{getpass.getuser()}@{socket.gethostname().split('.')[0]}"


@pytest.fixture(scope="module")
def env(module_cell_env: dict[str, str]) -> dict[str, str]:
    return module_cell_env


def qconf(env: dict[str, str], *args: str) -> tuple[str, str, int]:
    done = subprocess.run(command("qconf") + list(args), env=env, capture_output=True,
                          text=True, timeout=60, cwd=RQS)
    return done.stdout, done.stderr, done.returncode


def captured(case: str) -> tuple[str, str, int]:
    text = [(RQS / f"{case}.{ext}").read_text().replace("root@vm", WHO)
            for ext in ("out", "err")]
    return text[0], text[1], int((RQS / f"{case}.rc").read_text())


def test_an_empty_list_in_8_1_9_words(env: dict[str, str]) -> None:
    assert qconf(env, "-srqsl") == captured("srqsl-none")
    assert qconf(env, "-srqs") == captured("srqs-none")
    assert qconf(env, "-srqs", "nosuch") == captured("srqs-name-none")


@pytest.mark.parametrize("case, added, name", [
    ("man1", "man1-add", "max_u_slots"),
    ("man2", "man2-add-unknown-hgrp", "max_virtual_free_on_lx_hosts"),
    ("man3", "man3-add", "max_slots_on_every_host")])
def test_add_show_and_delete_as_8_1_9(env: dict[str, str], case: str, added: str,
                                      name: str) -> None:
    result = qconf(env, "-Arqs", f"{case}.input")
    try:
        assert result == captured(added)
        assert qconf(env, "-srqs", name) == captured(f"{case}-show")
        again = qconf(env, "-Arqs", f"{case}.input")
        assert again == ("", f'resource quota set "{name}" already exists\n', 1)
        assert qconf(env, "-srqsl")[0] == f"{name}\n"
    finally:
        assert qconf(env, "-drqs", name) == \
            ("", f'{WHO} removed "{name}" from resource quota set list\n', 0)
    assert qconf(env, "-drqs", name) == \
        ("", f'denied: resource quota set "{name}" does not exist\n', 1)


def test_a_limit_the_complex_list_does_not_know_is_refused(env: dict[str, str]) -> None:
    assert qconf(env, "-Arqs", "err-unknown-complex.input") == \
        captured("err-unknown-complex-add")
    assert qconf(env, "-Arqs", "dyn-hosts-star.input") == captured("dyn-hosts-star-add")


def test_modify_from_a_file_by_name(env: dict[str, str], tmp_path: Path) -> None:
    assert qconf(env, "-Arqs", "man1.input")[2] == 0
    try:
        changed = tmp_path / "changed.rqs"
        changed.write_text((RQS / "man1.input").read_text().replace("slots=100", "slots=7"))
        assert qconf(env, "-Mrqs", str(changed), "max_u_slots") == \
            ("", f'{WHO} modified "max_u_slots" in resource quota set list\n', 0)
        assert "limit        to slots=7\n" in qconf(env, "-srqs", "max_u_slots")[0]
        assert qconf(env, "-Mrqs", str(changed), "other") == \
            ("", f'resource quota set "other" not found in file "{changed}"\n', 1)
        assert qconf(env, "-Mrqs", str(changed))[2] == 1  # replacing all: refused here
    finally:
        qconf(env, "-drqs", "max_u_slots")
