"""User objects (user(5)), the share tree (share_tree(5)) and departments: the pure
parsers, checks and views of common.objects_conf.user/sharetree/userset."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from common.conffile import ConfError
from common.objects_conf import parse_object, render_object, template
from common.objects_conf.sharetree import (
    TreeNode, chain_path, find_path, parse_sharetree, render_sharetree, render_tree_view,
    share_nodes, sharetree_problem, tree_of, tree_pairs,
)
from common.objects_conf.user import entities, user_entity, user_pairs, user_problem
from common.objects_conf.userset import department_conflict, department_of, userset_pairs
from common.policy.model import Entity, ShareNode

TREE = """id=0
name=Root
type=0
shares=1
childnodes=1,3
id=1
name=P1
type=0
shares=80
childnodes=2
id=2
name=u1
type=0
shares=1
childnodes=NONE
id=3
name=default
type=0
shares=20
childnodes=NONE
"""


# ---- users ---------------------------------------------------------------------------
def test_user_template_and_show_as_8_1_9() -> None:
    assert render_object("user", template("user", "u1")) == (
        "name u1\noticket 0\nfshare 0\ndelete_time 0\ndefault_project NONE\n")


def test_user_file_values_are_checked() -> None:
    text = "name u1\noticket 10\nfshare 0x10\ndelete_time 0\ndefault_project none\n"
    assert dict(parse_object("user", text)) == {
        "name": "u1", "oticket": "10", "fshare": "16", "delete_time": "0",
        "default_project": "NONE"}
    with pytest.raises(ConfError, match='parameter "fshare" must be a positive number'):
        parse_object("user", text.replace("0x10", "-1"))
    with pytest.raises(ConfError, match="required attribute"):
        parse_object("user", "name u1\n")


def test_user_problems_in_8_1_9_words() -> None:
    def pairs(name: str, project: str = "NONE") -> list[list[str]]:
        return user_pairs(name, default_project=project)

    assert user_problem(pairs("default"), add=True, projects=[]) == \
        'denied: not allowed add a user with name "default"'
    assert user_problem(pairs("p1"), add=True, projects=["p1"]) == (
        'denied: shared namespace between project and user: there is already a project '
        'which is named "p1"')
    assert user_problem(pairs("u@x"), add=True, projects=[]) == \
        "At ('@') not allowed in objectname"
    assert user_problem(pairs("u1", "nosuch"), add=False, projects=["p1"]) == \
        'denied: project "nosuch" does not exist'
    assert user_problem(pairs("u1", "p1"), add=True, projects=["p1"]) is None


def test_entities_of_users_projects_and_departments() -> None:
    conf = {"user": {"u1": user_pairs("u1", oticket=5, fshare=7)},
            "project": {"p1": [["name", "p1"], ["oticket", "1"], ["fshare", "2"],
                               ["acl", "NONE"], ["xacl", "NONE"]]},
            "userset": {"d1": [["name", "d1"], ["type", "DEPT"], ["fshare", "3"],
                               ["oticket", "4"], ["entries", "u1"]],
                        "arusers": userset_pairs("arusers")}}
    found = entities(conf)
    assert found.users == {"u1": Entity(fshare=7, oticket=5)}
    assert user_entity(conf["user"]["u1"]) == Entity(fshare=7, oticket=5)
    assert found.projects == {"p1": Entity(fshare=2, oticket=1)}
    assert found.departments == {"d1": Entity(fshare=3, oticket=4)}


# ---- departments ---------------------------------------------------------------------
def test_department_is_the_first_naming_the_user_then_the_group() -> None:
    usersets = {"acl": userset_pairs("acl", "ACL", ["u1"]),
                "d1": userset_pairs("d1", "DEPT", ["@staff"]),
                "d2": userset_pairs("d2", "ACL DEPT", ["u1"])}
    assert department_of("u1", "staff", usersets) == "d2"
    assert department_of("u2", "staff", usersets) == "d1"
    assert department_of("u3", "other", usersets) == "defaultdepartment"


def test_a_user_belongs_to_one_department_only() -> None:
    usersets = {"d1": userset_pairs("d1", "DEPT", ["u1", "@g"])}
    assert department_conflict(userset_pairs("d2", "DEPT", ["u2", "u1"]), usersets) == \
        'denied: user "u1" already belongs to department "d1"'
    assert department_conflict(userset_pairs("d2", "DEPT", ["@g"]), usersets) == \
        'denied: group "g" already belongs to department "d1"'
    assert department_conflict(userset_pairs("d1", "DEPT", ["u1"]), usersets) is None
    assert department_conflict(userset_pairs("a", "ACL", ["u1"]), usersets) is None


# ---- the share tree file -------------------------------------------------------------
def test_file_renumbers_ids_subtree_first() -> None:
    text = TREE.replace("childnodes=1,3", "childnodes=1,7").replace("id=3", "id=7")
    assert render_sharetree(parse_sharetree(text)) == TREE


def test_file_refusals() -> None:
    with pytest.raises(ConfError, match="found reference to node 9 but no specification"):
        parse_sharetree(TREE.replace("childnodes=2", "childnodes=9"))
    with pytest.raises(ConfError, match='unknown attribute name "colour"'):
        parse_sharetree(TREE + "colour=red\n")
    with pytest.raises(ConfError, match="node 1 is a child of more than one node"):
        parse_sharetree(TREE.replace("childnodes=2", "childnodes=1"))
    with pytest.raises(ConfError, match="node 2 is specified twice"):
        parse_sharetree(TREE.replace("id=3", "id=2"))
    with pytest.raises(ConfError, match="error parsing unsigned long"):
        parse_sharetree(TREE.replace("shares=80", "shares=lots"))
    with pytest.raises(ConfError, match='required attribute "shares" is missing'):
        parse_sharetree(TREE.replace("shares=80\n", ""))
    chain = "".join(f"id={i}\nname=n{i}\ntype=0\nshares=1\nchildnodes={i + 1}\n"
                    for i in range(300)) + "id=300\nname=n\ntype=0\nshares=1\nchildnodes=NONE\n"
    with pytest.raises(ConfError, match="share tree deeper than 200 levels"):
        parse_sharetree(chain)


def _names() -> st.SearchStrategy[str]:
    return st.text("abcxyz_0123", min_size=1, max_size=6)


trees = st.recursive(
    st.builds(TreeNode, _names(), st.sampled_from([0, 1]), st.integers(0, 10**6)),
    lambda kids: st.builds(TreeNode, _names(), st.sampled_from([0, 1]),
                           st.integers(0, 10**6), st.lists(kids, max_size=4)),
    max_leaves=25)


@given(trees)
def test_file_round_trip(tree: TreeNode) -> None:
    text = render_sharetree(tree)
    again = parse_sharetree(text)
    assert again == tree
    assert render_sharetree(again) == text
    assert tree_of(tree_pairs(tree)) == tree
    nodes = share_nodes(tree_pairs(tree))
    assert [n.id for n in nodes] == list(range(len(nodes)))
    assert sorted(c for n in nodes for c in n.childnodes) == list(range(1, len(nodes)))


def test_share_nodes_for_the_policy() -> None:
    assert share_nodes(None) == ()
    stored = tree_pairs(parse_sharetree(TREE))
    assert share_nodes(stored, projects=["P1"]) == (
        ShareNode(0, "Root", 0, 1, (1, 3)), ShareNode(1, "P1", 1, 80, (2,)),
        ShareNode(2, "u1", 0, 1, ()), ShareNode(3, "default", 0, 20, ()))
    assert share_nodes(stored)[1].type == 0


# ---- the qmaster's checks ------------------------------------------------------------
def _tree(text: str) -> TreeNode:
    tree = parse_sharetree(text)
    assert tree is not None
    return tree


@pytest.mark.parametrize("users, projects, change, problem", [
    ({"u1"}, {"P1"}, None, None),
    (set(), {"P1"}, None, 'denied: share tree contains reference to unknown user "u1"'),
    ({"u1"}, set(), None, None),
    ({"u1", "P1"}, set(), None, 'found user "P1" in share tree as a non-leaf node'),
    ({"u1"}, {"P1", "u1x"}, ("name=default", "name=ghost"),
     'denied: share tree contains reference to unknown user/project "ghost"'),
    ({"u1"}, {"P1"}, ("name=default", "name=u1"), None),
    ({"u1"}, {"P1"}, ("name=default", "name=P1"),
     'denied: found node "P1" twice under node "Root"'),
    ({"u1"}, {"P1"}, ("name=u1", "name=P1"),
     'found project "P1" in project "P1" sub-tree of share tree'),
])
def test_tree_checks(users: set[str], projects: set[str], change: tuple[str, str] | None,
                     problem: str | None) -> None:
    text = TREE.replace(*change) if change else TREE
    assert sharetree_problem(_tree(text), users, projects) == problem


def test_users_once_per_project_and_outside() -> None:
    twice = TREE.replace("childnodes=2", "childnodes=2,4") + \
        "id=4\nname=u1\ntype=0\nshares=1\nchildnodes=NONE\n"
    assert sharetree_problem(_tree(twice), {"u1"}, {"P1"}) == \
        'denied: found node "u1" twice under node "P1"'
    nested = TREE.replace("name=P1", "name=grp").replace("childnodes=1,3", "childnodes=1,3,4") \
        + "id=4\nname=u1\ntype=0\nshares=1\nchildnodes=NONE\n"
    assert sharetree_problem(_tree(nested), {"u1"}, set()) == \
        'found user "u1" twice in share tree'


def test_project_leaf_gets_type_1() -> None:
    tree = _tree(TREE.replace("name=default", "name=P2"))
    assert sharetree_problem(tree, {"u1"}, {"P1", "P2"}) is None
    assert tree.children[1].type == 1 and tree.children[0].type == 0


# ---- node paths ----------------------------------------------------------------------
@pytest.mark.parametrize("path, found", [
    ("/P1/u1", "/P1/u1"), ("P1.u1", "/P1/u1"), ("u1", "/P1/u1"), (".u1", "/P1/u1"),
    ("/u1", None), ("/P1", "/P1"), ("/*/u1", "/P1/u1"), ("/default", "/default"),
    ("/P1/nosuch", None),
])
def test_node_paths(path: str, found: str | None) -> None:
    chain = find_path(_tree(TREE), path)
    assert (chain_path(chain) if chain is not None else None) == found


def test_tree_view() -> None:
    assert render_tree_view(_tree(TREE)) == "Root=1\n   P1=80\n      u1=1\n   default=20\n"


# ---- enforce_user auto and the clean-up (qmaster.policy_objects, pure parts) -----------
def _conf(**values: str) -> dict[str, dict[str, list[list[str]]]]:
    conf_values = {"enforce_user": "auto", "auto_user_oticket": "3", "auto_user_fshare": "4",
                   "auto_user_default_project": "none", "auto_user_delete_time": "100",
                   **values}
    return {"conf": {"global": [[k, v] for k, v in conf_values.items()]},
            "user": {}, "project": {}, "sharetree": {}}


def test_auto_user_made_with_the_configured_values() -> None:
    from qmaster.policy_objects import auto_user
    made = auto_user(_conf(), "alice", 1000.0)
    assert made == user_pairs("alice", oticket=3, fshare=4, delete_time=1100)
    assert auto_user(_conf(auto_user_delete_time="0"), "alice", 1000.0) == \
        user_pairs("alice", oticket=3, fshare=4, delete_time=0)
    assert dict(auto_user(_conf(auto_user_default_project="p1"), "a", 0.0))[
        "default_project"] == "p1"


def test_auto_user_leaves_existing_objects() -> None:
    from qmaster.policy_objects import auto_user
    conf = _conf()
    conf["user"]["auto"] = user_pairs("auto", delete_time=500)
    conf["user"]["hand"] = user_pairs("hand")
    assert auto_user(conf, "auto", 1000.0) is None
    assert auto_user(conf, "hand", 1000.0) is None


def test_clean_up_deletes_expired_users_without_jobs() -> None:
    from qmaster.policy_objects import auto_user_actions, expired_auto_users
    conf = _conf()
    conf["user"] = {"gone": user_pairs("gone", delete_time=900),
                    "busy": user_pairs("busy", delete_time=900),
                    "tree": user_pairs("tree", delete_time=900),
                    "later": user_pairs("later", delete_time=2000),
                    "hand": user_pairs("hand")}
    conf["sharetree"] = {"sharetree": tree_pairs(TreeNode("Root", children=[
        TreeNode("tree")]))}
    expired = expired_auto_users(conf, 1000.0)
    assert sorted(expired) == ["busy", "gone", "tree"]
    delete, keep = auto_user_actions(conf, expired, ["busy"], 1000.0)
    assert delete == ["gone"]
    assert dict(keep["busy"])["delete_time"] == "1100"
    assert dict(keep["tree"])["delete_time"] == "0"
    assert expired_auto_users(_conf(auto_user_delete_time="0") | {"user": conf["user"]},
                              1000.0) == []
