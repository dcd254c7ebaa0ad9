"""``qconf``: show and change the cell's configuration, with Grid Engine's options.

Each option is one entry of ``OPTIONS``: how many arguments it takes and the function that
carries it out. Objects are parsed and checked here (``clients.qconf_files``) and again by
the qmaster, which alone decides and words the confirmation. Streams and exit codes follow
Grid Engine 8.1.9: listings and objects go to stdout; confirmations (``root@vm added "x"
to cluster queue list``) go to stderr with exit status 0; refusals go to stderr with 1.
"""
from __future__ import annotations

import ipaddress
import os
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from typing import Callable

from clients.api import Client, ClientError, connect_or_exit
from clients.qconf_files import (
    FileError, parse_edited_complexes, parse_object_text, read_complex_file, read_object_file,
)
from clients.joblist import NO_OPTION_ARGUMENT
from clients.qconf_attr import (
    ADD, DELETE, MODIFY, PURGE, REPLACE, AttrError, Request, change_object, missing_object,
    split_object_id, store_kind,
)
from clients.qconf_help import HELP
from common.conffile import ConfError
from common.objects_conf import render_configuration, render_object, template
from common.objects_conf_host import check_hostgroup_name
from common.resource.complexes import (
    COMPLEX_KIND, COMPLEX_OBJECT, ComplexAttr, ComplexError, complexes_from_rows,
    render_complex_list, rows_of,
)

# store kind -> objects_conf kind
KINDS = {"queue": "queue", "hgrp": "hostgroup", "exechost": "exechost", "pe": "pe",
         "conf": "conf", "sconf": "sched"}
KEYS = {"queue": "qname", "hgrp": "group_name", "exechost": "hostname", "pe": "pe_name"}
EMPTY_LIST = {"queue": "no cqueue list defined", "hgrp": "no host group list defined",
              "exechost": "no execution host defined", "pe": "no parallel environment defined",
              "manager": "no manager defined", "operator": "no operator defined"}
MISSING = {"queue": "No cluster queue or queue instance matches the phrase \"{}\"",
           "hgrp": "Host group \"{}\" does not exist",
           "exechost": "{} is not an execution host",
           "pe": "{} is not a parallel environment"}
UNRESOLVABLE = "can't resolve hostname \"{}\""
INVALID_OPTION = "error: invalid option argument \"{}\"\nUsage: qconf -help"
EXEC_HOST_ADDED = "added host {} to exec host list"  # -ae words it without user@host


class QconfError(Exception):
    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


@dataclass
class Session:
    client_factory: Callable[[], Client]
    _client: Client | None = None

    @property
    def client(self) -> Client:
        if self._client is None:
            self._client = self.client_factory()
        return self._client

    def objects(self, kind: str) -> dict[str, list[list[str]]]:
        return self.client.conf_get(kind)


def _out(text: str) -> None:
    sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")


def _err(text: str) -> None:
    sys.stderr.write(text.rstrip("\n") + "\n")


def resolvable(host: str) -> bool:
    """Whether ``host`` resolves, as qconf requires of a host it is asked about."""
    try:
        socket.getaddrinfo(host, None)
    except (socket.gaierror, UnicodeError):
        return False
    return True


# ---- show ----------------------------------------------------------------------------
def show_list(kind: str) -> Callable[[Session], int]:
    def run(s: Session) -> int:
        names = s.objects(kind)
        if not names:
            raise QconfError(EMPTY_LIST[kind])
        _out("\n".join(sorted(names)))
        return 0
    return run


def show_object(kind: str) -> Callable[..., int]:
    def run(s: Session, names: str | None = None) -> int:
        if names is None:
            _out(render_object(KINDS[kind], template(KINDS[kind])))
            return 0
        objects = s.objects(kind)
        rc = 0
        for name in names.split(","):
            if name not in objects:
                _err(_missing_text(kind, name))
                rc = 1
                continue
            pairs = objects[name]
            if kind == "exechost":
                pairs = _with_load_values(s, name, pairs)
            _out(render_object(KINDS[kind], pairs))
        return rc
    return run


def _missing_text(kind: str, name: str) -> str:
    if kind == "exechost" and not resolvable(name):
        return UNRESOLVABLE.format(name)
    return MISSING[kind].format(name)


