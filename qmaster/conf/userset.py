"""The qmaster's access list (userset) rules: who may change them, what a list must
satisfy, where lists are referenced, and the ``userset_entries`` request behind
``qconf -au``/``-du``.

Grid Engine 8.1.9 lets operators (and managers) change access lists, where every other
configuration object needs a manager: ``denied: "u" must be operator for this
operation``. ``qconf -au``/``-du`` are, in Grid Engine, a read, change and write of the
whole list by the client; here the qmaster adds or removes the entries itself in one
request, so concurrent calls cannot lose each other's entries. The answers are the
client-side texts Grid Engine prints (``added "u" to access list "l"``, ``"u" is already
in access list "l"``, ``deleted user "u" from access list "l"``, ``user "u" is not in
access list "l"``, ``access list "l" doesn't exist``), one per user and list. Each
change needs an administrative host (``qmaster.host_rights``), checked, as the rest,
per list written.

A list named in ``user_lists``/``xuser_lists`` of a queue (any host value), exec host,
PE or configuration must exist (``Userset "x" does not exist``), and a list still named
there, or in a project's ``acl``/``xacl``, cannot be deleted (``denied: userset "x" is
still referenced in user list of queue "all.q"``).
"""
from __future__ import annotations

from typing import Any, Iterator, Mapping

from common.conf_values import get, split_names
from common.conffile import ConfError
from common.objects_conf.project import acl_names
from common.objects_conf.queue import check_object_name, parse_host_overrides
from common.objects_conf.userset import (department_conflict, entries_of, userset_pairs,
                                         userset_problems, with_entries)
from qmaster.context import Ctx, RequestError
from qmaster.host_rights import require_admin_host, require_known_host

KIND = "userset"
ACCESS_ATTRS = (("user_lists", "user list"), ("xuser_lists", "xuser list"))
# store kind -> the object's name in Grid Engine's "still referenced" refusal
REFERRING = (("queue", "queue"), ("pe", "parallel environment"), ("exechost", "exechost"),
             ("conf", "configuration"))
Conf = Mapping[str, Mapping[str, list[list[str]]]]


def require_operator(ctx: Ctx) -> None:
    user = ctx.user
    if not ctx.store.is_operator(user.name):
        raise RequestError("denied", f'denied: "{user.name}" must be operator for this '
                                     "operation")


def require_permission(ctx: Ctx, kind: str) -> None:
    """Operators change access lists; everything else needs a manager."""
    if kind == KIND:
        require_operator(ctx)
    else:
        ctx.require_manager()


def check_userset(pairs: list[list[str]], mode: str,
                  usersets: Mapping[str, list[list[str]]] | None = None) -> None:
    """Grid Engine's refusals of a whole list being added or changed; with the cell's
    ``usersets``, also a department naming a user another department names."""
    problems = userset_problems(pairs, add=mode == "add")
    if problems:
        raise RequestError("invalid", "\n".join(problems))
    conflict = department_conflict(pairs, usersets or {})
    if conflict:
        raise RequestError("invalid", conflict)


# ---- references ----------------------------------------------------------------------
def _values(kind: str, text: str) -> list[str]:
    """A queue attribute's default and per-host values; other kinds have one value."""
    if kind != "queue":
        return [text]
    try:
        default, overrides = parse_host_overrides(text)
    except ConfError:
        return [text]  # the qmaster accepted it; read it as one value
    return [default, *overrides.values()]


def named_lists(kind: str, pairs: list[list[str]], attr: str) -> Iterator[list[str]]:
    """The names in each value of ``attr`` (queues: default, then host values); for
    access lists and projects alike."""
    for value in _values(kind, get(pairs, attr, "NONE")):
        yield split_names(value)


def check_lists_exist(conf: Conf, kind: str, pairs: list[list[str]]) -> None:
    """A queue, PE, exec host or configuration may name only existing lists."""
    if kind not in dict(REFERRING):
        return
    for attr, _ in ACCESS_ATTRS:
        for names in named_lists(kind, pairs, attr):
            missing = next((n for n in names if n not in conf.get(KIND, {})), None)
            if missing is not None:
                raise RequestError("invalid", f'Userset "{missing}" does not exist')


