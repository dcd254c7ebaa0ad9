"""Pure conversions from the qmaster's query replies to the qstat/qhost renderer rows.

This module owns which jobs, tasks, queue instances and hosts ``qstat`` and ``qhost`` show
and in which order, as Grid Engine 8.1.9 does: running tasks queue instance by queue
instance (then by job and task id), pending tasks after them by priority (the qmaster's
policy figures; held ones have 0.00000) then job id, with the pending tasks of an array job grouped
into one row per state ("3-10:1", "1,3,5"). Input are the plain dicts of
``Client.jobs()`` and ``Client.cluster()``; output are the JobRow, QueueRow and HostRow
dicts documented in ``clients.render.qstat``; the qhost rows are ``clients.views.qhost``.
No I/O here.
"""
from __future__ import annotations

from common.record import Record
from common.qi_letters import qtype_letters, state_string
# the task states as the plain strings of the reply (not common.jobstate's StrEnum: 2 ms
# of enum at every start, and a conversion per task)
from common.task_letters import (ACTIVE, FINISHED, HOLD, PENDING, SUSPENDED, WAITING,
                                 state_letters)
# qstat -s (its letters select tasks by state): clients.qstat parses them before it loads
# this module; they are here too for the views' callers
from common.task_letters import DEFAULT_STATES, HOLD_FLAGS, parse_state_filter

# what a command loads at start-up stays small (issue 12): typing and the complex list
# only when they are needed
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterable

    from common.resource.complexes import ComplexAttr

JobRow = dict[str, "Any"]
Reply = dict[str, "Any"]

HELD_PRIO, NORMAL_PRIO = 0.0, 0.5
DEFAULT_DEPARTMENT = "defaultdepartment"
_COMPLEXES: list[ComplexAttr] = []  # Grid Engine's default complex list, when first needed


def _complexes() -> list[ComplexAttr]:
    if not _COMPLEXES:
        from common.resource.complexes import default_complexes
        _COMPLEXES.extend(default_complexes())
    return _COMPLEXES


class JobFilter(Record, frozen=True):
    """What qstat selects: -s states, -u users (fnmatch patterns, None = all), -q instances."""

    states: frozenset[str] = DEFAULT_STATES
    users: tuple[str, ...] | None = None
    instances: frozenset[str] | None = None  # selected "queue@host" names, None = all

    def owner_ok(self, owner: str) -> bool:
        if self.users is None:
            return True
        patterns = []
        for user in self.users:
            if _PATTERN_CHARS.isdisjoint(user):
                if owner == user:  # (what fnmatch makes of a word without pattern chars)
                    return True
            else:
                patterns.append(user)
        if not patterns:
            return False
        from fnmatch import fnmatchcase  # (with re: only when -u gives a pattern)
        return any(fnmatchcase(owner, u) for u in patterns)


# what makes a -u word a pattern: a word without them matches itself alone (fnmatch)
_PATTERN_CHARS = frozenset("*?[")


class Columns(Record, frozen=True):
    """Which blocks of a job row besides the job line are worked out: the ``-r`` block
    (resources, queues, predecessors, binding) and the ``-ext`` columns (tickets, project,
    department, usage). A listing without them skips their work for every row."""

    resources: bool = True
    extended: bool = True
    policy: bool = True  # the -urg and -pri columns


ALL_COLUMNS = Columns()


# --------------------------------------------------------------------------- helpers

def instance_name(queue: str, host: str) -> str:
    return f"{queue}@{host}"


def _opts(job: Reply) -> dict[str, Any]:
    return job.get("opts") or {}


def _is_array(job: Reply) -> bool:
    return bool(_opts(job).get("array"))


def task_letters(task: Reply) -> str:
    """The state column: holds, qmod's suspensions ("s" the job's, "S" its queue
    instance's) and restarts (qmod -rj: "Rq", "Rr")."""
    return state_letters(task["state"], task.get("holds") or (),
                         suspend_reasons=task.get("suspend_reasons") or (),
                         restarted=int(task.get("restarts") or 0) > 0)


