"""``qconf``: show and change the cell's configuration, with Grid Engine's options.

Each option is one entry of ``OPTIONS``: how many arguments it takes and the function that
carries it out. Objects are parsed and checked here (``clients.qconf.files``) and again by
the qmaster, which alone decides and words the confirmation. Streams and exit codes follow
Grid Engine 8.1.9: listings and objects go to stdout; confirmations (``root@vm added "x"
to cluster queue list``) go to stderr with exit status 0, except those of
``-aattr/-mattr/-dattr/-rattr/-purge``, which 8.1.9 prints on stdout; refusals go to
stderr with 1.
"""
from __future__ import annotations

import sys

from clients.api import ClientError, connect_or_exit, resolvable
from clients.joblist import NO_OPTION_ARGUMENT
from clients.qconf.attr import (
    ADD, DELETE, MODIFY, PURGE, REPLACE, AttrError, Request, change_object, missing_object,
    split_object_id, store_kind,
)
from clients.qconf.attr_file import AttrFileError, attribute_pairs
from clients.qconf.base import (
    EMPTY_LIST, EXEC_HOST_ADDED, INVALID_OPTION, KINDS, MISSING, UNRESOLVABLE, QconfError,
    Session, edit_text, err, from_editor, from_file, out, put, put_object,
)
from clients.qconf.calendar import CALENDAR_OPTIONS
from clients.qconf.ckpt import CKPT_OPTIONS
from clients.qconf.objects import OBJECT_OPTIONS
from clients.qconf.clean import CLEAN_OPTIONS
from clients.qconf.control import CONTROL_OPTIONS
from clients.qconf.complex import COMPLEX_OPTIONS
from clients.qconf.help import HELP, HELP_WITH_FMT
from clients.qconf.hostconf import HOSTCONF_OPTIONS
from clients.qconf.hosts import HOST_OPTIONS, on_admin_host
from clients.qconf.project import PROJECT_OPTIONS
from clients.qconf.rqs import OBJECT as RQS_OBJECT
from clients.qconf.rqs import RQS_OPTIONS
from clients.qconf.rqs import change_attribute as change_rule_sets
from clients.qconf.usage import USAGE_OPTIONS
from clients.qconf.monitor import MONITOR_OPTIONS
from clients.qconf.sharetree import SHARETREE_OPTIONS
from clients.qconf.user import USER_OPTIONS
from clients.qconf.userset import USERSET_OPTIONS
from common.conffile import ConfError
from common.objects_conf import render_object, template
from common.objects_conf.host import check_hostgroup_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

__all__ = ["QconfError", "Session", "edit_text", "main", "run"]


# ---- show ----------------------------------------------------------------------------
def show_list(kind: str) -> Callable[[Session], int]:
    def run(s: Session) -> int:
        # the pseudo host "global" is configured like an exec host but is none
        names = [n for n in s.objects(kind) if kind != "exechost" or n != "global"]
        if not names:
            raise QconfError(EMPTY_LIST[kind])
        out("\n".join(sorted(names)))
        return 0
    return run


def show_object(kind: str) -> Callable[..., int]:
    def run(s: Session, names: str | None = None) -> int:
        if names is None:
            out(render_object(KINDS[kind], template(KINDS[kind])))
            return 0
        objects = s.objects(kind)
        rc = 0
        for name in names.split(","):
            if name not in objects:
                err(missing_text(kind, name))
                rc = 1
                continue
            pairs = objects[name]
            if kind == "exechost":
                pairs = with_load_values(s, name, pairs)
            out(render_object(KINDS[kind], pairs))
        return rc
    return run


def missing_text(kind: str, name: str) -> str:
    if kind == "exechost" and not resolvable(name):
        return UNRESOLVABLE.format(name)
    return MISSING[kind].format(name)


def with_load_values(s: Session, host: str, pairs: list[list[str]]) -> list[list[str]]:
    cluster = s.client.cluster()
    runtime = {h["name"]: h for h in cluster["hosts"]}.get(host)
    out = [list(p) for p in pairs]
    load = (runtime or {}).get("load") or {}
    if host == "global":  # what the load sensors report as global:name:value
        load = cluster.get("global_load") or {}
    values = ",".join(f"{k}={v}" for k, v in load.items()) or "NONE"
    out.insert(3, ["load_values", values])
    out.insert(4, ["processors", str(load.get("num_proc", "0")).split(".")[0]])
    return out