def referrers(conf: Conf, name: str) -> list[str]:
    """Grid Engine's refusals of deleting list ``name``: one per value naming it (queues,
    PEs, configurations), only the first exec host found."""
    lines: list[str] = []
    for kind, word in REFERRING:
        for obj, pairs in sorted(conf.get(kind, {}).items()):
            for attr, list_word in ACCESS_ATTRS:
                hits = sum(name in names for names in named_lists(kind, pairs, attr))
                lines += [f'denied: userset "{name}" is still referenced in {list_word} of '
                          f'{word} "{obj}"'] * hits
                if hits and kind == "exechost":
                    return lines
    for project, pairs in sorted(conf.get("project", {}).items()):
        for key, list_word in (("acl", "user list"), ("xacl", "xuser list")):
            if name in acl_names(get(pairs, key, "NONE")):
                lines.append(f'denied: userset "{name}" is still referenced in {list_word} '
                             f'of project "{project}"')
    return lines


def check_unreferenced(ctx: Ctx, name: str) -> None:
    lines = referrers(ctx.store.conf, name)
    if lines:
        raise RequestError("referenced", "\n".join(lines))


# ---- qconf -au / -du -----------------------------------------------------------------
def handle_userset_entries(ctx: Ctx) -> dict[str, Any]:
    """``op`` "add" or "delete" every name of ``users`` to/from every list of ``lists``;
    ``results`` holds one {"ok", "message"} per answer, lists outermost."""
    # 8.1.9's qconf reads each list first: a host that may not read is refused whole
    require_known_host(ctx.store, ctx.user)
    op, users, lists = ctx.body["op"], ctx.body["users"], ctx.body["lists"]
    if op not in ("add", "delete") or not _strings(users) or not _strings(lists):
        raise RequestError("malformed", "userset_entries needs op add/delete and name lists")
    odd = next((n for n in users + lists if not _one_name(n)), None)
    if odd is not None:  # a separator would turn one name into several entries
        raise RequestError("invalid", f'denied: "{odd}" is not a valid user or list name')
    results: list[dict[str, Any]] = []
    for list_name in lists:
        if op == "add":
            results += [_add_one(ctx, user, list_name) for user in users]
        else:
            results += _delete_from(ctx, users, list_name)
    return {"results": results}


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(x, str) and x for x in value)


def _one_name(name: str) -> bool:
    return name.upper() != "NONE" and not any(c.isspace() or c == "," for c in name)


def _answer(ok: bool, message: str) -> dict[str, Any]:
    return {"ok": ok, "message": message}


def _add_one(ctx: Ctx, user: str, list_name: str) -> dict[str, Any]:
    stored = ctx.store.conf[KIND].get(list_name)
    if stored is not None and user in entries_of(stored):
        return _answer(False, f'"{user}" is already in access list "{list_name}"')
    if stored is None:  # Grid Engine creates a list that does not exist yet
        pairs, mode = userset_pairs(list_name, "ACL", [user]), "add"
    else:
        pairs, mode = with_entries(stored, entries_of(stored) + [user]), "modify"
    refused = _store(ctx, list_name, pairs, mode)
    return _answer(False, refused) if refused else \
        _answer(True, f'added "{user}" to access list "{list_name}"')


def _delete_from(ctx: Ctx, users: list[str], list_name: str) -> list[dict[str, Any]]:
    if list_name not in ctx.store.conf[KIND]:  # Grid Engine then skips the list's users
        return [_answer(False, f'access list "{list_name}" doesn\'t exist')]
    results = []
    for user in users:
        stored = ctx.store.conf[KIND][list_name]
        entries = entries_of(stored)
        if user not in entries:
            results.append(_answer(False, f'user "{user}" is not in access list '
                                          f'"{list_name}"'))
            continue
        kept = [entry for entry in entries if entry != user]
        refused = _store(ctx, list_name, with_entries(stored, kept), "modify")
        results.append(_answer(False, refused) if refused else
                       _answer(True, f'deleted user "{user}" from access list "{list_name}"'))
    return results


def _store(ctx: Ctx, name: str, pairs: list[list[str]], mode: str) -> str:
    """Store one changed list; Grid Engine's first refusal line, or "" when stored."""
    try:
        require_operator(ctx)
        require_admin_host(ctx.store, ctx.user)  # each write, as 8.1.9's qmaster checks it
        if mode == "add":
            check_object_name("name", name)
        check_userset(pairs, mode, ctx.store.conf[KIND])
    except RequestError as err:
        return err.message.split("\n")[0]
    except ConfError as err:
        return err.message
    ctx.store.put_conf(ctx.batch, KIND, name, pairs)
    return ""
