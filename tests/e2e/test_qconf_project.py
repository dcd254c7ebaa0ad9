"""Projects (project(5)) in a live cell, compared with what 8.1.9 printed for the same
commands (tests/data/reference/projects/; its ``root@vm`` is the caller here, its
``sgeuser`` the submitting user, its host ``vm`` this cell's exec host)."""
from __future__ import annotations

import getpass
import os
import re
import socket
import subprocess
import time
from pathlib import Path
from typing import Callable

import pytest

from tests.commands import command

PRJ = Path(__file__).parents[1] / "data" / "reference" / "projects"
ME = getpass.getuser()
WHO = f"{ME}@{socket.gethostname().split('.')[0]}"
ADD_CASES = sorted(p.stem for p in PRJ.glob("Aprj-*.input"))
EDITOR = PRJ / "editor-replace.sh"


@pytest.fixture(scope="module")
def env(module_cell_env: dict[str, str]) -> dict[str, str]:
    for name in ("acl_in", "acl_out"):  # the lists the 8.1.9 cell had (setup-su-*)
        assert run(module_cell_env, "qconf", "-au", "someone", name)[2] == 0
    return module_cell_env


def run(env: dict[str, str], name: str, *args: str, **extra: str) -> tuple[str, str, int]:
    done = subprocess.run(command(name) + list(args), env={**env, **extra},
                          capture_output=True, text=True, timeout=60, cwd=PRJ)
    return done.stdout, done.stderr, done.returncode


def qconf(env: dict[str, str], *args: str, **extra: str) -> tuple[str, str, int]:
    return run(env, "qconf", *args, **extra)


def captured(case: str) -> tuple[str, str, int]:
    text = [(PRJ / f"{case}.{ext}").read_text().replace("root@vm", WHO)
            .replace('"sgeuser"', f'"{ME}"') for ext in ("out", "err")]
    return text[0], text[1], int((PRJ / f"{case}.rc").read_text())


def added_name(stderr: str) -> str | None:
    found = re.search(r'added "(.*)" to project list', stderr)
    return found.group(1) if found else None


@pytest.mark.parametrize("case", ADD_CASES)
def test_add_from_a_file_as_8_1_9(env: dict[str, str], case: str) -> None:
    if case == "Aprj-p2-again":
        pytest.skip("depends on p2 existing: test_show_modify_delete")
    if case == "Aprj-crlf":
        pytest.skip("8.1.9 misreads CRLF line ends; we read them (docs/compatibility.md)")
    result = qconf(env, "-Aprj", f"{case}.input")
    # the name as in the file: 8.1.9's confirmation shows 100 characters of it
    name = next((line.split()[1] for line in
                 (PRJ / f"{case}.input").read_text().splitlines()
                 if line.split()[:1] == ["name"]), None) if added_name(result[1]) else None
    try:
        assert result == captured(case)
        if name is not None:
            shown = qconf(env, "-sprj", name)[0].splitlines()
            assert shown[0] == f"name {name}"
            line = PRJ / f"{case}.shown"  # the line of 8.1.9's -sprj the case is about
            if line.exists():
                assert line.read_text().strip() in shown
    finally:
        if name is not None:
            qconf(env, "-dprj", name)


def test_lists_and_missing_arguments(env: dict[str, str]) -> None:
    assert qconf(env, "-sprjl") == captured("sprjl-none")
    assert qconf(env, "-sprj", "nosuch") == captured("sprj-nosuch")
    assert qconf(env, "-Aprj") == captured("Aprj-noarg")
    assert qconf(env, "-Mprj") == captured("Mprj-noarg")
    assert qconf(env, "-Aprj", "/nonexistent/file") == captured("Aprj-nofile")
    assert qconf(env, "-Mprj", "/nonexistent/file") == captured("Mprj-nofile")
    assert qconf(env, "-dprj", "nosuch") == captured("dprj-nosuch")
    assert qconf(env, "-mprj", "nosuch", EDITOR="true") == captured("mprj-nosuch")


