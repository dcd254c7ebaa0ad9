"""How the shepherd ends what a job left behind (``_JobWatch.end_leftovers``): a job in a
cgroup that it joined, once the cgroup is empty, costs no search of every process of the
host unless the shepherd (its descendants' reaper) still has a child it cannot reap, which
could be a process that left the cgroup; without a cgroup, or without being the reaper, it
searches as before. The processes and the cgroup are stand-ins here; tests/integration/
test_cgroups.py runs the real thing."""
from __future__ import annotations

from typing import Any

import pytest

from execd import proctree, shepherd
from execd.shepherd import _JobWatch, _Measure


class FakeCgroup:
    def __init__(self, procs: set[int] | None = None, cpu: float = 0.25,
                 unkillable: bool = False) -> None:
        self.procs = procs or set()
        self.cpu = cpu
        self.unkillable = unkillable  # (still populated when kill_all gives up)
        self.killed = 0

    def pids(self) -> set[int]:
        return set(self.procs)

    def cpu_seconds(self) -> float:
        return self.cpu

    def io_bytes(self) -> int:
        return 0

    def kill_all(self) -> None:
        self.killed += 1
        if not self.unkillable:
            self.procs.clear()

    def peak_memory(self) -> None:
        return None

    def oom_killed(self) -> bool:
        return False


class Control:
    ended_by = ""


def watch(cgroup: FakeCgroup | None, joined: bool = True) -> _JobWatch:
    w = object.__new__(_JobWatch)
    w.cgroup, w.joined, w.pid = cgroup, joined, 4242  # type: ignore[assignment]
    w.helpers, w.measure, w.control, w.spec = {}, _Measure(), Control(), {}  # type: ignore
    return w


def proc(pid: int, state: str) -> proctree.Proc:
    return proctree.Proc(pid=pid, ppid=1, pgid=pid, sid=pid, state=state, cpu=0.0,
                         vmem=0, rss=0)


@pytest.fixture
def host(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The shepherd's children (None: no children file) and the host's process table,
    the full searches, and which children waitpid reaps: zombies, but not ``unreapable``
    ones (a process whose main thread exited while others run shows as a zombie)."""
    seen: dict[str, Any] = {"children": [], "table": {}, "searches": 0,
                            "unreapable": set()}

    def table() -> dict[int, proctree.Proc]:
        seen["searches"] += 1
        return dict(seen["table"])

    def waitpid(pid: int, flags: int) -> tuple[int, int]:
        proc_ = seen["table"].get(pid)
        if proc_ is None or proc_.state != "Z" or pid in seen["unreapable"]:
            return 0, 0
        seen["children"].remove(pid)
        del seen["table"][pid]
        return pid, 0

    monkeypatch.setattr(proctree, "children", lambda pid: None if seen["children"] is None
                        else list(seen["children"]))
    monkeypatch.setattr(proctree, "processes",
                        lambda pids: {p: seen["table"][p] for p in pids if p in seen["table"]})
    monkeypatch.setattr(proctree, "process_table", table)
    monkeypatch.setattr(shepherd.os, "waitpid", waitpid)
    seen["signalled"] = []  # (no signal may reach a real process of these made-up pids)
    monkeypatch.setattr(shepherd.os, "kill", lambda pid, sig: seen["signalled"].append(pid))
    monkeypatch.setattr(shepherd.os, "killpg", lambda pid, sig: seen["signalled"].append(-pid))
    monkeypatch.setitem(shepherd._reaper, "on", True)
    return seen


def test_an_emptied_cgroup_and_no_live_child_need_no_search(host: dict[str, Any]) -> None:
    cgroup = FakeCgroup()
    w = watch(cgroup)
    w.end_leftovers()
    assert cgroup.killed == 1 and host["searches"] == 0
    assert w.measure.cpu == 0.25  # the cgroup's counter


def test_zombie_children_are_reaped_and_need_no_search(host: dict[str, Any]) -> None:
    host["children"], host["table"] = [77], {77: proc(77, "Z")}
    watch(FakeCgroup()).end_leftovers()
    assert host["searches"] == 0 and host["children"] == []


def test_a_zombie_that_cannot_be_reaped_is_searched_for(host: dict[str, Any]) -> None:
    """Its main thread exited; its other threads run on (outside the cgroup)."""
    host["children"], host["table"] = [77], {77: proc(77, "Z")}
    host["unreapable"].add(77)
    watch(FakeCgroup()).end_leftovers()
    assert host["searches"] >= 1


def test_a_running_method_helper_needs_no_search(host: dict[str, Any]) -> None:
    host["children"], host["table"] = [77], {77: proc(77, "S")}
    w = watch(FakeCgroup())
    w.helpers = {77: object()}  # type: ignore[dict-item]
    w.end_leftovers()
    assert host["searches"] == 0 and host["children"] == [77]


@pytest.mark.parametrize("case", ["no children file", "cgroup not emptied"])
def test_what_cannot_be_known_is_searched_for(host: dict[str, Any], case: str) -> None:
    if case == "no children file":
        host["children"] = None
    watch(FakeCgroup(procs={55}, unkillable=case == "cgroup not emptied")).end_leftovers()
    # (without a children file, reaping the orphans reads the table as well)
    assert host["searches"] >= (2 if case == "no children file" else 1)


def test_a_live_child_outside_the_cgroup_is_searched_for(host: dict[str, Any]) -> None:
    host["children"], host["table"] = [77], {77: proc(77, "S")}
    watch(FakeCgroup()).end_leftovers()
    assert host["searches"] >= 1


@pytest.mark.parametrize("case", ["no cgroup", "never joined", "not the reaper"])
def test_otherwise_every_process_is_searched(host: dict[str, Any],
                                             monkeypatch: pytest.MonkeyPatch,
                                             case: str) -> None:
    if case == "not the reaper":
        monkeypatch.setitem(shepherd._reaper, "on", False)
    cgroup = None if case == "no cgroup" else FakeCgroup(cpu=0.0 if case == "never joined"
                                                         else 0.25)
    w = watch(cgroup, joined=case == "not the reaper")
    # (the last sample of a job that never joined searches too: not counted here)
    w._usage = lambda: proctree.Usage(cpu=0.0, vmem=0, rss=0, io=0)  # type: ignore[method-assign]
    w.end_leftovers()
    assert host["searches"] >= 1


def test_a_job_gone_before_any_sample_counts_as_joined_by_its_cgroups_cpu(
        host: dict[str, Any]) -> None:
    w = watch(FakeCgroup(cpu=0.01), joined=False)
    w.end_leftovers()
    assert w.joined and host["searches"] == 0
