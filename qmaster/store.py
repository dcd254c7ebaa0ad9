"""The qmaster's in-memory object store and the batch that records every change.

The store is the authority: jobs, tasks, exec host runtime state, the states ``qmod``
gives queue instances (disabled, suspended, error: ``qi_states``), configuration objects
and the name lists (managers, operators, administrative and submit hosts). Handlers never
write to it directly; they go through a ``Batch``, which applies the change in memory,
queues the spool write, the event to publish and any message for an execd. The server
commits the batch's transaction and only then sends replies, events and outbox messages.

A request applies completely or not at all: every change to the store records how to undo
it in a journal, and the server takes a ``Savepoint`` before each request. When a handler
refuses the request, or fails with a bug, ``rollback`` takes back what it had changed in
memory, in the transaction, in the events and in the outbox, so the other requests of the
batch commit without a trace of it.
"""
from __future__ import annotations

import fnmatch
from collections import OrderedDict
from dataclasses import dataclass, field, fields, replace
from typing import Any, Callable

from common import task_ranges
from common.jobspec import check_job_options, sparse_job_options
from common.jobstate import ACTIVE_STATES, Event, State, next_state
from common.model import CONF_KINDS, ORDERED_KINDS, ExecHost, Job, Task, TaskRanges, task_key
from common.pe_tasks import PeBook, released
from common.placement.job import placement_record
from qmaster import mail as job_mail
from qmaster.spool import Transaction

TYPE_CHECKING = False
if TYPE_CHECKING:
    from common.mail import Mail

# sge_conf(5) finished_jobs of a new cell (and of a spool without a valid one): how many
# finished jobs are kept for qstat -s z, qstat -j and late `wait` requests
DEFAULT_FINISHED_JOBS = 100
SNAPSHOT_PART_RECORDS = 5000  # jobs and tasks per snapshot part (a few MiB at most)
TASK_ID_MASK = (1 << 32) - 1  # a snapshot cursor's task id bits

# name lists: users (qconf -am/-ao) and hosts (qconf -ah/-as, see qmaster.host_rights)
LIST_KINDS = ("manager", "operator", "adminhost", "submithost")
# the spooled master-list order of each of common.model.ORDERED_KINDS
ORDER_KIND = "order"


@dataclass
class Outgoing:
    """A message for a peer that is not the requester (an execd), sent after commit."""

    identity: bytes
    msg_type: str
    body: dict[str, Any]


@dataclass
class Batch:
    txn: Transaction = field(default_factory=Transaction)
    events: list[dict[str, Any]] = field(default_factory=list)
    outbox: list[Outgoing] = field(default_factory=list)
    finished_jobs: list[int] = field(default_factory=list)
    # (job id, task id) of the tasks that finished in the batch: -hold_jid_ad releases
    # the same task of the jobs that wait on it (qmaster.array_deps)
    finished_tasks: list[tuple[int, int]] = field(default_factory=list)
    accounting: list[dict[str, Any]] = field(default_factory=list)
    # mails about jobs and ARs (qmaster.mail), sent once the batch is committed
    mails: list[Mail] = field(default_factory=list)

    def event(self, kind: str, op: str, key: str, obj: Any = None) -> None:
        self.events.append({"kind": kind, "op": op, "key": key, "obj": obj})

    def send(self, identity: bytes, msg_type: str, body: dict[str, Any]) -> None:
        self.outbox.append(Outgoing(identity, msg_type, body))


@dataclass(frozen=True)
class Savepoint:
    """Where a batch and the store's journal stood before a request."""

    journal: int
    txn: int
    events: int
    outbox: int
    finished_jobs: int
    finished_tasks: int
    accounting: int
    mails: int


_TASK_FIELDS = tuple(f.name for f in fields(Task))


def _task_image(task: Task) -> dict[str, Any]:
    """A task's fields, with its lists and maps copied (they are replaced, never shared)."""
    return {name: _copied(getattr(task, name)) for name in _TASK_FIELDS}


def _copied(value: Any) -> Any:
    if isinstance(value, list):
        return [list(v) if isinstance(v, list) else v for v in value]
    if isinstance(value, dict):
        return dict(value)
    return value


_ABSENT = object()


def _job(data: Any) -> Job:
    """A spooled job, its options checked by the job description as at submission."""
    job = Job.from_dict(_map(data))
    if type(job.job_id) is not int or not isinstance(job.owner, str):
        raise ValueError("job fields of the wrong type")
    job.opts = check_job_options(job.opts)
    return job


def _spooled_job(job: Job) -> dict[str, Any]:
    """What the spool keeps of a job: its options without those at their defaults
    (``_job`` fills them in again when it reads it back)."""
    data = job.to_dict()
    data["opts"] = sparse_job_options(job.opts)
    return data


def _for_scheduler(job: Job) -> dict[str, Any]:
    """A job as events and snapshots carry it: what the scheduler's placement reads."""
    return placement_record(job.job_id, job.owner, job.group, job.opts, job.submit_time)


def _ranges(data: Any) -> TaskRanges:
    ranges = TaskRanges.from_dict(_map(data))
    if type(ranges.job_id) is not int or not _range_list(ranges.pending) or \
            not _range_list(ranges.deleted) or \
            not all(type(h) is str and len(h) == 1 and h in "uoshd" for h in ranges.holds):
        raise ValueError("task range fields of the wrong type")
    return ranges


def _held(data: Any) -> list[list[Any]] | None:
    """A spooled ``held`` record's groups, or None when it is not one."""
    groups = data.get("groups") if isinstance(data, dict) else None
    if type(groups) is not list or not all(
            type(g) is list and len(g) == 2 and _range_list(g[0]) and g[0]
            and type(g[1]) is list and g[1]
            and all(type(h) is str and len(h) == 1 and h in "uoshd" for h in g[1])
            for g in groups):
        return None
    return [[g[0], sorted(set(g[1]))] for g in groups]


def _state(holds: list[str]) -> State:
    return State.HOLD if holds else State.PENDING


