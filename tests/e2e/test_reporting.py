"""The reporting file on a live cell (reporting_params reporting=true joblog=true): the
records of a job that ran and of a held job deleted, in the order and words of 8.1.9's
(tests/data/reference/reporting/reporting.out, jobs 28 and 30)."""
from __future__ import annotations

import time
from pathlib import Path

from clients.api import Client, job_request
from common import reporting
from deploy.cell import LocalCell

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
        set_global(client, reporting_params=reporting.DEFAULT)
