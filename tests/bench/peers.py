"""The same workloads on the real Grid Engine or Slurm, when they run on this machine.

Both are installed and started by the scripts in ``shared/tools`` (as root). A runner
returns None when its system is not running, and the caller falls back to the figures
in that tool's RESULTS.md (measured on this machine class; ``FALLBACK`` says which line)
or, for what RESULTS.md does not have, to the figures of issue 12.

Grid Engine refuses jobs of root (``min_uid 1000``): as root, its commands that submit run
as the oracle's submit user (``SGE_ORACLE_USER``, default sgeuser) through ``runuser``,
once per loop or timing series, never once per call. Its scheduler runs with the settings
of the oracle's bench.sh while we measure (``schedule_interval 0:0:1``,
``flush_submit_sec 1``, ``flush_finish_sec 1``; ``sge_fast_scheduler``), and gets its
own back after.
"""
from __future__ import annotations

import contextlib
import json
import os
import pwd
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

SGE_DRAIN_SECONDS = 130.9    # shared/tools/sge-oracle/RESULTS.md, b1 median, 500 jobs
SLURM_DRAIN_SECONDS = 93.1   # shared/tools/slurm-peer/RESULTS.md, B median, 500 jobs
SGE_QSUB_SECONDS = 0.012     # C qsub binary, RESULTS.md a2 (5.97 s / 500)
SGE_BIN = Path("/usr/lib/gridengine")
SGE_ROOT = Path("/var/lib/gridengine")
SGE_CELL = os.environ.get("PYGE_BENCH_SGE_CELL", "bench")
POLL_SECONDS = 0.25
TIMEOUT_SECONDS = 900
HOLD_NAME = "pyge_bench_h"   # the name of the held jobs we submit to a peer (and delete)

# figure -> {system: (value, where it comes from)} when the system does not run here
FALLBACK: dict[str, dict[str, tuple[float | tuple[float, float], str]]] = {
    "qsub_h": {"ge": (0.012, "RESULTS.md a2: 5.97 s / 500 qsub, not -h"),
               "slurm": (0.00628, "RESULTS.md A': 3.140 s / 500 sbatch -H")},
    "qstat_500": {"ge": (0.014, "RESULTS.md c2: qstat -u sgeuser, binary"),
                  "slurm": (0.013, "RESULTS.md D: squeue")},
    "loop_drain": {"ge": (131.3, "RESULTS.md b2 (loop a2, binary)"),
                   "slurm": (93.145, "RESULTS.md B")},
    "loop_only": {"ge": (5.97, "RESULTS.md a2"), "slurm": (3.607, "RESULTS.md A")},
    "array_drain": {"ge": (130.0, "RESULTS.md b3"), "slurm": (96.103, "RESULTS.md C")},
    "latency": {"ge": ((0.091, 0.099), "issue 12 (not in RESULTS.md)"),
                "slurm": ((0.443, 0.749), "issue 12 (not in RESULTS.md)")},
}

# Runs in a peer's submit account (or ours): times ``n`` runs of a command, prints JSON.
# Only the standard library: the account may have nothing else.
_TIMER = r"""
import json, subprocess, sys, time
cmd, n = json.loads(sys.argv[1]), int(sys.argv[2])
times = []
for _ in range(n):
    start = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    times.append(time.perf_counter() - start)
    if done.returncode:
        print(json.dumps({"error": done.stderr.decode(errors="replace")[-400:]}))
        sys.exit(1)
print(json.dumps({"times": times}))
"""


class PeerError(Exception):
    """A peer runs here but the measurement failed (the message says how)."""