def attach_policy(reply: Reply) -> None:
    """Each job gets the qmaster's policy figures (``qmaster.policy_view``) as ``policy``
    (empty for a job the policy does not look at: no priority)."""
    figures = reply.get("priorities") or {}
    for job in reply.get("jobs") or []:
        found = figures.get(job["job_id"], figures.get(str(job["job_id"])))
        job["policy"] = found if isinstance(found, dict) else {}


def _prio(job: Reply, task: Reply) -> float:
    """The ``prior`` column: the policy's priority of the job (``job["policy"]``, the
    qmaster's figures, which a listing asks for); a held waiting task has none (0), and
    a job the policy does not look at (in error, finished) neither. Without figures
    (a caller that did not ask): 0.5, what 8.1.9 shows with the default policy."""
    if task["state"] in WAITING and task.get("holds"):
        return HELD_PRIO
    if "policy" not in job:
        return NORMAL_PRIO
    figures = job["policy"] or {}
    if task["state"] in ACTIVE:
        per_task = figures.get("task_prio") or {}
        found = per_task.get(task["task_id"], per_task.get(str(task["task_id"])))
        if found is not None:
            return float(found)
    return float(figures.get("prio") or 0.0)


def _task_tickets(job: Reply, task: Reply) -> list[float]:
    """``[tckts, otckt, ftckt, stckt, share]`` of a running task, else of the job's
    pending tasks."""
    figures = job.get("policy") or {}
    if task["state"] in ACTIVE:
        per_task = figures.get("tasks") or {}
        found = per_task.get(task["task_id"], per_task.get(str(task["task_id"])))
        if found is not None:
            return [float(v) for v in found]
    return [float(v) for v in figures.get("tickets") or (0.0,) * 5]


def range_text(first: int, last: int, step: int) -> str:
    """range_to_dstring(): "3", "3,4" (two ids), else "3-10:1"."""
    if first == last:
        return str(first)
    if first + step == last:
        return f"{first},{last}"
    return f"{first}-{last}:{step}"


def task_ranges(spans: Iterable[tuple[int, int]], step: int) -> str:
    """Ids of a job's task sequence (``-t n-m:step``) as its runs, comma separated
    ("1,3,5", "3-10:1"). ``spans``: (first, last) pieces of the sequence (a single id is
    (id, id)); pieces that follow each other in the sequence make one run."""
    runs: list[list[int]] = []
    for first, last in sorted(spans):
        if runs and first == runs[-1][1] + step:
            runs[-1][1] = last
        else:
            runs.append([first, last])
    return ",".join(range_text(first, last, step) for first, last in runs)


def _spans(group: list[Reply]) -> list[tuple[int, int]]:
    """The ids a group of task records stands for: a record of a range list
    (``_range_records``) its ranges, any other its own id."""
    out: list[tuple[int, int]] = []
    for task in group:
        if "ranges" in task:
            out += [(int(r[0]), int(r[1])) for r in task["ranges"]]
        else:
            out.append((int(task["task_id"]), int(task["task_id"])))
    return out


def complex_attr(name: str) -> ComplexAttr | None:
    from common.resource.complexes import resolve_name
    return resolve_name(_complexes(), name)


def _full_name(name: str) -> str:
    attr = complex_attr(name)
    return attr.name if attr else name


def _urgency(name: str) -> float:
    attr = complex_attr(name)
    try:
        return float(attr.urgency) if attr else 0.0
    except ValueError:
        return 0.0


def pe_range(pe: list[Any] | None) -> str | None:
    if not pe:
        return None
    return str(pe[1]) if int(pe[1]) == int(pe[2]) else f"{pe[1]}-{pe[2]}"


