"""Resource quota sets govern dispatch on a live cell, as sge_resource_quota(5) and the
2006 specification say (tests/unit/test_quota_evaluate.py checks the same sentences on
the pure evaluation; here the qmaster, the scheduler and two execds decide).

One cell serves the module: two execds (two hosts of ``@allhosts``, 4 slots each).
Rule sets, access lists and complexes are configured with ``qconf``; my jobs are
submitted with ``qsub``, other users' through the client API as those users
(tests/identity.py: root only, the tests that need them skip otherwise). Every job is a
gate: it runs until the test creates the file named after its job id, so "a job
finishes" is the test's doing and nothing depends on how long a job takes. Each test
leaves the cell as it found it (no job, no rule set), whatever its outcome.

How a wait works: until the jobs the rules allow have started (bounded), then a short
settle (``SETTLE``) in which a scheduler that overbooks would start more (it runs a
pass on every event, within milliseconds), then the states are read once more.
"""
from __future__ import annotations

import grp
import os
import pwd
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from clients.api import Client, job_request
from common.cell import Cell
from common.jobstate import ACTIVE_STATES, WAITING_STATES
from deploy.cell import LocalCell
from tests.commands import command
from tests.identity import client_as, needs_root, other_users
from tests.cellconf import stop_cell, without_load_thresholds

ME = pwd.getpwuid(os.geteuid()).pw_name
TIMEOUT = 20.0
SETTLE = 0.6
Tasks = dict[int, dict[str, Any]]


@pytest.fixture(scope="module")
def cell(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cell]:
    """Two execds (``@allhosts`` holds both), 4 slots each; the module's only cell."""
    root = tmp_path_factory.mktemp("quota")
    os.chmod(root, 0o755)
    local = LocalCell(Cell(root))
    try:
        local.up(execds=2, slots=4, port=0)
        without_load_thresholds(local.cell)
        # job ids start at 1 in every cell: a job of an earlier module's cell still
        # ending may hold /tmp/3.1.all.q, which a job 3 of another owner may not take
        tmpdir = root / "tmp"
        tmpdir.mkdir()
        os.chmod(tmpdir, 0o1777)
        with Client(local.cell) as client:
            pairs = client.conf_get("queue")["all.q"]
            client.conf_put("queue", "all.q", [[k, str(tmpdir) if k == "tmpdir" else v]
                                               for k, v in pairs], "modify")
        yield local.cell
    finally:
        stop_cell(local)


@pytest.fixture(scope="module")
def gate_dir() -> Iterator[Path]:
    """The gate script every job runs, and where its release files appear (readable by
    every user: other users' jobs wait here too)."""
    path = Path(tempfile.mkdtemp(prefix="pyge-quota-"))
    try:
        os.chmod(path, 0o755)
        script = path / "gate.sh"
        script.write_text(f'#!/bin/sh\nwhile [ ! -e "{path}/$JOB_ID" ]; do sleep 0.1; done\n')
        script.chmod(0o755)
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def run(env: dict[str, str], name: str, *args: str) -> tuple[str, str, int]:
    done = subprocess.run(command(name) + list(args), env=env, capture_output=True,
                          text=True, timeout=60)
    return done.stdout, done.stderr, done.returncode


def qconf(env: dict[str, str], *args: str) -> str:
    out, err, rc = run(env, "qconf", *args)
    assert rc == 0, (args, out, err)
    return out + err


