"""``qconf`` options for the cluster configuration (sge_conf(5)), global and host-local:
``-sconf -sconfl -aconf -Aconf -mconf -Mconf -dconf``, as Grid Engine 8.1.9's qconf
words and streams them (tests/data/reference/hostconf/, tests/data/reference/load/).

A host-local configuration is named after its host; the name is resolved here (a host
the resolver does not know but the cell has as an execution host counts too: test cells
name hosts that only exist there) and stored under the cell's name for the host when it
has one. What 8.1.9 does, kept here:

- ``-sconf [list]`` (default ``global``): each configuration with its ``#name:`` line and
  an empty line after it, and one more empty line between two of them (also before the
  second when the first failed); ``configuration vm not defined``, and for a name that
  does not resolve ``can't resolve hostname "x": can't resolve host name``; exit status 1
  when one failed;
- ``-sconfl``: the local configurations' names, or ``no config defined`` (status 1);
- ``-aconf [list]``: for a host without one, the editor gets a file holding one empty
  line; ``configuration vm already exists`` before any editor; a file left alone is
  ``configuration unchanged``; an empty line on stdout between two hosts. Without a
  name it means ``global`` (which exists);
- ``-Aconf file_list``: the file's base name names the configuration; a file that
  cannot be read ends with ``error reading configuration from file <path>``;
- ``-mconf [list]`` (default ``global``): the editor gets the configuration without its
  ``#name:`` line; a host without a local configuration gets one (``added``);
- ``-Mconf file_list``: only an existing configuration: ``configuration vm does not
  exist`` is said before the file is read;
- ``-dconf list``: ``Need hostname to delete local configuration`` without one; for a
  host that resolves, the qmaster says ``removed`` even when there was nothing to
  remove; ``global`` is refused with exit status 0, as 8.1.9 does.

Names that do not resolve: 8.1.9's qconf reports them, then its qmaster refuses them
with ``can't resolve hostname "x"``; here qconf prints both lines and sends nothing (the
qmaster does not resolve names).
"""
from __future__ import annotations

import os
import sys

from clients.api import ClientError
from clients.qconf.base import QconfError, Session, edit, err, out, put
from clients.qconf.files import FileError, parse_object_text
from clients.qconf.hosts import canonical_name
from common.objects_conf import render_configuration

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

KIND = "conf"
GLOBAL = "global"
NOT_DEFINED = "configuration {} not defined"
EXISTS = "configuration {} already exists"
DOES_NOT_EXIST = "configuration {} does not exist"
UNCHANGED = "configuration unchanged"
NO_CONFIG = "no config defined"
NEED_HOST = "Need hostname to delete local configuration"
CANT_RESOLVE = "can't resolve hostname \"{}\": can't resolve host name"
QMASTER_CANT_RESOLVE = "can't resolve hostname \"{}\""
CANT_DELETE = "can't delete configuration \"{}\" from list: configuration does not exist"
READING_FILE = "error reading configuration from file {}"
READING_TEMP = "error reading temp file"


# ---- names ---------------------------------------------------------------------------
def _same_host(a: str, b: str) -> bool:
    """Case does not count, and a short name is its FQDN's first label (as the
    qmaster's host lists compare names)."""
    a, b = a.lower().rstrip("."), b.lower().rstrip(".")
    if a == b:
        return True
    if "." in a and "." in b:
        return False
    return a.split(".", 1)[0] == b.split(".", 1)[0]


def _known(name: str, names: list[str]) -> str | None:
    return next((n for n in names if n != GLOBAL and _same_host(name, n)), None)


def conf_name(s: Session, name: str, confs: dict[str, list[list[str]]]) -> str | None:
    """The name ``name``'s configuration has or gets: ``global``, an existing local
    configuration's, the cell's name for the host, the resolver's; None when ``name``
    is no host."""
    if name == GLOBAL:
        return GLOBAL
    existing = _known(name, list(confs))
    if existing is not None:
        return existing
    exechosts = list(s.objects("exechost"))
    resolved = canonical_name(name) if name else None
    if resolved is None:
        return _known(name, exechosts)
    return _known(resolved, exechosts) or _known(name, exechosts) or _short(resolved, name)


def _short(resolved: str, typed: str) -> str:
    """What the resolver calls the host, in the form typed (8.1.9 showed ``-sconf VM``
    as ``#vm:``; a short name stays short)."""
    return resolved if "." in typed else resolved.split(".", 1)[0]


def _editor_text(name: str, confs: dict[str, list[list[str]]]) -> str:
    """What the editor gets: the configuration without its ``#name:`` line, or one
    empty line for a host that has none."""
    if name not in confs:
        return "\n"
    return render_configuration(name, confs[name]).split("\n", 1)[1]


def _parse(text: str, path: str, last_line: str) -> list[list[str]]:
    if not text.strip():  # 8.1.9's reader finds no attribute at all
        raise QconfError(f'error: error reading file: "{path}"\n{last_line}')
    try:
        return [list(p) for p in parse_object_text(KIND, text, path)]
    except FileError as exc:
        raise QconfError("\n".join(exc.lines + [last_line])) from None


def _separate() -> None:
    """The empty line 8.1.9 puts on stdout between two configurations of one list."""
    sys.stdout.write("\n")


def _each(items: list[str], one: Callable[[str], int]) -> int:
    """``one`` for each item of a list option, 8.1.9's empty line between them; the
    worst exit status."""
    rc = 0
    for index, item in enumerate(items):
        if index:
            _separate()
        rc = max(rc, one(item))
    return rc


