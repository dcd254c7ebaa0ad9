"""The qmaster's rules for the ticket policies' objects: user objects (user(5)), the
share tree (share_tree(5)), ``enforce_user``/``auto_user_*`` (sge_conf(5)) and a user's
``default_project``.

Texts are Grid Engine 8.1.9's (sge_userprj_qmaster.c, sge_sharetree_qmaster.c,
sge_job_verify.c):

- a user object: ``denied: not allowed add a user with name "default"``, ``denied:
  shared namespace between project and user: there is already a project which is named
  "p"``, ``denied: project "x" does not exist`` (its ``default_project``); a user or
  project the share tree names cannot be deleted: ``denied: may not remove user "u"
  still referenced in share tree``;
- the share tree: its checks (``common.objects_conf.sharetree``), stored renumbered,
  answered ``root@vm has added sharetree with 4 nodes and 2 leaves`` (qconf prints its
  own ``changed sharetree``); deleted ``root@vm removed sharetree list``, or ``sharetree
  does not exist``;
- a submission: ``enforce_user true`` refuses a user without a user object (``job
  rejected: the user "u" does not exist``), ``auto`` creates one with the
  ``auto_user_*`` values (a ``delete_time`` of now + ``auto_user_delete_time`` when that
  is not 0); a job without ``-P`` gets its owner's ``default_project``;
- the periodic clean-up: an automatic user object whose ``delete_time`` has passed is
  deleted when its user has no job left (one with jobs gets a new ``delete_time``).
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from common.conf_values import get
from common.conffile import ConfError
from common.objects_conf.sharetree import (
    SHARETREE, counts, names_in, sharetree_problem, tree_of, tree_pairs,
)
from common.objects_conf.user import KIND as USER_KIND
from common.objects_conf.user import default_project, user_pairs, user_problem
from qmaster.context import Ctx, RequestError

SHARETREE_KIND = "sharetree"
Conf = Mapping[str, Mapping[str, list[list[str]]]]


def _who(ctx: Ctx) -> str:
    user = ctx.user
    return f"{user.name}@{user.host}" if user.host else user.name


# ---- user objects --------------------------------------------------------------------
def check_user(conf: Conf, pairs: list[list[str]], mode: str) -> None:
    """A user object being added or changed (after the "already exists" check)."""
    problem = user_problem(pairs, add=mode == "add", projects=conf.get("project", {}))
    if problem:
        raise RequestError("invalid", problem)


def check_project_name_free(conf: Conf, pairs: list[list[str]]) -> None:
    """A new project may not be named ``default`` nor like a user object."""
    name = get(pairs, "name", "")
    if name == "default":
        raise RequestError("invalid", 'denied: not allowed add a project with name "default"')
    if name in conf.get(USER_KIND, {}):
        raise RequestError("invalid", "denied: shared namespace between project and user: "
                                      f'there is already a user which is named "{name}"')


def check_not_in_sharetree(conf: Conf, kind: str, name: str) -> None:
    """A user or project the share tree names stays (8.1.9 looks for the name at any
    node)."""
    stored = (conf.get(SHARETREE_KIND) or {}).get(SHARETREE)
    try:
        named = names_in(tree_of(stored)) if stored else set()
    except ConfError:
        named = set()
    if name in named:
        raise RequestError("referenced", f'denied: may not remove {kind} "{name}" still '
                                         "referenced in share tree")


# ---- the share tree ------------------------------------------------------------------
def put_sharetree(ctx: Ctx, data: list[list[str]] | None) -> dict[str, Any]:
    """Add or replace the share tree (``qconf -Astree/-Mstree`` and the node options
    all send the whole tree); managers only (the caller checked)."""
    if data is None or not all(isinstance(p, list) and len(p) == 2 for p in data):
        raise RequestError("malformed", "share tree must be a list of [name, value] pairs")
    try:
        root = tree_of(data)
    except ConfError as err:
        raise RequestError("invalid", err.message) from None
    if root is None:
        raise RequestError("invalid", "no sharetree element")
    conf = ctx.store.conf
    problem = sharetree_problem(root, conf.get(USER_KIND, {}), conf.get("project", {}))
    if problem:
        raise RequestError("invalid", problem)
    verb = "modified" if SHARETREE in conf[SHARETREE_KIND] else "added"
    ctx.store.put_conf(ctx.batch, SHARETREE_KIND, SHARETREE, tree_pairs(root))
    nodes, leaves = counts(root)
    return {"message": f"{_who(ctx)} has {verb} sharetree with {nodes} nodes and "
                       f"{leaves} leaves"}


def delete_sharetree(ctx: Ctx) -> dict[str, Any]:
    if SHARETREE not in ctx.store.conf[SHARETREE_KIND]:
        raise RequestError("missing", "sharetree does not exist")
    ctx.store.delete_conf(ctx.batch, SHARETREE_KIND, SHARETREE)
    return {"message": f"{_who(ctx)} removed sharetree list"}


# ---- submission ----------------------------------------------------------------------
def _global(conf: Conf) -> list[list[str]]:
    return (conf.get("conf") or {}).get("global") or []


def _ulong(pairs: Sequence[Sequence[str]], name: str) -> int:
    text = get(pairs, name, "0").strip()
    return int(text) if text.isdigit() else 0


def enforce_user(conf: Conf) -> str:
    """sge_conf(5) ``enforce_user``: ``true``, ``auto`` or ``false`` (lower case)."""
    return get(_global(conf), "enforce_user", "false").strip().lower()


def auto_user(conf: Conf, user: str, now: float) -> list[list[str]] | None:
    """``enforce_user auto``: the user object to store for ``user`` submitting at
    ``now``, or None when the user has one. 8.1.9 also moves an automatic user's
    ``delete_time`` on at every submission (in memory only); here the clean-up moves it
    on when it passes while the user has jobs, which spares a write per submission."""
    pairs = _global(conf)
    lifetime = _ulong(pairs, "auto_user_delete_time")
    if user in (conf.get(USER_KIND) or {}):
        return None
    project = get(pairs, "auto_user_default_project", "none").strip()
    return user_pairs(user, oticket=_ulong(pairs, "auto_user_oticket"),
                      fshare=_ulong(pairs, "auto_user_fshare"),
                      delete_time=int(now) + lifetime if lifetime else 0,
                      default_project=None if project.lower() == "none" else project)


def check_job_user(ctx: Ctx, user: str, opts: dict[str, Any], now: float) -> dict[str, Any]:
    """What ``enforce_user`` and the owner's ``default_project`` do to a submission:
    the options with the project filled in, the automatic user object stored, or the
    refusal (before the project is checked, as in 8.1.9)."""
    conf = ctx.store.conf
    mode = enforce_user(conf)
    if mode == "auto":
        changed = auto_user(conf, user, now)
        if changed is not None:
            ctx.store.put_conf(ctx.batch, USER_KIND, user, changed)
    elif mode == "true" and user not in conf.get(USER_KIND, {}):
        raise RequestError("rejected", f'job rejected: the user "{user}" does not exist')
    stored = conf.get(USER_KIND, {}).get(user)
    if not opts.get("project") and stored is not None:
        project = default_project(stored)
        if project is not None:
            return {**opts, "project": project}
    return opts


# ---- periodic work -------------------------------------------------------------------
def expired_auto_users(conf: Conf, now: float) -> list[str]:
    """Automatic user objects whose ``delete_time`` has passed (none when
    ``auto_user_delete_time`` is 0: they are kept for ever)."""
    if _ulong(_global(conf), "auto_user_delete_time") == 0:
        return []
    return [name for name, pairs in (conf.get(USER_KIND) or {}).items()
            if 0 < _ulong(pairs, "delete_time") <= now]


def auto_user_actions(conf: Conf, expired: Iterable[str], owners_with_jobs: Iterable[str],
                      now: float) -> tuple[list[str], dict[str, list[list[str]]]]:
    """What the periodic clean-up does with the expired automatic users: those without
    jobs are deleted; one with jobs gets a new ``delete_time`` (now +
    ``auto_user_delete_time``); one the share tree names stays and is regarded as made
    by hand (``delete_time`` 0), as 8.1.9 does when it cannot delete it."""
    lifetime = _ulong(_global(conf), "auto_user_delete_time")
    busy = set(owners_with_jobs)
    stored_tree = (conf.get(SHARETREE_KIND) or {}).get(SHARETREE)
    try:
        in_tree = names_in(tree_of(stored_tree)) if stored_tree else set()
    except ConfError:
        in_tree = set()
    users = conf.get(USER_KIND) or {}
    delete: list[str] = []
    keep: dict[str, list[list[str]]] = {}
    for name in expired:
        if name in busy:
            keep[name] = _with_delete_time(users[name], int(now) + lifetime)
        elif name in in_tree:
            keep[name] = _with_delete_time(users[name], 0)
        else:
            delete.append(name)
    return delete, keep


def _with_delete_time(pairs: list[list[str]], when: int) -> list[list[str]]:
    return [[k, str(when) if k == "delete_time" else v] for k, v in pairs]
