"""Benchmark of issue 26's bounded cost per request: another user's ``qstat`` while one
user attacks the qmaster in a loop. Prints figures, asserts nothing.

    python3 -m tests.bench.bench_attack [--seconds 20] [--pending 500]

A fresh local cell (one execd; ``deploy.cell.LocalCell``, free ports; stopped and removed
after). The victim (as root: another user, tests/identity.py; else ourselves) has
``--pending`` held jobs and a held 75,000-task array. The attacker (as root: a third
user; else ourselves), in a process of its own (tests/hostile.py), sends in a loop the
worst request of each kind the issue found, each waiting for its answers:

- a hold naming 400 repeated task ranges of the victim's 75,000-task array;
- five 8 MB frames of empty lists (a wait) and one such submit;
- 2000 waits on one held job of its own (past the per-user cap after the first round);
- ``qhold -t 2-75000`` and ``qrls -t 2-75000`` of its own 75,000-task array;
- a submit of a 5 MiB script.

Meanwhile an observer (ourselves: another user than the attacker as root) lists the jobs
as ``qstat`` asks for them (``Client.jobs(ranges=True, brief=True)``: the request and its
answer, without the command's start-up) every 10 ms; its latency p50/p99/max is printed
beside the goal of 100 ms, first on the quiet cell, then under attack, with the attacker's
rounds and the qmaster's peak memory.
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from clients.api import Client, job_request
from common.cell import Cell
from deploy.cell import LocalCell

GOAL_MS = 100.0
QUIET = {"stdout_paths": ["/dev/null"], "stderr_paths": ["/dev/null"]}


def users() -> tuple[str | None, str | None]:
    """(attacker, victim): two other users as root, else both ourselves (None)."""
    if os.geteuid() != 0:
        return None, None
    from tests.identity import _existing_others
    names = _existing_others()
    return (names[0], names[1]) if len(names) >= 2 else (None, None)


def attack_loop(root: str, attacker: str | None, target: int, stop: Any, rounds: Any,
                errors: Any, timings: Any, only: list[str]) -> None:
    """The attacker's process: the worst requests in a loop until ``stop`` is set."""
    from tests.hostile import BIG_ARRAY, Attacker
    cell = Cell(Path(root))
    hostile = Attacker(cell, attacker)
    try:
        rtype, body = hostile.submit()
        [own] = body["job_ids"]
        rtype, body = hostile.submit(array=[1, BIG_ARRAY, 1], hold=False, hold_jid=[str(own)])
        [own_big] = body["job_ids"]
        attacks = [("hold of another's array, 400 repeated ranges",
                    lambda: hostile.hold_repeated(target)),
                   ("five 8 MB frames (wait)", lambda: hostile.large_frames(5)),
                   ("one 8 MB frame (submit)", lambda: hostile.large_frames(1, "submit")),
                   ("2000 waits on one job", lambda: hostile.waits(own)),
                   ("qhold -t 2-75000 of its own array",
                    lambda: hostile.hold_tasks(own_big)),
                   ("qrls -t 2-75000 of its own array",
                    lambda: hostile.hold_tasks(own_big, add=False)),
                   ("a 5 MiB script", hostile.oversize_script)]
        if only:  # (--only: the attacks whose names hold one of these words)
            attacks = [a for a in attacks if any(w in a[0] for w in only)]
        slowest: dict[str, float] = {}
        while not stop.is_set():
            for name, attack in attacks:
                start = time.perf_counter()
                attack()
                took = time.perf_counter() - start
                slowest[name] = max(slowest.get(name, 0.0), took)
            rounds.value += 1
        for name, took in slowest.items():
            timings.put((name, took))
    except Exception as exc:  # noqa: BLE001 - reported by the parent
        errors.put(repr(exc))
    finally:
        hostile.close()


def listing_latencies(client: Client, seconds: float) -> list[float]:
    """Milliseconds of each job listing, one every 10 ms, for ``seconds``."""
    out = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        start = time.perf_counter()
        client.jobs(ranges=True, brief=True)
        out.append((time.perf_counter() - start) * 1000)
        time.sleep(0.01)
    return out


def show(label: str, value: str) -> None:
    print(f"{label:<62} {value}")


def figures(label: str, ms: list[float]) -> None:
    ordered = sorted(ms)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    show(f"qstat listing p50 / p99 / max, {label} (ms)",
         f"{statistics.median(ordered):.1f} / {p99:.1f} / {ordered[-1]:.1f}  "
         f"(n={len(ordered)}; goal p99 < {GOAL_MS:.0f})")


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def run(args: argparse.Namespace) -> None:
    root = Path(tempfile.mkdtemp(prefix="pyge-bench-attack-"))
    os.chmod(root, 0o755)
    local = LocalCell(Cell(root))
    local.up(execds=1, slots=4, port=0)
    attacker, victim_name = users()
    try:
        if victim_name is not None:
            from tests.identity import client_as
            victim: Client = client_as(local.cell, victim_name, timeout=60)
        else:
            victim = Client(local.cell, timeout=60)
        victim.submit([job_request("/bin/true", binary=True, hold=True, **QUIET)]
                      * args.pending)
        [target] = victim.submit([job_request("/bin/true", binary=True, hold=True,
                                              array=[1, 75000, 1], **QUIET)])
        qmaster = int((local.run_dir / "qmaster.pid").read_text().split()[0])
        show("attacker / victim / observer",
             f"{attacker or 'ourselves'} / {victim_name or 'ourselves'} / ourselves")
        with Client(local.cell, timeout=60) as observer:
            figures("quiet cell", listing_latencies(observer, args.seconds / 2))
            spawn = multiprocessing.get_context("spawn")
            stop, rounds, errors = spawn.Event(), spawn.Value("i", 0), spawn.Queue()
            timings = spawn.Queue()
            proc = spawn.Process(target=attack_loop, args=(str(root), attacker, target, stop,
                                                           rounds, errors, timings,
                                                           args.only))
            proc.start()
            try:
                time.sleep(1.0)  # (its start-up and first submissions)
                under = listing_latencies(observer, args.seconds)
            finally:
                stop.set()
                proc.join(120)
                if proc.is_alive():
                    proc.kill()
            figures("under attack", under)
            show("attacker's rounds (each: every attack once)", str(rounds.value))
            while not timings.empty():
                name, took = timings.get()
                show(f"  slowest answer: {name} (ms)", f"{took * 1000:.0f}")
            while not errors.empty():
                show("attacker failed", errors.get())
            show("qmaster peak RSS (MB)", f"{peak_rss_mb(qmaster):.0f}")
            show("qmaster still the same process", str(os.path.exists(f"/proc/{qmaster}")))
    finally:
        local.down()
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--pending", type=int, default=500)
    parser.add_argument("--only", type=lambda text: text.split(","), default=[],
                        help="words of the attacks to run (default: all), e.g. waits,frames")
    run(parser.parse_args())


if __name__ == "__main__":
    main()
