"""Job containment in a cgroup v2 tree, where the machine delegates one to the execd.

The execd looks for the unified (cgroup2) hierarchy and its own cgroup in it
(``/proc/self/mountinfo``, ``/proc/self/cgroup``) and makes its subtree there,
``pygridengine/<host>-<cell>``; when it may not (no cgroup2, or the directory belongs to
someone else: an ordinary user's execd without a delegated tree), jobs are followed by
their process tree alone (execd.proctree). Each job task gets a cgroup of its own in that
subtree, which its first process joins before it executes anything. The shepherd then:

- sets ``memory.max`` to the job's ``h_vmem``/``h_rss`` where the memory controller is
  available (the kernel's OOM killer ends a job over it; ``memory.events`` tells);
- lists the job's processes from ``cgroup.procs``, so that a process that left the
  job's session and tree is still watched, signalled and ended;
- reads the usage from ``cpu.stat`` (always there), ``memory.peak`` and ``io.stat``
  (with their controllers; the peak raises ``maxvmem`` where sampling missed a peak);
- kills every process left with ``cgroup.kill`` and removes the cgroup.

What is pure here (the parsers and ``memory_limit``) takes text in; the rest touches only
the cgroup file system. Every failure of it is reported as ``CgroupError`` and the caller
falls back to the process tree.
"""
from __future__ import annotations

import errno
import hashlib
import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from common import limits as limit_table

SUBTREE = "pygridengine"
# controllers the execd enables for its jobs when the hierarchy offers them
WANTED_CONTROLLERS = ("memory", "io", "pids")
EMPTY_WAIT_SECONDS = 5.0


class CgroupError(Exception):
    """The cgroup file system refused something; containment falls back."""


# ---- pure: parsers ---------------------------------------------------------------------
def cgroup2_mount(mountinfo: str) -> str | None:
    """The mount point of the cgroup2 hierarchy in a ``/proc/self/mountinfo`` text."""
    for line in mountinfo.splitlines():
        left, sep, right = line.partition(" - ")
        fields = left.split()
        if sep and right.split()[:1] == ["cgroup2"] and len(fields) >= 5:
            return fields[4].replace("\\040", " ")
    return None


def cgroup2_options(mountinfo: str) -> frozenset[str]:
    """The mount and super-block options of the cgroup2 hierarchy in a
    ``/proc/self/mountinfo`` text (empty when there is none)."""
    for line in mountinfo.splitlines():
        left, sep, right = line.partition(" - ")
        fields, more = left.split(), right.split()
        if sep and more[:1] == ["cgroup2"] and len(fields) >= 6:
            return frozenset(fields[5].split(",")) | frozenset(
                more[2].split(",") if len(more) >= 3 else ())
    return frozenset()


def slow_joins(options: frozenset[str], kernel_features: str) -> bool:
    """Whether a process joining a cgroup waits for an RCU grace period (10 to 30 ms on
    a small VM): so unless the hierarchy is mounted with ``favordynmods``, which kernels
    from 6.0 offer (``/sys/kernel/cgroup/features``). A job's first process joins its
    cgroup before it runs, so this is part of every job's start."""
    return "favordynmods" in kernel_features.split() and "favordynmods" not in options


def own_cgroup(proc_cgroup: str) -> str | None:
    """This process's path in the unified hierarchy (the ``0::`` line of
    ``/proc/self/cgroup``)."""
    for line in proc_cgroup.splitlines():
        if line.startswith("0::"):
            path = line[3:].strip()
            return path if path.startswith("/") else None
    return None


def flat_keys(text: str) -> dict[str, int]:
    """A flat-keyed cgroup file (``cpu.stat``, ``memory.events``): key -> number."""
    out = {}
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        try:
            out[key] = int(value)
        except ValueError:
            continue
    return out


def io_bytes(io_stat: str) -> int:
    """Bytes read and written by every device in an ``io.stat`` text."""
    total = 0
    for line in io_stat.splitlines():
        for item in line.split()[1:]:
            key, _, value = item.partition("=")
            if key in ("rbytes", "wbytes") and value.isdigit():
                total += int(value)
    return total


def memory_limit(limits: Mapping[str, float]) -> int | None:
    """``memory.max`` for a job's limits (bytes, as the spec carries them): the
    smallest of ``h_vmem`` and ``h_rss``; None when neither bounds it."""
    values = [int(v) for name in limit_table.MEMORY_MAX_LIMITS
              if isinstance(v := limits.get(name), (int, float))
              and 0 < v < limit_table.UNLIMITED_FROM]  # (beyond: no limit, as setrlimit's)
    return min(values) if values else None


