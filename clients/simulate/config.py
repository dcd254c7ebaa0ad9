"""The configuration a simulation replays: the cell's own (read from its spool, as the
qmaster loads it) or a new cell's, with changes (a scheduler configuration file, single
``sched_conf`` parameters, a share tree, projects, simulated hosts).

``SimConfig`` holds what the pass and the policy take: the objects by kind (the form
the scheduler's mirror keeps), the exec hosts, the typed policy parameters, the share
tree, the users', projects' and departments' shares and override tickets and the
resource urgencies. Files are checked by the parsers ``qconf`` uses and refused with
their messages (``ConfigError``).
"""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from common.cluster import attr
from common.model import CONF_KINDS
from common.policy.conf import PolicyConf
from common.policy.model import Entities, Entity, ResourceUrgency, ShareNode
from common.policy.inputs import entities, policy_conf, resource_urgencies

Conf = dict[str, dict[str, Any]]
SIM_HOST = "sim{:04d}"  # the names of simulated exec hosts


class ConfigError(ValueError):
    """A configuration the simulation cannot use; the message says why."""


@dataclass(frozen=True)
class SimConfig:
    conf: Conf
    hosts: Mapping[str, Mapping[str, Any]]
    policy: PolicyConf
    tree: tuple[ShareNode, ...] = ()
    entities: Entities = field(default_factory=Entities)
    urgencies: Mapping[str, ResourceUrgency] = field(default_factory=dict)

    @property
    def sched_pairs(self) -> list[list[str]]:
        return list((self.conf.get("sconf") or {}).get("global") or [])

    def with_sched(self, changes: Mapping[str, str]) -> "SimConfig":
        """The same configuration with ``sched_conf`` parameters changed (each value
        checked as ``qconf -msconf`` checks it)."""
        from common.conffile import ConfError
        from common.objects_conf import check_value
        pairs = self.sched_pairs
        known = {name for name, _ in pairs}
        checked: dict[str, str] = {}
        for name, value in changes.items():
            if name not in known:
                raise ConfigError(f'unknown scheduler configuration parameter "{name}"')
            try:
                checked[name] = check_value("sched", name, value)
            except ConfError as err:
                raise ConfigError(f"{name}: {err.message}") from None
        return self.with_sched_pairs([[n, checked.get(n, v)] for n, v in pairs])

    def with_sched_pairs(self, pairs: Sequence[Sequence[str]]) -> "SimConfig":
        conf = dict(self.conf)
        conf["sconf"] = {"global": [list(p) for p in pairs]}
        return replace(self, conf=conf, policy=policy_conf(conf))


# ---- where the objects come from ---------------------------------------------------------

def new_cell(hosts: int, slots: int) -> SimConfig:
    """A freshly installed cell's objects (the qmaster's bootstrap: all.q, the PEs make,
    smp and mpi, the default complexes and scheduler configuration) with ``hosts``
    exec hosts of ``slots`` slots."""
    from qmaster.defaults import bootstrap
    from qmaster.store import Batch, Store
    store = Store()
    bootstrap(store, Batch(), ["root"], None)
    conf = {kind: dict(store.conf.get(kind) or {}) for kind in CONF_KINDS}
    return from_objects(_with_sim_hosts(conf, hosts, slots), {})


def cell_config(root: Path, cell: str = "default") -> SimConfig:
    """The objects of the cell at ``root``, read from its qmaster spool (read-only; the
    qmaster may be running). Its exec hosts are taken as up, their last load values
    kept."""
    from common.cell import Cell
    path = Cell(root, cell).qmaster_spool_dir / "spool.db"
    if not path.exists():
        raise ConfigError(f"{path}: no qmaster spool (is {root} a cell's root?)")
    objects = read_spool(path)
    conf = {kind: dict(objects.get(kind) or {}) for kind in CONF_KINDS}
    for kind in ("user", "sharetree"):  # kinds stored by newer qmasters
        if objects.get(kind):
            conf[kind] = dict(objects[kind])
    hosts = {name: {"alive": True, "load": dict((data or {}).get("load") or {})}
             for name, data in (objects.get("host") or {}).items() if name != "global"}
    return from_objects(conf, hosts)


