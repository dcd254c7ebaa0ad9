"""``qconf -fmt json -s...``: the show options as JSON documents
(``clients.render.jsondoc.qconf``), from the same objects the text options read, with
their messages for names not found on stderr and their exit codes.

``-fmt`` may stand anywhere on the command line (Open Cluster Scheduler 9.2's form); with
``json`` the line must hold exactly one show option of ``JSON_SHOWS`` (one document per
run); any other option (``-aq``, ``-Mq``, ...) is refused: ``-fmt json`` is a show
format here, files given to ``-A``/``-M`` are read in Grid Engine's format only.
"""
from __future__ import annotations

import sys

from clients.qconf.base import EMPTY_LIST, KINDS, MISSING, QconfError, Session

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    Body = tuple[dict[str, Any], list[str]]  # the document's body, the stderr lines

FORMAT_OPTION = "-fmt"


# ---- objects ---------------------------------------------------------------------------
def _named_objects(s: Session, store: str, kind: str, names: list[str],
                   missing: Callable[[str], str],
                   objects: dict[str, list[list[str]]] | None = None,
                   extra: Callable[[str, list[list[str]]], list[list[str]]] | None = None
                   ) -> Body:
    from clients.render.jsondoc.qconf import attributes
    from common.objects_conf import kind_of
    objects = objects if objects is not None else s.objects(store)
    shown, absent, errors = [], [], []
    for name in names:
        if name not in objects:
            absent.append(name)
            errors.append(missing(name))
            continue
        pairs = extra(name, objects[name]) if extra else objects[name]
        shown.append({"name": name, "attributes": attributes(kind_of(kind), pairs)})
    return {"kind": kind, "objects": shown, "missing": absent}, errors


def _split(text: str) -> list[str]:
    return [n for n in text.replace(" ", ",").split(",") if n]


def _objects(store: str, missing: Callable[[str], str]) -> Callable[..., Body]:
    def show(s: Session, names: str) -> Body:
        return _named_objects(s, store, KINDS.get(store, store), _split(names), missing)
    return show


def _queue(s: Session, names: str | None = None) -> Body:
    from clients.render.jsondoc.qconf import attributes
    from common.objects_conf import kind_of, template
    if names is None:  # -sq alone: the template
        return {"kind": "queue", "objects": [{"name": "template", "attributes": attributes(
            kind_of("queue"), template("queue"))}], "missing": []}, []
    return _objects("queue", MISSING["queue"].format)(s, names)


def _exechost(s: Session, names: str) -> Body:
    from clients.qconf.main import missing_text, with_load_values
    return _named_objects(s, "exechost", "exechost", _split(names),
                          lambda n: missing_text("exechost", n),
                          extra=lambda n, pairs: with_load_values(s, n, pairs))


def _sconf(s: Session) -> Body:
    return _named_objects(s, "sconf", "sched", ["global"], "{}".format)


def _conf(s: Session, names: str = "global") -> Body:
    from clients.qconf.hostconf import CANT_RESOLVE, NOT_DEFINED, conf_name
    confs = s.objects("conf")
    body, errors = {"kind": "conf", "objects": [], "missing": []}, []
    for typed_name in _split(names):
        name = conf_name(s, typed_name, confs)
        one, lines = _named_objects(s, "conf", "conf", [name or typed_name],
                                    (CANT_RESOLVE if name is None else NOT_DEFINED).format,
                                    objects=confs if name is not None else {})
        body["objects"] += one["objects"]
        body["missing"] += one["missing"]
        errors += lines
    return body, errors


def _module_objects(module: str) -> Callable[..., Body]:
    def show(s: Session, names: str) -> Body:
        import importlib
        mod = importlib.import_module(f"clients.qconf.{module}")
        return _named_objects(s, mod.KIND, mod.KIND, _split(names), mod.NOT_KNOWN.format)
    return show


def _usersets(s: Session, names: str) -> Body:
    return _objects("userset", MISSING["userset"].format)(s, names)


