"""``qconf -aattr/-mattr/-dattr/-rattr/-purge`` against a live cell (one for the module).

As in Grid Engine 8.1.9 (captured): notes and the qmaster's confirmation (``root@vm
modified "all.q" in cluster queue list``) go to stdout with exit status 0, refusals to
stderr with 1.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.test_qconf import HOST, WHO, Result, qconf, told


@pytest.fixture(scope="module")
def env(module_cell_env: dict[str, str]) -> dict[str, str]:
    return module_cell_env


def shown(env: dict[str, str], option: str, name: str, attr: str) -> str:
    out, _, rc = qconf(env, option, name)
    assert rc == 0
    line = next(ln for ln in out.splitlines() if ln.startswith(attr + " "))
    return line[len(attr):].strip()


def said(text: str) -> Result:
    return text + "\n", "", 0


def modified(name: str, listed: str, *notes: str) -> Result:
    return said("\n".join([*notes, f'{WHO} modified "{name}" in {listed} list']))


def test_exechost_complex_values(env: dict[str, str]) -> None:
    host_modified = modified(HOST, "exechost")
    cv = ("exechost", "complex_values")
    assert qconf(env, "-aattr", *cv, "slots=2", HOST) == host_modified
    assert shown(env, "-se", HOST, "complex_values") == "slots=2"
    assert qconf(env, "-aattr", *cv, "slots=3", HOST) == said(
        f'No modification because "slots" already exists in "complex_values" of "{HOST}"')
    assert qconf(env, "-mattr", *cv, "slots=4", HOST) == host_modified
    assert shown(env, "-se", HOST, "complex_values") == "slots=4"
    assert qconf(env, "-mattr", *cv, "NONE", HOST) == told(
        '"NONE" is not a valid list attribute value for -mattr.  Try using -rattr instead.', 1)
    assert qconf(env, "-rattr", *cv, "NONE", HOST) == host_modified
    assert shown(env, "-se", HOST, "complex_values") == "NONE"
    # 8.1.9 (captured) names the kind, not the host, when the list was empty
    assert qconf(env, "-mattr", *cv, "slots=2", HOST) == modified(
        HOST, "exechost", '"complex_values" of "exechost" is empty - Adding new element(s).')
    assert qconf(env, "-rattr", *cv, "NONE", HOST) == host_modified


def test_queue_slots_default_and_host_entry(env: dict[str, str]) -> None:
    queue_modified = modified("all.q", "cluster queue")
    assert qconf(env, "-mattr", "queue", "slots", "3", "all.q") == queue_modified
    assert qconf(env, "-aattr", "queue", "slots", f"[{HOST}=5]", "all.q") == queue_modified
    assert shown(env, "-sq", "all.q", "slots") == f"3,[{HOST}=5]"
    assert qconf(env, "-mattr", "queue", "slots", "6", f"all.q@{HOST}") == queue_modified
    assert shown(env, "-sq", "all.q", "slots") == f"3,[{HOST}=6]"
    assert qconf(env, "-purge", "queue", "slots", f"all.q@{HOST}") == queue_modified
    assert shown(env, "-sq", "all.q", "slots") == "3"


def test_queue_lists_and_seq_no(env: dict[str, str]) -> None:
    queue_modified = modified("all.q", "cluster queue")
    assert qconf(env, "-dattr", "queue", "pe_list", "mpi", "all.q") == queue_modified
    assert shown(env, "-sq", "all.q", "pe_list") == "make smp"
    assert qconf(env, "-rattr", "queue", "seq_no", "7", "all.q") == queue_modified
    assert shown(env, "-sq", "all.q", "seq_no") == "7"
    # the qmaster checks the whole queue again: an unknown PE is refused
    assert qconf(env, "-aattr", "queue", "pe_list", "nosuchpe", "all.q") == told(
        'denied: parallel environment "nosuchpe" does not exist', 1)


def test_several_instances_of_one_queue(env: dict[str, str]) -> None:
    ids = f"all.q@{HOST},all.q@@allhosts"
    line = f'{WHO} modified "all.q" in cluster queue list'
    assert qconf(env, "-mattr", "queue", "priority", "4", ids) == said(f"{line}\n{line}")
    assert shown(env, "-sq", "all.q", "priority") == f"0,[{HOST}=4],[@allhosts=4]"


def test_hostgroup_hostlist(env: dict[str, str], tmp_path: Path) -> None:
    group = tmp_path / "grp"
    group.write_text(f"group_name @attrgrp\nhostlist {HOST}\n")
    assert qconf(env, "-Ahgrp", str(group)) == told(f'{WHO} added "@attrgrp" to host group list')
    assert qconf(env, "-dattr", "hostgroup", "hostlist", HOST, "@attrgrp") == modified(
        "@attrgrp", "host group")
    assert shown(env, "-shgrp", "@attrgrp", "hostlist") == "NONE"


def test_refusals(env: dict[str, str]) -> None:
    assert qconf(env, "-aattr", "rqs", "x", "y", "z") == told(
        'Modification of object "rqs" not supported', 1)
    assert qconf(env, "-aattr", "ckpt", "x", "y", "z") == told(
        'denied: checkpoint interface "z" does not exist', 1)
    assert qconf(env, "-aattr", "queue", "bogus", "1", "all.q") == told(
        'Attribute name ("bogus") and/or value ("1") not found', 1)
    assert qconf(env, "-mattr", "queue", "slots", "2", "nosuch.q") == told(
        'denied: cluster queue "nosuch.q" does not exist', 1)
    assert qconf(env, "-purge", "queue", "slots", "all.q") == told(
        'Given object_instance "all.q" is incomplete', 1)
    assert qconf(env, "-mattr", "queue", "slots", "abc", "all.q")[2] == 1


def test_complex_values_must_name_complex_attributes(env: dict[str, str]) -> None:
    """Grid Engine 8.1.9's refusals, captured from the real one."""
    assert qconf(env, "-aattr", "exechost", "complex_values", "nosuch=1", "global") == told(
        'denied: attribute "nosuch" is not a complex attribute', 1)
    assert qconf(env, "-mattr", "queue", "complex_values", "nosuch=1", "all.q") == told(
        'Complex attribute "nosuch" does not exist', 1)
    assert qconf(env, "-mattr", "queue", "complex_values", "slots=abc", "all.q") == told(
        'attribute "slots" is not a integer value', 1)