class Live:
    """The jobs of one test: submitted, watched, released, and removed at the end."""

    def __init__(self, cell: Cell, client: Client, env: dict[str, str], gate: Path) -> None:
        self.cell, self.client, self.env, self.gate = cell, client, env, gate
        self.ids: list[int] = []

    # -- configuration -----------------------------------------------------------------
    def add_rqs(self, text: str) -> None:
        path = self.gate / "rqs.txt"
        path.write_text(text)
        out = qconf(self.env, "-Arqs", str(path))
        assert "added" in out, out

    def qquota(self, *args: str) -> list[list[str]]:
        """qquota's rows as words (its two header lines checked and left out)."""
        env = {**self.env, "HOME": str(self.gate)}  # no ~/.sge_qquota of the machine's
        out, err, rc = run(env, "qquota", *args)
        assert (err, rc) == ("", 0), err
        if not out:
            return []
        lines = out.splitlines()
        assert lines[0].split() == ["resource", "quota", "rule", "limit", "filter"], out
        assert lines[1] == "-" * 80, out
        return sorted(line.split() for line in lines[2:])

    # -- jobs --------------------------------------------------------------------------
    def qsub(self, *args: str) -> int:
        """One of my jobs, by the console script."""
        out, err, rc = run(self.env, "qsub", "-b", "y", "-o", "/dev/null", "-j", "y",
                           *args, str(self.gate / "gate.sh"))
        assert rc == 0, (out, err)
        found = re.match(r"Your job (\d+) ", out)
        assert found, out
        job_id = int(found.group(1))
        self.ids.append(job_id)
        return job_id

    def submit_as(self, user: str, count: int = 1, **opts: Any) -> list[int]:
        """``count`` jobs of ``user`` (another user: the client API as that user)."""
        jobs = [job_request(str(self.gate / "gate.sh"), binary=True,
                            stdout_paths=["/dev/null"], merge_output=True, **opts)
                for _ in range(count)]
        if user == ME:
            ids = self.client.submit(jobs)
        else:
            with client_as(self.cell, user) as other:
                ids = other.submit(jobs)
        self.ids += ids
        return ids

    def mine(self, count: int, *args: str) -> list[int]:
        return [self.qsub(*args) for _ in range(count)]

    def tasks(self, ids: list[int] | None = None) -> Tasks:
        ids = self.ids if ids is None else ids
        reply = self.client.jobs(ids, include_finished=True)
        return {int(t["job_id"]): t for t in reply["tasks"]}

    def wait(self, done: Callable[[Tasks], bool], what: str) -> Tasks:
        deadline = time.monotonic() + TIMEOUT
        while True:
            tasks = self.tasks()
            if done(tasks):
                return tasks
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {TIMEOUT} s waiting for {what}: "
                                     f"{summary(tasks)}")
            time.sleep(0.1)

    def settle(self, started: int) -> Tasks:
        """The states once ``started`` of the test's jobs hold slots (or have run) and
        the scheduler had the time to start more."""
        self.wait(lambda ts: len(holding(ts)) + len(done_ok(ts)) >= started,
                  f"{started} jobs to start")
        time.sleep(SETTLE)
        return self.tasks()

    def release(self, *ids: int) -> None:
        """Let these jobs finish (their gate opens); wait until they have."""
        for job_id in ids:
            (self.gate / str(job_id)).touch()
        self.wait(lambda ts: all(ts[i]["state"] == "finished" for i in ids),
                  f"jobs {ids} to finish")

    def cleanup(self) -> None:
        """No job of the test left (released or deleted, and gone), no rule set."""
        for job_id in self.ids:
            (self.gate / str(job_id)).touch()
        if self.ids:
            self.client.delete([{"job_id": j} for j in self.ids], force=True)
            self.wait(lambda ts: not any(t["state"] in ACTIVE_STATES | WAITING_STATES
                                         for t in ts.values()), "the jobs to be gone")
        self.ids = []
        for name in self.client.conf_get("rqs"):
            self.client.conf_del("rqs", name)


def holding(tasks: Tasks) -> set[int]:
    return {j for j, t in tasks.items() if t["state"] in ACTIVE_STATES}


def pending(tasks: Tasks) -> set[int]:
    return {j for j, t in tasks.items() if t["state"] == "pending"}


def done_ok(tasks: Tasks) -> set[int]:
    return {j for j, t in tasks.items() if t["state"] == "finished" and t["start_time"]}


def summary(tasks: Tasks) -> str:
    return ", ".join(f"{j}:{t['state']}@{t.get('host')}"
                     + (f"(exit {t.get('exit_status')}, failed {t.get('failed')}, "
                        f"{t.get('error_reason') or t.get('deleted_by')})"
                        if t["state"] == "finished" else "")
                     for j, t in sorted(tasks.items()))


@pytest.fixture
def live(cell: Cell, client: Client, env: dict[str, str], gate_dir: Path
         ) -> Iterator[Live]:
    state = Live(cell, client, env, gate_dir)
    try:
        yield state
    finally:
        state.cleanup()


@pytest.fixture(scope="module")
def compiler_lic(env: dict[str, str], gate_dir: Path) -> Iterator[str]:
    """The consumable of the specification's example (``compiler_lic cl INT <= YES YES
    0 0``), 100 licences on the global host: only the quotas limit them; and the
    project ``apps`` its project jobs are submitted into."""
    project = gate_dir / "apps.prj"
    project.write_text("name apps\noticket 0\nfshare 0\nacl NONE\nxacl NONE\n")
    qconf(env, "-Aprj", str(project))
    entry = gate_dir / "compiler_lic"
    entry.write_text("name        compiler_lic\nshortcut    cl\ntype        INT\n"
                     "relop       <=\nrequestable YES\nconsumable  YES\ndefault     0\n"
                     "urgency     0\n")
    qconf(env, "-Ace", str(entry))
    try:
        qconf(env, "-mattr", "exechost", "complex_values", "compiler_lic=100", "global")
        try:
            yield "compiler_lic"
        finally:
            qconf(env, "-rattr", "exechost", "complex_values", "NONE", "global")
    finally:
        qconf(env, "-dce", "compiler_lic")
        qconf(env, "-dprj", "apps")


