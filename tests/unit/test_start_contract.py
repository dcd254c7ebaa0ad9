"""One record for what a task runs with (issue 26, item 4; common.start_record): the qmaster
builds it (qmaster.start_spec), the wire checks it (start_job's schema is the record's),
the execd adds its own fields and writes it, and the shepherd reads it back checked
(execd.jobdir.read_spec) with every optional field at its default."""
from __future__ import annotations

import math
import os
import resource
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from common import start_record, wire
from common.model import Job, Task
from common.resource.complexes import default_complexes, requests_as_stored
from execd import jobdir, rlimits
from execd.control import Controller
from qmaster.start_spec import start_spec

CURRENT = {res: (rlimits.INFINITY, rlimits.INFINITY) for res in rlimits.RESOURCES.values()}
CONF: dict[str, Any] = {
    "queue": {"all.q": [["shell", "/bin/sh,[n1=/bin/bash]"], ["h_rt", "1:0:0"],
                        ["tmpdir", "/tmp,[n1=/scratch]"], ["prolog", "root@/opt/p.sh"]]},
    "hgrp": {}, "conf": {"global": [["login_shells", "sh,bash"]]}, "complex": {}}
# switch_user as the execd sets it (execd.service._start_job): only root hands the script
# to the job owner, so the suite passes as an ordinary user too
EXECD_FIELDS = {"switch_user": os.geteuid() == 0, "notify_socket": "/var/spool/execd/n1/notify",
                "cgroup": {"subtree": "/sys/fs/cgroup/pygridengine/n1-abc",
                           "controllers": ["cpu", "memory"]},
                "start_time": 1700000000.5}


def make_job(job_id: int = 5, *, resources: dict[str, str] | None = None, array: bool = False,
             pe: bool = False, binary: bool = False) -> Job:
    opts: dict[str, Any] = {
        "job_name": "j", "notify": True, "env": {"FOO": "bar", "EMPTY": None},
        "hard_resources": requests_as_stored(resources or {}, default_complexes()),
        "stdout_paths": ["n1:/out/n1", "/out/any"], "cwd": "/home/u",
        "script_args": ["a", "b"]}
    if array:
        opts["array"] = [1, 9, 2]
    if pe:
        opts["pe"] = ["smp", 2, 2]
    if binary:
        opts.update(binary=True, script_path="/bin/sleep")
    return Job(job_id=job_id, owner="u", uid=1000, group="g", gid=1000, submit_time=0.0,
               opts=opts, sge_o={"HOME": "/home/u", "PATH": "/bin"},
               script=None if binary else b"#!/bin/sh\necho hi\n", umask=0o077)


def make_task(job: Job, slots: int = 1) -> Task:
    return Task(job_id=job.job_id, task_id=3 if job.is_array else 1, queue="all.q",
                host="n1", slots=slots, granted=[["all.q", "n1", slots]],
                granted_pe="smp" if job.opts.get("pe") else None, restarts=0,
                dispatch_time=1700000000.25)


def through_the_wire(spec: dict[str, Any]) -> dict[str, Any]:
    """The spec as the execd receives it (packed by msgpack, decoded and checked)."""
    frame = msgpack.packb({"v": wire.PROTOCOL_VERSION, "t": "start_job", "id": 0,
                           "b": {"job_id": spec["job_id"], "task_id": 1, "spec": spec}},
                          use_bin_type=True)
    _, _, body = wire.decode(frame)
    return body["spec"]


def execd_writes(tmp: Path, received: dict[str, Any]) -> Path:
    """What execd.service._start_job does with a received spec."""
    content, script = start_record.file_spec(received, **EXECD_FIELDS)
    job_dir = tmp / "5.1"
    jobdir.write_spec(job_dir, content, script)
    return job_dir


@given(st.booleans(), st.booleans(), st.booleans(), st.integers(1, 8),
       st.sampled_from(["1e9", "0x40000000", "1G", "INFINITY", "-1", "010"]))
@settings(max_examples=30, deadline=None)
def test_the_qmasters_spec_passes_the_wire_and_reads_back_in_the_execd(
        array: bool, pe: bool, binary: bool, slots: int, vmem: str) -> None:
    import tempfile
    job = make_job(resources={"h_vmem": vmem, "h_rt": "0:10:0"}, array=array, pe=pe,
                   binary=binary)
    spec = start_spec(CONF, job, make_task(job, slots))
    assert tuple(spec) == start_record.MESSAGE_KEYS  # built by the record, in its order
    received = through_the_wire(spec)
    assert received == spec  # nothing the qmaster built is dropped or changed
    with tempfile.TemporaryDirectory() as tmp:
        read = jobdir.read_spec(execd_writes(Path(tmp), received))
    expected = {k: v for k, v in spec.items() if k != "script"}
    assert read == {**start_record.OPTIONAL_KEYS, **expected, **EXECD_FIELDS}
    assert set(read) == set(start_record.FILE_KEYS)
    assert all(key in read for key in jobdir.REQUIRED_KEYS)
    assert jobdir.option(read, "limits") == spec["limits"]  # the shepherd's access


