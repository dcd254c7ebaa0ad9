"""The processes of a job, found and measured through ``/proc``.

setrlimit bounds each process alone; Grid Engine's ``h_vmem``/``h_cpu`` bound the job, so
the shepherd measures the job's whole tree: every descendant of the job's first process,
every process of its session, and every orphan the shepherd inherited. The shepherd is a
child subreaper (prctl(2) PR_SET_CHILD_SUBREAPER): a process that double-forks and
leaves the session is re-parented to the shepherd, not to init, and so stays in the tree
and is ended with the job.

``tree`` and ``usage`` are pure (they take a process table); ``process_table`` reads one.
"""
from __future__ import annotations

import ctypes
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

PR_SET_CHILD_SUBREAPER = 36
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True, slots=True)
class Proc:
    pid: int
    ppid: int
    pgid: int
    sid: int
    state: str
    cpu: float   # seconds: own user+system time and that of children it reaped
    vmem: int    # bytes of virtual memory
    rss: int     # bytes resident
    io: int = 0  # bytes read and written (0 when /proc/<pid>/io is not readable)


def become_subreaper() -> bool:
    """Make this process the reaper of its descendants' orphans; False where impossible."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _stat(pid: int) -> Proc | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read().decode(errors="replace")
    except OSError:
        return None
    end = data.rfind(")")
    fields = data[end + 2:].split()
    if len(fields) < 22:
        return None
    ticks = sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
    return Proc(pid=pid, ppid=int(fields[1]), pgid=int(fields[2]), sid=int(fields[3]),
                state=fields[0],
                cpu=ticks / CLOCK_TICKS, vmem=int(fields[20]), rss=int(fields[21]) * PAGE_SIZE)


def _io_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/io", "rb") as f:
            values = dict(line.split(b":", 1) for line in f.read().splitlines() if b":" in line)
        return int(values.get(b"rchar", b"0")) + int(values.get(b"wchar", b"0"))
    except (OSError, ValueError):
        return 0


def with_io(table: Mapping[int, Proc], pids: Iterable[int]) -> dict[int, Proc]:
    """``table`` with the I/O counters of ``pids`` read (only those: every process's
    ``/proc/<pid>/io`` twice a second per job would cost more than the rest)."""
    out = dict(table)
    for pid in pids:
        if pid in out:
            out[pid] = replace(out[pid], io=_io_bytes(pid))
    return out


def process_table() -> dict[int, Proc]:
    """Every process of the host now (without I/O counters, see ``with_io``)."""
    return processes(int(name) for name in os.listdir("/proc") if name.isdigit())


def processes(pids: Iterable[int]) -> dict[int, Proc]:
    """The table of ``pids`` alone (those still there): what a job's cgroup holds costs
    a read per process of the job, not one per process of the host."""
    table = {}
    for pid in pids:
        proc = _stat(pid)
        if proc is not None:
            table[proc.pid] = proc
    return table


def children(pid: int) -> list[int] | None:
    """The children of ``pid`` (a single-threaded process) from
    ``/proc/<pid>/task/<pid>/children``; None where the kernel has no such file
    (CONFIG_PROC_CHILDREN): the caller then reads the whole table."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children", "rb") as f:
            return [int(p) for p in f.read().split()]
    except (OSError, ValueError):
        return None


def tree(table: Mapping[int, Proc], root: int, reaper: int,
         exclude: Iterable[int] = ()) -> set[int]:
    """The job's pids: ``root``'s session and descendants, and the orphans of ``reaper``
    (the shepherd) other than ``exclude`` (its methods, prolog, epilog) and theirs."""
    excluded = set(exclude)
    children: dict[int, list[int]] = {}
    for proc in table.values():
        children.setdefault(proc.ppid, []).append(proc.pid)
    seeds = {root} | {p.pid for p in table.values() if p.sid == root}
    if reaper > 1:  # init and the kernel's threads are nobody's job
        seeds |= {pid for pid in children.get(reaper, []) if pid not in excluded}
    found: set[int] = set()
    stack = [pid for pid in seeds if pid in table and pid != reaper]
    while stack:
        pid = stack.pop()
        if pid in found or pid in excluded:
            continue
        found.add(pid)
        stack.extend(children.get(pid, []))
    return found


@dataclass(frozen=True, slots=True)
class Usage:
    cpu: float
    vmem: int
    rss: int
    io: int


def usage(table: Mapping[int, Proc], pids: Iterable[int]) -> Usage:
    """The summed usage of ``pids`` (zombies hold no memory)."""
    procs = [table[p] for p in pids if p in table]
    live = [p for p in procs if p.state not in ("Z", "X")]
    return Usage(cpu=sum(p.cpu for p in procs), vmem=sum(p.vmem for p in live),
                 rss=sum(p.rss for p in live), io=sum(p.io for p in procs))
