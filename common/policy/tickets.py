"""The functional and override ticket policies (sched_conf(5), user(5), project(5),
access_list(5) departments) over task references, as 8.1.9's libs/sched/sgeee.c
distributes them. Pure.

Who holds what. A running task is a ``TaskRef``; the pending tasks considered for tickets
are numbered lists (``PendingTasks``), grouped by ``Holder`` (owner, project, department,
``-js``, ``-ot``: what the policies look at, so that work is done per holder, not per
task). Both point at the user object, project and department only when that object
exists (8.1.9 looks each up by name and leaves the reference empty otherwise): a user
without a user object gets no user shares, no user override tickets and no share tree
node. ``counts`` hold, per user/project/department, how many *running* (active) tasks it
has: 8.1.9's ``job_cnt``.

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

The rounds need not look at every category every time: a category's value only falls as
counts and sums rise, so a heap that knows which values are out of date (a popped
category whose value is current is the round's best) gives 8.1.9's choice with far less
work; for override, categories that share no object with override tickets do not change
each other's values and are done group by group (a group of one in turn, without any
search). ``tests/unit/test_policy_tickets.py`` compares the functional heap with a
transcription of 8.1.9's round-by-round loop.
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import Callable, Sequence

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

    def add(self, ref: "TaskRef | Holder", delta: int = 1) -> None:
        if ref.user is not None:
            self.users[ref.user_name] = self.users.get(ref.user_name, 0) + delta
        if ref.project is not None:
            self.projects[ref.project_name] = self.projects.get(ref.project_name, 0) + delta
        if ref.dept is not None:
            self.depts[ref.dept_name] = self.depts.get(ref.dept_name, 0) + delta

    def of(self, ref: "TaskRef | Holder") -> tuple[int, int, int]:
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


def _shares_of(ref: "TaskRef | Holder", counts: Counts,
               shared: bool) -> tuple[float, float, float]:
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


class Holder:
    """The pending tasks of one owner, project, department, ``-js`` and ``-ot``: all
    the policies treat them alike but for their order, so what depends on the objects
    is worked out once per holder, not per task."""

    __slots__ = ("user", "project", "dept", "user_name", "project_name", "dept_name",
                 "job_share", "override", "node", "refs")

    def __init__(self, job: PolicyJob, entities: Entities) -> None:
        self.user_name, self.project_name, self.dept_name = (job.owner, job.project,
                                                             job.department)
        self.user = entities.users.get(job.owner)
        self.project = entities.projects.get(job.project) if job.project else None
        self.dept = entities.departments.get(job.department)
        self.job_share, self.override = job.job_share, job.override_tickets
        self.node: object | None = None
        self.refs: list[int] = []


class PendingTasks:
    """The pending tasks that take part, as parallel lists indexed by task number
    ``i``; the numbers follow (job id, task id), so ordering by number is ordering by
    job and task id. ``tickets`` are those of the policies done so far (what a
    dependent policy sorts by)."""

    def __init__(self) -> None:
        self.jobs: list[PolicyJob] = []
        self.tasks: list[int] = []
        self.holders: list[Holder] = []
        self.submit: list[int] = []
        self.by_holder: dict[tuple[str, str | None, str, int, int], Holder] = {}
        self.in_order = True   # submission times grow with the task numbers
        self.tickets: list[float] = []
        self.st: list[float] = []
        self.ft: list[float] = []
        self.ot: list[float] = []
        self.totals: list[float] = []   # st + ft + ot, once all policies are done
        self.job_shares: list[int] = []  # each task's job's -js

    def add(self, job: PolicyJob, task_ids: Sequence[int], entities: Entities) -> int:
        """Adds the job's tasks; returns the number of its first."""
        key = (job.owner, job.project, job.department, job.job_share, job.override_tickets)
        holder = self.by_holder.get(key)
        if holder is None:
            holder = self.by_holder[key] = Holder(job, entities)
        first = len(self.jobs)
        many = len(task_ids)
        if many == 1:
            holder.refs.append(first)
            self.jobs.append(job)
            self.tasks.append(task_ids[0])
            self.holders.append(holder)
            self.submit.append(int(job.submit_time))
            return first
        holder.refs.extend(range(first, first + many))
        self.jobs.extend([job] * many)
        self.tasks.extend(task_ids)
        self.holders.extend([holder] * many)
        self.submit.extend([int(job.submit_time)] * many)
        return first

    def seal(self) -> None:
        n = len(self.jobs)
        self.job_shares = [job.job_share for job in self.jobs]
        self.in_order = self.submit == sorted(self.submit)
        self.tickets = [0.0] * n
        self.st = [0.0] * n
        self.ft = [0.0] * n
        self.ot = [0.0] * n

    def total(self, i: int) -> float:
        return self.st[i] + self.ft[i] + self.ot[i]

    def in_submit_order(self, refs: list[int]) -> list[int]:
        """``refs`` (in number order) by submission, then job and task id."""
        if self.in_order:
            return refs
        return sorted(refs, key=self.submit.__getitem__)


