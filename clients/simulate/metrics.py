"""What a simulation delivered, per user and per project: the share of the slot time
they received against their target share, their jobs' mean and longest wait, their
mean bounded slowdown, and the cell's utilisation; and the delivered share over time
(for the plot). Pure.

- delivered share: the holder's slot seconds / all slot seconds delivered, both counted
  up to the workload's last submission (the measured window: afterwards the cell only
  drains what is left, in the proportions of what was submitted, whatever the policy);
- target share: with a share tree (``weight_tickets_share`` > 0), the leaf's total
  share (the product of its and its ancestors' shares among their siblings; users
  without a leaf of their own each get a copy of the ``default`` leaf, as 8.1.9's share
  tree gives them); else with functional tickets (``weight_tickets_functional`` > 0),
  the holder's ``fshare`` among those of the workload's holders; else none;
- bounded slowdown: max(1, (wait + run) / max(run, ``BOUND``)) (Feitelson's, with the
  usual 10 seconds);
- utilisation: slot seconds delivered in the window / (the cell's slots x the window).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from common.policy.model import PROJECT_NODE, ShareNode, USER_NODE
from clients.simulate.config import SimConfig
from clients.simulate.engine import JobRun, SimResult

BOUND = 10.0  # seconds: the run time below which slowdown is not counted


@dataclass(frozen=True, slots=True)
class HolderFigures:
    name: str
    jobs: int
    slot_seconds: float
    delivered: float              # share of all slot seconds, 0..1
    target: float | None          # 0..1, None: no policy gives one
    mean_wait: float
    max_wait: float
    mean_slowdown: float
    never_started: int


@dataclass(frozen=True, slots=True)
class Report:
    users: tuple[HolderFigures, ...]
    projects: tuple[HolderFigures, ...]
    widths: tuple[HolderFigures, ...]   # serial jobs and parallel (wide) jobs
    utilisation: float
    makespan: float
    window: float                 # the measured window: 0 .. the last submission
    capacity: int
    jobs: int
    never_started: int
    passes: int
    target_source: str            # "share tree", "functional" or "none"
    skipped: Mapping[str, int]

    def as_dict(self) -> dict[str, Any]:
        def holders(rows: Sequence[HolderFigures]) -> list[dict[str, Any]]:
            return [{f: getattr(r, f) for f in HolderFigures.__slots__} for r in rows]
        return {"users": holders(self.users), "projects": holders(self.projects),
                "widths": holders(self.widths),
                "utilisation": self.utilisation, "makespan": self.makespan,
                "window": self.window,
                "capacity": self.capacity, "jobs": self.jobs,
                "never_started": self.never_started, "passes": self.passes,
                "target_source": self.target_source, "skipped": dict(self.skipped)}


def report(result: SimResult, config: SimConfig,
           skipped: Mapping[str, int] | None = None) -> Report:
    runs = list(result.runs.values())
    makespan = max((r.end for r in runs if r.end is not None), default=0.0)
    window = max((r.job.submit for r in runs), default=0.0) or makespan
    busy = sum(_slot_seconds(r, window) for r in runs)
    source, user_targets, project_targets = targets(config, runs)
    users = _holders(runs, lambda r: r.job.owner, busy or 1.0, user_targets, window)
    projects = _holders([r for r in runs if r.job.project], lambda r: str(r.job.project),
                        busy or 1.0, project_targets, window)
    widths = _holders(runs, width_class, busy or 1.0, None, window)
    capacity = result.capacity
    return Report(users=users, projects=projects, widths=widths,
                  utilisation=busy / (capacity * window) if capacity and window else 0.0,
                  makespan=makespan, window=window, capacity=capacity, jobs=len(runs),
                  never_started=sum(r.start is None for r in runs), passes=result.passes,
                  target_source=source, skipped=dict(skipped or {}))


def width_class(run: JobRun) -> str:
    """Serial jobs and wide ones apart: reservation is for the wide ones' waits."""
    return "1 slot" if run.job.slots <= 1 else "2+ slots"


def _slot_seconds(run: JobRun, until: float) -> float:
    """The slots x seconds the job ran before ``until``."""
    if run.start is None or run.end is None:
        return 0.0
    return run.job.slots * max(0.0, min(run.end, until) - run.start)


def _holders(runs: Iterable[JobRun], key: Any, total: float,
             target: Mapping[str, float] | None, until: float
             ) -> tuple[HolderFigures, ...]:
    groups: dict[str, list[JobRun]] = {}
    for run in runs:
        groups.setdefault(key(run), []).append(run)
    out = []
    for name in sorted(groups):
        mine = groups[name]
        started = [r for r in mine if r.start is not None]
        waits = [r.start - r.job.submit for r in started]  # type: ignore[operator]
        slowdowns = [max(1.0, (w + r.job.run_time) / max(r.job.run_time, BOUND))
                     for w, r in zip(waits, started)]
        used = sum(_slot_seconds(r, until) for r in mine)
        out.append(HolderFigures(
            name=name, jobs=len(mine), slot_seconds=used, delivered=used / total,
            target=None if target is None else target.get(name, 0.0),
            mean_wait=sum(waits) / len(waits) if waits else 0.0,
            max_wait=max(waits, default=0.0),
            mean_slowdown=sum(slowdowns) / len(slowdowns) if slowdowns else 0.0,
            never_started=len(mine) - len(started)))
    return tuple(out)


