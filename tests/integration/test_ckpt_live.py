"""A checkpointed job's migration on a live cell (sge_ckpt(5)): with ``x`` in its
environment's ``when``, suspending the job aborts it and reschedules it; its second run
sees RESTARTED=1 and finishes."""
from __future__ import annotations

from pathlib import Path

from clients.api import job_request
from common.objects_conf import template
from tests.integration.cellutil import client, running_cell, tasks_by_job, wait_for, wait_state


def test_ckpt_migrates(tmp_path: Path) -> None:  # (short: the cell's socket paths)
    runs = tmp_path / "runs"
    runs.touch()
    runs.chmod(0o666)  # (the job may run as another user than the test)
    with running_cell(tmp_path) as local, client(local) as cl:
        ckpt = [[k, "x" if k == "when" else v] for k, v in template("ckpt", "mig")]
        cl.conf_put("ckpt", "mig", ckpt, "add")
        queue = cl.conf_get("queue")["all.q"]
        cl.conf_put("queue", "all.q", [[k, "mig" if k == "ckpt_list" else v]
                                       for k, v in queue], "modify")
        script = f'#!/bin/sh\necho "$RESTARTED" >> {runs}\n[ "$RESTARTED" = 1 ] || sleep 60\n'
        [job_id] = cl.submit([job_request("mig.sh", script=script.encode(),
                                          checkpoint_name="mig")])
        wait_state(local, job_id, "running")
        wait_for(lambda: runs.read_text() or None, 10.0, "the first run to start")
        cl.request("qmod", {"user": cl.user.to_dict(), "items": [
            {"action": "suspend", "scope": "job", "ref": str(job_id)}]})
        [task] = cl.wait([job_id], timeout=30)[job_id]
        assert runs.read_text().split() == ["0", "1"], task
        assert task["exit_status"] == 0
        assert tasks_by_job(cl, [job_id])[job_id][0]["restarts"] == 1