# ---- lists -----------------------------------------------------------------------------
def _names(store: str, empty: str, *, drop: str | None = None, ordered: bool = True
           ) -> Callable[[Session], Body]:
    def show(s: Session) -> Body:
        names = [n for n in s.objects(store) if n != drop]
        names = sorted(names, key=lambda n: n.encode()) if ordered else names
        return {"kind": store, "names": names}, [] if names else [empty]
    return show


def _module_names(module: str, empty_name: str = "EMPTY") -> Callable[[Session], Body]:
    def show(s: Session) -> Body:
        import importlib
        mod = importlib.import_module(f"clients.qconf.{module}")
        return _names(mod.KIND, getattr(mod, empty_name))(s)
    return show


def _complex_names(s: Session) -> Body:
    from clients.qconf.complex import complexes
    return {"kind": "complex", "names": sorted(a.name for a in complexes(s))}, []


# ---- complexes, quota sets, share tree ---------------------------------------------------
def _complexes(s: Session) -> Body:
    from clients.qconf.complex import complexes
    from clients.render.jsondoc.qconf import complex_entry
    return {"kind": "complex", "complex_entries": [complex_entry(a) for a in complexes(s)]}, []


def _complex_entries(s: Session, names: str) -> Body:
    from clients.qconf.complex import complexes
    from clients.render.jsondoc.qconf import complex_entry
    from common.resource.centry import find_entry
    from common.resource.complexes import ComplexError
    attrs, entries, absent, errors = complexes(s), [], [], []
    for name in _split(names):
        try:
            entries.append(complex_entry(find_entry(attrs, name)))
        except ComplexError as exc:
            absent.append(name)
            errors.append(str(exc))
    return {"kind": "complex", "complex_entries": entries, "missing": absent}, errors


def _rule_sets(s: Session, names: str | None = None) -> Body:
    from clients.qconf.rqs import NO_SETS, stored_rule_sets
    from clients.render.jsondoc.qconf import rule_set
    stored = stored_rule_sets(s)
    wanted = set(_split(names)) if names else None
    chosen = [rs for name, rs in stored.items() if wanted is None or name in wanted]
    return ({"kind": "rqs", "rule_sets": [rule_set(rs) for rs in chosen]},
            [] if chosen else [NO_SETS])


def _sharetree(s: Session) -> Body:
    from clients.qconf.sharetree import NO_ELEMENT, stored_tree
    root = stored_tree(s)

    def node(n: Any) -> dict[str, Any]:
        return {"name": n.name, "type": int(n.type), "shares": int(n.shares),
                "children": [node(c) for c in n.children]}
    return {"kind": "sharetree", "sharetree": None if root is None else node(root)}, \
        [] if root is not None else [NO_ELEMENT]


# ---- across objects (clients.qconf.objects) ---------------------------------------------
def _hostgroup_lines(s: Session, name: str) -> list[tuple[int, str]]:
    from clients.qconf.objects import hgrp_members, hgrp_tree_lines
    return hgrp_tree_lines(name, hgrp_members(s, name), 0, ())


def _hostgroup_tree(s: Session, name: str) -> Body:
    """``-shgrp_tree``: the group with its entries, a group's own entries below it."""
    open_nodes: list[dict[str, Any]] = []  # the last node of each level so far
    root: dict[str, Any] = {}
    for level, entry in _hostgroup_lines(s, name):
        node: dict[str, Any] = {"name": entry, "children": []}
        if level:
            open_nodes[level - 1]["children"].append(node)
        else:
            root = node
        del open_nodes[level:]
        open_nodes.append(node)
    return {"kind": "hgrp", "hostgroup_tree": root}, []


def _hostgroup_hosts(s: Session, name: str) -> Body:
    """``-shgrp_resolved``: every host of the group and of the groups in it, once."""
    lines = _hostgroup_lines(s, name)
    hosts = dict.fromkeys(entry for _, entry in lines[1:] if not entry.startswith("@"))
    return {"kind": "hgrp", "names": list(hosts)}, []


def _matching(s: Session, obj_nm: str, attr: str, pattern: str) -> Body:
    """``-sobjl``: the queues or exec hosts whose attribute matches ``pattern``."""
    from clients.qconf.objects import SEARCHED, fnmatch_case, attr_value
    kind = SEARCHED.get(obj_nm)
    names = [] if kind is None else [
        name for name, pairs in sorted(s.objects(kind).items())
        if (value := attr_value(kind, pairs, attr)) is not None and fnmatch_case(value, pattern)]
    return {"kind": obj_nm, "names": names}, []