def test_show_modify_delete(env: dict[str, str], tmp_path: Path) -> None:
    try:
        assert qconf(env, "-Aprj", "Aprj-p2.input") == captured("Aprj-p2")
        assert qconf(env, "-Aprj", "Aprj-p2.input") == captured("Aprj-p2-again")
        assert qconf(env, "-Aprj", "Aprj-acl-existing.input")[2] == 0  # p3
        assert qconf(env, "-Aprj", "Aprj-values.input")[2] == 0  # p4
        assert qconf(env, "-sprj", "p4") == captured("sprj-p4")
        assert qconf(env, "-sprj", "p3") == captured("sprj-p3")
        assert qconf(env, "-sprj", "p3,p4")[1] == "p3,p4 is not known as a project\n"
        assert qconf(env, "-sprjl")[0] == "p2\np3\np4\n"
        assert qconf(env, "-Mprj", "Mprj-existing.input") == captured("Mprj-existing")
        assert qconf(env, "-sprj", "p2") == captured("Mprj-existing-show")
        assert qconf(env, "-Mprj", "Mprj-nonexisting.input") == captured("Mprj-nonexisting")
        assert qconf(env, "-Mprj", "Mprj-acl-nosuch.input") == captured("Mprj-acl-nosuch")
        assert qconf(env, "-Mprj", "Mprj-bad.input") == captured("Mprj-bad")
        assert qconf(env, "-dprj", "p3", "p2") == captured("dprj-two-args")
        assert qconf(env, "-dprj", "p4,nosuch") == (
            "", f'{WHO} removed "p4" from project list\n'
                'denied: project "nosuch" does not exist\n', 1)
    finally:
        for name in ("p2", "p3", "p4"):
            qconf(env, "-dprj", name)


def editor(tmp_path: Path, text: str | None) -> str:
    """A script for $EDITOR writing ``text`` over its file (None: deleting it)."""
    script = tmp_path / "ed.sh"
    action = f"cat > \"$1\" <<'EOF'\n{text}EOF\n" if text is not None else 'rm -f "$1"\n'
    script.write_text("#!/bin/sh\n" + action)
    script.chmod(0o755)
    return str(script)


def test_the_editor_options(env: dict[str, str], tmp_path: Path) -> None:
    p1 = (PRJ / "aprj-add-p1.editor-writes").read_text()
    try:
        assert qconf(env, "-aprj", EDITOR="true") == captured("aprj-template")
        assert qconf(env, "-aprj", EDITOR=editor(tmp_path, p1)) == captured("aprj-add-p1")
        assert qconf(env, "-aprj", EDITOR=editor(tmp_path, p1)) == captured("aprj-existing")
        template = (PRJ / "aprj-template-name.editor-writes").read_text()
        assert qconf(env, "-aprj", EDITOR=editor(tmp_path, template)) == \
            captured("aprj-template-name")
        bad = qconf(env, "-aprj", EDITOR=editor(tmp_path, (PRJ / "aprj-bad.editor-writes")
                                                 .read_text()))
        assert (bad[1].splitlines()[0], bad[1].splitlines()[-1], bad[2]) == \
            ('error: unknown attribute name "color"', "cant read project", 1)
        gone = qconf(env, "-aprj", EDITOR=editor(tmp_path, None))
        assert (gone[1].splitlines()[-1], gone[2]) == ("edit failed", 1)
        assert qconf(env, "-mprj", "p1", EDITOR="true") == captured("mprj-unchanged")
        changed = (PRJ / "mprj-changed.editor-writes").read_text()
        assert qconf(env, "-mprj", "p1", EDITOR=editor(tmp_path, changed)) == \
            captured("mprj-changed")
        assert qconf(env, "-sprj", "p1") == captured("mprj-changed-show")
        unreadable = qconf(env, "-mprj", "p1", EDITOR=editor(
            tmp_path, (PRJ / "mprj-unreadable.editor-writes").read_text()))
        assert unreadable[1].splitlines()[0] == captured("mprj-unreadable")[1].splitlines()[0]
        renamed = (PRJ / "mprj-writes-new-name.editor-writes").read_text()
        assert qconf(env, "-mprj", "p1", EDITOR=editor(tmp_path, renamed)) == \
            captured("mprj-writes-new-name")
    finally:
        qconf(env, "-dprj", "p1")


