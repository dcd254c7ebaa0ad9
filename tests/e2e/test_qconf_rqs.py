"""``qconf`` and resource quota sets in a live cell, compared with what 8.1.9's qconf
printed for the same commands (tests/data/reference/rqs/; its ``root@vm`` is the
caller here)."""
from __future__ import annotations

import getpass
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.commands import command

RQS = Path(__file__).parents[1] / "data" / "reference" / "rqs"
WHO = f"{getpass.getuser()}@{socket.gethostname().split('.')[0]}"


@pytest.fixture(scope="module")
def env(module_cell_env: dict[str, str]) -> dict[str, str]:
    return module_cell_env


def qconf(env: dict[str, str], *args: str) -> tuple[str, str, int]:
    done = subprocess.run(command("qconf") + list(args), env=env, capture_output=True,
                          text=True, timeout=60, cwd=RQS)
    return done.stdout, done.stderr, done.returncode


def captured(case: str) -> tuple[str, str, int]:
    text = [(RQS / f"{case}.{ext}").read_text().replace("root@vm", WHO)
            for ext in ("out", "err")]
    return text[0], text[1], int((RQS / f"{case}.rc").read_text())


def test_an_empty_list_in_8_1_9_words(env: dict[str, str]) -> None:
    assert qconf(env, "-srqsl") == captured("srqsl-none")
    assert qconf(env, "-srqs") == captured("srqs-none")
    assert qconf(env, "-srqs", "nosuch") == captured("srqs-name-none")


@pytest.mark.parametrize("case, added, name", [
    ("man1", "man1-add", "max_u_slots"),
    ("man2", "man2-add-unknown-hgrp", "max_virtual_free_on_lx_hosts"),
    ("man3", "man3-add", "max_slots_on_every_host")])
def test_add_show_and_delete_as_8_1_9(env: dict[str, str], case: str, added: str,
                                      name: str) -> None:
    result = qconf(env, "-Arqs", f"{case}.input")
    try:
        assert result == captured(added)
        assert qconf(env, "-srqs", name) == captured(f"{case}-show")
        again = qconf(env, "-Arqs", f"{case}.input")
        assert again == ("", f'resource quota set "{name}" already exists\n', 1)
        assert qconf(env, "-srqsl")[0] == f"{name}\n"
    finally:
        assert qconf(env, "-drqs", name) == \
            ("", f'{WHO} removed "{name}" from resource quota set list\n', 0)
    assert qconf(env, "-drqs", name) == \
        ("", f'denied: resource quota set "{name}" does not exist\n', 1)


def test_a_limit_the_complex_list_does_not_know_is_refused(env: dict[str, str]) -> None:
    assert qconf(env, "-Arqs", "err-unknown-complex.input") == \
        captured("err-unknown-complex-add")
    assert qconf(env, "-Arqs", "dyn-hosts-star.input") == captured("dyn-hosts-star-add")


def test_modify_from_a_file_by_name(env: dict[str, str], tmp_path: Path) -> None:
    assert qconf(env, "-Arqs", "man1.input")[2] == 0
    try:
        changed = tmp_path / "changed.rqs"
        changed.write_text((RQS / "man1.input").read_text().replace("slots=100", "slots=7"))
        assert qconf(env, "-Mrqs", str(changed), "max_u_slots") == \
            ("", f'{WHO} modified "max_u_slots" in resource quota set list\n', 0)
        assert "limit        to slots=7\n" in qconf(env, "-srqs", "max_u_slots")[0]
        assert qconf(env, "-Mrqs", str(changed), "other") == \
            ("", f'resource quota set "other" not found in file "{changed}"\n', 1)
        assert qconf(env, "-Mrqs", str(changed))[2] == 1  # replacing all: refused here
    finally:
        qconf(env, "-drqs", "max_u_slots")


ATTR_SEQUENCE = [  # (capture, command) in the order 8.1.9 ran them on ruleset_1.input
    ("aattr-slots-exists", ["-aattr", "resource_quota", "limit", "slots=20", "ruleset_1/1"]),
    ("aattr-arch-by-name", ["-aattr", "resource_quota", "limit", "arch=sol-sparc64",
                            "ruleset_1/arch_rule"]),
    ("mattr-name", ["-mattr", "resource_quota", "name", "ruleset_new", "ruleset_1"]),
    ("addr-mattr-limit-without-rule", ["-mattr", "resource_quota", "limit", "slots=1",
                                       "ruleset_1"]),
]