def predecessors(job: Reply, jobs: list[Reply]) -> list[int]:
    """Unfinished jobs named by -hold_jid (ids, or names/patterns of the owner's jobs)."""
    wanted = [str(w) for w in _opts(job).get("hold_jid") or []]
    if not wanted:  # (every row asks: no walk through every job for nothing)
        return []
    from fnmatch import fnmatchcase
    return [j["job_id"] for j in jobs if j["job_id"] != job["job_id"] and any(
        (w == str(j["job_id"])) if w.isdigit() else
        (j["owner"] == job["owner"] and fnmatchcase(_opts(j).get("job_name") or "", w))
        for w in wanted)]


# --------------------------------------------------------------------------- job rows

def _request_fields(job: Reply, jobs: list[Reply]) -> dict[str, Any]:
    """The -r block of a row."""
    opts = _opts(job)
    hard = {_full_name(k): str(v) for k, v in (opts.get("hard_resources") or {}).items()}
    return {"hard_resources": hard, "hard_resource_urgency": {k: _urgency(k) for k in hard},
            "default_requests": {},
            "soft_resources": {_full_name(k): str(v)
                               for k, v in (opts.get("soft_resources") or {}).items()},
            "hard_queues": list(opts.get("hard_queues") or []),
            "soft_queues": list(opts.get("soft_queues") or []),
            "master_queues": list(opts.get("master_queues") or []),
            "pe": (opts.get("pe") or [None])[0], "pe_range": pe_range(opts.get("pe")),
            "checkpoint": opts.get("checkpoint_name"),
            "predecessors_requested": [str(w) for w in opts.get("hold_jid") or []],
            "predecessors": predecessors(job, jobs) if opts.get("hold_jid") else [],
            "binding": "NONE"}


def _ext_fields(job: Reply, task: Reply) -> dict[str, Any]:
    """The -ext columns: tickets, project, department and usage of a started task."""
    usage = task.get("usage") or {}
    started = task["state"] in ACTIVE
    figures = job.get("policy") or {}
    tckts, otckt, ftckt, stckt, share = _task_tickets(job, task)
    return {"ntckts": float(figures.get("ntckts") or 0.0), "project": _opts(job).get("project"),
            "department": figures.get("department") or DEFAULT_DEPARTMENT,
            "tickets": tckts, "ovrts": int(_opts(job).get("override_tickets") or 0),
            "otckt": otckt, "ftckt": ftckt, "stckt": stckt, "share": share,
            **{k: (float(usage[k]) if started and k in usage else None)
               for k in ("cpu", "mem", "io")}}


def _policy_fields(job: Reply) -> dict[str, Any]:
    """The -urg and -pri columns: the urgency and its parts, the normalised parts of the
    priority, the -p value and the -dl time."""
    figures = job.get("policy") or {}
    urg = [float(v) for v in figures.get("urg") or (0.0,) * 4]
    return {"nurg": float(figures.get("nurg") or 0.0),
            "npprior": float(figures.get("npprior") or 0.0),
            "ntckts": float(figures.get("ntckts") or 0.0),
            "urg": urg[0], "rrcontr": urg[1], "wtcontr": urg[2], "dlcontr": urg[3],
            "ppri": int(_opts(job).get("priority") or 0), "deadline": figures.get("deadline")}


def job_row(job: Reply, task: Reply, jobs: list[Reply], *, queue: str | None = None,
            slots: int | None = None, master: bool = True, columns: Columns = ALL_COLUMNS
            ) -> JobRow:
    """One row for ``task``; a started task shows its start time and queue instance.
    ``columns`` says which blocks besides the job line it gets (``Columns``)."""
    opts = job.get("opts") or {}
    name = str(opts.get("job_name") or "")
    state = task["state"]
    active = state in ACTIVE
    start = (task.get("start_time") or task.get("dispatch_time")) if active else None
    pe = opts.get("pe")
    row: JobRow = {
        "job_id": job["job_id"], "task_id": task["task_id"] if opts.get("array") else None,
        "prio": _prio(job, task),
        "name": name, "full_name": name, "owner": job["owner"],
        "state": task_letters(task), "submit_time": job["submit_time"], "start_time": start,
        "queue": queue, "master": master, "pending_tasks": None,
        "slots": slots if slots is not None else (task.get("slots") or 1) if active
        else (int(pe[1]) if pe else 1),
        "granted_pe": pe[0] if pe and active else None,
        "granted_pe_slots": task.get("slots") or 1,
        "granted": task.get("granted") if active else None}
    if columns.resources:
        row.update(_request_fields(job, jobs))
    if columns.extended:
        row.update(_ext_fields(job, task))
    if columns.policy:
        row.update(_policy_fields(job))
    return row