def hosts_of(client: Client) -> list[str]:
    return sorted(h["name"] for h in client.cluster()["hosts"])


# ---- 1. the compiler licence example -----------------------------------------------------

COMPILER_SETS = """\
{
   name         ruleset1
   enabled      TRUE
   limit        users %(roland)s to compiler_lic=3
   limit        projects * to compiler_lic=2
   limit        users * to compiler_lic=1
}
{
   name         ruleset2
   enabled      TRUE
   limit        users * to compiler_lic=%(total)d
}
"""


@needs_root
def test_the_compiler_licence_example_with_three_users(live: Live, compiler_lic: str
                                                       ) -> None:
    """The 2006 specification's ruleset1 and ruleset2, with ``roland`` one of three
    users: roland gets 3 licences, project jobs 2 together, everyone else 1 together;
    20 in all. A job that finishes frees its licence for a pending one of the same
    rule."""
    roland, andre = other_users(2)
    live.add_rqs(COMPILER_SETS % {"roland": roland, "total": 20})
    rolands = live.submit_as(roland, 4, hard_resources={compiler_lic: "1"})
    andres = live.submit_as(andre, 3, hard_resources={compiler_lic: "1"}, project="apps")
    mine = live.mine(2, "-l", "cl=1")
    tasks = live.settle(6)
    running = holding(tasks)
    assert len(running & set(rolands)) == 3, summary(tasks)   # ruleset1/1
    assert len(running & set(andres)) == 2, summary(tasks)    # ruleset1/2: projects *
    assert len(running & set(mine)) == 1, summary(tasks)      # ruleset1/3: users *
    assert len(pending(tasks)) == 3, summary(tasks)

    # qquota, as me: the rows of rules that count me (roland's row is his alone)
    assert live.qquota() == sorted([
        ["ruleset1/2", "compiler_lic=2/2", "projects", "*"],
        ["ruleset1/3", "compiler_lic=1/1", "users", "*"],
        ["ruleset2/1", "compiler_lic=6/20", "users", "*"]])
    assert ["ruleset1/1", "compiler_lic=3/3", "users", roland] in live.qquota("-u", "*")

    # one running job of each user finishes: the pending job of the same user starts
    finished = [min(running & set(ids)) for ids in (rolands, andres, mine)]
    waiting = pending(tasks)
    live.release(*finished)
    tasks = live.settle(9)
    assert waiting <= holding(tasks), summary(tasks)
    assert len(holding(tasks)) == 6 and not pending(tasks), summary(tasks)


@needs_root
def test_a_tighter_second_set_refuses_what_the_first_allows(live: Live, compiler_lic: str
                                                            ) -> None:
    """The same sets with ruleset2 at 4 licences: "results in a reject if 20 [here 4]
    compiler_lic resources are already in use, even if user roland does not use all of
    his" — each rule of ruleset1 still holds, and 4 is the most in use."""
    roland, andre = other_users(2)
    live.add_rqs(COMPILER_SETS % {"roland": roland, "total": 4})
    rolands = live.submit_as(roland, 3, hard_resources={compiler_lic: "1"})
    andres = live.submit_as(andre, 2, hard_resources={compiler_lic: "1"}, project="apps")
    mine = live.mine(1, "-l", "compiler_lic=1")
    tasks = live.settle(4)
    running = holding(tasks)
    assert len(running) == 4, summary(tasks)
    assert len(running & set(rolands)) <= 3 and len(running & set(andres)) <= 2 \
        and len(running & set(mine)) <= 1, summary(tasks)
    assert len(pending(tasks)) == 2, summary(tasks)
    rows = live.qquota("-u", "*", "-l", compiler_lic)
    assert ["ruleset2/1", "compiler_lic=4/4", "users", "*"] in rows, rows


# ---- 2. users {*} against users * ----------------------------------------------------------

