"""The policy on a live cell, against what 8.1.9 did (issue 27, item 7 "On a live cell").

``test_qstat_ext_equals_8_1_9s_golden_figures`` rebuilds the ``golden*`` situations of
tests/data/reference/policy/ (README.md, "Golden scenarios") through the real ``qconf``,
``qsub``-equivalent submissions, ``qalter`` and ``qmod`` and compares ``qstat -ext`` and
``qstat -pri`` with the captures row by row: every column but the job id, the owner (other
accounts here), the submission date and, for running jobs, the queue's host name and the
cpu/mem/io usage columns (a running job's usage depends on when the execd last reported).

``test_two_users_with_shares_80_20_get_80_20_of_the_slot_time`` runs CPU-burning jobs of
two users, submitted alternately, on a two-slot cell with a share tree 80/20 and measures
each user's slot time from the accounting file.

Both need two accounts besides ours (root only, ``tests.identity``).
"""
from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from clients.api import Client, job_request
from common.accounting import read_records
from deploy.cell import LocalCell
from qmaster.policy_view import MAX_AGE
from tests.commands import command
from tests.identity import client_as, needs_root, other_users
from tests.integration.cellutil import client, running_cell, sleeper, wait_for

REFERENCE = Path(__file__).resolve().parents[1] / "data" / "reference" / "policy"
CAPTURED_USERS = ("sgeuser", "sgeuser2")  # fshare 80 / 20, the second in department dept2


def run(env: dict[str, str], name: str, *args: str) -> str:
    done = subprocess.run(command(name) + list(args), capture_output=True, text=True,
                          timeout=60, env=env)
    assert done.returncode == 0, (name, args, done.stdout, done.stderr)
    return done.stdout


def cell_env(local: LocalCell) -> dict[str, str]:
    import os
    return {**os.environ, "PYGE_ROOT": str(local.cell.root), "PYGE_CELL": "default"}


def renamed(text: str, users: tuple[str, str]) -> str:
    """A captured configuration file with our two accounts for 8.1.9's users."""
    # the longer name first: "sgeuser" is a prefix of "sgeuser2"
    return text.replace(CAPTURED_USERS[1], "@B@").replace(CAPTURED_USERS[0], users[0]) \
               .replace("@B@", users[1])


def load_file(env: dict[str, str], tmp: Path, option: str, text: str) -> None:
    path = tmp / f"{option.strip('-')}-{abs(hash(text))}.txt"
    path.write_text(text)
    run(env, "qconf", option, str(path))


# -- qstat -ext / -pri against the golden captures -----------------------------------

def captured(name: str) -> list[list[str]]:
    """The job rows of capture ``name``, split on blanks."""
    lines = (REFERENCE / f"{name}.out").read_text().splitlines()
    return [line.split() for line in lines[2:] if line.strip()]


def ours(env: dict[str, str], option: str) -> list[list[str]]:
    lines = run(env, "qstat", option, "-u", "*").splitlines()
    return [line.split() for line in lines[2:] if line.strip()]


def comparable(row: list[str], option: str, job_ids: dict[str, int], users: dict[str, str]
               ) -> list[str]:
    """A row with the job id as its submission index and the owner as its role; the
    columns that cannot be the same here left out (see the module docstring)."""
    out = [str(job_ids[row[0]]), *row[1:]]
    if option == "-ext":
        out[4] = users[out[4]]
        if out[7] in ("r", "t"):
            # job prior ntckts name user project department state cpu mem io tckts ...
            out = out[:8] + out[11:]
            out[-2] = out[-2].split("@")[0]  # queue instance: all.q@<host>
    else:
        # job prior nurg npprior ntckts ppri name user state date time [queue] slots
        out[7] = users[out[7]]
        out = out[:9] + out[11:]
        if len(out) == 11:
            out[9] = out[9].split("@")[0]
    return out


