"""Subordination (queue_conf(5) ``subordinate_list``): which queue instances and tasks a
host's other queues suspend. Pure: the configuration and the tasks on a host go in, the
wanted suspensions come out; ``qmaster.auto_suspend`` applies the difference.

Two kinds, on one host at a time (instances on other hosts never count):

- queue-wise, ``low.q=2,other.q``: when the superordinated instance has at least that
  many slots in use (no number: all of its slots), the subordinated instance on the same
  host is suspended as a whole (state ``S``, its jobs ``S``) and takes no new jobs;
- slot-wise, ``slots=N(B.q:seq:action, ...)``: the queues form a tree; at each node, from
  the leaves up to the root, while the running tasks of the node's whole subtree use
  more than its N slots, one task below the node is suspended: from the queue with the
  highest sequence number (lowest priority) first, within it by the action, ``sr`` the
  shortest running (the default) or ``lr`` the longest running. The instance itself
  shows no state; its suspended tasks show ``S``.

Slot-wise decisions are made afresh each time from all tasks on the host; a task that is
suspended already is taken first when one must be, so a decision does not swap one
suspended task for another, and tasks are resumed when the count allows.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Mapping, Sequence

QUEUE_WISE, SLOT_WISE = "subordinate", "slot-subordinate"  # Task.suspend_reasons
_SLOTWISE = re.compile(r"^\s*slots\s*=\s*(\d+)\s*\((.*)\)\s*$", re.IGNORECASE)


class SubordinateError(ValueError):
    """A subordinate_list that is neither form."""


@dataclass(frozen=True)
class QueueWise:
    entries: tuple[tuple[str, int | None], ...]  # (queue, slots that trigger; None: all)


@dataclass(frozen=True)
class SlotWise:
    threshold: int
    entries: tuple[tuple[str, int, str], ...]     # (queue, sequence number, sr|lr)


Subordinates = QueueWise | SlotWise | None


def parse_subordinates(text: str) -> Subordinates:
    """A host's ``subordinate_list`` value (``NONE``: None)."""
    value = (text or "").strip()
    if not value or value.upper() == "NONE":
        return None
    slotwise = _SLOTWISE.match(value)
    if slotwise:
        entries = []
        for item in _items(slotwise.group(2)):
            parts = [p.strip() for p in item.split(":")]
            if not parts[0] or len(parts) > 3:
                raise SubordinateError(f'invalid slot-wise subordinate "{item}"')
            seq = int(parts[1]) if len(parts) > 1 and parts[1] else 0
            action = parts[2].lower() if len(parts) > 2 and parts[2] else "sr"
            if action not in ("sr", "lr"):
                raise SubordinateError(f'invalid action "{action}"')
            entries.append((parts[0], seq, action))
        return SlotWise(int(slotwise.group(1)), tuple(entries))
    queues = []
    for item in _items(value):
        name, _, count = item.partition("=")
        if not name.strip():
            raise SubordinateError(f'invalid subordinate "{item}"')
        queues.append((name.strip(), int(count) if count.strip() else None))
    return QueueWise(tuple(queues))


def _items(text: str) -> list[str]:
    return [i.strip() for i in re.split(r"[,\s]+", text) if i.strip()]


@dataclass(frozen=True)
class HostTask:
    """A task that holds slots in a queue instance of the host."""

    key: str
    queue: str
    slots: int
    start_time: float
    suspended_otherwise: bool = False   # stopped for another reason (qmod, threshold)
    slot_suspended: bool = False        # suspended slot-wise now


@dataclass
class HostSubordination:
    """What the host's subordinate lists want: instances suspended queue-wise (by
    queue name) and tasks suspended slot-wise (by key)."""

    suspended_queues: set[str] = field(default_factory=set)
    suspended_tasks: set[str] = field(default_factory=set)


def host_subordination(lists: Mapping[str, Subordinates], slots: Mapping[str, int],
                       used: Mapping[str, int], tasks: Sequence[HostTask]
                       ) -> HostSubordination:
    """``lists``: each queue on the host -> its subordinate list there; ``slots`` and
    ``used``: each instance's slots and slots in use; ``tasks``: the host's tasks."""
    out = HostSubordination()
    for queue, subs in lists.items():
        if isinstance(subs, QueueWise):
            for sub, count in subs.entries:
                trigger = slots.get(queue, 0) if count is None else count
                if sub in lists and sub != queue and trigger > 0 \
                        and used.get(queue, 0) >= trigger:
                    out.suspended_queues.add(sub)
    children = {q: s for q, s in lists.items() if isinstance(s, SlotWise)}
    if children:
        out.suspended_tasks = _slot_wise(children, set(lists), tasks)
    return out


def _slot_wise(trees: Mapping[str, SlotWise], on_host: set[str], tasks: Sequence[HostTask]
               ) -> set[str]:
    suspended: set[str] = set()
    for node in _bottom_up(trees):
        tree = trees[node]
        below = _subtree(node, trees) - {node}
        members = (below | {node}) & on_host
        running = [t for t in tasks if t.queue in members and not t.suspended_otherwise
                   and t.key not in suspended]
        count = sum(t.slots for t in running)
        if count <= tree.threshold:
            continue
        for victim in _victims(node, trees, [t for t in running if t.queue in below]):
            if count <= tree.threshold:
                break
            suspended.add(victim.key)
            count -= victim.slots
    return suspended


def _subtree(node: str, trees: Mapping[str, SlotWise], seen: frozenset[str] = frozenset()
             ) -> set[str]:
    found = {node}
    tree = trees.get(node)
    if tree is None or node in seen:  # (a cycle ends where it closes)
        return found
    for child, _, _ in tree.entries:
        found |= _subtree(child, trees, seen | {node})
    return found


def _bottom_up(trees: Mapping[str, SlotWise]) -> list[str]:
    """Nodes with a slot-wise list, each after every node of its subtree."""
    order: list[str] = []

    def visit(node: str, path: frozenset[str]) -> None:
        if node in path or node in order:
            return
        tree = trees.get(node)
        if tree is None:
            return
        for child, _, _ in tree.entries:
            visit(child, path | {node})
        order.append(node)
    for node in sorted(trees):
        visit(node, frozenset())
    return order


def _victims(node: str, trees: Mapping[str, SlotWise], running: list[HostTask]
             ) -> list[HostTask]:
    """The order tasks below ``node`` are taken in: the deepest queues of the tree first
    (the lowest in priority), among queues of one depth the highest sequence number
    first, within a queue those suspended already first, then by the queue's action."""
    depth = _depths(node, trees)

    def key(task: HostTask) -> tuple[int, int, int, float]:
        seq, action = _entry_of(task.queue, trees)
        # sr: shortest run time = started last; lr: longest run time = started first
        when = -task.start_time if action == "sr" else task.start_time
        return (-depth.get(task.queue, 1), -seq, 0 if task.slot_suspended else 1, when)
    return sorted(running, key=key)


def _depths(node: str, trees: Mapping[str, SlotWise]) -> dict[str, int]:
    depth = {node: 0}
    todo = [node]
    while todo:
        parent = todo.pop()
        for child, _, _ in (trees[parent].entries if parent in trees else ()):
            if child not in depth:
                depth[child] = depth[parent] + 1
                todo.append(child)
    return depth


def _entry_of(queue: str, trees: Mapping[str, SlotWise]) -> tuple[int, str]:
    for tree in trees.values():
        for name, seq, action in tree.entries:
            if name == queue:
                return seq, action
    return 0, "sr"