@needs_root
def test_users_in_braces_limit_each_user_on_his_own(live: Live) -> None:
    [other] = other_users(1)
    live.add_rqs("{\nname each\nenabled true\nlimit users {*} to slots=1\n}\n")
    mine = live.mine(2)
    others = live.submit_as(other, 2)
    tasks = live.settle(2)
    running = holding(tasks)
    assert len(running & set(mine)) == 1 and len(running & set(others)) == 1, \
        summary(tasks)
    assert len(pending(tasks)) == 2, summary(tasks)
    # qquota shows the caller's row only; -u names whose rows to show
    assert live.qquota() == [["each/1", "slots=1/1", "users", ME]]
    assert live.qquota("-u", other) == [["each/1", "slots=1/1", "users", other]]


@needs_root
def test_users_star_limits_all_users_together(live: Live) -> None:
    [other] = other_users(1)
    live.add_rqs("{\nname together\nenabled true\nlimit users * to slots=1\n}\n")
    mine = live.mine(2)
    others = live.submit_as(other, 2)
    tasks = live.settle(1)
    assert len(holding(tasks)) == 1 and len(pending(tasks)) == 3, summary(tasks)
    assert live.qquota() == [["together/1", "slots=1/1", "users", "*"]]
    # the running job finishes: exactly one other job takes its place
    [first] = holding(tasks)
    live.release(first)
    tasks = live.settle(2)
    assert len(holding(tasks)) == 1 and len(pending(tasks)) == 2, summary(tasks)
    assert set(mine) | set(others) == holding(tasks) | pending(tasks) | {first}


# ---- 3. access lists and excluded users ------------------------------------------------------

@needs_root
def test_an_access_list_with_an_excluded_member(live: Live) -> None:
    """``users @staff,!excluded``: the list's members (users, and users whose primary
    group is an ``@group`` entry, access_list(5)) share the limit, the excluded member
    is not limited at all, though the list holds him (2006 specification). An access
    list's entries are only names and ``@groups``; exclusions belong in the rule."""
    excluded, grouped = other_users(2)
    group = grp.getgrgid(pwd.getpwnam(grouped).pw_gid).gr_name
    qconf(live.env, "-au", f"{ME},{excluded},@{group}", "staff")
    try:
        live.add_rqs("{\nname staff\nenabled true\n"
                     f"limit users @staff,!{excluded} to slots=1\n}}\n")
        mine = live.mine(2)
        theirs = live.submit_as(grouped, 1)
        free = live.submit_as(excluded, 2)
        tasks = live.settle(3)
        running = holding(tasks)
        assert set(free) <= running, summary(tasks)              # not limited
        assert len(running & set(mine)) == 1, summary(tasks)     # staff: 1 in all
        assert set(theirs) <= pending(tasks), summary(tasks)     # a member by group
        assert len(running) == 3, summary(tasks)
    finally:
        live.cleanup()
        qconf(live.env, "-dul", "staff")


# ---- 4. and 5. per host ----------------------------------------------------------------------

def test_each_host_of_a_host_group_on_its_own(live: Live) -> None:
    hosts = hosts_of(live.client)
    assert len(hosts) == 2
    live.add_rqs("{\nname per_host\nenabled true\nlimit hosts {@allhosts} to slots=1\n}\n")
    live.mine(4)
    tasks = live.settle(2)
    running = holding(tasks)
    assert len(running) == 2 and len(pending(tasks)) == 2, summary(tasks)
    assert sorted(tasks[j]["host"] for j in running) == hosts
    assert live.qquota() == [["per_host/1", "slots=1/1", "hosts", h] for h in hosts]


def test_a_dynamic_limit_is_worked_out_per_host(live: Live) -> None:
    """``slots=$num_proc*2`` on each host, from the host's num_proc load value as the
    scheduler sees it: after the host's ``load_scaling`` (host_conf(5); Grid Engine's
    scheduler works dynamic limits out with its scaled_mixed_load). The scaling makes
    num_proc 0.75 on one host and 1.75 on the other, whatever this machine's processor
    count: limits 1.5 and 3.5, so 1 and 3 jobs."""
    first, second = hosts_of(live.client)
    procs = {h["name"]: float(h["load"]["num_proc"]) for h in live.client.cluster()["hosts"]}
    try:
        qconf(live.env, "-mattr", "exechost", "load_scaling",
              f"num_proc={0.75 / procs[first]:.6f}", first)
        qconf(live.env, "-mattr", "exechost", "load_scaling",
              f"num_proc={1.75 / procs[second]:.6f}", second)
        live.add_rqs("{\nname max_slots_on_every_host\nenabled true\n"
                     "limit hosts {*} to slots=$num_proc*2\n}\n")
        live.mine(6)
        tasks = live.settle(4)
        running = holding(tasks)
        assert len(running) == 4 and len(pending(tasks)) == 2, summary(tasks)
        on = [tasks[j]["host"] for j in running]
        assert (on.count(first), on.count(second)) == (1, 3), summary(tasks)
        # qquota: a row per host in use (the limit it shows is not checked here)
        assert [(r[0], r[1].split("/")[0], r[2:]) for r in live.qquota()] == [
            ("max_slots_on_every_host/1", "slots=1", ["hosts", first]),
            ("max_slots_on_every_host/1", "slots=3", ["hosts", second])]
    finally:
        live.cleanup()
        for host in (first, second):
            qconf(live.env, "-rattr", "exechost", "load_scaling", "NONE", host)