def merged_refs(holders: Sequence[Holder]) -> list[int]:
    """The task numbers of these holders in order."""
    refs = list(holders[0].refs)
    if len(holders) > 1:
        for holder in holders[1:]:
            refs.extend(holder.refs)
        refs.sort()
    return refs


class _Category:
    """Pending tasks with the same shares (or override tickets) of the same objects."""

    __slots__ = ("refs", "head", "holder", "user", "project", "dept", "job", "value")

    def __init__(self, holder: Holder, user: float, project: float, dept: float,
                 job: float) -> None:
        self.refs: list[int] = []
        self.head = 0
        self.holder = holder
        self.user, self.project, self.dept, self.job = user, project, dept, job
        self.value = 0.0


def _categories(pending: PendingTasks, amount: Callable[[Entity], int],
                job_amount: Callable[[Holder], int], dependent: bool) -> list[_Category]:
    """8.1.9's build_functional_categories: objects whose amount is 0 are left out of
    the key; tasks with nothing at all are skipped. In a category the tasks come by the
    tickets of the policies above, then submission time, job and task id (``dependent``),
    else in job and task id order (8.1.9: the order of its pending job list)."""
    found: dict[tuple[int, object, object, object], _Category] = {}
    members: dict[int, list[Holder]] = {}
    for holder in pending.by_holder.values():
        user = amount(holder.user) if holder.user is not None else 0
        project = amount(holder.project) if holder.project is not None else 0
        dept = amount(holder.dept) if holder.dept is not None else 0
        job = job_amount(holder)
        if not (user or project or dept or job):
            continue
        key = (job, holder.user_name if user else None, holder.dept_name if dept else None,
               holder.project_name if project else None)
        category = found.get(key)
        if category is None:
            category = found[key] = _Category(holder, user, project, dept, job)
            members[id(category)] = []
        members[id(category)].append(holder)
    categories = list(found.values())
    for category in categories:
        holders = members[id(category)]
        refs = merged_refs(holders)
        if dependent:
            refs = pending.in_submit_order(refs)
            # stable: equal tickets keep the task order
            refs.sort(key=pending.tickets.__getitem__, reverse=True)
        category.refs = refs
    return categories


