"""Administrative and submit hosts in a live cell: ``qconf -ah/-dh/-sh/-as/-ds/-ss`` and
what a host that is no submit host may still do, compared with Grid Engine 8.1.9's
captures (``tests/data/reference/auth``, taken on host ``vm`` as root).

The captures' host ``vm`` stands for the cell's qmaster host here, ``root@vm`` for this
user at the host the qmaster sees the clients come from, and ``localhost`` for what the
resolver calls it. One cell serves the module; each test leaves the lists as it found them.
"""
from __future__ import annotations

import os
import pwd
import re
import socket
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from clients.api import Client
from clients.qconf.hosts import canonical_name
from common.cell import Cell
from tests.reference import REFERENCE
from tests.commands import command

AUTH = REFERENCE / "auth"
USER = pwd.getpwuid(os.getuid()).pw_name
QMASTER_HOST = socket.gethostname().split(".")[0]  # the qmaster's --host default
LOCALHOST = canonical_name("localhost") or "localhost"
NO_HOST = "nosuchhost.invalid"  # RFC 6761: never resolves
Result = tuple[str, str, int]


@pytest.fixture(scope="module")
def env(module_cell_env: dict[str, str]) -> dict[str, str]:
    return module_cell_env


@pytest.fixture(scope="module")
def seen(env: dict[str, str]) -> str:
    """The host the qmaster sees this machine's clients come from."""
    with Client(Cell(Path(env["PYGE_ROOT"]))) as client:
        return client.conf_get("host_rights")["host"]


def run(env: dict[str, str], name: str, *args: str) -> Result:
    done = subprocess.run(command(name) + list(args), env=env, capture_output=True,
                          text=True, timeout=60)
    return done.stdout, done.stderr, done.returncode


def qconf(env: dict[str, str], *args: str) -> Result:
    return run(env, "qconf", *args)


def captured(name: str, seen: str, *, vm: str = QMASTER_HOST, **values: str) -> Result:
    """What 8.1.9 printed for ``name``, in this cell's names: ``root@vm`` is this user
    where the qmaster sees them, a host ``"vm"`` a client came from is ``seen``, every
    other ``vm`` the cell's host ``vm``; ``values`` replace further words."""
    def fit(text: str) -> str:
        text = text.replace("root@vm", f"{USER}@{seen}")
        text = re.sub(r'host "vm" is', f'host "{seen}" is', text)
        text = re.sub(r"\bvm\b", vm, text)
        for old, new in values.items():
            text = re.sub(rf"\b{re.escape(old)}\b", new, text)
        return text
    return (fit((AUTH / f"{name}.out").read_text()), fit((AUTH / f"{name}.err").read_text()),
            int((AUTH / f"{name}.rc").read_text()))


def told(text: str, rc: int = 0) -> Result:
    return "", text + "\n", rc


def test_a_new_cell_has_its_qmaster_host_in_both_lists(env: dict[str, str], seen: str) -> None:
    assert qconf(env, "-sh") == captured("sh-initial", seen)
    assert qconf(env, "-ss") == captured("ss-initial", seen)


def test_administrative_hosts(env: dict[str, str], seen: str) -> None:
    local = {"localhost": LOCALHOST}
    assert qconf(env, "-ah", NO_HOST) == captured("ah-unresolvable", seen)
    assert qconf(env, "-ah", "localhost") == captured("ah-add", seen, **local)
    assert qconf(env, "-sh") == ("\n".join(sorted([LOCALHOST, QMASTER_HOST])) + "\n", "", 0)
    assert qconf(env, "-ah", f"localhost,{QMASTER_HOST}") == captured("ah-list", seen,
                                                                       **local)
    assert qconf(env, "-ah", QMASTER_HOST.upper()) == captured("ah-already-uppercase", seen)
    assert qconf(env, "-dh", f"{NO_HOST},localhost") == captured("dh-mixed", seen, **local)
    assert qconf(env, "-dh", "localhost") == captured("dh-not-in-list", seen, **local)
    assert qconf(env, "-dh", "nosuch") == captured("dh-unresolvable", seen)
    assert qconf(env, "-dh", QMASTER_HOST) == captured("dh-qmaster-host", seen)
    assert qconf(env, "-dh", QMASTER_HOST.upper()) == captured("dh-qmaster-uppercase", seen)
    assert qconf(env, "-sh") == captured("sh-only-master", seen)


