"""Checkpointing environments (checkpoint(5)): ``qconf -ackpt -Ackpt -mckpt -Mckpt -sckpt
-sckptl -dckpt`` and a queue's ``ckpt_list``, replayed against Grid Engine 8.1.9's
captures (tests/data/reference/ckpt/, capture.sh there): the real qconf client talks to
the real request handlers over an in-memory store, and each command's stdout, stderr
and exit status must be 8.1.9's.
"""
from __future__ import annotations

import os
import stat
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clients.api import ClientError
from clients.qconf.base import QconfError, Session
from clients.qconf.main import run
from common import wire
from common.model import UserInfo
from common.objects_conf import parse_object, render_object, template
from common.objects_conf.ckpt import WHEN_ORDER, parse_when, signal_number
from qmaster.conf import requests as conf_requests
from qmaster.context import Ctx, RequestError, Services
from qmaster.defaults import bootstrap, ensure_host_lists
from qmaster.store import Batch, Store

REF = Path(__file__).parents[1] / "data" / "reference" / "ckpt"
HOST = "vm"  # the host 8.1.9's confirmations name (root@vm)


class InProcessClient:
    """conf_get/conf_put/conf_del answered by the qmaster's handlers, as over the wire."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.user = UserInfo("root", 0, "root", 0, HOST)

    def _call(self, handler: Any, msg_type: str, **fields: Any) -> Any:
        who = self.user
        _, _, body = wire.decode(wire.encode(msg_type, {"user": who.to_dict(), **fields}, 1))
        batch = Batch()
        ctx = Ctx(self.store, batch, Services(epoch="e", qmaster_host=HOST), b"c", 1,
                  time.time(), body)
        try:
            return handler(ctx)
        except RequestError as exc:
            raise ClientError(exc.code, exc.message) from None

    def conf_get(self, kind: str) -> Any:
        return self._call(conf_requests.handle_conf_get, "conf_get", kind=kind)["objects"]

    def conf_put(self, kind: str, name: str, data: Any, mode: str) -> Any:
        return self._call(conf_requests.handle_conf_put, "conf_put", kind=kind, name=name,
                          data=data, mode=mode)

    def conf_del(self, kind: str, name: str) -> Any:
        return self._call(conf_requests.handle_conf_del, "conf_del", kind=kind, name=name)

    def cluster(self) -> Any:
        return self._call(conf_requests.handle_cluster_query, "cluster_query")

    def jobs(self) -> Any:
        from qmaster import jobs
        return self._call(jobs.handle_job_query, "job_query")

    def daemon_control(self, action: str, names: list[str] | None = None) -> Any:
        from qmaster import daemon_control
        return self._call(daemon_control.handle_daemon_control, "daemon_control",
                          action=action, names=names or [])


def new_store() -> Store:
    store, batch = Store(), Batch()
    bootstrap(store, batch, ["root"], 0)
    ensure_host_lists(store, batch, HOST)
    store.forget_journal()
    return store


def editor(tmp: Path, name: str, body: str) -> str:
    path = tmp / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def qconf(capsys: pytest.CaptureFixture[str], store: Store, argv: list[str],
          env_editor: str | None = None) -> tuple[str, str, int]:
    old = os.environ.get("EDITOR")
    if env_editor is not None:
        os.environ["EDITOR"] = env_editor
    try:
        rc = run(argv, Session(lambda: InProcessClient(store)))
    except QconfError as exc:  # as clients.qconf.main.main ends
        if exc.message:
            sys.stderr.write(exc.message.rstrip("\n") + "\n")
        rc = exc.code
    finally:
        if old is None:
            os.environ.pop("EDITOR", None)
        else:
            os.environ["EDITOR"] = old
    out, err = capsys.readouterr()
    return out, err, rc


def captured(name: str) -> tuple[list[str], tuple[str, str, int]]:
    argv = (REF / f"{name}.cmd").read_text().split()[2:]  # "$ qconf ..."
    return argv, ((REF / f"{name}.out").read_text(), (REF / f"{name}.err").read_text(),
                  int((REF / f"{name}.rc").read_text()))


# the captures in capture.sh's order; the editor each -a/-m ran with
SEQUENCE = [
    ("sckptl-empty", None), ("sckpt-missing", None), ("sckpt-noarg", None),
    ("Ackpt-noarg", None), ("dckpt-missing", None), ("mckpt-missing", None),
    ("Ackpt-nofile", None), ("ackpt-unchanged", "true"), ("ackpt-template", "touch"),
    ("sckpt-template", None), ("sckptl-one", None), ("ackpt-exists", "touch"),
    ("sckpt-two", None), ("mckpt-when", "when"), ("sckpt-after-mckpt", None),
    ("mckpt-badwhen", "badwhen"), ("mckpt-rename", "rename"),
    ("sckptl-after-rename", None), ("Mckpt", None), ("sckpt-after-Mckpt", None),
    ("Mckpt-missing", None), ("Aq-unknown-ckpt", None), ("Aq-ckpt", None),
    ("dckpt-referenced", None), ("mattr-ckpt-unknown", None),
    ("aattr-ckpt-unknown", None), ("mattr-ckpt-host", None), ("dq", None),
    ("dckpt", None), ("dckpt-again", None), ("dckpt-two", None),
]
# -aattr/-mattr/-dattr/-rattr ckpt, on c1 as capture.sh adds it
ATTR_SEQUENCE = ["attr-mattr-when", "attr-mattr-bad-when", "attr-mattr-signal",
                 "attr-mattr-nosuch", "attr-mattr-missing", "attr-aattr-when",
                 "attr-rattr-when", "attr-dattr-when", "attr-mattr-interface", "attr-sckpt"]
EDITORS = {
    "true": "true",
    "touch": 'touch "$1"',
    "when": 'sed -i "s/^when .*/when xmr/" "$1"',
    "badwhen": 'sed -i "s/^when .*/when q/" "$1"',
    "rename": 'sed -i "s/^ckpt_name .*/ckpt_name c1x/" "$1"',
}


def test_the_captured_session_as_8_1_9(capsys: pytest.CaptureFixture[str],
                                       tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REF)  # the commands name their input files relatively
    store = new_store()
    for name, edit in SEQUENCE:
        argv, expected = captured(name)
        env = editor(tmp_path, edit, EDITORS[edit]) if edit else None
        assert qconf(capsys, store, argv, env) == expected, name


def test_attribute_options_as_8_1_9(capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """8.1.9 adds a line naming its temporary file to the refusal of an unknown
    attribute; that line is not ours (docs/compatibility.md)."""
    monkeypatch.chdir(REF)
    store = new_store()
    assert qconf(capsys, store, ["-Ackpt", "attr-c1.input"])[2] == 0
    for name in ATTR_SEQUENCE:
        argv, (out, err, rc) = captured(name)
        if name == "attr-mattr-nosuch":
            err = err.splitlines()[0] + "\n"
        assert qconf(capsys, store, argv) == (out, err, rc), name


ADDED = sorted(p.name[:-len(".cmd")] for p in REF.glob("*.cmd")
               if (REF / p.name.replace(".cmd", ".input")).exists()
               and p.name[:-len(".cmd")] not in dict(SEQUENCE)
               and not p.name.startswith("attr-"))


@pytest.mark.parametrize("name", ADDED)
def test_each_captured_file_as_8_1_9(name: str, capsys: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """-Ackpt of each captured file: 8.1.9's answer, and what -sckpt shows then."""
    monkeypatch.chdir(REF)
    store = new_store()
    argv, expected = captured(name)
    assert qconf(capsys, store, argv) == expected
    shown = REF / f"{name}.shown"
    if shown.exists():
        objects = store.conf["ckpt"]
        assert len(objects) == 1
        out, err, rc = qconf(capsys, store, ["-sckpt", next(iter(objects))])
        assert (out, err, rc) == (shown.read_text(), "", 0)


