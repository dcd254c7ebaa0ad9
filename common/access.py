"""Whether a user may use a queue, exec host, PE or the cluster: ``user_lists`` and
``xuser_lists`` decided against the cell's access lists; and whether a job's project
may: ``projects`` and ``xprojects``. Pure: data in, answer out.

Grid Engine's rule (queue_conf(5), and its scheduler's ``sge_has_access_``):

- a user contained in any list of ``xuser_lists`` is refused, even when a list of
  ``user_lists`` holds it too;
- ``user_lists`` NONE admits everybody not refused; otherwise the user must be contained
  in at least one of its lists;
- a list is searched for the user's name and for each of the user's groups as
  ``@group``, exact strings; a list's ``type`` (ACL, DEPT) does not matter;
- a name in ``user_lists``/``xuser_lists`` that names no list counts as an empty list
  (it admits and refuses nobody). The qmaster refuses such names when they are
  configured, so this happens only when configuration and lists change concurrently.

The values are one host's values: a queue's ``NONE,[host=list]`` must be resolved for
the host first (``common.objects_conf.queue_value``). Which groups to pass is the
caller's choice; access_list(5) says Grid Engine uses only the primary group.
"""
from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from common.conf_values import get, split_names
from common.objects_conf.project import acl_names
from common.objects_conf.userset import entries_of

Usersets = Mapping[str, list[list[str]]]


def list_names(value: str) -> list[str]:
    """The list names of a ``user_lists``/``xuser_lists`` value (NONE: none)."""
    return split_names(value)


def in_userset(user: str, groups: Iterable[str], pairs: list[list[str]]) -> bool:
    """Whether one stored list holds ``user`` or one of ``groups`` as ``@group``."""
    entries = set(entries_of(pairs))
    return user in entries or any(f"@{group}" in entries for group in groups)


def matching_lists(user: str, groups: Iterable[str], value: str, usersets: Usersets
                   ) -> list[str]:
    """The lists named in ``value`` that exist and contain the user, in ``value``'s order."""
    wanted = list(groups)
    return [name for name in list_names(value)
            if name in usersets and in_userset(user, wanted, usersets[name])]


def user_allowed(user: str, groups: Iterable[str], user_lists: str, xuser_lists: str,
                 usersets: Usersets) -> bool:
    """Grid Engine's access decision for one object (see the module text)."""
    wanted = list(groups)
    if matching_lists(user, wanted, xuser_lists, usersets):
        return False
    if not list_names(user_lists):
        return True
    return bool(matching_lists(user, wanted, user_lists, usersets))


def project_allowed(project: str | None, projects: str, xprojects: str) -> bool:
    """Grid Engine's project decision for one object (queue_conf(5), host_conf(5),
    sge_conf(5)): a project named in ``xprojects`` is refused; a non-empty ``projects``
    admits only jobs of a project it names, so a job without a project is refused."""
    if project is not None and project in list_names(xprojects):
        return False
    allowed = list_names(projects)
    return not allowed or (project is not None and project in allowed)


def project_admits_user(user: str, groups: Iterable[str], project: Sequence[Sequence[str]],
                        usersets: Usersets) -> bool:
    """Whether a project's ``acl``/``xacl`` (project(5), lists separated by blanks) let
    ``user`` submit jobs into it: decided as ``user_lists``/``xuser_lists`` are."""
    def as_value(key: str) -> str:
        return ",".join(acl_names(get(project, key, "NONE"))) or "NONE"
    return user_allowed(user, groups, as_value("acl"), as_value("xacl"), usersets)