def _with_load_values(s: Session, host: str, pairs: list[list[str]]) -> list[list[str]]:
    runtime = {h["name"]: h for h in s.client.cluster()["hosts"]}.get(host)
    out = [list(p) for p in pairs]
    load = (runtime or {}).get("load") or {}
    values = ",".join(f"{k}={v}" for k, v in load.items()) or "NONE"
    out.insert(3, ["load_values", values])
    out.insert(4, ["processors", str(load.get("num_proc", "0")).split(".")[0]])
    return out


def show_conf(s: Session, names: str = "global") -> int:
    objects = s.objects("conf")
    rc = 0
    for name in names.split(","):
        if name not in objects:
            _err(f"configuration {name} not defined")
            rc = 1
            continue
        _out(render_configuration(name, objects[name]))
    return rc


def show_sconf(s: Session) -> int:
    _out(render_object("sched", s.objects("sconf")["global"]))
    return 0


def show_names(kind: str) -> Callable[[Session], int]:
    def run(s: Session) -> int:
        names = s.objects(kind)
        if not names:
            raise QconfError(EMPTY_LIST[kind])
        _out("\n".join(names))
        return 0
    return run


def show_hosts(s: Session) -> int:
    """Admin and submit hosts: the hosts whose execd registered and the qmaster's host
    (hosts that are only configured, as host group members are, are not among them)."""
    names = {h["name"] for h in s.client.cluster()["hosts"]} | {qmaster_host_name(s.client.host)}
    _out("\n".join(sorted(names)))
    return 0


def qmaster_host_name(address: str) -> str:
    """The qmaster's short host name from the address clients reach it at."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address.split(".")[0]
    if ip.is_loopback:
        return socket.gethostname().split(".")[0]
    try:
        return socket.gethostbyaddr(address)[0].split(".")[0]
    except OSError:
        return address


# ---- change --------------------------------------------------------------------------
def _put(s: Session, kind: str, name: str, pairs: list[list[str]] | None, mode: str) -> int:
    """Send one object; the qmaster's confirmation or refusal goes to stderr."""
    try:
        reply = s.client.conf_put(kind, name, pairs, mode)
    except ClientError as err:
        _err(err.message)
        return 1
    _err(reply["message"])
    return 0


def _put_object(s: Session, kind: str, pairs: list[list[str]], mode: str) -> int:
    name = dict((k, v) for k, v in pairs)[KEYS[kind]]
    return _put(s, kind, name, [list(p) for p in pairs], mode)


def _from_file(kind: str, path: str, *, modify: bool = False) -> list[list[str]]:
    try:
        return [list(p) for p in read_object_file(KINDS[kind], path, modify=modify)]
    except FileError as err:
        raise QconfError("\n".join(err.lines)) from None


def _from_editor(kind: str, text: str) -> list[list[str]]:
    path = "<editor>"
    try:
        return [list(p) for p in parse_object_text(KINDS[kind], edit_text(text), path)]
    except FileError as err:
        raise QconfError("\n".join(err.lines)) from None


def add_from_file(kind: str) -> Callable[[Session, str], int]:
    return lambda s, path: _put_object(s, kind, _from_file(kind, path), "add")


def modify_from_file(kind: str) -> Callable[[Session, str], int]:
    return lambda s, path: _put_object(s, kind, _from_file(kind, path, modify=True), "modify")


def add_in_editor(kind: str) -> Callable[[Session, str], int]:
    def run(s: Session, name: str) -> int:
        if kind == "hgrp":
            _check_group_name(name)
        text = render_object(KINDS[kind], template(KINDS[kind], name))
        return _put_object(s, kind, _from_editor(kind, text), "add")
    return run


def _check_group_name(name: str) -> None:
    try:
        check_hostgroup_name("group_name", name)
    except ConfError as err:
        raise QconfError(err.message) from None


def add_exechost_in_editor(s: Session, template_host: str | None = None) -> int:
    """``-ae [template]``: a new exec host from the defaults or another host's values."""
    pairs = template("exechost")
    if template_host is not None:
        objects = s.objects("exechost")
        if template_host not in objects:
            raise QconfError(_missing_text("exechost", template_host))
        pairs = objects[template_host]
    edited = _from_editor("exechost", render_object("exechost", pairs))
    name = dict((k, v) for k, v in edited)["hostname"]
    try:
        s.client.conf_put("exechost", name, edited, "add")
    except ClientError as err:
        raise QconfError(err.message) from None
    _err(EXEC_HOST_ADDED.format(name))
    return 0