def test_attribute_options_on_rule_sets(env: dict[str, str]) -> None:
    assert qconf(env, "-Arqs", "ruleset_1.input")[2] == 0
    try:
        assert qconf(env, "-srqs", "ruleset_1") == captured("attr-show-initial")
        for case, args in ATTR_SEQUENCE:
            assert qconf(env, *args) == captured(case), case
        # a limit added, then removed twice (the second time noted), by position
        added = qconf(env, "-aattr", "resource_quota", "limit", "h_vmem=5G", "ruleset_1/1")
        assert added == (f'{WHO} modified "ruleset_1" in resource quota set list\n', "", 0)
        assert "users @eng to slots=10,h_vmem=5G\n" in qconf(env, "-srqs", "ruleset_1")[0]
        assert qconf(env, "-dattr", "resource_quota", "limit", "h_vmem=5G",
                     "ruleset_1/1")[2] == 0
        again = qconf(env, "-dattr", "resource_quota", "limit", "h_vmem=5G", "ruleset_1/1")
        assert again[0].splitlines()[0] == \
            '"h_vmem" does not exist in "resource_quota_rules" of "resource_quota"'
        # a changed limit moves to the end of the list; a new one is noted
        qconf(env, "-aattr", "resource_quota", "limit", "h_vmem=1G", "ruleset_1/1")
        moved = qconf(env, "-mattr", "resource_quota", "limit", "slots=6,h_rt=1:00:00",
                      "ruleset_1/1")
        assert moved[0].splitlines()[0] == ('Unable to find "h_rt" in "resource_quota_rules" '
                                            'of "resource_quota" - Adding new element.')
        assert "to h_vmem=1G,slots=6,h_rt=3600\n" in qconf(env, "-srqs", "ruleset_1")[0]
        assert qconf(env, "-mattr", "resource_quota", "enabled", "false", "ruleset_1")[2] == 0
        assert "   enabled      FALSE\n" in qconf(env, "-srqs", "ruleset_1")[0]
        bad = qconf(env, "-mattr", "resource_quota", "enabled", "maybe", "ruleset_1")
        assert (bad[1].splitlines()[0], bad[2]) == ('error parsing value "maybe"', 1)
        assert qconf(env, "-mattr", "resource_quota", "users", "roland", "ruleset_1/1")[1] \
            .startswith('The attribute name ("users") and/or value ("roland") is invalid')
        assert qconf(env, "-mattr", "resource_quota", "limit", "nosuch_res=1",
                     "ruleset_1/1") == captured("mattr-nosuch-complex")
        assert qconf(env, "-mattr", "resource_quota", "enabled", "true", "nosuchset/1") == \
            ("", 'denied: resource quota set "nosuchset" does not exist\n', 1)
    finally:
        qconf(env, "-drqs", "ruleset_1")


def states(env: dict[str, str], job_ids: list[str]) -> list[str]:
    done = subprocess.run(command("qstat"), env=env, capture_output=True, text=True,
                          timeout=60)
    rows = {line.split()[0]: line.split()[4] for line in done.stdout.splitlines()[2:]}
    return [rows.get(j, "gone") for j in job_ids]


def sleepers(env: dict[str, str], count: int) -> list[str]:
    """Ids of ``count`` jobs that sleep 30 s."""
    ids = []
    for _ in range(count):
        done = subprocess.run(command("qsub") + ["-terse", "-b", "y", "-o", "/dev/null", "-j",
                                                 "y", "sleep", "30"],
                              env=env, capture_output=True, text=True, timeout=60)
        ids.append(done.stdout.strip())
    return ids


def wait_states(env: dict[str, str], job_ids: list[str], wanted: list[str]) -> None:
    """Until the jobs' qstat states are ``wanted`` (in any order), 20 s at most."""
    deadline = time.monotonic() + 20
    while sorted(states(env, job_ids)) != sorted(wanted):
        assert time.monotonic() < deadline, states(env, job_ids)
        time.sleep(0.2)


def test_the_scheduler_keeps_to_a_quota(env: dict[str, str], tmp_path: Path) -> None:
    """``limit users {*} to slots=1``: one running job per user, the next waits; with
    the set disabled again (``-mattr ... enabled false``) it runs."""
    rules = tmp_path / "one_each.rqs"
    rules.write_text("{\nname one_each\nenabled true\nlimit users {*} to slots=1\n}\n")
    assert qconf(env, "-Arqs", str(rules))[2] == 0
    jobs: list[str] = []
    try:
        jobs += sleepers(env, 2)
        wait_states(env, jobs, ["qw", "r"])
        time.sleep(1.0)  # and it stays so: the pass runs again on every event
        assert sorted(states(env, jobs)) == ["qw", "r"]
        assert qconf(env, "-mattr", "resource_quota", "enabled", "false", "one_each")[2] == 0
        wait_states(env, jobs, ["r", "r"])
    finally:
        subprocess.run(command("qdel") + jobs, env=env, capture_output=True, timeout=60)
        qconf(env, "-drqs", "one_each")


