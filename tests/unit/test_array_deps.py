"""qsub/qalter -hold_jid_ad (qmaster.array_deps): task i of the successor waits for task
i of each predecessor; 8.1.9's refusals (captured: tests/data/reference/qsub/)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from qmaster.array_deps import NOT_AN_ARRAY, OTHER_RANGE
from tests.unit.test_qmaster_core import ALICE, BOB, Harness


@pytest.fixture
def qm(tmp_path: Path) -> Harness:
    return Harness(tmp_path, auto_add_hosts=True, default_slots=8)


def states(qm: Harness, job: int) -> dict[int, str]:
    return {t["task_id"]: t["state"] for t in qm.tasks(job)}


def finish(qm: Harness, job: int, task: int) -> None:
    qm.dispatch(job, task)
    qm.call("job_finished", {"host": "h1", "job_id": job, "task_id": task,
                             "result": {"exit_status": 0}}, identity=b"execd:h1")


def test_task_i_waits_for_task_i_of_the_predecessor(qm: Harness) -> None:
    qm.register("h1")
    first = qm.submit(array=[1, 3, 1], job_name="first")
    second = qm.submit(array=[1, 3, 1], hold_jid_ad=[str(first)])
    assert set(states(qm, second).values()) == {"hold"}
    finish(qm, first, 2)
    assert states(qm, second) == {1: "hold", 2: "pending", 3: "hold"}
    finish(qm, first, 1)
    assert states(qm, second) == {1: "pending", 2: "pending", 3: "hold"}
    finish(qm, first, 3)  # the predecessor ends: nothing waits
    assert set(states(qm, second).values()) == {"pending"}
    assert not any(t["holds"] for t in qm.tasks(second))


def test_a_name_and_a_finished_or_unknown_predecessor(qm: Harness) -> None:
    qm.register("h1")
    first = qm.submit(array=[1, 2, 1], job_name="first")
    finish(qm, first, 1)
    second = qm.submit(array=[1, 2, 1], hold_jid_ad=["first"])  # by name, task 1 done
    assert states(qm, second) == {1: "pending", 2: "hold"}
    third = qm.submit(array=[1, 2, 1], hold_jid_ad=["99999"])  # 8.1.9: accepted, no wait
    assert set(states(qm, third).values()) == {"pending"}
    # another user's job of that name is not a predecessor
    other = qm.submit(user=BOB, array=[1, 2, 1], hold_jid_ad=["first"])
    assert set(states(qm, other).values()) == {"pending"}


def refusal(qm: Harness, **opts: Any) -> str:
    with pytest.raises(RuntimeError) as err:
        qm.submit(**opts)
    return str(err.value)


def test_refused_on_a_job_that_is_no_array_or_of_another_range(qm: Harness) -> None:
    single = qm.submit(hold=True)
    array = qm.submit(hold=True, array=[1, 4, 1])
    assert NOT_AN_ARRAY in refusal(qm, hold_jid_ad=["99999"])
    assert NOT_AN_ARRAY in refusal(qm, array=[1, 4, 1], hold_jid_ad=[str(single)])
    for other in ([1, 8, 1], [1, 8, 2], [2, 5, 1], [1, 2, 1], [1, 3, 2]):
        assert OTHER_RANGE in refusal(qm, array=other, hold_jid_ad=[str(array)])
    # 8.1.9 compares the first and last ids as given, not the steps (captured)
    for same in ([1, 4, 1], [1, 4, 2], [1, 4, 3]):
        assert qm.submit(array=same, hold_jid_ad=[str(array)])


def test_other_steps_wait_for_the_tasks_that_cover_the_same_ids(qm: Harness) -> None:
    """qsub(1): a successor of -t 1-6:2 on a predecessor of -t 1-6 makes task n wait for
    tasks n and n+1; the other way round task n waits for the task whose ids hold n."""
    from qmaster.array_deps import covered
    assert list(covered([1, 6, 1], 3, 4)) == [3, 4]
    assert list(covered([1, 6, 2], 2, 2)) == [1] and list(covered([1, 6, 2], 3, 3)) == [3]
    assert list(covered([1, 6, 3], 1, 6)) == [1, 4]
    qm.register("h1")
    fine = qm.submit(array=[1, 6, 1])
    coarse = qm.submit(array=[1, 6, 2], hold_jid_ad=[str(fine)])
    finish(qm, fine, 1)
    assert states(qm, coarse) == {1: "hold", 3: "hold", 5: "hold"}
    finish(qm, fine, 2)
    assert states(qm, coarse) == {1: "pending", 3: "hold", 5: "hold"}
    fine2 = qm.submit(array=[1, 6, 2])
    follows = qm.submit(array=[1, 6, 1], hold_jid_ad=[str(fine2)])
    finish(qm, fine2, 3)
    assert states(qm, follows) == {1: "hold", 2: "hold", 3: "pending", 4: "pending",
                                   5: "hold", 6: "hold"}


def test_qalter_sets_and_drops_the_array_dependency(qm: Harness) -> None:
    first = qm.submit(hold=True, array=[1, 2, 1])
    single = qm.submit(hold=True)
    second = qm.submit(array=[1, 2, 1])
    body = {"user": ALICE.to_dict(), "targets": [{"job_id": second}],
            "changes": {"hold_jid_ad": [str(first)]}}
    [result] = qm.call("alter", body)["results"]
    assert result["messages"] == [f"modified job id hold array list of job {second}\n"
                                  f"   blocking jobs: {first}\n   exited jobs:   NONE"]
    assert set(states(qm, second).values()) == {"hold"}
    body["changes"] = {"hold_jid_ad": [str(single)]}
    [result] = qm.call("alter", body)["results"]
    assert result["result"] == "denied" and result["messages"] == [NOT_AN_ARRAY]
    body["changes"] = {"hold_jid_ad": ["77777"]}
    [result] = qm.call("alter", body)["results"]
    assert result["messages"][0].endswith("blocking jobs: NONE\n   exited jobs:   77777")
    assert set(states(qm, second).values()) == {"pending"}


REFERENCE = Path(__file__).parent.parent / "data" / "reference" / "qsub"


def captured(name: str, ext: str = "err") -> str:
    return (REFERENCE / f"{name}.{ext}").read_text()


def test_the_words_are_8_1_9s(qm: Harness) -> None:
    """qsub's refusals as 8.1.9's qsub prints them; qalter's answers with the job ids of
    the capture put in."""
    from clients.qsub.options import unable_to_run
    for name, text in (("hold-jid-ad-not-array", NOT_AN_ARRAY),
                       ("hold-jid-ad-pred-not-array", NOT_AN_ARRAY),
                       ("hold-jid-ad-other-range", OTHER_RANGE)):
        assert unable_to_run(text) + "\n" == captured(name)
        assert captured(name, "rc") == "1\n"
    assert captured("qalter-hold-jid-ad-not-array", "out") == NOT_AN_ARRAY + "\n"
    first = qm.submit(hold=True, array=[1, 4, 1])
    second = qm.submit(hold=True, array=[1, 4, 1])
    body = {"user": ALICE.to_dict(), "targets": [{"job_id": second}],
            "changes": {"hold_jid_ad": [str(first)]}}
    [result] = qm.call("alter", body)["results"]
    expected = captured("qalter-hold-jid-ad", "out").replace("259", str(first))
    assert "\n".join(result["messages"]) + "\n" == expected.replace("264", str(second))
    body["changes"] = {"start_time": "12302359"}
    [result] = qm.call("alter", body)["results"]
    assert result["messages"] == [captured("qalter-a", "out").strip().replace(
        "264", str(second))]


def test_a_restart_keeps_the_waiting_tasks_and_goes_on_releasing(tmp_path: Path) -> None:
    qm = Harness(tmp_path, auto_add_hosts=True, default_slots=8)
    qm.register("h1")
    first = qm.submit(array=[1, 3, 1])
    second = qm.submit(array=[1, 3, 1], hold_jid_ad=[str(first)])
    finish(qm, first, 2)
    qm.server.spool.close()
    again = Harness(tmp_path, auto_add_hosts=True, default_slots=8)
    assert again.server.store.set_aside == {}
    assert states(again, second) == {1: "hold", 2: "pending", 3: "hold"}
    again.register("h1")
    finish(again, first, 3)
    assert states(again, second) == {1: "hold", 2: "pending", 3: "pending"}
    again.server.spool.close()


def test_a_predecessor_task_deleted_before_it_started_releases_its_successor(
        qm: Harness) -> None:
    first = qm.submit(array=[1, 3, 1], hold=True)
    second = qm.submit(array=[1, 3, 1], hold_jid_ad=[str(first)])
    qm.call("delete", {"user": ALICE.to_dict(),
                       "targets": [{"job_id": first, "tasks": [[2, 2, 1]]}]})
    assert states(qm, second) == {1: "hold", 2: "pending", 3: "hold"}


def test_names_are_resolved_when_the_job_is_submitted(qm: Harness) -> None:
    """qsub(1): name dependencies are resolved at submit time; a later job of that name
    is no predecessor."""
    qm.register("h1")
    first = qm.submit(array=[1, 2, 1], job_name="pre")
    second = qm.submit(array=[1, 2, 1], hold_jid_ad=["pre"])
    qm.submit(array=[1, 2, 1], job_name="pre", hold=True)  # later: not waited for
    finish(qm, first, 1)
    assert states(qm, second) == {1: "pending", 2: "hold"}
