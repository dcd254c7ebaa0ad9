"""The reporting file on a live cell (reporting_params reporting=true joblog=true): the
records of a job that ran and of a held job deleted, in the order and words of 8.1.9's
(tests/data/reference/reporting/reporting.out, jobs 28 and 30); then, with the exec
host's report_variables naming slots, a job's queue_consumable records, a queue
instance's queue records (qmod -d, -e) and an AR's records (qrsub, qrdel), as in
tests/data/reference/reporting/host_queue_ar_sharelog.out."""
from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Callable

from clients.api import Client, job_request
from common import reporting
from deploy.cell import LocalCell
from tests.commands import command

REF = (Path(__file__).resolve().parents[1] / "data" / "reference" / "reporting"
       / "reporting.out").read_text().splitlines()


def set_global(client: Client, **values: str) -> None:
    pairs = client.conf_get("conf")["global"]
    client.conf_put("conf", "global", [[k, values.get(k, v)] for k, v in pairs], "modify")


def steps(lines: list[str], job_id: int) -> list[tuple[str, ...]]:
    """(record, event, state, user, message) of one job's records, in order."""
    out = []
    for line in lines:
        if line.startswith("#"):
            continue
        f = line.split(":")
        if f[1] == "new_job" and f[3] == str(job_id):
            out.append(("new_job",))
        elif f[1] == "job_log" and f[4] == str(job_id):
            user = "OWNER" if f[8] == f[14] else f[8]  # (the capture's was sgeuser)
            out.append(("job_log", f[3], f[7], user, f[-1]))
        elif f[1] == "acct" and f[7] == str(job_id):
            out.append(("acct",))
    return out


def test_reporting_file(live_cell: LocalCell) -> None:
    path = live_cell.cell.common_dir / reporting.FILE_NAME
    with Client() as client:
        set_global(client, reporting_params="accounting=true reporting=true "
                   "flush_time=00:00:00 joblog=true sharelog=00:00:00")
        [ran] = client.submit([job_request("/bin/true", binary=True, job_name="ok")])
        [held] = client.submit([job_request("/bin/true", binary=True, hold=True,
                                            job_name="held")])
        client.delete([{"job_id": held}])
        client.wait([ran, held], timeout=30)
        want_ran, want_held = steps(REF, 28), steps(REF, 30)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # (the scheduler's deletion comes last)
            lines = path.read_text().splitlines() if path.exists() else []
            if steps(lines, ran) == want_ran and steps(lines, held) == want_held:
                break
            time.sleep(0.2)
        assert "\n".join(lines[:4]) + "\n" == reporting.HEADER
        assert steps(lines, ran) == want_ran
        assert steps(lines, held) == want_held
        _consumables_queues_and_ars(client, path)
        _sharelog(client, path, live_cell.cell.root)
        set_global(client, reporting_params=reporting.DEFAULT)


def _records(path: Path, kind: str) -> list[list[str]]:
    return [line.split(":") for line in path.read_text().splitlines()
            if not line.startswith("#") and line.split(":")[1] == kind]


def _until(found: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 30
    while not found():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


def _sharelog(client: Client, path: Path, where: Path) -> None:
    """sharelog=00:00:01 and a share tree: its nodes every second, 8.1.9's fields."""
    tree = where / "tree"
    tree.write_text("id=0\nname=Root\ntype=0\nshares=1\nchildnodes=1\n"
                    "id=1\nname=default\ntype=0\nshares=10\nchildnodes=NONE\n")
    done = subprocess.run(command("qconf") + ["-Astree", str(tree)], capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    set_global(client, reporting_params="accounting=true reporting=true "
               "flush_time=00:00:00 joblog=true sharelog=00:00:01")
    _until(lambda: len({r[0] for r in _records(path, "sharelog")}) >= 2,
           "two sharelog dumps")
    rows = _records(path, "sharelog")
    first = [r for r in rows if r[0] == rows[0][0]]
    # (not the user's node below "default" that sge_share_mon shows: 8.1.9's qmaster
    # tree never has it)
    assert [r[4:9] for r in first] == [["/", "", "", "1", "0"],
                                       ["/default", "", "", "10", "0"]]
    assert all(len(r) == 22 and r[-1] == "" for r in rows)


def _consumables_queues_and_ars(client: Client, path: Path) -> None:
    [host] = [h for h in client.conf_get("exechost") if h != "global"]
    client.conf_put("complex", "lic", [["lic", "lic", "INT", "<=", "YES", "YES", "0", "0"]],
                    "add")
    for name, values in ((host, {"report_variables": "slots"}),
                         ("global", {"report_variables": "lic", "complex_values": "lic=4"})):
        pairs = client.conf_get("exechost")[name]
        client.conf_put("exechost", name, [[k, values.get(k, v)] for k, v in pairs],
                        "modify")
    [job] = client.submit([job_request("/bin/true", binary=True, job_name="slots",
                                       hard_resources={"lic": "1"})])
    client.wait([job], timeout=30)
    _until(lambda: len(_records(path, "queue_consumable")) >= 2, "queue_consumable records")
    taken, freed = _records(path, "queue_consumable")[:2]
    assert (taken[2:4], taken[5:], freed[5:]) == (
        ["all.q", host], ["", "slots=1.000000=4.000000"], ["", "slots=0.000000=4.000000"])
    # (the host's own list has no lic: no record of the host; the global host's has)
    assert [r[2:3] + r[4:] for r in _records(path, "host_consumable")] == [
        ["global", "X", "lic=1.000000=4.000000"], ["global", "X", "lic=0.000000=4.000000"]]
    user = client.user.to_dict()
    for action in ("disable", "enable"):
        client.request("qmod", {"user": user, "items": [
            {"action": action, "scope": "queue", "ref": f"all.q@{host}"}], "force": False})
    _until(lambda: len(_records(path, "queue")) >= 2, "queue records")
    assert [r[2:4] + r[5:] for r in _records(path, "queue")] == [
        ["all.q", host, "d"], ["all.q", host, ""]]
    ar_id = client.request("ar_submit", {"user": user, "ar": {"duration": 60,
                                                              "name": "rep"}})["ar_id"]
    client.request("ar_delete", {"user": user, "ar_ids": [ar_id], "force": False})
    _until(lambda: bool(_records(path, "ar_acct")), "ar records")
    kinds = [line.split(":")[1] for line in path.read_text().splitlines()[4:]
             if line.split(":")[1].startswith(("new_ar", "ar_"))]
    # (no -a: it starts at once, as 8.1.9's logs it)
    assert kinds == ["new_ar", "ar_attr", "ar_log", "ar_log", "ar_acct"]
    assert [log[4:] for log in _records(path, "ar_log")] == [
        [str(ar_id), "r", "START TIME REACHED", "start time of AR reached"],
        [str(ar_id), "d", "DELETED", "AR deleted"]]