def pending_functional(pending: PendingTasks, conf: PolicyConf, counts: Counts,
                       running_sums: Sums, dependent: bool) -> None:
    """Functional tickets of the pending tasks (see the module's docstring).

    8.1.9 values the first task of every category in every round. Here a heap keeps
    each category's value from when it was last computed: values only fall as the
    rounds go on (counts and sums only grow), so a category whose value is current when
    it comes to the top is the round's best, as 8.1.9 would have found. The last round
    values every category, as 8.1.9's does: those values go to the tasks left."""
    pool = float(conf.weight_tickets_functional)
    shared = conf.share_functional_shares
    categories = _categories(pending, lambda e: e.fshare, lambda h: h.job_share,
                             dependent)
    rounds = min(conf.max_functional_jobs_to_schedule,
                 sum(len(c.refs) for c in categories))
    if rounds <= 0:
        return
    weights = category_weights(conf, None)
    sums = Sums(running_sums.user, running_sums.project, running_sums.dept,
                running_sums.job)
    tickets, submit, ft = pending.tickets, pending.submit, pending.ft
    trial = _Trial(counts, sums, pool, weights, shared)
    # a category's value changes with the sums (all of them: ``version``) or with the
    # counts of its objects (those categories: their ``stamp``)
    stamp = [0] * len(categories)
    sharing: dict[tuple[str, object], list[int]] = {}
    for n, category in enumerate(categories):
        holder = category.holder
        for kind, amount, name in (("u", category.user, holder.user_name),
                                   ("p", category.project, holder.project_name),
                                   ("d", category.dept, holder.dept_name)):
            if amount:
                sharing.setdefault((kind, name), []).append(n)

    def key(n: int) -> tuple[float, int, int, int, int, int]:
        category = categories[n]
        i = category.refs[category.head]
        category.value = value = trial.value(category)
        return (-(value + tickets[i]) if dependent else -value, submit[i], i, n, version,
                stamp[n])

    version = 0
    heap = [key(n) for n in range(len(categories))]
    heapq.heapify(heap)
    chosen: list[int] = []
    for round_ in range(rounds):
        if round_ == rounds - 1:
            # the last round values everyone (their values go to the tasks left)
            heap = [key(entry[3]) for entry in heap]
            heapq.heapify(heap)
        while heap[0][4] != version or heap[0][5] != stamp[heap[0][3]]:
            heapq.heapreplace(heap, key(heap[0][3]))
        n = heap[0][3]
        best = categories[n]
        i = best.refs[best.head]
        best.head += 1
        holder = pending.holders[i]
        counts.add(holder)
        before = (sums.user, sums.project, sums.dept, sums.job)
        ft[i] = _taken_ftickets(holder, counts, sums, pool, weights, shared)
        chosen.append(i)
        if before != (sums.user, sums.project, sums.dept, sums.job):
            version += 1
        for entity in (("u", holder.user_name), ("p", holder.project_name),
                       ("d", holder.dept_name)):
            for other in sharing.get(entity, ()):
                stamp[other] += 1
        if best.head == len(best.refs):
            heapq.heappop(heap)
        elif round_ < rounds - 1:
            heapq.heapreplace(heap, key(n))
        # (after the last round a category keeps the value it had in it: 8.1.9 hands
        # the winner's estimate on to the next task of its category)
    for i in chosen:
        counts.add(pending.holders[i], -1)
        if dependent:
            tickets[i] += ft[i]
    for entry in heap:
        # the rest of a category gets its first task's value of the last round; 8.1.9
        # adds it to the hierarchy's tickets for all of them but that first one
        category = categories[entry[3]]
        value = category.value
        refs = category.refs
        for i in refs[category.head:]:
            ft[i] = value
        if dependent:
            for i in refs[category.head + 1:]:
                tickets[i] += value


class _Trial:
    """8.1.9's quick estimate of a category's first task's functional tickets were it
    the next to run (calc_intern_pending_job_functional_tickets): good enough to choose
    the next task. The sums get 0.001 more; with shared shares an object's shares are
    divided by its count + 1 (and not added to the sums), else added to the sums."""

    __slots__ = ("counts", "sums", "pool", "weights", "shared")

    def __init__(self, counts: Counts, sums: Sums, pool: float,
                 weights: tuple[float, float, float, float], shared: bool) -> None:
        self.counts, self.sums, self.pool = counts, sums, pool
        self.weights, self.shared = weights, shared

    def value(self, category: _Category) -> float:
        holder, sums, pool, weights = category.holder, self.sums, self.pool, self.weights
        total = 0.0
        # the user, project and department parts are written out, not a loop over the
        # three: this runs for every pending task valued one by one
        if holder.user is not None:
            share, summed = category.user, sums.user + PENDING_SUM_EPSILON
            if self.shared:
                share /= self.counts.users.get(holder.user_name, 0) + 1
            else:
                summed += share
            total += weights[0] * share * pool / summed
        if holder.project is not None:
            share, summed = category.project, sums.project + PENDING_SUM_EPSILON
            if self.shared:
                share /= self.counts.projects.get(holder.project_name, 0) + 1
            else:
                summed += share
            total += weights[1] * share * pool / summed
        if holder.dept is not None:
            share, summed = category.dept, sums.dept + PENDING_SUM_EPSILON
            if self.shared:
                share /= self.counts.depts.get(holder.dept_name, 0) + 1
            else:
                summed += share
            total += weights[2] * share * pool / summed
        total += weights[3] * category.job * pool / (sums.job + PENDING_SUM_EPSILON
                                                     + category.job)
        return total


def _taken_ftickets(holder: Holder, counts: Counts, sums: Sums, pool: float,
                    weights: tuple[float, float, float, float], shared: bool) -> float:
    """The value of a task once it counts as running; its shares join ``sums``
    (shared: an object's shares join once, with its first job)."""
    n_user, n_project, n_dept = counts.of(holder)
    user, project, dept = _shares_of(holder, counts, shared)
    if holder.user is not None and (not shared or n_user <= 1):
        sums.user += user
    if holder.project is not None and (not shared or n_project <= 1):
        sums.project += project
    if holder.dept is not None and (not shared or n_dept <= 1):
        sums.dept += dept
    sums.job += holder.job_share
    total = 0.0
    if holder.user is not None and sums.user:
        total += weights[0] * user * pool / sums.user
    if holder.project is not None and sums.project:
        total += weights[1] * project * pool / sums.project
    if holder.dept is not None and sums.dept:
        total += weights[2] * dept * pool / sums.dept
    if sums.job:
        total += weights[3] * holder.job_share * pool / sums.job
    return total


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


