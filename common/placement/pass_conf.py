"""What the dispatch pass needs of the cell's configuration besides the resource view:
parallel environments, which queues offer which PE, the members of host groups and who
may use which queue, host and PE (``user_lists``/``xuser_lists`` against the access
lists, ``projects``/``xprojects`` against the job's project, :class:`Access`).

Pure; built once from the configuration objects (``[name, value]`` pairs by kind) by
every user of the pass: the scheduler's mirror, the qmaster's ``qsub -w e/v`` check and
its ``qstat -j`` reasons.
"""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from common.access import list_names, project_allowed, user_allowed
from common.cluster import attr, hostgroups
from common.conffile import ConfError
from common.objects_conf.host import expand_hostgroup
from common.objects_conf.queue import parse_host_overrides, resolve

Pairs = list[list[str]]


@dataclass(frozen=True)
class PEConf:
    """What the pass needs of a parallel environment (sge_pe(5)). job_is_first_task
    is not here: it changes no grant (the execd allows the master queue one extra
    ``qrsh -inherit`` task), only what runs where."""

    name: str
    slots: int | None          # None: no total limit
    rule: str = "$pe_slots"    # "$pe_slots", "$fill_up", "$round_robin" or a number

    @classmethod
    def from_pairs(cls, name: str, pairs: Pairs) -> "PEConf":
        return cls(name, _int(attr(pairs, "slots", "0")),
                   attr(pairs, "allocation_rule", "$pe_slots").strip())


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        return 0


def pe_lists(conf: Mapping[str, Mapping[str, Pairs]]) -> dict[str, set[str]]:
    """Cluster queue -> the PE names of its ``pe_list``; "queue@host" -> those of an
    instance whose ``[host=...]`` or ``[@group=...]`` entry differs (see :func:`pes_at`)."""
    groups = hostgroups(conf)
    offered: dict[str, set[str]] = {}
    for name, pairs in conf["queue"].items():
        text = attr(pairs, "pe_list", "NONE")
        try:
            default, overrides = parse_host_overrides(text)
        except ConfError:  # the qmaster stores only readable values
            default, overrides = text, {}
        offered[name] = _pe_names(default)
        for host in _override_hosts(overrides, groups):
            offered[f"{name}@{host}"] = _pe_names(resolve(text, host, groups))
    return offered


def matching_pes(pattern: str, names: Iterable[str]) -> list[str]:
    """The PE names a ``-pe`` name (a wildcard pattern) matches, in name order."""
    return sorted(name for name in names if fnmatch.fnmatchcase(name, pattern))


def pes_at(pe_of_queue: Mapping[str, set[str]], queue: str, host: str) -> set[str]:
    """The PEs queue instance ``queue@host`` offers."""
    found = pe_of_queue.get(f"{queue}@{host}")
    return found if found is not None else pe_of_queue.get(queue, set())


def _pe_names(value: str) -> set[str]:
    return set(value.replace(",", " ").split()) - {"NONE"}


def _override_hosts(overrides: Mapping[str, str], groups: Mapping[str, list[str]]
                    ) -> set[str]:
    hosts: set[str] = set()
    for key in overrides:
        if key.startswith("@"):
            try:
                hosts |= expand_hostgroup(key, groups)
            except ConfError:
                continue
        else:
            hosts.add(key)
    return hosts


def host_group_members(conf: Mapping[str, Mapping[str, Pairs]]) -> dict[str, frozenset[str]]:
    """``@group`` -> every host in it, nested groups resolved."""
    groups = hostgroups(conf)
    members: dict[str, frozenset[str]] = {}
    for name in groups:
        try:
            members[name] = frozenset(expand_hostgroup(name, groups))
        except ConfError:  # a cycle the qmaster refused to store; nothing is in it
            members[name] = frozenset()
    return members


