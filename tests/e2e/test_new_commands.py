"""qselect, qresub and qping against a live cell, as 8.1.9 answers them (the pure parts
and 8.1.9's texts: tests/unit/test_new_commands.py)."""
from __future__ import annotations

import re
import subprocess

from clients.api import Client, job_request
from common.cell import Cell, read_act_qmaster
from tests.commands import command
from tests.integration.cellutil import task_state, wait_for

TIMEOUT = 30


def run(env: dict[str, str], name: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*command(name), *args], env=env, capture_output=True, text=True,
                          timeout=TIMEOUT, cwd="/")


def test_qselect_prints_the_matching_queue_instances(env: dict[str, str], client: Client) -> None:
    every = run(env, "qselect")
    assert every.returncode == 0 and every.stderr == ""
    names = every.stdout.splitlines()
    assert names and all(re.fullmatch(r"all\.q@\S+", n) for n in names)
    assert run(env, "qselect", "-q", "all.q").stdout.splitlines() == names
    none = run(env, "qselect", "-q", "nosuch.q")  # 8.1.9: nothing, exit 1
    assert (none.returncode, none.stdout, none.stderr) == (1, "", "")
    pe = run(env, "qselect", "-pe", "nosuch")
    assert (pe.returncode, pe.stderr) == (1, "error: no such parallel environment\n")
    assert run(env, "qselect", "-qs", "s").returncode == 1  # no instance is suspended
    me = client.user.name
    assert run(env, "qselect", "-U", me).stdout.splitlines() == names  # no access lists
    full = run(env, "qstat", "-f", "-U", me)
    assert full.returncode == 0 and names[0] in full.stdout


def test_l_selects_by_what_the_instances_and_hosts_offer(env: dict[str, str]) -> None:
    names = run(env, "qselect").stdout.splitlines()
    assert run(env, "qselect", "-l", "slots=1").stdout.splitlines() == names
    for argv in (["qselect", "-l", "arch=foo"], ["qselect", "-l", "nosuch=1"]):
        nothing = run(env, *argv)  # 8.1.9: nothing, exit 1
        assert (nothing.returncode, nothing.stdout, nothing.stderr) == (1, "", "")
    empty = run(env, "qstat", "-f", "-l", "arch=foo")  # 8.1.9: nothing at all, exit 0
    assert (empty.returncode, empty.stdout, empty.stderr) == (0, "", "")
    unknown_q = run(env, "qstat", "-f", "-l", "nosuch=1")  # 8.1.9: exit 1, no word
    assert (unknown_q.returncode, unknown_q.stdout, unknown_q.stderr) == (1, "", "")
    unknown = run(env, "qhost", "-l", "nosuch=1")
    assert (unknown.returncode, unknown.stderr) == (1, 'error: unknown resource "nosuch"\n')
    hosts = run(env, "qhost", "-l", "slots=1")  # (not the global pseudo host)
    assert hosts.returncode == 0 and "global" not in hosts.stdout
    assert run(env, "qhost", "-l", "mem_free=100000G").stdout == ""


def test_qresub_submits_a_copy_without_the_hold(env: dict[str, str], client: Client) -> None:
    [held] = client.submit([job_request("/bin/true", binary=True, job_name="held1",
                                        hold=True)])
    done = run(env, "qresub", str(held))
    assert done.returncode == 0, done.stderr
    copy = int(re.fullmatch(r'Your job (\d+) \("held1"\) has been submitted\n',
                            done.stdout).group(1))  # type: ignore[union-attr]
    assert copy > held
    [task] = client.wait([copy], timeout=TIMEOUT)[copy]  # no hold: it runs
    assert task["exit_status"] == 0
    missing = run(env, "qresub", "99999")
    assert (missing.returncode, missing.stdout) == (4, 'job "99999" does not exist\n')
    client.delete([{"job_id": held}])


def test_qping_answers_for_the_qmaster(env: dict[str, str], cell: Cell) -> None:
    host, port, _ = read_act_qmaster(cell)
    info = run(env, "qping", "-info", host, str(port), "qmaster", "1")
    assert info.returncode == 0, info.stderr
    assert re.search(r"^run time \[s\]: +\d+$", info.stdout, re.M)
    assert "SIRM version:             0.1\n" in info.stdout
    wrong = run(env, "qping", "-info", host, "1", "qmaster", "1")
    assert (wrong.returncode, wrong.stdout) == (
        1, f"endpoint {host}/qmaster/1 at port 1: can't find connection\n")


def test_qstat_t_and_g_t_list_a_running_job(env: dict[str, str], client: Client) -> None:
    [job] = client.submit([job_request("/bin/sleep", ["30"], binary=True, job_name="tjob")])
    try:
        wait_for(lambda: task_state(client, job) == "running", TIMEOUT, "the job to run")
        listed = run(env, "qstat", "-t")
        assert listed.returncode == 0, listed.stderr
        lines = listed.stdout.splitlines()
        assert lines[0].endswith("master ja-task-ID task-ID state cpu        mem     io      "
                                 "stat failed ")
        assert any(line.startswith(f"{job:7d}") and "MASTER" in line for line in lines)
        assert "MASTER" in run(env, "qstat", "-g", "t").stdout
    finally:
        client.delete([{"job_id": job}])