# ---- the execd's subtree -----------------------------------------------------------------
@dataclass(frozen=True)
class Subtree:
    """The execd's cgroup subtree and the controllers its job cgroups have."""

    path: Path
    controllers: frozenset[str]
    slow_joins: bool = False  # see ``slow_joins``: the execd's log says so


def subtree_name(host: str, spool_dir: Path) -> str:
    """One name per execd of a cell, the same across its restarts (several execds of
    several cells may share a machine)."""
    digest = hashlib.sha256(str(spool_dir).encode()).hexdigest()[:10]
    return f"{host}-{digest}"


def prepare_subtree(host: str, spool_dir: Path, *, proc: Path = Path("/proc"),
                    wanted: tuple[str, ...] = WANTED_CONTROLLERS) -> Subtree:
    """Make (or find) the execd's subtree; raises CgroupError where there is none to
    have.

    A cgroup other than the root may hand controllers down only while it holds no
    process itself (cgroup v2's "no internal processes" rule). An execd in a cgroup
    delegated to it (systemd's ``Delegate=yes``) shares it with its zygote and shepherds
    only; they move to a leaf of their own, ``pygridengine/<name>.daemon``, so that the
    job cgroups can have the memory and io controllers. A cgroup that also holds other
    processes (a login session) is left as it is: jobs get cgroups without controllers."""
    try:
        mountinfo = (proc / "self/mountinfo").read_text()
        mount = cgroup2_mount(mountinfo)
        own = own_cgroup((proc / "self/cgroup").read_text())
    except OSError as exc:
        raise CgroupError(f"cannot read the process's cgroups: {exc}") from exc
    if mount is None or own is None:
        raise CgroupError("no cgroup v2 hierarchy")
    base = Path(mount) / own.lstrip("/")
    if not os.access(base, os.W_OK):
        raise CgroupError(f"cgroup {base} is not delegated to this user")
    name = subtree_name(host, spool_dir)
    levels = [base / SUBTREE, base / SUBTREE / name]
    for level in levels:
        try:
            level.mkdir(mode=0o755, exist_ok=True)
        except OSError as exc:
            raise CgroupError(f"cannot make cgroup {level}: {exc}") from exc
    if own != "/":
        _move_ours_out(base, base / SUBTREE / f"{name}.daemon")
    controllers = _enable_controllers([base] + levels, wanted)
    try:
        features = Path("/sys/kernel/cgroup/features").read_text()
    except OSError:
        features = ""
    return Subtree(levels[-1], controllers, slow_joins(cgroup2_options(mountinfo), features))


def _move_ours_out(base: Path, leaf: Path) -> None:
    """Move this process and its descendants from ``base`` into ``leaf`` when they are
    all ``base`` holds."""
    members = JobCgroup(base, ()).pids()
    ours = _descendants(os.getpid()) | {os.getpid()}
    if not members or not members <= ours:
        return
    try:
        leaf.mkdir(mode=0o755, exist_ok=True)
    except OSError:
        return
    for pid in sorted(members):
        try:
            _write(leaf / "cgroup.procs", str(pid))
        except CgroupError:
            pass  # gone meanwhile


