"""The qmaster's share tree usage book: what each user, project and user within a project
has used (common.policy.usage), booked from the execds' usage reports and the tasks'
final usage, spooled, published to the scheduler and cleared by ``qconf -clearusage``.

An execd reports each running task's usage cumulative for the run; the book keeps per
run the highest figures booked (its base) and books only what is new, so a repeated
report or a restarted execd's report adds nothing twice; the task's final usage at its
end books the rest and the base goes. Per report the cost is the tasks in it, per holder
there is one record.

Spool kinds ``usage`` (one row a holder) and ``usage_base`` (one row a running task) are
written together, in batches: at most every ``SPOOL_SECONDS`` and at the first batch
after a task ended (a crash loses at most those seconds of usage, records and bases
alike, and the next report books them again). The same flush publishes event kind
``usage`` (key: the holder, obj: its record) for the holders that changed; a scheduler's
snapshot carries all of them. Decay is applied whenever a record is charged and when the
book is read (``table``): a restarted qmaster's usage has decayed by the time it was down.

Changes made while a request is handled join the store's journal and are taken back
with a refused request.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

from common.conf_values import split_assignments
from common.policy.conf import PolicyConf
from common.policy.model import USAGE_NAMES, UsageTable
from common.policy.usage import (
    USER, Holder, Records, UsageRecord, book, decay_all, decay_constants, decayed, holder_key,
    holders_of, policy_conf, records_from_wire, records_to_wire, task_delta, usage_table)

if TYPE_CHECKING:
    from qmaster.context import Ctx
    from qmaster.store import Task

SPOOL_KIND, BASE_KIND, EVENT_KIND = "usage", "usage_base", "usage"
# usage is spooled and published at most this often (and at the first batch after a
# task ended)
SPOOL_SECONDS = 5.0

Undo = Callable[[Callable[[], None]], None]
# one running task in a usage report: task key, its run's dispatch time, owner, project,
# cumulative usage
Run = tuple[str, float, str, "str | None", Mapping[str, float]]
_NOTHING: Mapping[str, float] = {}


@dataclass(slots=True)
class RunBase:
    """What has been booked of one run of a task (``dispatched``: the run's dispatch
    time; another run starts from nothing)."""

    dispatched: float
    usage: dict[str, float]


@dataclass
class UsageBook:
    """Every holder's usage record and every running task run's base; what changed
    since the last flush (see the module's docstring)."""

    records: Records = field(default_factory=dict)
    bases: dict[str, RunBase] = field(default_factory=dict)  # task key -> its run's base
    _dirty: set[Holder] = field(default_factory=set)
    _dirty_bases: set[str] = field(default_factory=set)
    _task_ended: bool = False
    _last_flush: float = 0.0
    _conf_source: Any = None  # the sconf pairs the cached decay constants were made of
    _constants: dict[str, float] = field(default_factory=dict)

    # ---- start-up ------------------------------------------------------------------
    def load(self, objects: Mapping[str, Mapping[str, Any]]) -> list[tuple[str, str, str]]:
        """Take in the spooled rows; returns (kind, key, why) of rows that did not read."""
        bad: list[tuple[str, str, str]] = []
        for key, data in (objects.get(SPOOL_KIND) or {}).items():
            try:
                self.records.update(records_from_wire([data]))
            except (TypeError, ValueError, KeyError, AttributeError) as exc:
                bad.append((SPOOL_KIND, key, f"{type(exc).__name__}: {exc}"))
        for key, data in (objects.get(BASE_KIND) or {}).items():
            try:
                self.bases[str(key)] = RunBase(float(data["dispatched"]), {
                    str(n): float(v) for n, v in dict(data["usage"]).items()})
            except (TypeError, ValueError, KeyError, AttributeError) as exc:
                bad.append((BASE_KIND, key, f"{type(exc).__name__}: {exc}"))
        return bad

    # ---- booking -------------------------------------------------------------------
    def constants(self, conf: Mapping[str, Mapping[str, Any]], now: float) -> dict[str, float]:
        """The decay constants of the current scheduler configuration (kept until it
        changes). When ``halftime`` or ``halflife_decay_list`` changed, every record is
        first decayed to ``now`` with the constants it had (as 8.1.9 decays all usage
        up to the change with the old half-life)."""
        source = (conf.get("sconf") or {}).get("global")
        if self._conf_source is not None and source is self._conf_source[0]:
            return self._constants
        constants = decay_constants(policy_conf(conf))
        if self._conf_source is not None and constants != self._constants:
            decay_all(self.records, now, self._constants)
            self._dirty.update(self.records)
        self._constants, self._conf_source = constants, (source,)
        return constants

    def running(self, key: str, dispatched: float, owner: str, project: str | None,
                cumulative: Mapping[str, float], now: float,
                constants: Mapping[str, float], undo: Undo) -> None:
        """A running task's cumulative usage of its run ``dispatched``: book what is
        new."""
        self.running_report([(key, dispatched, owner, project, cumulative)], now,
                            constants, undo)

    def running_report(self, runs: Iterable[Run], now: float,
                       constants: Mapping[str, float], undo: Undo) -> None:
        """One usage report's running tasks, each (task key, dispatch time of its run,
        owner, project, cumulative usage): what is new is summed per owner and project
        first and then charged once per holder (the cost is the tasks, plus the
        holders they belong to)."""
        bases = self.bases
        sums: dict[tuple[str, str | None], dict[str, float]] = {}
        old_bases: dict[str, RunBase | None] = {}
        for key, dispatched, owner, project, cumulative in runs:
            base = bases.get(key)
            before = base.usage if base is not None and base.dispatched == dispatched \
                else _NOTHING
            # task_delta, inlined: this loop is the cost of a 10,000-task report
            after: dict[str, float] | None = None
            total = sums.get((owner, project))
            for name in USAGE_NAMES:
                amount = cumulative.get(name, 0.0)
                increase = amount - before.get(name, 0.0)
                if increase > 0.0:
                    if after is None:
                        after = dict(before)
                        if total is None:
                            total = sums[(owner, project)] = {}
                    after[name] = amount
                    total[name] = total.get(name, 0.0) + increase
            if after is None:
                continue
            if key not in old_bases:
                old_bases[key] = base
            bases[key] = RunBase(dispatched, after)
        if old_bases:
            self._book(sums, old_bases, now, constants, undo)

    def finished(self, key: str, dispatched: float, owner: str, project: str | None,
                 final: Mapping[str, float], now: float, constants: Mapping[str, float],
                 undo: Undo) -> None:
        """A run's end with its final usage: the rest is booked, the base goes."""
        base = self.bases.get(key)
        before = base.usage if base is not None and base.dispatched == dispatched \
            else _NOTHING
        delta, _ = task_delta(before, final)
        ended = self._task_ended
        undo(lambda: setattr(self, "_task_ended", ended))
        self._task_ended = True
        self.bases.pop(key, None)
        self._book({(owner, project): delta}, {key: base}, now, constants, undo)

    def _book(self, sums: Mapping[tuple[str, str | None], Mapping[str, float]],
              old_bases: Mapping[str, RunBase | None], now: float,
              constants: Mapping[str, float], undo: Undo) -> None:
        """Charge ``sums`` (owner, project -> usage) to their holders, with one journal
        entry that restores the holders' records and ``old_bases`` (the bases as they
        were before the caller changed them)."""
        sums = {who: delta for who, delta in sums.items()
                if any(amount > 0.0 for amount in delta.values())}
        holders = {holder for owner, project in sums for holder in holders_of(owner, project)}
        saved = {h: _copy(self.records[h]) if h in self.records else None for h in holders}

        def restore() -> None:
            for holder, record in saved.items():
                if record is None:
                    self.records.pop(holder, None)
                else:
                    self.records[holder] = record
            for key, base in old_bases.items():
                if base is None:
                    self.bases.pop(key, None)
                else:
                    self.bases[key] = base
            # (left dirty: writing a record or base again costs nothing wrong)
        undo(restore)
        self._dirty_bases.update(old_bases)
        for (owner, project), delta in sums.items():
            book(self.records, owner, project, delta, now, constants)
        self._dirty.update(holders)

    def clear(self, undo: Undo, users: Iterable[str] | None = None) -> None:
        """``qconf -clearusage``, as 8.1.9 does it: every user's and project's decayed
        usage goes (``users``: only these users'), the users' usage within projects goes
        whole (their long-term usage too), the users' and projects' long-term usage
        stays; running tasks' bases stay (what they used before is not booked again)."""
        named = None if users is None else set(users)
        saved = {holder: _copy(record) for holder, record in self.records.items()}

        def restore() -> None:
            self.records.clear()
            self.records.update(saved)
        undo(restore)
        for holder in list(self.records):
            if named is not None and (holder.kind != USER or holder.name not in named):
                continue
            self._dirty.add(holder)
            if holder.kind == USER and holder.project:
                del self.records[holder]
            else:
                self.records[holder].usage = {}

    # ---- spooling and publishing ---------------------------------------------------
    def mark_due(self) -> None:
        """Have the next batch write and publish what changed (not wait SPOOL_SECONDS)."""
        self._task_ended = True

    def due(self, now: float) -> bool:
        """Whether a flush would write something now."""
        return bool(self._dirty or self._dirty_bases) and (
            self._task_ended or now - self._last_flush >= SPOOL_SECONDS)

    def flush(self, txn: Any, events: Callable[[str, str, str, Any], None], now: float,
              active: Iterable[str] | None = None) -> int:
        """Write the changed records and bases to ``txn`` and publish the changed
        records through ``events`` (kind, op, key, obj); ``active``: the keys of the
        tasks that hold slots (a base of another task is a leftover and goes). Returns
        the number of holders written."""
        if active is not None:
            live = active if isinstance(active, (set, frozenset)) else set(active)
            for key in [k for k in self.bases if k not in live]:
                del self.bases[key]
                self._dirty_bases.add(key)
        for key in self._dirty_bases:
            base = self.bases.get(key)
            if base is None:
                txn.delete(BASE_KIND, key)
            else:
                txn.put(BASE_KIND, key, {"dispatched": base.dispatched,
                                         "usage": dict(base.usage)})
        written = 0
        for holder in sorted(self._dirty):
            key = holder_key(holder)
            record = self.records.get(holder)
            if record is None:
                txn.delete(SPOOL_KIND, key)
                events(EVENT_KIND, "del", key, None)
            else:
                data = records_to_wire({holder: record})[0]
                txn.put(SPOOL_KIND, key, data)
                events(EVENT_KIND, "put", key, data)
            written += 1
        self._dirty.clear()
        self._dirty_bases.clear()
        self._task_ended = False
        self._last_flush = now
        return written

    # ---- reading -------------------------------------------------------------------
    def table(self, now: float, conf: PolicyConf) -> UsageTable:
        """The usage the share tree compares with its shares, decayed to ``now`` and
        weighted by ``usage_weight_list`` (for qstat and sge_share_mon)."""
        return usage_table(self.records, now, conf)

    def decayed_records(self, now: float, conf: PolicyConf) -> Records:
        """Every holder's raw usage decayed to ``now`` (the records stay as they are)."""
        constants = decay_constants(conf)
        return {holder: decayed(record, now, constants)
                for holder, record in self.records.items()}

    def wire_records(self) -> list[dict[str, Any]]:
        """All records as the snapshot carries them."""
        return records_to_wire(self.records)


def _copy(record: UsageRecord) -> UsageRecord:
    return UsageRecord(dict(record.usage), dict(record.long_term), record.stamp)


def reported_usage(figures: Mapping[str, Any],
                   scaling: Mapping[str, float] = _NOTHING) -> dict[str, float]:
    """The share tree's usage names of a usage report or a task's final result, scaled
    by the host's ``usage_scaling`` (a name it does not list: 1)."""
    return {name: float(figures[name]) * scaling.get(name, 1.0)
            for name in USAGE_NAMES if name in figures}


def host_scaling(conf: Mapping[str, Mapping[str, Any]], host: str | None) -> dict[str, float]:
    """The exec host's ``usage_scaling`` (host_conf(5): ``cpu=1.5,mem=1.0``; ``NONE``:
    none), checked when it was stored."""
    pairs = (conf.get("exechost") or {}).get(host or "") or []
    text = next((value for name, value in pairs if name == "usage_scaling"), "NONE")
    if text.strip().upper() in ("", "NONE"):
        return {}
    scaling: dict[str, float] = {}
    for name, value in split_assignments(text):
        try:
            scaling[name.strip().lower()] = max(0.0, float(value))
        except ValueError:
            continue  # (checked when stored: not reached)
    return scaling


# ---- the qmaster's calls ---------------------------------------------------------------
def handle_usage_query(ctx: "Ctx") -> dict[str, Any]:
    """Every holder's usage decayed to now (raw amounts and long-term), with the time
    and the weighted figures the share tree compares: for ``sge_share_mon`` and tests.
    Any administrative or submit host may read it (8.1.9 lets anyone run sge_share_mon);
    one entry a holder."""
    from qmaster.host_rights import require_known_host  # (it imports the context)
    require_known_host(ctx.store, ctx.user)
    book_ = ctx.services.usage
    conf = policy_conf(ctx.store.conf)
    table = book_.table(ctx.now, conf)
    return {"now": ctx.now,
            "records": records_to_wire(book_.decayed_records(ctx.now, conf)),
            "users": dict(table.users), "projects": dict(table.projects),
            "user_projects": [[u, p, v] for (u, p), v in table.user_projects.items()]}


def handle_clear_usage(ctx: "Ctx") -> dict[str, Any]:
    """``qconf -clearusage [user_list]``: managers on an administrative host only; every
    user's and project's usage, or the named users'. 8.1.9 says nothing when it is
    done. Spooled and published with this batch."""
    from qmaster.context import RequestError  # (the context imports this module)
    from qmaster.host_rights import require_admin_host
    require_admin_host(ctx.store, ctx.user)
    ctx.require_manager()
    users = ctx.body.get("users")
    known = ctx.store.conf.get("user")  # user objects (user(5)), where the cell has them
    if users and known is not None:
        for name in users:
            if name not in known:
                raise RequestError("missing", f'denied: user "{name}" does not exist')
    ctx.services.usage.clear(ctx.store.on_rollback, users=users or None)
    ctx.services.usage.mark_due()
    return {}


def _job_holder(ctx: "Ctx", task: "Task") -> tuple[str, str | None] | None:
    job = ctx.store.jobs.get(task.job_id)
    if job is None:
        return None
    return job.owner, (str(job.opts.get("project") or "") or None)


def note_running(ctx: "Ctx", reported: Iterable[tuple["Task", Mapping[str, Any]]]) -> None:
    """One usage report's running tasks with their items (qmaster.execd_link): book
    what is new, in one booking."""
    runs: list[Run] = []
    jobs = ctx.store.jobs
    scalings: dict[str | None, dict[str, float]] = {}  # (a report is one host's)
    for task, figures in reported:
        job = jobs.get(task.job_id)
        if job is None:
            continue
        scaling = scalings.get(task.host)
        if scaling is None:
            scaling = scalings[task.host] = host_scaling(ctx.store.conf, task.host)
        runs.append((task.key, float(task.dispatch_time or 0.0), job.owner,
                     str(job.opts.get("project") or "") or None,
                     reported_usage(figures, scaling)))
    if runs:
        book_ = ctx.services.usage
        book_.running_report(runs, ctx.now, book_.constants(ctx.store.conf, ctx.now),
                             ctx.store.on_rollback)


def note_finished(ctx: "Ctx", task: "Task", result: Mapping[str, Any]) -> None:
    """A task's run ended with ``result`` (its final usage): book the rest."""
    who = _job_holder(ctx, task)
    if who is None:
        return
    book_ = ctx.services.usage
    final = reported_usage(result, host_scaling(ctx.store.conf, task.host))
    book_.finished(task.key, float(task.dispatch_time or 0.0), who[0], who[1], final,
                   ctx.now, book_.constants(ctx.store.conf, ctx.now), ctx.store.on_rollback)