def _whole_otickets(ref: "TaskRef | Holder") -> float:
    return float((ref.user.oticket if ref.user is not None else 0)
                 + (ref.project.oticket if ref.project is not None else 0)
                 + (ref.dept.oticket if ref.dept is not None else 0))


def pending_override(pending: PendingTasks, counts: Counts, shared: bool,
                     dependent: bool) -> None:
    """Override tickets of the pending tasks (see the module's docstring)."""
    ot, tickets = pending.ot, pending.tickets
    if not shared:
        for holder in pending.by_holder.values():
            value = _whole_otickets(holder) + holder.override
            for i in holder.refs:
                ot[i] = value
                if dependent:
                    tickets[i] += value
        return
    categories = _categories(pending, lambda e: e.oticket, lambda h: h.override,
                             dependent)
    for group in _independent_groups(categories):
        if len(group) == 1:
            _override_in_turn(pending, group[0], counts)
        else:
            _override_by_heap(pending, group, counts)


def _ovalue(holder: Holder, counts: Counts) -> float:
    """A pending task's shared override tickets were it the next to run
    (calc_pjob_override_tickets_shared)."""
    tickets = 0.0
    if holder.user is not None and holder.user.oticket > 0:
        tickets += holder.user.oticket / (counts.users.get(holder.user_name, 0) + 1)
    if holder.project is not None and holder.project.oticket > 0:
        tickets += holder.project.oticket / (
            counts.projects.get(holder.project_name, 0) + 1)
    if holder.dept is not None and holder.dept.oticket > 0:
        tickets += holder.dept.oticket / (counts.depts.get(holder.dept_name, 0) + 1)
    return tickets + holder.override


def _independent_groups(categories: list[_Category]) -> list[list[_Category]]:
    """Categories that share no object with override tickets do not change each
    other's values: each group can be done alone, and a group of one in turn, without
    8.1.9's search for the best category (the values a task gets are the same)."""
    parent = list(range(len(categories)))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    owner: dict[tuple[str, str], int] = {}
    for index, category in enumerate(categories):
        holder = category.holder
        for kind, amount, name in (("u", category.user, holder.user_name),
                                   ("p", category.project, holder.project_name),
                                   ("d", category.dept, holder.dept_name)):
            if amount and name is not None:
                other = owner.setdefault((kind, name), index)
                parent[find(index)] = find(other)
    groups: dict[int, list[_Category]] = {}
    for index, category in enumerate(categories):
        groups.setdefault(find(index), []).append(category)
    return list(groups.values())


def _override_in_turn(pending: PendingTasks, category: _Category, counts: Counts) -> None:
    ot, tickets, holders = pending.ot, pending.tickets, pending.holders
    for i in category.refs:
        holder = holders[i]
        ot[i] = value = _ovalue(holder, counts)
        tickets[i] += value
        counts.add(holder)
    for i in category.refs:
        counts.add(holders[i], -1)


def _override_by_heap(pending: PendingTasks, group: list[_Category],
                      counts: Counts) -> None:
    """8.1.9's rounds (the most override tickets first, then the lowest job and task
    id) with a lazy heap: a category's value only falls as counts rise, so a popped
    category whose value did not change is the best one."""
    ot, tickets, holders = pending.ot, pending.tickets, pending.holders
    heap = [(-_ovalue(holders[c.refs[0]], counts), c.refs[0], n)
            for n, c in enumerate(group)]
    heapq.heapify(heap)
    chosen: list[int] = []
    while heap:
        negative, i, n = heap[0]
        holder = holders[i]
        now = -_ovalue(holder, counts)
        if now != negative:
            heapq.heapreplace(heap, (now, i, n))
            continue
        ot[i] = -negative
        tickets[i] += ot[i]
        counts.add(holder)
        chosen.append(i)
        category = group[n]
        category.head += 1
        if category.head < len(category.refs):
            nxt = category.refs[category.head]
            heapq.heapreplace(heap, (-_ovalue(holders[nxt], counts), nxt, n))
        else:
            heapq.heappop(heap)
    for i in chosen:
        counts.add(holders[i], -1)

