"""``qconf -cq wc_queue_list``: clean queue instances of their jobs, as Grid Engine
8.1.9's "purge": every job running in a matching instance is deleted at once, without
waiting for its execd (what ``qdel -f`` does, hence for managers only). 8.1.9 confirms
each instance, ``root@vm purged queue "all.q@vm"``, and refuses a list entry that
matches none, ``invalid queue or job "nosuch.q"`` (tests/data/reference/qconf-control/).

An entry is a cluster queue, a queue instance ``q@host`` or a pattern of either.
"""
from __future__ import annotations

from clients.api import ClientError
from clients.qconf.base import QconfError, Session, err

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

NO_MATCH = 'invalid queue or job "{}"'
PURGED = '{} purged queue "{}"'
MUST_BE_MANAGER = 'denied: "{}" must be manager for this operation'
ACTIVE = ("transferring", "running", "suspended", "deleted")


def _matches(ref: str, queue: str, host: str) -> bool:
    qpat, at, hpat = ref.partition("@")
    return _fnmatchcase(queue, qpat or "*") and (
        not at or _fnmatchcase(host.lower(), hpat.lower()))


def _targets(tasks: list[dict[str, Any]], instance: tuple[str, str],
             arrays: set[int]) -> list[dict[str, Any]]:
    targets = []
    for task in tasks:
        if task.get("state") not in ACTIVE:
            continue
        if not any((g[0], g[1]) == instance for g in task.get("granted") or []):
            continue
        job_id, task_id = task["job_id"], task["task_id"]
        targets.append({"job_id": job_id, "tasks": [[task_id, task_id, 1]]}
                       if job_id in arrays else {"job_id": job_id})
    return targets


def clean_queues(s: Session, refs: str) -> int:
    """``-cq wc_queue_list``."""
    user = s.client.user
    if user.name not in s.objects("manager"):
        raise QconfError(MUST_BE_MANAGER.format(user.name))
    instances = [(i["queue"], i["host"]) for i in s.client.cluster()["instances"]]
    reply = s.client.jobs()
    arrays = {j["job_id"] for j in reply.get("jobs", []) if (j.get("opts") or {}).get("array")}
    rc = 0
    for ref in refs.split(","):
        chosen = [qi for qi in instances if _matches(ref, *qi)]
        if not chosen:
            err(NO_MATCH.format(ref))
            rc = 1
            continue
        for qi in chosen:
            targets = _targets(reply.get("tasks", []), qi, arrays)
            try:
                if targets:
                    s.client.delete(targets, force=True)
            except ClientError as exc:
                err(exc.message)
                rc = 1
                continue
            err(PURGED.format(f"{user.name}@{user.host}" if user.host else user.name,
                              f"{qi[0]}@{qi[1]}"))
    return rc


CLEAN_OPTIONS: dict[str, tuple[int, Callable[..., int]]] = {"-cq": (1, clean_queues)}


def _fnmatchcase(name: str, pattern: str) -> bool:
    import fnmatch  # (these options only: qconf's start loads no pattern matching)
    return fnmatch.fnmatchcase(name, pattern)
