"""qalter: the qmaster's ``alter`` handler (through the socket-less Harness) and the
command line parsing of ``clients.qalter``."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clients.qalter import QalterError, parse_qalter
from common.model import UserInfo
from tests.unit.test_qmaster_core import ALICE, BOB, ROOT, Harness


@pytest.fixture
def qm(tmp_path: Path) -> Harness:
    return Harness(tmp_path, auto_add_hosts=True, default_slots=2)


def alter(qm: Harness, job: int, changes: dict[str, Any], user: UserInfo = ALICE
          ) -> dict[str, Any]:
    body = {"user": user.to_dict(), "targets": [{"job_id": job}], "changes": changes}
    [result] = qm.call("alter", body)["results"]
    return result


def job_opts(qm: Harness, job: int) -> dict[str, Any]:
    return qm.server.store.jobs[job].opts


# ---- handler ---------------------------------------------------------------------
def test_alter_resources_and_name_of_a_pending_job(qm: Harness) -> None:
    job = qm.submit(hold=True)
    version = qm.server.store.jobs[job].version
    task_version = qm.tasks(job)[0]["version"]
    result = alter(qm, job, {"hard_resources": {"arch": "nosuch"}, "job_name": "renamed"})
    assert result["result"] == "modified"
    assert result["messages"] == [f"modified hard resource list of job {job}",
                                  f"modified job name of job {job}"]
    stored = qm.server.store.jobs[job]
    assert stored.opts["hard_resources"] == {"arch": "nosuch"}
    assert stored.name == "renamed" and stored.version == version + 1
    assert qm.tasks(job)[0]["version"] > task_version
    events = [e for frames in qm.pub.sent for e in _events(frames)]
    # the scheduler's view of the job: what placement reads (not its name)
    assert any(e["kind"] == "job" and e["obj"]["opts"] == {"hard_resources": {"arch": "nosuch"}}
               for e in events)


def _events(frames: list[bytes]) -> list[dict[str, Any]]:
    from common import wire
    topic, payload = wire.decode_published(frames)
    return payload.get("events", []) if topic == wire.TOPIC_EVENTS else []


def test_stale_dispatch_order_is_refused_after_alter(qm: Harness) -> None:
    qm.register("h1")
    job = qm.submit()
    old = qm.tasks(job)[0]["version"]
    alter(qm, job, {"soft_queues": ["all.q"]})
    order = {"type": "dispatch", "job_id": job, "task_id": 1, "task_version": old,
             "granted": [["all.q", "h1", 1]]}
    assert qm.call("orders", {"orders": [order]})["refused"]


def test_alter_survives_restart(qm: Harness, tmp_path: Path) -> None:
    job = qm.submit(hold=True)
    alter(qm, job, {"pe": ["smp", 2, 4], "pe_ranges": [[2, 4]]})
    again = Harness(tmp_path)
    assert again.server.store.jobs[job].opts["pe"] == ["smp", 2, 4]


def test_pe_messages(qm: Harness) -> None:
    job = qm.submit(hold=True)
    result = alter(qm, job, {"pe": ["smp", 2, 4], "pe_ranges": [[2, 4]]})
    assert result["messages"] == [f"modified parallel environment of job {job}",
                                  f"modified slot range of job {job}"]


def test_refusals(qm: Harness) -> None:
    qm.register("h1")
    job = qm.submit(hold=True)
    other = alter(qm, job, {"job_name": "x"}, BOB)
    assert other == {"job_id": job, "result": "denied", "messages": [
        f'denied: "bob" must be at least owner of job {job} to change job attributes']}
    assert alter(qm, job, {"job_name": "x"}, ROOT)["result"] == "modified"
    prio = alter(qm, job, {"priority": 10})
    assert prio["messages"] == ['denied: "alice" must be operator to increase job priority']
    assert alter(qm, job, {"hard_resources": {"nosuch": "1"}})["result"] == "denied"
    assert alter(qm, job, {"pe": ["nope", 1, 1], "pe_ranges": [[1, 1]]})["messages"] == [
        'job rejected: the requested parallel environment "nope" does not exist']
    assert job_opts(qm, job)["job_name"] == "x"
    running = qm.submit()
    qm.dispatch(running)
    # 8.1.9 renames a running job (captured: qalter-running-N); we refuse what would
    # change the slots and consumables its task holds (-l, -q, -pe, -P)
    assert alter(qm, running, {"job_name": "y"})["messages"] == [
        f"modified job name of job {running}"]
    assert alter(qm, running, {"hard_resources": {"arch": "x"}})["messages"] == [
        f"job {running} can't modify running jobs"]


def test_priority_by_operator_and_lowering_by_owner(qm: Harness) -> None:
    job = qm.submit(hold=True)
    assert alter(qm, job, {"priority": -5})["messages"] == [
        f"alice@qm sets scheduling priority of job {job} to -5"]
    assert alter(qm, job, {"priority": 100}, ROOT)["result"] == "modified"
    assert qm.server.store.jobs[job].priority == 100


def test_unknown_job_and_bad_changes(qm: Harness) -> None:
    assert alter(qm, 99, {"job_name": "x"})["result"] == "unknown"
    job = qm.submit(hold=True)
    with pytest.raises(RuntimeError):
        alter(qm, job, {"script_path": "/bin/evil"})
    with pytest.raises(RuntimeError):
        alter(qm, job, {})


def test_hold_jid_sets_and_drops_the_dependency_hold(qm: Harness) -> None:
    first = qm.submit(job_name="first", hold=True)
    second = qm.submit()
    result = alter(qm, second, {"hold_jid": ["first", "77"]})
    assert result["messages"] == [f"modified job id hold list of job {second}\n"
                                  f"   blocking jobs: {first}\n   exited jobs:   77"]
    assert qm.tasks(second)[0]["holds"] == ["h"]
    alter(qm, second, {"hold_jid": ["77"]})
    assert qm.tasks(second)[0]["holds"] == [] and qm.tasks(second)[0]["state"] == "pending"


# ---- command line ----------------------------------------------------------------
def test_parse_hard_soft_and_job_list() -> None:
    req = parse_qalter(["-l", "arch=x,mem_free=1G", "-soft", "-l", "h=a", "-q", "b.q",
                        "-hard", "-q", "a.q", "-p", "-3", "-N", "n", "-pe", "smp", "2-4",
                        "-hold_jid", "1,x", "5,6", "7"])
    assert req.changes == {"hard_resources": {"arch": "x", "mem_free": "1G"},
                           "soft_resources": {"h": "a"}, "soft_queues": ["b.q"],
                           "hard_queues": ["a.q"], "priority": -3, "job_name": "n",
                           "pe": ["smp", 2, 4], "pe_ranges": [[2, 4]],
                           "hold_jid": ["1", "x"]}
    assert [r.target for r in req.refs] == ["5", "6", "7"]


@pytest.mark.parametrize(("argv", "text"), [
    (["-p", "2000", "1"], 'qalter: invalid priority "2000".  Must be an integer from '
                          "-1023 to 1024"),
    (["-N", "a/b", "1"], "qalter: argument to -N option must not contain / "),
    (["-l"], "qalter: -l option must have argument"),
    (["-now", "y", "1"], "qalter: Unknown option -now"),
    (["-xyz", "1"], 'qalter: invalid option argument "-xyz"'),
    (["-N", "n", "0"], 'ERROR! "0" is an invalid job-task identifier'),
])
def test_parse_refusals(argv: list[str], text: str) -> None:
    with pytest.raises(QalterError) as err:
        parse_qalter(argv)
    assert err.value.message.startswith(text)


def test_parse_help() -> None:
    assert parse_qalter(["-help"]).help


@given(st.integers(-1023, 1024), st.lists(st.integers(1, 10**6), min_size=1, max_size=5))
def test_parse_priority_and_ids(priority: int, ids: list[int]) -> None:
    req = parse_qalter(["-p", str(priority), ",".join(map(str, ids))])
    assert req.changes == {"priority": priority}
    assert [int(r.target) for r in req.refs] == ids


_LOWER = "abcdefghijklmnopqrstuvwxyz"
_VALUE_CHARS = _LOWER + _LOWER.upper() + "0123456789."


# [a-z][a-z_]{0,8} = [A-Za-z0-9.]{1,6}, built from their parts (from_regex draws them
# several times slower)
@given(st.dictionaries(st.tuples(st.sampled_from(_LOWER),
                                 st.text(alphabet=_LOWER + "_", max_size=8)).map("".join),
                       st.text(alphabet=_VALUE_CHARS, min_size=1, max_size=6), min_size=1))
def test_parse_resource_lists(resources: dict[str, str]) -> None:
    text = ",".join(f"{k}={v}" for k, v in resources.items())
    assert parse_qalter(["-l", text, "1"]).changes == {"hard_resources": resources}


def test_minus_R_changes_the_reservation_request() -> None:
    assert parse_qalter(["-R", "y", "5"]).changes == {"reserve": True}
    assert parse_qalter(["-R", "n", "5"]).changes == {"reserve": False}


def test_qalter_parses_start_time_and_array_dependencies() -> None:
    """qalter -a and -hold_jid_ad (8.1.9 changes both on pending jobs)."""
    request = parse_qalter(["-a", "12302359", "-hold_jid_ad", "5,six", "7"])
    assert request.changes == {"start_time": "12302359", "hold_jid_ad": ["5", "six"]}
    with pytest.raises(QalterError, match="Wrong date/time format"):
        parse_qalter(["-a", "1230", "7"])


QSUB_REFERENCE = Path(__file__).parent.parent / "data" / "reference" / "qsub"


@pytest.mark.parametrize("name", ["qalter-A", "qalter-wd", "qalter-o", "qalter-e", "qalter-i",
                                  "qalter-j", "qalter-M", "qalter-m", "qalter-masterq",
                                  "qalter-notify", "qalter-r", "qalter-S", "qalter-v",
                                  "qalter-several"])
def test_the_rest_of_qalters_options_on_a_pending_job(qm: Harness, name: str) -> None:
    """Each option as 8.1.9's qalter words its answer (captured on job 291 or 290); the
    job's options change (qstat -j of the capture: -v replaces the environment list)."""
    import shlex
    argv = shlex.split((QSUB_REFERENCE / f"{name}.cmd").read_text().removeprefix("$ "))
    job = qm.submit(hold=True, env={"TERM": None})
    request = parse_qalter(argv[1:-1] + [str(job)])
    result = alter(qm, job, request.changes)
    expected = (QSUB_REFERENCE / f"{name}.out").read_text()
    captured_id = argv[-1]
    assert "\n".join(result["messages"]) + "\n" == expected.replace(captured_id, str(job))
    opts = job_opts(qm, job)
    for key, value in request.changes.items():
        assert opts[key] == value
    if name == "qalter-v":
        assert opts["env"] == {"X": "1"}


