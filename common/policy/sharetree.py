"""The share tree policy (share_tree(5), sched_conf(5) ``weight_tickets_share``,
``compensation_factor``) as 8.1.9's libs/sched/sgeee.c and sge_support.c compute it, and
the figures ``sge_share_mon`` shows. Pure.

Where a task belongs (search_userprj_node). A task without a project goes to the first
node named after its owner outside any project's subtree; when there is none, to a
``default`` node outside project subtrees, where it gets a node of its own (a copy of
``default`` with its shares, named after the user: every user not named gets the
default's shares, not a part of them). A task with a project goes to that project's node:
to the node itself when it has no children, else to its owner's node below it (or a copy
of the ``default`` node below it); a task whose project is not in the tree, or whose user
is not below a project node that has children, gets no share tree tickets. Only users and
projects with an object take part (8.1.9 looks the objects up first).

Usage (``UsageTable``: already decayed and combined by ``usage_weight_list``): a user
leaf has its owner's usage, a user leaf below a project node the user's usage in that
project, a project node the project's usage (not its children's); any other inner node
the sum of its children's. Below a project node, the project usage that its named users
do not account for (when more than 1) is added to the nodes on the way to its
``default`` node.

Targets (sge_calc_node_targets), among the *active* children of each node (those with
running or pending tasks below them): the long term target ``ltt`` = shares / sum of the
active siblings' shares (``oltt`` its product down the tree); ``shr`` = shares² /
max(usage, 1·oltt); the short term target ``stt`` = shr / sum of the siblings' shr
(``ostt`` its product). ``compensation_factor`` (when not 0) limits how far a node behind
its target is pushed: where ``ostt`` > cf·``oltt``, ``shr`` is divided by ostt/(cf·oltt)
and the siblings' ``stt`` are computed again.

Running tasks get ``ostt · weight_tickets_share`` of their node divided among the node's
tasks (by their ``-js`` when any has one; then truncated to whole tickets). 8.1.9
computes running tasks' tickets twice per pass: once with the pending tasks counted as
active (the figure that goes into the normalisation's maximum) and once without (the
figure the running tasks keep, and the targets ``sge_share_mon`` shows).

Pending tasks (sge_sort_pending_job_nodes) join their nodes as temporary leaves, sorted
by the tickets of the policies above in the hierarchy (+ 0.01·``-js``; without dependence
by ``-js``). Level by level upwards (skipping the root and any single active child of
it), a node's list of pending tasks is sorted (descending, then job and task id) and
the k-th gets ``stt / (running tasks of the node + k)``; the value
from the level just below the root is the task's share: its pending tickets are that
times ``weight_tickets_share``. The next level up sorts by those tickets. (8.1.9's code
would also count the node's decayed number of finished jobs there; its captures show it
does not take effect: 8133, 4066, 2711 for a user who had finished a job.)

``sge_share_mon`` (``node_shares``) shows the configured nodes with the targets of the
running tasks' computation (pending ones do not count: a node with pending jobs only has
job_count 0), and below each ``default`` node one node per user object that maps to it
(per project for a default below a project node), with the default's shares; usage and
actual share are computed over that tree; the root's short term target is 0 (8.1.9 never
sets it).
"""
from __future__ import annotations

from typing import Iterable, Sequence

from common.policy.model import (PROJECT_NODE, USER_NODE, NodeShare, ShareNode,
                                 UsageTable)
from common.policy.tickets import Holder, PendingTasks, TaskRef, merged_refs

DEFAULT = "default"
MIN_USAGE = 1.0   # 8.1.9's SGE_MIN_USAGE: a node's usage counts as at least oltt·1


class TreeNode:
    """A share tree node with the figures of one pass."""

    __slots__ = ("name", "type", "shares", "children", "temp", "display", "project",
                 "usage", "job_ref_count", "active_job_ref_count", "sum_priority",
                 "ltt", "oltt", "stt", "ostt", "shr", "m_share", "pending")

    def __init__(self, name: str, type_: int, shares: int, temp: bool = False,
                 display: bool = False) -> None:
        self.name, self.type, self.shares, self.temp = name, type_, shares, temp
        self.display = display   # a node sge_share_mon shows below a default node
        self.children: list[TreeNode] = []
        self.project = type_ == PROJECT_NODE
        self.usage = 0.0
        self.job_ref_count = self.active_job_ref_count = 0
        self.sum_priority = 0
        self.ltt = self.oltt = self.stt = self.ostt = self.shr = self.m_share = 0.0
        self.pending: list[int] = []

    def reset(self) -> None:
        self.job_ref_count = self.active_job_ref_count = self.sum_priority = 0
        self.ltt = self.oltt = self.stt = self.ostt = self.shr = self.m_share = 0.0
        self.pending = []
        for child in self.children:
            child.reset()