def _has_hold(job: Reply, task: Reply, flag: str) -> bool:
    holds, opts = task.get("holds") or [], _opts(job)
    return {"hu": "u" in holds, "ho": "o" in holds, "hs": "s" in holds,
            "hj": "h" in holds, "hd": bool(opts.get("hold_jid_ad")),
            "ha": bool(opts.get("start_time"))}[flag]


def active_shown(job: Reply, task: Reply, flt: JobFilter) -> bool:
    """-s r shows running (and transferring, deleting) tasks, -s s suspended ones, and a
    hold letter also started tasks carrying that hold."""
    letter = "s" if task["state"] == SUSPENDED else "r"
    holds = [f for f in ("hu", "ho", "hs") if f in flt.states and _has_hold(job, task, f)]
    return letter in flt.states or bool(holds)


def pending_shown(job: Reply, task: Reply, flt: JobFilter) -> bool:
    """-s p shows waiting tasks; hold letters narrow them to tasks with such a hold."""
    wanted = [f for f in HOLD_FLAGS if f in flt.states]
    return "p" in flt.states and (not wanted or any(_has_hold(job, task, f) for f in wanted))


Selected = list[tuple[Reply, list[Reply]]]


def selected_jobs(reply: Reply, flt: JobFilter) -> Selected:
    """The jobs of owners -u selects, by job id, each with its tasks by task id (the
    ids of a job's task ranges as one record per range list: ``_range_records``). A
    listing works this out once and hands it to each kind of row (``selected``)."""
    jobs = {j["job_id"]: j for j in reply.get("jobs") or []}
    tasks: dict[int, list[Reply]] = {}
    for record in (*(reply.get("tasks") or []), *_range_records(reply.get("ranges") or [])):
        tasks.setdefault(record["job_id"], []).append(record)
    out = []
    users = flt.users
    # the -u words without pattern characters, matched at once (owner_ok for the others)
    plain = frozenset(u for u in users or () if _PATTERN_CHARS.isdisjoint(u))
    patterns = users is not None and len(plain) < len(users)
    for job_id in sorted(jobs):
        job = jobs[job_id]
        if users is None or job["owner"] in plain or (patterns and flt.owner_ok(job["owner"])):
            own = tasks.get(job_id, [])
            if len(own) > 1:  # (stable: a task before a range record of the same id)
                own.sort(key=_task_id)
            out.append((job, own))
    return out


def _task_id(task: Reply) -> int:
    return task["task_id"]  # type: ignore[no-any-return]


def _range_records(ranges: list[Reply]) -> list[Reply]:
    """A job's tasks that are not enrolled (common.model.TaskRanges), as two records:
    its pending ids, which share one state and its holds, and the ids a qdel ended
    before they started (finished). Each carries its ``ranges``; ``task_id`` is the
    first id, which orders it among the job's other tasks."""
    out = []
    for rng in ranges:
        holds = list(rng.get("holds") or [])
        pending, deleted = rng.get("pending"), rng.get("deleted")
        if pending:
            out.append({"job_id": rng["job_id"], "task_id": int(pending[0][0]),
                        "state": HOLD if holds else PENDING, "ranges": pending,
                        "holds": holds})
        if deleted:
            out.append({"job_id": rng["job_id"], "task_id": int(deleted[0][0]),
                        "state": FINISHED, "ranges": deleted,
                        "deleted_by": rng.get("deleted_by")})
    return out


