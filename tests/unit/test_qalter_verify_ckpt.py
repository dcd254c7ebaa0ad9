"""qalter -ckpt, -c, -w e|w|n|v|p, -verify and -u: the qmaster's ``alter`` handler
(through the socket-less Harness) and the command line, against 8.1.9's answers
(captured by tests/data/reference/qalter/capture.sh; its ids.txt names the captured jobs:
36 held, 37 running, 52 pending that can run nowhere, 53 waiting for its start time)."""
from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest

from clients.jobctl import Target
from clients.qalter import (QalterError, _targets, answer_lines, parse_qalter, verify_text,
                            main as qalter_main)
from common.model import UserInfo
from tests.reference import REFERENCE
from tests.unit.test_ckpt import put_ckpt
from tests.unit.test_qmaster_core import ALICE, BOB, Harness

REF = REFERENCE / "qalter"
HELD, RUNNING, NORUN, LATER = 36, 37, 52, 53


@pytest.fixture
def qm(tmp_path: Path) -> Harness:
    return Harness(tmp_path, auto_add_hosts=True, default_slots=2)


def captured(name: str) -> tuple[list[str], str, str, int]:
    """A capture's qalter arguments (without the program), stdout, stderr, status."""
    argv = shlex.split((REF / f"{name}.cmd").read_text().removeprefix("$ "))
    return (argv[1:], (REF / f"{name}.out").read_text(), (REF / f"{name}.err").read_text(),
            int((REF / f"{name}.rc").read_text()))


def alter_as_captured(qm: Harness, name: str, job: int, captured_job: int,
                      user: UserInfo = ALICE) -> tuple[dict[str, Any], str]:
    """Run the capture's changes on ``job``; the result and the captured answer for it."""
    argv, out, _, _ = captured(name)
    request = parse_qalter([a for a in argv if a != str(captured_job)] + [str(job)])
    body = {"user": user.to_dict(), "targets": [{"job_id": job}],
            "changes": request.changes}
    [result] = qm.call("alter", body)["results"]
    return result, out.replace(str(captured_job), str(job))


def register(qm: Harness) -> None:
    """An execution host as the captures' one reports itself (its name h1, 8.1.9's vm)."""
    load = {"num_proc": "2", "arch": "lx-amd64", "np_load_avg": "0.1", "load_avg": "0.2"}
    qm.call("register", {"host": "h1", "load": load, "jobs": []}, identity=b"execd:h1")


def answer(result: dict[str, Any]) -> tuple[str, int]:
    lines, code = answer_lines(Target({"job_id": result["job_id"]}, str(result["job_id"])),
                               [result])
    return "".join(f"{line}\n" for line in lines), code


# ---- -ckpt and -c ----------------------------------------------------------------------
def test_ckpt_names_an_existing_environment(qm: Harness) -> None:
    put_ckpt(qm, "c1")
    job = qm.submit(hold=True)
    result, expected = alter_as_captured(qm, "ckpt-nosuch", job, HELD)
    assert answer(result) == (expected, 1)
    result, expected = alter_as_captured(qm, "ckpt", job, HELD)
    assert answer(result) == (expected, 0)
    assert qm.server.store.jobs[job].opts["checkpoint_name"] == "c1"


def test_c_takes_effect_without_an_answer(qm: Harness) -> None:
    """8.1.9 answers nothing to -c (and keeps the old value: its qstat -j shows no
    change, captured qstat-j-c-*); here the value changes, with the same answer."""
    put_ckpt(qm, "c1")
    job = qm.submit(hold=True, checkpoint_name="c1")
    for name, key, value in (("c-letters", "checkpoint_occasion", "sx"),
                             ("c-interval", "checkpoint_interval", 600)):
        result, expected = alter_as_captured(qm, name, job, HELD)
        assert answer(result) == (expected, 0) == ("", 0)
        assert qm.server.store.jobs[job].opts[key] == value
    result, expected = alter_as_captured(qm, "ckpt-and-c", job, HELD)
    assert answer(result) == (expected, 0)
    assert qm.server.store.jobs[job].opts["checkpoint_occasion"] == "m"