def test_qalter_ac_dc_sc_change_the_context_as_8_1_9(qm: Harness) -> None:
    """-ac adds to the job's context, -dc deletes from it, -sc replaces it (captured on
    job 292 submitted with -ac x=0: qstat -j then shows ``x=0,a=1``, then ``c=3``)."""
    job = qm.submit(hold=True, context={"x": "0"})
    for name, expected in (("qalter-ac", {"x": "0", "a": "1", "b": "2"}),
                           ("qalter-dc", {"x": "0", "a": "1"}),
                           ("qalter-sc", {"c": "3"})):
        import shlex
        argv = shlex.split((QSUB_REFERENCE / f"{name}.cmd").read_text().removeprefix("$ "))
        result = alter(qm, job, parse_qalter(argv[1:-1] + [str(job)]).changes)
        answer = (QSUB_REFERENCE / f"{name}.out").read_text().replace(argv[-1], str(job))
        assert "\n".join(result["messages"]) + "\n" == answer
        assert job_opts(qm, job)["context"] == expected


def test_qalter_h_takes_a_hold_list() -> None:
    """qalter -h {u|s|o|n|U|S|O}...: lower case adds, upper case removes, n removes all
    three; -h alone is a user hold (qsub's -h has no argument)."""
    request = parse_qalter(["-h", "uS", "-N", "x", "5"])
    assert (request.add_holds, request.remove_holds) == (["u"], ["s"])
    assert request.changes == {"job_name": "x"}
    assert parse_qalter(["-h", "5"]).add_holds == ["u"]
    assert parse_qalter(["-h", "n", "5"]).remove_holds == ["u", "s", "o"]


@pytest.mark.parametrize("name", ["qalter-running-N", "qalter-running-o"])
def test_a_running_job_takes_the_options_of_its_next_start(qm: Harness, name: str) -> None:
    """8.1.9 changes these on a running job (effective when it starts again), answering
    as for a pending one (captured on a running job 299)."""
    import shlex
    qm.register("h1")
    job = qm.submit()
    qm.dispatch(job)
    argv = shlex.split((QSUB_REFERENCE / f"{name}.cmd").read_text().removeprefix("$ "))
    result = alter(qm, job, parse_qalter(argv[1:-1] + [str(job)]).changes)
    expected = (QSUB_REFERENCE / f"{name}.out").read_text().replace(argv[-1], str(job))
    assert "\n".join(result["messages"]) + "\n" == expected
    assert qm.tasks(job)[0]["state"] != "pending"
