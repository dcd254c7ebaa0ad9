"""qconf's daemon control answered by the qmaster (qmaster.daemon_control) through the
socket-less Harness, against 8.1.9's answers (captured by
tests/data/reference/qconf-control/capture-daemons.sh on host "vm"; here the qmaster's
host is "qm" and the execd's "h1"): managers only for what stops a daemon, checked
before anything is done; the scheduler registered by its snapshot, told to stop on the
event port; execds told to stop on their connection."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from common import wire
from common.model import UserInfo
from qmaster.event_clients import SILENT_SECONDS, EventClients
from tests.reference import REFERENCE
from tests.unit.test_qmaster_core import ALICE, ROOT, Harness

REF = REFERENCE / "qconf-control"


@pytest.fixture
def qm(tmp_path: Path) -> Harness:
    return Harness(tmp_path, auto_add_hosts=True, default_slots=2)


def control(qm: Harness, action: str, names: list[str] | None = None,
            user: UserInfo = ROOT) -> dict[str, Any]:
    return qm.call("daemon_control", {"user": user.to_dict(), "action": action,
                                      "names": names or []})


def captured(name: str, host: str = "h1") -> tuple[str, str, int]:
    """A capture's stdout, stderr and status, its host "vm" as ``host``."""
    def text(ext: str) -> str:
        return (REF / f"{name}.{ext}").read_text().replace("vm", host)
    return text("out"), text("err"), int(text("rc"))


def printed(reply: dict[str, Any]) -> tuple[str, str, int]:
    return ("".join(f"{line}\n" for line in reply["out"]),
            "".join(f"{line}\n" for line in reply["err"]), reply["status"])


def register_scheduler(qm: Harness) -> None:
    qm.call("snapshot", {}, identity=b"sched")


def shutdowns(qm: Harness) -> int:
    return sum(1 for frames in qm.pub.sent if frames[0] == wire.TOPIC_SHUTDOWN)


@pytest.mark.parametrize("action, names, name", [
    ("km", [], "user-km"), ("ks", [], "user-ks"), ("ke", ["h1"], "user-ke-vm"),
    ("kej", ["h1"], "user-kej-vm"), ("kec", ["1"], "user-kec-1"),
    ("kec", ["all"], "user-kec-all")])
def test_only_managers_stop_daemons(qm: Harness, action: str, names: list[str],
                                    name: str) -> None:
    qm.register("h1")
    register_scheduler(qm)
    sent = len(qm.router.sent)
    assert printed(control(qm, action, names, ALICE)) == captured(name)
    assert not qm.server._stop.is_set() and shutdowns(qm) == 0
    assert not [f for f in qm.router.sent[sent:] if b"execd_shutdown" in f[-1]]
    assert qm.server.services.event_clients.listed(qm.server.services.start_time + 1)


def test_threads_need_a_manager_too(qm: Harness) -> None:
    """8.1.9 starts and stops its threads for anyone (captured: user-kt-*, user-at-*);
    here -kt and -at are a manager's, as every other stop."""
    register_scheduler(qm)
    assert printed(control(qm, "kt", ["scheduler"], ALICE)) == (
        "", "shutdown requires manager privileges\n", 1)
    assert printed(control(qm, "at", ["scheduler"], ALICE))[2] == 1
    assert shutdowns(qm) == 0


def test_km_answers_then_stops_the_qmaster(qm: Harness) -> None:
    reply = control(qm, "km")
    assert printed(reply) == ("", captured("km", "qm")[1], 0) == ("", "root@qm kills qmaster\n", 0)
    assert qm.server._stop.is_set()


def test_secl_sss_and_ks_of_a_registered_scheduler(qm: Harness) -> None:
    secl = (REF / "secl.out").read_text().replace("vm", "qm")
    header = "".join(secl.splitlines(keepends=True)[:2])
    assert printed(control(qm, "secl", [], ALICE)) == (header, "", 0)
    assert printed(control(qm, "sss")) == captured("sss-after-ks")
    register_scheduler(qm)
    assert printed(control(qm, "secl", [], ALICE)) == (secl, "", 0)
    assert printed(control(qm, "sss", [], ALICE)) == ("qm\n", "", 0)
    assert printed(control(qm, "ks")) == captured("ks-running")
    assert shutdowns(qm) == 1
    assert printed(control(qm, "secl")) == (header, "", 0)
    assert printed(control(qm, "ks")) == captured("ks-again")
    assert printed(control(qm, "kt", ["scheduler"])) == captured("kt-after-ks")
    assert shutdowns(qm) == 1