def show_sconf(s: Session) -> int:
    out(render_object("sched", s.objects("sconf")["global"]))
    return 0


def show_names(kind: str) -> Callable[[Session], int]:
    def run(s: Session) -> int:
        names = s.objects(kind)
        if not names:
            raise QconfError(EMPTY_LIST[kind])
        out("\n".join(names))
        return 0
    return run


def add_from_file(kind: str) -> Callable[[Session, str], int]:
    return lambda s, path: put_object(s, kind, from_file(kind, path), "add")


def modify_from_file(kind: str) -> Callable[[Session, str], int]:
    return lambda s, path: put_object(s, kind, from_file(kind, path, modify=True), "modify")


def add_in_editor(kind: str) -> Callable[..., int]:
    def run(s: Session, name: str | None = None) -> int:  # (-aq: the name is optional)
        if kind == "hgrp" and name is not None:
            _check_group_name(name)
        text = render_object(KINDS[kind], template(KINDS[kind], name))
        return put_object(s, kind, from_editor(kind, text), "add")
    return run


def _check_group_name(name: str) -> None:
    try:
        check_hostgroup_name("group_name", name)
    except ConfError as exc:
        raise QconfError(exc.message) from None


def add_exechost_in_editor(s: Session, template_host: str | None = None) -> int:
    """``-ae [template]``: a new exec host from the defaults or another host's values."""
    pairs = template("exechost")
    if template_host is not None:
        objects = s.objects("exechost")
        if template_host not in objects:
            raise QconfError(missing_text("exechost", template_host))
        pairs = objects[template_host]
    edited = from_editor("exechost", render_object("exechost", pairs))
    name = dict((k, v) for k, v in edited)["hostname"]
    try:
        s.client.conf_put("exechost", name, edited, "add")
    except ClientError as exc:
        raise QconfError(exc.message) from None
    err(EXEC_HOST_ADDED.format(name))
    return 0


def modify_in_editor(kind: str) -> Callable[[Session, str], int]:
    def run(s: Session, name: str) -> int:
        objects = s.objects(kind)
        if name not in objects:
            raise QconfError(missing_text(kind, name))
        text = render_object(KINDS[kind], objects[name])
        return put_object(s, kind, from_editor(kind, text), "modify")
    return run


def modify_sconf_from_file(s: Session, path: str) -> int:
    return put(s, "sconf", "global", from_file("sconf", path), "modify")


def modify_sconf_in_editor(s: Session) -> int:
    text = render_object("sched", s.objects("sconf")["global"])
    return put(s, "sconf", "global", from_editor("sconf", text), "modify")


def add_name(kind: str) -> Callable[[Session, str], int]:
    def run(s: Session, names: str) -> int:
        return max(put(s, kind, name, None, "add") for name in names.split(","))
    return run


def delete(kind: str) -> Callable[[Session, str], int]:
    def run(s: Session, names: str) -> int:
        return max(_delete_one(s, kind, name) for name in names.split(","))
    return run


def _delete_one(s: Session, kind: str, name: str) -> int:
    try:
        reply = s.client.conf_del(kind, name)
    except ClientError as exc:
        unknown_host = kind == "exechost" and exc.code == "missing" and not resolvable(name)
        err(UNRESOLVABLE.format(name) if unknown_host else exc.message)
        return 1
    err(reply["message"])
    return 0


def change_attribute(option: str) -> Callable[..., int]:
    """``-aattr/-mattr/-dattr/-rattr obj_nm attr_nm val obj_id_list``: each object is
    changed here and sent whole, so the qmaster checks it as for ``-Mq``."""
    def run(s: Session, obj_nm: str, attr: str, value: str, ids: str) -> int:
        if obj_nm == RQS_OBJECT:
            return change_rule_sets(s, option, [(attr, value)], ids)
        return _change_each(s, obj_nm, [Request(option, attr, value)], ids)
    return run


