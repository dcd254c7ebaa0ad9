"""How the shepherd ends what a job left behind (``_JobWatch.end_leftovers``): a job in a
cgroup that it joined, once the cgroup is empty, costs no search of every process of the
host unless the shepherd (its descendants' reaper) still has a live child, which could be
a process that left the cgroup; without a cgroup, or without being the reaper, it searches
as before. The processes and the cgroup are stand-ins here; tests/integration/
test_cgroups.py runs the real thing."""
from __future__ import annotations

from typing import Any

import pytest

from execd import proctree, shepherd
from execd.shepherd import _JobWatch, _Measure


class FakeCgroup:
    def __init__(self, procs: set[int] | None = None, cpu: float = 0.25) -> None:
        self.procs = procs or set()
        self.cpu = cpu
        self.killed = 0

    def pids(self) -> set[int]:
        return set(self.procs)

    def cpu_seconds(self) -> float:
        return self.cpu

    def io_bytes(self) -> int:
        return 0

    def kill_all(self) -> None:
        self.killed += 1
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
    """The shepherd's children and the host's process table, and the full searches."""
    seen: dict[str, Any] = {"children": [], "table": {}, "searches": 0}

    def table() -> dict[int, proctree.Proc]:
        seen["searches"] += 1
        return dict(seen["table"])

    monkeypatch.setattr(proctree, "children", lambda pid: list(seen["children"]))
    monkeypatch.setattr(proctree, "processes",
                        lambda pids: {p: seen["table"][p] for p in pids if p in seen["table"]})
    monkeypatch.setattr(proctree, "process_table", table)
    monkeypatch.setattr(shepherd.os, "waitpid", lambda pid, flags: (0, 0))
    monkeypatch.setitem(shepherd._reaper, "on", True)
    return seen


def test_an_emptied_cgroup_and_no_live_child_need_no_search(host: dict[str, Any]) -> None:
    cgroup = FakeCgroup()
    w = watch(cgroup)
    w.end_leftovers()
    assert cgroup.killed == 1 and host["searches"] == 0
    assert w.measure.cpu == 0.25  # the cgroup's counter


def test_zombie_children_need_no_search(host: dict[str, Any]) -> None:
    host["children"], host["table"] = [77], {77: proc(77, "Z")}
    watch(FakeCgroup()).end_leftovers()
    assert host["searches"] == 0


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
    watch(cgroup, joined=False).end_leftovers()
    assert host["searches"] >= 1


def test_a_job_gone_before_any_sample_counts_as_joined_by_its_cgroups_cpu(
        host: dict[str, Any]) -> None:
    w = watch(FakeCgroup(cpu=0.01), joined=False)
    w.end_leftovers()
    assert w.joined and host["searches"] == 0