def test_the_file_forms_apply_every_attribute_of_the_file(env: dict[str, str],
                                                          tmp_path: Path) -> None:
    """``-Mattr/-Aattr/-Rattr/-Dattr obj fname ids``: each ``attribute value`` line of the
    file as the option applies it (8.1.9's texts were captured for resource quota sets
    only: tests/e2e/test_qconf_rqs.py)."""
    changes = tmp_path / "changes"
    changes.write_text("load_thresholds np_load_avg=3\nseq_no 7\n")
    assert qconf(env, "-Mattr", "queue", str(changes), "all.q")[2] == 0
    assert shown(env, "-sq", "all.q", "load_thresholds") == "np_load_avg=3"
    assert shown(env, "-sq", "all.q", "seq_no") == "7"
    extra = tmp_path / "extra"
    extra.write_text("load_thresholds mem_free=1G\n")
    assert qconf(env, "-Aattr", "queue", str(extra), "all.q")[2] == 0
    assert shown(env, "-sq", "all.q", "load_thresholds") == "np_load_avg=3,mem_free=1G"
    assert qconf(env, "-Dattr", "queue", str(extra), "all.q")[2] == 0
    assert shown(env, "-sq", "all.q", "load_thresholds") == "np_load_avg=3"
    back = tmp_path / "back"
    back.write_text("load_thresholds np_load_avg=1.75\nseq_no 0\n")
    assert qconf(env, "-Rattr", "queue", str(back), "all.q")[2] == 0
    assert shown(env, "-sq", "all.q", "seq_no") == "0"
    half = tmp_path / "half"  # the second change is refused: neither is made
    half.write_text("load_thresholds NONE\nseq_no 9\n")
    assert qconf(env, "-Mattr", "queue", str(half), "all.q")[2] == 1
    assert shown(env, "-sq", "all.q", "seq_no") == "0"
    bad = tmp_path / "bad"
    bad.write_text("no_such_attribute 1\n")
    out, err, rc = qconf(env, "-Mattr", "queue", str(bad), "all.q")
    assert (out, rc) == ("", 1)
    assert err.splitlines()[0] == 'error: unknown attribute name "no_such_attribute"'
    assert err.splitlines()[-2:] == [f'error: invalid option argument "{bad}"',
                                     "Usage: qconf -help"]
    assert qconf(env, "-Mattr", "calendar", str(back), "x")[1] == \
        'Modification of object "calendar" not supported\n'