def change_attributes_from_file(option: str) -> Callable[..., int]:
    """``-Aattr/-Mattr/-Dattr/-Rattr obj_nm fname obj_id_list``: every attribute of the
    file applied as ``option`` applies it (clients.qconf.attr_file)."""
    def run(s: Session, obj_nm: str, path: str, ids: str) -> int:
        if obj_nm != RQS_OBJECT:
            try:
                store_kind(obj_nm)
            except AttrError as exc:
                raise QconfError(exc.message) from None
        try:
            with open(path) as fh:
                text = fh.read()
        except OSError as exc:
            raise QconfError(f'error: error opening file "{path}" for reading: '
                             f"{exc.strerror}\n" + INVALID_OPTION.format(path)) from None
        try:
            pairs = attribute_pairs(obj_nm, text, path)
        except AttrFileError as exc:
            raise QconfError("\n".join(exc.lines)) from None
        if obj_nm == RQS_OBJECT:
            return change_rule_sets(s, option, pairs, ids)
        return _change_each(s, obj_nm, [Request(option, attr, value) for attr, value in pairs],
                            ids)
    return run


def purge_attribute(s: Session, obj_nm: str, attr: str, ids: str) -> int:
    """``-purge queue attr_nm q@host``: drop a queue's host-specific value."""
    return _change_each(s, obj_nm, [Request(PURGE, attr)], ids)


def _change_each(s: Session, obj_nm: str, reqs: list[Request], ids: str) -> int:
    try:
        kind = store_kind(obj_nm)
    except AttrError as exc:
        raise QconfError(exc.message) from None
    objects = s.objects(kind)
    return max(_change_one(s, obj_nm, kind, objects, reqs, obj_id)
               for obj_id in ids.split(","))


def _change_one(s: Session, obj_nm: str, kind: str, objects: dict[str, list[list[str]]],
                reqs: list[Request], obj_id: str) -> int:
    """Every change of ``reqs`` (one, or a file's) to one object, sent as one request:
    all of them apply or none."""
    name, _ = split_object_id(obj_nm, obj_id)
    if name not in objects:
        err(missing_object(obj_nm, name))
        return 1
    pairs, notes, applied = objects[name], [], False
    try:
        for req in reqs:
            result = change_object(obj_nm, pairs, req, obj_id)
            notes += result.notes
            if result.applied:
                pairs, applied = result.pairs, True
    except AttrError as exc:
        err(exc.message)
        return 1
    # 8.1.9 prints what -aattr/-mattr/-dattr/-rattr did on stdout, refusals on stderr
    if not applied:
        for note in notes:
            out(note)
        return 0
    try:
        reply = s.client.conf_put(kind, name, pairs, "modify")
    except ClientError as exc:  # a refusal stands alone, without the notes
        err(exc.message)
        return 1
    for line in [*notes, reply["message"]]:
        out(line)
    objects[name] = pairs  # the next id may name the same queue (all.q@a,all.q@b)
    return 0