def _range_list(ranges: Any) -> bool:
    """A list of ``[first, last, step]`` with 1 <= first <= last and step >= 1 (a loop,
    not nested generators: a restart reads one per job)."""
    if type(ranges) is not list:
        return False
    for r in ranges:
        if type(r) is not list or len(r) != 3:
            return False
        first, last, step = r
        if type(first) is not int or type(last) is not int or type(step) is not int or \
                not 1 <= first <= last or step < 1:
            return False
    return True


def _task(data: Any) -> Task:
    task = Task.from_dict(_map(data))
    State(task.state)
    if type(task.job_id) is not int or type(task.task_id) is not int or \
            not all(isinstance(g, list) and len(g) == 3 for g in task.granted):
        raise ValueError("task fields of the wrong type")
    return task


def _conf_pairs(data: Any) -> Any:
    if not isinstance(data, list) or not all(isinstance(p, list) and
                                             all(isinstance(x, str) for x in p) for p in data):
        raise ValueError("not a list of string rows")
    return data


def _qi_state(data: Any) -> Any:
    state = _map(data)
    if not all(isinstance(state.get(k, ""), str) for k in ("states", "reason")):
        raise ValueError("queue instance state fields of the wrong type")
    return state


def _acct(data: Any) -> Any:
    return _map(data)


