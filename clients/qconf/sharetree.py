"""``qconf`` options for the share tree (share_tree(5)): ``-astree -Astree -mstree
-Mstree -sstree -sst -dstree`` and the node options ``-astnode -mstnode -dstnode -sstnode
-rsstnode``, as Grid Engine 8.1.9's qconf words, streams and ends them (its
clients/qconf/parse_qconf.c).

The qmaster checks and stores the whole tree; qconf prints its own ``changed sharetree``
(``-astree``, ``-mstree`` and their file forms) or ``modified sharetree`` (node options)
when it is accepted, the qmaster's refusal otherwise. 8.1.9's exit statuses are kept,
odd ones included: a refused ``-astree``/``-Astree`` (and one naming a node it does not
specify) ends with 0, the ``-m`` forms with 1; a node option that changed nothing says
``no modifications to sharetree`` and ends with 1; ``-rsstnode`` ends with 1.
Node options print ``setting `` / ``removing `` and the node's path on stderr.
"""
from __future__ import annotations

import re

from clients.api import ClientError
from clients.qconf.base import QconfError, Session, edit, err, out, remove
from clients.qconf.files import ERROR_READING_IN_FILE
from clients.qconf.help import HELP
from common.conffile import ConfError
from common.objects_conf.sharetree import (
    KIND, SHARETREE, TreeNode, chain_path, find_path, parse_sharetree, render_sharetree,
    render_tree_view, template, tree_of, tree_pairs,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

NO_TREE = "No sharetree"
NO_ELEMENT = "no sharetree element"
CHANGED = "changed sharetree"
MODIFIED = "modified sharetree"
UNMODIFIED = "no modifications to sharetree"
CANT_READ = "cant read sharetree: "
UNSPECIFIED = "found reference to node"
_ARGS = re.compile(r"[,\s]+")


class _Unspecified(Exception):
    """A child id without its node: 8.1.9 says so after reading the file."""


def stored_tree(s: Session) -> TreeNode | None:
    stored = s.objects(KIND).get(SHARETREE)
    return tree_of(stored) if stored else None


def _require_manager(s: Session) -> None:
    user = s.client.user.name
    if user not in s.objects("manager"):
        raise QconfError(f'denied: "{user}" must be manager for this operation')


def _parse(text: str, last_line: str) -> TreeNode:
    try:
        root = parse_sharetree(text)
    except ConfError as exc:
        if exc.message.startswith(UNSPECIFIED):
            raise _Unspecified(exc.message) from None
        raise QconfError(f"error: {exc.message}\n{last_line}") from None
    if root is None:
        raise QconfError(last_line)
    return root


def _from_editor(s: Session) -> TreeNode:
    _require_manager(s)
    current = stored_tree(s)
    saved, written = edit(render_sharetree(current or template()))
    if not written:
        raise QconfError("file unchanged")
    return _parse(saved, CANT_READ)


def _from_file(path: str) -> TreeNode:
    try:
        with open(path) as fh:
            text = fh.read()
    except OSError as exc:
        raise QconfError(f'error: error opening file "{path}" for reading: {exc.strerror}\n'
                         f"{ERROR_READING_IN_FILE}") from None
    return _parse(text, ERROR_READING_IN_FILE)


def _send_tree(s: Session, read: Callable[[], TreeNode], mode: str) -> int:
    """``-astree``/``-mstree`` and file forms: a refusal ends 0 for ``add`` (8.1.9)."""
    failed = 0 if mode == "add" else 1
    try:
        root = read()
    except _Unspecified as exc:
        err(str(exc))
        return failed
    try:
        s.client.conf_put(KIND, SHARETREE, tree_pairs(root), mode)
    except ClientError as exc:
        err(exc.message)
        return failed
    err(CHANGED)
    return 0


def add_in_editor(s: Session) -> int:
    return _send_tree(s, lambda: _from_editor(s), "add")


def add_from_file(s: Session, path: str) -> int:
    return _send_tree(s, lambda: _from_file(path), "add")


def modify_in_editor(s: Session) -> int:
    return _send_tree(s, lambda: _from_editor(s), "modify")


def modify_from_file(s: Session, path: str) -> int:
    return _send_tree(s, lambda: _from_file(path), "modify")


def show_file(s: Session) -> int:
    """``-sstree``: the tree as its file."""
    root = stored_tree(s)
    if root is None:
        raise QconfError(NO_ELEMENT)
    out(render_sharetree(root))
    return 0


def show_view(s: Session) -> int:
    """``-sst``: the tree indented (no tree: ``No sharetree``, exit 0 as in 8.1.9)."""
    root = stored_tree(s)
    if root is None:
        err(NO_TREE)
        return 0
    out(render_tree_view(root))
    return 0


def delete_tree(s: Session) -> int:
    """``-dstree``."""
    return remove(s, KIND, SHARETREE)


# ---- node options --------------------------------------------------------------------
def _store_nodes(s: Session, root: TreeNode, modified: int, usage: bool = False) -> int:
    if not modified:
        err(UNMODIFIED)
        if usage:
            err(HELP)
        return 1
    try:
        s.client.conf_put(KIND, SHARETREE, tree_pairs(root), "modify")
    except ClientError as exc:
        err(exc.message)
        return 1
    err(MODIFIED)
    return 0


def _add_node(root: TreeNode, path: str) -> list[TreeNode] | None:
    """``-astnode``: a node not found is added below its parent path, when that
    exists; None when it cannot be; QconfError when the new path is not unique."""
    cut = max(path.rfind("/"), path.rfind("."))
    if cut < 0 or not path or cut + 1 >= len(path):
        return None
    if cut == 0 and path[0] == "/":
        parent: TreeNode | None = root
    else:
        chain = find_path(root, path[:cut])
        parent = chain[-1] if chain else None
    if parent is None:
        return None
    node = TreeNode(path[cut + 1:])
    parent.children.append(node)
    chain = find_path(root, path)
    if not chain or chain[-1] is not node:
        raise QconfError(f"Could not add node {path} to sharetree due to non-unique path")
    return chain


def set_nodes(add: bool) -> Callable[[Session, str], int]:
    """``-astnode``/``-mstnode path=shares[,...]``."""
    def run(s: Session, arg: str) -> int:
        root = stored_tree(s)
        if root is None and add:
            root = TreeNode("Root", shares=1)
        if root is None:
            err(NO_TREE)
            return 0
        modified, usage = 0, False
        for item in (a for a in _ARGS.split(arg) if a):
            path, sep, text = item.partition("=")
            found = re.match(r"\s*[+-]?\d+", text)
            if not path or not sep or not found:
                err(f"{arg} is not a valid argument, see node_shares_list format")
                usage = True
                continue
            shares = int(found.group())
            if shares < 0:
                raise QconfError("share value must be positive")
            chain = find_path(root, path)
            if chain is None and add:
                chain = _add_node(root, path)
            if chain is None:
                err(f"Unable to locate {path} in sharetree")
                continue
            chain[-1].shares = shares
            modified += 1
            err(f"setting \n{chain_path(chain)}={shares}")
        return _store_nodes(s, root, modified, usage)
    return run


def delete_nodes(s: Session, arg: str) -> int:
    """``-dstnode path[,...]``: leaves only, never the root."""
    root = stored_tree(s)
    if root is None:
        err(NO_TREE)
        return 1
    modified = 0
    for path in (a for a in _ARGS.split(arg) if a):
        chain = find_path(root, path)
        if chain is None:
            err(f"Unable to locate {path} in sharetree")
        elif chain[-1].children:
            err("can't delete nodes with children")
        else:
            parent = chain[-2] if len(chain) > 1 else root
            parent.children = [c for c in parent.children if c is not chain[-1]]
            modified += 1
            err(f"removing \n{chain_path(chain)}")
    return _store_nodes(s, root, modified)


def _show_path(root: TreeNode, path: str) -> bool:
    """One node and, below it, every descendant as ``/path=shares``."""
    whole = path == "/" or path.lower() == "root"
    chain = [] if whole else find_path(root, path)
    if chain is None:
        err(f"Unable to locate {path} in sharetree")
        return False
    node = chain[-1] if chain else root
    out(f"{chain_path(chain) or '/'}={node.shares}" if whole
        else f"{chain_path(chain)}={node.shares}")
    for child in node.children:
        _show_path(root, f"/{child.name}" if whole else f"{path}/{child.name}")
    return True


def show_nodes(recursive: bool) -> Callable[[Session, str], int]:
    """``-sstnode``/``-rsstnode path[,...]``: 8.1.9 shows the subtree for both; the
    exit status of ``-sstnode`` is 1 when the last path is not found, that of
    ``-rsstnode`` always 1."""
    def run(s: Session, arg: str) -> int:
        root = stored_tree(s)
        if root is None:
            err(NO_TREE)
            return 0
        found = True
        for path in (a for a in _ARGS.split(arg) if a):
            found = _show_path(root, path)
        return 1 if recursive or not found else 0
    return run


# option -> (number of arguments, handler)
SHARETREE_OPTIONS: dict[str, tuple[int, Callable[..., int]]] = {
    "-astree": (0, add_in_editor), "-Astree": (1, add_from_file),
    "-mstree": (0, modify_in_editor), "-Mstree": (1, modify_from_file),
    "-sstree": (0, show_file), "-sst": (0, show_view), "-dstree": (0, delete_tree),
    "-astnode": (1, set_nodes(add=True)), "-mstnode": (1, set_nodes(add=False)),
    "-dstnode": (1, delete_nodes), "-sstnode": (1, show_nodes(recursive=False)),
    "-rsstnode": (1, show_nodes(recursive=True)),
}