def test_the_template_is_8_1_9s() -> None:
    assert render_object("ckpt", template("ckpt", "tmpl")) == (
        "ckpt_name          tmpl\ninterface          userdefined\n"
        "ckpt_command       none\nmigr_command       none\nrestart_command    none\n"
        "clean_command      none\nckpt_dir           /tmp\nsignal             none\n"
        "when               sx\n")
    from common.objects_conf.ckpt import canonical
    assert canonical(parse_object("ckpt", render_object("ckpt", template("ckpt", "a"))))[-1] \
        == ["when", "xs"]  # (as the qmaster stores it)


@given(st.text(alphabet="xsmrn", min_size=1, max_size=6))
def test_when_letters_each_once_in_8_1_9s_order(text: str) -> None:
    canonical = parse_when(text)
    if "n" in text:
        assert canonical == ("n" if set(text) == {"n"} else None)
    else:
        assert canonical == "".join(c for c in WHEN_ORDER if c in text)
        assert parse_when(canonical) == canonical


@pytest.mark.parametrize("text", ["", "S", "a", "sx ", "smn", "N"])
def test_when_refusals(text: str) -> None:
    assert parse_when(text) is None


def test_signals() -> None:
    assert signal_number("none") is None and signal_number("NONE") is None
    assert signal_number("usr2") == signal_number("USR2") == 12
    assert signal_number("99") == 99
    for bad in ("SIGUSR2", "foo", "-1"):
        with pytest.raises(ValueError):
            signal_number(bad)