def _map(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ValueError(f"a stored {type(data).__name__}, not a map")
    return data


def _restore(mapping: dict[Any, Any], key: Any, old: Any) -> None:
    if old is _ABSENT:
        mapping.pop(key, None)
    else:
        mapping[key] = old


class Store:
    def __init__(self) -> None:
        # the sequence number of the last event published: what was worked out from the
        # store at one number holds until the next (qmaster.submit_checks keeps answers so)
        self.event_seq = 0
        self.jobs: dict[int, Job] = {}
        self.tasks: dict[str, Task] = {}  # enrolled tasks by "job.task" (common.model)
        self.enrolled: dict[int, dict[int, Task]] = {}  # the same, job id -> task id -> task
        self.ranges: dict[int, TaskRanges] = {}  # every job's tasks that are not enrolled
        # job id -> pending ids with holds of their own, as [range list, holds] groups
        # (a qhold -t of some of an array's pending ids: ``set_pending_groups``); the
        # scheduler never places them, so they travel in no event (kind "held" in the
        # spool, and as extra range records in a job listing)
        self.held: dict[int, list[list[Any]]] = {}
        # per job: tasks not finished yet (pending ids and enrolled tasks); 0 = finished
        self.unfinished: dict[int, int] = {}
        self.owner_jobs: dict[str, set[int]] = {}  # owner -> job ids (qstat -u: no walk)
        # owner -> (unfinished jobs, bytes of their scripts): what max_u_jobs, max_jobs
        # and the spool quota count at submission (qmaster.submit_caps), without a walk
        self.active_jobs: dict[str, tuple[int, int]] = {}
        self.hosts: dict[str, ExecHost] = {}
        self.conf: dict[str, dict[str, list[list[str]]]] = {k: {} for k in CONF_KINDS}
        self.lists: dict[str, list[str]] = {k: [] for k in LIST_KINDS}
        self.next_job_id = 1
        self.used_slots: dict[tuple[str, str], int] = {}
        self.finished_order: OrderedDict[int, None] = OrderedDict()
        self.pending_accounting: dict[str, dict[str, Any]] = {}
        self.dependency_held: set[int] = set()  # jobs waiting for -hold_jid predecessors
        # predecessor job id -> the jobs whose -hold_jid_ad names it, and the other way
        # round: the predecessors as resolved at submission or qalter (qmaster.array_deps)
        self.ad_successors: dict[int, set[int]] = {}
        self.ad_predecessors: dict[int, list[int]] = {}
        # the held jobs by what their -hold_jid names: a job id, or a name or pattern
        self.waits_on_id: dict[int, set[int]] = {}
        self.waits_on_name: dict[str, set[int]] = {}
        self._dependency_refs: dict[int, list[str]] = {}  # what each was indexed by
        self.active: set[str] = set()  # keys of tasks that hold slots (ACTIVE_STATES)
        self._journal: list[Callable[[], None]] = []  # how to undo each change, in order
        self.set_aside: dict[tuple[str, str], str] = {}  # spooled objects not loaded: why
        self.aside_jobs: dict[int, str] = {}  # jobs set aside, now or at an earlier start
        # "queue@host" -> {"states": letters of common.qi_letters.QI_STATES, "reason": why E}
        # (spool kind and event kind "qstate"; an instance without states has no entry)
        self.qi_states: dict[str, dict[str, str]] = {}
        # rises whenever what the queue instances and their fixed resource levels are
        # made of changes (configuration, hosts coming or going up or down, qmod
        # states), and at every rollback: qmaster.placement_view keeps them until then
        self.layout_generation = 0
        # advance reservations (common.ar records) by id, spool kind "ar"; their jobs by AR
        self.ars: dict[int, dict[str, Any]] = {}
        self.ar_jobs: dict[int, set[int]] = {}
        self.next_ar_id = 1
        # the parallel tasks (qrsh -inherit) of each job task that has started any, by
        # task key (common.pe_tasks; spool kind "petasks"), kept while the job is
        self.pe_books: dict[str, PeBook] = {}

    # ---- all or nothing --------------------------------------------------------------
    def savepoint(self, batch: Batch) -> Savepoint:
        return Savepoint(len(self._journal), batch.txn.mark(), len(batch.events),
                         len(batch.outbox), len(batch.finished_jobs),
                         len(batch.finished_tasks), len(batch.accounting),
                         len(batch.mails))

    def rollback(self, batch: Batch, point: Savepoint) -> None:
        """Take back every change made since ``point``: store, transaction, events, outbox."""
        while len(self._journal) > point.journal:
            self._journal.pop()()
        self.layout_generation += 1
        batch.txn.rollback(point.txn)
        del batch.events[point.events:]
        del batch.outbox[point.outbox:]
        del batch.finished_jobs[point.finished_jobs:]
        del batch.finished_tasks[point.finished_tasks:]
        del batch.accounting[point.accounting:]
        del batch.mails[point.mails:]

    def forget_journal(self) -> None:
        """After a commit nothing before it can be taken back."""
        self._journal.clear()

    def _undo(self, action: Callable[[], None]) -> None:
        self._journal.append(action)

    def on_rollback(self, action: Callable[[], None]) -> None:
        """Have ``action`` run if what was changed since the last savepoint is taken
        back (state kept beside the store, e.g. qmaster.usage_book, joins its journal)."""
        self._journal.append(action)

    def _set_item(self, mapping: dict[Any, Any], key: Any, value: Any) -> None:
        old = mapping.get(key, _ABSENT)
        mapping[key] = value
        self._undo(lambda: _restore(mapping, key, old))

    def _pop_item(self, mapping: dict[Any, Any], key: Any) -> Any:
        old = mapping.pop(key, _ABSENT)
        if old is not _ABSENT:
            self._undo(lambda: mapping.__setitem__(key, old))
            return old
        return None

    def _set_member(self, members: set[Any], key: Any, present: bool) -> None:
        if (key in members) == present:
            return
        if present:
            members.add(key)
            self._undo(lambda: members.discard(key))
        else:
            members.discard(key)
            self._undo(lambda: members.add(key))

    def hold_for_dependency(self, job_id: int, held: bool) -> None:
        """Record that ``job_id`` waits (or no longer waits) for -hold_jid predecessors;
        a held job is indexed by its references as they are now (after a qalter too)."""
        self._index_dependency(job_id, False)
        self._set_member(self.dependency_held, job_id, held)
        if held:
            self._index_dependency(job_id, True)

    def _index_dependency(self, job_id: int, add: bool) -> None:
        if add:
            job = self.jobs.get(job_id)
            refs = [str(r) for r in (job.opts.get("hold_jid") or [])] if job else []
            self._set_item(self._dependency_refs, job_id, refs)
        else:  # the references it was indexed by (a qalter may have changed them since)
            refs = self._pop_item(self._dependency_refs, job_id) or []
        for ref in refs:
            if ref.isdigit():
                members = self.waits_on_id.setdefault(int(ref), set())
            else:
                members = self.waits_on_name.setdefault(ref, set())
            self._set_member(members, job_id, add)

    def ad_predecessor_ids(self, job: Job) -> list[int]:
        """The jobs named by the job's ``-hold_jid_ad`` that exist: ids, and names or
        patterns of jobs of the same owner (qsub(1))."""
        found: set[int] = set()
        for ref in (str(r) for r in job.opts.get("hold_jid_ad") or []):
            if ref.isdigit():
                if int(ref) in self.jobs and int(ref) != job.job_id:
                    found.add(int(ref))
                continue
            found.update(other.job_id for other in self.jobs.values()
                         if other.job_id != job.job_id and other.owner == job.owner
                         and fnmatch.fnmatchcase(other.name, ref))
        return sorted(found)

    def index_array_dependency(self, job_id: int, predecessors: list[int], add: bool) -> None:
        """Index ``job_id`` under each of its -hold_jid_ad predecessors (or drop it)."""
        for pred in predecessors:
            members = self.ad_successors.setdefault(pred, set())
            self._set_member(members, job_id, add)
        known = self.ad_predecessors.get(job_id, [])
        now = sorted(set(known) | set(predecessors)) if add else \
            [p for p in known if p not in predecessors]
        if now:
            self._set_item(self.ad_predecessors, job_id, now)
        else:
            self._pop_item(self.ad_predecessors, job_id)

    def waiting_on(self, finished: Job) -> set[int]:
        """Held jobs whose -hold_jid may name ``finished`` (by id, or by name for jobs of
        the same owner)."""
        found = set(self.waits_on_id.get(finished.job_id, ()))
        for pattern, members in self.waits_on_name.items():
            if members and fnmatch.fnmatchcase(finished.name, pattern):
                found.update(m for m in members if m in self.jobs and
                             self.jobs[m].owner == finished.owner)
        return found

    # ---- loading -------------------------------------------------------------------
    def load(self, objects: dict[str, dict[str, Any]], meta: dict[str, int]) -> None:
        """Take in what the spool holds. An object that does not read back as what it
        should be is not loaded but listed in ``set_aside`` ((kind, key) -> why), for
        the server to move aside and report: start-up never fails on one object."""
        self.set_aside = {}
        self._load_jobs(objects.get("job", {}), objects.get("task", {}),
                        objects.get("ranges", {}), dict(objects.get("held", {})))
        for key, entry in objects.get("aside:job", {}).items():
            why = entry.get("why") if isinstance(entry, dict) else None
            if key.isdigit():
                self.aside_jobs[int(key)] = str(why or "unreadable in the spool")
        self.aside_jobs.update((int(key), why) for (kind, key), why in self.set_aside.items()
                               if kind == "job" and key.isdigit())
        for key, data in objects.get("host", {}).items():
            host = self._loaded("host", key, data, ExecHost.from_dict)
            if host is not None:
                self.hosts[host.name] = replace(host, alive=False)
        for kind in CONF_KINDS:
            self.conf[kind] = {key: pairs for key, pairs in objects.get(kind, {}).items()
                               if self._loaded(kind, key, pairs, _conf_pairs) is not None}
        for kind in ORDERED_KINDS:
            self.conf[kind] = _in_order(self.conf[kind],
                                        objects.get(ORDER_KIND, {}).get(kind))
        for kind in LIST_KINDS:
            self.lists[kind] = sorted(k for k in objects.get(kind, {}) if isinstance(k, str))
        self.qi_states = {k: v for k, v in objects.get("qstate", {}).items()
                          if self._loaded("qstate", k, v, _qi_state) is not None}
        self.pending_accounting = {k: v for k, v in objects.get("acct", {}).items()
                                   if self._loaded("acct", k, v, _acct) is not None}
        self._load_ars(objects.get("ar", {}), meta.get("next_ar_id", 1))
        for key, data in objects.get("petasks", {}).items():
            book = self._loaded("petasks", key, data, PeBook.from_dict)
            if book is not None and key.partition(".")[0].isdigit() and \
                    int(key.partition(".")[0]) in self.jobs:
                self.pe_books[key] = book
            elif book is not None:
                self.set_aside[("petasks", key)] = "its job is missing"
        next_id = meta.get("next_job_id", 1)
        self.next_job_id = next_id if type(next_id) is int and 0 < next_id < 10_000_000 \
            else max(self.jobs, default=0) + 1
        self.layout_generation += 1
        self._rebuild_derived()

    def _load_ars(self, ars: dict[str, Any], next_id: Any) -> None:
        from common.ar import MAX_AR_ID, check_record
        for key, data in ars.items():
            record = self._loaded("ar", key, data, check_record)
            if record is not None:
                self.ars[record["ar_id"]] = record
        self.next_ar_id = next_id if type(next_id) is int and 0 < next_id <= MAX_AR_ID \
            else max(self.ars, default=0) + 1

    def _load_jobs(self, jobs: dict[str, Any], tasks: dict[str, Any],
                   ranges: dict[str, Any], held: dict[str, Any]) -> None:
        by_job: dict[str, list[tuple[str, Any]]] = {}
        for key, data in tasks.items():
            by_job.setdefault(key.partition(".")[0], []).append((key, data))
        for key, data in jobs.items():
            job = self._loaded("job", key, data, _job)
            mine = by_job.pop(key, [])
            loaded = [self._loaded("task", k, d, _task) for k, d in mine]
            # a spool from before task ranges has every task enrolled and no ranges
            spooled = ranges.pop(key, None)
            rng = self._loaded("ranges", key, spooled, _ranges) if spooled is not None \
                else TaskRanges(job_id=job.job_id if job is not None else 0)
            spooled_held = held.pop(key, None)
            groups = _held(spooled_held) if spooled_held is not None else []
            if job is None or rng is None or any(t is None for t in loaded) or \
                    groups is None or not _consistent(
                        job, rng, [t for t in loaded if t is not None], groups):
                self._set_aside_job(key, data, mine, "the job or one of its tasks is unreadable")
                if spooled is not None:
                    self.set_aside.setdefault(("ranges", key), f"its job {key} was set aside")
                if spooled_held is not None:
                    self.set_aside.setdefault(("held", key), f"its job {key} was set aside")
                continue
            self.jobs[job.job_id] = job
            self.ranges[job.job_id] = rng
            if groups:
                self.held[job.job_id] = groups
            self.enrolled[job.job_id] = {t.task_id: t for t in
                                         sorted(loaded, key=lambda t: t.task_id) if t}
            self.tasks.update((t.key, t) for t in loaded if t is not None)
        for key, mine in by_job.items():  # tasks whose job is missing
            for task_key_, data in mine:
                self.set_aside.setdefault(("task", task_key_), "its job is missing")
        for key in ranges:
            self.set_aside.setdefault(("ranges", key), "its job is missing")
        for key in held:
            self.set_aside.setdefault(("held", key), "its job is missing")

    def _set_aside_job(self, key: str, data: Any, tasks: list[tuple[str, Any]],
                       why: str) -> None:
        self.set_aside.setdefault(("job", key), why)
        for task_key_, _ in tasks:
            self.set_aside.setdefault(("task", task_key_), f"its job {key} was set aside")

    def _loaded(self, kind: str, key: str, data: Any, read: Callable[[Any], Any]) -> Any:
        try:
            return read(data)
        except Exception as exc:  # noqa: BLE001 - whatever is wrong with a stored object
            self.set_aside[(kind, key)] = f"{type(exc).__name__}: {exc}"
            return None

    def _rebuild_derived(self) -> None:
        self.used_slots.clear()
        for task in self.tasks.values():
            if task.state_enum in ACTIVE_STATES:
                self._count_slots(task, +1)
                self.active.add(task.key)
            if "h" in task.holds:
                self.dependency_held.add(task.job_id)
        for job in self.jobs.values():
            self.owner_jobs.setdefault(job.owner, set()).add(job.job_id)
        for job_id, rng in self.ranges.items():
            self.unfinished[job_id] = task_ranges.count(rng.pending) + sum(
                t.state_enum is not State.FINISHED for t in self.enrolled[job_id].values()) \
                + sum(task_ranges.count(ids) for ids, _ in self.held.get(job_id, ()))
            if self.unfinished[job_id] > 0 and job_id in self.jobs:
                self._count_active(self.jobs[job_id], +1)
            if "h" in rng.holds and rng.pending:
                self.dependency_held.add(job_id)
        for job_id in self.dependency_held:
            self._index_dependency(job_id, True)
        for job in self.jobs.values():
            if job.opts.get("hold_jid_ad") and not self.job_finished(job.job_id):
                self.index_array_dependency(job.job_id, self.ad_predecessor_ids(job), True)
        for job in self.jobs.values():
            if job.opts.get("ar_id") and not self.job_finished(job.job_id):
                self.ar_jobs.setdefault(int(job.opts["ar_id"]), set()).add(job.job_id)
        done = [j for j in self.jobs.values() if self.job_finished(j.job_id)]
        for job in sorted(done, key=lambda j: j.job_id):
            self.finished_order[job.job_id] = None

    # ---- queries -------------------------------------------------------------------
    def active_tasks(self) -> list[Task]:
        """Tasks that hold slots and consumables on a host now."""
        return [self.tasks[key] for key in self.active if key in self.tasks]

    def enrolled_tasks(self, job_id: int) -> list[Task]:
        """The job's tasks that are objects of their own, by task id (not its pending
        ids: ``ranges``)."""
        tasks = self.enrolled.get(job_id)
        return sorted(tasks.values(), key=lambda t: t.task_id) if tasks else []

    def all_tasks(self, job_id: int) -> list[Task]:
        """Every task of the job, its unenrolled ids as the tasks they stand for (not
        stored), by task id: for answers that name tasks one by one."""
        tasks = self.enrolled_tasks(job_id)
        rng = self.ranges.get(job_id)
        if rng is None or not (rng.pending or rng.deleted or job_id in self.held):
            return tasks
        virtual = [Task(job_id=job_id, task_id=t, state=_state(holds), holds=list(holds),
                        version=rng.version)
                   for ids, holds in self.pending_groups(job_id) for t in task_ranges.ids(ids)]
        virtual += [Task(job_id=job_id, task_id=t, state=State.FINISHED,
                         deleted_by=rng.deleted_by) for t in task_ranges.ids(rng.deleted)]
        return sorted(tasks + virtual, key=lambda t: t.task_id)

    def unenrolled_task(self, job_id: int, task_id: int) -> Task | None:
        """What a pending id of the job's ranges would be as a task (not stored)."""
        rng = self.ranges.get(job_id)
        if rng is None:
            return None
        for ids, holds in self.pending_groups(job_id):
            if task_ranges.contains(ids, task_id):
                return Task(job_id=job_id, task_id=task_id, state=_state(holds),
                            holds=list(holds), version=rng.version)
        return None

    def pending_groups(self, job_id: int) -> list[tuple[list[list[int]], list[str]]]:
        """The job's pending ids that are not enrolled, by the holds they carry: its
        ranges' ``pending`` with their ``holds`` first, then the groups of ``held``."""
        rng = self.ranges[job_id]
        return [(rng.pending, rng.holds), *((ids, holds) for ids, holds in
                                            self.held.get(job_id, ()))]

    def pending_ids(self, job_id: int) -> list[list[int]]:
        """Every pending id of the job that is not enrolled, whatever its holds."""
        rng = self.ranges[job_id]
        groups = self.held.get(job_id)
        if not groups:
            return rng.pending
        return sorted([*rng.pending, *(r for ids, _ in groups for r in ids)])

    def set_pending_groups(self, batch: Batch, job_id: int,
                           groups: list[tuple[list[list[int]], list[str]]]) -> None:
        """The job's unenrolled pending ids, regrouped by holds: ids with the same holds
        in one group; the hold-free ids (if any) become the ranges' ``pending`` (the only
        ids the scheduler places), else the group with the ranges' present holds; the
        rest go to ``held``. A change of ``pending`` or its holds is a new version."""
        by_holds: dict[tuple[str, ...], list[list[int]]] = {}
        for ids, holds in groups:
            if ids:
                by_holds.setdefault(tuple(sorted(set(holds))), []).extend(
                    [list(r) for r in ids])
        rng = self.ranges[job_id]
        present = tuple(sorted(rng.holds))
        main = () if () in by_holds else present if present in by_holds or not by_holds \
            else next(iter(sorted(by_holds)))
        # (pieces that touch join: a release gives back ids beside the free ones)
        pending = task_ranges.merged(by_holds.pop(main, []))
        rest = [[task_ranges.merged(ids), list(holds)] for holds, ids in sorted(by_holds.items())]
        if pending != rng.pending or list(main) != sorted(rng.holds):
            self.change_ranges(batch, job_id, pending=pending, holds=list(main))
        if rest != self.held.get(job_id, []):
            self._write_held(batch, job_id, rest)

    def _write_held(self, batch: Batch, job_id: int, groups: list[list[Any]]) -> None:
        if groups:
            self._set_item(self.held, job_id, groups)
            batch.txn.put("held", str(job_id), {"job_id": job_id, "groups": groups})
        elif self._pop_item(self.held, job_id) is not None:
            batch.txn.delete("held", str(job_id))

    def job_finished(self, job_id: int) -> bool:
        return self.unfinished.get(job_id, 0) == 0

    def job_has_pending(self, job_id: int) -> bool:
        """Whether any task of the job waits (pending ids, or enrolled pending tasks)."""
        rng = self.ranges.get(job_id)
        return bool(rng and rng.pending and not rng.holds) or any(
            t.state_enum is State.PENDING for t in self.enrolled.get(job_id, {}).values())

    def is_manager(self, user: str) -> bool:
        return user in self.lists["manager"]

    def is_operator(self, user: str) -> bool:
        return user in self.lists["operator"] or self.is_manager(user)

    def conf_value(self, kind: str, name: str, attr: str, default: str = "") -> str:
        for key, value in self.conf[kind].get(name, []):
            if key == attr:
                return value
        return default

    # ---- changes -------------------------------------------------------------------
    def add_job(self, batch: Batch, job: Job, holds: list[str]) -> None:
        """A new job, its tasks all pending (with ``holds``) in its task ranges."""
        self._set_item(self.jobs, job.job_id, job)
        self._set_member(self.owner_jobs.setdefault(job.owner, set()), job.job_id, True)
        batch.txn.put("job", str(job.job_id), _spooled_job(job))
        batch.event("job", "put", str(job.job_id), _for_scheduler(job))
        first, last, step = job.array_range
        pending = [task_ranges.normalized(first, last, step)]
        self._set_item(self.enrolled, job.job_id, {})
        self._set_item(self.unfinished, job.job_id, task_ranges.count(pending))
        self._count_active(job, +1)
        self._index_ar_job(job, True)
        self._write_ranges(batch, TaskRanges(job_id=job.job_id, pending=pending,
                                             holds=list(holds)))

    def _index_ar_job(self, job: Job, present: bool) -> None:
        ar_id = job.opts.get("ar_id")
        if ar_id:
            self._set_member(self.ar_jobs.setdefault(int(ar_id), set()), job.job_id, present)

    def _count_active(self, job: Job, sign: int) -> None:
        count, size = self.active_jobs.get(job.owner, (0, 0))
        count, size = count + sign, size + sign * len(job.script or b"")
        if count > 0:
            self._set_item(self.active_jobs, job.owner, (count, size))
        else:
            self._pop_item(self.active_jobs, job.owner)

    def active_job_count(self) -> int:
        """Unfinished jobs of every user (max_jobs)."""
        return sum(count for count, _ in self.active_jobs.values())

    def _write_ranges(self, batch: Batch, rng: TaskRanges) -> None:
        self._set_item(self.ranges, rng.job_id, rng)
        data = rng.to_dict()
        batch.txn.put("ranges", str(rng.job_id), data)
        batch.event("ranges", "put", str(rng.job_id), data)

    def change_ranges(self, batch: Batch, job_id: int, **changes: Any) -> TaskRanges:
        """Change the job's unenrolled tasks (holds; none: a new version only, after a
        qalter), so that orders computed before are refused."""
        rng = self.ranges[job_id]
        new = replace(rng, **changes, version=rng.version + 1)
        self._write_ranges(batch, new)
        return new

    def enroll(self, batch: Batch, job_id: int, task_id: int) -> Task:
        """Make pending id ``task_id`` of the job a task of its own (to dispatch it, or to
        change it alone), in the state its ranges give it."""
        rng = self.ranges[job_id]
        if not task_ranges.contains(rng.pending, task_id):
            return self._enroll_held(batch, job_id, task_id)
        task = Task(job_id=job_id, task_id=task_id, state=rng.state, holds=list(rng.holds),
                    version=rng.version)
        # the same version: orders for the job's other pending ids stay good
        self._set_item(self.ranges, job_id, replace(
            rng, pending=task_ranges.without(rng.pending, task_id)))
        data = self.ranges[job_id].to_dict()
        batch.txn.put("ranges", str(job_id), data)
        batch.event("ranges", "put", str(job_id), data)
        self._set_item(self.tasks, task.key, task)
        self._set_item(self.enrolled[job_id], task_id, task)
        self._write_task(batch, task)
        return task

    def _enroll_held(self, batch: Batch, job_id: int, task_id: int) -> Task:
        """``enroll`` of an id of one of the job's ``held`` groups."""
        groups = [[list(ids), list(holds)] for ids, holds in self.held.get(job_id, ())]
        for group in groups:
            if task_ranges.contains(group[0], task_id):
                break
        else:
            raise KeyError(f"task {job_id}.{task_id} is not pending in its ranges")
        group[0] = task_ranges.without(group[0], task_id)
        self._write_held(batch, job_id, [g for g in groups if g[0]])
        rng = self.ranges[job_id]
        task = Task(job_id=job_id, task_id=task_id, state=_state(group[1]),
                    holds=list(group[1]), version=rng.version)
        self._set_item(self.tasks, task.key, task)
        self._set_item(self.enrolled[job_id], task_id, task)
        self._write_task(batch, task)
        return task

    def delete_pending(self, batch: Batch, job_id: int, deleted_by: str) -> int:
        """qdel of a job: its pending (and held) ids end at once, never started. Returns
        how many there were."""
        rng = self.ranges[job_id]
        every = self.pending_ids(job_id)
        gone = task_ranges.count(every)
        if not gone:
            return 0
        self._write_held(batch, job_id, [])
        self.change_ranges(batch, job_id, pending=[], deleted=task_ranges.joined(
            rng.deleted, every), deleted_by=deleted_by)
        self._task_ends(batch, job_id, gone)
        return gone

    def delete_pending_ids(self, batch: Batch, job_id: int, named: list[list[int]],
                           deleted_by: str) -> list[list[int]] | None:
        """qdel -t of some of the job's pending ids (``named``: ranges): they end at once
        as the job's deleted ranges, without becoming tasks. The ids deleted, or None
        when a range of them cannot be split off exactly (common.task_ranges.split)."""
        groups, gone = [], []
        for ids, holds in self.pending_groups(job_id):
            cut = task_ranges.split(ids, named)
            if cut is None:
                return None
            gone += cut[0]
            groups.append((cut[1], holds))
        if not gone:
            return []
        self.set_pending_groups(batch, job_id, groups)
        rng = self.ranges[job_id]
        self.change_ranges(batch, job_id, deleted=task_ranges.joined(rng.deleted, gone),
                           deleted_by=deleted_by)
        self._task_ends(batch, job_id, task_ranges.count(gone))
        return sorted(gone)

    def _task_ends(self, batch: Batch, job_id: int, how_many: int = 1) -> None:
        before = self.unfinished.get(job_id, 0)
        left = before - how_many
        self._set_item(self.unfinished, job_id, left)
        if left <= 0:
            if before > 0 and job_id in self.jobs:
                self._count_active(self.jobs[job_id], -1)
            self._job_done(batch, job_id)

    def replace_job_opts(self, batch: Batch, job: Job, opts: dict[str, Any]) -> Job:
        """qalter: the job with new request options and a higher version, spooled and
        published so that the scheduler's mirror sees the new requests."""
        new = replace(job, opts=dict(opts), version=job.version + 1)
        self._set_item(self.jobs, job.job_id, new)
        batch.txn.put("job", str(job.job_id), _spooled_job(new))
        batch.event("job", "put", str(job.job_id), _for_scheduler(new))
        return new

    def put_task(self, batch: Batch, task: Task, **changes: Any) -> None:
        """Change fields of ``task`` (none: only its version rises) and write it."""
        self._remember_task(task)
        for name, value in changes.items():
            setattr(task, name, value)
        task.version += 1
        self._write_task(batch, task)

    def put_pe_book(self, batch: Batch, key: str, book: PeBook) -> None:
        """The parallel tasks of job task ``key`` (spooled; the scheduler needs none)."""
        self._set_item(self.pe_books, key, book)
        batch.txn.put("petasks", key, book.to_dict())

    def note_running_usage(self, task: Task, usage: dict[str, float]) -> None:
        """A running task's usage so far: kept for queries only, neither spooled nor
        published (it changes with every load report; the final figures are spooled
        with the task's end)."""
        self._remember_task(task)
        task.usage = usage

    def _remember_task(self, task: Task) -> None:
        image = _task_image(task)

        def restore() -> None:
            for name, value in image.items():
                setattr(task, name, value)
        self._undo(restore)

    def _write_task(self, batch: Batch, task: Task) -> None:
        data = task.to_dict()
        batch.txn.put("task", task.key, data)
        batch.event("task", "put", task.key, data)

    def transition(self, batch: Batch, task: Task, event: Event, **changes: Any) -> None:
        """Move ``task`` along the life-cycle table, keeping slot bookkeeping in step."""
        old = task.state_enum
        new = next_state(old, event)
        was_active, is_active = old in ACTIVE_STATES, new in ACTIVE_STATES
        if was_active and not is_active:
            self._count_slots(task, -1)
            self._set_member(self.active, task.key, False)
        self.put_task(batch, task, **changes, state=new)
        if is_active and not was_active:
            self._count_slots(task, +1)
            self._set_member(self.active, task.key, True)
        if new is State.FINISHED and old is not State.FINISHED:
            batch.finished_tasks.append((task.job_id, task.task_id))
            self._task_ends(batch, task.job_id)
        job_mail.on_transition(self, batch, task, old, new)  # (-m b, -m s)

    def _count_slots(self, task: Task, sign: int) -> None:
        for queue, host, slots in task.granted:
            key = (queue, host)
            self._set_item(self.used_slots, key, self.used_slots.get(key, 0) + sign * int(slots))

    def _job_done(self, batch: Batch, job_id: int) -> None:
        batch.finished_jobs.append(job_id)
        job = self.jobs.get(job_id)
        if job is not None and job.opts.get("ar_id"):
            self._ar_job_done(batch, job)
        self._set_item(self.finished_order, job_id, None)
        # (the jobs this batch finished stay until it is answered: the waiters' results,
        # the reporting file and the -hold_jid releases read them; the heartbeat's
        # trim_finished forgets them later if finished_jobs keeps fewer)
        self.trim_finished(batch, spare=frozenset(batch.finished_jobs))

    def finished_jobs_kept(self) -> int:
        """sge_conf(5) ``finished_jobs``: how many finished jobs are kept (0: none)."""
        text = self.conf_value("conf", "global", "finished_jobs", "").strip()
        return int(text) if text.isdigit() else DEFAULT_FINISHED_JOBS

    def finished_excess(self) -> int:
        """How many finished jobs are kept beyond ``finished_jobs``."""
        return max(0, len(self.finished_order) - self.finished_jobs_kept())

    def trim_finished(self, batch: Batch, spare: frozenset[int] = frozenset()) -> None:
        """Forget the oldest finished jobs beyond ``finished_jobs``, but those in ``spare``."""
        excess = self.finished_excess()
        if not excess:
            return
        oldest = [job_id for job_id in self.finished_order if job_id not in spare][:excess]
        for old in oldest:
            self._pop_item(self.finished_order, old)
            self.remove_job(batch, old)

    def remove_job(self, batch: Batch, job_id: int) -> None:
        job = self._pop_item(self.jobs, job_id)
        if job is None:
            return
        self._set_member(self.owner_jobs.get(job.owner, set()), job_id, False)
        if self.unfinished.get(job_id, 0) > 0:
            self._count_active(job, -1)
        for tid in self._pop_item(self.enrolled, job_id) or {}:
            key = task_key(job_id, tid)
            if self._pop_item(self.tasks, key) is not None:
                batch.txn.delete("task", key)
                batch.event("task", "del", key)
            book = self._pop_item(self.pe_books, key)
            if book is not None:
                batch.txn.delete("petasks", key)
                if book.held is not None:  # (tasks that never reported: written now)
                    record = released(book.held, book.summary)
                    batch.accounting.append(record)
                    batch.txn.put("acct", key, record)
        self._pop_item(self.ranges, job_id)
        if self._pop_item(self.held, job_id) is not None:
            batch.txn.delete("held", str(job_id))
        self._pop_item(self.unfinished, job_id)
        batch.txn.delete("ranges", str(job_id))
        batch.txn.delete("job", str(job_id))
        batch.event("job", "del", str(job_id))

    def put_host(self, batch: Batch, host: ExecHost, *, spool: bool = True) -> None:
        """Store ``host`` (a new object: callers never change a stored one in place)."""
        previous = self.hosts.get(host.name)
        if previous is None or previous.alive != host.alive:
            self.layout_generation += 1
        host.version = (previous.version if previous is not None else host.version) + 1
        self._set_item(self.hosts, host.name, host)
        if spool:
            batch.txn.put("host", host.name, host.to_dict())
        batch.event("host", "put", host.name, host.to_dict())

    def put_conf(self, batch: Batch, kind: str, name: str, pairs: list[list[str]]) -> None:
        self.layout_generation += 1
        if kind in ORDERED_KINDS:  # added or changed: last in the master list
            self._move_to_end(self.conf[kind], name, pairs)
            batch.txn.put(ORDER_KIND, kind, list(self.conf[kind]))
        else:
            self._set_item(self.conf[kind], name, pairs)
        batch.txn.put(kind, name, pairs)
        batch.event(kind, "put", name, pairs)

    def delete_conf(self, batch: Batch, kind: str, name: str) -> None:
        self.layout_generation += 1
        if kind in ORDERED_KINDS:  # a rollback puts it back in its place
            self._remember_order(self.conf[kind])
            self.conf[kind].pop(name, None)
            batch.txn.put(ORDER_KIND, kind, list(self.conf[kind]))
        else:
            self._pop_item(self.conf[kind], name)
        batch.txn.delete(kind, name)
        batch.event(kind, "del", name)

    def _move_to_end(self, mapping: dict[str, Any], key: str, value: Any) -> None:
        self._remember_order(mapping)
        mapping.pop(key, None)
        mapping[key] = value

    def _remember_order(self, mapping: dict[str, Any]) -> None:
        """Undo by restoring the whole mapping, its order included."""
        before = list(mapping.items())

        def restore() -> None:
            mapping.clear()
            mapping.update(before)
        self._undo(restore)

    def put_qi_state(self, batch: Batch, name: str, states: str, reason: str = "") -> None:
        """Store the qmod states of queue instance ``name`` ("" removes the entry)."""
        self.layout_generation += 1
        if not states:
            if self._pop_item(self.qi_states, name) is not None:
                batch.txn.delete("qstate", name)
                batch.event("qstate", "del", name)
            return
        state = {"states": states, "reason": reason if "E" in states else ""}
        self._set_item(self.qi_states, name, state)
        batch.txn.put("qstate", name, state)
        batch.event("qstate", "put", name, state)

    def set_list(self, batch: Batch, kind: str, names: list[str]) -> None:
        old = set(self.lists[kind])
        self._set_item(self.lists, kind, sorted(set(names)))
        for name in old - set(names):
            batch.txn.delete(kind, name)
        for name in set(names) - old:
            batch.txn.put(kind, name, 1)
        batch.event(kind, "put", kind, self.lists[kind])

    # ---- advance reservations (qmaster.ar) ---------------------------------------------
    def allocate_ar_id(self, batch: Batch) -> int:
        """The next AR id (its own sequence, 1..9,999,999 and round, as 8.1.9's), skipping
        ids still in use."""
        from common.ar import MAX_AR_ID
        before = self.next_ar_id
        ar_id = before
        while ar_id in self.ars:
            ar_id = ar_id + 1 if ar_id < MAX_AR_ID else 1
            if ar_id == before:
                raise OverflowError("every advance reservation id is in use")
        self.next_ar_id = ar_id + 1 if ar_id < MAX_AR_ID else 1
        self._undo(lambda: setattr(self, "next_ar_id", before))
        batch.txn.set_meta("next_ar_id", self.next_ar_id)
        return ar_id

    def put_ar(self, batch: Batch, record: dict[str, Any]) -> None:
        """Store an AR (a new record: callers never change a stored one in place); the
        scheduler hears of it as event ``ar`` (body ``{"ar": AdvanceReservation record}``)
        unless it is ending."""
        from common.ar import ENDING_STATES, as_reservation
        ar_id = record["ar_id"]
        self._set_item(self.ars, ar_id, record)
        batch.txn.put("ar", str(ar_id), record)
        if record["state"] not in ENDING_STATES:
            batch.event("ar", "put", str(ar_id), {"ar": as_reservation(record).to_record()})
        else:  # ending: its slots are no longer the AR's to guard (the state: for the
            # reporting file, which logs an end before the AR goes with its last job)
            batch.event("ar_deleted", "del", str(ar_id), {"ar_id": ar_id,
                                                          "state": record["state"]})

    def _ar_job_done(self, batch: Batch, job: Job) -> None:
        """An AR that is ending (qrdel, its end) goes with its last job."""
        from common.ar import ENDING_STATES
        ar_id = int(job.opts["ar_id"])
        self._index_ar_job(job, False)
        record = self.ars.get(ar_id)
        if record is not None and record["state"] in ENDING_STATES and \
                not self.ar_jobs.get(ar_id):
            self.delete_ar(batch, ar_id)

    def ar_records(self) -> list[dict[str, Any]]:
        """The ARs the dispatch pass honours (snapshot key ``ars``): every one not ending."""
        from common.ar import ENDING_STATES, as_reservation
        return [as_reservation(r).to_record() for r in self.ars.values()
                if r["state"] not in ENDING_STATES]

    def delete_ar(self, batch: Batch, ar_id: int) -> None:
        if self._pop_item(self.ars, ar_id) is None:
            return
        batch.txn.delete("ar", str(ar_id))
        batch.event("ar_deleted", "del", str(ar_id), {"ar_id": ar_id})

    def allocate_job_id(self, batch: Batch) -> int:
        job_id = self.next_job_id
        self.next_job_id = job_id + 1 if job_id < 9_999_999 else 1
        self._undo(lambda: setattr(self, "next_job_id", job_id))
        batch.txn.set_meta("next_job_id", self.next_job_id)
        return job_id

    def snapshot_part(self, after: int | None, records: int | None = None
                      ) -> dict[str, Any]:
        """One part of what a scheduler needs to build its mirror: the first part
        (``after`` None) has the configuration and the hosts, every part the next live
        jobs in job id order with their ranges and unfinished enrolled tasks, about
        ``records`` of them, so that no part grows with the cell. ``next`` names where
        the following part starts (None: this was the last), as ``job_id << 32 | task
        id``: the job's record and its tasks up to that id have been sent.

        Parts are taken at different times; a subscriber applies the events published
        after the first part to all of them. Events carry whole objects, so an object a
        later part already shows newer comes out right once the events are applied."""
        records = records or SNAPSHOT_PART_RECORDS
        part: dict[str, Any] = {"jobs": [], "ranges": [], "tasks": []}
        if after is None:
            part.update(hosts=[h.to_dict() for h in self.hosts.values()],
                        conf={kind: dict(objs) for kind, objs in self.conf.items()},
                        lists=dict(self.lists),
                        qstates={name: dict(state) for name, state in self.qi_states.items()},
                        ars=self.ar_records())
            after = 0
        cursor_job, cursor_task = after >> 32, after & TASK_ID_MASK
        sent = 0
        for job_id in sorted(j for j in self.jobs if j >= cursor_job):
            if self.job_finished(job_id):
                continue
            if job_id != cursor_job:  # a job not begun: its record first
                cursor_task = 0
                part["jobs"].append(_for_scheduler(self.jobs[job_id]))
                part["ranges"].append(self.ranges[job_id].to_dict())
                sent += 1
            for task in self.enrolled_tasks(job_id):
                if task.task_id <= cursor_task or task.state_enum is State.FINISHED:
                    continue
                if sent >= records:
                    part["next"] = job_id << 32 | (task.task_id - 1)
                    return part
                part["tasks"].append(task.to_dict())
                sent += 1
            if sent >= records:
                part["next"] = job_id << 32 | TASK_ID_MASK
                return part
        part["next"] = None
        return part


def _in_order(objects: dict[str, Any], order: Any) -> dict[str, Any]:
    """``objects`` in the spooled ``order``; any it does not name (a spool from before
    the order was kept) follow in name order."""
    named = [n for n in order if isinstance(n, str) and n in objects] \
        if isinstance(order, list) else []
    seen = set(named)
    rest = sorted(n for n in objects if n not in seen)
    return {name: objects[name] for name in [*named, *rest]}


def _consistent(job: Job, rng: TaskRanges, tasks: list[Task],
                groups: list[list[Any]] | None = None) -> bool:
    """The job's ranges and enrolled tasks name ids of its array, each once."""
    first, last, step = job.array_range
    lists = (rng.pending, rng.deleted, *(ids for ids, _ in groups or ()))
    if groups and task_ranges.count(task_ranges.merged(r for rl in lists for r in rl)) \
            != sum(task_ranges.count(rl) for rl in lists):
        return False  # (a restart with held groups: no id in two lists)
    if not tasks:  # most jobs (a restart checks every one)
        return rng.job_id == job.job_id and all(
            first <= r[0] and r[1] <= last for rl in lists for r in rl)
    enrolled = {t.task_id for t in tasks}
    in_array = all(first <= t <= last and (t - first) % step == 0 for t in enrolled)
    return rng.job_id == job.job_id and in_array and len(enrolled) == len(tasks) and all(
        first <= r[0] and r[1] <= last for rl in lists for r in rl) and not any(
        task_ranges.contains(rl, t) for rl in lists for t in enrolled)
