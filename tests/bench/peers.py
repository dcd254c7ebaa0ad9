"""The same drain workload on the real Grid Engine or Slurm, when they run on this machine.

Both are installed and started by the scripts in ``shared/tools`` (as root). A runner
returns None when its system is not running, and the caller falls back to the figures
in that tool's RESULTS.md (measured on this machine class).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

SGE_DRAIN_SECONDS = 130.9    # shared/tools/sge-oracle/RESULTS.md, b1 median, 500 jobs
SLURM_DRAIN_SECONDS = 93.1   # shared/tools/slurm-peer/RESULTS.md, B median, 500 jobs
SGE_QSUB_SECONDS = 0.012     # C qsub binary, RESULTS.md a2 (5.97 s / 500)
SGE_BIN = Path("/usr/lib/gridengine")
SGE_CELL = os.environ.get("PYGE_BENCH_SGE_CELL", "bench")
POLL_SECONDS = 0.25
TIMEOUT_SECONDS = 900


def _sge_env() -> dict[str, str] | None:
    pid_file = Path(f"/var/spool/gridengine/{SGE_CELL}/qmaster/qmaster.pid")
    if SGE_CELL == "default":
        pid_file = Path("/var/spool/gridengine/qmaster/qmaster.pid")
    try:
        pid = int(pid_file.read_text().split()[0])
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    port = "6444" if SGE_CELL == "default" else "6446"
    return dict(os.environ, SGE_ROOT="/var/lib/gridengine", SGE_CELL=SGE_CELL,
                SGE_QMASTER_PORT=port, SGE_EXECD_PORT=str(int(port) + 1))


def _as_submit_user(cmd: list[str]) -> list[str]:
    user = os.environ.get("SGE_ORACLE_USER", "sgeuser")
    return ["runuser", "-u", user, "--", *cmd] if os.getuid() == 0 else cmd


def sge_drain(jobs: int) -> float | None:
    env = _sge_env()
    if env is None or not (SGE_BIN / "qsub").exists():
        return None
    submit = _as_submit_user([str(SGE_BIN / "qsub"), "-b", "y", "-t", f"1-{jobs}", "-o",
                              "/dev/null", "-e", "/dev/null", "/bin/true"])
    start = time.perf_counter()
    subprocess.run(submit, env=env, check=True, capture_output=True, cwd="/tmp")
    return _until_empty([str(SGE_BIN / "qstat"), "-u", "*"], env, start)


def slurm_drain(jobs: int) -> float | None:
    if not shutil.which("sbatch") or subprocess.run(["squeue", "-h"], capture_output=True
                                                     ).returncode != 0:
        return None
    start = time.perf_counter()
    subprocess.run(["sbatch", f"--array=1-{jobs}", "--wrap=/bin/true", "-o", "/dev/null",
                    "-e", "/dev/null"], check=True, capture_output=True, cwd="/tmp")
    return _until_empty(["squeue", "-h"], dict(os.environ), start)


def _until_empty(cmd: list[str], env: dict[str, str], start: float) -> float | None:
    deadline = start + TIMEOUT_SECONDS
    while time.perf_counter() < deadline:
        out = subprocess.run(cmd, env=env, capture_output=True, text=True).stdout
        if not out.strip():
            return time.perf_counter() - start
        time.sleep(POLL_SECONDS)
    return None
