"""The qmaster's part of reprioritization (sched_conf(5) ``reprioritize_interval``):
every interval it sends each execd the tickets of the tasks running there, one
``job_tickets`` message per execd, from its policy view (qmaster/policy_view.py, the same
evaluation ``qstat -ext`` shows, reused while fresh); the execds renice by them
(execd/reprioritize.py). An interval of 0 sends nothing; the execds that were sent
tickets are told once to stop (and give their tasks back their queue's priority).

A changed scheduler configuration also sets the global configuration's ``reprioritize``
("1" when the interval is not 0, "0" when it is), as 8.1.9's qmaster does.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from common.conf_values import parse_time
from common.model import Task
from common.policy.model import PolicyResult

if TYPE_CHECKING:
    from qmaster.context import Ctx

GLOBAL = "global"


def interval(conf: Mapping[str, Mapping[str, list[list[str]]]]) -> float:
    """The scheduler configuration's reprioritize_interval in seconds (0: off)."""
    for key, value in conf.get("sconf", {}).get(GLOBAL, []):
        if key == "reprioritize_interval":
            try:
                return parse_time(value)
            except ValueError:
                return 0.0
    return 0.0


def tickets_by_host(tasks: Iterable[Task], result: PolicyResult
                    ) -> dict[str, list[dict[str, Any]]]:
    """Each host's running tasks and their tickets (0 for a task the policy has no
    figures for: the execd counts it 1 ticket, as 8.1.9's PTF does)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for task in tasks:
        if not task.host:
            continue
        found = result.jobs.get(task.job_id)
        tickets = found.task_tickets.get(task.task_id) if found is not None else None
        out.setdefault(task.host, []).append(
            {"job_id": task.job_id, "task_id": task.task_id,
             "tickets": float(tickets.tckts) if tickets is not None else 0.0})
    return out


def global_reprioritize(conf: Mapping[str, Mapping[str, list[list[str]]]]
                        ) -> list[list[str]] | None:
    """The global configuration with ``reprioritize`` made to agree with the scheduler's
    reprioritize_interval, or None when it agrees already."""
    pairs = conf.get("conf", {}).get(GLOBAL)
    if pairs is None:
        return None
    want = "1" if interval(conf) > 0 else "0"
    have = next((v for k, v in pairs if k == "reprioritize"), "0")
    if have.strip().lower() in ("1", "true") and want == "1" \
            or have.strip().lower() in ("0", "false") and want == "0":
        return None
    if any(k == "reprioritize" for k, _ in pairs):
        return [[k, want if k == "reprioritize" else v] for k, v in pairs]
    return [*map(list, pairs), ["reprioritize", want]]


def sync_global_conf(ctx: "Ctx") -> None:
    """After the scheduler configuration changed: the global ``reprioritize`` follows."""
    pairs = global_reprioritize(ctx.store.conf)
    if pairs is not None:
        ctx.store.put_conf(ctx.batch, "conf", GLOBAL, pairs)


@dataclass
class TicketSender:
    """When the tickets are next due, and which execds were sent some (told to stop
    when the interval becomes 0)."""

    next_at: float = 0.0
    sent_to: set[str] = field(default_factory=set)

    def messages(self, conf: Mapping[str, Mapping[str, list[list[str]]]], now: float,
                 tasks: Iterable[Task], result_of: Callable[[], PolicyResult]
                 ) -> dict[str, dict[str, Any]]:
        """host -> the ``job_tickets`` body due for it now (none when not due);
        ``result_of()``: the policy's result, asked only when tickets are due."""
        every = interval(conf)
        if every <= 0:
            stop = {host: {"reprioritize": False, "tickets": []} for host in self.sent_to}
            self.sent_to.clear()
            self.next_at = 0.0
            return stop
        if now < self.next_at:
            return {}
        self.next_at = now + every
        by_host = tickets_by_host(tasks, result_of())
        self.sent_to |= set(by_host)
        return {host: {"reprioritize": True, "tickets": items}
                for host, items in by_host.items()}