def test_references_from_queues_hosts_and_the_configuration(env: dict[str, str]) -> None:
    exechost = qconf(env, "-sel")[0].split()[0]
    try:
        assert qconf(env, "-Aprj", "Aprj-p2.input")[2] == 0
        assert qconf(env, "-mattr", "queue", "projects", "nosuch", "all.q") == \
            captured("mattr-queue-projects-nosuch")
        assert qconf(env, "-mattr", "queue", "xprojects", "nosuch", "all.q") == \
            captured("mattr-queue-xprojects-nosuch")
        assert qconf(env, "-aattr", "exechost", "projects", "nosuch", exechost)[1] == \
            f'denied: project "nosuch" referenced in projects of exechost "{exechost}" ' \
            "does not exist\n"
        assert qconf(env, "-rattr", "queue", "projects", "p2", "all.q")[2] == 0
        assert qconf(env, "-dprj", "p2") == ("", 'denied: project "p2" is still referenced '
                                                 'in projects of queue "all.q"\n', 1)
        assert qconf(env, "-rattr", "queue", "projects", "NONE", "all.q")[2] == 0
        assert qconf(env, "-rattr", "exechost", "xprojects", "p2", exechost)[2] == 0
        assert qconf(env, "-dprj", "p2") == ("", 'denied: project "p2" is still referenced '
                                                 f'in xprojects of exechost "{exechost}"\n', 1)
        assert qconf(env, "-rattr", "exechost", "xprojects", "NONE", exechost)[2] == 0
        assert qconf(env, "-Arqs", "Arqs-projects-nosuch.input") == \
            (captured("Arqs-projects-nosuch")[0].replace("root@vm", WHO), "", 0)
        assert qconf(env, "-Arqs", "Arqs-projects-p1.input")[2] == 0  # names p1 ...
        p1 = Path(env["PYGE_ROOT"]) / "p1.prj"
        p1.write_text("name p1\noticket 0\nfshare 0\nacl NONE\nxacl NONE\n")
        assert qconf(env, "-Aprj", str(p1))[2] == 0
        assert qconf(env, "-dprj", "p1") == \
            ("", f'{WHO} removed "p1" from project list\n', 0)  # ... and holds nothing
        assert qconf(env, "-Aprj", "Aprj-acl-existing.input")[2] == 0  # p3: acl arusers
        assert qconf(env, "-dul", "arusers")[1] == \
            'denied: userset "arusers" is still referenced in user list of project "p3"\n'
    finally:
        qconf(env, "-drqs", "prj_nosuch,prj_p1")
        qconf(env, "-rattr", "queue", "projects", "NONE", "all.q")
        qconf(env, "-rattr", "exechost", "xprojects", "NONE", exechost)
        for name in ("p2", "p3"):
            qconf(env, "-dprj", name)


def global_conf(env: dict[str, str], **values: str) -> None:
    text = qconf(env, "-sconf", "global")[0]
    lines = []
    for line in text.splitlines()[1:]:
        key = line.split()[0] if line.split() else ""
        lines.append(f"{key} {values[key]}" if key in values else line)
    path = Path(env["PYGE_ROOT"]) / "global.conf"
    path.write_text("\n".join(lines) + "\n")
    os.rename(path, path.with_name("global"))
    assert qconf(env, "-Mconf", str(path.with_name("global")))[2] == 0


def qsub(env: dict[str, str], *args: str) -> tuple[str, str, int]:
    return run(env, "qsub", "-h", *args, "-b", "y", "/bin/true")


