"""Captures what 8.1.9's libdrmaa says of some attribute values, when set and when a job
is run with them (held, then deleted: no job runs). Run as capture.py is (its docstring);
writes capture_values.json's content on stdout."""
from __future__ import annotations

import json
import sys

import drmaa
from drmaa.const import JobControlAction
from drmaa.helpers import c
from drmaa.wrappers import drmaa_set_attribute


def outcome(thunk):
    try:
        return {"ok": thunk()}
    except Exception as err:  # (NoRusageException is no DrmaaException)
        return {"error": type(err).__name__, "message": str(err)}


out = {}
s = drmaa.Session()
s.initialize()
for name, value in (("drmaa_block_email", "1"), ("drmaa_block_email", "0"),
                    ("drmaa_block_email", "y"), ("drmaa_block_email", "maybe"),
                    ("drmaa_start_time", "tomorrow"), ("drmaa_start_time", "10:15"),
                    ("drmaa_job_category", "no_such_category")):
    probe = s.createJobTemplate()
    probe.remoteCommand = "/bin/true"
    probe.jobSubmissionState = "drmaa_hold"
    key = f"{name}={value}"
    out["set " + key] = outcome(lambda: c(drmaa_set_attribute, probe, name.encode(),
                                          value.encode()) and None)
    ran = outcome(lambda: s.runJob(probe))
    if "ok" in ran:
        s.control(ran["ok"], JobControlAction.TERMINATE)
        ran = {"ok": "<job id>"}
    out["run " + key] = ran
    s.deleteJobTemplate(probe)
s.exit()
json.dump(out, sys.stdout, indent=1, sort_keys=True)
print()