# ---- qsub -ckpt / -c at the qmaster ----------------------------------------------------
@pytest.fixture
def qm(tmp_path: Path) -> Any:
    from tests.unit.test_qmaster_core import Harness
    return Harness(tmp_path, auto_add_hosts=True, default_slots=2)


def refused_submission(qm: Any, **opts: Any) -> str:
    from clients.api import job_request
    from tests.unit.test_qmaster_core import ALICE
    with pytest.raises(RuntimeError) as refused:
        qm.call("submit", {"user": ALICE.to_dict(),
                           "jobs": [job_request("/bin/true", binary=True, **opts)]})
    return str(refused.value)


def unable(name: str) -> str:
    """The qmaster's part of a captured qsub refusal ("Unable to run job: ...")."""
    return (REF / f"{name}.err").read_text().splitlines()[0].removeprefix(
        "Unable to run job: ")


def test_qsub_names_an_existing_environment(qm: Any) -> None:
    assert refused_submission(qm, checkpoint_name="nosuch") == unable("qsub-ckpt-nosuch")
    assert refused_submission(qm, checkpoint_occasion="s") == unable("qsub-c-without-ckpt")
    assert qm.submit(checkpoint_occasion="n")  # -c n needs none


def put_ckpt(qm: Any, name: str, **values: str) -> None:
    pairs = [[k, values.get(k, v)] for k, v in template("ckpt", name)]
    qm.call("conf_put", {"user": _root(), "kind": "ckpt", "name": name, "mode": "add",
                         "data": pairs})


@pytest.mark.parametrize("values, occasion, refusal", [
    ({"interface": "hibernator"}, None,
     'its interface "hibernator" (only userdefined, application-level and transparent)'),
    ({"interface": "CPR"}, "x",
     'its interface "CPR" (only userdefined, application-level and transparent)'),
])
def test_what_is_not_carried_out_is_refused(qm: Any, values: dict[str, str],
                                            occasion: str | None, refusal: str) -> None:
    put_ckpt(qm, "c1", **values)
    opts = {"checkpoint_occasion": occasion} if occasion else {}
    assert refused_submission(qm, checkpoint_name="c1", **opts) == \
        f'job rejected: checkpointing environment "c1": {refusal} is not supported by this version'
    assert not qm.server.store.jobs


