"""The typed contract of the scheduling policy (sge_priority(5), sched_conf(5),
share_tree(5), user(5), project(5)): what the pure policy core takes in and gives out.

The core (``common.policy.priority.evaluate``) takes the jobs, the entities that hold
shares and override tickets, the share tree, the usage and the time as data and returns
each job's priority with every figure ``qstat -pri/-urg/-ext`` and ``sge_share_mon``
show. It opens no socket, reads no clock and asks nothing of the system: the scheduler
(its mirror), the qmaster (``qstat``) and the simulator (``pyge simulate``) build these
records from their own bookkeeping (``common.policy.inputs``).

Field names follow the columns of 8.1.9's ``qstat -ext/-pri/-urg`` where one exists.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

# the share tree's node types, part of this contract (a module of their own: see there)
from common.policy.node_types import PROJECT_NODE, USER_NODE  # noqa: F401

# usage_weight_list's names (sched_conf(5)); a usage record maps each to an amount:
# cpu seconds, mem as GB seconds (integral memory usage), io as GB transferred
USAGE_NAMES = ("cpu", "mem", "io")
Usage = Mapping[str, float]


@dataclass(frozen=True, slots=True)
class ResourceUrgency:
    """What the urgency of one complex attribute is (complex(5) ``urgency`` column), for
    the resource contribution: ``consumable`` is ``NO``, ``YES`` (per slot) or ``JOB``,
    ``numeric`` whether amounts multiply the urgency."""

    urgency: float
    consumable: str = "NO"
    numeric: bool = False


@dataclass(frozen=True, slots=True)
class RunningTask:
    """A task of a job that holds slots: its id, its slots and its usage so far (cpu,
    mem, io: for the share tree, running jobs' usage counts for their owner)."""

    task_id: int
    slots: int = 1
    usage: Usage = field(default_factory=dict)
    # a suspended task (qmod -sj, a suspend threshold, a subordinated queue) is not
    # active: 8.1.9 gives it no tickets and does not count it for its owner
    suspended: bool = False


@dataclass(frozen=True, slots=True)
class PolicyJob:
    """One job as the policy sees it. ``department``: the first access list of type
    DEPT that holds the owner, else ``defaultdepartment`` (resolved by the caller).
    ``deadline``: the ``-dl`` time (epoch seconds), None when the job has none or its
    owner is not (or no longer) in ``deadlineusers`` (resolved by the caller).
    ``slots``: the slots the urgency counts (a PE job's ``urgency_slots`` applied to its
    range). ``requests``: the hard ``-l`` requests as stored (full names, typed values).
    ``pending_tasks``: how many of its tasks wait (held ones excluded: they get no
    tickets); ``running``: its tasks that hold slots."""

    job_id: int
    owner: str
    group: str = ""
    project: str | None = None
    department: str = "defaultdepartment"
    submit_time: float = 0.0
    priority: int = 0               # -p, -1023 .. 1024
    deadline: float | None = None   # -dl (epoch seconds)
    job_share: int = 0              # -js
    override_tickets: int = 0       # -ot
    slots: int = 1
    requests: Mapping[str, str] = field(default_factory=dict)
    pending_tasks: int = 0
    running: tuple[RunningTask, ...] = ()
    # the ids of its first pending tasks, in order (at least as many as
    # max_pending_tasks_per_job, or all); empty: 1, 2, ... as many as ``pending_tasks``
    pending_task_ids: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Entity:
    """A user, project or department as the ticket policies see it."""

    fshare: int = 0   # functional shares
    oticket: int = 0  # override tickets


@dataclass(frozen=True, slots=True)
class Entities:
    users: Mapping[str, Entity] = field(default_factory=dict)
    projects: Mapping[str, Entity] = field(default_factory=dict)
    departments: Mapping[str, Entity] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ShareNode:
    """A share tree node as share_tree(5) writes it (``id``, ``name``, ``type``,
    ``shares``, ``childnodes``), the form the qmaster stores."""

    id: int
    name: str
    type: int
    shares: int
    childnodes: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class UsageTable:
    """Decayed usage, already weighted by ``usage_weight_list`` into one figure per
    holder, as the share tree compares it: per user, per project, and per user within a
    project (a user node below a project node). ``long_term``: the same, never decayed
    (sge_share_mon's ``ltcpu``...; not used by the policy)."""

    users: Mapping[str, float] = field(default_factory=dict)
    projects: Mapping[str, float] = field(default_factory=dict)
    user_projects: Mapping[tuple[str, str], float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Urgency:
    """qstat -urg: ``urg`` = ``rrcontr`` + ``wtcontr`` + ``dlcontr``."""

    urg: float = 0.0
    rrcontr: float = 0.0
    wtcontr: float = 0.0
    dlcontr: float = 0.0


@dataclass(frozen=True, slots=True)
class Tickets:
    """qstat -ext: ``tckts`` = ``otckt`` + ``ftckt`` + ``stckt``; ``share`` the job's
    share of all tickets of the cell."""

    tckts: float = 0.0
    otckt: float = 0.0
    ftckt: float = 0.0
    stckt: float = 0.0
    share: float = 0.0


@dataclass(frozen=True, slots=True)
class JobPriority:
    """A job's place in the queue: ``prio`` = weight_priority·``npprior`` +
    weight_urgency·``nurg`` + weight_ticket·``ntckts`` (sge_priority(5)).
    ``tickets``: the job's (its pending tasks'); ``task_tickets``: each running task's."""

    job_id: int
    prio: float
    npprior: float
    nurg: float
    ntckts: float
    urgency: Urgency
    tickets: Tickets
    task_tickets: Mapping[int, Tickets] = field(default_factory=dict)
    # each running task's prio (8.1.9 computes prio per task from its own tickets)
    task_prio: Mapping[int, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class NodeShare:
    """One share tree node after a pass, as ``sge_share_mon`` shows it: ``level``
    (its share among its siblings), ``total`` (of the whole tree), the long and short
    term target shares, the actual share (of the usage) and its usage."""

    path: str
    user: str
    project: str
    shares: int
    job_count: int
    level: float
    total: float
    long_target_share: float
    short_target_share: float
    actual_share: float
    usage: float


@dataclass(frozen=True, slots=True)
class PolicyResult:
    """What ``common.policy.priority.evaluate`` returns: each job's priority, the order
    the pending jobs are taken in (job ids, the highest priority first; ties by
    submission time, then job id, as 8.1.9), and the share tree's nodes (empty without a
    share tree). ``jobs`` makes each JobPriority when it is first looked at."""

    jobs: Mapping[int, JobPriority]
    order: tuple[int, ...]
    nodes: tuple[NodeShare, ...] = ()
