"""Every figure of issue 12 in one command, for pygridengine and, side by side, for Grid
Engine 8.1.9 and Slurm 22.05 when they run on this machine.

    python3 -m tests.bench.run_all [--quick] [--skip-peers] [--installed]
        [--sections commands,drain,arrays,scale]
        [--scale-jobs 100000 --scale-tasks 1000000 --scale-hosts 1000]

The commands are timed as users install them: a copy of this tree is installed with
``pip install`` (not editable) into a fresh virtual environment of the system's python3
for the run, and its console scripts are the ones timed (``--installed``: this
environment's own, tests.commands). The daemons run from this tree.

Prints a table (figure | pygridengine | goal | Grid Engine | Slurm) and asserts nothing.
A peer's figure is marked ``[live]`` when it was measured now, ``[R]`` when it comes from
its RESULTS.md in ``shared/tools`` (the system does not run here, or ``--skip-peers``) and
``[I]`` when it comes from issue 12 (RESULTS.md has no such figure); see
``tests/bench/peers.py``.

Sections, each on a fresh cell of its own in a temporary root (``deploy.cell.LocalCell``,
free ports; always stopped and removed after, whatever happened):

1. commands (one execd, 4 slots, like the peers' bench cells): one ``qsub -h`` through the
   installed console script (median of 50), beside the same interpreter started with
   nothing to do (``python -c pass``: the floor under every command); ``qstat`` with 500
   pending (held) jobs (median of 9); ``python -X importtime`` of the ``qsub`` and
   ``qstat`` entry modules.
2. drain (the same cell): 500 x ``qsub -b y /bin/true`` in a real ``bash`` loop through the
   command, first submit to all done (and the loop's own time); one 500-task array, submit
   to all done; submit to running p50/p90 (from the event stream, as bench_cell); the drain
   rate of one array against as many single jobs (both submitted in one request).
3. arrays (fresh cell, one execd, 4 slots): ``qsub -h -t 1-75000 -b y /bin/true`` through
   the command: its submit time, the number of ``qstat`` lines, the qmaster's RSS growth while
   it is pending, the ``qdel`` time while pending; then a second such array of long sleeps,
   released with ``qrls``, deleted with ``qdel`` once some of its tasks run.
4. scale (fresh cell, its own execd's queue instance disabled, N simulated execds of
   ``tests/bench/fake_execds.py``): 100,000 pending jobs submitted in bulk through
   ``clients.api`` and 1,000,000 pending array tasks (arrays of ``max_aj_tasks`` tasks).
   They stay pending because they request ``mem_free`` of 1000 to 1049 GB (50 request
   sets; the simulated hosts have 16 GB): unlike held jobs, the scheduler considers every
   one of them in every pass. Then: qmaster RSS; the snapshot (parts, size, largest part,
   fetched with the scheduler's key as the scheduler does); ``qstat -u USER`` of a user who
   has three jobs (as root: ``sgeuser`` or ``nobody``; otherwise a user with none); the
   dispatch pass (a probe job's submit to the scheduler's ``pass`` log line; its
   ``seconds=`` field when the scheduler logs one); a qmaster restart from its spool until
   it answers a request and until the scheduler has built its mirror again (its
   ``mirror built`` log line); ``qstat`` of every job and ``qdel -u`` of the bulk user's
   jobs through the commands, each with the longest a ping of another connection waited
   meanwhile.

``--quick`` runs small sizes (10 qsub, 50-job loop, 5,000-task array, scale 5,000 jobs and
50,000 tasks on 50 hosts) to check that the harness works, in a few minutes.
Every wait has a deadline; a figure that could not be measured says why and the run goes
on with the next one.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import pwd
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterator

from clients.api import Client, ClientError, job_request
from common.cell import Cell
from deploy.cell import LocalCell, machine_name
from tests.bench import peers
from tests.bench.bench_cell import (QUIET, EventWatch, compile_packages, latency_samples,
                                    rss_kib, true_job)
from tests.bench.fake_execds import raise_fd_limit
from tests.cellconf import stop_cell
from tests.commands import command as installed_command

MiB = 1024 * 1024
FRAME_LIMIT = 64 * MiB  # common.wire.MAX_MESSAGE_BYTES
TOP = Path(__file__).absolute().parents[2]
PACKAGES = ("common", "clients", "qmaster", "scheduler", "execd", "deploy")


class Commands:
    """Where the console scripts under test come from: a plain installation made for
    the run (``pip install`` of a copy of this tree into a fresh virtual environment of
    the system's python3, as users install it), or this environment's (tests.commands)."""

    venv: Path | None = None
    python: str = sys.executable
    label: str = "this environment's console scripts"

    @classmethod
    def plain_install(cls, workdir: Path) -> str:
        """Make the installation; what to say when it could not be made (then the
        environment's scripts are used)."""
        src = workdir / "src"
        src.mkdir()
        for name in ("pyproject.toml", "README.md"):
            shutil.copy2(TOP / name, src / name)
        for package in PACKAGES:
            shutil.copytree(TOP / package, src / package,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        base = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
        venv = workdir / "venv"
        steps = [[base, "-m", "venv", str(venv)],
                 [str(venv / "bin" / "python"), "-m", "pip", "install", "-q",
                  "--disable-pip-version-check", str(src)]]
        for step in steps:
            done = subprocess.run(step, capture_output=True, text=True, timeout=600,
                                  cwd=str(workdir))
            if done.returncode != 0:
                return (f"plain installation failed ({' '.join(step[:3])}...: "
                        f"{done.stderr.strip()[-300:]}); using {cls.label}")
        cls.venv, cls.python = venv, str(venv / "bin" / "python")
        cls.label = f"a plain `pip install` of this tree into a fresh venv of {base}"
        return ""


def cmd(name: str) -> list[str]:
    """argv of the console script ``name`` under test."""
    if Commands.venv is not None:
        return [str(Commands.venv / "bin" / name)]
    return installed_command(name)


# ---- sizes --------------------------------------------------------------------------------

@dataclass
class Sizes:
    qsub_runs: int = 50
    qstat_runs: int = 9
    pending: int = 500
    loop_jobs: int = 500
    array_tasks: int = 500
    latency_samples: int = 50
    rate_jobs: int = 2000
    big_array: int = 75000
    sleep_seconds: int = 120
    scale_jobs: int = 100_000
    scale_tasks: int = 1_000_000
    scale_hosts: int = 1000
    probes: int = 5
    timeout: float = 600.0     # one step (a command, a drain, a restart)

    @classmethod
    def quick(cls) -> "Sizes":
        return cls(qsub_runs=10, qstat_runs=5, loop_jobs=50, array_tasks=50,
                   latency_samples=10, rate_jobs=200, big_array=5000, sleep_seconds=60,
                   scale_jobs=5000, scale_tasks=50_000, scale_hosts=50, probes=3,
                   timeout=180.0)


# ---- the report ---------------------------------------------------------------------------

@dataclass
class Row:
    figure: str
    ours: str = "—"
    goal: str = ""
    ge: str = "—"
    slurm: str = "—"


@dataclass
class Report:
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    details: list[str] = field(default_factory=list)
    live: dict[str, bool] = field(default_factory=dict)

    def row(self, figure: str, ours: str = "—", goal: str = "", ge: str = "—",
            slurm: str = "—") -> Row:
        row = Row(figure, ours, goal, ge, slurm)
        self.rows.append(row)
        print(f"  {figure}: {ours}" + (f"   (GE {ge}, Slurm {slurm})"
                                       if ge != "—" or slurm != "—" else ""), flush=True)
        return row

    def note(self, text: str) -> None:
        self.notes.append(text)
        print(f"  note: {text}", flush=True)

    def failed(self, figure: str, err: BaseException, goal: str = "") -> Row:
        text = _why(err)
        self.details.append(f"{figure}: {text}\n" + "".join(
            traceback.format_exception(type(err), err, err.__traceback__)[-4:]))
        return self.row(figure, f"failed: {text[:90]}", goal)

    def print(self) -> None:
        headers = ["figure", "pygridengine", "goal", "Grid Engine 8.1.9", "Slurm 22.05"]
        table = [[r.figure, r.ours, r.goal, r.ge, r.slurm] for r in self.rows]
        widths = [max(len(h), *(len(t[i]) for t in table)) if table else len(h)
                  for i, h in enumerate(headers)]
        line = "| " + " | ".join(h.ljust(w) for h, w in zip(headers, widths)) + " |"
        print()
        print(line)
        print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
        for t in table:
            print("| " + " | ".join(c.ljust(w) for c, w in zip(t, widths)) + " |")
        print()
        print("[live] measured now on this machine; [R] from shared/tools/*/RESULTS.md; "
              "[I] from issue 12 (not in RESULTS.md); — not measured.")
        for name, label in (("ge", "Grid Engine 8.1.9"), ("slurm", "Slurm 22.05")):
            state = "running here: live figures" if self.live.get(name) else \
                "not measured (" + ("--skip-peers" if self.live.get("skipped") else
                                    "not running here") + "): figures from RESULTS.md " \
                "or issue 12"
            print(f"{label}: {state}")
        if self.notes:
            print("\nnotes:")
            for n in self.notes:
                print(f"- {n}")
        if self.details:
            print("\ndetails:")
            for d in self.details:
                print(d.rstrip())


def _why(err: BaseException) -> str:
    if isinstance(err, subprocess.TimeoutExpired):
        return f"timed out after {err.timeout:.0f} s ({Path(str(err.cmd[0])).name})"
    text = getattr(err, "message", None) or str(err) or type(err).__name__
    return f"{type(err).__name__}: {text}".replace("\n", " ")


# ---- formatting ---------------------------------------------------------------------------

def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def secs(seconds: float) -> str:
    return f"{seconds:.1f} s" if seconds >= 10 else f"{seconds:.2f} s"


def mib(kib: float) -> str:
    value = kib / 1024
    return f"{0.0 if abs(value) < 0.05 else value:.1f} MiB"


def peer_cell(value: Any, live: bool, fmt: Callable[[Any], str], source: str = "") -> str:
    if value is None:
        return "—"
    return f"{fmt(value)} [{'live' if live else source or 'R'}]"


def fallback(figure: str, system: str) -> tuple[Any, str]:
    value, where = peers.FALLBACK[figure][system]
    return value, ("I" if where.startswith("issue") else "R")


# ---- helpers ------------------------------------------------------------------------------

class PeerSet:
    """Which peers are measured live in this run."""

    def __init__(self, skip: bool) -> None:
        self.skipped = skip
        self.ge = not skip and peers.sge_running()
        self.slurm = not skip and peers.slurm_running()


def cmd_env(local: LocalCell) -> dict[str, str]:
    return dict(os.environ, PYGE_ROOT=str(local.cell.root), PYGE_CELL=local.cell.name)


def run_cmd(name: str, args: list[str], env: dict[str, str], timeout: float,
                check: bool = True) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Run our console script ``name`` (tests.commands: the installed one), timed."""
    start = time.perf_counter()
    done = subprocess.run(cmd(name) + args, env=env, capture_output=True, text=True,
                          timeout=timeout, cwd="/tmp")
    elapsed = time.perf_counter() - start
    if check and done.returncode != 0:
        raise RuntimeError(f"{name} {' '.join(args)} exited {done.returncode}: "
                           f"{(done.stderr or done.stdout).strip()[-300:]}")
    return elapsed, done


def wait_empty(client: Client, timeout: float, job_ids: list[int] | None = None,
               interval: float = 0.05) -> float:
    """time.time() at which no job (of ``job_ids``) is left unfinished."""
    deadline = time.monotonic() + timeout
    while True:
        reply = client.jobs(job_ids)
        if not reply["jobs"]:
            return time.time()
        if time.monotonic() > deadline:
            raise TimeoutError(f"{len(reply['jobs'])} jobs still unfinished after "
                               f"{timeout:.0f} s")
        time.sleep(interval)


def qmaster_pid(local: LocalCell) -> int:
    return int((local.run_dir / "qmaster.pid").read_text().split()[0])


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def user_name() -> str:
    return pwd.getpwuid(os.getuid()).pw_name


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


@contextlib.contextmanager
def fresh_cell(label: str, report: Report, slots: int = 4) -> Iterator[LocalCell]:
    """A cell with qmaster, scheduler and one execd (``slots`` slots) in a new temporary
    root; always stopped (its jobs ended first) and removed."""
    root = Path(tempfile.mkdtemp(prefix=f"pyge-bench-{label}-"))
    os.chmod(root, 0o755)
    local = LocalCell(Cell(root))
    try:
        local.up(execds=1, slots=slots, port=0)
        yield local
    finally:
        try:
            stop_cell(local)
        except BaseException as err:  # noqa: BLE001 - the rest of the run must go on
            report.note(f"stopping the {label} cell: {_why(err)}")
            local.down()
        shutil.rmtree(root, ignore_errors=True)


def log_lines(path: Path, offset: int = 0) -> tuple[list[dict[str, str]], int]:
    """structlog key=value lines of ``path`` from byte ``offset``: (records, new offset)."""
    try:
        with path.open("rb") as f:
            f.seek(offset)
            data = f.read()
    except OSError:
        return [], offset
    end = data.rfind(b"\n") + 1
    records = [_parse_log_line(line) for line in data[:end].decode(errors="replace")
               .splitlines()]
    return [r for r in records if r], offset + end


_KV = re.compile(r"(\w+)=('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|\S+)")


def _parse_log_line(line: str) -> dict[str, str]:
    return {k: v[1:-1] if v[:1] in "'\"" else v for k, v in _KV.findall(line)}


def log_time(record: dict[str, str]) -> float:
    return datetime.fromisoformat(record["timestamp"].replace("Z", "+00:00")).timestamp()


# ---- 1. commands --------------------------------------------------------------------------

def section_commands(rep: Report, sz: Sizes, ps: PeerSet, local: LocalCell,
                     client: Client) -> None:
    env = cmd_env(local)
    if Commands.venv is None:  # the environment's own scripts: byte-compiled as installed
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            compile_packages()
    qsub_h = cmd("qsub") + ["-h", "-N", peers.HOLD_NAME, "-b", "y", "-o", "/dev/null",
                            "-e", "/dev/null", "/bin/true"]
    ours: float | None = None
    try:
        times = peers.timed_runs(qsub_h, sz.qsub_runs, env=env, timeout=sz.timeout)
        ours = statistics.median(times)
    except Exception as err:  # noqa: BLE001
        rep.failed(f"one `qsub -h` (median of {sz.qsub_runs})", err)
    finally:
        with contextlib.suppress(ClientError):
            client.delete([{"name": peers.HOLD_NAME}])
    ge = slurm = None
    if ps.ge:
        ge = _peer(rep, "GE qsub -h", lambda: peers.sge_qsub_hold_times(sz.qsub_runs))
    if ps.slurm:
        slurm = _peer(rep, "Slurm sbatch -H",
                      lambda: peers.slurm_sbatch_hold_times(sz.qsub_runs))
    ge_v = statistics.median(ge) if ge else fallback("qsub_h", "ge")[0]
    if ours is not None:
        rep.row(f"one `qsub -h` (median of {sz.qsub_runs})", ms(ours),
                f"≤ 2× GE ({ms(2 * ge_v)})",
                _peer_value(ge, "qsub_h", "ge", ms, ps.ge),
                _peer_value(slurm, "qsub_h", "slurm", ms, ps.slurm, suffix=" (sbatch -H)"))
    _bare_interpreter(rep, sz, env)

    # qstat with N pending jobs
    figure = f"`qstat` with {sz.pending} jobs pending (median of {sz.qstat_runs})"
    ours = None
    try:
        ids = client.submit([true_job(hold=True, job_name="pyge_bench_q")
                             for _ in range(sz.pending)])
        _, listed = run_cmd("qstat", [], env, sz.timeout)
        lines = len(listed.stdout.splitlines())
        times = peers.timed_runs(cmd("qstat"), sz.qstat_runs, env=env, timeout=sz.timeout)
        ours = statistics.median(times)
        if lines != sz.pending + 2:
            rep.note(f"qstat with {sz.pending} pending jobs printed {lines} lines")
        client.delete([{"job_id": j} for j in ids])
        wait_empty(client, sz.timeout)
    except Exception as err:  # noqa: BLE001
        rep.failed(figure, err)
    ge = slurm = None
    if ps.ge:
        ge = _peer(rep, "GE qstat", lambda: peers.sge_qstat_times(sz.pending, sz.qstat_runs))
    if ps.slurm:
        slurm = _peer(rep, "Slurm squeue",
                      lambda: peers.slurm_squeue_times(sz.pending, sz.qstat_runs))
    ge_v = statistics.median(ge) if ge else fallback("qstat_500", "ge")[0]
    if ours is not None:
        rep.row(figure, ms(ours), f"≤ 2× GE ({ms(2 * ge_v)})",
                _peer_value(ge, "qstat_500", "ge", ms, ps.ge),
                _peer_value(slurm, "qstat_500", "slurm", ms, ps.slurm, suffix=" (squeue)"))
    importtimes(rep)


def _bare_interpreter(rep: Report, sz: Sizes, env: dict[str, str]) -> None:
    """The floor under every command: the interpreter the commands run on, started with
    nothing to do (``site`` and the environment's ``.pth`` files included, as for them)."""
    figure = (f"the commands' interpreter doing nothing (`python -c pass`, median of "
              f"{sz.qsub_runs})")
    try:
        times = peers.timed_runs([Commands.python, "-c", "pass"], sz.qsub_runs, env=env,
                                 timeout=sz.timeout)
        rep.row(figure, ms(statistics.median(times)), "(the floor of any command)",
                "— (C)", "— (C)")
    except Exception as err:  # noqa: BLE001
        rep.failed(figure, err)


def _peer(rep: Report, what: str, fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except Exception as err:  # noqa: BLE001 - a peer's failure is a note, not the end
        rep.note(f"{what}: {_why(err)}")
        return None


def _peer_value(times: list[float] | None, figure: str, system: str,
                fmt: Callable[[float], str], live: bool, suffix: str = "") -> str:
    if times:
        return f"{fmt(statistics.median(times))}{suffix} [live]"
    value, source = fallback(figure, system)
    note = "" if not live else " (live run failed)"
    return f"{fmt(value)}{suffix} [{source}]{note}"


def importtimes(rep: Report, runs: int = 5) -> None:
    """``python -X importtime`` of each entry module: the median run's cumulative time of
    the module itself and of ``site`` (the interpreter's own start-up), and its heaviest
    imports (in the details)."""
    for name in ("qsub", "qstat"):
        module = {"qsub": "clients.qsub.main", "qstat": "clients.qstat"}[name]
        figure = f"`python -X importtime` {module}, cumulative"
        try:
            samples = [_importtime(module) for _ in range(runs)]
            samples.sort(key=lambda s: s[module])
            mid = samples[len(samples) // 2]
            rep.row(figure, f"{mid[module] / 1000:.1f} ms (site {mid.get('site', 0) / 1000:.1f}"
                            f" ms)", "smaller (a test bounds the import list)",
                    "— (C)", "— (C)")
            top = sorted(((us, mod) for mod, us in mid.items() if mod not in (module,)),
                         reverse=True)[:8]
            rep.details.append(f"importtime {module} (median of {runs} runs), heaviest "
                               "imports (cumulative): " + ", ".join(
                                   f"{mod.strip()} {us / 1000:.1f} ms" for us, mod in top))
        except Exception as err:  # noqa: BLE001
            rep.failed(figure, err)


def _importtime(module: str) -> dict[str, int]:
    done = subprocess.run([Commands.python, "-X", "importtime", "-c", f"import {module}"],
                          capture_output=True, text=True, cwd="/tmp", timeout=60)
    out: dict[str, int] = {}
    for line in done.stderr.splitlines():  # import time: self [us] | cumulative | name
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line.split(":", 1)[1].split("|")
        out[name.strip()] = int(cumulative)
    if module not in out:
        raise RuntimeError(f"no importtime line for {module}: {done.stderr.strip()[-300:]}")
    return out


# ---- 2. drain -----------------------------------------------------------------------------

def section_drain(rep: Report, sz: Sizes, ps: PeerSet, local: LocalCell,
                  client: Client) -> None:
    env = cmd_env(local)
    ge_note = ""
    with peers.sge_fast_scheduler() if ps.ge else contextlib.nullcontext("") as ge_note:
        if ge_note:
            rep.note(f"Grid Engine: {ge_note}")
        _loop_drain(rep, sz, ps, client, env)
        _array_drain(rep, sz, ps, client, env)
        _latency(rep, sz, ps, local, client)
    _drain_rates(rep, sz, client)


def _loop_drain(rep: Report, sz: Sizes, ps: PeerSet, client: Client,
                env: dict[str, str]) -> None:
    n = sz.loop_jobs
    figure = f"{n} × `qsub -b y /bin/true` in a shell loop, first submit to all done"
    qsub = " ".join(shlex.quote(a) for a in cmd("qsub"))
    script = (f't0=$EPOCHREALTIME; for ((i = 0; i < {n}; i++)); do {qsub} -b y -o /dev/null '
              f'-e /dev/null /bin/true >/dev/null || exit 1; done; echo "$t0 $EPOCHREALTIME"')
    ours = None
    try:
        wait_empty(client, sz.timeout)
        done = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True,
                              timeout=sz.timeout, cwd="/tmp")
        if done.returncode:
            raise RuntimeError(f"the loop failed: {done.stderr.strip()[-300:]}")
        t0, t1 = (float(x) for x in done.stdout.split()[-2:])
        end = wait_empty(client, sz.timeout)
        ours = (end - t0, t1 - t0)
    except Exception as err:  # noqa: BLE001
        rep.failed(figure, err)
    ge = _peer(rep, "GE shell loop", lambda: peers.sge_loop_drain(n)) if ps.ge else None
    slurm = _peer(rep, "Slurm shell loop", lambda: peers.slurm_loop_drain(n)) if ps.slurm \
        else None
    scale = n / 500

    def fmt(pair: tuple[float, float]) -> str:
        return f"{secs(pair[0])}, loop {secs(pair[1])}"

    ge_pair = ge or (fallback("loop_drain", "ge")[0] * scale,
                     fallback("loop_only", "ge")[0] * scale)
    sl_pair = slurm or (fallback("loop_drain", "slurm")[0] * scale,
                        fallback("loop_only", "slurm")[0] * scale)
    if ours is not None:
        goal = f"≤ {secs(ge_pair[0] / 20)} (GE/20), ≤ {secs(sl_pair[0] / 15)} (Slurm/15)"
        ratio = f"{fmt(ours)} ({ge_pair[0] / ours[0]:.1f}× faster than GE, " \
                f"{sl_pair[0] / ours[0]:.1f}× than Slurm)"
        rep.row(figure, ratio, goal,
                f"{fmt(ge_pair)} [{'live' if ge else 'R'}]",
                f"{fmt(sl_pair)} [{'live' if slurm else 'R'}]")
        if scale != 1 and (not ge or not slurm):
            rep.note(f"RESULTS.md drain figures are for 500 jobs; scaled to {n} here")


def _array_drain(rep: Report, sz: Sizes, ps: PeerSet, client: Client,
                 env: dict[str, str]) -> None:
    n = sz.array_tasks
    figure = f"one {n}-task array (`qsub -t`), submit to all done"
    ours = None
    try:
        wait_empty(client, sz.timeout)
        start = time.time()
        run_cmd("qsub", ["-t", f"1-{n}", "-b", "y", "-o", "/dev/null", "-e", "/dev/null",
                             "/bin/true"], env, sz.timeout)
        ours = wait_empty(client, sz.timeout) - start
    except Exception as err:  # noqa: BLE001
        rep.failed(figure, err)
    ge = _peer(rep, "GE array drain", lambda: _after(peers.sge_idle, peers.sge_drain, n)) \
        if ps.ge else None
    slurm = _peer(rep, "Slurm array drain",
                  lambda: _after(peers.slurm_idle, peers.slurm_drain, n)) if ps.slurm else None
    scale = n / 500
    if ours is not None:
        rep.row(figure, secs(ours), "",
                peer_cell(ge if ge else fallback("array_drain", "ge")[0] * scale, bool(ge),
                          secs),
                peer_cell(slurm if slurm else fallback("array_drain", "slurm")[0] * scale,
                          bool(slurm), secs))


def _after(first: Callable[[], None], then: Callable[[int], Any], n: int) -> Any:
    first()
    return then(n)


def _latency(rep: Report, sz: Sizes, ps: PeerSet, local: LocalCell, client: Client) -> None:
    figure = "submit to running, p50 / p90"
    ours = None
    try:
        wait_empty(client, sz.timeout)
        watch = EventWatch(local.cell)
        try:
            ours = latency_samples(client, watch, sz.latency_samples)
        finally:
            watch.close()
    except Exception as err:  # noqa: BLE001
        rep.failed(figure, err)
    n = min(sz.latency_samples, 20)
    ge = _peer(rep, "GE latency", lambda: peers.sge_latency(n)) if ps.ge else None
    slurm = _peer(rep, "Slurm latency", lambda: peers.slurm_latency(n)) if ps.slurm else None

    def fmt(pair: tuple[float, float]) -> str:
        return f"{pair[0] * 1000:.0f} / {pair[1] * 1000:.0f} ms"

    def pair(times: list[float]) -> tuple[float, float]:
        return statistics.median(times), percentile(times, 0.9)

    if ours is not None:
        rep.row(f"{figure} ({len(ours)} samples)", fmt(pair(ours)), "",
                peer_cell(pair(ge) if ge else fallback("latency", "ge")[0], bool(ge), fmt,
                          fallback("latency", "ge")[1]),
                peer_cell(pair(slurm) if slurm else fallback("latency", "slurm")[0],
                          bool(slurm), fmt, fallback("latency", "slurm")[1]))
        if ge or slurm:
            rep.note("submit to running: ours from the event stream (library submit); the "
                     f"peers' from their command's start to the first qstat/squeue poll "
                     f"(every 20 ms) that shows the job running ({n} samples, `sleep 1` jobs)")


def _drain_rates(rep: Report, sz: Sizes, client: Client) -> None:
    n = sz.rate_jobs
    figure = f"drain rate: one {n}-task array vs {n} single jobs"
    try:
        wait_empty(client, sz.timeout)
        start = time.time()
        client.submit([true_job(array=(1, n, 1))])
        array_rate = n / (wait_empty(client, sz.timeout) - start)
        start = time.time()
        client.submit([true_job() for _ in range(n)])
        single_rate = n / (wait_empty(client, sz.timeout) - start)
        rep.row(figure, f"{array_rate:.0f} vs {single_rate:.0f} jobs/s "
                        f"({array_rate / single_rate:.2f}×)", "array = single jobs/s")
    except Exception as err:  # noqa: BLE001
        rep.failed(figure, err, "array = single jobs/s")


# ---- 3. arrays ----------------------------------------------------------------------------

def section_arrays(rep: Report, sz: Sizes, ps: PeerSet, local: LocalCell,
                   client: Client) -> None:
    n = sz.big_array
    env = cmd_env(local)
    pid = qmaster_pid(local)
    ge: dict[str, float] | None = None
    if ps.ge:
        with peers.sge_fast_scheduler():
            ge = _peer(rep, f"GE {n}-task array",
                       lambda: peers.sge_big_array(n, sz.sleep_seconds, sz.timeout))
    ge_live = ge is not None
    slurm_na = "— (Slurm: MaxArraySize 1001)"

    def ge_cell(key: str, fmt: Callable[[float], str]) -> str:
        return f"{fmt(ge[key])} [live]" if ge and key in ge else "—"

    job_id = None
    before = rss_kib(pid)
    figure = f"`qsub -h -t 1-{n} -b y /bin/true`: submit time"
    try:
        elapsed, done = run_cmd("qsub", ["-terse", "-h", "-t", f"1-{n}", "-b", "y", "-o",
                                         "/dev/null", "-e", "/dev/null", "/bin/true"],
                                env, sz.timeout)
        job_id = int(done.stdout.strip().split(".")[0])
        rep.row(figure, ms(elapsed), "< 50 ms", ge_cell("submit", ms), slurm_na)
    except Exception as err:  # noqa: BLE001
        rep.failed(figure, err, "< 50 ms")
    if job_id is not None:
        time.sleep(1.0)
        submitted = rss_kib(pid)
        figure = "  `qstat` lines it shows"
        try:
            _, listed = run_cmd("qstat", [], env, sz.timeout)
            lines = listed.stdout.splitlines()
            rep.row(figure, f"{max(0, len(lines) - 2)} (+2 header lines)", "1",
                    ge_cell("qstat_lines", lambda v: f"{max(0, int(v) - 2)} (+2 header lines)"),
                    slurm_na)
        except Exception as err:  # noqa: BLE001
            rep.failed(figure, err, "1")
        figure = "  qmaster RSS growth while it is pending"
        time.sleep(0.5)
        after = rss_kib(pid)
        rep.row(figure, f"{mib(submitted - before)} ({mib(before)} → {mib(submitted)}; "
                        f"{mib(after)} after a qstat)", "< 5 MB",
                ge_cell("rss_growth_kib", mib), slurm_na)
        figure = "  `qdel` while pending"
        try:
            start = time.time()
            elapsed, _ = run_cmd("qdel", [str(job_id)], env, sz.timeout)
            gone = wait_empty(client, sz.timeout, [job_id], interval=0.1) - start
            rep.row(figure, f"{ms(elapsed)} (gone from qstat after {ms(gone)})",
                    "well under 1 s", ge_cell("qdel_pending", ms), slurm_na)
        except Exception as err:  # noqa: BLE001
            rep.failed(figure, err, "well under 1 s")
    _partly_running(rep, sz, local, client, env, ge_cell, slurm_na)
    if ge_live:
        rep.note(f"Grid Engine's {n}-task array: the same commands as the submit user, "
                 f"qstat -u USER, its qmaster's RSS")


def _partly_running(rep: Report, sz: Sizes, local: LocalCell, client: Client,
                    env: dict[str, str], ge_cell: Callable[..., str], slurm_na: str) -> None:
    n = sz.big_array
    figure = f"  `qdel` while partly running (`sleep {sz.sleep_seconds}` tasks, after qrls)"
    try:
        wait_empty(client, sz.timeout, interval=0.2)
        _, done = run_cmd("qsub", ["-terse", "-h", "-t", f"1-{n}", "-b", "y", "-o",
                                   "/dev/null", "-e", "/dev/null", "/bin/sleep",
                                   str(sz.sleep_seconds)], env, sz.timeout)
        job_id = int(done.stdout.strip().split(".")[0])
        watch = EventWatch(local.cell)
        try:
            released, _ = run_cmd("qrls", [str(job_id)], env, sz.timeout)
            watch.wait_state(job_id, "running", timeout=sz.timeout)
        finally:
            watch.close()
        time.sleep(0.5)  # the other slots fill
        running = sum(1 for t in client.jobs([job_id])["tasks"] if t.get("state") == "running")
        start = time.time()
        elapsed, _ = run_cmd("qdel", [str(job_id)], env, sz.timeout)
        gone = wait_empty(client, sz.timeout, [job_id], interval=0.1) - start
        rep.row(figure, f"{ms(elapsed)} ({running} running; all gone {secs(gone)}; qrls "
                        f"{ms(released)})", "well under 1 s", ge_cell("qdel_running", ms),
                slurm_na)
    except Exception as err:  # noqa: BLE001
        rep.failed(figure, err, "well under 1 s")


# ---- 4. scale -----------------------------------------------------------------------------

@dataclass
class FakeHosts:
    proc: subprocess.Popen[str]
    log: Path
    lines: list[str] = field(default_factory=list)

    def start_reader(self) -> None:
        def read() -> None:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                self.lines.append(line.rstrip())
        threading.Thread(target=read, daemon=True).start()

    def registered(self) -> bool:
        return any("hosts registered" in line for line in self.lines)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


def start_fake_hosts(local: LocalCell, hosts: int) -> FakeHosts:
    log = local.run_dir / "fake_execds.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.bench.fake_execds", "--root", str(local.cell.root),
         "--cell", local.cell.name, "--hosts", str(hosts), "--add-hosts", "--slots", "4",
         "--log-file", str(log), "--status-every", "30"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, cwd=str(TOP))
    fake = FakeHosts(proc, log)
    fake.start_reader()
    return fake


def section_scale(rep: Report, sz: Sizes, local: LocalCell, client: Client) -> None:
    env = cmd_env(local)
    hosts, jobs, tasks = sz.scale_hosts, sz.scale_jobs, sz.scale_tasks
    rep.note(f"scale cell: {hosts} simulated execds (tests/bench/fake_execds.py, 4 slots "
             f"each, load reports at the qmaster's load_report_time), {jobs:,} jobs and "
             f"{tasks:,} array tasks kept pending by `-l mem_free=1000G..1049G` (50 "
             "request sets no host satisfies: the scheduler considers them in every pass; "
             "held jobs it would not)")
    run_cmd("qmod", ["-d", f"all.q@{machine_name()}"], env, sz.timeout)
    fake = start_fake_hosts(local, hosts)
    try:
        _scale(rep, sz, local, client, env, fake)
    finally:
        fake.stop()
        rep.details.append("fake_execds: " + " / ".join(fake.lines[-2:]))


def _scale(rep: Report, sz: Sizes, local: LocalCell, client: Client, env: dict[str, str],
           fake: FakeHosts) -> None:
    hosts, jobs, tasks = sz.scale_hosts, sz.scale_jobs, sz.scale_tasks
    start = time.monotonic()
    deadline = start + sz.timeout
    while not fake.registered():
        if fake.proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("the simulated execds did not register: "
                               + " / ".join(fake.lines[-3:]))
        time.sleep(0.2)
    alive = sum(1 for h in client.cluster()["hosts"] if h["alive"])
    rep.row(f"scale: {hosts} simulated execds registered", secs(time.monotonic() - start),
            "", "—", "—")
    if alive < hosts:
        rep.note(f"only {alive} hosts alive after registration")
    pid = qmaster_pid(local)
    idle = rss_kib(pid)
    window = 5.0 if sz.probes < 5 else 15.0
    used, simulator = cpu_seconds(pid), cpu_seconds(fake.proc.pid)
    time.sleep(window)
    rep.row(f"scale: qmaster CPU with {hosts} idle execds (pings every 2 s, load reports)",
            f"{(cpu_seconds(pid) - used) / window * 100:.0f} % of a core (the simulator: "
            f"{(cpu_seconds(fake.proc.pid) - simulator) / window * 100:.0f} %; over "
            f"{window:.0f} s)")
    # the pending work
    submitted_jobs = submitted_tasks = 0
    figure = f"scale: submit {jobs:,} jobs in bulk (clients.api, 5,000 a request)"
    try:
        start = time.monotonic()
        for first in range(0, jobs, 5000):
            count = min(5000, jobs - first)
            client.submit([_pending_job(first + i) for i in range(count)])
            submitted_jobs += count
        rep.row(figure, f"{secs(time.monotonic() - start)} "
                        f"({submitted_jobs / (time.monotonic() - start):,.0f} jobs/s)")
    except Exception as err:  # noqa: BLE001
        rep.failed(figure, err)
    per_array = _max_aj_tasks(client)
    arrays = math.ceil(tasks / per_array) if per_array else 1
    figure = f"scale: submit {tasks:,} array tasks ({arrays} arrays of ≤ {per_array:,})"
    try:
        start = time.monotonic()
        for i in range(arrays):
            count = min(per_array, tasks - submitted_tasks)
            client.submit([_pending_job(i, array=(1, count, 1))])
            submitted_tasks += count
            if rss_kib(pid) > 12 * 1024 * 1024:  # KiB: 12 GiB
                rep.note(f"stopped submitting arrays at {submitted_tasks:,} tasks: qmaster "
                         f"RSS {mib(rss_kib(pid))}")
                break
        rep.row(figure, ms(time.monotonic() - start))
    except Exception as err:  # noqa: BLE001
        rep.failed(figure, err)
    pending = f"{submitted_jobs:,} jobs + {submitted_tasks:,} tasks pending"
    time.sleep(2.0)
    rep.row(f"scale: qmaster RSS with {pending}",
            f"{mib(rss_kib(pid))} (idle with {hosts} hosts: {mib(idle)})", "< 1 GiB")
    _snapshot(rep, sz, local)
    _qstat_user(rep, sz, local, env)
    _pass_time(rep, sz, local, client)
    _restart(rep, sz, local)
    _large_requests(rep, sz, local, env)


class PingWatch:
    """Another user's view while a large request runs: a ping every 10 ms on a
    connection of its own, and the longest wait for an answer."""

    def __init__(self, cell: Cell) -> None:
        self.cell, self.longest, self.count = cell, 0.0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> PingWatch:
        self._thread.start()
        return self

    def __exit__(self, *_: Any) -> None:
        self._stop.set()
        self._thread.join(timeout=30)

    def _run(self) -> None:
        with Client(self.cell, timeout=60) as client:
            while not self._stop.is_set():
                start = time.perf_counter()
                client.request("ping", {})
                self.longest = max(self.longest, time.perf_counter() - start)
                self.count += 1
                self._stop.wait(0.01)


def _large_requests(rep: Report, sz: Sizes, local: LocalCell, env: dict[str, str]) -> None:
    """A listing of every job and the deletion of the bulk user's jobs through the
    commands, each with the longest a ping of another connection waited meanwhile (the
    qmaster answers such requests in parts: no part may hold up the rest for long)."""
    goal = "other requests answered within 1 s"
    figure = "scale: `qstat` of every job (through the command); longest ping meanwhile"
    try:
        with PingWatch(local.cell) as watch:
            took, done = run_cmd("qstat", [], env, sz.timeout)
        lines = max(0, len(done.stdout.splitlines()) - 2)
        rep.row(figure, f"{secs(took)}, {lines:,} lines; longest ping {ms(watch.longest)} "
                        f"({watch.count} pings)", goal)
    except Exception as err:  # noqa: BLE001
        rep.failed(figure, err, goal)
    user = pwd.getpwuid(os.getuid()).pw_name
    figure = f"scale: `qdel -u {user}` of the bulk jobs and arrays; longest ping meanwhile"
    try:
        with PingWatch(local.cell) as watch:
            took, done = run_cmd("qdel", ["-u", user], env, sz.timeout)
        lines = len(done.stdout.splitlines())
        rep.row(figure, f"{secs(took)}, {lines:,} lines; longest ping {ms(watch.longest)} "
                        f"({watch.count} pings)", goal)
    except Exception as err:  # noqa: BLE001
        rep.failed(figure, err, goal)


def _pending_job(i: int, array: tuple[int, int, int] | None = None) -> dict[str, Any]:
    opts: dict[str, Any] = {"hard_resources": {"mem_free": f"{1000 + i % 50}G"},
                            "job_name": "pending"}
    if array:
        opts["array"] = array
    return job_request("/bin/true", binary=True, **QUIET, **opts)


def _max_aj_tasks(client: Client) -> int:
    try:
        conf = client.conf_get("conf").get("global") or []
        value = dict(map(tuple, conf)).get("max_aj_tasks", "75000")
        return int(value) or 75000
    except (ClientError, ValueError, TypeError):
        return 75000


def _snapshot(rep: Report, sz: Sizes, local: LocalCell) -> None:
    figure = "scale: snapshot (scheduler's key): parts, total, largest part"
    try:
        parts, seconds = fetch_snapshot(local.cell, sz.timeout)
        total, largest = sum(parts), max(parts)
        rep.row(figure, f"{len(parts)} parts, {total / MiB:.1f} MiB, largest "
                        f"{largest / MiB:.2f} MiB, {secs(seconds)}",
                f"bounded parts (frame limit {FRAME_LIMIT // MiB} MiB)")
    except Exception as err:  # noqa: BLE001
        rep.failed(figure, err, f"bounded parts (frame limit {FRAME_LIMIT // MiB} MiB)")


def fetch_snapshot(cell: Cell, timeout: float) -> tuple[list[int], float]:
    """The sizes of the snapshot's parts, fetched as the scheduler does (its key; the
    next part ``after`` the ``next`` each part names), and the time it took."""
    import msgpack
    import zmq

    from common import keys, wire
    from common.cell import read_act_qmaster
    host, port, _ = read_act_qmaster(cell)
    ctx = zmq.Context()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    keys.secure_client(sock, keys.daemon_keys(keys.secret_path(cell, keys.SCHEDULER),
                                              keys.qmaster_public_path(cell)))
    sock.connect(f"tcp://{host}:{port}")
    sizes: list[int] = []
    start = time.perf_counter()
    deadline = time.monotonic() + timeout
    try:
        after: Any = None
        for rid in range(1, 1 << 20):
            sock.send(wire.encode("snapshot", {} if after is None else {"after": after}, rid))
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or not sock.poll(left * 1000):
                    raise TimeoutError(f"no answer to snapshot part {len(sizes) + 1} after "
                                       f"{timeout:.0f} s")
                frame = sock.recv()
                msg = msgpack.unpackb(frame, raw=False, strict_map_key=False)
                if msg.get("id") == rid:
                    break
            if msg.get("t") == "error":
                raise RuntimeError(f"snapshot part {len(sizes) + 1} refused: "
                                   f"{msg['b'].get('message')}")
            sizes.append(len(frame))
            after = msg["b"].get("next")
            if after is None:
                break
    finally:
        sock.close(0)
        ctx.term()
    return sizes, time.perf_counter() - start


def _few_jobs_user() -> str | None:
    """An account other than ours that can own a few jobs (root only), else None."""
    if os.getuid() != 0:
        return None
    for name in (os.environ.get("SGE_ORACLE_USER", "sgeuser"), "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    return None


def submit_as(user: str, cell: Cell, count: int) -> list[int]:
    """``count`` held jobs submitted by ``user`` (we are root): a forked child takes the
    user's ids, so the qmaster knows it as that user (the kernel says who connects)."""
    pw = pwd.getpwnam(user)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 1
        try:
            os.close(read_end)
            os.setgroups([])
            os.setgid(pw.pw_gid)
            os.setuid(pw.pw_uid)
            os.environ.update(HOME=pw.pw_dir, USER=user, LOGNAME=user)
            os.chdir("/tmp")
            with Client(cell, timeout=120) as c:
                ids = c.submit([job_request("/bin/true", binary=True, hold=True,
                                            job_name="few", **QUIET) for _ in range(count)])
            os.write(write_end, json.dumps({"ids": ids}).encode())
            code = 0
        except BaseException as err:  # noqa: BLE001 - reported to the parent
            with contextlib.suppress(OSError):
                os.write(write_end, json.dumps({"error": _why(err)}).encode())
        finally:
            os._exit(code)
    os.close(write_end)
    chunks = []
    while chunk := os.read(read_end, 65536):
        chunks.append(chunk)
    os.close(read_end)
    os.waitpid(pid, 0)
    data = json.loads(b"".join(chunks) or b'{"error": "no answer"}')
    if "error" in data:
        raise RuntimeError(f"submitting as {user}: {data['error']}")
    return [int(j) for j in data["ids"]]


def _qstat_user(rep: Report, sz: Sizes, local: LocalCell, env: dict[str, str]) -> None:
    user = _few_jobs_user()
    few = 0
    figure = f"scale: `qstat -u {user or 'nobody'}`, a user with few jobs (median of 5)"
    try:
        if user is not None:
            few = len(submit_as(user, local.cell, 3))
        else:
            user = "nobody"
        _, listed = run_cmd("qstat", ["-u", user], env, sz.timeout)
        shown = max(0, len(listed.stdout.splitlines()) - 2)
        times = peers.timed_runs(cmd("qstat") + ["-u", user], 5, env=env,
                                 timeout=sz.timeout)
        rep.row(figure, f"{ms(statistics.median(times))} "
                f"({few} jobs, {shown} lines)", "< 200 ms")
    except Exception as err:  # noqa: BLE001
        rep.failed(figure, err, "< 200 ms")


def _pass_time(rep: Report, sz: Sizes, local: LocalCell, client: Client) -> None:
    """Probe jobs, one at a time: from the submit to the scheduler's ``pass`` log line
    that ordered it (the pass over everything pending, plus the event on its way and the
    orders' answer); the line's ``seconds`` when the scheduler logs the pass's own time."""
    figure = "scale: dispatch pass (a probe job: submit → `pass` log line)"
    path = local.run_dir / "scheduler.log"
    latencies, seconds, considered = [], [], []
    try:
        for _ in range(sz.probes):
            _, offset = log_lines(path)
            start = time.time()
            [job_id] = client.submit([true_job(job_name="probe")])
            deadline = time.monotonic() + sz.timeout
            found = None
            while found is None:
                records, offset = log_lines(path, offset)
                found = next((r for r in records if r.get("event") == "pass"
                              and int(r.get("orders", "0") or 0) > 0), None)
                if found is None:
                    if time.monotonic() > deadline:
                        raise TimeoutError(f"no dispatching pass in {sz.timeout:.0f} s")
                    time.sleep(0.02)
            latencies.append(log_time(found) - start)
            if "seconds" in found:
                seconds.append(float(found["seconds"]))
            considered.append(found.get("considered", "?"))
            wait_empty(client, sz.timeout, [job_id], interval=0.05)
        text = f"{ms(statistics.median(latencies))} median, {ms(min(latencies))} min"
        if seconds:
            text = f"{ms(statistics.median(seconds))} (log seconds=); probe {text}"
        else:
            text = f"probe {text} (no seconds= in the log line)"
        rep.row(figure, f"{text}; considered {considered[-1]}", "< 1 s")
    except Exception as err:  # noqa: BLE001
        rep.failed(figure, err, "< 1 s")


def _restart(rep: Report, sz: Sizes, local: LocalCell) -> None:
    """Stop the qmaster (SIGTERM, by its pid), start it again (``pyge up``: only what is
    not running), and time until it answers a request and until the scheduler logs
    ``mirror built`` again."""
    figure = "scale: qmaster restart from its spool until it answers"
    sched_log = local.run_dir / "scheduler.log"
    try:
        pid = qmaster_pid(local)
        start = time.monotonic()
        os.kill(pid, signal.SIGTERM)
        if not _wait_dead(pid, 60):
            os.kill(pid, signal.SIGKILL)
            _wait_dead(pid, 10)
            rep.note("the qmaster did not stop within 60 s of SIGTERM; killed")
        stopped = time.monotonic() - start
        _, offset = log_lines(sched_log)
        failure: list[BaseException] = []

        def up() -> None:
            try:
                local.up()
            except BaseException as err:  # noqa: BLE001 - SystemExit when it is slow
                failure.append(err)

        t0_wall, t0 = time.time(), time.monotonic()
        thread = threading.Thread(target=up, daemon=True)
        thread.start()
        answered = None
        deadline = t0 + sz.timeout
        while answered is None and time.monotonic() < deadline:
            try:
                with Client(local.cell, timeout=0.5) as c:
                    c.request("ping", {})
                answered = time.monotonic() - t0
            except (ClientError, OSError):
                time.sleep(0.05)
        if answered is None:
            raise TimeoutError(f"the qmaster did not answer within {sz.timeout:.0f} s")
        mirror = None
        parts = "?"
        while mirror is None and time.monotonic() < deadline:
            records, offset = log_lines(sched_log, offset)
            built = next((r for r in records if r.get("event") == "mirror built"
                          and log_time(r) >= t0_wall), None)
            if built is not None:
                mirror, parts = log_time(built) - t0_wall, built.get("parts", "?")
            else:
                time.sleep(0.1)
        thread.join(timeout=60)
        rep.row(figure, f"{secs(answered)} (stop took {secs(stopped)})", "< 5 s")
        rep.row("scale: … until the scheduler has its mirror again",
                f"{secs(mirror)} ({parts} parts)" if mirror is not None else
                f"not within {sz.timeout:.0f} s", "")
        if failure:
            rep.note(f"pyge up after the restart: {_why(failure[0])}")
        rep.row("scale: qmaster RSS after the restart", mib(rss_kib(qmaster_pid(local))),
                "< 1 GiB")
    except Exception as err:  # noqa: BLE001
        rep.failed(figure, err, "< 5 s")


def _wait_dead(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.05)
    return False


# ---- the run ------------------------------------------------------------------------------

def run(args: argparse.Namespace) -> Report:
    sz = Sizes.quick() if args.quick else Sizes()
    for name in ("scale_jobs", "scale_tasks", "scale_hosts"):
        if getattr(args, name) is not None:
            setattr(sz, name, getattr(args, name))
    raise_fd_limit()  # the cells' daemons inherit it (a qmaster with 1000 execd connections)
    rep = Report()
    ps = PeerSet(args.skip_peers)
    rep.live = {"ge": ps.ge, "slurm": ps.slurm, "skipped": args.skip_peers}
    head = subprocess.run(["git", "-C", str(TOP), "log", "-1", "--oneline"],
                          capture_output=True, text=True).stdout.strip() or "unknown"
    dirty = subprocess.run(["git", "-C", str(TOP), "status", "--porcelain",
                            "--untracked-files=no"], capture_output=True, text=True
                           ).stdout.strip()
    workdir = Path(tempfile.mkdtemp(prefix="pyge-bench-install-"))
    os.chmod(workdir, 0o755)
    try:
        if not args.installed:
            why = Commands.plain_install(workdir)
            if why:
                rep.note(why)
        _run_sections(rep, sz, ps, args, head, dirty)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return rep


def _run_sections(rep: Report, sz: Sizes, ps: PeerSet, args: argparse.Namespace,
                  head: str, dirty: str) -> None:
    print(f"pygridengine issue-12 benchmark, {os.cpu_count()} CPUs, user {user_name()}, "
          f"{'quick' if args.quick else 'full'} sizes; commit {head}"
          f"{' + uncommitted changes' if dirty else ''}", flush=True)
    print(f"commands under test: {Commands.label} ({cmd('qsub')[0]})", flush=True)
    print(f"peers: Grid Engine {'running (live)' if ps.ge else 'not measured'}, Slurm "
          f"{'running (live)' if ps.slurm else 'not measured'}", flush=True)
    sections: list[tuple[str, Callable[[], None]]] = []

    def commands_and_drain() -> None:
        with fresh_cell("commands", rep) as local, Client(local.cell, timeout=120) as client:
            print("[1] commands", flush=True)
            section_commands(rep, sz, ps, local, client)
            print("[2] drain", flush=True)
            section_drain(rep, sz, ps, local, client)

    def arrays() -> None:
        with fresh_cell("arrays", rep) as local, Client(local.cell, timeout=300) as client:
            print("[3] arrays", flush=True)
            section_arrays(rep, sz, ps, local, client)

    def scale() -> None:
        root = Path(tempfile.mkdtemp(prefix="pyge-bench-scale-"))
        os.chmod(root, 0o755)
        local = LocalCell(Cell(root))
        try:
            local.up(execds=1, slots=4, port=0)
            with Client(local.cell, timeout=max(120, sz.timeout)) as client:
                print("[4] scale", flush=True)
                section_scale(rep, sz, local, client)
        finally:  # no job runs on a real host here: nothing to end first
            local.down()
            shutil.rmtree(root, ignore_errors=True)

    sections = [("commands and drain", commands_and_drain), ("arrays", arrays),
                ("scale", scale)]
    wanted = set(args.sections.split(",")) if args.sections else None
    for name, section in sections:
        if wanted is not None and not wanted & set(name.split(" and ")):
            continue
        try:
            section()
        except Exception as err:  # noqa: BLE001 - the next section runs all the same
            rep.failed(f"section {name}", err)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Every figure of issue 12, for pygridengine "
                                "and (when they run here) Grid Engine 8.1.9 and Slurm 22.05.")
    p.add_argument("--quick", action="store_true", help="small sizes, to check the harness")
    p.add_argument("--skip-peers", action="store_true",
                   help="never measure Grid Engine or Slurm (RESULTS.md figures only)")
    p.add_argument("--installed", action="store_true",
                   help="time this environment's console scripts instead of a plain "
                        "installation made for the run")
    p.add_argument("--sections", default="",
                   help="only these sections, comma-separated: commands, drain, arrays, "
                        "scale (commands and drain share a cell and run together)")
    p.add_argument("--scale-jobs", type=int, default=None, help="pending jobs (100000)")
    p.add_argument("--scale-tasks", type=int, default=None, help="pending array tasks "
                                                                 "(1000000)")
    p.add_argument("--scale-hosts", type=int, default=None, help="simulated execds (1000)")
    report = run(p.parse_args(argv))
    report.print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