def timed_runs(cmd: list[str], n: int, env: dict[str, str] | None = None,
               user: str | None = None, python: str | None = None,
               cwd: str = "/tmp", timeout: float = 600) -> list[float]:
    """Wall times of ``n`` sequential runs of ``cmd`` (each started by a small Python
    process, as the same snippet starts every system's command), as ``user`` if given."""
    argv = [python or sys.executable, "-c", _TIMER, json.dumps(cmd), str(n)]
    if user is not None:
        argv = ["runuser", "-u", user, "--", *argv]
    out = subprocess.run(argv, env=env, capture_output=True, text=True, cwd=cwd,
                         timeout=timeout)
    try:
        data = json.loads(out.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        raise PeerError(f"timing {cmd[0]} failed: {out.stderr.strip()[-400:]}") from None
    if "error" in data:
        raise PeerError(f"{' '.join(cmd)} failed: {data['error'].strip()}")
    return [float(t) for t in data["times"]]


def _until_empty(cmd: list[str], env: dict[str, str], start: float,
                 timeout: float = TIMEOUT_SECONDS) -> float | None:
    deadline = start + timeout
    while time.perf_counter() < deadline:
        out = subprocess.run(cmd, env=env, capture_output=True, text=True).stdout
        if not out.strip():
            return time.perf_counter() - start
        time.sleep(POLL_SECONDS)
    return None


# ---- Grid Engine 8.1.9 ------------------------------------------------------------------

def _sge_env() -> dict[str, str] | None:
    pid = sge_qmaster_pid()
    if pid is None:
        return None
    port = "6444" if SGE_CELL == "default" else "6446"
    return dict(os.environ, SGE_ROOT=str(SGE_ROOT), SGE_CELL=SGE_CELL,
                SGE_QMASTER_PORT=port, SGE_EXECD_PORT=str(int(port) + 1))


def sge_spool_dir() -> Path:
    """The qmaster's spool directory: ``qmaster_spool_dir`` of the cell's bootstrap file,
    which the oracle's setup.sh chooses (a cell of its own, or Debian's default path)."""
    bootstrap = SGE_ROOT / SGE_CELL / "common" / "bootstrap"
    try:
        for line in bootstrap.read_text().splitlines():
            words = line.split()
            if len(words) == 2 and words[0] == "qmaster_spool_dir":
                return Path(words[1])
    except (OSError, ValueError):  # (unreadable, or not text)
        pass
    if SGE_CELL == "default":
        return Path("/var/spool/gridengine/qmaster")
    return Path(f"/var/spool/gridengine/{SGE_CELL}/qmaster")


def sge_qmaster_pid() -> int | None:
    pid_file = sge_spool_dir() / "qmaster.pid"
    try:
        pid = int(pid_file.read_text().split()[0])
        os.kill(pid, 0)
    except (OSError, ValueError, IndexError):
        return None
    return pid


def sge_running() -> bool:
    return _sge_env() is not None and (SGE_BIN / "qsub").exists()


def sge_user() -> str | None:
    """The account Grid Engine's jobs are submitted from (None: ourselves)."""
    return os.environ.get("SGE_ORACLE_USER", "sgeuser") if os.getuid() == 0 else None


def _as_submit_user(cmd: list[str]) -> list[str]:
    user = sge_user()
    return ["runuser", "-u", user, "--", *cmd] if user else cmd


def _sge(name: str) -> str:
    return str(SGE_BIN / name)


def _sge_run(cmd: list[str], *, as_user: bool = False, timeout: float = 600
             ) -> subprocess.CompletedProcess[str]:
    env = _sge_env()
    if env is None:
        raise PeerError("Grid Engine stopped running")
    argv = _as_submit_user(cmd) if as_user else cmd
    return subprocess.run(argv, env=env, capture_output=True, text=True, cwd="/tmp",
                          timeout=timeout)


def _sge_jobs_listed() -> list[str]:
    """``qstat -u '*'`` lines after the header."""
    out = _sge_run([_sge("qstat"), "-u", "*"]).stdout.splitlines()
    return out[2:]


def sge_idle(timeout: float = 600) -> None:
    deadline = time.monotonic() + timeout
    while _sge_jobs_listed():
        if time.monotonic() > deadline:
            raise PeerError("Grid Engine's cell did not drain")
        time.sleep(POLL_SECONDS)


@contextlib.contextmanager
def sge_fast_scheduler() -> Iterator[str]:
    """The oracle bench's scheduler settings for the block (restored after); yields a
    note when they could not be set (not a manager)."""
    env = _sge_env()
    if env is None:
        yield "Grid Engine is not running"
        return
    original = subprocess.run([_sge("qconf"), "-ssconf"], env=env, capture_output=True,
                              text=True).stdout
    fast = []
    for line in original.splitlines():
        key = line.split(" ", 1)[0]
        if key == "schedule_interval":
            line = "schedule_interval                 0:0:1"
        elif key in ("flush_submit_sec", "flush_finish_sec"):
            line = f"{key:<34}1"
        fast.append(line)
    tmp = Path(tempfile.mkdtemp(prefix="pyge-sconf-"))
    try:
        (tmp / "fast").write_text("\n".join(fast) + "\n")
        (tmp / "orig").write_text(original)
        done = subprocess.run([_sge("qconf"), "-Msconf", str(tmp / "fast")], env=env,
                              capture_output=True, text=True)
        note = "" if done.returncode == 0 else \
            f"scheduler settings unchanged: {done.stderr.strip() or done.stdout.strip()}"
        try:
            yield note
        finally:
            if done.returncode == 0:
                subprocess.run([_sge("qconf"), "-Msconf", str(tmp / "orig")], env=env,
                               capture_output=True, text=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def sge_qsub_hold_times(n: int) -> list[float] | None:
    """Wall times of ``n`` ``qsub -h`` (the C binary), held jobs deleted after."""
    if not sge_running():
        return None
    cmd = [_sge("qsub"), "-h", "-N", HOLD_NAME, "-b", "y", "-o", "/dev/null", "-e",
           "/dev/null", "/bin/true"]
    try:
        return timed_runs(cmd, n, env=_sge_env(), user=sge_user(), python="/usr/bin/python3")
    finally:
        _sge_run([_sge("qdel"), HOLD_NAME], as_user=True)  # by name: the owner's only


def sge_qrsh_times(n: int) -> list[float] | None:
    """Wall times of ``n`` ``qrsh -now y /bin/true`` (the C binary), start to exit."""
    if not sge_running():
        return None
    return timed_runs([_sge("qrsh"), "-now", "y", "/bin/true"], n, env=_sge_env(),
                      user=sge_user(), python="/usr/bin/python3")


def sge_qstat_times(pending: int, n: int) -> list[float] | None:
    """``qstat -u <submit user>`` with ``pending`` held jobs of that user."""
    if not sge_running():
        return None
    user = sge_user() or pwd.getpwuid(os.getuid()).pw_name
    loop = (f'for ((i = 0; i < {pending}; i++)); do {_sge("qsub")} -h -N {HOLD_NAME} -b y '
            f'-o /dev/null -e /dev/null /bin/true >/dev/null || exit 1; done')
    try:
        done = _sge_run(["bash", "-c", loop], as_user=True, timeout=900)
        if done.returncode:
            raise PeerError(f"qsub loop failed: {done.stderr.strip()[-300:]}")
        return timed_runs([_sge("qstat"), "-u", user], n, env=_sge_env())
    finally:
        _sge_run([_sge("qdel"), HOLD_NAME], as_user=True)  # by name: the owner's only


def sge_loop_drain(jobs: int) -> tuple[float, float] | None:
    """(first submit to all done, the loop's own time) of ``jobs`` sequential C qsub."""
    if not sge_running():
        return None
    sge_idle()
    script = (f't0=$EPOCHREALTIME; for ((i = 0; i < {jobs}; i++)); do {_sge("qsub")} -b y '
              f'-o /dev/null -e /dev/null /bin/true >/dev/null || exit 1; done; '
              f'echo "$t0 $EPOCHREALTIME"')
    start_wall = time.time()
    start = time.perf_counter()
    done = _sge_run(["bash", "-c", script], as_user=True, timeout=900)
    if done.returncode:
        raise PeerError(f"qsub loop failed: {done.stderr.strip()[-300:]}")
    t0, t1 = (float(x) for x in done.stdout.split()[-2:])
    total = _until_empty([_sge("qstat"), "-u", "*"], _sge_env() or {}, start)
    if total is None:
        raise PeerError("the loop's jobs did not finish in time")
    return total - (t0 - start_wall), t1 - t0


def sge_drain(jobs: int) -> float | None:
    """First submission to all done of one ``jobs``-task array."""
    env = _sge_env()
    if env is None or not (SGE_BIN / "qsub").exists():
        return None
    submit = _as_submit_user([str(SGE_BIN / "qsub"), "-b", "y", "-t", f"1-{jobs}", "-o",
                              "/dev/null", "-e", "/dev/null", "/bin/true"])
    start = time.perf_counter()
    subprocess.run(submit, env=env, check=True, capture_output=True, cwd="/tmp")
    return _until_empty([str(SGE_BIN / "qstat"), "-u", "*"], env, start)


def sge_latency(samples: int) -> list[float] | None:
    """Submit (C qsub, timed from its start) to the job shown running by qstat, polled
    every 20 ms; a job gone before a poll saw it running counts as started then."""
    if not sge_running():
        return None
    sge_idle()
    times = []
    for _ in range(samples):
        start = time.perf_counter()
        done = _sge_run([_sge("qsub"), "-terse", "-b", "y", "-o", "/dev/null", "-e",
                         "/dev/null", "/bin/sleep", "1"], as_user=True)
        if done.returncode:
            raise PeerError(f"qsub failed: {done.stderr.strip()[-300:]}")
        job = done.stdout.strip().split(".")[0]
        deadline = start + 120
        while time.perf_counter() < deadline:
            rows = [r.split() for r in _sge_jobs_listed()]
            state = next((r[4] for r in rows if r and r[0] == job and len(r) > 4), None)
            if state is None or "r" in state:
                break
            time.sleep(0.02)
        times.append(time.perf_counter() - start)
        sge_idle()
    return times


def sge_big_array(tasks: int, sleep_seconds: int, timeout: float) -> dict[str, float] | None:
    """A ``tasks``-task held array on Grid Engine: submit time, qstat lines, qmaster RSS
    growth, qdel time while pending; then, of a second one released with long sleeps,
    the qdel time while some tasks run."""
    if not sge_running():
        return None
    sge_idle()
    pid = sge_qmaster_pid()
    out: dict[str, float] = {}
    before = _rss_kib(pid) if pid else 0
    start = time.perf_counter()
    done = _sge_run([_sge("qsub"), "-terse", "-h", "-t", f"1-{tasks}", "-b", "y", "-o",
                     "/dev/null", "-e", "/dev/null", "/bin/true"], as_user=True,
                    timeout=timeout)
    out["submit"] = time.perf_counter() - start
    if done.returncode:
        raise PeerError(f"qsub -t failed: {done.stderr.strip()[-300:]}")
    job = done.stdout.strip().split(".")[0]
    time.sleep(1.0)
    out["rss_growth_kib"] = float((_rss_kib(pid) if pid else 0) - before)
    user = sge_user() or pwd.getpwuid(os.getuid()).pw_name
    out["qstat_lines"] = float(len(_sge_run([_sge("qstat"), "-u", user]).stdout.splitlines()))
    start = time.perf_counter()
    _sge_run([_sge("qdel"), job], timeout=timeout)
    out["qdel_pending"] = time.perf_counter() - start
    sge_idle(timeout)
    done = _sge_run([_sge("qsub"), "-terse", "-h", "-t", f"1-{tasks}", "-b", "y", "-o",
                     "/dev/null", "-e", "/dev/null", "/bin/sleep", str(sleep_seconds)],
                    as_user=True, timeout=timeout)
    job = done.stdout.strip().split(".")[0]
    _sge_run([_sge("qrls"), job], timeout=timeout)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        rows = [r.split() for r in _sge_jobs_listed()]
        if any(len(r) > 4 and r[0] == job and "r" in r[4] for r in rows):
            break
        time.sleep(POLL_SECONDS)
    start = time.perf_counter()
    _sge_run([_sge("qdel"), job], timeout=timeout)
    out["qdel_running"] = time.perf_counter() - start
    sge_idle(timeout)
    return out


def _rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


# ---- Slurm 22.05 ------------------------------------------------------------------------

def slurm_running() -> bool:
    return bool(shutil.which("sbatch")) and subprocess.run(
        ["squeue", "-h"], capture_output=True).returncode == 0


def _slurm_run(cmd: list[str], timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, cwd="/tmp", timeout=timeout)


def slurm_idle(timeout: float = 600) -> None:
    deadline = time.monotonic() + timeout
    while _slurm_run(["squeue", "-h"]).stdout.strip():
        if time.monotonic() > deadline:
            raise PeerError("Slurm did not drain")
        time.sleep(POLL_SECONDS)


def slurm_sbatch_hold_times(n: int) -> list[float] | None:
    if not slurm_running():
        return None
    cmd = ["sbatch", "-H", "-J", HOLD_NAME, "--wrap=/bin/true", "-o", "/dev/null", "-e",
           "/dev/null"]
    try:
        return timed_runs(cmd, n)
    finally:
        _slurm_run(["scancel", "-n", HOLD_NAME])


def slurm_squeue_times(pending: int, n: int) -> list[float] | None:
    if not slurm_running():
        return None
    loop = (f'for ((i = 0; i < {pending}; i++)); do sbatch -H -J {HOLD_NAME} '
            f'--wrap=/bin/true -o /dev/null -e /dev/null >/dev/null || exit 1; done')
    try:
        done = _slurm_run(["bash", "-c", loop], timeout=900)
        if done.returncode:
            raise PeerError(f"sbatch loop failed: {done.stderr.strip()[-300:]}")
        return timed_runs(["squeue"], n)
    finally:
        _slurm_run(["scancel", "-n", HOLD_NAME])


def slurm_loop_drain(jobs: int) -> tuple[float, float] | None:
    if not slurm_running():
        return None
    slurm_idle()
    script = (f't0=$EPOCHREALTIME; for ((i = 0; i < {jobs}; i++)); do sbatch '
              f'--wrap=/bin/true -o /dev/null -e /dev/null >/dev/null || exit 1; done; '
              f'echo "$t0 $EPOCHREALTIME"')
    start_wall = time.time()
    start = time.perf_counter()
    done = _slurm_run(["bash", "-c", script], timeout=900)
    if done.returncode:
        raise PeerError(f"sbatch loop failed: {done.stderr.strip()[-300:]}")
    t0, t1 = (float(x) for x in done.stdout.split()[-2:])
    total = _until_empty(["squeue", "-h"], dict(os.environ), start)
    if total is None:
        raise PeerError("the loop's jobs did not finish in time")
    return total - (t0 - start_wall), t1 - t0


def slurm_drain(jobs: int) -> float | None:
    if not slurm_running():
        return None
    start = time.perf_counter()
    subprocess.run(["sbatch", f"--array=1-{jobs}", "--wrap=/bin/true", "-o", "/dev/null",
                    "-e", "/dev/null"], check=True, capture_output=True, cwd="/tmp")
    return _until_empty(["squeue", "-h"], dict(os.environ), start)


def slurm_latency(samples: int) -> list[float] | None:
    if not slurm_running():
        return None
    slurm_idle()
    times = []
    for _ in range(samples):
        start = time.perf_counter()
        done = _slurm_run(["sbatch", "--parsable", "--wrap=sleep 1", "-o", "/dev/null",
                           "-e", "/dev/null"])
        if done.returncode:
            raise PeerError(f"sbatch failed: {done.stderr.strip()[-300:]}")
        job = done.stdout.strip().split(";")[0]
        deadline = start + 120
        while time.perf_counter() < deadline:
            state = _slurm_run(["squeue", "-h", "-j", job, "-o", "%T"]).stdout.strip()
            if not state or state in ("RUNNING", "COMPLETING", "COMPLETED"):
                break
            time.sleep(0.02)
        times.append(time.perf_counter() - start)
        slurm_idle()
    return times


def median(values: list[float]) -> float:
    return statistics.median(values)