def test_c_without_an_environment_is_refused(qm: Harness) -> None:
    """8.1.9 accepts (and ignores) -c s on a job without -ckpt; here it is refused as
    qsub refuses it (it would be stored only)."""
    job = qm.submit(hold=True)
    result, _ = alter_as_captured(qm, "c-without-ckpt", job, HELD)
    assert answer(result) == ("checkpointing denied\n", 1)


def test_ckpt_of_a_running_job_is_refused(qm: Harness) -> None:
    """8.1.9 changes it (captured: ckpt-running); here the running task's queue was
    chosen by its checkpointing environment, as for -l/-q/-pe."""
    put_ckpt(qm, "c1")
    qm.register("h1")
    job = qm.submit()
    qm.dispatch(job)
    result, _ = alter_as_captured(qm, "ckpt-running", job, RUNNING)
    assert answer(result) == (f"job {job} can't modify running jobs\n", 1)


def test_submitted_job_stores_the_environments_when(qm: Harness) -> None:
    """qsub -ckpt without -c letters: 8.1.9 shows the environment's when as the job's
    checkpoint_attr (captured: qstat-j-submit-ckpt-c, c1's when sx; c2's m: NEWS)."""
    put_ckpt(qm, "c1", when="xm")
    job = qm.submit(checkpoint_name="c1", checkpoint_interval=120)
    assert qm.server.store.jobs[job].opts["checkpoint_occasion"] == "xm"
    given = qm.submit(checkpoint_name="c1", checkpoint_occasion="r")
    assert qm.server.store.jobs[given].opts["checkpoint_occasion"] == "r"


# ---- -w ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["w-e", "w-w", "w-n", "w-v", "w-v-alone", "w-p",
                                  "w-e-impossible", "w-w-impossible", "w-v-impossible"])
def test_w_of_a_held_job(qm: Harness, name: str) -> None:
    """A held job is not verified: e/w change it and say so, v/p change nothing."""
    job = qm.submit(hold=True, job_name="qa")
    version = qm.server.store.jobs[job].version
    result, expected = alter_as_captured(qm, name, job, HELD)
    assert answer(result) == (expected, captured(name)[3])
    assert (qm.server.store.jobs[job].version > version) == (name[2] in "ewn")


def test_w_of_a_running_job(qm: Harness) -> None:
    qm.register("h1")
    job = qm.submit()
    qm.dispatch(job)
    for name in ("w-e-running", "w-v-running"):
        result, expected = alter_as_captured(qm, name, job, RUNNING)
        assert answer(result) == (expected, 0)


@pytest.mark.parametrize("name", ["w-e-norun", "w-w-norun", "w-v-later", "w-e-later",
                                  "w-e-later-impossible", "w-w-later-impossible"])
def test_w_verifies_the_job_as_it_would_become(qm: Harness, name: str) -> None:
    """A pending job is verified with its new requests, as qsub -w verifies a new job."""
    register(qm)
    norun = "norun" in name
    job = qm.submit(hard_resources={"arch": "nosuch"} if norun else {},
                    start_time="203001010000", job_name="j")
    before = dict(qm.server.store.jobs[job].opts)
    result, expected = alter_as_captured(qm, name, job, NORUN if norun else LATER)
    assert answer(result) == (expected, captured(name)[3])
    modified = name in ("w-w-norun", "w-e-later", "w-w-later-impossible")
    assert (qm.server.store.jobs[job].opts != before) == modified
    if name == "w-e-later":  # qstat -j: verify_suitable_queues 1 (qstat-j-w-later)
        assert qm.server.store.jobs[job].opts["verify_mode"] == "e"