class Access:
    """Who may use what: a user (with the job's group) is asked about a queue instance
    (the cluster queue's lists resolved for the host, the exec host's and the global
    host's lists) and about a PE. Answers are remembered per user, group and object, and
    resolved queue lists per instance: the pass asks for every candidate instance of
    every category."""

    def __init__(self, conf: Mapping[str, Mapping[str, Pairs]]) -> None:
        self._usersets = conf.get("userset") or {}
        self._groups = hostgroups(conf)
        self._queues = {name: _lists_of(pairs) for name, pairs in conf["queue"].items()}
        self._hosts = {name: _lists_of(pairs) for name, pairs in conf["exechost"].items()}
        self._pes = {name: _lists_of(pairs) for name, pairs in conf["pe"].items()}
        self._queue_projects = {name: _projects_of(pairs)
                                for name, pairs in conf["queue"].items()}
        self._host_projects = {name: _projects_of(pairs)
                               for name, pairs in conf["exechost"].items()}
        self.restricted = any(lists != _OPEN for table in (self._queues, self._hosts,
                                                          self._pes, self._queue_projects,
                                                          self._host_projects)
                              for lists in table.values())
        self._memo: dict[tuple[str | None, ...], bool] = {}
        self._resolved: dict[tuple[str, str, str], tuple[str, str]] = {}

    def job_allowed(self, user: str, group: str, project: str | None, queue: str, host: str
                    ) -> bool:
        """Everything about who submitted the job admits it to ``queue@host``: the
        user's access lists and the job's project."""
        return self.queue_allows(user, group, queue, host) and \
            self.project_allows(project, queue, host)

    def project_allows(self, project: str | None, queue: str, host: str) -> bool:
        """The exec host's, the global host's and the cluster queue's (as resolved for
        ``host``) ``projects``/``xprojects`` admit a job of ``project`` (None: none)."""
        return self.host_project_allows(project, GLOBAL_HOST) and \
            self.host_project_allows(project, host) and \
            self.queue_project_allows(project, queue, host)

    def host_project_allows(self, project: str | None, host: str) -> bool:
        return self._ask_project(("H", project, host), self._host_projects.get(host, _OPEN),
                                 project)

    def queue_project_allows(self, project: str | None, queue: str, host: str) -> bool:
        lists = self._resolve("projects", queue, host, self._queue_projects.get(queue, _OPEN))
        return self._ask_project(("Q", project, queue, host), lists, project)

    def host_excludes(self, project: str | None, host: str) -> bool:
        """Whether the host's ``xprojects`` names ``project`` (explanations only)."""
        return _excluded(project, self._host_projects.get(host, _OPEN))

    def queue_excludes(self, project: str | None, queue: str, host: str) -> bool:
        """Whether the queue's ``xprojects`` on ``host`` names ``project``."""
        lists = self._resolve("projects", queue, host, self._queue_projects.get(queue, _OPEN))
        return _excluded(project, lists)

    def queue_allows(self, user: str, group: str, queue: str, host: str) -> bool:
        return self.host_allows(user, group, host) and \
            self.queue_lists_allow(user, group, queue, host)

    def queue_lists_allow(self, user: str, group: str, queue: str, host: str) -> bool:
        """The cluster queue's own lists, as resolved for ``host``."""
        return self._ask(("q", user, group, queue, host), self._queue_lists(queue, host),
                         user, group)

    def host_allows(self, user: str, group: str, host: str) -> bool:
        """The exec host's lists and, as host_conf(5) says, the global host's."""
        return self._ask(("h", user, group, host), self._hosts.get(host, _OPEN),
                         user, group) and self.global_allows(user, group)

    def global_allows(self, user: str, group: str) -> bool:
        return self._ask(("h", user, group, GLOBAL_HOST),
                         self._hosts.get(GLOBAL_HOST, _OPEN), user, group)

    def pe_allows(self, user: str, group: str, pe: str) -> bool:
        return self._ask(("p", user, group, pe), self._pes.get(pe, _OPEN), user, group)

    def _queue_lists(self, queue: str, host: str) -> tuple[str, str]:
        return self._resolve("users", queue, host, self._queues.get(queue, _OPEN))

    def _resolve(self, what: str, queue: str, host: str, lists: tuple[str, str]
                 ) -> tuple[str, str]:
        """A cluster queue's pair of lists with its ``[host=...]`` values resolved."""
        if lists == _OPEN:
            return _OPEN
        found = self._resolved.get((what, queue, host))
        if found is None:
            try:
                found = (resolve(lists[0], host, self._groups),
                         resolve(lists[1], host, self._groups))
            except ConfError:  # the qmaster stores only readable values
                found = _OPEN
            self._resolved[(what, queue, host)] = found
        return found

    def _ask(self, key: tuple[str, ...], lists: tuple[str, str], user: str, group: str
             ) -> bool:
        if lists == _OPEN:
            return True
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = user_allowed(user, [group] if group else [],
                                                   lists[0], lists[1], self._usersets)
        return found

    def _ask_project(self, key: tuple[str | None, ...], lists: tuple[str, str],
                     project: str | None) -> bool:
        if lists == _OPEN:
            return True
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = project_allowed(project, lists[0], lists[1])
        return found


_OPEN = ("NONE", "NONE")
GLOBAL_HOST = "global"


def _excluded(project: str | None, lists: tuple[str, str]) -> bool:
    """Whether ``project`` is in the ``xprojects`` half of a (projects, xprojects) pair."""
    return project is not None and project in list_names(lists[1])


def _projects_of(pairs: Pairs) -> tuple[str, str]:
    """An object's (projects, xprojects); both NONE as _OPEN, which admits every job."""
    lists = (attr(pairs, "projects", "NONE") or "NONE", attr(pairs, "xprojects", "NONE")
             or "NONE")
    return _OPEN if all(v.strip().upper() == "NONE" for v in lists) else lists


def _lists_of(pairs: Pairs) -> tuple[str, str]:
    lists = (attr(pairs, "user_lists", "NONE") or "NONE", attr(pairs, "xuser_lists", "NONE")
             or "NONE")
    return _OPEN if all(v.strip().upper() == "NONE" for v in lists) else lists


def conf_fields(conf: Mapping[str, Mapping[str, Pairs]]) -> dict[str, Any]:
    """``PassInput`` keyword arguments that come from configuration objects."""
    return {"pe_of_queue": pe_lists(conf),
            "pes": {name: PEConf.from_pairs(name, pairs)
                    for name, pairs in conf["pe"].items()},
            "host_groups": host_group_members(conf), "access": Access(conf)}


def grant_follows_rule(rule: str, granted: Sequence[Sequence[Any]]) -> bool:
    """Whether ``[[queue, host, slots], ...]`` is a spread the allocation rule allows:
    ``$pe_slots`` keeps to one host, an integer N puts exactly N on each host used;
    ``$fill_up`` and ``$round_robin`` allow any spread."""
    per_host: dict[str, int] = {}
    for _, host, slots in granted:
        per_host[str(host)] = per_host.get(str(host), 0) + int(slots)
    if rule == "$pe_slots":
        return len(per_host) == 1
    if rule.isdigit():
        return all(n == int(rule) for n in per_host.values())
    return True