def read_spool(path: Path) -> dict[str, dict[str, Any]]:
    import msgpack
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            rows = db.execute("SELECT kind, key, data FROM objects").fetchall()
        finally:
            db.close()
    except sqlite3.Error as err:
        raise ConfigError(f"{path}: {err}") from None
    out: dict[str, dict[str, Any]] = {}
    for kind, key, data in rows:
        if kind in ("job", "task", "ranges", "held", "acct"):
            continue  # the jobs are the workload's, not the configuration's
        out.setdefault(kind, {})[key] = msgpack.unpackb(data, raw=False,
                                                        strict_map_key=False)
    return out


def with_hosts(config: SimConfig, hosts: int, slots: int) -> SimConfig:
    """The configuration on ``hosts`` simulated exec hosts of ``slots`` slots: every
    queue on the host group @allhosts, which holds them."""
    conf = _with_sim_hosts({k: dict(v) for k, v in config.conf.items()}, hosts, slots)
    return replace(config, conf=conf, hosts=_sim_hosts(hosts))


def _with_sim_hosts(conf: Conf, hosts: int, slots: int) -> Conf:
    if hosts < 1 or slots < 1:
        raise ConfigError("--hosts and --slots must be at least 1")
    names = list(_sim_hosts(hosts))
    conf["hgrp"] = {**conf.get("hgrp", {}), "@allhosts": [
        ["group_name", "@allhosts"], ["hostlist", " ".join(names)]]}
    conf["queue"] = {name: [[k, _queue_value(k, v, slots)] for k, v in pairs]
                     for name, pairs in (conf.get("queue") or {}).items()}
    conf["exechost"] = {"global": (conf.get("exechost") or {}).get(
        "global", [["hostname", "global"]])}
    conf["_hosts"] = {"sim": names}  # read by from_objects only
    return conf


def _queue_value(name: str, value: str, slots: int) -> str:
    if name == "hostlist":
        return "@allhosts"
    if name == "slots":
        return str(slots)
    return value


def _sim_hosts(n: int) -> dict[str, dict[str, Any]]:
    return {SIM_HOST.format(i): {"alive": True, "load": {}} for i in range(1, n + 1)}


def from_objects(conf: Conf, hosts: Mapping[str, Mapping[str, Any]]) -> SimConfig:
    sim = conf.pop("_hosts", None)
    if sim is not None:
        hosts = _sim_hosts(len(sim["sim"]))
    for kind in CONF_KINDS:
        conf.setdefault(kind, {})
    return SimConfig(conf=conf, hosts=dict(hosts), policy=policy_conf(conf),
                     tree=stored_tree(conf), entities=entities(conf),
                     urgencies=resource_urgencies(conf))


# ---- what the policy reads of the objects ------------------------------------------------

def _count(text: str) -> int:
    try:
        return max(0, int(float(text)))
    except ValueError:
        return 0


def stored_tree(conf: Conf, projects: Iterable[str] = ()) -> tuple[ShareNode, ...]:
    """The cell's share tree (conf kind ``sharetree``), its project nodes known by the
    cell's and the workload's project names."""
    from common.objects_conf.sharetree import KIND, SHARETREE, share_nodes
    stored = (conf.get(KIND) or {}).get(SHARETREE)
    return share_nodes(stored, {*(conf.get("project") or {}), *projects})


def with_projects(config: SimConfig, files: Iterable[str]) -> SimConfig:
    """Projects added or replaced from project(5) files (``qconf -Aprj`` format)."""
    from clients.qconf.files import FileError, read_object_file
    projects = dict(config.conf.get("project") or {})
    for path in files:
        try:
            pairs = read_object_file("project", path)
        except FileError as err:
            raise ConfigError("\n".join(err.lines)) from None
        projects[attr(pairs, "name")] = [list(p) for p in pairs]
    conf = {**config.conf, "project": projects}
    return replace(config, conf=conf, entities=entities(conf), tree=stored_tree(conf))


