"""The access decision (common.access): Grid Engine's user_lists/xuser_lists rule, by
example and against a straightforward reference over random cells."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from common.access import list_names, matching_lists, user_allowed
from common.objects_conf.userset import userset_pairs

LISTS = {
    "staff": userset_pairs("staff", "ACL", ["alice", "@wheel"]),
    "students": userset_pairs("students", "DEPT", ["bob"]),
    "empty": userset_pairs("empty"),
}


@pytest.mark.parametrize("user,groups,user_lists,xuser_lists,allowed", [
    ("alice", ["users"], "NONE", "NONE", True),
    ("nobody", [], "none", "NONE", True),
    ("alice", ["users"], "staff", "NONE", True),
    ("carol", ["wheel"], "staff", "NONE", True),        # by her group
    ("carol", ["users"], "staff", "NONE", False),        # in no list of user_lists
    ("bob", ["users"], "staff students", "NONE", True),  # a department is a list too
    ("bob", ["users"], "staff,students", "students", False),  # xuser_lists wins
    ("alice", ["users"], "NONE", "staff", False),
    ("carol", ["wheel"], "NONE", "staff", False),
    ("alice", ["users"], "gone", "NONE", False),        # an unknown list holds nobody
    ("alice", ["users"], "NONE", "gone", True),
    ("alice", ["users"], "empty", "NONE", False),
    ("wheel", ["users"], "staff", "NONE", False),       # "@wheel" is a group, not a user
])
def test_examples(user: str, groups: list[str], user_lists: str, xuser_lists: str,
                  allowed: bool) -> None:
    assert user_allowed(user, groups, user_lists, xuser_lists, LISTS) is allowed


def test_matching_lists() -> None:
    assert matching_lists("carol", ["wheel"], "students,staff,gone", LISTS) == ["staff"]
    assert list_names("NONE") == [] and list_names("a, b c") == ["a", "b", "c"]


# ---- random cells against a reference ---------------------------------------------
_USERS = ["u1", "u2", "u3"]
_GROUPS = ["g1", "g2"]
_LIST_NAMES = ["l1", "l2", "l3", "l4"]  # l4 never exists

_entries = st.lists(st.sampled_from(_USERS + [f"@{g}" for g in _GROUPS]), unique=True)
_cells = st.dictionaries(st.sampled_from(_LIST_NAMES[:3]), _entries)
_refs = st.lists(st.sampled_from(_LIST_NAMES), max_size=3).map(lambda n: ",".join(n) or "NONE")


def reference(user: str, groups: list[str], user_lists: str, xuser_lists: str,
              cell: dict[str, list[str]]) -> bool:
    """queue_conf(5) read literally: members of a list are its users and @groups."""
    def members(value: str) -> set[str]:
        names = [] if value == "NONE" else value.split(",")
        return {entry for name in names for entry in cell.get(name, [])}

    me = {user} | {f"@{g}" for g in groups}
    if me & members(xuser_lists):
        return False
    return user_lists == "NONE" or bool(me & members(user_lists))


@given(st.sampled_from(_USERS), st.lists(st.sampled_from(_GROUPS), unique=True),
       _refs, _refs, _cells)
def test_against_reference(user: str, groups: list[str], user_lists: str, xuser_lists: str,
                           cell: dict[str, list[str]]) -> None:
    usersets = {name: userset_pairs(name, "ACL", entries) for name, entries in cell.items()}
    assert user_allowed(user, groups, user_lists, xuser_lists, usersets) is \
        reference(user, groups, user_lists, xuser_lists, cell)