@pytest.mark.parametrize("values, occasion", [
    ({"when": "x"}, None), ({"interface": "APPLICATION-LEVEL", "when": "xm"}, None),
    ({}, "x"), ({}, "n"), ({"when": "n"}, None),
    ({"ckpt_command": "/bin/ck $job_pid", "migr_command": "/bin/mg", "signal": "usr2",
      "when": "xm"}, None),
    ({"interface": "application-level", "restart_command": "/bin/rs", "when": "x"}, None),
    ({"clean_command": "/bin/cl", "when": "x"}, None),
    ({"restart_command": "/bin/rs", "when": "x"}, None), ({"when": "xmr"}, None),
    ({}, None), ({"when": "r"}, None), ({}, "s"),  # (the template's when: sx)
    ({"interface": "transparent", "signal": "usr1", "restart_command": "/bin/rs"}, None)])
def test_what_is_carried_out_is_accepted(qm: Any, values: dict[str, str],
                                         occasion: str | None) -> None:
    put_ckpt(qm, "c1", **values)
    opts = {"checkpoint_occasion": occasion} if occasion else {}
    assert qm.submit(checkpoint_name="c1", **opts) == 1


def test_a_checkpointed_job_runs_only_where_ckpt_list_names_it() -> None:
    from common.cluster import QueueInstance
    from common.placement.job import placement_job, placement_record
    job = placement_job(placement_record(1, "u", "g", {"checkpoint_name": "c1"}))
    plain = placement_job(placement_record(2, "u", "g", {}))
    assert job.checkpoint == "c1" and plain.checkpoint is None
    assert job.requests_key != plain.requests_key  # not one category
    listed = QueueInstance("ck.q", "vm", 1, 0, "BATCH", True, ckpt_list="c0 c1")
    unlisted = QueueInstance("all.q", "vm", 1, 0, "BATCH", True)
    assert listed.takes_checkpointing("c1") and not unlisted.takes_checkpointing("c1")


def test_suspending_a_checkpointed_job_with_x_migrates_it(qm: Any) -> None:
    """qmod -sj (and every suspension of its queue) aborts and reschedules the job; it
    starts again with RESTARTED=1. A job without x is suspended as any other."""
    from tests.unit.test_qmaster_core import ALICE
    qm.register("h1")
    q = qm.server.store.conf["queue"]["all.q"]
    q[:] = [[k, "c1 c2" if k == "ckpt_list" else v] for k, v in q]
    put_ckpt(qm, "c1", when="x")
    put_ckpt(qm, "c2", when="m")
    migrating, staying = qm.submit(checkpoint_name="c1"), qm.submit(checkpoint_name="c2")
    for job_id in (migrating, staying):
        qm.dispatch(job_id)
        qm.call("job_started", {"host": "h1", "job_id": job_id, "task_id": 1, "start_time": 1.0},
                identity=b"execd:h1")
    qm.router.sent.clear()
    for job_id in (migrating, staying):
        qm.call("qmod", {"user": ALICE.to_dict(), "items": [
            {"action": "suspend", "scope": "job", "ref": str(job_id)}]})
    store = qm.server.store
    moved, kept = store.tasks[f"{migrating}.1"], store.tasks[f"{staying}.1"]
    assert moved.reschedule and moved.state == "running"
    assert kept.state == "suspended" and not kept.reschedule
    kills = [wire.decode(p)[2] for ident, p in qm.router.sent if ident == b"execd:h1"
             and wire.decode(p)[0] == "signal_job"]
    assert {(k["job_id"], k["action"]) for k in kills} == {(migrating, "migrate"),
                                                            (staying, "suspend")}


def _root() -> dict[str, Any]:
    from tests.unit.test_qmaster_core import ROOT
    return dict(ROOT.to_dict())