def build_tree(nodes: Sequence[ShareNode]) -> TreeNode | None:
    """The tree of share_tree(5)'s node records; None without nodes. The root is the
    node no other node names as a child (the first such)."""
    if not nodes:
        return None
    by_id = {node.id: node for node in nodes}
    children_ids = {child for node in nodes for child in node.childnodes}
    root = next((node for node in nodes if node.id not in children_ids), nodes[0])

    def make(record: ShareNode, seen: frozenset[int]) -> TreeNode:
        node = TreeNode(record.name, record.type, record.shares)
        for child_id in record.childnodes:
            child = by_id.get(child_id)
            if child is not None and child_id not in seen:
                node.children.append(make(child, seen | {child_id}))
        return node

    return make(root, frozenset({root.id}))


class ShareTree:
    """One pass's share tree: where tasks go, usage, targets, tickets."""

    def __init__(self, root: TreeNode, usage: UsageTable) -> None:
        self.root = root
        self.usage = usage
        self._where: dict[tuple[str | None, str | None], TreeNode | None] = {}

    # ------------------------------------------------------------------ locating
    def node_for(self, ref: TaskRef | Holder) -> TreeNode | None:
        user = ref.user_name if ref.user is not None else None
        project = ref.project_name if ref.project is not None else None
        if user is None and project is None:
            return None
        key = (user, project)
        if key not in self._where:
            self._where[key] = self._locate(user, project)
        return self._where[key]

    def _locate(self, user: str | None, project: str | None) -> TreeNode | None:
        found, parent = _search(self.root, user, project, self.root)
        if found is not None and parent is not None and user is not None \
                and found.name == DEFAULT:
            copy = TreeNode(user, found.type, found.shares, temp=True)
            parent.children.append(copy)
            return copy
        return found

    # ------------------------------------------------------------------ usage
    def compute_usage(self) -> None:
        _node_usage(self.root, None, self.usage, with_temp=True)

    # ------------------------------------------------------------------ targets
    def count_refs(self, running: Iterable[TaskRef],
                   pending: Iterable[Holder] = ()) -> None:
        """Tasks per node (pending ones count as not active) and up the tree."""
        self.root.reset()
        for ref in running:
            node = ref.node
            if isinstance(node, TreeNode):
                node.job_ref_count += 1
                node.active_job_ref_count += 1
                node.sum_priority += ref.job.job_share
        for holder in pending:
            node = holder.node
            if isinstance(node, TreeNode):
                node.job_ref_count += len(holder.refs)
        _sum_counts(self.root)

    def compute_targets(self, compensation_factor: float) -> None:
        root = self.root
        root.stt = root.ltt = root.ostt = root.oltt = 1.0
        root.m_share = 1.0
        _targets(root, compensation_factor)
        _m_shares(root)

    # ------------------------------------------------------------------ tickets
    @staticmethod
    def running_tickets(running: Iterable[TaskRef], pool: float) -> None:
        for ref in running:
            node = ref.node
            if not isinstance(node, TreeNode):
                ref.sticket = 0.0
                continue
            tickets = node.ostt * pool
            if node.sum_priority:
                # 8.1.9 stores this one as a whole number (a u_long cast)
                ref.sticket = float(int(ref.job.job_share * tickets / node.sum_priority))
            else:
                ref.sticket = tickets / node.job_ref_count
        return None

    def pending_tickets(self, pending: PendingTasks, pool: float, dependent: bool) -> None:
        holders_at: dict[int, list[Holder]] = {}
        nodes: dict[int, TreeNode] = {}
        for holder in pending.by_holder.values():
            node = holder.node
            if isinstance(node, TreeNode):
                holders_at.setdefault(id(node), []).append(holder)
                nodes[id(node)] = node
        if not nodes:
            return
        for key, node in nodes.items():
            at = holders_at[key]
            node.pending = merged_refs(at)
        jobs, tickets = pending.jobs, pending.tickets
        base = tickets if dependent else [0.0] * len(jobs)
        ordered, shr = _sort_pending(self.root, self.root, pool, pending, dependent, base)
        st = pending.st
        for i, value in zip(ordered, shr):
            st[i] = value * pool
        if dependent:
            for i in ordered:
                tickets[i] += st[i]

    # ------------------------------------------------------------------ sge_share_mon
    def node_shares(self, users: Iterable[str] = (),
                    projects: Iterable[str] = ()) -> tuple[NodeShare, ...]:
        """The configured nodes (no temporary ones) with this pass's job counts and
        targets, and the users behind each default node (``users``: the user objects;
        ``projects``: the projects); usage and actual share as sge_share_mon computes
        them (sge_add_default_user_nodes; the projects' access lists are not checked)."""
        # the pass's own copies of default nodes are not shown (nor found by name)
        temporary = _detach_temp(self.root)
        added = self._add_display_nodes(list(users), list(projects))
        try:
            total = _node_usage(self.root, None, self.usage, with_temp=False)
            out: list[NodeShare] = []
            _collect(self.root, None, None, 1.0, float(self.root.shares), total, out)
        finally:
            for parent, node in added:
                parent.children.remove(node)
            for parent, node in temporary:
                parent.children.append(node)
        return tuple(out)

    def _add_display_nodes(self, users: list[str], projects: list[str]
                           ) -> list[tuple[TreeNode, TreeNode]]:
        added: list[tuple[TreeNode, TreeNode]] = []
        for project in [*projects, None]:
            default, _ = _search(self.root, DEFAULT, project, self.root)
            if default is None or default.name != DEFAULT:
                continue
            for user in users:
                found, _ = _search(self.root, user, project, self.root)
                if found is default:
                    node = TreeNode(user, USER_NODE, default.shares, temp=True,
                                    display=True)
                    default.children.append(node)
                    added.append((default, node))
        return added


