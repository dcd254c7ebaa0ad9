"""The pure rules of job control: limits from the queue and the request, setrlimit plans,
the shepherd's controller (limits, -notify, methods), process trees, prolog outcomes."""
from __future__ import annotations

import resource
import signal

from hypothesis import given
from hypothesis import strategies as st

from common import limits, wire
from common.model import Job, Task
from execd import jobdir, proctree, rlimits
from execd.control import Controller, Step, expand_method, parse_method, signal_number
from common.limits import NAMES as LIMITS
from common.start_record import message_schema
from qmaster.start_spec import execution_settings, job_limits, start_spec

INF = rlimits.INFINITY


# ---- limits: request bounded by the queue, per slot ---------------------------------

def test_the_request_wins_below_the_queue_and_the_queue_caps_it() -> None:
    queue = {"h_vmem": "2G", "h_rt": "1:0:0", "s_cpu": "INFINITY"}
    assert job_limits(queue, {"h_vmem": "1G"}, 1) == {"h_vmem": 1024 ** 3, "h_rt": 3600}
    assert job_limits(queue, {"h_vmem": "4G"}, 1)["h_vmem"] == 2 * 1024 ** 3
    assert job_limits({}, {"s_cpu": "0:0:30"}, 1) == {"s_cpu": 30}


def test_per_slot_limits_are_multiplied_by_the_slots_on_the_host() -> None:
    limits = job_limits({}, {"h_vmem": "100M", "h_rt": "60", "h_fsize": "1M",
                             "h_cpu": "10", "h_stack": "8M"}, 4)
    assert limits == {"h_vmem": 400 * 1024 ** 2, "h_rt": 60, "h_fsize": 1024 ** 2,
                      "h_cpu": 40, "h_stack": 8 * 1024 ** 2}


def test_the_wire_knows_every_limit() -> None:
    assert wire.MESSAGE_SCHEMAS["start_job"].required["spec"] is message_schema()
    assert message_schema().optional["limits"][0].key.choices == set(LIMITS)


GROUPS = {"@fast": ["n2"]}


def test_settings_are_resolved_per_host_and_fall_back_to_the_configuration() -> None:
    queue = [["shell", "/bin/sh,[n1=/bin/bash]"], ["tmpdir", "/tmp,[@fast=/scratch]"],
             ["shell_start_mode", "posix_compliant,[n1=unix_behavior]"],
             ["prolog", "NONE,[n2=root@/etc/prolog.sh]"], ["notify", "00:00:10"],
             ["priority", "0,[n1=5]"], ["processors", "UNDEFINED,[n1=0-1]"],
             ["terminate_method", "/bin/term $job_pid"], ["suspend_method", "NONE"]]
    glob = [["login_shells", "sh,bash"], ["prolog", "/global/prolog"], ["epilog", "none"]]
    n1 = execution_settings(queue, "n1", GROUPS, [["epilog", "/n1/epilog"]], glob)
    n2 = execution_settings(queue, "n2", GROUPS, [], glob)
    assert (n1["shell"], n1["tmpdir_base"], n1["shell_start_mode"]) == \
        ("/bin/bash", "/tmp", "unix_behavior")
    assert (n2["shell"], n2["tmpdir_base"], n2["shell_start_mode"]) == \
        ("/bin/sh", "/scratch", "posix_compliant")
    assert (n1["prolog"], n1["epilog"]) == ("/global/prolog", "/n1/epilog")
    assert (n2["prolog"], n2["epilog"]) == ("root@/etc/prolog.sh", None)
    assert (n1["priority"], n1["processors"], n2["priority"], n2["processors"]) == \
        (5, "0-1", 0, None)
    assert n1["notify"] == 10 and n1["login_shells"] == ["sh", "bash"]
    assert (n1["terminate_method"], n1["suspend_method"]) == ("/bin/term $job_pid", None)


def test_the_start_spec_carries_resolved_values_and_passes_the_wire() -> None:
    conf = {"queue": {"all.q": [["shell", "/bin/sh,[n1=/bin/bash]"], ["h_vmem", "1G"],
                                ["tmpdir", "/tmp,[n1=/scratch]"]]},
            "hgrp": {}, "conf": {"global": []}, "complex": {}}
    job = Job(job_id=5, owner="u", uid=1000, group="g", gid=1000, submit_time=0.0,
              opts={"job_name": "j", "hard_resources": {"h_vmem": "100M"}, "notify": True,
                    "pe": ["smp", 2, 2]}, sge_o={})
    task = Task(job_id=5, task_id=1, queue="all.q", host="n1", slots=2,
                granted=[["all.q", "n1", 2]], granted_pe="smp", restarts=1)
    spec = start_spec(conf, job, task)
    assert (spec["shell"], spec["tmpdir_base"]) == ("/bin/bash", "/scratch")
    assert spec["limits"] == {"h_vmem": 200 * 1024 ** 2}
    assert spec["notify_job"] and spec["restarted"] == 1
    wire.MESSAGE_SCHEMAS["start_job"].check({"job_id": 5, "task_id": 1, "spec": spec}, "")