@pytest.mark.parametrize("name", ["w-v-norun", "w-p-norun", "w-v-later-impossible"])
def test_w_v_gives_the_reasons(qm: Harness, name: str) -> None:
    """8.1.9 names the job and the host's offer (its host is "vm", ours "h1")."""
    register(qm)
    job = qm.submit(hard_resources={"arch": "nosuch"} if "norun" in name else {},
                    start_time="203001010000")
    before = dict(qm.server.store.jobs[job].opts)
    result, expected = alter_as_captured(qm, name, job, NORUN if "norun" in name else LATER)
    text, code = answer(result)
    first, last = expected.splitlines()
    assert code == 1 and text.splitlines()[-1] == last
    assert text.splitlines()[0].startswith(first.split(" because")[0].replace('"vm"', '"h1"'))
    assert qm.server.store.jobs[job].opts == before


def test_w_checks_permission_first(qm: Harness) -> None:
    job = qm.submit(hold=True)
    body = {"user": BOB.to_dict(), "targets": [{"job_id": job}],
            "changes": {"verify_mode": "v"}}
    [result] = qm.call("alter", body)["results"]
    assert result["result"] == "denied" and "must be at least owner" in result["messages"][0]


# ---- -verify and -u (the command line) --------------------------------------------------
@pytest.mark.parametrize("name", ["verify", "verify-alone", "verify-nosuch", "verify-norun",
                                  "verify-several"])
def test_verify_prints_the_changes(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv, out, err, rc = captured(name)
    if name == "verify-several":  # -c 00:01:00 takes effect here (8.1.9 ignores it)
        out = out.replace("checkpoint_object:          c1\n", "checkpoint_object:          c1\n"
                          "checkpoint_interval:        60 seconds\n")
    assert qalter_main(argv) == rc
    assert capsys.readouterr() == (out, err)


@pytest.mark.parametrize("argv, text, status", [
    (["-u"], "qalter: -u option must have a list usernames", 2),
    (["-c", "q", "5"], "qalter: -c specifier invalid", 2),
    (["-w", "x", "-N", "qa", "5"], 'qalter: invalid option argument "-w x"', 7)])
def test_parse_refusals_as_captured(argv: list[str], text: str, status: int) -> None:
    with pytest.raises(QalterError) as info:
        parse_qalter(argv)
    assert (info.value.message, info.value.status) == (text, status)
    name = {"-u": "u-noarg", "-c": "c-bad", "-w": "w-bad"}[argv[0]]
    _, _, err, rc = captured(name)
    assert err.startswith(text + "\n") and rc == status


def test_u_alters_every_job_of_the_users_and_ignores_the_job_list() -> None:
    request = parse_qalter(["-u", "sgeuser,bob", "-p", "-7", "36"])
    assert request.users == ["sgeuser", "bob"] and request.changes == {"priority": -7}
    assert [(t.body, t.item) for t in _targets(request, "me", {})] == [
        ({"user": "sgeuser"}, "*"), ({"user": "bob"}, "*")]
    assert parse_qalter(["-u", "*", "-N", "x"]).users == ["*"]


def test_u_answers_as_captured(qm: Harness) -> None:
    mine, other = qm.submit(hold=True), qm.submit(hold=True)
    body = {"user": ALICE.to_dict(), "targets": [{"user": "alice"}],
            "changes": parse_qalter(captured("u-star")[0][2:]).changes}
    results = qm.call("alter", body)["results"]
    assert [r["messages"] for r in results] == [
        [f"alice@qm sets scheduling priority of job {j} to -5"] for j in (mine, other)]
    _, out, _, rc = captured("u-other")
    [unknown] = qm.call("alter", {**body, "targets": [{"user": "nosuchuser"}]})["results"]
    lines, code = answer_lines(Target({"user": "nosuchuser"}, "*", ["nosuchuser"]), [unknown])
    assert ("".join(f"{line}\n" for line in lines), code) == (out, rc)


def test_verify_text_of_the_options_qstat_j_shows() -> None:
    text = verify_text({"job_name": "n", "checkpoint_occasion": "sx", "verify_mode": "e",
                        "env": {"A": "1"}})
    assert text == ("checkpoint_attr:            sx    \njob_name:                   n\n"
                    "env_list:                   A=1\nverify_suitable_queues:     1\n")