def test_kt_at_and_kec_of_the_scheduler(qm: Harness) -> None:
    register_scheduler(qm)
    assert printed(control(qm, "at", ["scheduler"])) == captured("at-running")
    assert printed(control(qm, "kt", ["scheduler"])) == captured("kt-scheduler")
    assert printed(control(qm, "at", ["scheduler"]))[2] == 1  # (no process to start)
    register_scheduler(qm)  # (a scheduler started again: its first snapshot)
    assert printed(control(qm, "kec", ["all"])) == ("", "", 0)  # (8.1.9: not the scheduler)
    assert printed(control(qm, "kec", ["1"])) == captured("kec-scheduler-running")
    assert printed(control(qm, "kec", ["1"])) == captured("kec-scheduler")
    assert printed(control(qm, "kec", ["999"])) == captured("kec-missing")
    assert printed(control(qm, "kec", ["abc"])) == captured("kec-bad")
    assert printed(control(qm, "kt", ["nosuch"])) == captured("kt-bad")
    assert printed(control(qm, "at", ["nosuch"])) == captured("at-bad")
    assert shutdowns(qm) == 2


def test_jvm_is_refused(qm: Harness) -> None:
    for action in ("kt", "at"):
        out, err, status = printed(control(qm, action, ["jvm"]))
        assert status == 1 and "no JVM" in err


def test_ke_and_kej_tell_the_execd(qm: Harness) -> None:
    qm.register("h1")
    assert printed(control(qm, "kej", ["h1"])) == captured("kej-running")
    assert printed(control(qm, "ke", ["h1.example.org"])) == (
        "", "sent shutdown notification to  execd host h1\n", 0)
    told = [wire.decode(f[-1]) for f in qm.router.sent if f[0] == b"execd:h1"
            and wire.decode(f[-1])[0] == "execd_shutdown"]
    assert [body for _, _, body in told] == [{"kill_jobs": True}, {"kill_jobs": False}]
    assert printed(control(qm, "ke", ["nosuch"])) == (
        "", "failed sending shutdown notification to unknown execd host nosuch\n", 1)


def test_ke_of_a_host_whose_execd_is_gone(qm: Harness) -> None:
    qm.register("h1")
    store = qm.server.store
    from dataclasses import replace
    store.hosts["h1"] = replace(store.hosts["h1"], alive=False)
    assert printed(control(qm, "ke", ["h1"])) == captured("ke-down")
    assert printed(control(qm, "kej", ["h1"])) == captured("kej-down")
    assert printed(control(qm, "ke", ["all"])) == captured("ke-all-down")


def test_event_clients_registry() -> None:
    clients = EventClients()
    assert clients.listed(0.0) == [] and clients.drop(1) is None
    clients.registered("vm", 10.0)
    clients.heard(20.0)
    assert [c.host for c in clients.listed(20.0 + SILENT_SECONDS)] == ["vm"]
    assert clients.listed(20.1 + SILENT_SECONDS) == []  # (not heard from: gone)
    assert clients.drop(2) is None and clients.drop(1) is not None
    clients.heard(30.0)  # (a dropped scheduler's last ping does not bring it back)
    assert clients.listed(30.0) == []


def test_a_scheduler_stops_when_told() -> None:
    """The scheduler's side: the shutdown topic is its SIGTERM path (stop())."""
    from scheduler.mirror import Mirror
    from scheduler.service import SchedulerService
    service = SchedulerService("127.0.0.1", 1, 2, None)  # type: ignore[arg-type]
    service.mirror = Mirror.from_snapshot({"epoch": "e", "seq": 0, "conf": {}, "hosts": [],
                                           "jobs": [], "tasks": []})
    service._on_published(wire.encode_shutdown("e"))
    assert service._stop.is_set()


async def test_an_execd_stops_when_told(tmp_path: Path) -> None:
    """The execd's side: execd_shutdown is its SIGTERM path (stop()); with kill_jobs
    (-kej) it stops once its jobs' ends are reported (here it has none)."""
    from tests.unit.test_execd_safety import service
    plain, killing = service(tmp_path / "a"), service(tmp_path / "b")
    for execd in (plain, killing):
        execd.prepare()
    plain._dispatch("execd_shutdown", 1, {"kill_jobs": False})
    assert plain._stop.is_set()
    killing._dispatch("execd_shutdown", 1, {"kill_jobs": True})
    assert killing._stopping is not None and not killing._stop.is_set()
    await killing._stopping
    assert killing._stop.is_set()