def test_environments_are_spooled(tmp_path: Path) -> None:
    from tests.unit.test_qmaster_core import Harness
    qm = Harness(tmp_path, auto_add_hosts=True)
    put_ckpt(qm, "c1", when="xm", ckpt_dir="/var/tmp")
    qm.server.spool.close()
    again = Harness(tmp_path, auto_add_hosts=True)
    assert dict(map(tuple, again.server.store.conf["ckpt"]["c1"]))["when"] == "xm"
    assert dict(map(tuple, again.server.store.conf["ckpt"]["c1"]))["ckpt_dir"] == "/var/tmp"


# ---- what the shepherd does (execd.control, qmaster.start_spec) ------------------------------
def _controller(ckpt: dict[str, str] | None, notify: float = 60.0) -> Any:
    from execd.control import Controller
    return Controller(limits={}, notify_seconds=notify, notify_job=False, methods={},
                      variables={"job_id": "7", "job_pid": "123", "host": "vm"}, ckpt=ckpt)


CKPT = {"interface": "userdefined", "ckpt_command": "/bin/ck $job_id $job_pid $ckpt_dir",
        "migr_command": "/bin/mg $ckpt_signal", "ckpt_dir": "/var/tmp", "signal": "usr2",
        "when": "xm", "interval": "30"}


def test_periodic_checkpoints_run_the_command_and_send_the_signal() -> None:
    import signal as signals
    from execd.control import Step
    control = _controller(CKPT)
    assert control.next_due() == 30.0
    assert control.tick(29.0, 0.0, 0.0) == []
    expected = [Step(command=("/bin/ck", "7", "123", "/var/tmp"), reason="checkpoint"),
                Step(signals.SIGUSR2, reason="checkpoint")]
    assert control.tick(30.0, 0.0, 0.0) == expected
    assert control.next_due() == 60.0
    assert control.tick(60.5, 0.0, 0.0) == expected
    assert _controller({**CKPT, "when": "x"}).next_due() is None  # no m: none
    assert _controller(None).next_due() is None


def test_migration_runs_migr_command_then_kills_after_notify() -> None:
    import signal as signals
    from execd.control import Step
    control = _controller(CKPT, notify=5.0)
    assert control.request("migrate", 10.0) == [
        Step(command=("/bin/mg", "usr2"), reason="migrate"),
        Step(signals.SIGUSR2, reason="migrate")]
    assert control.next_due() == 15.0  # the periodic checkpoints stop
    assert control.tick(15.0, 0.0, 0.0) == [Step(signals.SIGKILL, reason="migrate")]
    bare = _controller({**CKPT, "migr_command": "none", "signal": "none"})
    assert bare.request("migrate", 1.0) == [Step(signals.SIGKILL, reason="migrate")]
    assert _controller(None).request("migrate", 1.0) == [Step(signals.SIGKILL,
                                                               reason="migrate")]


def test_the_clean_command_runs_unless_the_job_was_migrated() -> None:
    from execd.control import Step
    cleaning = {**CKPT, "clean_command": "/bin/cl $job_id $ckpt_dir"}
    assert _controller(cleaning).clean_step() == Step(command=("/bin/cl", "7", "/var/tmp"),
                                                      reason="clean")
    migrated = _controller(cleaning)
    migrated.request("migrate", 1.0)
    assert migrated.clean_step() is None
    assert _controller(CKPT).clean_step() is None  # (none)
    assert _controller(None).clean_step() is None


def test_the_start_spec_carries_the_checkpointing(qm: Any) -> None:
    from qmaster.start_spec import checkpointing
    put_ckpt(qm, "c1", when="xm", ckpt_command="/bin/ck", signal="usr2")
    store = qm.server.store
    job_id = qm.submit(checkpoint_name="c1", checkpoint_interval=600)
    job = store.jobs[job_id]
    queue = [[k, "00:01:00,[vm=00:20:00]" if k == "min_cpu_interval" else v]
             for k, v in store.conf["queue"]["all.q"]]
    assert checkpointing(store.conf, job, queue, "h1", {}) == {
        "interface": "userdefined", "ckpt_command": "/bin/ck", "migr_command": "none",
        "clean_command": "none", "ckpt_dir": "/tmp", "signal": "usr2", "when": "xm",
        "interval": "600"}
    assert checkpointing(store.conf, job, queue, "vm", {})["interval"] == "1200"
    assert checkpointing(store.conf, store.jobs[qm.submit()], queue, "h1", {}) is None


