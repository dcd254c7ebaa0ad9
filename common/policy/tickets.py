"""The functional and override ticket policies (sched_conf(5), user(5), project(5),
access_list(5) departments) over task references, as 8.1.9's libs/sched/sgeee.c
distributes them. Pure.

Who holds what. A task reference (``TaskRef``) is one running task, or one pending task
considered for tickets. It points at its owner's user object, its project and its
department only when that object exists (8.1.9 looks each up by name and leaves the
reference empty otherwise): a user without a user object gets no user shares, no user
override tickets and no share tree node. ``counts`` hold, per user/project/department,
how many *running* (active) task references it has: 8.1.9's ``job_cnt``.

Running tasks (every task gets tickets of its own):

- functional: each task's share of an object is the object's ``fshare`` divided by the
  object's running count when ``share_functional_shares`` is true (the object's shares
  are shared among its jobs), the whole ``fshare`` otherwise; the sums run over all
  running tasks (so with sharing, each object with running jobs counts once). A task gets
  ``share · weight_tickets_functional / sum`` per category, weighted by ``weight_user``,
  ``weight_project``, ``weight_department`` and ``weight_job`` normalised over the
  categories whose sum is not 0. The job category's share is the job's ``-js``.
- override: the user's, project's and department's ``oticket`` divided by their running
  counts (``share_override_tickets`` true) or whole (false), plus the job's ``-ot``
  (never divided).

Pending tasks are considered one after another *as if each joined the running ones*,
so the second pending job of a user gets fewer tickets than the first and the pending
jobs of two users interleave:

- functional: pending tasks are grouped into categories of equal (job share, user, dept,
  project) (objects without shares left out; a task with no shares at all gets no
  functional tickets and is skipped). Up to ``max_functional_jobs_to_schedule`` times,
  the first task of every category is valued as if it were the next to run (with the
  object's count + 1 and, for the sums, 0.001 added and this task's shares where they are
  not shared; the category weights here are the four configured weights normalised over
  all four) and the best one (most tickets, then earliest submission, lowest job id,
  lowest task id) is taken: its objects count it as running from now on, its shares join
  the sums and its functional tickets are computed again with the new sums. The tasks
  left in the categories after that get the value their category's first task had in the
  last round (8.1.9's distribution of the remaining tickets). Within a category the tasks
  come in the order of the tickets of the policies above it in ``policy_hierarchy`` (when
  this policy is in the hierarchy, "dependent"), then submission time, job and task id.
- override (shared): the same rounds over categories of (``-ot``, user, dept, project)
  with override tickets, for all pending tasks (no limit), each valued ``oticket /
  (count + 1)`` per object plus its ``-ot``; ties go to the lower job id. 8.1.9 adds the
  winner's override tickets to the tickets the policies below it sort by whether or not
  override is in the hierarchy. Not shared: every pending task gets the whole oticket of
  its objects plus its ``-ot``.

The rounds need not look at every category every time for override: a category's value
only falls as counts rise, so a lazy heap (a popped category whose value did not change
is the maximum) gives 8.1.9's order with O(log n) work per task.
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from common.policy.conf import PolicyConf
from common.policy.model import Entities, Entity, PolicyJob

# added to every sum a pending task is valued against (8.1.9: keeps an empty sum from
# dividing by zero; it makes the first job of an object worth slightly less than all)
PENDING_SUM_EPSILON = 0.001


@dataclass(slots=True, eq=False)
class TaskRef:
    """One task that takes part in the ticket policies."""

    job: PolicyJob
    task_id: int
    queued: bool
    user: Entity | None
    project: Entity | None
    dept: Entity | None
    user_name: str
    project_name: str | None
    dept_name: str
    node: object | None = None     # its share tree node (common.policy.sharetree)
    tickets: float = 0.0           # of the policies above, for "dependent" ordering
    sticket: float = 0.0
    fticket: float = 0.0
    oticket: float = 0.0

    @property
    def total(self) -> float:
        return self.sticket + self.fticket + self.oticket

    def order_key(self) -> tuple[float, int, int]:
        return (int(self.job.submit_time), self.job.job_id, self.task_id)


class Counts:
    """Running (active) task references per user, project and department."""

    def __init__(self) -> None:
        self.users: dict[str, int] = {}
        self.projects: dict[str, int] = {}
        self.depts: dict[str, int] = {}

    def add(self, ref: TaskRef, delta: int = 1) -> None:
        if ref.user is not None:
            self.users[ref.user_name] = self.users.get(ref.user_name, 0) + delta
        if ref.project is not None:
            self.projects[ref.project_name] = self.projects.get(ref.project_name, 0) + delta
        if ref.dept is not None:
            self.depts[ref.dept_name] = self.depts.get(ref.dept_name, 0) + delta

    def of(self, ref: TaskRef) -> tuple[int, int, int]:
        return (self.users.get(ref.user_name, 0),
                self.projects.get(ref.project_name, 0) if ref.project_name else 0,
                self.depts.get(ref.dept_name, 0))


def make_ref(job: PolicyJob, task_id: int, queued: bool, entities: Entities) -> TaskRef:
    project = entities.projects.get(job.project) if job.project else None
    return TaskRef(job, task_id, queued, entities.users.get(job.owner), project,
                   entities.departments.get(job.department), job.owner, job.project,
                   job.department)


# --------------------------------------------------------------------------- functional

@dataclass(slots=True)
class Sums:
    """The functional shares summed so far per category (user, project, dept, job)."""

    user: float = 0.0
    project: float = 0.0
    dept: float = 0.0
    job: float = 0.0


def category_weights(conf: PolicyConf, sums: Sums | None) -> tuple[float, float, float, float]:
    """weight_user/project/department/job normalised over the categories whose sum is
    not 0 (``sums`` None: over all four, as 8.1.9 weights pending jobs)."""
    weights = [conf.weight_user, conf.weight_project, conf.weight_department,
               conf.weight_job]
    if sums is not None:
        for i, total in enumerate((sums.user, sums.project, sums.dept, sums.job)):
            if not total > 0:
                weights[i] = 0.0
    k_sum = sum(weights)
    if k_sum > 0:
        weights = [w / k_sum for w in weights]
    return weights[0], weights[1], weights[2], weights[3]


def _shares_of(ref: TaskRef, counts: Counts, shared: bool) -> tuple[float, float, float]:
    """The task's user, project and dept shares with its objects' current counts."""
    n_user, n_project, n_dept = counts.of(ref)
    user = project = dept = 0.0
    if ref.user is not None:
        user = ref.user.fshare / n_user if shared else ref.user.fshare
    if ref.project is not None:
        project = ref.project.fshare / n_project if shared else ref.project.fshare
    if ref.dept is not None:
        dept = ref.dept.fshare / n_dept if shared else ref.dept.fshare
    return user, project, dept


def _ftickets(ref: TaskRef, shares: tuple[float, float, float], sums: Sums, pool: float,
              weights: tuple[float, float, float, float]) -> float:
    user, project, dept = shares
    total = 0.0
    if ref.user is not None and sums.user:
        total += weights[0] * user * pool / sums.user
    if ref.project is not None and sums.project:
        total += weights[1] * project * pool / sums.project
    if ref.dept is not None and sums.dept:
        total += weights[2] * dept * pool / sums.dept
    if sums.job:
        total += weights[3] * ref.job.job_share * pool / sums.job
    return total


def running_functional(running: Sequence[TaskRef], conf: PolicyConf, counts: Counts) -> Sums:
    """Functional tickets of the running tasks (``counts`` hold them all); returns the
    sums the pending tasks start from."""
    shared = conf.share_functional_shares
    sums = Sums()
    shares = [_shares_of(ref, counts, shared) for ref in running]
    for ref, (user, project, dept) in zip(running, shares):
        sums.user += user
        sums.project += project
        sums.dept += dept
        sums.job += ref.job.job_share
    pool = float(conf.weight_tickets_functional)
    weights = category_weights(conf, sums)
    for ref, share in zip(running, shares):
        ref.fticket = _ftickets(ref, share, sums, pool, weights)
    return sums


class _Category:
    """Pending tasks with the same shares (or override tickets) of the same objects."""

    __slots__ = ("refs", "head", "user", "project", "dept", "job", "value")

    def __init__(self, user: float, project: float, dept: float, job: float) -> None:
        self.refs: list[TaskRef] = []
        self.head = 0
        self.user, self.project, self.dept, self.job = user, project, dept, job
        self.value = 0.0


def _categories(pending: Iterable[TaskRef], amount: Callable[[Entity], int],
                job_amount: Callable[[PolicyJob], int], dependent: bool) -> list[_Category]:
    """8.1.9's build_functional_categories: objects whose amount is 0 are left out of
    the key; tasks with nothing at all are skipped."""
    found: dict[tuple[int, object, object, object], _Category] = {}
    for ref in pending:
        user = amount(ref.user) if ref.user is not None else 0
        project = amount(ref.project) if ref.project is not None else 0
        dept = amount(ref.dept) if ref.dept is not None else 0
        job = job_amount(ref.job)
        if not (user or project or dept or job):
            continue
        key = (job, ref.user_name if user else None, ref.dept_name if dept else None,
               ref.project_name if project else None)
        category = found.get(key)
        if category is None:
            category = found[key] = _Category(user, project, dept, job)
        category.refs.append(ref)
    categories = list(found.values())
    for category in categories:
        if dependent:
            category.refs.sort(key=lambda r: (-r.tickets, int(r.job.submit_time),
                                              r.job.job_id, r.task_id))
        else:
            category.refs.sort(key=TaskRef.order_key)
    return categories


def pending_functional(pending: Sequence[TaskRef], conf: PolicyConf, counts: Counts,
                       running_sums: Sums, dependent: bool) -> None:
    """Functional tickets of the pending tasks (see the module's docstring)."""
    pool = float(conf.weight_tickets_functional)
    shared = conf.share_functional_shares
    categories = _categories(pending, lambda e: e.fshare, lambda j: j.job_share, dependent)
    rounds = min(conf.max_functional_jobs_to_schedule,
                 sum(len(c.refs) for c in categories))
    if rounds <= 0:
        return
    weights = category_weights(conf, None)
    sums = Sums(running_sums.user, running_sums.project, running_sums.dept,
                running_sums.job)
    chosen: list[TaskRef] = []
    live = list(categories)
    for _ in range(rounds):
        best: _Category | None = None
        best_key: tuple[float, int, int, int] | None = None
        for category in live:
            ref = category.refs[category.head]
            category.value = _trial_ftickets(ref, category, counts, sums, pool, weights,
                                             shared)
            key = (-(category.value + (ref.tickets if dependent else 0.0)),
                   int(ref.job.submit_time), ref.job.job_id, ref.task_id)
            if best_key is None or key < best_key:
                best, best_key = category, key
        if best is None:
            break
        ref = best.refs[best.head]
        best.head += 1
        if best.head == len(best.refs):
            live.remove(best)
        counts.add(ref)
        ref.fticket = _taken_ftickets(ref, counts, sums, pool, weights, shared)
        chosen.append(ref)
    for ref in chosen:
        counts.add(ref, -1)
        if dependent:
            ref.tickets += ref.fticket
    for category in live:
        # the rest of a category gets its first task's value of the last round; 8.1.9
        # adds it to the hierarchy's tickets for all of them but that first one
        for i in range(category.head, len(category.refs)):
            ref = category.refs[i]
            ref.fticket = category.value
            if dependent and i > category.head:
                ref.tickets += category.value


def _trial_ftickets(ref: TaskRef, category: _Category, counts: Counts, sums: Sums,
                    pool: float, weights: tuple[float, float, float, float],
                    shared: bool) -> float:
    """The value of ``ref`` were it the next to run (8.1.9's quick estimate: good enough
    to choose the next task)."""
    n_user, n_project, n_dept = counts.of(ref)
    trial = Sums(sums.user + PENDING_SUM_EPSILON, sums.project + PENDING_SUM_EPSILON,
                 sums.dept + PENDING_SUM_EPSILON,
                 sums.job + PENDING_SUM_EPSILON + category.job)
    user, project, dept = category.user, category.project, category.dept
    if shared:
        user /= n_user + 1
        project /= n_project + 1
        dept /= n_dept + 1
    else:
        trial.user += user if ref.user is not None else 0.0
        trial.project += project if ref.project is not None else 0.0
        trial.dept += dept if ref.dept is not None else 0.0
    return _ftickets(ref, (user, project, dept), trial, pool, weights)


def _taken_ftickets(ref: TaskRef, counts: Counts, sums: Sums, pool: float,
                    weights: tuple[float, float, float, float], shared: bool) -> float:
    """The value of ``ref`` once it counts as running; its shares join ``sums`` (shared:
    an object's shares join once, with its first job)."""
    n_user, n_project, n_dept = counts.of(ref)
    user, project, dept = _shares_of(ref, counts, shared)
    if ref.user is not None and (not shared or n_user <= 1):
        sums.user += user
    if ref.project is not None and (not shared or n_project <= 1):
        sums.project += project
    if ref.dept is not None and (not shared or n_dept <= 1):
        sums.dept += dept
    sums.job += ref.job.job_share
    return _ftickets(ref, (user, project, dept), sums, pool, weights)


# --------------------------------------------------------------------------- override

def running_override(running: Sequence[TaskRef], counts: Counts, shared: bool) -> float:
    """Override tickets of the running tasks; returns their sum."""
    total = 0.0
    for ref in running:
        tickets = 0.0
        if shared:
            n_user, n_project, n_dept = counts.of(ref)
            if ref.user is not None and ref.user.oticket and n_user:
                tickets += ref.user.oticket / n_user
            if ref.project is not None and ref.project.oticket and n_project:
                tickets += ref.project.oticket / n_project
            if ref.dept is not None and ref.dept.oticket and n_dept:
                tickets += ref.dept.oticket / n_dept
        else:
            tickets += _whole_otickets(ref)
        ref.oticket = tickets + ref.job.override_tickets
        total += ref.oticket
    return total


def _whole_otickets(ref: TaskRef) -> float:
    return float((ref.user.oticket if ref.user is not None else 0)
                 + (ref.project.oticket if ref.project is not None else 0)
                 + (ref.dept.oticket if ref.dept is not None else 0))


def pending_override(pending: Sequence[TaskRef], counts: Counts, shared: bool,
                     dependent: bool) -> None:
    """Override tickets of the pending tasks (see the module's docstring)."""
    if not shared:
        for ref in pending:
            ref.oticket = _whole_otickets(ref) + ref.job.override_tickets
            if dependent:
                ref.tickets += ref.oticket
        return
    categories = _categories(pending, lambda e: e.oticket, lambda j: j.override_tickets,
                             dependent)

    def value(ref: TaskRef) -> float:
        n_user, n_project, n_dept = counts.of(ref)
        tickets = 0.0
        if ref.user is not None and ref.user.oticket > 0:
            tickets += ref.user.oticket / (n_user + 1)
        if ref.project is not None and ref.project.oticket > 0:
            tickets += ref.project.oticket / (n_project + 1)
        if ref.dept is not None and ref.dept.oticket > 0:
            tickets += ref.dept.oticket / (n_dept + 1)
        return tickets + ref.job.override_tickets

    heap: list[tuple[float, int, int, int]] = []
    for index, category in enumerate(categories):
        ref = category.refs[0]
        heap.append((-value(ref), ref.job.job_id, ref.task_id, index))
    heapq.heapify(heap)
    chosen: list[TaskRef] = []
    while heap:
        negative, job_id, task_id, index = heap[0]
        category = categories[index]
        ref = category.refs[category.head]
        now = -value(ref)
        if now != negative:
            # its objects gained running tasks since: a smaller value, back in line
            heapq.heapreplace(heap, (now, job_id, task_id, index))
            continue
        ref.oticket = -negative
        ref.tickets += ref.oticket
        counts.add(ref)
        chosen.append(ref)
        category.head += 1
        if category.head < len(category.refs):
            nxt = category.refs[category.head]
            heapq.heapreplace(heap, (-value(nxt), nxt.job.job_id, nxt.task_id, index))
        else:
            heapq.heappop(heap)
    for ref in chosen:
        counts.add(ref, -1)
