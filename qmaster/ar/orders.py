"""The qmaster's check of a dispatch order against the advance reservations (its own
bookkeeping, whatever the scheduler believed):

- a job of an AR (``qsub -ar``) starts only inside its AR's window (and not once the AR
  is ending) and only on the AR's granted queue instances, within the slots the AR's other
  running jobs leave there;
- any other job may not take a running AR's slots: on each instance it asks for, the
  slots in use plus those a running AR holds and its jobs do not use must leave room.

The cost is bounded by the running ARs and, per AR, its jobs' tasks.
"""
from __future__ import annotations

from typing import Any

from common.ar import ENDING_STATES
from common.jobstate import ACTIVE_STATES
from qmaster.store import Store

Key = tuple[str, str]


def _granted(order: dict[str, Any]) -> dict[Key, int]:
    wanted: dict[Key, int] = {}
    for queue, host, slots in order["granted"]:
        key = (str(queue), str(host))
        wanted[key] = wanted.get(key, 0) + int(slots)
    return wanted


def _used_by_jobs(store: Store, ar_id: int) -> dict[Key, int]:
    used: dict[Key, int] = {}
    for job_id in store.ar_jobs.get(ar_id, ()):
        for task in store.enrolled_tasks(job_id):
            if task.state_enum in ACTIVE_STATES:
                for queue, host, slots in task.granted or []:
                    key = (str(queue), str(host))
                    used[key] = used.get(key, 0) + int(slots)
    return used


def _unused(store: Store, record: dict[str, Any]) -> dict[Key, int]:
    """The AR's granted slots that its jobs do not use now."""
    used = _used_by_jobs(store, int(record["ar_id"]))
    return {(str(q), str(h)): int(n) - used.get((str(q), str(h)), 0)
            for q, h, n in record["granted"]}


def ar_order_refusal(store: Store, order: dict[str, Any], capacity: dict[Key, int],
                     now: float) -> str:
    """Why the order breaks an AR's guarantee ("" when it does not)."""
    job = store.jobs.get(int(order["job_id"]))
    if job is None:
        return ""
    wanted = _granted(order)
    ar_id = int(job.opts.get("ar_id") or 0)
    if ar_id:
        record = store.ars.get(ar_id)
        # by its window, not its state letter: the clock turns it to r on the next
        # heartbeat, the scheduler may dispatch at its very start
        if record is None or record["state"] in ENDING_STATES or \
                not record["start"] <= now < record["end"]:
            return f"advance reservation {ar_id} is not running"
        free = _unused(store, record)
        for (queue, host), slots in wanted.items():
            if slots > free.get((queue, host), 0):
                return (f"queue instance {queue}@{host} is outside the free slots of "
                        f"advance reservation {ar_id}")
        return ""
    held: dict[Key, int] = {}
    for record in store.ars.values():
        if record["state"] not in ENDING_STATES and record["start"] <= now < record["end"] and \
                any(k in wanted for k in ((str(q), str(h)) for q, h, _ in record["granted"])):
            for key, slots in _unused(store, record).items():
                held[key] = held.get(key, 0) + max(0, slots)
    for key, slots in wanted.items():
        if held.get(key) and store.used_slots.get(key, 0) + slots + held[key] > \
                capacity.get(key, 0):
            return (f"queue instance {key[0]}@{key[1]} has its free slots reserved by an "
                    "advance reservation")
    return ""
