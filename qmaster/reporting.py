"""The qmaster's writer of the reporting file (common.reporting has the format).

After each committed batch the qmaster hands over what it published: new jobs give a
``new_job`` record (and a ``job_log`` ``pending`` step with ``joblog=true``), task changes
the ``job_log`` steps and, where a task takes or frees slots and consumables, the
``host_consumable``/``queue_consumable`` records its hosts' ``report_variables`` ask for;
accounting records an ``acct`` record; load reports ``host`` records; queue instance
state changes ``queue`` records; advance reservations ``new_ar``, ``ar_attr``, ``ar_log``
and ``ar_acct``. Every ``sharelog`` interval the heartbeat adds the share tree's
``sharelog`` lines. Lines are kept in memory and appended every ``flush_time`` (at a
batch or a heartbeat after it, and at a clean stop), in one write, to
$SGE_ROOT/$SGE_CELL/common/reporting (created with 8.1.9's header, never through a
link). Nothing is written while ``reporting=false``.

The buffer is bounded: past MAX_BUFFER lines the next batch or heartbeat flushes at
once, and a file that cannot be written loses its lines (logged) rather than keeping
them. Unlike the accounting file, the reporting file is not made exactly-once: lines not
yet flushed when the qmaster is killed are lost (as 8.1.9's buffer is).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

from common import ar as rules
from common import reporting
from common.cluster import attr
from common.conf_values import split_names
from common.conffile import ConfError
from common.model import Job, Task
from common.qi_letters import state_string
from common.resource.complexes import resolve_name
from common.resource.values import MEMORY, TIME, format_double, format_value, parse_value

if TYPE_CHECKING:
    from common.placement.resources import ResourceView
    from qmaster.store import Store

MAX_BUFFER = 100_000   # lines kept before a flush is forced
GLOBAL = "global"


class ReportingWriter:
    def __init__(self, path: Path, qmaster_host: str, complain: Callable[..., None]) -> None:
        self.path, self.host, self._complain = path, qmaster_host, complain
        self.params = reporting.ReportingParams()
        self._lines: list[str] = []
        self._known: set[int] = set()
        self._log = reporting.JobLogState()
        self._last_flush = 0.0
        self._last_sharelog = 0.0
        self._text: str | None = None
        self._deleted: dict[int, set[int]] = {}  # job -> pending ids logged deleted
        self._ars: dict[int, dict[str, Any]] = {}  # AR id -> its record as last written
        self._load_times: dict[str, float] = {}  # host -> the load report last written
        self._alive: dict[str, bool] = {}
        self._troubled: set[int] = set()  # ARs with a granted queue instance unusable
        self._usable_changed = False  # a queue instance's state or a host's changed
        self._book = ConsumableBook()

    def configure(self, text: str) -> None:
        if text == self._text:
            return
        self._text = text
        try:
            self.params = reporting.parse_params(text)
        except ConfError:  # (checked at qconf -mconf: an old spool's value, say)
            self.params = reporting.ReportingParams()

    def seed(self, job_ids: Iterable[int], ars: Mapping[int, Mapping[str, Any]] = {},
             tasks: Iterable[Task] = ()) -> None:
        """Jobs and ARs there before this start are no new ones, and the active tasks'
        steps so far are taken (their next one is logged as a next one)."""
        self._known.update(job_ids)
        self._ars.update({ar_id: dict(record) for ar_id, record in ars.items()})
        for task in tasks:
            self._log.seen(task.key, str(task.state), task.host or "", task.granted)

    def note_batch(self, now: float, events: list[dict[str, Any]],
                   accounting_lines: list[str], store: "Store") -> None:
        jobs = store.jobs
        if not self.params.reporting:
            self._note_quietly(events, store)
            return
        stamp = int(now)
        levels = _Levels(store, self.params.log_consumables, self._book)
        # (8.1.9 writes a task's acct record before the job_log steps of its end)
        self._lines += [reporting.acct_line(stamp, line) for line in accounting_lines]
        for event in events:
            kind, op = event.get("kind"), event.get("op")
            if kind == "job" and op == "put":
                self._job(stamp, int(event["key"]), jobs)
            elif kind == "job" and op == "del":
                self._known.discard(int(event["key"]))
                self._deleted.pop(int(event["key"]), None)
            elif kind == "ranges" and op == "put" and self.params.joblog:
                self._deleted_ranges(stamp, event.get("obj") or {}, jobs)
            elif kind == "task" and op == "put":
                task = event.get("obj") or {}
                job = jobs.get(int(task.get("job_id", 0)))
                if job is not None:
                    self._lines += self._log.steps(
                        stamp, _facts(job), task, self.host, joblog=self.params.joblog,
                        consumables=lambda facts, granted, taking, job=job: levels.lines(
                            stamp, job, granted, taking))
            elif kind == "task" and op == "del":  # (gone without a last step)
                if self._log.last.pop(str(event["key"]), None) is not None:
                    self._book.forget()
            elif kind == "host" and op == "put":
                self._host(stamp, event.get("obj") or {}, store)
            elif kind == "qstate":
                self._usable_changed = True
                self._queue_state(stamp, str(event["key"]), store)
            elif kind in ("ar", "ar_deleted"):
                self._ar(stamp, event, store)
        if self._ars and self._usable_changed:
            self._ar_resources(stamp, store)
        self._usable_changed = False

    # ---- hosts and queues -----------------------------------------------------------
    def _host(self, stamp: int, host: Mapping[str, Any], store: "Store") -> None:
        """A load report (the host's ``load_time`` moved): its ``host`` record, and the
        global host's when its load sensors report global values; a host that went up
        or down: its queue instances' ``queue`` records (``u``)."""
        name = str(host.get("name") or "")
        alive = bool(host.get("alive"))
        if name in self._alive and self._alive[name] != alive:
            self._usable_changed = True
            for qi_name in _instances_on(store, name):
                self._queue_state(stamp, qi_name, store, alive=alive)
        self._alive[name] = alive
        load_time = float(host.get("load_time") or 0.0)
        if not alive or load_time == self._load_times.get(name):
            return
        self._load_times[name] = load_time
        own, everywhere = report_variables(store, name), report_variables(store, GLOBAL)
        variables = reporting.merged_report_variables(own, everywhere)
        line = reporting.host_line(stamp, name, int(load_time), host.get("load") or {},
                                   variables)
        if line:
            self._lines.append(line)
        if host.get("global_load") and everywhere:
            from common.placement.resources import global_load
            line = reporting.host_line(stamp, GLOBAL, int(load_time),
                                       global_load(store.hosts), everywhere)
            if line:
                self._lines.append(line)

    def _queue_state(self, stamp: int, qi_name: str, store: "Store", *,
                     alive: bool | None = None) -> None:
        queue, _, host = qi_name.partition("@")
        stored = str((store.qi_states.get(qi_name) or {}).get("states") or "")
        if alive is None:
            known = store.hosts.get(host)
            alive = bool(known is not None and known.alive)
        self._lines.append(reporting.queue_line(stamp, queue, host,
                                                state_string(stored, alive)))

    # ---- advance reservations -------------------------------------------------------
    def _ar(self, stamp: int, event: Mapping[str, Any], store: "Store") -> None:
        """``new_ar``/``ar_attr`` when one is granted, ``ar_log`` at its start, at its
        end (with ``ar_acct``) and, after qrdel, when it goes (8.1.9 logs the deletion
        once its last job has ended). An ending AR's event carries its new state (it
        may be gone from the store by now); one without a state: it went."""
        ar_id = int(event["key"])
        known = self._ars.get(ar_id)
        record = store.ars.get(ar_id) or known
        ending = (event.get("obj") or {}).get("state")
        if event.get("kind") == "ar_deleted" and not ending:
            if known is not None and known["state"] != "x":
                self._lines += reporting.ar_end_lines(stamp, known, "d")
            self._ars.pop(ar_id, None)
            self._troubled.discard(ar_id)
            return
        if record is None:
            return
        state = str(ending or record["state"])
        if known is None:
            self._lines += reporting.new_ar_lines(stamp, record)
            if _Usable(store).trouble(record):  # (granted while an instance is unusable)
                self._troubled.add(ar_id)
                # (8.1.9 grants it waiting, then starts it: W, then E if it starts now)
                self._lines.append(reporting.ar_log_line(stamp, record, "W", "unsatisfied"))
        if state == "x" and (known or {}).get("state") != "x":
            self._lines += reporting.ar_end_lines(stamp, record, "x")
        elif state == "r" and (known or {}).get("state") != "r":
            shown = "E" if ar_id in self._troubled else "r"
            self._lines.append(reporting.ar_log_line(stamp, record, shown, "start"))
        self._ars[ar_id] = {**record, "state": state}

    def _ar_resources(self, stamp: int, store: "Store") -> None:
        """After queue instance or host changes: ``ar_log`` ``RESOURCES UNSATISFIED``
        for each AR one of whose granted queue instances became unusable (disabled, in
        error, its host down) and ``RESOURCES SATISFIED`` when all are usable again."""
        usable = _Usable(store)
        for ar_id, record in self._ars.items():
            if record["state"] in rules.ENDING_STATES:
                continue
            troubled = usable.trouble(record)
            if troubled == (ar_id in self._troubled):
                continue
            (self._troubled.add if troubled else self._troubled.discard)(ar_id)
            shown = rules.shown_state(record, stamp, "x" if troubled else None)
            self._lines.append(reporting.ar_log_line(
                stamp, record, shown, "unsatisfied" if troubled else "satisfied"))

    def _note_quietly(self, events: list[dict[str, Any]], store: "Store") -> None:
        """While reporting is off: the jobs and ARs made meanwhile are no new ones once
        it is turned on (and those that went are forgotten: the sets stay bounded), and
        the tasks' steps and hosts' states are followed, so that the first records after
        it is turned on tell only what changed then."""
        for event in events:
            kind = event.get("kind")
            if kind == "job":
                job_id = int(event["key"])
                if event.get("op") == "put":
                    self._known.add(job_id)
                else:
                    self._known.discard(job_id)
                    self._deleted.pop(job_id, None)
            elif kind in ("ar", "ar_deleted"):
                ar_id = int(event["key"])
                if ar_id in store.ars:
                    self._ars[ar_id] = dict(store.ars[ar_id])
                else:
                    self._ars.pop(ar_id, None)
            elif kind == "task":  # (a task's next step is told as a next one later)
                task = event.get("obj") or {}
                if event.get("op") == "del" or task.get("state") == "finished":
                    self._log.last.pop(str(event["key"]), None)
                else:
                    self._log.seen(str(event["key"]), str(task.get("state")),
                                   str(task.get("host") or ""), task.get("granted") or [])
            elif kind == "host":
                self._alive[str(event["key"])] = bool((event.get("obj") or {}).get("alive"))
        self._book.forget()  # (not kept meanwhile: counted anew when needed)

    # ---- jobs -----------------------------------------------------------------------
    def _deleted_ranges(self, stamp: int, rng: Mapping[str, Any], jobs: Mapping[int, Job]
                        ) -> None:
        """Pending ids deleted without becoming tasks (qdel of a pending job): logged
        once each, as 8.1.9 logs a pending job's deletion."""
        job = jobs.get(int(rng.get("job_id", 0)))
        deleted = rng.get("deleted") or []
        if job is None or not deleted:
            return
        seen = self._deleted.setdefault(job.job_id, set())
        facts = _facts(job)
        for first, last, step in deleted:
            for task_id in range(first, last + 1, step):
                if task_id not in seen:
                    seen.add(task_id)
                    self._lines += reporting.pending_deleted(
                        stamp, facts, task_id, str(rng.get("deleted_by") or ""), self.host)

    def _job(self, stamp: int, job_id: int, jobs: Mapping[int, Job]) -> None:
        if job_id in self._known:
            return
        self._known.add(job_id)
        job = jobs.get(job_id)
        if job is None:
            return
        facts = _facts(job)
        self._lines.append(reporting.new_job_line(stamp, facts))
        if self.params.joblog:
            self._lines.append(reporting.job_log_line(stamp, facts, "pending", -1, "",
                                                      job.owner, self.host, "new job"))

    # ---- share tree -----------------------------------------------------------------
    def sharelog_due(self, now: float) -> bool:
        return bool(self.params.reporting and self.params.sharelog
                    and now - self._last_sharelog >= self.params.sharelog)

    def note_sharelog(self, now: float, rows: list[dict[str, Any]]) -> None:
        """The share tree's nodes (sge_share_mon's rows; none without a tree)."""
        self._last_sharelog = now
        self._lines += reporting.sharelog_lines(int(now), rows)

    # ---- the file -------------------------------------------------------------------
    def flush_due(self, now: float, *, force: bool = False) -> None:
        if not self._lines:
            return
        if not force and now - self._last_flush < self.params.flush_time and \
                len(self._lines) < MAX_BUFFER:
            return
        lines, self._lines = self._lines, []
        self._last_flush = now
        try:
            _append(self.path, lines)
        except OSError as exc:  # (lost, as 8.1.9's; the qmaster goes on)
            self._complain("reporting file not written", path=str(self.path),
                           error=repr(exc), lines=len(lines))


def report_variables(store: "Store", host: str) -> list[str]:
    """A host's own ``report_variables`` (host_conf(5)); [] for NONE or no host."""
    pairs = store.conf["exechost"].get(host)
    return split_names(attr(pairs, "report_variables", "NONE")) if pairs else []


def share_tree_rows_now(store: "Store", services: Any, now: float) -> list[dict[str, Any]]:
    """The configured share tree's nodes as sge_share_mon shows them now (usage as last
    booked); [] without a share tree. The users' nodes the policy adds below a
    ``default`` leaf are left out: 8.1.9's scheduler keeps them to itself, so its qmaster's
    tree, which the sharelog dumps, never has them."""
    from common.objects_conf.sharetree import SHARETREE, tree_of
    from common.policy import inputs as policy_inputs
    from qmaster.policy_view import share_tree_rows
    stored = (store.conf.get("sharetree") or {}).get(SHARETREE)
    root = tree_of(stored) if stored else None
    if root is None:
        return []
    book = services.usage
    result = services.policy_view.result(store, now, services.seq, book)
    conf = policy_inputs.policy_conf(store.conf)
    configured = _paths(root)
    return [row for row in share_tree_rows(result, book.records,
                                           book.decayed_records(now, conf), now, False)
            if row["node_name"] in configured]


def _paths(root: Any) -> set[str]:
    """``/`` for the root, ``/a``, ``/a/b`` below it: the configured nodes' paths."""
    out = {"/"}
    stack = [(child, f"/{child.name}") for child in root.children]
    while stack:
        node, path = stack.pop()
        out.add(path)
        stack.extend((child, f"{path}/{child.name}") for child in node.children)
    return out


class _Usable:
    """The queue instance states and hosts down that keep an AR from its slots."""

    def __init__(self, store: "Store") -> None:
        self.states = {name: str(s.get("states") or "") for name, s in
                       store.qi_states.items()}
        self.down = [name for name, host in store.hosts.items() if not host.alive]

    def trouble(self, record: Mapping[str, Any]) -> bool:
        return rules.trouble(record, self.states, self.down) is not None


def _instances_on(store: "Store", host: str) -> list[str]:
    from qmaster.placement_view import instances_of
    return [qi.name for qi in instances_of(store) if qi.host == host]


class ConsumableBook:
    """Slots and consumables in use per level, as the reporting file's consumable records
    show them: kept step by step from the tasks the writer sees taking and freeing their
    grants (a task's debits: constant cost), worked out in full from the store only when
    first needed, after the layout changed (configuration, queue states, hosts up or
    down) or after steps it did not follow (the qmaster's loop is never held for a walk
    over every running task at each batch)."""

    def __init__(self) -> None:
        self.view: ResourceView | None = None
        self.slots: dict[tuple[str, str], int] = {}
        self.generation = -1

    def forget(self) -> None:
        self.view = None

    def current(self, store: "Store") -> bool:
        return self.view is not None and self.generation == store.layout_generation

    def rebuild(self, store: "Store") -> None:
        """From the store as it is (after the batch: its steps are in already)."""
        from common.placement.resources import build_view
        from qmaster.placement_view import instances_of
        active = [(store.jobs[t.job_id].opts.get("hard_resources") or {}, t.granted)
                  for t in store.active_tasks() if t.job_id in store.jobs and t.granted]
        self.view = build_view(store.conf, store.hosts, instances_of(store), active)
        self.slots = dict(store.used_slots)
        self.generation = store.layout_generation

    def step(self, job: Job, granted: list[list[Any]], sign: int) -> None:
        """A task took (+1) or freed (-1) its grant."""
        from common.placement.resources import apply, debits, job_requests
        assert self.view is not None
        requests = job_requests(job.opts.get("hard_resources") or {}, self.view.attrs)
        if requests is not None:
            apply(self.view, debits(self.view, requests, granted), sign)
        for queue, host, slots in granted:
            key = (str(queue), str(host))
            self.slots[key] = self.slots.get(key, 0) + sign * int(slots)

    def consumables(self, key: tuple[str, ...]) -> list[reporting.Consumable]:
        assert self.view is not None
        attrs = {a.name: a for a in self.view.attrs}
        used = self.view.usage.get(key, {})
        out = []
        for name, text in self.view.values.get(key, {}).items():
            found = attrs.get(name)
            if found is None or not (found.is_consumable or name == "slots"):
                continue
            if key[0] == "queue" and name == "slots":  # (the pass's own bookkeeping)
                in_use = float(self.slots.get((key[1], key[2]), 0))
            else:
                in_use = float(used.get(name, 0.0))
            out.append(reporting.Consumable(name, in_use, _capacity(found.type, text)))
        if key[0] == "queue":  # (8.1.9 lists a queue instance's slots first)
            out.sort(key=lambda c: c.name != "slots")
        return out


class _Levels:
    """The consumable records of one batch's task steps (ConsumableBook has the
    figures; ``fresh``: the book was worked out during this batch, its steps are in)."""

    def __init__(self, store: "Store", every: bool, book: ConsumableBook) -> None:
        self.store, self.every, self.book = store, every, book
        self.fresh = False

    def lines(self, stamp: int, job: Job, granted: list[list[Any]], taking: bool
              ) -> list[str]:
        """8.1.9's records of a job taking or freeing its grant: the global host's and,
        per granted queue instance, its host's ``host_consumable`` and its
        ``queue_consumable``, each with the consumables it logs (module doc)."""
        globals_ = report_variables(self.store, GLOBAL)
        if not self.every and not globals_ and not any(
                report_variables(self.store, str(host)) for _, host, _ in granted):
            self.book.forget()  # (nothing is logged: the book is not kept meanwhile)
            return []
        if self.book.current(self.store) and not self.fresh:
            self.book.step(job, granted, 1 if taking else -1)
        elif not self.fresh:
            self.book.rebuild(self.store)
            self.fresh = True
        requested = self._requested(job)
        out: list[str] = []
        for queue, host, _slots in granted:
            queue, host = str(queue), str(host)
            merged = reporting.merged_report_variables(report_variables(self.store, host),
                                                       globals_)
            for name, variables in ((GLOBAL, globals_), (host, merged)):
                text = reporting.consumables_text(
                    self.book.consumables(("global",) if name == GLOBAL else ("host", name)),
                    reporting.job_requests_logged(requested, variables, self.every))
                line = reporting.host_consumable_line(stamp, name, text)
                if line:
                    out.append(line)
            text = reporting.consumables_text(
                self.book.consumables(("queue", queue, host)),
                reporting.job_requests_logged(requested, merged, self.every))
            states = str((self.store.qi_states.get(f"{queue}@{host}") or {}).get("states")
                         or "")
            alive = host in self.store.hosts and self.store.hosts[host].alive
            line = reporting.queue_consumable_line(stamp, queue, host,
                                                   state_string(states, alive), text)
            if line:
                out.append(line)
        return out

    def _requested(self, job: Job) -> set[str]:
        assert self.book.view is not None
        names = set()
        for name in (job.opts.get("hard_resources") or {}):
            found = resolve_name(self.book.view.attrs, str(name))
            names.add(found.name if found is not None else str(name))
        return names


def _capacity(vtype: Any, text: str) -> str:
    """A configured value as 8.1.9 prints it: memory and time in their form, others %f."""
    try:
        value = parse_value(vtype, text)
    except Exception:  # noqa: BLE001 - (checked when configured; an odd one shows as is)
        return text
    if vtype in (MEMORY, TIME):
        return format_value(vtype, value)
    return format_double(float(value))


def _facts(job: Job) -> reporting.JobFacts:
    return reporting.job_facts(job.job_id, job.opts, name=job.name, owner=job.owner,
                               group=job.group, submit_time=job.submit_time,
                               is_array=job.is_array)


def _append(path: Path, lines: list[str]) -> None:
    flags = os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd, created = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o644), True
    except FileExistsError:
        fd, created = os.open(path, flags), False
    try:
        data = ((reporting.HEADER if created else "") + "".join(f"{line}\n" for line in lines))
        view = memoryview(data.encode())
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)