def running_rows(reply: Reply, cluster: Reply, flt: JobFilter, *,
                 columns: Columns = ALL_COLUMNS, selected: Selected | None = None
                 ) -> list[JobRow]:
    """Plain qstat's started tasks: one row at the master queue instance, queue by queue."""
    all_jobs = reply.get("jobs") or []
    order = {instance_name(i["queue"], i["host"]): n
             for n, i in enumerate(cluster.get("instances") or [])}
    found: list[tuple[int, int, int, JobRow]] = []
    for job, tasks in selected_jobs(reply, flt) if selected is None else selected:
        for task in tasks:
            if task["state"] not in ACTIVE or not active_shown(job, task, flt):
                continue
            inst = instance_name(task.get("queue") or "", task.get("host") or "")
            if flt.instances is not None and inst not in flt.instances:
                continue
            found.append((order.get(inst, len(order)), job["job_id"], task["task_id"],
                          job_row(job, task, all_jobs, queue=inst, columns=columns)))
    return [row for *_, row in sorted(found, key=lambda f: f[:3])]


def shows_started_tasks(selected: Selected, flt: JobFilter) -> bool:
    """Whether plain qstat shows a started task of the selected jobs: only then do its
    rows need the cluster's queue instances (their order, ``running_rows``)."""
    return any(task["state"] in ACTIVE and active_shown(job, task, flt)
               for job, tasks in selected for task in tasks)


def _pending_groups(tasks: list[Reply]) -> list[list[Reply]]:
    """Waiting tasks grouped by equal state and holds; the group without holds first."""
    if len(tasks) == 1:
        return [tasks]
    groups: dict[tuple[str, tuple[str, ...]], list[Reply]] = {}
    for task in tasks:
        groups.setdefault((task["state"], tuple(sorted(task.get("holds") or []))), []).append(task)
    return sorted(groups.values(), key=lambda g: (bool(g[0].get("holds")), g[0]["task_id"]))


def _job_pending_rows(job: Reply, tasks: list[Reply], all_jobs: list[Reply],
                      columns: Columns) -> list[JobRow]:
    """One row per group of tasks; an array job shows the group's ids as task ranges."""
    rows = []
    step = int((_opts(job).get("array") or [1, 1, 1])[2])
    for group in _pending_groups(tasks):
        row = job_row(job, group[0], all_jobs, columns=columns)
        if _is_array(job):
            row["task_id"] = None
            row["pending_tasks"] = task_ranges(_spans(group), step)
        rows.append(row)
    return rows


def _rows_in_states(reply: Reply, flt: JobFilter, states: frozenset[str], columns: Columns,
                    selected: Selected | None) -> list[JobRow]:
    all_jobs, rows = reply.get("jobs") or [], []
    # -s p without hold letters shows every waiting task (pending_shown, once for all)
    every_waiting = "p" in flt.states and flt.states.isdisjoint(HOLD_FLAGS)
    for job, tasks in selected_jobs(reply, flt) if selected is None else selected:
        chosen = [t for t in tasks if t["state"] in states and (
            every_waiting or t["state"] == FINISHED or pending_shown(job, t, flt))]
        if len(chosen) == 1 and not _is_array(job):  # (one row as it is: no grouping)
            rows.append(job_row(job, chosen[0], all_jobs, columns=columns))
        elif chosen:
            rows += _job_pending_rows(job, chosen, all_jobs, columns)
    return rows


def pending_rows(reply: Reply, flt: JobFilter, *, columns: Columns = ALL_COLUMNS,
                 selected: Selected | None = None) -> list[JobRow]:
    """Waiting tasks (qw, hqw, Eqw): by priority, then job id."""
    rows = _rows_in_states(reply, flt, WAITING, columns, selected)
    return sorted(rows, key=lambda r: (-r["prio"], r["job_id"]))


def zombie_rows(reply: Reply, flt: JobFilter, *, columns: Columns = ALL_COLUMNS,
                selected: Selected | None = None) -> list[JobRow]:
    """-s z: finished tasks of the jobs the reply holds (state "z"), grouped like pending."""
    if "z" not in flt.states:
        return []
    return _rows_in_states(reply, flt, frozenset({FINISHED}), columns, selected)


