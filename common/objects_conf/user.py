"""User objects (user(5)): what the ticket policies know of a user.

Owns the attributes in Grid Engine 8.1.9's order (``name``, ``oticket``, ``fshare``,
``delete_time``, ``default_project``; shown ``name u1`` without a name column, as
qconf -suser prints them), their checks (the project(5) reader's numbers), the qmaster's
refusals of a whole user object in 8.1.9's words (``user_problem``) and the policy's
view of one (``user_entity``). ``delete_time`` is the time (epoch seconds) an
automatically created user object is deleted at (0: never); ``default_project`` the
project a job of the user gets when it is submitted without ``-P``.
"""
from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from common.conf_values import get, no_value
from common.objects_conf.base import Attr, ObjectKind
from common.objects_conf.project import check_project_name, check_u_long32, name_problem

TYPE_CHECKING = False
if TYPE_CHECKING:
    from common.policy.model import Entities, Entity

KIND = "user"
NONE = "NONE"
# the name no user or project may have: the share tree's leaf for everybody else
DEFAULT_NODE = "default"


def check_default_project(name: str, value: str) -> str:
    """A project name or ``NONE`` (whether it exists is the qmaster's to say)."""
    no_value(name, value)
    text = value.strip()
    return NONE if text.upper() == NONE else text


USER = ObjectKind(
    name="user",
    key="name",
    width=0,
    attrs=(
        Attr("name", "template", check_project_name),
        Attr("oticket", "0", check_u_long32),
        Attr("fshare", "0", check_u_long32),
        Attr("delete_time", "0", check_u_long32),
        Attr("default_project", NONE, check_default_project),
    ),
)


def user_pairs(name: str, *, oticket: int = 0, fshare: int = 0, delete_time: int = 0,
               default_project: str | None = None) -> list[list[str]]:
    """A user object as the qmaster stores it (``enforce_user auto`` creates these)."""
    return [["name", name], ["oticket", str(oticket)], ["fshare", str(fshare)],
            ["delete_time", str(delete_time)], ["default_project", default_project or NONE]]


def default_project(pairs: Iterable[Sequence[str]]) -> str | None:
    """The user's ``default_project``, None for ``NONE``."""
    value = get(list(pairs), "default_project", NONE).strip()
    return None if not value or value.upper() == NONE else value


def user_problem(pairs: Iterable[Sequence[str]], *, add: bool, projects: Iterable[str]
                 ) -> str | None:
    """The qmaster's refusal of a user object being added or changed, in 8.1.9's order
    and words (sge_userprj_qmaster.c), or None. A user and a project share one name
    space, and ``default`` is the share tree's."""
    pairs = list(pairs)
    name = get(pairs, "name", "")
    known_projects = set(projects)
    if add:
        if name == DEFAULT_NODE:
            return 'denied: not allowed add a user with name "default"'
        if name in known_projects:
            return ("denied: shared namespace between project and user: there is already "
                    f'a project which is named "{name}"')
        problem = name_problem(name)
        if problem:
            return problem
    project = default_project(pairs)
    if project is not None and project not in known_projects:
        return f'denied: project "{project}" does not exist'
    return None


def entity_of(pairs: Iterable[Sequence[str]]) -> Entity:
    """``fshare`` and ``oticket`` of a stored user, project or department (access list):
    all three keep them under these names."""
    from common.policy.model import Entity  # (the records cost a qconf start ~20 ms)
    pairs = list(pairs)
    return Entity(fshare=int(get(pairs, "fshare", "0") or 0),
                  oticket=int(get(pairs, "oticket", "0") or 0))


def user_entity(pairs: Iterable[Sequence[str]]) -> Entity:
    """A stored user object as the ticket policies see it."""
    return entity_of(pairs)


def user_entities(users: Mapping[str, Iterable[Sequence[str]]]) -> dict[str, Entity]:
    """Every stored user object by name, as ``Entities.users`` takes them."""
    return {name: entity_of(pairs) for name, pairs in users.items()}


def entities(conf: Mapping[str, Mapping[str, Iterable[Sequence[str]]]]) -> Entities:
    """The cell's users, projects and departments (access lists of type DEPT) with
    their ``fshare`` and ``oticket``, from the store's (or mirror's) conf kinds
    ``user``, ``project`` and ``userset``."""
    from common.objects_conf.userset import types_of  # (userset imports queue rules)
    from common.policy.model import Entities
    usersets = conf.get("userset") or {}
    return Entities(
        users=user_entities(conf.get(KIND) or {}),
        projects={name: entity_of(pairs) for name, pairs in (conf.get("project") or {}).items()},
        departments={name: entity_of(pairs) for name, pairs in usersets.items()
                     if "DEPT" in types_of(pairs)})
