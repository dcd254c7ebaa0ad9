"""The share tree (share_tree(5)): its file, its checks, its node paths, its nodes.

Owns, pure and without a clock:

- the file ``qconf -sstree`` prints and ``-Astree``/``-Mstree``/the editor read: node by
  node ``id=``, ``name=``, ``type=``, ``shares=``, ``childnodes=`` (ids, comma separated,
  or ``NONE``), the root first and every subtree written before its next sibling, ids
  renumbered in that order (``render_sharetree``, ``parse_sharetree``);
- the form the qmaster stores (conf kind ``sharetree``, one object ``SHARETREE``): the
  same lines as ``[name, value]`` pairs (``tree_pairs``, ``tree_of``), and the policy's
  view of it (``share_nodes``);
- the qmaster's checks in 8.1.9's order and words (``sharetree_problem``): names unique
  among siblings, a project at most once and never below another project, users only as
  leaves, once per project subtree and once outside of projects, leaves that are users,
  projects or ``default``; a project leaf gets type 1 as 8.1.9 sets it;
- node paths as ``qconf -astnode/-mstnode/-dstnode/-sstnode`` take them (``find_path``):
  ``/A/B`` names a child of a child of the root, ``.`` searches below at any depth, a
  path that starts with neither searches the whole tree, ``*`` matches any name.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from common.conffile import ConfError
from common.policy.node_types import PROJECT_NODE, USER_NODE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from common.policy.model import ShareNode

KIND = "sharetree"
SHARETREE = "sharetree"  # the one stored object's name
FIELDS = ("id", "name", "type", "shares", "childnodes")
NONE = "NONE"
DEFAULT_LEAF = "default"
U_LONG32_MAX = 0xFFFFFFFF
# deeper trees are refused: every walk here is recursive, and no site's tree comes close
MAX_DEPTH = 200
_NUMBER = re.compile(r"[+-]?[0-9]+")


@dataclass
class TreeNode:
    """One node while a tree is read, edited or checked (children in file order)."""

    name: str
    type: int = USER_NODE
    shares: int = 0
    children: list["TreeNode"] = field(default_factory=list)

    def walk(self) -> Iterable["TreeNode"]:
        """This node and every node below it, each subtree before its next sibling."""
        yield self
        for child in self.children:
            yield from child.walk()


def template() -> TreeNode:
    """What ``qconf -astree`` opens the editor with when there is no tree."""
    return TreeNode("template")


# ---- the file ------------------------------------------------------------------------
def _ulong(name: str, text: str) -> int:
    value = text.strip()
    if not _NUMBER.fullmatch(value):
        raise ConfError(f'error parsing unsigned long value from string "{value}"')
    number = int(value)
    if not 0 <= number <= U_LONG32_MAX:
        raise ConfError(f'"{value}" is not an u_long32 value')
    return number


def _child_ids(text: str) -> list[int]:
    words = [w for w in re.split(r"[,\s]+", text.strip()) if w]
    if len(words) == 1 and words[0].upper() == NONE:
        return []
    return [_ulong("childnodes", w) for w in words]


def _records(lines: Iterable[tuple[str, str]]) -> list[dict[str, str]]:
    """The nodes of a file: each ``id=`` starts one."""
    records: list[dict[str, str]] = []
    for key, value in lines:
        if key not in FIELDS:
            raise ConfError(f'unknown attribute name "{key}"')
        if key == "id" or not records:
            records.append({})
        if key in records[-1]:
            raise ConfError(f'attribute "{key}" appears more than once')
        records[-1][key] = value
    return records


def _lines(text: str) -> list[tuple[str, str]]:
    pairs = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        if not sep:
            raise ConfError(f'unknown attribute name "{key.strip()}"')
        pairs.append((key.strip(), value.strip()))
    return pairs


def tree_of(pairs: Iterable[Sequence[str]]) -> TreeNode | None:
    """The tree of stored (or read) ``[name, value]`` pairs; None without a node.
    Raises ConfError for a file 8.1.9 refuses: an unknown attribute, a value that is no
    number, a child id without its node (``found reference to node 5 but no
    specification``), and, where 8.1.9 would loop, a node defined twice or below two
    parents."""
    records = _records((str(k), str(v)) for k, v in pairs)
    if not records:
        return None
    by_id: dict[int, dict[str, str]] = {}
    for record in records:
        missing = next((f for f in FIELDS if f not in record), None)
        if missing is not None:
            raise ConfError(f'required attribute "{missing}" is missing')
        node_id = _ulong("id", record["id"])
        if node_id in by_id:
            raise ConfError(f"node {node_id} is specified twice")
        by_id[node_id] = record
    root_id = _ulong("id", records[0]["id"])
    placed: set[int] = set()

    def build(node_id: int, depth: int = 0) -> TreeNode:
        if depth > MAX_DEPTH:
            raise ConfError(f"share tree deeper than {MAX_DEPTH} levels")
        if node_id in placed:
            raise ConfError(f"node {node_id} is a child of more than one node")
        placed.add(node_id)
        record = by_id[node_id]
        node = TreeNode(record["name"], _ulong("type", record["type"]),
                        _ulong("shares", record["shares"]))
        for child in _child_ids(record["childnodes"]):
            if child not in by_id:
                raise ConfError(f"found reference to node {child} but no specification")
            node.children.append(build(child, depth + 1))
        return node

    return build(root_id)


def parse_sharetree(text: str) -> TreeNode | None:
    """A share tree file (``qconf -Astree``, the editor): the tree, or ConfError."""
    return tree_of(_lines(text))


def tree_pairs(root: TreeNode) -> list[list[str]]:
    """The tree as ``[name, value]`` pairs, ids renumbered: the root 0, then each
    subtree before its next sibling (8.1.9's numbering when it stores a tree)."""
    ids = {id(node): number for number, node in enumerate(root.walk())}
    pairs: list[list[str]] = []
    for node in root.walk():
        children = ",".join(str(ids[id(c)]) for c in node.children) or NONE
        pairs += [["id", str(ids[id(node)])], ["name", node.name], ["type", str(node.type)],
                  ["shares", str(node.shares)], ["childnodes", children]]
    return pairs


def render_sharetree(root: TreeNode) -> str:
    """The text ``qconf -sstree`` prints."""
    return "".join(f"{key}={value}\n" for key, value in tree_pairs(root))


def render_tree_view(root: TreeNode) -> str:
    """``qconf -sst``: ``name=shares``, each level three blanks further in."""
    lines: list[str] = []

    def show(node: TreeNode, level: int) -> None:
        lines.append(f"{'   ' * level}{node.name}={node.shares}")
        for child in node.children:
            show(child, level + 1)

    show(root, 0)
    return "\n".join(lines) + "\n"


def counts(root: TreeNode) -> tuple[int, int]:
    """Nodes and leaves of the tree (the qmaster's log line names both)."""
    nodes = list(root.walk())
    return len(nodes), sum(1 for n in nodes if not n.children)


# ---- the qmaster's checks ------------------------------------------------------------
def sharetree_problem(root: TreeNode, users: Iterable[str], projects: Iterable[str]
                      ) -> str | None:
    """Why 8.1.9's qmaster refuses the tree, or None; sets ``type`` 1 on project leaves
    as it does. Nodes are visited as 8.1.9 visits them: a node's own checks, then for
    each child its siblings after it, then the child's subtree."""
    return _check(root, set(users), set(projects), None, set())


def _check(node: TreeNode, users: set[str], projects: set[str], project: str | None,
           found: set[str]) -> str | None:
    name = node.name
    if node.children:
        inner_found = found
        if name in projects:
            if project is not None:
                return f'found project "{name}" in project "{project}" sub-tree of share tree'
            if name in found:
                return f'found project "{name}" twice in share tree'
            found.add(name)
            project, inner_found = name, set()
        elif name in users:
            return f'found user "{name}" in share tree as a non-leaf node'
        later = Counter(child.name for child in node.children)  # linear, not pairwise
        for child in node.children:
            later[child.name] -= 1
            if later[child.name] > 0:
                return f'denied: found node "{child.name}" twice under node "{name}"'
            problem = _check(child, users, projects, project, inner_found)
            if problem:
                return problem
        return None
    if name in projects:
        node.type = PROJECT_NODE
    if project is not None:
        if name in projects:
            return f'found project "{name}" in project "{project}" sub-tree of share tree'
        if name not in users and name != DEFAULT_LEAF:
            return f'denied: share tree contains reference to unknown user "{name}"'
        if name in found:
            return f'found user "{name}" twice in project "{project}" sub-tree of share tree'
    else:
        what = "user"
        if name not in users and name != DEFAULT_LEAF:
            what = "project"
            if name not in projects:
                return ("denied: share tree contains reference to unknown user/project "
                        f'"{name}"')
        if name in found:
            return f'found {what} "{name}" twice in share tree'
    found.add(name)
    return None


def names_in(root: TreeNode | None) -> set[str]:
    """Every node name of the tree (a user or project named there may not be deleted)."""
    return {node.name for node in root.walk()} if root is not None else set()


# ---- node paths (qconf -astnode, -mstnode, -dstnode, -sstnode) ------------------------
def find_path(root: TreeNode, path: str) -> list[TreeNode] | None:
    """The nodes from the root's child down to the node ``path`` names (the root itself
    is not part of the chain), or None. 8.1.9's rules: ``/`` steps to a child, ``.`` (and
    a path without a leading delimiter) searches at any depth below, ``*`` matches any
    name; the first match in file order wins."""
    return _search(root, None, path, "", 0)


def _search(node: TreeNode, name: str | None, path: str, delim: str, depth: int
            ) -> list[TreeNode] | None:
    if name is None:
        delim = "."
    if name is None or name == "*" or name == node.name:
        if not path:
            return [node] if name is not None else None
        if path[0] in "./":
            delim, path = path[0], path[1:]
        cut = next((i for i, c in enumerate(path) if c in "./"), len(path))
        name, path = path[:cut], path[cut:]
    elif delim == "/":
        return None
    for child in node.children:
        chain = _search(child, name, path, delim, depth + 1)
        if chain is not None:
            return [node] + chain if depth > 0 else chain
    return None


def chain_path(chain: Sequence[TreeNode]) -> str:
    """``/A/B`` for the chain ``find_path`` gave."""
    return "".join(f"/{node.name}" for node in chain)


# ---- the policy's view ---------------------------------------------------------------
def share_nodes(stored: Iterable[Sequence[str]] | None,
                projects: Iterable[str] = ()) -> tuple[ShareNode, ...]:
    """The stored tree as the policy takes it: every node with its id (the root's 0,
    then each subtree before its next sibling), its name, type, shares and children's
    ids; empty without a tree. ``projects``: names of the cell's projects; a node of
    that name is a project node whatever its stored ``type`` (8.1.9 marks only project
    leaves when it stores a tree, and its scheduler knows projects by name)."""
    root = tree_of(stored) if stored else None
    if root is None:
        return ()
    known = set(projects)
    ids = {id(node): number for number, node in enumerate(root.walk())}
    from common.policy.model import ShareNode  # (see common/policy/node_types.py)
    return tuple(ShareNode(id=ids[id(node)], name=node.name,
                           type=PROJECT_NODE if node.name in known else node.type,
                           shares=node.shares,
                           childnodes=tuple(ids[id(c)] for c in node.children))
                 for node in root.walk())