def with_tree(config: SimConfig, tree: Sequence[ShareNode]) -> SimConfig:
    return replace(config, tree=tuple(tree))


def with_entities(config: SimConfig, *, projects: Mapping[str, Entity] | None = None,
                  departments: Mapping[str, Entity] | None = None) -> SimConfig:
    """Projects' and departments' shares and override tickets given directly (tests;
    ``--project`` files go through ``with_projects``)."""
    ent = config.entities
    return replace(config, entities=replace(
        ent, projects={**ent.projects, **(projects or {})},
        departments={**ent.departments, **(departments or {})}))


def with_users(config: SimConfig, users: Mapping[str, Entity]) -> SimConfig:
    """Users' shares and override tickets given directly (tests; ``--user`` files go
    through ``with_user_files``)."""
    merged = {**config.entities.users, **users}
    return replace(config, entities=replace(config.entities, users=merged))


def with_sched_file(config: SimConfig, path: str) -> SimConfig:
    """The scheduler configuration of a file (``qconf -Msconf`` format, checked as
    qconf checks it) instead of the cell's."""
    from clients.qconf.files import FileError, read_object_file
    try:
        pairs = read_object_file("sched", path, modify=True)
    except FileError as err:
        raise ConfigError("\n".join(err.lines)) from None
    return config.with_sched_pairs(pairs)


def with_tree_file(config: SimConfig, path: str, projects: Iterable[str] = ()
                   ) -> SimConfig:
    """The share tree of a file (share_tree(5), ``qconf -Astree`` format) instead of the
    cell's; its project nodes known by the cell's and the workload's (``projects``)
    project names. Checked as 8.1.9's qmaster checks a tree, with every user name
    taken as known (a simulated workload's users need no user objects)."""
    from common.conffile import ConfError
    from common.objects_conf.sharetree import parse_sharetree, sharetree_problem, tree_pairs
    try:
        text = Path(path).read_text()
        root = parse_sharetree(text)
    except OSError as err:
        raise ConfigError(f"{path}: {err.strerror}") from None
    except ConfError as err:
        raise ConfigError(f"{path}: {err.message}") from None
    if root is None:
        raise ConfigError(f"{path}: no share tree node")
    known = {*(config.conf.get("project") or {}), *projects}
    users = {n.name for n in root.walk() if not n.children and n.name not in known}
    problem = sharetree_problem(root, users, known)
    if problem is not None:
        raise ConfigError(f"{path}: {problem}")
    conf = {**config.conf, "sharetree": {"sharetree": tree_pairs(root)}}
    return replace(config, conf=conf, tree=stored_tree(conf, projects))


def with_user_files(config: SimConfig, files: Iterable[str]) -> SimConfig:
    """Users added or replaced from user(5) files (``qconf -Auser`` format)."""
    from clients.qconf.files import FileError, read_object_file
    users = dict(config.conf.get("user") or {})
    for path in files:
        try:
            pairs = read_object_file("user", path)
        except FileError as err:
            raise ConfigError("\n".join(err.lines)) from None
        users[attr(pairs, "name")] = [list(p) for p in pairs]
    conf = {**config.conf, "user": users}
    return replace(config, conf=conf, entities=entities(conf))


def with_auto_users(config: SimConfig, owners: Iterable[str]) -> SimConfig:
    """The user objects the qmaster would have made for the workload's owners: with
    sge_conf(5) ``enforce_user auto`` (a new cell's) each owner without one gets one at
    its first submission, with ``auto_user_fshare`` and ``auto_user_oticket``; the
    ticket policies count only users that have an object. Owners that have one keep
    theirs."""
    glob = (config.conf.get("conf") or {}).get("global") or []
    if attr(glob, "enforce_user", "auto").strip().lower() != "auto":
        return config
    auto = Entity(fshare=_count(attr(glob, "auto_user_fshare", "0")),
                  oticket=_count(attr(glob, "auto_user_oticket", "0")))
    missing = {o: auto for o in owners if o not in config.entities.users}
    return with_users(config, missing) if missing else config
