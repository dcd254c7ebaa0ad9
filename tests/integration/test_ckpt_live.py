"""A checkpointed job on a live cell (checkpoint(5), sge_ckpt(5)): its ckpt_command runs
every checkpoint interval; suspending it (``x``) runs its migr_command, which ends it,
and reschedules it; its second run sees RESTARTED=1 and finishes, and then (only then)
its clean_command runs."""
from __future__ import annotations

import os
import signal
from pathlib import Path

from clients.api import job_request
from common.objects_conf import template
from tests.integration.cellutil import (client, hostname, is_dead, pid_of, restart,
                                        running_cell, tasks_by_job, wait_for, wait_state)


def _script(path: Path, text: str) -> Path:
    path.write_text(f"#!/bin/sh\n{text}\n")
    path.chmod(0o755)
    return path


def test_ckpt_migrates(tmp_path: Path) -> None:  # (short: the cell's socket paths)
    log = tmp_path / "log"
    log.touch()
    log.chmod(0o666)  # (the job and its commands may run as another user than the test)
    ck = _script(tmp_path / "ck.sh", f'echo "ck $1" >> {log}')
    mg = _script(tmp_path / "mg.sh", f'echo "mg" >> {log}; kill -9 "$1"')
    cl_ = _script(tmp_path / "cl.sh", f'echo "cl $1" >> {log}')
    with running_cell(tmp_path) as local, client(local) as cl:
        values = {"when": "xm", "ckpt_command": f"{ck} $job_id",
                  "migr_command": f"{mg} $job_pid", "clean_command": f"{cl_} $job_id"}
        cl.conf_put("ckpt", "mig", [[k, values.get(k, v)] for k, v in template("ckpt", "mig")],
                    "add")
        queue = {"ckpt_list": "mig", "min_cpu_interval": "00:00:01"}
        cl.conf_put("queue", "all.q", [[k, queue.get(k, v)]
                                       for k, v in cl.conf_get("queue")["all.q"]], "modify")
        script = f'#!/bin/sh\necho "run $RESTARTED" >> {log}\n[ "$RESTARTED" = 1 ] || sleep 60\n'
        [job_id] = cl.submit([job_request("mig.sh", script=script.encode(),
                                          checkpoint_name="mig")])
        wait_state(local, job_id, "running")
        wait_for(lambda: "ck" in log.read_text() or None, 10.0, "a periodic checkpoint")
        cl.request("qmod", {"user": cl.user.to_dict(), "items": [
            {"action": "suspend", "scope": "job", "ref": str(job_id)}]})
        [task] = cl.wait([job_id], timeout=30)[job_id]
        lines = log.read_text().splitlines()
        assert lines[0] == "run 0" and f"ck {job_id}" in lines, lines
        assert lines[-3:] == ["mg", "run 1", f"cl {job_id}"], lines
        assert task["exit_status"] == 0
        assert tasks_by_job(cl, [job_id])[job_id][0]["restarts"] == 1


def test_ckpt_shutdown(tmp_path: Path) -> None:  # (short: the cell's socket paths)
    """``s``: the execd's shutdown migrates the job; the execd back, it runs again."""
    log = tmp_path / "log"
    log.touch()
    log.chmod(0o666)
    with running_cell(tmp_path) as local, client(local) as cl:
        cl.conf_put("ckpt", "sd", [[k, "s" if k == "when" else v]
                                   for k, v in template("ckpt", "sd")], "add")
        cl.conf_put("queue", "all.q", [[k, "sd" if k == "ckpt_list" else v]
                                       for k, v in cl.conf_get("queue")["all.q"]], "modify")
        script = f'#!/bin/sh\necho "run $RESTARTED" >> {log}\n[ "$RESTARTED" = 1 ] || sleep 60\n'
        [job_id] = cl.submit([job_request("sd.sh", script=script.encode(),
                                          checkpoint_name="sd")])
        wait_state(local, job_id, "running")
        wait_for(lambda: log.read_text() or None, 10.0, "the first run to start")
        execd = pid_of(local, f"execd-{hostname()}")
        os.kill(execd, signal.SIGTERM)
        wait_for(lambda: is_dead(execd) or None, 10.0, "the execd to stop")
        # (the execd may report the job's end before it is gone, or when it is back)
        restart(local)
        [task] = cl.wait([job_id], timeout=30)[job_id]
        assert log.read_text().split("\n")[:2] == ["run 0", "run 1"]
        assert task["exit_status"] == 0
        assert tasks_by_job(cl, [job_id])[job_id][0]["restarts"] == 1
