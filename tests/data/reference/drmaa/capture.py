"""Captures what 8.1.9's libdrmaa says (run as the oracle's submit user, with
DRMAA_LIBRARY_PATH naming 8.1.9's libdrmaa.so and the oracle's SGE_* environment):
writes capture.json beside itself. The tests compare pygridengine's libdrmaa with it."""
from __future__ import annotations

import ctypes
import json
import os
import sys
import time

import drmaa
from drmaa import errors
from drmaa.const import JobControlAction

lib = ctypes.CDLL(os.environ["DRMAA_LIBRARY_PATH"])
lib.drmaa_strerror.restype = ctypes.c_char_p
out: dict = {"strerror": {str(code): (lib.drmaa_strerror(code) or b"<NULL>").decode()
                          for code in range(-1, 30)}}


def attempt(func, *args):
    try:
        return {"ok": repr(func(*args))}
    except Exception as err:  # (NoRusageException is no DrmaaException)
        return {"error": type(err).__name__, "message": str(err)}


def err_of(thunk):
    try:
        return {"ok": repr(thunk())}
    except Exception as err:  # (NoRusageException is no DrmaaException)
        return {"error": type(err).__name__, "message": str(err)}


s = drmaa.Session()
out["before_init"] = {"contact": attempt(lambda: s.contact),
                      "drmsInfo": attempt(lambda: s.drmsInfo),
                      "drmaaImplementation": attempt(lambda: s.drmaaImplementation),
                      "version": attempt(lambda: tuple(s.version)),
                      "runJob": err_of(lambda: s.runJob(None))}
out["ps_before_init"] = err_of(lambda: s.jobStatus("1"))
s.initialize()
out["init_twice"] = err_of(lambda: s.initialize())
out["contact"] = s.contact
out["drmsInfo"] = s.drmsInfo
out["drmaaImplementation"] = s.drmaaImplementation
out["version"] = list(s.version)
jt = s.createJobTemplate()
out["attribute_names"] = sorted(jt.attributeNames)
from drmaa.helpers import vector_attribute_names_iterator
out["vector_attribute_names"] = sorted(vector_attribute_names_iterator())
out["set_bad_attribute"] = err_of(lambda: jt._jt and drmaa.helpers.c(
    drmaa.wrappers.drmaa_set_attribute, jt._jt, b"no_such_attr", b"x"))
out["get_unset_attribute"] = err_of(lambda: jt.jobName)
out["bad_js_state"] = err_of(lambda: setattr(jt, "jobSubmissionState", "nonsense"))
out["bad_join"] = err_of(lambda: drmaa.helpers.c(drmaa.wrappers.drmaa_set_attribute, jt._jt,
                                                 b"drmaa_join_files", b"maybe"))
out["ps_unknown"] = err_of(lambda: s.jobStatus("999999"))
out["ps_garbage"] = err_of(lambda: s.jobStatus("abc"))
out["wait_unknown"] = err_of(lambda: s.wait("999999", 0))
out["control_unknown"] = err_of(lambda: s.control("999999", JobControlAction.TERMINATE))
out["run_no_command"] = err_of(lambda: s.runJob(jt))
jt.remoteCommand = "/bin/sh"
jt.args = ["-c", "sleep 4; exit 3"]
jt.nativeSpecification = "-b y"
jt.joinFiles = True
jt.outputPath = ":/dev/null"
jid = s.runJob(jt)
out["job_id_form"] = "digits" if jid.isdigit() else jid
states = []
deadline = time.time() + 60
while time.time() < deadline:
    st = s.jobStatus(jid)
    if not states or states[-1] != st:
        states.append(st)
    if st == "running":
        break
    time.sleep(0.2)
out["wait_timeout"] = err_of(lambda: s.wait(jid, 1))
out["wait_no_wait"] = err_of(lambda: s.wait(jid, drmaa.Session.TIMEOUT_NO_WAIT))
info = s.wait(jid, drmaa.Session.TIMEOUT_WAIT_FOREVER)
out["states_exit3"] = states
out["info_exit3"] = {k: getattr(info, k) for k in ("hasExited", "hasSignal",
                                                   "terminatedSignal", "hasCoreDump",
                                                   "wasAborted", "exitStatus")}
out["rusage_keys"] = sorted(info.resourceUsage)
out["ps_after_reaped"] = err_of(lambda: s.jobStatus(jid))
out["wait_again"] = err_of(lambda: s.wait(jid, 0))
# terminate a running job
jt.args = ["-c", "sleep 60"]
jid = s.runJob(jt)
while s.jobStatus(jid) != "running":
    time.sleep(0.2)
s.control(jid, JobControlAction.SUSPEND)
time.sleep(1)
out["ps_suspended"] = s.jobStatus(jid)
s.control(jid, JobControlAction.RESUME)
time.sleep(1)
out["ps_resumed"] = s.jobStatus(jid)
s.control(jid, JobControlAction.TERMINATE)
info = s.wait(jid, 60)
out["info_terminated_running"] = {k: getattr(info, k) for k in (
    "hasExited", "hasSignal", "terminatedSignal", "hasCoreDump", "wasAborted", "exitStatus")}
# terminate a pending (held) job
jt.jobSubmissionState = "drmaa_hold"
jid = s.runJob(jt)
out["ps_held"] = s.jobStatus(jid)
out["release_pending"] = err_of(lambda: s.control(jid, JobControlAction.RELEASE))
out["hold_again"] = err_of(lambda: s.control(jid, JobControlAction.HOLD))
out["ps_held2"] = s.jobStatus(jid)
out["suspend_pending"] = err_of(lambda: s.control(jid, JobControlAction.SUSPEND))
s.control(jid, JobControlAction.TERMINATE)
out["wait_terminated_pending"] = err_of(lambda: s.wait(jid, 60))
out["ps_terminated_pending_after_wait"] = err_of(lambda: s.jobStatus(jid))
# bulk
jt.jobSubmissionState = "drmaa_active"
jt.args = ["-c", "exit 0"]
ids = s.runBulkJobs(jt, 1, 3, 1)
out["bulk_ids"] = ["<job>." + i.split(".", 1)[1] if "." in i else i for i in ids]
s.synchronize(ids, drmaa.Session.TIMEOUT_WAIT_FOREVER, False)
info = s.wait(ids[0], 0)
out["bulk_wait_first"] = ["<job>." + info.jobId.split(".", 1)[1]
                          if "." in info.jobId else "<job>", info.exitStatus]
info = s.wait(drmaa.Session.JOB_IDS_SESSION_ANY, 0)
out["bulk_wait_any_form"] = "<job>." + info.jobId.split(".", 1)[1] if "." in info.jobId else info.jobId
s.synchronize([drmaa.Session.JOB_IDS_SESSION_ALL], 10, True)
out["wait_any_empty"] = err_of(lambda: s.wait(drmaa.Session.JOB_IDS_SESSION_ANY, 0))
out["bulk_bad_range"] = err_of(lambda: s.runBulkJobs(jt, 3, 1, 1))
jt.nativeSpecification = "-b y -l no_such_resource=1"
out["native_bad_resource"] = err_of(lambda: s.runJob(jt))
jt.nativeSpecification = "-bogus"
out["native_bad_option"] = err_of(lambda: s.runJob(jt))
s.deleteJobTemplate(jt)
s.exit()
out["exit_twice"] = err_of(lambda: s.exit())
json.dump(out, sys.stdout, indent=1, sort_keys=True)
print()