def _slot_rows(row: JobRow, instance: str, lines: int, master: bool) -> list[JobRow]:
    """-g t: a started task's lines in one queue instance, one per slot (``master``: at
    its master instance, whose first line is ``MASTER``)."""
    first = {**row, "queue": instance, "slots": 1, "at_master": master,
             "master_label": "MASTER" if master else "SLAVE", "continuation": False}
    return [first] + [{**first, "master_label": "SLAVE"} for _ in range(max(0, lines - 1))]


def per_slot_rows(rows: list[JobRow], *, by_instance: bool = False,
                  extra_master_line: frozenset[str] = frozenset()) -> list[JobRow]:
    """qstat -g t (8.1.9's sge_print_jobs_queue, captured: tests/data/reference/lists/
    qstat-g-t*): started tasks line by line per slot, the master instance's first, and
    one more line there for a PE whose ``job_is_first_task`` is FALSE (``extra_master_line``:
    their names); waiting and finished tasks as they are, with an empty master column.
    ``by_instance``: the rows are -f's, one per queue instance already (``master`` says
    whether it is the master's). Which lines repeat the job's columns: ``continued``."""
    out: list[JobRow] = []
    for row in rows:
        if row.get("start_time") is None:
            out.append({**row, "master_label": "", "continuation": False})
            continue
        extra = 1 if row.get("granted_pe") in extra_master_line else 0
        if by_instance or not row.get("granted"):
            master = bool(row.get("master", True))
            out += _slot_rows(row, row.get("queue") or "", int(row["slots"]) + extra * master,
                              master)
            continue
        master_instance = row.get("queue") or ""
        granted = [(instance_name(str(q), str(h)), int(n)) for q, h, n in row["granted"]]
        granted.sort(key=lambda g: g[0] != master_instance)  # (stable: the master's first)
        for instance, slots in granted:
            master = instance == master_instance
            out += _slot_rows(row, instance, slots + extra * master, master)
    return out


def continued(rows: list[JobRow]) -> list[JobRow]:
    """8.1.9 prints a started task's columns on a -g t line only when the line before it
    (in print order, across queue instances) was another task's; the others are
    continuation lines, ``SLAVE`` even at the master instance."""
    last: tuple[int, int | None] | None = None
    out = []
    for row in rows:
        key = (row["job_id"], row.get("task_id"))
        if row.get("master_label"):  # (a started task's line)
            same = key == last
            row = {**row, "continuation": same,
                   "master_label": "SLAVE" if same else row["master_label"]}
        last = key
        out.append(row)
    return out


def attach_subtasks(rows: list[JobRow], reply: Reply) -> list[JobRow]:
    """qstat -t (8.1.9's sge_print_job with QSTAT_DISPLAY_TASKS): the -g t lines of a job
    task that has parallel tasks carry ``subtasks``: at the master instance's first line
    the master task, and the parallel task numbered k at the line k modulo the task's
    lines in its queue instance (more than one: further lines under it). Only running
    parallel tasks are known (``reply["pe_tasks"]``); their usage is not (NA)."""
    by_task: dict[tuple[int, int], list[Reply]] = {}
    for record in reply.get("pe_tasks") or []:
        by_task.setdefault((record["job_id"], record["task_id"]), []).append(record)
    usage = {(t["job_id"], t["task_id"]): t.get("usage") or {} for t in reply.get("tasks") or []}
    out: list[JobRow] = []
    block: list[JobRow] = []

    def flush() -> None:
        out.extend(_with_subtasks(block, by_task, usage))
        block.clear()

    for row in rows:
        if block and (_block_key(row) != _block_key(block[0]) or not row.get("master_label")):
            flush()
        if row.get("master_label"):
            block.append(row)
        else:
            out.append(row)
    flush()
    return out


def _block_key(row: JobRow) -> tuple[Any, ...]:
    return (row["job_id"], row.get("task_id"), row.get("queue"))