def test_an_address_is_stored_under_its_name(env: dict[str, str], seen: str) -> None:
    name = canonical_name("127.0.0.1") or "127.0.0.1"
    assert qconf(env, "-ah", "127.0.0.1") == captured("ah-ip", seen, localhost=name)
    assert qconf(env, "-dh", "127.0.0.1") == told(f'{USER}@{seen} removed "{name}" from '
                                                  "administrative host list")


def test_submit_hosts(env: dict[str, str], seen: str) -> None:
    local = {"localhost": LOCALHOST}
    assert qconf(env, "-as", NO_HOST) == captured("as-unresolvable", seen)
    assert qconf(env, "-as", f"{NO_HOST},localhost") == captured("as-mixed", seen, **local)
    assert qconf(env, "-ss") == ("\n".join(sorted([LOCALHOST, QMASTER_HOST])) + "\n", "", 0)
    assert qconf(env, "-as", QMASTER_HOST) == captured("as-already", seen)
    assert qconf(env, "-ds", f"{NO_HOST},localhost") == captured("ds-mixed", seen, **local)
    assert qconf(env, "-ds", "localhost") == captured("ds-not-in-list", seen, **local)
    assert qconf(env, "-ds", "nosuch") == captured("ds-unresolvable", seen)
    assert qconf(env, "-ss") == captured("ss-initial", seen)


@pytest.fixture
def held_job(env: dict[str, str]) -> Iterator[str]:
    out, err, rc = run(env, "qsub", "-h", "-terse", "-b", "y", "/bin/true")
    assert rc == 0, err
    yield out.strip()
    run(env, "qdel", out.strip())


def test_without_a_submit_host_jobs_stay_as_they_are(env: dict[str, str], seen: str,
                                                     held_job: str) -> None:
    assert qconf(env, "-ds", QMASTER_HOST) == captured("ds-qmaster-host", seen)
    try:
        assert qconf(env, "-ss") == captured("ss-empty", seen)
        assert run(env, "qsub", "-b", "y", "/bin/true") == \
            captured("nosubmit-qsub-user", seen)
        assert run(env, "qsub", "-terse", "-b", "y", "/bin/true") == \
            captured("nosubmit-qsub-user-terse", seen)
        # not even the manager changes a job from there (8.1.9 ran these as root)
        assert run(env, "qdel", held_job) == captured("nosubmit-qdel-root", seen)
        assert run(env, "qhold", held_job) == captured("nosubmit-qhold-root", seen)
        assert run(env, "qrls", held_job) == captured("nosubmit-qrls-root", seen)
        assert run(env, "qalter", "-N", "x", held_job) == \
            captured("nosubmit-qalter-root", seen)
        # an administrative host still reads everything and changes configuration
        out, err, rc = run(env, "qstat")
        assert rc == 0 and held_job in out, err
        assert run(env, "qstat", "-j", held_job)[2] == 0
        assert qconf(env, "-sq", "all.q")[2] == 0
        assert qconf(env, "-sh") == captured("sh-only-master", seen)
        # (the module's cell has no load thresholds: tests/cellconf.py)
        assert qconf(env, "-rattr", "queue", "load_thresholds", "np_load_avg=1.75",
                     "all.q")[2] == 0
        for value in ("1.80", "1.75"):
            assert qconf(env, "-mattr", "queue", "load_thresholds", f"np_load_avg={value}",
                         "all.q") == captured("nosubmit-mattr-root", seen)
        assert qconf(env, "-rattr", "queue", "load_thresholds", "NONE", "all.q")[2] == 0
        assert qconf(env, "-as", QMASTER_HOST) == captured("nosubmit-as-back", seen)
    finally:
        qconf(env, "-as", QMASTER_HOST)
    assert qconf(env, "-ss") == captured("ss-after-as", seen)
    out, err, rc = run(env, "qsub", "-h", "-terse", "-b", "y", "/bin/true")
    assert rc == 0, err
    run(env, "qdel", out.strip())