def test_qquota_shows_the_rules_in_use_as_8_1_9(env: dict[str, str], tmp_path: Path) -> None:
    """The slots_per_user set of the 8.1.9 capture (qquota-rulesets.input) with two
    running jobs: qquota as the owner shows ``slots=2/3  users <me> hosts <host>``."""
    me, host = WHO.split("@")
    rules = tmp_path / "per_user.rqs"
    rules.write_text("{\nname slots_per_user\nenabled true\n"
                     "limit users {*} hosts {*} to slots=3\n}\n")
    assert qconf(env, "-Arqs", str(rules))[2] == 0
    jobs: list[str] = []
    try:
        jobs += sleepers(env, 2)
        wait_states(env, jobs, ["r", "r"])
        captured_table = (RQS / "qquota-user.out").read_text().splitlines()
        expected = "\n".join(captured_table[:2] + [
            captured_table[-1].replace("sgeuser", me).replace(" vm", f" {host}")]) + "\n"
        run = subprocess.run(command("qquota"), env=env, capture_output=True, text=True,
                             timeout=60)
        assert (run.stdout, run.returncode) == (expected, 0)
        xml = subprocess.run(command("qquota") + ["-xml"], env=env, capture_output=True,
                             text=True, timeout=60).stdout
        assert f"<qquota_rule name='slots_per_user/1'>\n   <users>{me}</users>\n" \
               f"   <hosts>{host}</hosts>\n   <limit resource='slots' limit='3' value='2'/>" \
               in xml
        nobody = subprocess.run(command("qquota") + ["-u", "nobody_at_all"], env=env,
                                capture_output=True, text=True, timeout=60)
        assert (nobody.stdout, nobody.returncode) == ("", 0)
    finally:
        subprocess.run(command("qdel") + jobs, env=env, capture_output=True, timeout=60)
        qconf(env, "-drqs", "slots_per_user")


FILE_SEQUENCE = [  # the file forms, in the order 8.1.9 ran them on ruleset_1.input
    "Aattr-slots-exists", "Aattr-compiler-lic", "Aattr-show", "Dattr-compiler-lic",
    "Mattr-slots", "Mattr-new-resource", "Mattr-show", "Rattr-compiler-lic", "Mattr-enabled",
    "Mattr-description", "Rattr-show", "Mattr-two-attrs", "Mattr-two-attrs-show",
    "Aattr-to-slots-exists", "Aattr-to-compiler-lic", "Aattr-to-show",
    "Dattr-to-compiler-lic", "Dattr-to-compiler-lic-again", "Mattr-to-slots",
    "Rattr-to-compiler-lic", "Mattr-users-to"]


def test_attribute_options_from_files_on_rule_sets(env: dict[str, str]) -> None:
    """``-Aattr/-Mattr/-Dattr/-Rattr resource_quota fname set[/rule]``: a ``limit`` line
    holds a rule whose ``to`` list is the value; anything else is refused as 8.1.9's
    reader refuses it, the file then an invalid option argument."""
    assert qconf(env, "-Arqs", "ruleset_1.input")[2] == 0
    entries = [("compiler_lic", "cl", "INT"), ("new_resource", "nr", "INT")]
    try:
        for name, short, kind in entries:  # the complexes 8.1.9's cell had then
            qconf_entry(env, name, short, kind)
        for case in FILE_SEQUENCE:
            args = (RQS / f"{case}.cmd").read_text().split()[2:]
            assert qconf(env, *args) == captured(case), case
    finally:
        qconf(env, "-drqs", "ruleset_1")
        for name, _, _ in entries:
            qconf(env, "-dce", name)


def qconf_entry(env: dict[str, str], name: str, short: str, kind: str) -> None:
    path = Path(env["PYGE_ROOT"]) / f"{name}.ce"
    path.write_text(f"name        {name}\nshortcut    {short}\ntype        {kind}\n"
                    "relop       <=\nrequestable YES\nconsumable  YES\ndefault     0\n"
                    "urgency     0\n")
    assert qconf(env, "-Ace", str(path))[2] == 0


def editor_writing(tmp_path: Path, case: str) -> str:
    """An $EDITOR that writes what 8.1.9's editor script wrote in ``case``."""
    script = tmp_path / f"{case}.sh"
    text = (RQS / f"{case}.editor-writes").read_text()
    script.write_text(f"#!/bin/sh\ncat > \"$1\" <<'EOF'\n{text}EOF\n")
    script.chmod(0o755)
    return str(script)


def qconf_editing(env: dict[str, str], editor: str, *args: str) -> tuple[str, str, int]:
    return qconf({**env, "EDITOR": editor}, *args)