def _descendants(root: int) -> set[int]:
    """Every process below ``root`` (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry.name))
    found, todo = set(), [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def release_subtree(subtree: Subtree) -> None:
    """Remove the execd's subtree (and the shared parent) if no job cgroup is left in
    them; a running job keeps them (as does a daemon leaf with processes in it)."""
    for level in (subtree.path, subtree.path.parent):
        try:
            os.rmdir(level)
        except OSError:
            return


def _enable_controllers(levels: list[Path], wanted: tuple[str, ...]) -> frozenset[str]:
    """Enable what we want down the path; a controller a level refuses (a cgroup with
    processes of its own may not hand domain controllers down) is dropped."""
    try:
        have = set((levels[0] / "cgroup.controllers").read_text().split())
    except OSError:
        return frozenset()
    enabled = have & set(wanted)
    for level in levels[:-1]:
        for name in sorted(enabled):
            try:
                _write(level / "cgroup.subtree_control", f"+{name}")
            except CgroupError:
                enabled.discard(name)
    return frozenset(enabled)


def _write(path: Path, text: str) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW)
    except OSError as exc:
        raise CgroupError(f"cannot open {path}: {exc}") from exc
    try:
        os.write(fd, text.encode())
    except OSError as exc:
        raise CgroupError(f"cannot write {text!r} to {path}: {exc}") from exc
    finally:
        os.close(fd)


# ---- one job's cgroup --------------------------------------------------------------------
class JobCgroup:
    """The cgroup of one job task, made by its (root or delegated) shepherd."""

    def __init__(self, path: Path, controllers: Iterable[str]) -> None:
        self.path = path
        self.controllers = frozenset(controllers)

    @classmethod
    def create(cls, subtree: Path, name: str, controllers: Iterable[str],
               limits: Mapping[str, float]) -> "JobCgroup":
        """Make the cgroup ``name`` in ``subtree`` with the job's memory limit (raises
        CgroupError, leaving nothing behind)."""
        path = subtree / name
        try:
            path.mkdir(mode=0o755)
        except FileExistsError:  # a cgroup left by a shepherd that died: empty it first
            left = cls(path, controllers)
            left.kill_all()
            left.remove()
            try:
                path.mkdir(mode=0o755)
            except OSError as exc:
                raise CgroupError(f"cannot make cgroup {path}: {exc}") from exc
        except OSError as exc:
            raise CgroupError(f"cannot make cgroup {path}: {exc}") from exc
        group = cls(path, controllers)
        memory = memory_limit(limits)
        if memory is not None and "memory" in group.controllers:
            try:
                _write(path / "memory.max", str(memory))
            except CgroupError:
                group.remove()  # no half-made cgroup: the caller falls back
                raise
            try:
                _write(path / "memory.swap.max", "0")  # a limit swap could not dodge
            except CgroupError:
                pass  # no swap accounting on this machine
        return group

    def join_fd(self) -> int:
        """An open ``cgroup.procs`` for the job's first process to write "0" to before
        it executes anything (it joins, and every process it makes is born inside)."""
        try:
            return os.open(self.path / "cgroup.procs",
                           os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError as exc:
            raise CgroupError(f"cannot open {self.path}/cgroup.procs: {exc}") from exc

    def pids(self) -> set[int]:
        """Every process in the cgroup now."""
        try:
            text = (self.path / "cgroup.procs").read_text()
        except OSError:
            return set()
        return {int(p) for p in text.split() if p.isdigit()}

    def cpu_seconds(self) -> float | None:
        """CPU time of every process the cgroup ever held (None: not readable)."""
        stat = self._flat("cpu.stat")
        return stat["usage_usec"] / 1e6 if "usage_usec" in stat else None

    def peak_memory(self) -> int | None:
        """The cgroup's highest memory use (memory controller, Linux 5.19+), or None."""
        try:
            return int((self.path / "memory.peak").read_text())
        except (OSError, ValueError):
            return None

    def io_bytes(self) -> int | None:
        """Bytes read and written by the cgroup (io controller), or None."""
        try:
            return io_bytes((self.path / "io.stat").read_text())
        except OSError:
            return None

    def oom_killed(self) -> bool:
        """Whether the kernel killed a process of the job over ``memory.max``."""
        return self._flat("memory.events").get("oom_kill", 0) > 0

    def kill_all(self) -> None:
        """SIGKILL to every process of the cgroup (``cgroup.kill``, or one by one on
        kernels before 5.14); waits a bounded time for it to be empty."""
        try:
            _write(self.path / "cgroup.kill", "1")
        except CgroupError:
            for pid in self.pids():
                try:
                    os.kill(pid, 9)
                except OSError:
                    pass
        deadline = time.monotonic() + EMPTY_WAIT_SECONDS
        while self._populated() and time.monotonic() < deadline:
            time.sleep(0.02)

    def remove(self) -> None:
        """Remove the (empty) cgroup; an absent one is fine."""
        try:
            os.rmdir(self.path)
        except OSError as exc:
            if exc.errno not in (errno.ENOENT,):
                raise CgroupError(f"cannot remove cgroup {self.path}: {exc}") from exc

    def _populated(self) -> bool:
        events = self._flat("cgroup.events")
        return bool(events.get("populated", 0)) if events else bool(self.pids())

    def _flat(self, name: str) -> dict[str, int]:
        try:
            return flat_keys((self.path / name).read_text())
        except OSError:
            return {}