def test_the_wire_schema_is_the_record() -> None:
    assert wire.MESSAGE_SCHEMAS["start_job"].required["spec"] is start_record.message_schema()
    assert "script" in start_record.MESSAGE_KEYS and "script" not in start_record.FILE_KEYS
    assert {"switch_user", "notify_socket", "cgroup", "start_time"} <= \
        set(start_record.FILE_KEYS) - set(start_record.MESSAGE_KEYS)
    assert jobdir.REQUIRED_KEYS == start_record.REQUIRED_KEYS
    assert jobdir.OPTIONAL_KEYS is start_record.OPTIONAL_KEYS


@pytest.mark.parametrize("text,bytes_", [("1e9", 1_000_000_000),
                                         ("0x40000000", 1_073_741_824)])
def test_h_vmem_in_any_accepted_form_reaches_the_shepherds_rlimits(
        tmp_path: Path, text: str, bytes_: int) -> None:
    job = make_job(resources={"h_vmem": text})
    spec = jobdir.read_spec(execd_writes(tmp_path, through_the_wire(
        start_spec(CONF, job, make_task(job)))))
    assert spec["limits"]["h_vmem"] == bytes_
    plan = rlimits.plan(jobdir.option(spec, "limits"), CURRENT, privileged=True)
    assert plan[resource.RLIMIT_AS] == (bytes_, bytes_)
    watch = Controller.from_spec(spec, {})
    assert watch.tick(1.0, 0.0, bytes_ + 1.0)[0].reason == "h_vmem"  # the tree is bounded too


# ---- the spec file: older ones still read, broken ones are refused by name ------------

def old_execd_spec() -> dict[str, Any]:
    """A spec.msgpack as the execd before the record wrote it (the checked message, less
    the script, plus its own fields; no cgroup without the memory controller)."""
    job = make_job()
    spec = start_spec(CONF, job, make_task(job))
    spec.pop("script")
    return {**spec, "switch_user": True, "notify_socket": "/x/notify", "start_time": 1.0}


def write_raw(job_dir: Path, raw: Any) -> Path:
    jobdir.make_job_dir(job_dir)
    jobdir.write_atomic(job_dir / jobdir.SPEC_FILE, msgpack.packb(raw, use_bin_type=True))
    return job_dir


def test_a_spec_written_by_the_older_execd_still_reads(tmp_path: Path) -> None:
    raw = old_execd_spec()
    read = jobdir.read_spec(write_raw(tmp_path / "1.1", raw))
    assert read == {**start_record.OPTIONAL_KEYS, **raw}
    assert read["cgroup"] is None and read["cell"] == "default"


def test_a_minimal_spec_gets_grid_engines_defaults(tmp_path: Path) -> None:
    required = {k: v for k, v in old_execd_spec().items() if k in jobdir.REQUIRED_KEYS}
    read = jobdir.read_spec(write_raw(tmp_path / "1.1", required))
    assert read["login_shells"] == ["bash", "sh", "ksh", "csh", "tcsh"]
    assert (read["umask"], read["limits"], read["notify"], read["start_time"]) == \
        (0o022, {}, 60.0, 0.0)


@pytest.mark.parametrize("change,message", [
    ({"uid": None}, "job spec: uid: expected an integer, got nil"),
    ({"limits": {"h_vmem": "1G"}}, "job spec: limits.h_vmem: expected a number, got a string"),
    ({"limits": {"h_bogus": 1.0}}, "job spec: limits.<key>: 'h_bogus' is not one of"),
    ({"tmpdir": "/planted"}, "job spec: tmpdir: unknown field"),
    ({"notify_socket": 5}, "job spec: notify_socket: expected a string, got an integer"),
])
def test_a_spec_of_the_wrong_shape_is_refused_naming_the_field(
        tmp_path: Path, change: dict[str, Any], message: str) -> None:
    with pytest.raises(jobdir.SpecError) as refused:
        jobdir.read_spec(write_raw(tmp_path / "1.1", {**old_execd_spec(), **change}))
    assert str(refused.value).startswith(message)


@pytest.mark.parametrize("missing", ["uid", "switch_user", "notify_socket", "tmpdir_base"])
def test_a_spec_missing_a_required_field_is_refused_at_read(tmp_path: Path,
                                                            missing: str) -> None:
    raw = old_execd_spec()
    del raw[missing]
    with pytest.raises(ValueError, match=f"job spec: {missing}: missing field"):
        jobdir.read_spec(write_raw(tmp_path / "1.1", raw))


def test_a_spec_without_limits_has_none(tmp_path: Path) -> None:
    raw = old_execd_spec()
    del raw["limits"]  # optional: an older qmaster's job without limits
    assert jobdir.read_spec(write_raw(tmp_path / "1.1", raw))["limits"] == {}


# ---- the builder -----------------------------------------------------------------------

def test_the_builder_refuses_unknown_and_missing_fields() -> None:
    job = make_job()
    spec = start_spec(CONF, job, make_task(job))
    with pytest.raises(TypeError, match="unknown fields switch_user"):
        start_record.message(**spec, switch_user=True)
    del spec["uid"]
    with pytest.raises(TypeError, match="missing field uid"):
        start_record.message(**spec)
    with pytest.raises(TypeError, match="not the execd's fields: uid"):
        start_record.file_spec(spec, uid=0)


def test_the_record_checks_what_the_qmaster_built() -> None:
    job = make_job(resources={"h_vmem": "1e400"})
    spec = start_spec(CONF, job, make_task(job))
    assert start_record.check_message(spec) == spec
    assert "h_vmem" not in spec["limits"] and math.isfinite(spec["limits"]["h_rt"])