def test_a_restarted_userdefined_job_runs_the_restart_command(qm: Any) -> None:
    from dataclasses import replace
    from qmaster.start_spec import start_spec
    put_ckpt(qm, "u", when="x", restart_command="/bin/rs $job_id $ckpt_dir $job_name")
    put_ckpt(qm, "a", when="x", interface="application-level", restart_command="/bin/rs")
    store = qm.server.store
    qm.register("h1")
    user, app = qm.submit(checkpoint_name="u"), qm.submit(checkpoint_name="a")
    for job_id in (user, app):
        qm.dispatch(job_id)
    first = start_spec(store.conf, store.jobs[user], store.tasks[f"{user}.1"])
    assert (first["command"], first["restarted"]) == ("/bin/true", 0)
    again = start_spec(store.conf, store.jobs[user], replace(store.tasks[f"{user}.1"],
                                                               restarts=1))
    assert (again["binary"], again["command"], again["args"], again["restarted"]) == \
        (True, "/bin/rs", [str(user), "/tmp", "true"], 1)
    app_again = start_spec(store.conf, store.jobs[app], replace(store.tasks[f"{app}.1"],
                                                                  restarts=1))
    assert app_again["command"] == "/bin/true"  # (application-level: no restart_command)


def test_r_reschedules_from_a_lost_host() -> None:
    from dataclasses import replace
    from qmaster.lost_hosts import RESCHEDULE, lost_task_actions
    # (the lost-host rules' own tests build their jobs and tasks this way)
    from tests.unit.test_lost_hosts import POLICY, job, running
    jobs = {1: replace(job(1), opts={"checkpoint_name": "c1"}),
            2: replace(job(2), opts={"checkpoint_name": "c2"}), 3: job(3)}
    ckpt_r = {"c1": True, "c2": False}
    actions = lost_task_actions([running(1), running(2), running(3)], jobs, {"a"}, POLICY,
                                lambda task: False,
                                lambda j: ckpt_r.get(j.opts.get("checkpoint_name"), False))
    assert [(t.job_id, a) for t, a in actions] == [(1, RESCHEDULE)]


def test_the_qmaster_tells_r_jobs(qm: Any) -> None:
    put_ckpt(qm, "r1", when="xr")
    put_ckpt(qm, "x1", when="x")
    store = qm.server.store
    with_r, without = qm.submit(checkpoint_name="r1"), qm.submit(checkpoint_name="x1")
    by_c = qm.submit(checkpoint_name="x1", checkpoint_occasion="r")
    assert qm.server._checkpoint_r(store.jobs[with_r])
    assert not qm.server._checkpoint_r(store.jobs[without])
    assert qm.server._checkpoint_r(store.jobs[by_c])
    assert not qm.server._checkpoint_r(store.jobs[qm.submit()])


def test_a_migrated_jobs_result_asks_for_a_reschedule() -> None:
    """(what brings back a job the execd's shutdown migrated: ``s``)"""
    import signal as signals
    from execd.jobdir import make_result
    spec = {"job_id": 1, "task_id": None}
    killed = dict(pid=5, start=0.0, end=1.0, status=signals.SIGKILL, usage=None, maxvmem=0,
                  failure=None)
    assert make_result(spec, **killed, measured={"ended_by": "migrate"})["action"] == \
        "reschedule"
    assert make_result(spec, **killed, measured={"ended_by": "kill"})["action"] == ""
