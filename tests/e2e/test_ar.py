"""Advance reservations on a live cell (qmaster, scheduler, one 4-slot execd), driven
through the real qrsub, qrstat, qrdel and qsub commands, with 8.1.9's texts and exit
statuses (tests/data/reference/ar/). The unit tests (tests/unit/test_ar_rules.py,
test_ar_qmaster.py) check the rules and the qmaster's side without daemons.
"""
from __future__ import annotations

import re
import subprocess
import time
from datetime import datetime
from typing import Any

import pytest

from clients.api import Client, ClientError
from common.accounting import read_records
from common.cell import Cell
from tests.commands import command
from tests.identity import client_as, other_user_name

TIMEOUT = 30.0


@pytest.fixture(autouse=True)
def no_ars_left(client: Client) -> Any:
    """Each test starts and ends with no AR in the cell."""
    yield
    client.request("ar_delete", {"user": client.user.to_dict(), "owners": ["*"],
                                 "force": True})


def run(env: dict[str, str], name: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command(name) + list(args), env=env, capture_output=True,
                          text=True, timeout=60)


def date_arg(epoch: float) -> str:
    """qrsub -a/-e: [[CC]YY]MMDDhhmm[.SS] in local time."""
    return datetime.fromtimestamp(epoch).strftime("%Y%m%d%H%M.%S")


def test_refusals_in_8_1_9_words(env: dict[str, str]) -> None:
    done = run(env, "qrsub", "-a", date_arg(time.time() - 120), "-d", "60")
    assert (done.stdout, done.returncode) == ("start time is in the past\n", 1)
    done = run(env, "qrsub", "-d", "abc")
    assert (done.stderr, done.returncode) == \
        ('qrsub: Wrong time format "abc" specified to -d option\n', 1)
    done = run(env, "qrsub")
    assert done.returncode == 1 and done.stderr.endswith("ERROR! no option argument\n")
    done = run(env, "qrstat")
    assert (done.stdout, done.returncode) == ("", 0)
    done = run(env, "qrstat", "-ar", "99")
    assert (done.stdout, done.returncode) == \
        ("Following advance reservations do not exist:\n99\n", 1)
    done = run(env, "qrdel", "99")
    assert (done.stdout, done.returncode) == \
        ('denied: advance_reservation "99" does not exist\n', 1)
    done = run(env, "qsub", "-ar", "999", "-b", "y", "/bin/true")
    assert (done.stderr, done.returncode) == \
        ("Unable to run job: the advance reservation id 999 is invalid\nExiting.\n", 1)


def test_only_managers_and_arusers_may_ask(cell: Cell) -> None:
    user = other_user_name()
    with client_as(cell, user) as other:
        with pytest.raises(ClientError) as err:
            other.request("ar_submit", {"user": other.user.to_dict(),
                                        "ar": {"duration": 60.0}})
    assert err.value.message == f'denied: "{user}" must be manager or in userset "arusers"'


def granted(done: subprocess.CompletedProcess[str]) -> int:
    assert done.returncode == 0, (done.stdout, done.stderr)
    found = re.fullmatch(r"Your advance reservation (\d+) has been granted\n", done.stdout)
    assert found, done.stdout
    return int(found.group(1))


def job_id(done: subprocess.CompletedProcess[str]) -> int:
    assert done.returncode == 0, done.stderr
    found = re.match(r"Your job (\d+)", done.stdout)
    assert found, done.stdout
    return int(found.group(1))


def records_of(cell: Cell, job: int) -> list[Any]:
    if not cell.accounting_path.exists():
        return []
    return [r for r in read_records(cell.accounting_path) if r.job_number == job]


def wait_for(what: Any, timeout: float = TIMEOUT) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = what()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError("timed out")


def test_an_ars_job_starts_at_the_ars_start(env: dict[str, str], client: Client,
                                            cell: Cell) -> None:
    start = time.time() + 4
    ar_id = granted(run(env, "qrsub", "-a", date_arg(start), "-d", "60", "-N", "later"))
    listing = run(env, "qrstat").stdout
    assert re.search(rf"^ +{ar_id} later +\S+ +w ", listing, re.M), listing
    job = job_id(run(env, "qsub", "-ar", str(ar_id), "-b", "y", "-o", "/dev/null",
                     "-j", "y", "/bin/true"))
    records = wait_for(lambda: records_of(cell, job))
    assert records[0].start_time >= int(start)
    assert records[0].arid == ar_id
    assert "state                          r" in run(env, "qrstat", "-ar", str(ar_id)).stdout
    done = run(env, "qrdel", str(ar_id))
    assert done.returncode == 0 and done.stdout.endswith(
        f"has deleted advance_reservation {ar_id}\n")


def test_qrdel_ends_the_running_jobs_of_the_ar(env: dict[str, str], client: Client) -> None:
    ar_id = granted(run(env, "qrsub", "-d", "600"))
    job = job_id(run(env, "qsub", "-ar", str(ar_id), "-b", "y", "-o", "/dev/null",
                     "-j", "y", "/bin/sleep", "300"))
    wait_for(lambda: any(t["state"] == "running" for t in client.jobs([job])["tasks"]))
    done = run(env, "qrdel", str(ar_id))
    assert done.stdout.endswith(f"has registered the advance_reservation {ar_id} for "
                                "deletion\n"), done.stdout
    wait_for(lambda: run(env, "qrstat", "-ar", str(ar_id)).returncode == 1)
    assert all(t["state"] == "finished"
               for t in client.jobs([job], include_finished=True)["tasks"])


def test_no_room_and_max_advance_reservations(env: dict[str, str], client: Client) -> None:
    done = run(env, "qrsub", "-d", "600", "-pe", "smp", "64")
    assert (done.stdout, done.returncode) == ("advance_reservation: no suitable queues\n", 1)
    conf = client.conf_get("conf")["global"]
    client.conf_put("conf", "global", [list(r) for r in conf] +
                    [["max_advance_reservations", "1"]], "modify")
    try:
        first = granted(run(env, "qrsub", "-d", "600"))
        done = run(env, "qrsub", "-d", "600")
        assert (done.stdout, done.returncode) == \
            ("rejected: only 1 advance reservations are allowed per cluster\n", 25)
        run(env, "qrdel", str(first))
    finally:
        client.conf_put("conf", "global", [list(r) for r in conf], "modify")