def compare(env: dict[str, str], capture: str, option: str, ids: list[int],
            captured_ids: list[int], accounts: tuple[str, str]) -> None:
    """qstat ``option`` equals the capture, once the qmaster's figures are those of the
    last change (qmaster.policy_view answers from one evaluation for up to MAX_AGE
    seconds after a change, as 8.1.9's qstat shows its last scheduling run's)."""
    ours_index = {str(job): index for index, job in enumerate(ids)}
    theirs_index = {str(job): index for index, job in enumerate(captured_ids)}
    theirs = [comparable(row, option, theirs_index, dict(zip(CAPTURED_USERS, "AB")))
              for row in captured(capture)]

    def mine() -> list[list[str]]:
        return [comparable(row, option, ours_index, dict(zip(accounts, "AB")))
                for row in ours(env, option)]
    deadline = time.monotonic() + 3 * MAX_AGE + 5
    while (shown := mine()) != theirs and time.monotonic() < deadline:
        time.sleep(0.2)
    print(f"\n{capture} (qstat {option}; job = submission index, user = A/B):")
    for a, b in zip(shown, theirs):
        print("  here ", " ".join(a), "\n  8.1.9", " ".join(b))
    assert shown == theirs, f"{capture}: qstat {option} differs from 8.1.9's:\n" + "\n".join(
        f"here  {' '.join(a)}\n8.1.9 {' '.join(b)}" for a, b in zip(shown, theirs))


@pytest.fixture
def golden_cell(tmp_path: Path) -> Iterator[tuple[LocalCell, dict[str, str]]]:
    with running_cell(tmp_path, slots=4, load_interval=1.0) as local:
        yield local, cell_env(local)


@needs_root
def test_qstat_ext_equals_8_1_9s_golden_figures(
        golden_cell: tuple[LocalCell, dict[str, str]], tmp_path: Path) -> None:
    local, env = golden_cell
    accounts: tuple[str, str] = tuple(other_users(2))  # type: ignore[assignment]
    sconf = (REFERENCE / "golden-ssconf.txt").read_text()
    load_file(env, tmp_path, "-Msconf", sconf)
    for text in (REFERENCE / "golden-users.txt").read_text().split("name ")[1:3]:
        load_file(env, tmp_path, "-Auser", renamed("name " + text, accounts))
    load_file(env, tmp_path, "-Au", renamed((REFERENCE / "g4-acl-dept2.txt").read_text(),
                                            accounts))
    load_file(env, tmp_path, "-Astree",
              renamed((REFERENCE / "golden-sstree.txt").read_text(), accounts))
    run(env, "qmod", "-d", "all.q")

    ids: list[int] = []
    for account, prefix in zip(accounts, ("g1u", "g2u")):
        with client_as(local.cell, account) as cl:
            for k in (1, 2, 3):
                ids += cl.submit([sleeper(60, job_name=f"{prefix}{k}", stdout_paths=["/dev/null"],
                                         merge_output=True)])
    captured_ids = [77, 78, 79, 80, 81, 82]

    # the qmaster's policy view answers qstat at once: nothing to wait for
    for option in ("-ext", "-pri"):
        compare(env, f"golden1-qstat-{option[1:]}", option, ids, captured_ids, accounts)

    # golden2: 8.1.9's qalter -ot 20 (root) on job 81, qalter -p -100 (owner) on job 79
    run(env, "qalter", "-ot", "20", str(ids[4]))
    with client_as(local.cell, accounts[0]) as cl:
        cl.alter([{"job_id": ids[2]}], {"priority": -100})
    for option in ("-ext", "-pri"):
        compare(env, f"golden2-qstat-{option[1:]}", option, ids, captured_ids, accounts)

    load_file(env, tmp_path, "-Msconf", (REFERENCE / "golden3-ssconf.txt").read_text())
    for option in ("-ext", "-pri"):
        compare(env, f"golden3-qstat-{option[1:]}", option, ids, captured_ids, accounts)

    # golden4: the queue enabled; the four first of golden3's order start
    run(env, "qmod", "-e", "all.q")
    with client(local) as cl:
        wait_for(lambda: sorted(int(t["job_id"]) for t in cl.jobs(ids)["tasks"]
                                if t["state"] == "running") == sorted(ids[i] for i in
                                                                      (0, 1, 3, 4)) or None,
                 60, "jobs 1, 2, 4, 5 to run (8.1.9's 77, 78, 80, 81)")
    for option in ("-ext", "-pri"):
        compare(env, f"golden4-qstat-{option[1:]}", option, ids, captured_ids, accounts)
    run(env, "qdel", *map(str, ids))