def test_submitting_into_projects(env: dict[str, str]) -> None:
    """qsub -P and qalter -P against the project, its acl/xacl and the global
    configuration's projects, xprojects and enforce_project."""
    jobs: list[str] = []
    try:
        for case in ("Aprj-p2", "Aprj-acl-existing"):  # p2 open, p3 only for arusers
            assert qconf(env, "-Aprj", f"{case}.input")[2] == 0
        assert qconf(env, "-Aprj", "Aprj-values.input")[2] == 0  # p4: xacl lists
        done = qsub(env, "-terse", "-P", "p2")
        assert done[2] == 0
        jobs.append(done[0].strip())
        assert qsub(env, "-P", "nosuch")[1:] == captured("qsub-P-nosuch")[1:]
        assert qsub(env, "-P", "p1,p2")[1:] == captured("qsub-P-list")[1:]
        assert qsub(env, "-P", "p3")[1:] == (
            f'Unable to run job: job rejected: no access to project "p3" for user "{ME}"\n'
            "Exiting.\n", 1)
        assert run(env, "qalter", "-P", "p3", jobs[0]) == (
            f'job rejected: no access to project "p3" for user "{ME}"\n', "", 1)
        assert run(env, "qalter", "-P", "nosuch", jobs[0]) == captured("qalter-P-nosuch")
        assert run(env, "qalter", "-P", "", jobs[0]) == \
            (f"modified project of job {jobs[0]}\n", "", 0)
        assert "project:" not in run(env, "qstat", "-j", jobs[0])[0]
        assert run(env, "qalter", "-P", "p2", jobs[0])[2] == 0
        assert "\nproject:                    p2\n" in run(env, "qstat", "-j", jobs[0])[0]
        global_conf(env, enforce_project="true")
        assert qsub(env)[1:] == captured("enforce-qsub-without-P")[1:]
        global_conf(env, enforce_project="false", projects="p2")
        assert qsub(env)[1:] == captured("gprojects-qsub-without-P")[1:]
        assert qsub(env, "-P", "p4")[1] == \
            'Unable to run job: job rejected: project "p4" is not allowed to submit jobs\n' \
            "Exiting.\n"
        global_conf(env, projects="NONE", xprojects="p2")
        refused = captured("gxprojects-qsub-P-p1")[1].replace('"p1"', '"p2"')
        assert qsub(env, "-P", "p2")[1:] == (refused, 1)
    finally:
        global_conf(env, enforce_project="false", projects="NONE", xprojects="NONE")
        run(env, "qdel", *jobs)
        for name in ("p2", "p3", "p4"):
            qconf(env, "-dprj", name)


def test_queues_admit_jobs_by_project(env: dict[str, str]) -> None:
    """all.q ``projects p2``: a job of p2 runs, one without a project or of p4 waits
    with 8.1.9's reason; ``xprojects p2`` then keeps p2 out."""
    jobs: list[str] = []
    try:
        for case in ("Aprj-p2", "Aprj-values"):  # p2, p4
            assert qconf(env, "-Aprj", f"{case}.input")[2] == 0
        assert qconf(env, "-rattr", "queue", "projects", "p2", "all.q")[2] == 0
        for args in (["-P", "p2"], [], ["-P", "p4"]):
            done = run(env, "qsub", "-terse", *args, "-b", "y", "-o", "/dev/null", "-j", "y",
                       "/bin/sleep", "30")
            jobs.append(done[0].strip())
        wait_for(lambda: job_state(env, jobs[0]) == "r")
        assert [job_state(env, j) for j in jobs[1:]] == ["qw", "qw"]
        info = run(env, "qstat", "-j", jobs[1])[0]
        assert 'scheduling info:            (no project) does not have the correct project ' \
               'to run in cluster queue "all.q"' in info
        info = run(env, "qstat", "-j", jobs[2])[0]
        assert '(project p4) does not have the correct project to run in cluster queue ' \
               '"all.q"' in info
        assert run(env, "qsub", "-w", "v", "-P", "p4", "-b", "y", "/bin/true")[1].endswith(
            'does not have the correct project to run in cluster queue "all.q"\n'
            "verification: no suitable queues\nExiting.\n")
        assert qconf(env, "-rattr", "queue", "xprojects", "p4", "all.q")[2] == 0
        assert qconf(env, "-rattr", "queue", "projects", "NONE", "all.q")[2] == 0
        wait_for(lambda: job_state(env, jobs[1]) == "r")
        assert job_state(env, jobs[2]) == "qw"
        assert "(project p4) is not allowed to run in cluster queue \"all.q\" based on the " \
               "excluded project list" in run(env, "qstat", "-j", jobs[2])[0]
    finally:
        run(env, "qdel", *jobs)
        qconf(env, "-rattr", "queue", "projects", "NONE", "all.q")
        qconf(env, "-rattr", "queue", "xprojects", "NONE", "all.q")
        wait_for(lambda: all(job_state(env, j) == "gone" for j in jobs))
        for name in ("p2", "p4"):
            qconf(env, "-dprj", name)


def job_state(env: dict[str, str], job_id: str) -> str:
    rows = run(env, "qstat")[0].splitlines()[2:]
    return next((row.split()[4] for row in rows if row.split()[0] == job_id), "gone")


def wait_for(condition: Callable[[], bool], seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.2)