def modify_in_editor(kind: str) -> Callable[[Session, str], int]:
    def run(s: Session, name: str) -> int:
        objects = s.objects(kind)
        if name not in objects:
            raise QconfError(_missing_text(kind, name))
        text = render_object(KINDS[kind], objects[name])
        return _put_object(s, kind, _from_editor(kind, text), "modify")
    return run


def modify_conf_from_files(s: Session, paths: str) -> int:
    """``-Mconf file_list``: each file's name is the configuration it replaces."""
    rc = 0
    for path in paths.split(","):
        pairs = _from_file("conf", path)
        rc = max(rc, _put(s, "conf", os.path.basename(path), pairs, "modify"))
    return rc


def modify_conf_in_editor(s: Session, names: str = "global") -> int:
    objects = s.objects("conf")
    rc = 0
    for name in names.split(","):
        if name not in objects:
            _err(f"configuration {name} not defined")
            rc = 1
            continue
        pairs = _from_editor("conf", render_configuration(name, objects[name]))
        rc = max(rc, _put(s, "conf", name, pairs, "modify"))
    return rc


def modify_sconf_from_file(s: Session, path: str) -> int:
    return _put(s, "sconf", "global", _from_file("sconf", path), "modify")


def modify_sconf_in_editor(s: Session) -> int:
    text = render_object("sched", s.objects("sconf")["global"])
    return _put(s, "sconf", "global", _from_editor("sconf", text), "modify")


def _complexes(s: Session) -> list[ComplexAttr]:
    try:
        return complexes_from_rows(s.objects(COMPLEX_KIND).get(COMPLEX_OBJECT) or [])
    except ComplexError as err:
        raise QconfError(str(err)) from None


def show_complexes(s: Session) -> int:
    """``-sc``: the cell's complex attributes as a table on stdout."""
    _out(render_complex_list(_complexes(s)))
    return 0


def _put_complexes(s: Session, attrs: list[ComplexAttr]) -> int:
    """The whole list to the qmaster, which answers one line per change."""
    return _put(s, COMPLEX_KIND, COMPLEX_OBJECT, rows_of(attrs), "modify")


def modify_complexes_from_file(s: Session, path: str) -> int:
    try:
        attrs = read_complex_file(path)
    except FileError as err:
        raise QconfError("\n".join(err.lines)) from None
    return _put_complexes(s, attrs)


def modify_complexes_in_editor(s: Session) -> int:
    """``-mc``: like Grid Engine, a non-manager is turned away before the editor opens."""
    user = s.client.user.name
    if user not in s.objects("manager"):
        raise QconfError(f'denied: "{user}" must be manager for this operation')
    try:
        attrs = parse_edited_complexes(edit_text(render_complex_list(_complexes(s))))
    except FileError as err:
        raise QconfError("\n".join(err.lines)) from None
    return _put_complexes(s, attrs)


def add_name(kind: str) -> Callable[[Session, str], int]:
    def run(s: Session, names: str) -> int:
        return max(_put(s, kind, name, None, "add") for name in names.split(","))
    return run


def delete(kind: str) -> Callable[[Session, str], int]:
    def run(s: Session, names: str) -> int:
        return max(_delete_one(s, kind, name) for name in names.split(","))
    return run


def _delete_one(s: Session, kind: str, name: str) -> int:
    try:
        reply = s.client.conf_del(kind, name)
    except ClientError as err:
        unknown_host = kind == "exechost" and err.code == "missing" and not resolvable(name)
        _err(UNRESOLVABLE.format(name) if unknown_host else err.message)
        return 1
    _err(reply["message"])
    return 0


def change_attribute(option: str) -> Callable[..., int]:
    """``-aattr/-mattr/-dattr/-rattr obj_nm attr_nm val obj_id_list``: each object is
    changed here and sent whole, so the qmaster checks it as for ``-Mq``."""
    def run(s: Session, obj_nm: str, attr: str, value: str, ids: str) -> int:
        return _change_each(s, obj_nm, Request(option, attr, value), ids)
    return run


