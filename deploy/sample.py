"""The sample job ``pyge up --sample`` runs: submit, wait, print its output."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from clients.api import Client, ClientError, job_request
from common.cell import Cell

SAMPLE_SCRIPT = b"""#!/bin/sh
#$ -N sample
echo "Hello from pygridengine: job $JOB_ID ($JOB_NAME) ran on $HOSTNAME in queue $QUEUE"
echo "NSLOTS=$NSLOTS TMPDIR=$TMPDIR"
"""


def run_sample(cell: Cell) -> int:
    outdir = Path(tempfile.mkdtemp(prefix="pyge-sample-"))
    os.chmod(outdir, 0o755)
    out = outdir / "sample.out"
    request = job_request("sample.sh", script=SAMPLE_SCRIPT, job_name="sample",
                          stdout_paths=[str(out)], merge_output=True, cwd=str(outdir))
    try:
        with Client(cell) as client:
            [job_id] = client.submit([request])
            print(f'Your job {job_id} ("sample") has been submitted')
            results = client.wait([job_id], timeout=60)
    except ClientError as err:
        print(f"sample job failed: {err.message}")
        return 1
    status = results[job_id][0]["exit_status"]
    print(f"Job {job_id} exited with exit code {status}.")
    print(f"--- output of job {job_id} ({out}) ---")
    print(out.read_text(), end="")
    return 0 if status == 0 else 1
