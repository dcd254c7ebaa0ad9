"""What the web view shows, as plain data: the cell's jobs, tasks, queue instances and hosts
as ``Client.jobs``/``Client.cluster`` read them, kept up to date by the subscription's
events (docs/events.md), plus the pending jobs' reasons, the quotas in use and the
samples of the plot. Pure: no sockets, no clock (times are passed in), no threads.

``WebState.reset`` takes a full read (at start and on ``resync``), ``apply`` one event;
``snapshot`` is what the page gets: every list capped at ``MAX_ROWS`` rows, its count
exact.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, Iterator

from clients.views.qstat import instance_states, range_text, task_letters
from common.qi_letters import qtype_letters
from common.task_letters import ACTIVE, WAITING

MAX_ROWS = 500            # rows of each list sent to the page (counts stay exact)
SAMPLE_SECONDS = 10.0     # the plot's sampling period
HISTORY_SECONDS = 6 * 3600.0
MAX_SAMPLES = int(HISTORY_SECONDS / SAMPLE_SECONDS)
EXPLAINED_JOBS = 20       # pending jobs whose reasons are read again now and then
SHOWN_LOAD = ("load_avg", "np_load_avg", "mem_used", "mem_total", "num_proc")

Reply = dict[str, Any]
TaskKey = tuple[int, int]


@dataclass(frozen=True)
class Sample:
    """One point of the plot: when, slots held by running tasks, jobs waiting."""

    time: float
    slots_used: int
    jobs_pending: int

    def to_list(self) -> list[float]:
        return [round(self.time, 1), self.slots_used, self.jobs_pending]


@dataclass
class WebState:
    """The tables the page is drawn from; ``version`` counts changes."""

    jobs: dict[int, Reply] = field(default_factory=dict)
    pending: dict[int, Reply] = field(default_factory=dict)     # job id -> not enrolled tasks
    tasks: dict[TaskKey, Reply] = field(default_factory=dict)
    instances: dict[str, Reply] = field(default_factory=dict)   # "queue@host" -> instance
    hosts: dict[str, Reply] = field(default_factory=dict)
    reasons: dict[int, list[str]] = field(default_factory=dict)
    reasons_time: float | None = None
    quotas: list[Reply] = field(default_factory=list)
    history: deque[Sample] = field(default_factory=lambda: deque(maxlen=MAX_SAMPLES))
    cursor: str = ""             # the subscription's (EPOCH:SEQ), set by its follower
    version: int = 0
    needs_cluster: bool = False  # an event named an instance or host not read yet

    # ---- input ---------------------------------------------------------------------
    def reset(self, jobs_reply: Reply, cluster: Reply, cursor: str = "") -> None:
        """The state as a full read shows it (``Client.jobs(brief=True, ranges=True)``
        and ``Client.cluster()``); reasons and quotas are kept until read again."""
        self.jobs = {int(j["job_id"]): _job_record(j) for j in jobs_reply.get("jobs") or []}
        self.pending = {int(r["job_id"]): {"pending": r.get("pending") or [],
                                           "holds": r.get("holds") or []}
                        for r in jobs_reply.get("ranges") or []}
        self.tasks = {}
        for task in jobs_reply.get("tasks") or []:
            self._put_task(task)
        self.reset_cluster(cluster)
        self.reasons = {job_id: lines for job_id, lines in self.reasons.items()
                        if job_id in self.jobs}
        self.cursor = cursor
        self._changed()

    def reset_cluster(self, cluster: Reply) -> None:
        self.instances = {f'{i["queue"]}@{i["host"]}': dict(i)
                          for i in cluster.get("instances") or []}
        self.hosts = {h["name"]: dict(h) for h in cluster.get("hosts") or []}
        self.needs_cluster = False
        self._changed()

    def apply(self, event: Reply) -> None:
        """One event of the subscription (kinds job, pending, task, queue, host)."""
        kind, gone = event.get("kind"), event.get("op") == "del"
        if kind == "job":
            self._on_job(event, gone)
        elif kind == "pending":
            self._on_pending(event, gone)
        elif kind == "task":
            self._on_task(event, gone)
        elif kind == "queue":
            self._on_queue(event, gone)
        elif kind == "host":
            self._on_host(event, gone)
        else:
            return
        self._changed()

    def _on_job(self, event: Reply, gone: bool) -> None:
        job_id = int(event["job_id"])
        if gone:
            self._forget_job(job_id)
        else:
            self.jobs[job_id] = {"job_id": job_id, "owner": event.get("owner", ""),
                                 "name": event.get("name", ""),
                                 "submit_time": event.get("submit_time"),
                                 "slots": self.jobs.get(job_id, {}).get("slots", 1)}

    def _on_pending(self, event: Reply, gone: bool) -> None:
        job_id = int(event["job_id"])
        if gone or event.get("job_finished"):
            self.pending.pop(job_id, None)
        else:
            self.pending[job_id] = {"pending": event.get("pending") or [],
                                    "holds": event.get("holds") or []}
        self._finish(event)

    def _on_task(self, event: Reply, gone: bool) -> None:
        key = (int(event["job_id"]), int(event["task_id"]))
        if gone:
            self.tasks.pop(key, None)
        else:
            self._put_task(event)
        self._finish(event)

    def _finish(self, event: Reply) -> None:
        if event.get("job_finished"):
            self._forget_job(int(event["job_id"]))

    def _on_queue(self, event: Reply, gone: bool) -> None:
        name = str(event["queue_instance"])
        if gone:
            self.instances.pop(name, None)
        elif name in self.instances:
            self.instances[name]["states"] = str(event.get("states") or "")
        else:
            self.needs_cluster = True

    def _on_host(self, event: Reply, gone: bool) -> None:
        name = str(event["host"])
        if gone:
            self.hosts.pop(name, None)
            return
        if name not in self.hosts:
            self.needs_cluster = True
        host = self.hosts.setdefault(name, {"name": name})
        host.update({"alive": bool(event.get("alive")), "load": event.get("load") or {},
                     "load_time": event.get("load_time")})

    def _put_task(self, task: Reply) -> None:
        key = (int(task["job_id"]), int(task["task_id"]))
        state = task.get("state")
        # what qstat no longer shows: ended tasks, and deleted ones that never started
        if state == "finished" or (state == "deleted" and not task.get("host")):
            self.tasks.pop(key, None)
            return
        self.tasks[key] = {name: task.get(name) for name in (
            "job_id", "task_id", "state", "holds", "suspend_reasons", "restarts", "queue",
            "host", "slots", "granted", "start_time", "dispatch_time", "error_reason")}

    def _forget_job(self, job_id: int) -> None:
        self.jobs.pop(job_id, None)
        self.pending.pop(job_id, None)
        self.reasons.pop(job_id, None)
        for key in [k for k in self.tasks if k[0] == job_id]:
            del self.tasks[key]

    def set_explained(self, reply: Reply, now: float) -> None:
        """A read of some pending jobs with ``explain``: their ``qstat -j`` reasons
        (others are kept) and their records (a job event lacks the slots asked for)."""
        for job in reply.get("jobs") or []:
            job_id = int(job["job_id"])
            if job_id in self.jobs:
                self.jobs[job_id]["slots"] = _requested_slots(job.get("opts") or {})
        for key, lines in (reply.get("scheduling_info") or {}).items():
            if int(key) in self.jobs:
                self.reasons[int(key)] = [str(line) for line in lines]
        self.reasons_time = now
        self._changed()

    def set_quotas(self, rows: list[Reply]) -> None:
        self.quotas = rows
        self._changed()

    def sample(self, now: float) -> Sample:
        """A point of the plot, kept (the oldest beyond 6 hours drop out)."""
        point = Sample(now, self.slots_used(), len(self.pending_jobs()))
        self.history.append(point)
        self.version += 1
        return point

    def _changed(self) -> None:
        self.version += 1

    # ---- derived -------------------------------------------------------------------
    def slots_used(self) -> int:
        return sum(_task_slots(t) for t in self.tasks.values() if t["state"] in ACTIVE)

    def pending_jobs(self) -> list[int]:
        """Ids of the jobs with tasks waiting, in submission order (qstat's)."""
        waiting = {job_id for job_id, r in self.pending.items() if r["pending"]}
        waiting |= {k[0] for k, t in self.tasks.items() if t["state"] in WAITING}
        return sorted(j for j in waiting if j in self.jobs)

    def to_explain(self) -> list[int]:
        """The pending jobs whose reasons are read (the first EXPLAINED_JOBS)."""
        return self.pending_jobs()[:EXPLAINED_JOBS]

    def running_rows(self) -> Iterator[Reply]:
        """The running tasks' rows, in job and task order (made as they are read)."""
        for (job_id, task_id), task in sorted(self.tasks.items()):
            if task["state"] not in ACTIVE:
                continue
            job = self.jobs.get(job_id, {})
            yield {"job_id": job_id, "task_id": task_id, "name": job.get("name", ""),
                   "owner": job.get("owner", ""), "state": task_letters(task),
                   "queue": f'{task["queue"]}@{task["host"]}' if task.get("host") else "",
                   "slots": _task_slots(task),
                   "start_time": task.get("start_time") or task.get("dispatch_time")}

    def pending_rows(self) -> Iterator[Reply]:
        """A row per job's waiting range and per waiting task (qstat's order)."""
        waiting: dict[int, list[tuple[int, Reply]]] = {}
        for (job_id, task_id), task in sorted(self.tasks.items()):
            if task["state"] in WAITING:
                waiting.setdefault(job_id, []).append((task_id, task))
        for job_id in self.pending_jobs():
            job = self.jobs[job_id]
            base = {"job_id": job_id, "name": job.get("name", ""), "owner": job.get("owner", ""),
                    "submit_time": job.get("submit_time"), "slots": job.get("slots", 1),
                    "reasons": self.reasons.get(job_id)}
            ranges = self.pending.get(job_id, {})
            if ranges.get("pending"):
                holds = ranges.get("holds") or []
                yield {**base, "tasks": ",".join(
                    range_text(*map(int, r)) for r in ranges["pending"]),
                    "state": task_letters({"state": "hold" if holds else "pending",
                                           "holds": holds})}
            for task_id, task in waiting.get(job_id, []):
                yield {**base, "tasks": str(task_id), "state": task_letters(task)}

    def queue_rows(self) -> list[Reply]:
        used: dict[str, int] = {}
        for task in self.tasks.values():
            if task["state"] in ACTIVE:
                for queue, host, slots in task.get("granted") or []:
                    name = f"{queue}@{host}"
                    used[name] = used.get(name, 0) + int(slots)
        rows = []
        for name, inst in sorted(self.instances.items()):
            load = (self.hosts.get(inst["host"]) or {}).get("load") or {}
            rows.append({"name": name, "qtype": qtype_letters(str(inst.get("qtype") or "")),
                         "used": used.get(name, 0), "slots": inst.get("slots"),
                         "load_avg": load.get("load_avg"),
                         "states": instance_states(inst, self.hosts)})
        return rows

    def host_rows(self) -> list[Reply]:
        return [{"name": name, "alive": bool(host.get("alive")),
                 **{key: (host.get("load") or {}).get(key) for key in SHOWN_LOAD}}
                for name, host in sorted(self.hosts.items()) if name != "global"]

    def snapshot(self) -> Reply:
        """What the page draws: each list capped (only the rows sent are made), its
        exact count beside it."""
        waiting_tasks = sum(1 for (job_id, _), t in self.tasks.items()
                            if t["state"] in WAITING and job_id in self.jobs)
        counts = {"running": sum(1 for t in self.tasks.values() if t["state"] in ACTIVE),
                  "pending": waiting_tasks + sum(1 for job_id, r in self.pending.items()
                                                 if r["pending"] and job_id in self.jobs),
                  "slots_used": self.slots_used(), "jobs_pending": len(self.pending_jobs())}
        out: Reply = {"running": list(islice(self.running_rows(), MAX_ROWS)),
                      "pending": list(islice(self.pending_rows(), MAX_ROWS))}
        for name, rows in (("queues", self.queue_rows()), ("hosts", self.host_rows()),
                           ("quotas", self.quotas)):
            out[name], counts[name] = rows[:MAX_ROWS], len(rows)
        out.update({"counts": counts, "version": self.version,
                    "reasons_time": self.reasons_time})
        return out

    def history_lists(self) -> list[list[float]]:
        return [point.to_list() for point in self.history]


def _job_record(job: Reply) -> Reply:
    opts = job.get("opts") or {}
    return {"job_id": int(job["job_id"]), "owner": job.get("owner", ""),
            "name": opts.get("job_name", ""), "submit_time": job.get("submit_time"),
            "slots": _requested_slots(opts)}


def _requested_slots(opts: Reply) -> int:
    """The slots a pending job asks for: its PE range's lower end, else 1."""
    ranges = opts.get("pe_ranges") or []
    try:
        return max(1, int(ranges[0][0]))
    except (IndexError, TypeError, ValueError):
        return 1


def _task_slots(task: Reply) -> int:
    granted = task.get("granted") or []
    if granted:
        return sum(int(entry[2]) for entry in granted)
    return int(task.get("slots") or 0)


def quota_row(row: Any) -> Reply:
    """A ``common.quota.report.QuotaRow`` as the page shows it (qquota's columns)."""
    from common.quota.report import format_used
    return {"rule": row.rule, "limit": f"{row.resource}={format_used(row.used)}/{row.limit}",
            "filter": " ".join(f"{kind} {value}" for kind, value in row.filters)}