# ---- show ----------------------------------------------------------------------------
def show(s: Session, names: str = GLOBAL) -> int:
    """``-sconf [host_list|global]``."""
    confs = s.objects(KIND)

    def one(typed: str) -> int:
        name = conf_name(s, typed, confs)
        if name is None:
            err(CANT_RESOLVE.format(typed))
            return 1
        if name not in confs:
            err(NOT_DEFINED.format(name))
            return 1
        out(render_configuration(name, confs[name]))
        return 0
    return _each(names.split(","), one)


def show_list(s: Session) -> int:
    """``-sconfl``."""
    names = sorted(n for n in s.objects(KIND) if n != GLOBAL)
    if not names:
        raise QconfError(NO_CONFIG)
    out("\n".join(names))
    return 0


# ---- add and change ------------------------------------------------------------------
def _edit(name: str, confs: dict[str, list[list[str]]]) -> list[list[str]]:
    saved, written = edit(_editor_text(name, confs))
    if not written:
        raise QconfError(UNCHANGED)
    return _parse(saved, "<editor>", READING_TEMP)


def add_in_editor(s: Session, names: str = GLOBAL) -> int:
    """``-aconf [host_list]``."""
    confs = s.objects(KIND)
    return _each(names.split(","), lambda typed: _add_one(s, typed, confs))


def _add_one(s: Session, typed: str, confs: dict[str, list[list[str]]]) -> int:
    name = conf_name(s, typed, confs)
    if name is None:
        err(CANT_RESOLVE.format(typed))
        return 1
    if name in confs:
        err(EXISTS.format(name))
        return 1
    try:
        pairs = _edit(name, confs)
    except QconfError as exc:
        err(exc.message)
        return exc.code
    return put(s, KIND, name, pairs, "add")


def add_from_files(s: Session, paths: str | None = None) -> int:
    """``-Aconf file_list``; without one it means ``global``, which exists."""
    if paths is None:
        raise QconfError(EXISTS.format(GLOBAL))
    confs = s.objects(KIND)
    return _each(paths.split(","), lambda path: _add_file(s, path, confs))


def _add_file(s: Session, path: str, confs: dict[str, list[list[str]]]) -> int:
    typed = os.path.basename(path)
    name = conf_name(s, typed, confs)
    if name is None:
        err(CANT_RESOLVE.format(path) + "\n" + QMASTER_CANT_RESOLVE.format(typed))
        return 1
    if name in confs:
        err(EXISTS.format(name))
        return 1
    try:
        pairs = _read(path)
    except QconfError as exc:
        err(exc.message)
        return 1
    return put(s, KIND, name, pairs, "add")


def _read(path: str) -> list[list[str]]:
    try:
        with open(path) as fh:
            text = fh.read()
    except OSError as exc:
        raise QconfError(f'error: error opening file "{path}" for reading: {exc.strerror}\n'
                         + READING_FILE.format(path)) from None
    return _parse(text, path, READING_FILE.format(path))


def modify_in_editor(s: Session, names: str = GLOBAL) -> int:
    """``-mconf [host_list|global]``: a host without a local configuration gets one."""
    confs = s.objects(KIND)
    rc = 0
    for typed in names.split(","):
        name = conf_name(s, typed, confs)
        if name is None:
            err(CANT_RESOLVE.format(typed) + "\n" + QMASTER_CANT_RESOLVE.format(typed))
            rc = 1
            continue
        try:
            pairs = _edit(name, confs)
        except QconfError as exc:
            err(exc.message)
            rc = max(rc, exc.code)
            continue
        rc = max(rc, put(s, KIND, name, pairs, "modify" if name in confs else "add"))
    return rc


def modify_from_files(s: Session, paths: str) -> int:
    """``-Mconf file_list``: each file's base name is the configuration it replaces."""
    confs = s.objects(KIND)
    rc = 0
    for path in paths.split(","):
        typed = os.path.basename(path)
        name = conf_name(s, typed, confs)
        if name is None:
            err(CANT_RESOLVE.format(path))
            name = typed
        if name not in confs:
            err(DOES_NOT_EXIST.format(name))
            rc = 1
            continue
        try:
            pairs = _read(path)
        except QconfError as exc:
            err(exc.message)
            rc = 1
            continue
        rc = max(rc, put(s, KIND, name, pairs, "modify"))
    return rc


# ---- delete --------------------------------------------------------------------------
def delete(s: Session, names: str | None = None) -> int:
    """``-dconf host_list``."""
    if names is None:
        raise QconfError(NEED_HOST)
    confs = s.objects(KIND)
    rc = 0
    for typed in names.split(","):
        name = conf_name(s, typed, confs)
        if name is None:
            err(QMASTER_CANT_RESOLVE.format(typed) + "\n" + CANT_DELETE.format(typed))
            rc = 1
            continue
        try:
            reply = s.client.conf_del(KIND, name)
        except ClientError as exc:
            err(exc.message)
            # 8.1.9 refuses to delete "global" with exit status 0
            rc = max(rc, 0 if name == GLOBAL and exc.code == "denied" else 1)
            continue
        err(reply["message"])
    return rc


# option -> (number of arguments, handler); -1: one optional argument
HOSTCONF_OPTIONS: dict[str, tuple[int, Callable[..., int]]] = {
    "-sconf": (-1, show), "-sconfl": (0, show_list),
    "-aconf": (-1, add_in_editor), "-Aconf": (-1, add_from_files),
    "-mconf": (-1, modify_in_editor), "-Mconf": (1, modify_from_files),
    "-dconf": (-1, delete),
}