def purge_attribute(s: Session, obj_nm: str, attr: str, ids: str) -> int:
    """``-purge queue attr_nm q@host``: drop a queue's host-specific value."""
    return _change_each(s, obj_nm, Request(PURGE, attr), ids)


def _change_each(s: Session, obj_nm: str, req: Request, ids: str) -> int:
    try:
        kind = store_kind(obj_nm)
    except AttrError as err:
        raise QconfError(err.message) from None
    objects = s.objects(kind)
    return max(_change_one(s, obj_nm, kind, objects, req, obj_id) for obj_id in ids.split(","))


def _change_one(s: Session, obj_nm: str, kind: str, objects: dict[str, list[list[str]]],
                req: Request, obj_id: str) -> int:
    name, _ = split_object_id(obj_nm, obj_id)
    if name not in objects:
        _err(missing_object(obj_nm, name))
        return 1
    try:
        result = change_object(obj_nm, objects[name], req, obj_id)
    except AttrError as err:
        _err(err.message)
        return 1
    for note in result.notes:
        _err(note)
    if not result.applied:
        return 0
    rc = _put(s, kind, name, result.pairs, "modify")
    if rc == 0:  # the next id may name the same queue (all.q@a,all.q@b)
        objects[name] = result.pairs
    return rc


def edit_text(text: str) -> str:
    """Let the user change ``text`` in ``$EDITOR`` (default vi), as qconf does."""
    editor = os.environ.get("EDITOR") or "vi"
    with tempfile.NamedTemporaryFile("w", suffix=".qconf", delete=False) as fh:
        fh.write(text)
        path = fh.name
    try:
        if subprocess.call(f"{editor} {path}", shell=True) != 0:
            raise QconfError("error: the editor exited with an error")
        with open(path) as fh:
            return fh.read()
    finally:
        os.unlink(path)


# option -> (number of arguments, handler); -1: one optional argument
OPTIONS: dict[str, tuple[int, Callable[..., int]]] = {
    "-sql": (0, show_list("queue")), "-sq": (-1, show_object("queue")),
    "-aq": (1, add_in_editor("queue")), "-Aq": (1, add_from_file("queue")),
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
    "-sh": (0, show_hosts), "-ss": (0, show_hosts),
    "-sconf": (-1, show_conf), "-mconf": (-1, modify_conf_in_editor),
    "-Mconf": (1, modify_conf_from_files),
    "-ssconf": (0, show_sconf), "-msconf": (0, modify_sconf_in_editor),
    "-Msconf": (1, modify_sconf_from_file),
    # 8.1.9 has no -ac/-Ac/-dc (only a debug build's -ace/-dce): attributes are added
    # and deleted by changing the whole list
    "-sc": (0, show_complexes), "-mc": (0, modify_complexes_in_editor),
    "-Mc": (1, modify_complexes_from_file),
    "-aattr": (4, change_attribute(ADD)), "-mattr": (4, change_attribute(MODIFY)),
    "-dattr": (4, change_attribute(DELETE)), "-rattr": (4, change_attribute(REPLACE)),
    "-purge": (3, purge_attribute),
}


def _arguments(opt: str, nargs: int, rest: list[str]) -> list[str]:
    if nargs < 0:
        return rest[:1] if rest and not rest[0].startswith("-") else []
    if len(rest) < nargs:
        raise QconfError(f"error: no option argument provided to \"{opt}\"\n{HELP}")
    return rest[:nargs]


def run(argv: list[str], session: Session) -> int:
    if not argv:
        sys.stderr.write(HELP + NO_OPTION_ARGUMENT + "\n")
        return 1
    if "-help" in argv:  # Grid Engine prints the help for -help anywhere on the line
        sys.stdout.write(HELP)
        return 0
    rc, i = 0, 0
    while i < len(argv):
        opt = argv[i]
        if opt not in OPTIONS:
            raise QconfError(INVALID_OPTION.format(opt))
        nargs, handler = OPTIONS[opt]
        args = _arguments(opt, nargs, argv[i + 1:])
        rc = max(rc, handler(session, *args))
        i += 1 + len(args)
    return rc


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    session = Session(lambda: connect_or_exit("qconf"))
    try:
        return run(argv, session)
    except QconfError as err:
        _err(err.message)
        return err.code
    except ClientError as err:
        _err(err.message)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
