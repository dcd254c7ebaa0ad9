"""qdel racing a job's start: jobs released, held again and deleted within milliseconds of
their dispatch all end at once. Before the shepherd signalled its job's first process
directly when its group did not exist yet, about one run in two left a job running to
its natural end in state dr (found by DRMAA's hold/release/TERMINATE test)."""
from __future__ import annotations

import time
from pathlib import Path

from clients.api import job_request
from tests.integration.cellutil import client, running_cell

JOBS = 60


def test_jobs_deleted_as_they_start_all_end(tmp_path: Path) -> None:
    with running_cell(tmp_path, slots=4) as local, client(local) as cl:
        ids = []
        for i in range(JOBS):
            [job_id] = cl.submit([job_request("/bin/sleep", ["300"], binary=True,
                                              hold=True)])
            cl.release([{"job_id": job_id}])
            time.sleep(0.001 * (i % 20))  # (each job deleted at another point of its start)
            cl.hold([{"job_id": job_id}])
            time.sleep(0.003 * (i % 7))
            cl.delete([{"job_id": job_id}])
            ids.append(job_id)
        # a lost kill leaves its job running for 300 s: far beyond this wait
        ended = cl.wait(ids, timeout=60)
        assert sorted(ended) == ids
