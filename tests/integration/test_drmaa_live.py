"""DRMAA against a live cell: python-drmaa itself, unchanged, through DRMAA_LIBRARY_PATH
(every call; RUNNING -> DONE with the exit status; TERMINATE -> aborted; waits that time
out; bulk jobs; native specifications; errors in 8.1.9's words; an agent that dies), and a
C program compiled here and linked against libdrmaa.so. One cell and one DRMAA session
for the module (python-drmaa has one per process).

Jobs that must stay running wait for a file the test creates (no race with a sleep).
"""
from __future__ import annotations

import ctypes
import importlib
import json
import os
import shutil
import signal
import subprocess
import threading
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator

import psutil
import pytest

from clients.drmaa import library_path
from tests.integration.cellutil import client, kill9, restart, running_cell, wait_for

LIBRARY = library_path()
CAPTURE = json.loads((Path(__file__).parents[1] / "data" / "reference" / "drmaa" /
                      "capture.json").read_text())
pytestmark = pytest.mark.skipif(LIBRARY is None, reason="libdrmaa.so was not built: no C "
                                "compiler when pygridengine was installed (setup.py)")
TIMEOUT = 30


def captured(case: str) -> str:
    return CAPTURE[case]["message"]


@pytest.fixture(scope="module")
def cell(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    root = tmp_path_factory.mktemp("drmaa")
    with running_cell(root) as local:
        yield local


@pytest.fixture(scope="module")
def drmaa(cell: Any) -> Iterator[ModuleType]:
    """python-drmaa, loaded with our libdrmaa.so, its session open on the cell."""
    saved = {k: os.environ.get(k) for k in ("PYGE_ROOT", "PYGE_CELL", "DRMAA_LIBRARY_PATH")}
    os.environ.update(PYGE_ROOT=str(cell.cell.root), PYGE_CELL=cell.cell.name,
                      DRMAA_LIBRARY_PATH=str(LIBRARY))
    module = importlib.import_module("drmaa")
    try:
        yield module
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@pytest.fixture(scope="module")
def session(drmaa: ModuleType) -> Iterator[Any]:
    s = drmaa.Session()
    s.initialize()
    try:
        yield s
    finally:
        try:
            s.exit()
        except drmaa.errors.NoActiveSessionException:
            pass


def template(session: Any, *args: str, **attrs: Any) -> Any:
    jt = session.createJobTemplate()
    jt.remoteCommand = "/bin/sh"
    jt.args = ["-c", *args]
    jt.joinFiles = True
    jt.outputPath = ":/dev/null"
    for name, value in attrs.items():
        setattr(jt, name, value)
    return jt


def gate(tmp_path: Path) -> tuple[Path, str]:
    """A file to create and the shell words of a job that runs until it exists."""
    path = tmp_path / "go"
    os.chmod(tmp_path, 0o777)
    return path, f"while [ ! -e {path} ]; do sleep 0.1; done"


def status_becomes(session: Any, job_id: str, state: str) -> None:
    wait_for(lambda: session.jobStatus(job_id) == state, TIMEOUT,
             f"job {job_id} to be {state} (is {session.jobStatus(job_id)})")


def test_session_calls(drmaa: ModuleType, session: Any) -> None:
    assert session.contact.startswith("session=")
    assert "SGE 8.1.9" in session.drmsInfo and session.drmaaImplementation
    assert tuple(session.version) == (1, 0)
    with pytest.raises(drmaa.errors.AlreadyActiveSessionException) as caught:
        session.initialize()
    assert str(caught.value) == captured("init_twice")
    jt = session.createJobTemplate()
    assert set(jt.attributeNames) == set(CAPTURE["attribute_names"]) - \
        {"drmaa_submit_as_euid"}
    with pytest.raises(drmaa.errors.InvalidAttributeValueException) as caught:
        jt.jobName
    assert str(caught.value) == captured("get_unset_attribute")
    with pytest.raises(drmaa.errors.InvalidAttributeValueException) as caught:
        jt.jobSubmissionState = "nonsense"
    assert str(caught.value) == captured("bad_js_state")
    with pytest.raises(drmaa.errors.DeniedByDrmException) as caught:
        session.runJob(jt)
    assert str(caught.value) == captured("run_no_command")
    for case, job_id in (("ps_unknown", "999999"), ("ps_garbage", "abc")):
        with pytest.raises(drmaa.errors.DrmaaException) as caught:
            session.jobStatus(job_id)
        assert str(caught.value) == captured(case)
    with pytest.raises(drmaa.errors.InvalidJobException):
        session.wait("999999", 0)
    session.deleteJobTemplate(jt)


def test_strerror_is_8_1_9s(drmaa: ModuleType) -> None:
    lib = ctypes.CDLL(str(LIBRARY))
    lib.drmaa_strerror.restype = ctypes.c_char_p
    for code, text in CAPTURE["strerror"].items():
        got = lib.drmaa_strerror(int(code))
        assert (got.decode() if got is not None else "<NULL>") == text, code


def test_running_then_done_with_its_exit_status(drmaa: ModuleType, session: Any,
                                                tmp_path: Path) -> None:
    go, wait_words = gate(tmp_path)
    jt = template(session, f"{wait_words}; exit 3", jobName="drmaa-exit3")
    job_id = session.runJob(jt)
    assert job_id.isdigit()
    status_becomes(session, job_id, drmaa.JobState.RUNNING)
    for timeout in (drmaa.Session.TIMEOUT_NO_WAIT, 1):  # a timeout that expires
        with pytest.raises(drmaa.errors.ExitTimeoutException) as caught:
            session.wait(job_id, timeout)
        assert str(caught.value) == captured("wait_timeout")
    go.touch()
    info = session.wait(job_id, drmaa.Session.TIMEOUT_WAIT_FOREVER)
    assert (info.jobId, info.hasExited, info.exitStatus, info.wasAborted, info.hasSignal) \
        == (job_id, True, 3, False, False)
    assert {"cpu", "start_time", "end_time", "exit_status"} <= set(info.resourceUsage)
    assert float(info.resourceUsage["exit_status"]) == 3
    with pytest.raises(drmaa.errors.InvalidJobException) as caught:
        session.jobStatus(job_id)
    assert str(caught.value) == captured("ps_after_reaped")


def test_control_suspend_resume_terminate(drmaa: ModuleType, session: Any,
                                          tmp_path: Path) -> None:
    _, wait_words = gate(tmp_path)
    job_id = session.runJob(template(session, wait_words))
    status_becomes(session, job_id, drmaa.JobState.RUNNING)
    session.control(job_id, drmaa.JobControlAction.SUSPEND)
    assert session.jobStatus(job_id) == drmaa.JobState.USER_SUSPENDED == CAPTURE["ps_suspended"]
    session.control(job_id, drmaa.JobControlAction.RESUME)
    assert session.jobStatus(job_id) == drmaa.JobState.RUNNING == CAPTURE["ps_resumed"]
    session.control(job_id, drmaa.JobControlAction.TERMINATE)
    info = session.wait(job_id, TIMEOUT)
    expected = CAPTURE["info_terminated_running"]
    assert (info.wasAborted, info.hasExited, info.hasSignal) == \
        (expected["wasAborted"], expected["hasExited"], expected["hasSignal"])


def test_hold_release_and_a_job_that_never_ran(drmaa: ModuleType, session: Any,
                                               tmp_path: Path) -> None:
    _, wait_words = gate(tmp_path)
    held = session.runJob(template(session, wait_words, jobSubmissionState="drmaa_hold"))
    assert session.jobStatus(held) == drmaa.JobState.USER_ON_HOLD == CAPTURE["ps_held"]
    with pytest.raises(drmaa.errors.SuspendInconsistentStateException) as caught:
        session.control(held, drmaa.JobControlAction.SUSPEND)
    assert str(caught.value) == captured("suspend_pending").replace("49.1", f"{held}.1")
    session.control(held, drmaa.JobControlAction.HOLD)  # (held already: 8.1.9 says ok)
    assert session.jobStatus(held) == drmaa.JobState.USER_ON_HOLD
    session.control(held, drmaa.JobControlAction.TERMINATE)
    with pytest.raises(Exception) as caught:  # (python-drmaa's NoRusageException)
        session.wait(held, TIMEOUT)
    assert str(caught.value) == captured("wait_terminated_pending")
    released = session.runJob(template(session, "exit 0", jobSubmissionState="drmaa_hold"))
    session.control(released, drmaa.JobControlAction.RELEASE)
    assert session.wait(released, TIMEOUT).exitStatus == 0


def test_a_blocked_wait_holds_up_no_other_thread(drmaa: ModuleType, session: Any,
                                                 tmp_path: Path) -> None:
    go, wait_words = gate(tmp_path)
    gated = session.runJob(template(session, wait_words))
    infos: list[Any] = []
    waiter = threading.Thread(target=lambda: infos.append(
        session.wait(gated, drmaa.Session.TIMEOUT_WAIT_FOREVER)))
    waiter.start()
    quick = session.runJob(template(session, "exit 4"))  # while the other thread waits
    assert session.wait(quick, TIMEOUT).exitStatus == 4 and waiter.is_alive()
    go.touch()
    waiter.join(TIMEOUT)
    assert [info.jobId for info in infos] == [gated]


def test_bulk_jobs(drmaa: ModuleType, session: Any) -> None:
    jt = template(session, "exit $SGE_TASK_ID")
    ids = session.runBulkJobs(jt, 1, 5, 2)
    job = ids[0].split(".")[0]
    assert ids == [f"{job}.1", f"{job}.3", f"{job}.5"]
    session.synchronize(ids, drmaa.Session.TIMEOUT_WAIT_FOREVER, False)
    info = session.wait(ids[1], drmaa.Session.TIMEOUT_NO_WAIT)
    assert (info.jobId, info.exitStatus) == (ids[1], 3)
    others = {session.wait(drmaa.Session.JOB_IDS_SESSION_ANY, 0).jobId for _ in range(2)}
    assert others == {ids[0], ids[2]}
    with pytest.raises(drmaa.errors.InvalidArgumentException) as caught:
        session.runBulkJobs(jt, 3, 1, 1)
    assert str(caught.value) == captured("bulk_bad_range")
    session.synchronize([drmaa.Session.JOB_IDS_SESSION_ALL], TIMEOUT, True)
    with pytest.raises(drmaa.errors.InvalidJobException):  # (all reaped)
        session.wait(drmaa.Session.JOB_IDS_SESSION_ANY, 0)


def test_a_bulk_jobs_task_is_waited_for_as_it_ends(drmaa: ModuleType, session: Any,
                                                   tmp_path: Path) -> None:
    go, wait_words = gate(tmp_path)
    jt = template(session, f'if [ "$SGE_TASK_ID" = 2 ]; then {wait_words}; fi; '
                           "exit $SGE_TASK_ID")
    first, second = session.runBulkJobs(jt, 1, 2, 1)
    info = session.wait(first, TIMEOUT)  # (while the second task runs on)
    assert (info.jobId, info.exitStatus) == (first, 1)
    assert session.jobStatus(second) == drmaa.JobState.RUNNING
    go.touch()
    assert session.wait(second, TIMEOUT).exitStatus == 2


def test_native_specification(drmaa: ModuleType, session: Any, cell: Any) -> None:
    jt = template(session, 'test "$DRMAA_X" = "a,b" && test "$PWD" = /tmp',
                  nativeSpecification="-N native -l h_rt=0:5:0", jobName="overridden",
                  jobEnvironment={"DRMAA_X": "a,b"}, workingDirectory="/tmp",
                  jobSubmissionState="drmaa_hold")
    job_id = session.runJob(jt)
    with client(cell) as cl:
        [record] = cl.jobs([int(job_id)])["jobs"]
    assert record["opts"]["job_name"] == "overridden"  # the template's attribute wins
    assert record["opts"]["hard_resources"] == {"h_rt": "300"}  # (qmaster normalises)
    session.control(job_id, drmaa.JobControlAction.RELEASE)
    assert session.wait(job_id, TIMEOUT).exitStatus == 0
    jt.nativeSpecification = "-bogus"
    with pytest.raises(drmaa.errors.DeniedByDrmException) as caught:
        session.runJob(jt)
    assert str(caught.value) == captured("native_bad_option")
    jt.nativeSpecification = "-l no_such_resource=1"
    with pytest.raises(drmaa.errors.DeniedByDrmException) as caught:
        session.runJob(jt)
    assert str(caught.value) == captured("native_bad_resource")


def test_a_wait_outlives_a_qmaster_restart(drmaa: ModuleType, session: Any, cell: Any,
                                           tmp_path: Path) -> None:
    go, wait_words = gate(tmp_path)
    job_id = session.runJob(template(session, f"{wait_words}; exit 6"))
    status_becomes(session, job_id, drmaa.JobState.RUNNING)
    kill9(cell, "qmaster")
    restart(cell)
    go.touch()
    info = session.wait(job_id, TIMEOUT)  # (the reaper's wait was sent again)
    assert (info.jobId, info.exitStatus) == (job_id, 6)


def agent_of_this_process() -> psutil.Process:
    """The session's helper process (other children of the test run, such as daemons
    another test started and that have ended unreaped, are passed over)."""
    found = []
    for child in psutil.Process().children():
        try:
            if "clients.drmaa" in " ".join(child.cmdline()):
                found.append(child)
        except (psutil.ZombieProcess, psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    [agent] = found
    return agent


def test_a_dead_agent_is_a_communication_failure(drmaa: ModuleType, session: Any) -> None:
    agent = agent_of_this_process()
    agent.send_signal(signal.SIGKILL)
    agent.wait(TIMEOUT)
    with pytest.raises(drmaa.errors.DrmCommunicationException):
        session.jobStatus("1")
    with pytest.raises(drmaa.errors.DrmCommunicationException):
        session.createJobTemplate()
    session.exit()  # ends the session whose agent died; a new one starts
    session.initialize()
    assert agent_of_this_process().pid != agent.pid
    job_id = session.runJob(template(session, "exit 0"))
    assert session.wait(job_id, TIMEOUT).exitStatus == 0


C_PROGRAM = r"""
#include <stdio.h>
#include <string.h>
#include "drmaa.h"

#define CHECK(call) do { int rc = (call); if (rc != DRMAA_ERRNO_SUCCESS) { \
    printf("%s: %d %s\n", #call, rc, diag); return 1; } } while (0)

int main(void)
{
    char diag[DRMAA_ERROR_STRING_BUFFER] = "", job_id[DRMAA_JOBNAME_BUFFER], out[128];
    const char *args[] = {"-c", "exit 5", NULL};
    drmaa_job_template_t *jt = NULL;
    drmaa_attr_values_t *rusage = NULL;
    int stat = 0, exited = 0, status = 0, aborted = 1, ps = 0;
    unsigned int major = 0, minor = 0;
    CHECK(drmaa_init(NULL, diag, sizeof diag));
    CHECK(drmaa_version(&major, &minor, diag, sizeof diag));
    CHECK(drmaa_allocate_job_template(&jt, diag, sizeof diag));
    CHECK(drmaa_set_attribute(jt, DRMAA_REMOTE_COMMAND, "/bin/sh", diag, sizeof diag));
    CHECK(drmaa_set_vector_attribute(jt, DRMAA_V_ARGV, args, diag, sizeof diag));
    CHECK(drmaa_set_attribute(jt, DRMAA_OUTPUT_PATH, ":/dev/null", diag, sizeof diag));
    CHECK(drmaa_set_attribute(jt, DRMAA_JOIN_FILES, "y", diag, sizeof diag));
    CHECK(drmaa_run_job(job_id, sizeof job_id, jt, diag, sizeof diag));
    CHECK(drmaa_wait(job_id, out, sizeof out, &stat, DRMAA_TIMEOUT_WAIT_FOREVER, &rusage,
                     diag, sizeof diag));
    CHECK(drmaa_wifexited(&exited, stat, diag, sizeof diag));
    CHECK(drmaa_wexitstatus(&status, stat, diag, sizeof diag));
    CHECK(drmaa_wifaborted(&aborted, stat, diag, sizeof diag));
    int usage = 0;
    char line[DRMAA_ATTR_BUFFER];
    while (drmaa_get_next_attr_value(rusage, line, sizeof line) == DRMAA_ERRNO_SUCCESS)
        usage++;
    drmaa_release_attr_values(rusage);
    int gone = drmaa_job_ps(job_id, &ps, diag, sizeof diag);
    CHECK(drmaa_delete_job_template(jt, diag, sizeof diag));
    CHECK(drmaa_exit(diag, sizeof diag));
    int after = drmaa_exit(diag, sizeof diag);
    printf("version=%u.%u same_id=%d exited=%d status=%d aborted=%d usage=%d gone=%d "
           "after_exit=%d\n", major, minor, strcmp(job_id, out) == 0, exited, status,
           aborted, usage > 5, gone, after);
    return 0;
}
"""


def test_a_c_program(cell: Any, tmp_path: Path) -> None:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler to build the test program")
    assert LIBRARY is not None
    source, program = tmp_path / "drmaa_test.c", tmp_path / "drmaa_test"
    source.write_text(C_PROGRAM)
    libdir = os.path.dirname(LIBRARY)
    subprocess.run([compiler, "-o", str(program), str(source), f"-I{libdir}",
                    f"-L{libdir}", "-ldrmaa", f"-Wl,-rpath,{libdir}"], check=True)
    env = {**os.environ, "PYGE_ROOT": str(cell.cell.root), "PYGE_CELL": cell.cell.name}
    done = subprocess.run([str(program)], env=env, capture_output=True, text=True,
                          timeout=60, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.split() == ["version=1.0", "same_id=1", "exited=1", "status=5",
                                   "aborted=0", "usage=1", "gone=18", "after_exit=5"]