def _detach_temp(node: TreeNode) -> list[tuple[TreeNode, TreeNode]]:
    detached: list[tuple[TreeNode, TreeNode]] = []
    for child in list(node.children):
        if child.temp:
            node.children.remove(child)
            detached.append((node, child))
        else:
            detached.extend(_detach_temp(child))
    return detached


def _search(node: TreeNode, user: str | None, project: str | None,
            root: TreeNode) -> tuple[TreeNode | None, TreeNode | None]:
    """(found node, its parent) as search_userprj_node_work: project nodes other than
    the one sought are skipped; the ``default`` user is the fallback at the top."""
    if node.project and node is not root and (project is None or node.name != project):
        return None, None
    if project is not None:
        if node.name == project:
            if not node.children:
                return node, None
            return _search(node, user, None, node)
        for child in node.children:
            found, parent = _search(child, user, project, root)
            if found is not None:
                return found, (node if parent is None and found is child else parent)
        return None, None
    if user is None:
        return None, None
    if node.name == user:
        return node, None
    for child in node.children:
        found, parent = _search(child, user, None, root)
        if found is not None:
            return found, (node if parent is None and found is child else parent)
    if node is root and user != DEFAULT:
        return _search(node, DEFAULT, None, root)
    return None, None


def _node_usage(node: TreeNode, project: str | None, usage: UsageTable,
                with_temp: bool) -> float:
    """Sets and returns the node's combined usage (sge_calc_node_usage)."""
    children = [c for c in node.children if with_temp or not c.temp or c.display]
    value = 0.0
    project_node = False
    if not children:
        if project is not None:
            value = usage.user_projects.get((node.name, project), 0.0)
        elif node.type == USER_NODE:
            value = usage.users.get(node.name, 0.0)
        else:
            value = usage.projects.get(node.name, 0.0)
    elif project is None and node.project:
        project_node = True
        project = node.name
        value = usage.projects.get(node.name, 0.0)
    if children:
        child_usage = 0.0
        for child in children:
            child_usage += _node_usage(child, project, usage, with_temp)
        if not project_node:
            value += child_usage
        else:
            # the project usage its named users do not account for belongs to the users
            # behind its "default" node: added on the way down to it
            path = _path_to(node, DEFAULT, with_temp)
            unaccounted = value - child_usage
            if path and unaccounted > 1.0:
                for step in path[1:]:
                    step.usage += unaccounted
    node.usage = value
    return value


def _path_to(node: TreeNode, name: str, with_temp: bool) -> list[TreeNode]:
    if node.name == name:
        return [node]
    for child in node.children:
        if child.temp and not with_temp:
            continue
        path = _path_to(child, name, with_temp)
        if path:
            return [node] + path
    return []


def _sum_counts(node: TreeNode) -> None:
    if node.children:
        total = active = 0
        for child in node.children:
            _sum_counts(child)
            total += child.job_ref_count
            active += child.active_job_ref_count
        node.job_ref_count, node.active_job_ref_count = total, active


