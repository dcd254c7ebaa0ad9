"""The qmaster's project (project(5)) rules: what a project must satisfy, where projects
are referenced, and who may submit into which project.

Texts are Grid Engine 8.1.9's (tests/data/reference/projects/):

- a project's name and lists: ``At ('@') not allowed in objectname``, ``Userset "x" does
  not exist``, ``denied: multiple occurrences of userset "l" in project "p"``;
- a queue naming an unknown project: ``Project "x" does not exist``; an exec host or
  configuration: ``denied: project "x" referenced in projects of exechost "h" does not
  exist``;
- deleting a project a queue, exec host or configuration still names: ``denied: project
  "p" is still referenced in projects of queue "all.q"``. Jobs and resource quota sets
  do not hold a project: 8.1.9 deletes it under them (a job then keeps its project name,
  and a quota rule filtering on it matches jobs of that name, as before);
- a submission (``qsub -P``, ``qalter -P``): ``job rejected: the requested project "x"
  does not exist``, the project's ``acl``/``xacl``, the global configuration's
  ``projects``/``xprojects`` and ``enforce_project`` (``job rejected: no project
  assigned to job``).
"""
from __future__ import annotations

from typing import Any, Mapping

from common.conf_values import get, split_names
from common.access import project_admits_user
from common.objects_conf.project import name_problem, project_problem
from qmaster.context import RequestError
from qmaster.conf.userset import named_lists

KIND = "project"
PROJECT_ATTRS = ("projects", "xprojects")
# store kind -> the object's name in Grid Engine's messages
REFERRING = (("queue", "queue"), ("exechost", "exechost"), ("conf", "configuration"))
Conf = Mapping[str, Mapping[str, list[list[str]]]]


def check_project(conf: Conf, pairs: list[list[str]]) -> None:
    """A project being added or changed: its name and its access lists."""
    problem = project_problem(pairs, conf.get("userset", {}))
    if problem:
        raise RequestError("invalid", problem)


# ---- references ----------------------------------------------------------------------
def check_projects_exist(conf: Conf, kind: str, name: str, pairs: list[list[str]]) -> None:
    """A queue, exec host or configuration may name only existing projects."""
    if kind not in dict(REFERRING):
        return
    known = conf.get(KIND, {})
    for attr in PROJECT_ATTRS:
        for names in named_lists(kind, pairs, attr):
            missing = next((n for n in names if n not in known), None)
            if missing is None:
                continue
            if kind == "queue":
                raise RequestError("invalid", f'Project "{missing}" does not exist')
            raise RequestError("invalid", f'denied: project "{missing}" referenced in {attr} '
                                          f'of {dict(REFERRING)[kind]} "{name}" does not exist')


def check_unreferenced(conf: Conf, name: str) -> None:
    """Refuse deleting a project that a queue, exec host or configuration names."""
    for kind, word in REFERRING:
        for obj, pairs in sorted(conf.get(kind, {}).items()):
            for attr in PROJECT_ATTRS:
                if any(name in names for names in named_lists(kind, pairs, attr)):
                    raise RequestError("referenced", f'denied: project "{name}" is still '
                                                     f'referenced in {attr} of {word} "{obj}"')


# ---- submission ----------------------------------------------------------------------
def check_job_project(conf: Conf, owner: str, group: str, opts: dict[str, Any]) -> None:
    """The job's project (``-P``) against the projects, their access lists (for the
    job's owner, also when a manager changes it) and the global configuration, in
    8.1.9's order and words."""
    project = opts.get("project") or None
    problem = name_problem(project) if project else None
    if problem:
        raise RequestError("rejected", problem)
    global_conf = (conf.get("conf") or {}).get("global") or []
    allowed = split_names(get(global_conf, "projects", "NONE"))
    if project is None:
        if allowed:
            raise RequestError("rejected", "job rejected: no project was supplied and only "
                                           "certain projects are allowed to submit jobs")
        if get(global_conf, "enforce_project", "false").strip().lower() == "true":
            raise RequestError("rejected", "job rejected: no project assigned to job")
        return
    pairs = conf.get(KIND, {}).get(project)
    if pairs is None:
        raise RequestError("rejected", f'job rejected: the requested project "{project}" '
                                       "does not exist")
    if not project_admits_user(owner, [group] if group else [], pairs,
                               conf.get("userset", {})):
        raise RequestError("rejected", f'job rejected: no access to project "{project}" '
                                       f'for user "{owner}"')
    excluded = split_names(get(global_conf, "xprojects", "NONE"))
    if (allowed and project not in allowed) or project in excluded:
        raise RequestError("rejected", f'job rejected: project "{project}" is not allowed '
                                       "to submit jobs")