# option -> (number of arguments as in clients.qconf.main.OPTIONS, its document)
JSON_SHOWS: dict[str, tuple[int, Callable[..., Body]]] = {
    "-sq": (-1, _queue), "-se": (1, _exechost), "-shgrp": (1, _objects("hgrp", MISSING["hgrp"].format)),
    "-sp": (1, _objects("pe", MISSING["pe"].format)), "-su": (1, _usersets),
    "-ssconf": (0, _sconf), "-sconf": (-1, _conf),
    "-sprj": (1, _module_objects("project")), "-scal": (1, _module_objects("calendar")),
    "-sckpt": (1, _module_objects("ckpt")), "-suser": (1, _module_objects("user")),
    "-sql": (0, _names("queue", EMPTY_LIST["queue"])),
    "-sel": (0, _names("exechost", EMPTY_LIST["exechost"], drop="global")),
    "-shgrpl": (0, _names("hgrp", EMPTY_LIST["hgrp"])),
    "-spl": (0, _names("pe", EMPTY_LIST["pe"])),
    "-sm": (0, _names("manager", EMPTY_LIST["manager"], ordered=False)),
    "-so": (0, _names("operator", EMPTY_LIST["operator"], ordered=False)),
    "-sul": (0, _names("userset", EMPTY_LIST["userset"])),
    "-sh": (0, _names("adminhost", EMPTY_LIST["adminhost"])),
    "-ss": (0, _names("submithost", EMPTY_LIST["submithost"])),
    "-srqsl": (0, _module_names("rqs", "NO_LIST")),
    "-sprjl": (0, _module_names("project")), "-scall": (0, _module_names("calendar")),
    "-sckptl": (0, _module_names("ckpt")), "-suserl": (0, _module_names("user")),
    "-sconfl": (0, _module_names("hostconf", "NO_CONFIG")),
    "-scel": (0, _complex_names), "-sc": (0, _complexes), "-sce": (1, _complex_entries),
    "-srqs": (-1, _rule_sets), "-sstree": (0, _sharetree),
    "-shgrp_tree": (1, _hostgroup_tree), "-shgrp_resolved": (1, _hostgroup_hosts),
    "-sobjl": (3, _matching),
}


def take_format(argv: list[str]) -> tuple[list[str], str | None]:
    """``argv`` without ``-fmt F`` (anywhere; the last wins) and F (None: not given)."""
    rest, value, i = [], None, 0
    while i < len(argv):
        if argv[i] == FORMAT_OPTION:
            if i + 1 >= len(argv) or argv[i + 1].startswith("-"):
                raise QconfError(f'error: no option argument provided to "{FORMAT_OPTION}"')
            value, i = argv[i + 1], i + 2
            continue
        rest.append(argv[i])
        i += 1
    return rest, value


def _arguments(option: str, nargs: int, rest: list[str]) -> list[str]:
    from clients.qconf.main import option_arguments as arguments
    return arguments(option, nargs, rest)


def run(argv: list[str], session: Session) -> int:
    """One show option as a document on stdout; its messages on stderr; 1 when a name
    was not found or the list is empty, as the text option."""
    from clients.render.jsondoc.qconf import render
    if not argv or argv[0] not in JSON_SHOWS:
        shown = argv[0] if argv else "(none)"
        raise QconfError(f'error: option "{shown}" has no JSON form: -fmt json applies to '
                         "one show option (" + ", ".join(sorted(JSON_SHOWS)) + ")")
    option, (nargs, show) = argv[0], JSON_SHOWS[argv[0]]
    args = _arguments(option, nargs, argv[1:])
    if len(argv) > 1 + len(args):
        raise QconfError(f'error: -fmt json shows one option at a time ("{argv[1 + len(args)]}")')
    body, errors = show(session, *args)
    sys.stdout.write(render(option, " ".join(args) if args else None, body))
    for line in errors:
        sys.stderr.write(line.rstrip("\n") + "\n")
    return 1 if errors else 0