# ---- setrlimit plans ---------------------------------------------------------------

CURRENT = {res: (INF, INF) for res in rlimits.RESOURCES.values()}


def test_a_hard_limit_alone_sets_the_soft_one_too() -> None:
    plan = rlimits.plan({"h_vmem": 100.0, "s_cpu": 5.0}, CURRENT, privileged=True)
    assert plan == {resource.RLIMIT_AS: (100, 100), resource.RLIMIT_CPU: (5, INF)}


def test_soft_never_exceeds_hard_and_the_unprivileged_keep_their_hard_limits() -> None:
    current = {**CURRENT, resource.RLIMIT_FSIZE: (INF, 50)}
    assert rlimits.plan({"s_fsize": 80.0, "h_fsize": 60.0}, current, privileged=True) == \
        {resource.RLIMIT_FSIZE: (60, 60)}
    assert rlimits.plan({"s_fsize": 80.0}, current, privileged=False) == \
        {resource.RLIMIT_FSIZE: (50, 50)}


@given(st.dictionaries(st.sampled_from(sorted(LIMITS)),
                       st.floats(0, 1e15, allow_nan=False), max_size=8))
def test_every_plan_is_valid_for_setrlimit(limits: dict[str, float]) -> None:
    for soft, hard in rlimits.plan(limits, CURRENT, privileged=True).values():
        assert hard == INF or (0 <= soft <= hard)


# ---- the controller ----------------------------------------------------------------

def controller(**kw: object) -> Controller:
    base: dict = {"limits": {}, "notify_seconds": 5.0, "notify_job": False,
                  "methods": {}, "variables": {"job_pid": "42", "queue": "q"}}
    base.update(kw)
    return Controller(**base)


def test_hard_limits_kill_once_and_say_which() -> None:
    ctl = controller(limits={"h_rt": 10.0, "h_vmem": 100.0})
    assert ctl.tick(5.0, 0.0, 50.0) == []
    assert ctl.tick(6.0, 0.0, 150.0) == [Step(signal.SIGKILL, reason="h_vmem")]
    assert ctl.tick(11.0, 0.0, 150.0) == []
    assert ctl.ended_by == "h_vmem"


def test_s_rt_warns_then_kills_after_notify() -> None:
    ctl = controller(limits={"s_rt": 10.0}, notify_seconds=3.0)
    assert ctl.tick(10.5, 0, 0) == [Step(signal.SIGUSR1, reason="s_rt")]
    assert ctl.tick(11.0, 0, 0) == [] and ctl.next_due() == 13.5
    assert ctl.tick(13.5, 0, 0) == [Step(signal.SIGKILL, reason="s_rt")]


def test_soft_cpu_and_vmem_send_sigxcpu_once() -> None:
    ctl = controller(limits={"s_cpu": 1.0, "s_vmem": 10.0})
    assert ctl.tick(1, 2.0, 20.0) == [Step(signal.SIGXCPU, reason="s_cpu"),
                                      Step(signal.SIGXCPU, reason="s_vmem")]
    assert ctl.tick(2, 3.0, 30.0) == []


def test_notify_warns_before_suspend_and_terminate() -> None:
    ctl = controller(notify_job=True, notify_seconds=2.0)
    assert ctl.request("suspend", 1.0) == [Step(signal.SIGUSR1, reason="notify suspend")]
    assert ctl.tick(2.0, 0, 0) == []
    assert ctl.tick(3.0, 0, 0) == [Step(signal.SIGSTOP, reason="suspend")]
    assert ctl.request("resume", 4.0) == [Step(signal.SIGCONT, reason="resume")]
    assert ctl.request("terminate", 5.0) == [Step(signal.SIGUSR2, reason="notify terminate")]
    assert ctl.tick(7.0, 0, 0) == [Step(signal.SIGKILL, reason="terminate")]
    assert ctl.ended_by == "terminate"


def test_execd_params_notify_kill_and_notify_susp_change_or_drop_the_warning() -> None:
    from common import conf_params
    settings = conf_params.job_settings("NOTIFY_KILL=TERM,NOTIFY_SUSP=none")
    ctl = controller(notify_job=True, notify_seconds=2.0,
                     notify_signals=settings["notify_signals"])
    assert ctl.request("suspend", 1.0) == []  # (none: no warning, the same delay)
    assert ctl.tick(3.0, 0, 0) == [Step(signal.SIGSTOP, reason="suspend")]
    ctl.request("resume", 4.0)
    assert ctl.request("terminate", 5.0) == [Step(signal.SIGTERM, reason="notify terminate")]
    assert ctl.tick(7.0, 0, 0) == [Step(signal.SIGKILL, reason="terminate")]
    assert conf_params.job_settings("none")["notify_signals"] == {
        "terminate": signal.SIGUSR2, "suspend": signal.SIGUSR1}