def _with_subtasks(block: list[JobRow], by_task: dict[tuple[int, int], list[Reply]],
                   usage: dict[tuple[int, int], Reply]) -> list[JobRow]:
    if not block:
        return []
    first = block[0]
    key = (first["job_id"], first.get("task_id") or 1)
    pe_tasks = by_task.get(key)
    if not pe_tasks:
        return list(block)
    lines = [[] for _ in block]  # type: list[list[dict[str, Any]]]
    if first.get("at_master"):
        used = usage.get(key) or {}
        lines[0].append({"id": "", "state": first["state"], "running": True,
                         **{k: (float(used[k]) if k in used else None)
                            for k in ("cpu", "mem", "io")}})
    for number, record in enumerate(pe_tasks, 1):
        if instance_name(record["queue"], record["host"]) == first.get("queue"):
            lines[number % len(block)].append(
                {"id": record["pe_task_id"], "state": first["state"], "running": True,
                 "cpu": None, "mem": None, "io": None})
    return [{**row, "subtasks": subtasks} for row, subtasks in zip(block, lines)]


# --------------------------------------------------------------------------- queues (-f)

def hosts_by_name(cluster: Reply) -> dict[str, Reply]:
    return {h["name"]: h for h in cluster.get("hosts") or []}


def queue_type(instance: Reply) -> str:
    pe_list = str(instance.get("pe_list") or "NONE").split()
    return qtype_letters(str(instance.get("qtype") or "")) + ("P" if pe_list not in ([], ["NONE"]) else "")


def _load_float(load: dict[str, str], name: str) -> float | None:
    try:
        return float(load[name])
    except (KeyError, ValueError):
        return None


def _offers(inst: Reply, load: dict[str, str], names: list[str] | None) -> list[list[str]]:
    """qstat -F lines: the qmaster's view of what the instance offers (load, fixed and
    consumable values at every level); the host's load values if it sent none."""
    offered = inst.get("resources")
    if not offered:
        return host_resources(load, names)
    wanted = None if names is None else set(names)
    return [list(line) for line in offered if wanted is None or line[1] in wanted
            or {a.name: a.shortcut for a in _complexes()}.get(line[1]) in wanted]


def host_resources(load: dict[str, str], names: list[str] | None) -> list[list[str]]:
    """qstat -F lines [dominance, name, value] from a host's load values, in complex order."""
    shown = []
    for attr in sorted(_complexes(), key=lambda a: a.name):
        if attr.name in load and (names is None or attr.name in names or attr.shortcut in names):
            shown.append(["hl", attr.name, load[attr.name]])
    return shown


def instance_jobs(name: str, reply: Reply, flt: JobFilter, *,
                  columns: Columns = ALL_COLUMNS, selected: Selected | None = None
                  ) -> list[JobRow]:
    """Started tasks with slots in this instance (their slots here); master first granted."""
    all_jobs, rows = reply.get("jobs") or [], []
    for job, tasks in selected_jobs(reply, flt) if selected is None else selected:
        for task in tasks:
            if task["state"] not in ACTIVE or not active_shown(job, task, flt):
                continue
            granted = task.get("granted") or [[task.get("queue"), task.get("host"), task.get("slots")]]
            here = sum(int(g[2] or 0) for g in granted if instance_name(g[0], g[1]) == name)
            master = instance_name(task.get("queue") or "", task.get("host") or "") == name
            if here or master:
                rows.append(job_row(job, task, all_jobs, queue=name, slots=here, master=master,
                                    columns=columns))
    return rows


def started_jobs(selected: Selected) -> Selected:
    """The selected jobs that have started tasks, with those tasks only: what each queue
    instance of ``qstat -f`` and each host of ``qhost -j`` looks through for its jobs."""
    out = []
    for job, tasks in selected:
        started = [task for task in tasks if task["state"] in ACTIVE]
        if started:
            out.append((job, started))
    return out


def instance_states(inst: Reply, hosts: dict[str, Reply]) -> str:
    """The states column of a queue instance of the cluster reply."""
    alive = bool(inst.get("alive")) and bool((hosts.get(inst["host"]) or {}).get("alive"))
    return state_string(str(inst.get("states") or ""), alive)


