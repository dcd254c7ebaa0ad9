"""Placement of one job inside the dispatch pass: request verdicts and slot allocation.

Pure. This module owns :class:`RequestFit`, the memoised answers to "may this request
set run here (now)?" that the pass asks for every queue instance, and how the slots of
one job are spread over ranked queue instances (serial jobs and sge_pe(5) rules):
``$pe_slots`` (one host), ``$fill_up`` (fill each host before the next),
``$round_robin`` (one slot per host in turn), an integer N (exactly N on each host
used), and slot ranges ``n-m`` (the largest number that fits; the caller caps ``m`` by
the PE's total ``slots`` limit). Each slot taken is checked against the job's requests with the usage of
the moment and debited at once, so two jobs of one pass never overbook; a failed
allocation is rolled back.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from common.cluster import QueueInstance
from common.resource.complexes import ResourceRequest
from common.resource.matching import match_job
from common.resource.values import STRING_TYPES, compare
from common.placement.resources import (
    EMPTY, GLOBAL, Change, LevelKey, ResourceView, apply, debits, host_key, queue_key,
    relevant_attrs,
)

SlotKey = tuple[str, str]


class RequestFit:
    """One set of requests against a view, as the dispatch pass asks it many times.

    ``static_ok`` is the verdict for one slot with the usage of the view when first
    asked (the global and host parts of its key are kept, so ask it before debiting);
    ``fits`` checks ``slots`` slots with the usage of the moment, for consumables
    debited during the pass. Both are memoised by exactly what the verdict depends on
    (the relevant attributes' values, loads and usage on each level), so a thousand
    alike hosts are matched once.
    """

    def __init__(self, view: ResourceView, requests: Sequence[ResourceRequest] | None, *,
                 master: bool = True, only_requested: bool = False) -> None:
        self.view, self.requests, self.master = view, requests, master
        asked = list(requests or [])
        self.attrs = [r.attr for r in asked] if only_requested else \
            relevant_attrs(view.attrs, asked)
        self.names = tuple(sorted({a.name for a in self.attrs} | {"slots"}))
        self.dynamic = view.slots_above_queue() or any(
            a.is_consumable and a.name != "slots" for a in self.attrs)
        # a string attribute counts only by presence and by the outcome of comparing
        # it with the request: hostname=h1 then sorts all other hosts into one class
        self._strings = {a.name: a for a in self.attrs if a.type in STRING_TYPES}
        self._plain = tuple(n for n in self.names if n not in self._strings)
        # names no queue instance has a value for are None on every queue level
        at_queues = view.names_at_queues()
        self._queue_plain = tuple(n for n in self._plain if n in at_queues)
        self._queue_strings = tuple(n for n in self._strings if n in at_queues)
        self._queue_consumables = any(a.is_consumable and a.name in at_queues
                                      and a.name != "slots" for a in self.attrs)
        self._asked = {r.name: r.value for r in asked}
        # nothing to check but slots, which the pass counts itself
        self._trivial = [a.name for a in self.attrs] == ["slots"] and \
            not view.slots_above_queue()
        self._queue_matters = bool((set(self.names) - {"slots"}) & view.names_at_queues())
        self._memo: dict[tuple[Any, ...], bool] = {}
        self._denied_globally: set[bool] = set()
        self._by_host: dict[str, bool] = {}
        self._hosts: dict[str, tuple[Any, ...]] = {}
        self._global: tuple[Any, ...] | None = None

    def _sig(self, key: LevelKey) -> tuple[Any, ...]:
        view, empty, names = self.view, EMPTY, self._plain
        values, load = view.values.get(key, empty), view.load.get(key, empty)
        usage, shared = view.usage.get(key, empty), view.shared.get(key, empty)
        # map() with dict.get keeps this loop in C: it runs for every queue instance
        return (tuple(map(values.get, names)),
                tuple(map(load.get, names)) if load else (),
                tuple(map(usage.get, names)) if usage else (),
                tuple(map(shared.get, names)) if shared else (),
                tuple(self._string_sig(n, values, load) for n in self._strings))

    def _queue_sig(self, key: LevelKey) -> tuple[Any, ...]:
        """``_sig`` of a queue level: no load there, and only names queues know."""
        view, names = self.view, self._queue_plain
        values, usage = view.values.get(key, EMPTY), view.usage.get(key)
        shared = view.shared.get(key)
        return (tuple(map(values.get, names)),
                tuple(map(usage.get, names)) if usage else (),
                tuple(map(shared.get, names)) if shared else (),
                tuple(self._string_sig(n, values, EMPTY) for n in self._queue_strings))

    def _string_sig(self, name: str, values: Mapping[str, str], load: Mapping[str, str]
                    ) -> tuple[Any, ...]:
        offered = values.get(name, load.get(name))
        if name not in self._asked or offered is None:
            return (name in values, name in load)
        a = self._strings[name]
        return (name in values, name in load,
                compare(a.relop, a.type, self._asked[name], offered))

    def static_ok(self, queue: str, host: str) -> bool:
        if self.requests is None:
            return False
        if self._trivial:
            return True
        qkey = queue_key(queue, host)
        if not self._queue_matters:
            # no queue instance knows any of the names: the queue part is the same
            # everywhere (but for a queue without slots) and one verdict per host does
            if self.view.values.get(qkey, EMPTY).get("slots") == "0":
                return False
            verdict = self._by_host.get(host)
            if verdict is None:
                verdict = self._by_host[host] = self._static_key_ok(queue, host, None)
            return verdict
        return self._static_key_ok(queue, host, self._queue_sig(qkey))

    def select(self, instances: Sequence[QueueInstance]) -> list[QueueInstance]:
        """The instances for which ``static_ok`` holds, in their order."""
        if self.requests is None:
            return []
        if self._trivial:
            return list(instances)
        instances = self._by_identity(instances)
        if self._queue_matters:
            return self._select_by_queue(instances)
        verdicts: dict[str, bool] = {}
        for qi in instances:  # one verdict per host, asked of a queue with slots
            if qi.slots > 0 and qi.host not in verdicts:
                verdicts[qi.host] = self.static_ok(qi.queue, qi.host)
        return [qi for qi in instances if qi.slots > 0 and verdicts[qi.host]]

    def _by_identity(self, instances: Sequence[QueueInstance]) -> Sequence[QueueInstance]:
        """``-l hostname=..`` and ``-l qname=..``: every queue level offers the instance's
        own host and queue name, so an instance that does not match them is refused at
        the queue level whatever else holds; drop those first (one comparison per
        distinct name instead of a signature per instance)."""
        for name, of in (("hostname", _host_of), ("qname", _queue_of)):
            a, wanted = self._strings.get(name), self._asked.get(name)
            if a is None or wanted is None:
                continue
            seen: dict[str, bool] = {}
            for qi in instances:
                if of(qi) not in seen:
                    seen[of(qi)] = compare(a.relop, a.type, wanted, of(qi))
            instances = [qi for qi in instances if seen[of(qi)]]
        return instances

    def _select_by_queue(self, instances: Sequence[QueueInstance]) -> list[QueueInstance]:
        """``select`` when queue values matter: a queue whose instances agree on them
        (and holds none of them as a consumable) has one queue signature."""
        # the slots capacity is left out: for one slot any capacity above 0 will do
        names = tuple(n for n in self._queue_plain + self._queue_strings if n != "slots")
        uniform: dict[str, Any] = {}
        out = []
        for qi in instances:
            if qi.slots <= 0:
                continue
            if qi.queue not in uniform:
                same = not self._queue_consumables and \
                    self.view.uniform_at_queue(qi.queue, names)
                uniform[qi.queue] = self._queue_sig(queue_key(qi.queue, qi.host)) \
                    if same else None
            qsig = uniform[qi.queue]
            if qsig is None:
                qsig = self._queue_sig(queue_key(qi.queue, qi.host))
            if self._static_key_ok(qi.queue, qi.host, qsig):
                out.append(qi)
        return out

    def _static_key_ok(self, queue: str, host: str, qsig: Any) -> bool:
        if self._global is None:
            self._global = self._sig(GLOBAL)
        if host not in self._hosts:
            self._hosts[host] = self._sig(host_key(host))
        key = (self._global, self._hosts[host], qsig, 1, self.master)
        verdict = self._memo.get(key)
        if verdict is None:
            verdict = self._memo[key] = self._match(queue, host, 1, self.master)
        return verdict

    def fits(self, queue: str, host: str, slots: int, master: bool) -> bool:
        """``slots`` slots with the usage of this moment (memoised on it as well)."""
        if self.requests is None or master in self._denied_globally:
            return False
        key = (self._sig(GLOBAL), self._sig(host_key(host)),
               self._queue_sig(queue_key(queue, host)),
               slots, master)
        verdict = self._memo.get(key)
        if verdict is None:
            verdict = self._memo[key] = self._match(queue, host, slots, master)
        return verdict

    def _match(self, queue: str, host: str, slots: int, master: bool) -> bool:
        assert self.requests is not None
        result = match_job(self.requests, self.attrs, self.view.levels(queue, host),
                           slots=slots, master=master)
        if not result.ok and slots == 1 and master and result.level == "global":
            # a master is placed before the job debits anything, and usage only grows
            # while a category is asked: no other host will do as master either
            self._denied_globally.add(master)
        return result.ok


def _host_of(qi: QueueInstance) -> str:
    return qi.host


def _queue_of(qi: QueueInstance) -> str:
    return qi.queue


def soft_fits(view: ResourceView, soft: Sequence[ResourceRequest]) -> list[RequestFit]:
    """One matcher per soft request: a queue instance's violations are the soft
    requests it does not satisfy."""
    return [RequestFit(view, [r], only_requested=True) for r in soft]


@dataclass
class Allocation:
    """Slots taken so far for one job, with the debits to undo if it fails."""

    view: ResourceView | None
    requests: Sequence[ResourceRequest]
    free: dict[SlotKey, int]
    fit: RequestFit | None
    entries: list[list[Any]] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    total: int = 0  # the slots of ``entries`` (kept: the rules ask it after every take)
    # -masterq: whether a queue instance may take the master task (None: any)
    master_ok: Callable[[QueueInstance], bool] | None = None

    def take(self, qi: QueueInstance, wanted: int) -> int:
        """Take up to ``wanted`` slots on ``qi``; how many were taken."""
        key = (qi.queue, qi.host)
        count = min(wanted, self.free.get(key, 0))
        master, fit = not self.entries, self.fit
        if master and self.master_ok is not None and not self.master_ok(qi):
            return 0
        if count > 0 and fit is not None and fit.dynamic:
            count = _largest(lambda n: fit.fits(qi.queue, qi.host, n, master), count)
        if count <= 0:
            return 0
        self.free[key] -= count
        self.total += count
        entry = [qi.queue, qi.host, count]
        if self.view is not None:
            step = debits(self.view, self.requests, [entry], has_master=master)
            apply(self.view, step)
            self.changes.extend(step)
        self.entries.append(entry)
        return count

    def mark(self) -> tuple[int, int]:
        return len(self.entries), len(self.changes)

    def rollback(self, mark: tuple[int, int] = (0, 0)) -> None:
        for queue, host, count in self.entries[mark[0]:]:
            self.free[(queue, host)] += count
            self.total -= count
        if self.view is not None:
            apply(self.view, self.changes[mark[1]:], -1)
        del self.entries[mark[0]:], self.changes[mark[1]:]

    def granted(self) -> list[list[Any]]:
        """Entries merged per queue instance, master first."""
        merged: dict[SlotKey, list[Any]] = {}
        for queue, host, count in self.entries:
            if (queue, host) in merged:
                merged[(queue, host)][2] += count
            else:
                merged[(queue, host)] = [queue, host, count]
        return list(merged.values())


def _largest(ok: Callable[[int], bool], high: int) -> int:
    """The largest n in 1..high with ok(n) (ok is monotone: true up to some n); 0 if none."""
    if high <= 0 or ok(high):  # the usual case: everything asked for fits
        return max(high, 0)
    if not ok(1):
        return 0
    low, high = 1, high - 1
    while low < high:
        mid = (low + high + 1) // 2
        if ok(mid):
            low = mid
        else:
            high = mid - 1
    return low


def by_host(candidates: Iterable[QueueInstance]) -> list[list[QueueInstance]]:
    """Candidates grouped per host, hosts in the order of their best queue instance."""
    groups: dict[str, list[QueueInstance]] = {}
    for qi in candidates:
        groups.setdefault(qi.host, []).append(qi)
    return list(groups.values())


def drop_full_hosts(hosts: list[list[QueueInstance]], free: Mapping[SlotKey, int]) -> None:
    """Remove the leading hosts without a free slot (they stay full for the pass)."""
    count = 0
    while count < len(hosts) and all(free.get((qi.queue, qi.host), 0) <= 0
                                     for qi in hosts[count]):
        count += 1
    del hosts[:count]


def _fill_host(alloc: Allocation, host: list[QueueInstance], wanted: int) -> int:
    taken = 0
    for qi in host:
        if taken >= wanted:
            break
        taken += alloc.take(qi, wanted - taken)
    return taken


def _capacity(alloc: Allocation, host: list[QueueInstance], high: int) -> int:
    """How many slots (up to ``high``) the job could get on ``host`` alone."""
    if alloc.fit is None or not alloc.fit.dynamic:
        return min(high, sum(max(alloc.free.get((qi.queue, qi.host), 0), 0) for qi in host))
    got = _fill_host(alloc, host, high)
    alloc.rollback()
    return got


def _pe_slots(alloc: Allocation, hosts: list[list[QueueInstance]], low: int, high: int,
              bounds: dict[str, int]) -> None:
    """All slots on one host: the host giving the most (up to ``high``), first wins.
    ``bounds``: what each host gave before in this pass; it cannot give more now."""
    best: tuple[int, int] = (0, -1)
    for index, host in enumerate(hosts):
        if bounds.get(host[0].host, high) <= best[0]:
            continue
        got = bounds[host[0].host] = _capacity(alloc, host, high)
        if got > best[0]:
            best = (got, index)
        if got == high:
            break
    if best[0] >= low:
        _fill_host(alloc, hosts[best[1]], best[0])


def _fill_up(alloc: Allocation, hosts: list[list[QueueInstance]], high: int) -> None:
    # a second round reaches hosts passed over while no master was placed yet
    for _ in range(2):
        for host in hosts:
            if alloc.total >= high:
                return
            _fill_host(alloc, host, high - alloc.total)


def _round_robin(alloc: Allocation, hosts: list[list[QueueInstance]], high: int) -> None:
    progress = True
    while progress and alloc.total < high:
        progress = False
        for host in hosts:
            if alloc.total >= high:
                return
            if _fill_host(alloc, host, 1):
                progress = True


def _per_host(alloc: Allocation, hosts: list[list[QueueInstance]], per_host: int,
              high: int) -> None:
    """Exactly ``per_host`` slots on each host used; a host giving fewer is skipped."""
    target = high - high % per_host
    used: set[int] = set()
    for _ in range(2):  # see _fill_up
        for index, host in enumerate(hosts):
            if alloc.total >= target:
                return
            if index in used:
                continue
            mark = alloc.mark()
            if _fill_host(alloc, host, per_host) < per_host:
                alloc.rollback(mark)
            else:
                used.add(index)


def allocate(rule: str, low: int, high: int, hosts: list[list[QueueInstance]],
             alloc: Allocation, bounds: dict[str, int] | None = None
             ) -> list[list[Any]] | None:
    """Grant between ``low`` and ``high`` slots by allocation ``rule`` on ``hosts`` (see
    :func:`by_host`), or None (rolled back). ``bounds`` (host -> slots it could give)
    is kept by the caller across jobs of one request set and one pass."""
    if rule == "$fill_up":
        _fill_up(alloc, hosts, high)
    elif rule == "$round_robin":
        _round_robin(alloc, hosts, high)
    elif rule.isdigit() and int(rule) > 0:
        _per_host(alloc, hosts, int(rule), high)
    else:
        _pe_slots(alloc, hosts, low, high, {} if bounds is None else bounds)
    if alloc.total < low or (rule.isdigit() and alloc.total % max(int(rule), 1)):
        alloc.rollback()
        return None
    return alloc.granted()