def test_execd_params_host_limits_are_set_for_every_job() -> None:
    from common import conf_params
    settings = conf_params.job_settings("S_DESCRIPTORS=1K H_MAXPROC=infinity")
    assert settings["host_limits"] == {"s_descriptors": 1024, "h_descriptors": 1024,
                                       "h_maxproc": limits.UNLIMITED_FROM,
                                       "s_maxproc": limits.UNLIMITED_FROM}
    plan = rlimits.plan({"h_vmem": 100.0, **settings["host_limits"]}, CURRENT, privileged=True)
    assert plan == {resource.RLIMIT_AS: (100, 100), resource.RLIMIT_NOFILE: (1024, 1024),
                    resource.RLIMIT_NPROC: (INF, INF)}


def test_resume_cancels_a_suspend_still_in_its_notify_time() -> None:
    ctl = controller(notify_job=True, notify_seconds=2.0)
    ctl.request("suspend", 1.0)
    assert ctl.request("resume", 2.0) == []
    assert ctl.tick(5.0, 0, 0) == [] and not ctl.suspended


def test_methods_are_signals_or_commands_with_variables() -> None:
    ctl = controller(methods={"suspend": "SIGTSTP", "terminate": "/bin/stop $job_pid $queue"})
    assert ctl.request("suspend", 0) == [Step(signal.SIGTSTP, reason="suspend")]
    assert ctl.request("terminate", 0) == [
        Step(command=("/bin/stop", "42", "q"), reason="terminate"),
        Step(signal.SIGCONT, reason="terminate")]  # the job was stopped


def test_method_parsing() -> None:
    assert parse_method(None, "suspend") == signal.SIGSTOP
    assert parse_method("9", "terminate") == 9
    assert parse_method("SIGUSR2", "resume") == signal.SIGUSR2
    assert parse_method("nonsense", "resume") == signal.SIGCONT
    assert signal_number("TERM") == 15 and signal_number("0") == 0
    assert expand_method(("/m", "$job_pid$job_pid", "$other"), {"job_pid": "7"}) == \
        ("/m", "77", "$other")


@given(st.lists(st.tuples(st.sampled_from(["suspend", "resume", "terminate", "kill"]),
                          st.floats(0, 100)), max_size=20), st.booleans())
def test_any_sequence_of_requests_ends_stopped_or_running_consistently(
        requests: list[tuple[str, float]], notify: bool) -> None:
    ctl = controller(notify_job=notify, notify_seconds=1.0)
    now = 0.0
    for action, delay in requests:
        now += delay
        steps = ctl.tick(now, 0, 0) + ctl.request(action, now)
        assert all(s.signum or s.command for s in steps)
    if any(a in ("terminate", "kill") for a, _ in requests):
        ctl.tick(now + 2.0, 0, 0)
        assert ctl.ended_by in ("terminate", "kill")


# ---- process trees -----------------------------------------------------------------

def proc(pid: int, ppid: int, sid: int, state: str = "S", cpu: float = 1.0,
         vmem: int = 10) -> proctree.Proc:
    return proctree.Proc(pid, ppid, pid, sid, state, cpu, vmem, 0)


def test_the_tree_holds_descendants_session_and_orphans_but_not_methods() -> None:
    table = {1: proc(1, 0, 1), 50: proc(50, 1, 50),            # init, the shepherd
             100: proc(100, 50, 100), 101: proc(101, 100, 100),  # the job and a child
             102: proc(102, 1, 100),                             # its session, re-parented
             103: proc(103, 50, 103), 104: proc(104, 103, 103),  # an orphan that left
             105: proc(105, 50, 105),                            # a method command
             200: proc(200, 1, 200)}                             # somebody else
    assert proctree.tree(table, 100, 50, exclude={105}) == {100, 101, 102, 103, 104}
    assert proctree.tree(table, 100, 0) == {100, 101, 102}


def test_usage_sums_the_tree_and_zombies_hold_no_memory() -> None:
    table = {1: proc(1, 0, 1, cpu=2.0, vmem=100), 2: proc(2, 1, 1, "Z", cpu=1.0, vmem=50)}
    assert proctree.usage(table, [1, 2, 3]) == proctree.Usage(3.0, 100, 0, 0)


# ---- prolog and epilog -------------------------------------------------------------

def test_procedure_outcomes() -> None:
    assert jobdir.procedure_outcome("prolog", 0) is None
    assert jobdir.procedure_outcome("prolog", 99) == (25, "reschedule")
    assert jobdir.procedure_outcome("epilog", 100) == (30, "job_error")
    assert jobdir.procedure_outcome("prolog", 2) == (8, "queue_error")
    assert jobdir.procedure_outcome("epilog", 1) == (15, "queue_error")


def test_procedure_lines() -> None:
    assert jobdir.split_procedure("root@/bin/pro $job_id") == ("root", ["/bin/pro", "$job_id"])
    assert jobdir.split_procedure("/a@b/pro") == (None, ["/a@b/pro"])
    assert jobdir.expand_words(["$job_id.$job_idx"], {"job_id": "3", "job_idx": "x"}) == ["3.x"]


def test_processor_sets() -> None:
    assert jobdir.processor_set("UNDEFINED", 4) == set()
    assert jobdir.processor_set("0-1,3,9", 4) == {0, 1, 3}
    assert jobdir.processor_set("x", 4) == set()