# ---- target shares -----------------------------------------------------------------

def targets(config: SimConfig, runs: Sequence[JobRun]
            ) -> tuple[str, dict[str, float] | None, dict[str, float] | None]:
    """(where the targets come from, per user, per project)."""
    users = sorted({r.job.owner for r in runs})
    projects = sorted({r.job.project for r in runs if r.job.project})
    policy = config.policy
    if config.tree and policy.weight_tickets_share > 0:
        return ("share tree",) + tree_targets(config.tree, users)
    if policy.weight_tickets_functional > 0:
        ent = config.entities
        by_user = _fractions({u: ent.users.get(u) for u in users})
        by_project = _fractions({p: ent.projects.get(p) for p in projects})
        if by_user is not None or by_project is not None:
            return "functional", by_user, by_project
    return "none", None, None


def _fractions(entities: Mapping[str, Any]) -> dict[str, float] | None:
    """Each one's ``fshare`` among theirs; None when none has any (no target)."""
    shares = {name: (e.fshare if e is not None else 0) for name, e in entities.items()}
    total = sum(shares.values())
    return {name: s / total for name, s in shares.items()} if total else None


def tree_targets(tree: Sequence[ShareNode], users: Sequence[str]
                 ) -> tuple[dict[str, float], dict[str, float]]:
    """Each user's and project's total share of the share tree (share_tree(5)): the
    product of the shares among siblings down to its nodes, summed over its nodes."""
    nodes = {n.id: n for n in tree}
    children = {c for n in tree for c in n.childnodes}
    roots = [n for n in tree if n.id not in children]
    named = {n.name for n in tree if n.type == USER_NODE and not n.childnodes}
    strangers = [u for u in users if u not in named]
    by_user: dict[str, float] = {}
    by_project: dict[str, float] = {}

    def walk(node: ShareNode, total: float) -> None:
        kids = [nodes[c] for c in node.childnodes if c in nodes]
        if not kids:
            if node.type == USER_NODE and node.name != "default":
                by_user[node.name] = by_user.get(node.name, 0.0) + total
            return
        # every user without a leaf of its own gets a copy of a "default" leaf
        weights = []
        for kid in kids:
            copies = len(strangers) if kid.name == "default" and not kid.childnodes else 1
            weights.append((kid, copies))
        siblings = sum(kid.shares * copies for kid, copies in weights)
        for kid, copies in weights:
            part = total * kid.shares / siblings if siblings else 0.0
            if kid.name == "default" and not kid.childnodes:
                for user in strangers:
                    by_user[user] = by_user.get(user, 0.0) + part
                continue
            if kid.type == PROJECT_NODE:
                by_project[kid.name] = by_project.get(kid.name, 0.0) + part
            walk(kid, part)

    for root in roots:
        walk(root, 1.0)
    return by_user, by_project


def slot_seconds_between(result: SimResult, start: float, end: float,
                         key: Any = lambda run: run.job.owner) -> dict[str, float]:
    """Slot seconds delivered between ``start`` and ``end``, per user (or per ``key``)."""
    out: dict[str, float] = {}
    for run in result.runs.values():
        if run.start is None or run.end is None:
            continue
        overlap = min(run.end, end) - max(run.start, start)
        if overlap > 0:
            name = key(run)
            out[name] = out.get(name, 0.0) + run.job.slots * overlap
    return out


# ---- over time ---------------------------------------------------------------------------

def share_over_time(result: SimResult, points: int = 200
                    ) -> tuple[list[float], dict[str, list[float]]]:
    """Sample times and, per user, the share of the slot time delivered up to each."""
    runs = [r for r in result.runs.values() if r.start is not None and r.end is not None]
    end = max((r.end for r in runs), default=0.0)  # type: ignore[type-var]
    if not runs or end <= 0:
        return [], {}
    times = [end * (i + 1) / points for i in range(points)]
    changes: list[tuple[float, str, int]] = []
    for r in runs:
        changes.append((r.start, r.job.owner, r.job.slots))  # type: ignore[arg-type]
        changes.append((r.end, r.job.owner, -r.job.slots))  # type: ignore[arg-type]
    changes.sort(key=lambda c: c[0])
    users = sorted({r.job.owner for r in runs})
    rate = dict.fromkeys(users, 0)
    done = dict.fromkeys(users, 0.0)
    series: dict[str, list[float]] = {u: [] for u in users}
    last, i = 0.0, 0
    for t in times:
        while i < len(changes) and changes[i][0] <= t:
            when, user, delta = changes[i]
            for u in users:
                done[u] += rate[u] * (when - last)
            last = when
            rate[user] += delta
            i += 1
        for u in users:
            done[u] += rate[u] * (t - last)
        last = t
        total = sum(done.values())
        for u in users:
            series[u].append(done[u] / total if total else 0.0)
    return times, series