# option -> (number of arguments, handler); -1: one optional argument; -2: one required,
# then one optional
OPTIONS: dict[str, tuple[int, Callable[..., int]]] = {
    "-sql": (0, show_list("queue")), "-sq": (-1, show_object("queue")),
    "-aq": (-1, add_in_editor("queue")), "-Aq": (1, add_from_file("queue")),
    "-mq": (1, modify_in_editor("queue")), "-Mq": (1, modify_from_file("queue")),
    "-dq": (1, delete("queue")),
    "-sel": (0, show_list("exechost")), "-se": (1, show_object("exechost")),
    "-ae": (-1, add_exechost_in_editor), "-Ae": (1, add_from_file("exechost")),
    "-me": (1, modify_in_editor("exechost")), "-Me": (1, modify_from_file("exechost")),
    "-de": (1, delete("exechost")),
    "-shgrpl": (0, show_list("hgrp")), "-shgrp": (1, show_object("hgrp")),
    "-ahgrp": (1, add_in_editor("hgrp")), "-Ahgrp": (1, add_from_file("hgrp")),
    "-mhgrp": (1, modify_in_editor("hgrp")), "-Mhgrp": (1, modify_from_file("hgrp")),
    "-dhgrp": (1, delete("hgrp")),
    "-spl": (0, show_list("pe")), "-sp": (1, show_object("pe")),
    "-ap": (1, add_in_editor("pe")), "-Ap": (1, add_from_file("pe")),
    "-mp": (1, modify_in_editor("pe")), "-Mp": (1, modify_from_file("pe")),
    "-dp": (1, delete("pe")),
    "-sm": (0, show_names("manager")), "-am": (1, add_name("manager")),
    "-dm": (1, delete("manager")),
    "-so": (0, show_names("operator")), "-ao": (1, add_name("operator")),
    "-do": (1, delete("operator")),
    "-ssconf": (0, show_sconf), "-msconf": (0, modify_sconf_in_editor),
    "-Msconf": (1, modify_sconf_from_file),
    "-aattr": (4, change_attribute(ADD)), "-mattr": (4, change_attribute(MODIFY)),
    "-dattr": (4, change_attribute(DELETE)), "-rattr": (4, change_attribute(REPLACE)),
    "-purge": (3, purge_attribute),
    "-Aattr": (3, change_attributes_from_file(ADD)),
    "-Mattr": (3, change_attributes_from_file(MODIFY)),
    "-Dattr": (3, change_attributes_from_file(DELETE)),
    "-Rattr": (3, change_attributes_from_file(REPLACE)),
    **COMPLEX_OPTIONS,
    **USERSET_OPTIONS,
    **HOST_OPTIONS,
    **RQS_OPTIONS,
    **PROJECT_OPTIONS,
    **CALENDAR_OPTIONS,
    **CKPT_OPTIONS,
    **OBJECT_OPTIONS,
    **CLEAN_OPTIONS,
    **CONTROL_OPTIONS,
    **HOSTCONF_OPTIONS,
    **USAGE_OPTIONS,
    **MONITOR_OPTIONS,
    **USER_OPTIONS,
    **SHARETREE_OPTIONS,
}


def option_arguments(opt: str, nargs: int, rest: list[str]) -> list[str]:
    if nargs == -2:  # one argument, then an optional one (-Mrqs fname [rqs_list])
        if not rest:
            raise QconfError(f"error: no option argument provided to \"{opt}\"\n{HELP}")
        return rest[:2] if len(rest) > 1 and not rest[1].startswith("-") else rest[:1]
    if nargs < 0:
        return rest[:1] if rest and not rest[0].startswith("-") else []
    if len(rest) < nargs:
        # 8.1.9's -sobjl names the last argument it got (-sobjl queue slots: "slots")
        named = rest[-1] if rest and opt == "-sobjl" else opt
        raise QconfError(f"error: no option argument provided to \"{named}\"\n{HELP}")
    return rest[:nargs]


def run(argv: list[str], session: Session) -> int:
    if "-fmt" in argv and "-help" not in argv:  # -fmt F anywhere on the line
        from clients.qconf import json_show
        argv, fmt = json_show.take_format(argv)
        if _wants_json(fmt) and argv:
            return json_show.run(argv, session)
    if not argv:
        sys.stderr.write(HELP + NO_OPTION_ARGUMENT + "\n")
        return 1
    if "-help" in argv:  # Grid Engine prints the help for -help anywhere on the line
        sys.stdout.write(HELP_WITH_FMT)
        return 0
    rc, i = 0, 0
    while i < len(argv):
        opt = argv[i]
        if opt not in OPTIONS:
            raise QconfError(INVALID_OPTION.format(opt))
        nargs, handler = OPTIONS[opt]
        args = option_arguments(opt, nargs, argv[i + 1:])
        rc = max(rc, handler(session, *args))
        i += 1 + len(args)
    return rc


def _wants_json(fmt: str | None) -> bool:
    from clients.render.jsondoc import FormatError, check_format
    try:
        return check_format(fmt, xml=False)
    except FormatError as exc:
        raise QconfError(f"error: {exc}\nUsage: qconf -help") from None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # 8.1.9's qconf works on an administrative host only, even to show things
    session = Session(lambda: on_admin_host(connect_or_exit("qconf")))
    try:
        return run(argv, session)
    except QconfError as exc:
        if exc.message:  # empty: what went wrong is printed already
            err(exc.message)
        return exc.code
    except ClientError as exc:
        err(exc.message)
        return 1


if __name__ == "__main__":
    import clients  # (as the launcher, clients/scripts/)
    clients.run(main)