def _targets(node: TreeNode, cf: float) -> None:
    active = [c for c in node.children if c.job_ref_count > 0]
    if not active:
        return
    sum_shares = sum(c.shares for c in active)
    total_shr = 0.0
    for child in active:
        child.ltt = child.shares / sum_shares if sum_shares > 0 else 0.0
        child.oltt = node.oltt * child.ltt
        child.shr = (child.shares * child.shares / max(child.usage, MIN_USAGE * child.oltt)
                     if child.oltt > 0 else 0.0)
        total_shr += child.shr
    for child in active:
        child.stt = child.shr / total_shr if total_shr > 0 else 0.0
        child.ostt = node.ostt * child.stt
    if cf != 0:
        compensated = False
        total_shr = 0.0
        for child in active:
            if child.ostt > cf * child.oltt:
                child.shr = (child.shares * child.shares
                             / (max(child.usage, MIN_USAGE * child.oltt)
                                * (child.ostt / (cf * child.oltt))))
                compensated = True
            total_shr += child.shr
        if compensated:
            for child in active:
                child.stt = child.shr / total_shr
                child.ostt = node.ostt * child.stt
    for child in active:
        _targets(child, cf)


def _m_shares(node: TreeNode) -> None:
    """The long term target sge_share_mon shows (calculate_m_shares): the shares
    divided at each level among the active siblings."""
    total = sum(c.shares for c in node.children if c.job_ref_count > 0)
    for child in node.children:
        if child.job_ref_count > 0 and total:
            child.m_share = node.m_share * child.shares / total
        else:
            child.m_share = 0.0
        _m_shares(child)


def _has_pending(node: TreeNode) -> bool:
    return node.job_ref_count - node.active_job_ref_count > 0


def _sort_pending(root: TreeNode, node: TreeNode, pool: float, pending: PendingTasks,
                  dependent: bool, base: list[float]) -> tuple[list[int], list[float]]:
    """sge_sort_pending_job_nodes over task numbers (whose order is job and task id,
    8.1.9's tie order): the node's pending tasks in its order, each with its share at
    this level."""
    if node is root and not node.pending:
        lone = [c for c in node.children if _has_pending(c)]
        if len(lone) == 1:
            return _sort_pending(lone[0], lone[0], pool, pending, dependent, base)
    jobs: list[int] = list(node.pending)
    shares = pending.job_shares
    if dependent:
        tickets = pending.tickets
        keys = [tickets[i] + 0.01 * shares[i] for i in jobs]
    else:
        keys = [float(shares[i]) for i in jobs]
    got: list[float] = []
    merged = False
    for child in node.children:
        if _has_pending(child):
            child_jobs, child_shares = _sort_pending(root, child, pool, pending, dependent,
                                                     base)
            jobs.extend(child_jobs)
            got.extend(child_shares)
            # the child's tasks come up sorted by the tickets they got there
            keys.extend([base[i] + value * pool for i, value in zip(child_jobs, child_shares)])
            merged = True
    if node is root and not node.pending:
        return jobs, got
    if len(jobs) > 1 and (merged or min(keys) != max(keys)):
        places: Sequence[int] = range(len(jobs))
        if merged:
            places = sorted(places, key=jobs.__getitem__)
        places = sorted(places, key=keys.__getitem__, reverse=True)   # stable
        jobs = [jobs[k] for k in places]
    start = node.active_job_ref_count
    stt = node.stt
    return jobs, [stt / (start + k) for k in range(1, len(jobs) + 1)]


def _collect(node: TreeNode, parent_path: str | None, project: str | None,
             parent_total: float, sibling_shares: float, total_usage: float,
             out: list[NodeShare]) -> None:
    """sge_share_mon's rows: ``level`` = shares / all siblings' shares (active or not),
    ``total`` its product down from the root (whose level is its shares / its shares)."""
    path = "/" if parent_path is None else parent_path.rstrip("/") + "/" + node.name
    level = node.shares / sibling_shares if sibling_shares > 0 else 0.0
    total = parent_total * level
    if node.project and project is None:
        project = node.name
    configured = [c for c in node.children if not c.temp or c.display]
    user = node.name if node.type == USER_NODE and not configured else ""
    out.append(NodeShare(
        path=path, user=user, project=project or "", shares=node.shares,
        job_count=0 if node.display else node.job_ref_count, level=level, total=total,
        long_target_share=0.0 if node.display else node.m_share,
        short_target_share=0.0 if node.display or parent_path is None else node.ostt,
        actual_share=node.usage / total_usage if total_usage else 0.0,
        usage=node.usage))
    child_shares = float(sum(c.shares for c in configured))
    for child in configured:
        _collect(child, path, project, total, child_shares, total_usage, out)