def test_unknown_references_are_accepted_as_8_1_9(env: dict[str, str]) -> None:
    """An access list, project, PE, queue or host a filter names need not exist."""
    for kind, name in (("userset", "ref_acl"), ("project", "ref_prj"), ("pe", "ref_pe"),
                       ("queue", "ref_q"), ("host", "ref_host")):
        try:
            assert qconf(env, "-Arqs", f"ref-unknown-{kind}.input") == \
                captured(f"ref-unknown-{kind}-add"), kind
        finally:
            qconf(env, "-drqs", name)


def test_the_editor_options_as_8_1_9(env: dict[str, str], tmp_path: Path) -> None:
    """-arqs [name] and -mrqs name with an editor, and several names at once."""
    keep = "true"
    try:
        assert qconf_editing(env, keep, "-arqs") == captured("arqs-template-unchanged")
        assert qconf_editing(env, editor_writing(tmp_path, "arqs-name"), "-arqs",
                             "rule_set_1") == captured("arqs-name")
        assert qconf_editing(env, editor_writing(tmp_path, "arqs-name"), "-arqs",
                             "rule_set_1") == captured("arqs-existing")
        assert qconf_editing(env, editor_writing(tmp_path, "arqs-name-mismatch"), "-arqs",
                             "wanted_name") == captured("arqs-name-mismatch")
        assert qconf_editing(env, editor_writing(tmp_path, "arqs-bad"), "-arqs",
                             "ed_bad") == captured("arqs-bad")
        assert qconf(env, "-Arqs", "rule-set-2.input") == captured("arqs-file-first")
        assert qconf(env, "-Arqs", "mrqs-rule-set-3.input")[2] == 0
        assert qconf_editing(env, keep, "-mrqs", "rule_set_3") == captured("mrqs-unchanged")
        assert qconf_editing(env, editor_writing(tmp_path, "mrqs-name"), "-mrqs",
                             "rule_set_3") == captured("mrqs-name")
        assert qconf_editing(env, keep, "-mrqs", "unknown_set") == \
            captured("mrqs-unknown-unchanged")
        assert qconf_editing(env, editor_writing(
            tmp_path, "mrqs-unknown-editor-writes-same-name"), "-mrqs", "unknown_set") == \
            captured("mrqs-unknown-editor-writes-same-name")
        assert qconf_editing(env, editor_writing(
            tmp_path, "mrqs-unknown-editor-writes-existing-set"), "-mrqs", "unknown_set") == \
            captured("mrqs-unknown-editor-writes-existing-set")
        # the master order: rule_set_1, other_name, rule_set_2, rule_set_3 (modified last)
        shown = qconf(env, "-srqs", "rule_set_3,rule_set_1")[0]
        assert shown.index("rule_set_1") < shown.index("rule_set_3")
        assert qconf(env, "-drqs", "rule_set_1,nosuch,other_name") == (
            "", f'{WHO} removed "rule_set_1" from resource quota set list\n'
                'denied: resource quota set "nosuch" does not exist\n'
                f'{WHO} removed "other_name" from resource quota set list\n', 1)
        assert qconf(env, "-drqs") == captured("drqs-no-argument")
    finally:
        for name in ("rule_set_1", "other_name", "rule_set_2", "rule_set_3"):
            qconf(env, "-drqs", name)


def test_replacing_limits_showing_lists_and_an_unknown_set(env: dict[str, str]) -> None:
    """``-rattr resource_quota limit`` replaces the rule's limits; the object name is
    8.1.9's ``resource_quota`` (``rqs`` is refused); ``-srqs a,b`` shows the sets in
    their master order (a modified one last), whatever the order asked; ``-Mrqs file name`` of a set the cell
    does not have is refused as 8.1.9 refuses it."""
    assert qconf(env, "-Arqs", "ruleset_1.input")[2] == 0
    try:
        assert qconf(env, "-Arqs", "man1.input")[2] == 0  # max_u_slots, added after
        assert qconf(env, "-rattr", "resource_quota", "limit", "slots=7", "ruleset_1/1") == \
            (f'{WHO} modified "ruleset_1" in resource quota set list\n', "", 0)
        assert "   limit        users @eng to slots=7\n" in qconf(env, "-srqs", "ruleset_1")[0]
        assert qconf(env, "-mattr", "rqs", "enabled", "false", "ruleset_1")[1] == \
            'Modification of object "rqs" not supported\n'
        for asked in ("max_u_slots,ruleset_1", "ruleset_1,max_u_slots"):
            shown = qconf(env, "-srqs", asked)[0]  # ruleset_1, modified, is now last
            assert shown.index("name         max_u_slots") < \
                shown.index("name         ruleset_1"), asked
        assert qconf(env, "-srqs", "ruleset_1,nosuch")[2] == 0
        assert qconf(env, "-Mrqs", "mrqs-rule-set-3.input", "rule_set_3") == \
            captured("Mrqs-name-not-existing")
    finally:
        qconf(env, "-drqs", "ruleset_1,max_u_slots")