def explanations(inst: Reply, states: str, letters: str) -> list[str]:
    """qstat -explain: why the instance is in the states asked for: ``a``/``A`` every
    load/suspend threshold with its value, ``E`` the error (``c`` does not occur)."""
    lines: list[str] = []
    alarms = inst.get("alarms") or {}
    for letter in "aA":
        if letter in letters and letter in states:
            lines += [str(line) for line in alarms.get(letter) or []]
    reason = str(inst.get("reason") or "")
    if "E" in letters and "E" in states and reason:
        lines.append(reason)
    return lines


def queue_rows(cluster: Reply, reply: Reply, flt: JobFilter, *,
               resource_names: list[str] | None = None, show_resources: bool = False,
               explain: str = "", columns: Columns = ALL_COLUMNS,
               selected: Selected | None = None) -> list[dict[str, Any]]:
    """qstat -f queue instances (those -q/-qs selected) with their jobs."""
    hosts, out = hosts_by_name(cluster), []
    started = started_jobs(selected_jobs(reply, flt) if selected is None else selected)
    for inst in cluster.get("instances") or []:
        name = instance_name(inst["queue"], inst["host"])
        if flt.instances is not None and name not in flt.instances:
            continue
        host = hosts.get(inst["host"]) or {}
        load = host.get("load") or {}
        alive = bool(inst.get("alive")) and bool(host.get("alive"))
        states = instance_states(inst, hosts)
        out.append({"name": name, "qtype": queue_type(inst), "resv": 0,
                    "used": int(inst.get("used") or 0), "total": int(inst.get("slots") or 0),
                    "load_avg": _load_float(load, "load_avg") if alive else None,
                    "arch": load.get("arch"), "states": states,
                    "jobs": instance_jobs(name, reply, flt, columns=columns,
                                          selected=started),
                    "explain": explanations(inst, states, explain),
                    "resources": _offers(inst, load, resource_names) if show_resources else []})
    return out


def cluster_queue_summary(cluster: Reply, selected: frozenset[str] | None = None
                          ) -> list[dict[str, Any]]:
    """qstat -g c: per cluster queue; CQLOAD is np_load_avg weighted by slots."""
    hosts, summary = hosts_by_name(cluster), {}
    for inst in cluster.get("instances") or []:
        if selected is not None and instance_name(inst["queue"], inst["host"]) not in selected:
            continue
        cq = summary.setdefault(inst["queue"], {"name": inst["queue"], "used": 0, "resv": 0,
                                                "available": 0, "total": 0, "temp_disabled": 0,
                                                "manual_intervention": 0, "unknown": 0,
                                                "_load": 0.0, "_load_slots": 0})
        _add_instance(cq, inst, hosts.get(inst["host"]) or {})
    return [_finish_summary(summary[name]) for name in sorted(summary)]


def _add_instance(cq: dict[str, Any], inst: Reply, host: Reply) -> None:
    slots, used = int(inst.get("slots") or 0), int(inst.get("used") or 0)
    alive = bool(inst.get("alive")) and bool(host.get("alive"))
    cq["used"] += used
    cq["total"] += slots
    load = _load_float(host.get("load") or {}, "np_load_avg") if alive else None
    if load is not None:
        cq["_load"] += load * slots
        cq["_load_slots"] += slots
    states = set(str(inst.get("states") or ""))
    if alive and not states:
        cq["available"] += slots - used
    elif alive and states <= set("aoACDS"):  # 8.1.9's column: states that pass by themselves
        cq["temp_disabled"] += slots
    else:  # 'u', and qmod's d, E and s, count as needing manual intervention
        cq["manual_intervention"] += slots
        cq["unknown"] += 0 if alive else slots


def _finish_summary(cq: dict[str, Any]) -> dict[str, Any]:
    slots = cq.pop("_load_slots")
    total_load = cq.pop("_load")
    cq["load"] = total_load / slots if slots else None
    return cq