# ---- 6. and 7. disabled sets, draining -------------------------------------------------------

def test_a_disabled_set_is_ignored(live: Live) -> None:
    live.add_rqs("{\nname off\nenabled FALSE\nlimit to slots=1\n}\n")
    live.mine(3)
    tasks = live.settle(3)
    assert len(holding(tasks)) == 3, summary(tasks)
    assert live.qquota("-u", "*") == []  # qquota too knows only enabled sets
    # enabled, it holds new jobs back; the running ones stay
    qconf(live.env, "-mattr", "resource_quota", "enabled", "TRUE", "off")
    later = live.mine(1)
    tasks = live.settle(3)
    assert len(holding(tasks)) == 3 and pending(tasks) == set(later), summary(tasks)
    assert live.qquota() == [["off/1", "slots=3/1"]]


def test_slots_zero_drains(live: Live) -> None:
    """'"slots=0" could be used to prevent new jobs starting for draining the system':
    running jobs keep running, nothing new starts, not even when a job finishes; without
    the set the pending jobs start."""
    before = live.mine(2)
    live.settle(2)
    live.add_rqs("{\nname drain\ndescription \"drain the cell\"\nenabled true\n"
                 "limit to slots=0\n}\n")
    after = live.mine(2)
    tasks = live.settle(2)
    assert {j for j in before if tasks[j]["state"] == "running"} == set(before), \
        summary(tasks)
    assert pending(tasks) == set(after), summary(tasks)
    live.release(before[0])
    tasks = live.settle(1)
    assert tasks[before[1]]["state"] == "running" and pending(tasks) == set(after), \
        summary(tasks)
    qconf(live.env, "-drqs", "drain")
    tasks = live.settle(4)
    assert set(after) <= holding(tasks), summary(tasks)


# ---- 8. the tightest set wins --------------------------------------------------------------

def test_of_two_sets_the_tighter_wins(live: Live) -> None:
    live.add_rqs("{\nname loose\nenabled true\nlimit users {*} to slots=3\n}\n"
                 "{\nname tight\nenabled true\nlimit users * to slots=2\n}\n")
    live.mine(3)
    tasks = live.settle(2)
    assert len(holding(tasks)) == 2 and len(pending(tasks)) == 1, summary(tasks)
    assert live.qquota() == [["loose/1", "slots=2/3", "users", ME],
                             ["tight/1", "slots=2/2", "users", "*"]]


# ---- explaining: qstat -j and qsub -w v ---------------------------------------------------

def test_qstat_j_and_qsub_w_v_name_the_rule(live: Live) -> None:
    """8.1.9's words (tests/data/reference/rqs-sched/max_u_slots-*, slots-zero-*): the
    waiting job's ``qstat -j`` names the consumers and the rule; ``qsub -w v`` applies
    the quotas to an empty cluster, so slots=1 passes and slots=0 does not."""
    live.add_rqs("{\nname max_u_slots\nenabled true\nlimit users {*} to slots=1\n}\n")
    first, second = live.mine(2)
    tasks = live.settle(1)
    assert tasks[first]["state"] == "running" and pending(tasks) == {second}, summary(tasks)
    info = run(live.env, "qstat", "-j", str(second))[0]
    assert f'scheduling info:            cannot run because it exceeds limit "{ME}/////" ' \
           'in rule "max_u_slots/1"\n' in info
    verified = run(live.env, "qsub", "-w", "v", "-b", "y", "/bin/true")
    assert verified == ("verification: found suitable queue(s)\n", "", 0)
    qconf(live.env, "-mattr", "resource_quota", "limit", "slots=0", "max_u_slots/1")
    out, err, rc = run(live.env, "qsub", "-w", "v", "-b", "y", "/bin/true")
    lines = err.splitlines()
    assert (out, rc, lines[-2:]) == ("", 1, ["verification: no suitable queues", "Exiting."])
    assert re.fullmatch(r'Unable to run job: Job \d+ cannot run because it exceeds limit '
                        rf'"{ME}/////" in rule "max_u_slots/1"', lines[0]), err
