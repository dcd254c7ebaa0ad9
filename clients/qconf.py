"""``qconf``: show and change the cell's configuration, with Grid Engine's options.

Each option is one entry of ``OPTIONS``: how many arguments it takes and the function that
carries it out. Objects are parsed and checked here (``common.objects_conf``) and again by
the qmaster, which alone decides. Messages and exit codes follow Grid Engine 8.1.9.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from typing import Callable

from clients.api import Client, ClientError, connect_or_exit
from common.conffile import ConfError
from common.objects_conf import (parse_object, render_configuration, render_object, template)

# store kind -> objects_conf kind and the words qconf uses for it
KINDS = {"queue": "queue", "hgrp": "hostgroup", "exechost": "exechost", "pe": "pe"}
EMPTY_LIST = {"queue": "no cqueue list defined", "hgrp": "no host group list defined",
              "exechost": "no execution host defined", "pe": "no parallel environment defined",
              "manager": "no manager list defined", "operator": "no operator list defined"}
MISSING = {"queue": "No cluster queue or queue instance matches the phrase \"{}\"",
           "hgrp": "Host group \"{}\" does not exist",
           "exechost": "\"{}\" is not an execution host",
           "pe": "\"{}\" is not a parallel environment"}


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


# ---- show ----------------------------------------------------------------------------
def show_list(kind: str) -> Callable[[Session], int]:
    def run(s: Session) -> int:
        names = s.objects(kind)
        if not names:
            raise QconfError(EMPTY_LIST[kind])
        _out("\n".join(sorted(names)))
        return 0
    return run


def show_object(kind: str) -> Callable[[Session, str], int]:
    def run(s: Session, names: str) -> int:
        objects = s.objects(kind)
        rc = 0
        for name in names.split(","):
            if name not in objects:
                sys.stderr.write(MISSING[kind].format(name) + "\n")
                rc = 1
                continue
            pairs = objects[name]
            if kind == "exechost":
                pairs = _with_load_values(s, name, pairs)
            _out(render_object(KINDS[kind], pairs))
        return rc
    return run


def _with_load_values(s: Session, host: str, pairs: list[list[str]]) -> list[list[str]]:
    runtime = {h["name"]: h for h in s.client.cluster()["hosts"]}.get(host)
    if not runtime or not runtime.get("load"):
        return pairs
    load = runtime["load"]
    values = ",".join(f"{k}={v}" for k, v in load.items())
    out = [list(p) for p in pairs]
    out.insert(3, ["load_values", values])
    out.insert(4, ["processors", str(load.get("num_proc", "0")).split(".")[0]])
    return out


def show_conf(s: Session, name: str = "global") -> int:
    objects = s.objects("conf")
    if name not in objects:
        raise QconfError(f"configuration {name} not defined")
    _out(render_configuration(name, objects[name]))
    return 0


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
    """Admin and submit hosts: every execution host and the qmaster's host."""
    names = sorted(set(s.objects("exechost")) | {s.client.host})
    _out("\n".join(names))
    return 0


# ---- change --------------------------------------------------------------------------
def _put(s: Session, kind: str, pairs: list[list[str]], mode: str) -> int:
    key = "qname" if kind == "queue" else "group_name" if kind == "hgrp" else \
        "hostname" if kind == "exechost" else "pe_name"
    name = dict((k, v) for k, v in pairs)[key]
    reply = s.client.conf_put(kind, name, [list(p) for p in pairs], mode)
    _out(reply["message"])
    return 0


def _parse_file(kind: str, path: str) -> list[list[str]]:
    try:
        with open(path) as fh:
            text = fh.read()
    except OSError as err:
        raise QconfError(f"error: can't open file \"{path}\": {err.strerror}") from None
    return _parse(kind, text)


def _parse(kind: str, text: str) -> list[list[str]]:
    try:
        return [list(p) for p in parse_object(KINDS[kind], text)]
    except ConfError as err:
        raise QconfError(f"error: {err.message}") from None


def add_from_file(kind: str) -> Callable[[Session, str], int]:
    return lambda s, path: _put(s, kind, _parse_file(kind, path), "add")


def modify_from_file(kind: str) -> Callable[[Session, str], int]:
    return lambda s, path: _put(s, kind, _parse_file(kind, path), "modify")


def add_in_editor(kind: str) -> Callable[[Session, str], int]:
    def run(s: Session, name: str) -> int:
        text = render_object(KINDS[kind], template(KINDS[kind], name))
        return _put(s, kind, _parse(kind, edit_text(text)), "add")
    return run


def modify_in_editor(kind: str) -> Callable[[Session, str], int]:
    def run(s: Session, name: str) -> int:
        objects = s.objects(kind)
        if name not in objects:
            raise QconfError(MISSING[kind].format(name))
        text = render_object(KINDS[kind], objects[name])
        return _put(s, kind, _parse(kind, edit_text(text)), "modify")
    return run


def add_name(kind: str) -> Callable[[Session, str], int]:
    def run(s: Session, names: str) -> int:
        for name in names.split(","):
            _out(s.client.conf_put(kind, name, None, "add")["message"])
        return 0
    return run


def delete(kind: str) -> Callable[[Session, str], int]:
    def run(s: Session, names: str) -> int:
        for name in names.split(","):
            _out(s.client.conf_del(kind, name)["message"])
        return 0
    return run


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


# option -> (number of arguments, handler)
OPTIONS: dict[str, tuple[int, Callable[..., int]]] = {
    "-sql": (0, show_list("queue")), "-sq": (1, show_object("queue")),
    "-aq": (1, add_in_editor("queue")), "-Aq": (1, add_from_file("queue")),
    "-mq": (1, modify_in_editor("queue")), "-Mq": (1, modify_from_file("queue")),
    "-dq": (1, delete("queue")),
    "-sel": (0, show_list("exechost")), "-se": (1, show_object("exechost")),
    "-ae": (1, add_in_editor("exechost")), "-Ae": (1, add_from_file("exechost")),
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
    "-sconf": (0, show_conf), "-ssconf": (0, show_sconf),
}

USAGE = "usage: qconf [options]\n" + "".join(f"   [{opt}{' name' if n else ''}]\n"
                                               for opt, (n, _) in OPTIONS.items())


def run(argv: list[str], session: Session) -> int:
    if not argv or argv[0] in ("-help", "--help"):
        sys.stdout.write(USAGE)
        return 0 if argv else 1
    rc, i = 0, 0
    while i < len(argv):
        opt = argv[i]
        if opt not in OPTIONS:
            raise QconfError(f"error: invalid option argument \"{opt}\"\n" + USAGE)
        nargs, handler = OPTIONS[opt]
        args = argv[i + 1:i + 1 + nargs]
        if opt == "-sconf" and i + 1 < len(argv) and not argv[i + 1].startswith("-"):
            args, nargs = [argv[i + 1]], 1
        if len(args) < nargs:
            raise QconfError(f"error: no option argument provided to \"{opt}\"")
        rc = max(rc, handler(session, *args))
        i += 1 + nargs
    return rc


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    session = Session(lambda: connect_or_exit("qconf"))
    try:
        return run(argv, session)
    except QconfError as err:
        sys.stderr.write(err.message.rstrip("\n") + "\n")
        return err.code
    except ClientError as err:
        sys.stderr.write(err.message + "\n")
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
