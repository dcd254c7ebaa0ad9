"""qstat -j's ``ja_ad_predecessor_list``/``ja_ad_successor_list`` lines (-hold_jid_ad) and
its checkpointing lines, rendered as 8.1.9 prints them (captured by
tests/data/reference/qalter/capture.sh: qstat-j-ad-*, qstat-j-submit-ckpt-c,
qstat-j-no-ckpt)."""
from __future__ import annotations

import calendar
import time
from typing import Any

import pytest

from clients.render import qstat as rq
from clients.views.detail import job_detail
from tests.reference import REFERENCE

REF = REFERENCE / "qalter"
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


@pytest.fixture(autouse=True)
def _in_utc(utc: None) -> None:
    """Times render as the captures show them (UTC)."""


def _submitted(text: str, job_id: int) -> float:
    """The submission time the capture shows for ``job_id``."""
    block = text.split(f"job_number:                 {job_id}\n")[1]
    stamp = block.split("submission_time:            ")[1].split("\n")[0]
    return float(calendar.timegm(time.strptime(stamp, "%a %b %d %H:%M:%S %Y")))


def _job(job_id: int, submit: float, **opts: Any) -> dict[str, Any]:
    return {"job_id": job_id, "owner": "sgeuser", "uid": 1001, "group": "sgeuser",
            "gid": 1001, "submit_time": submit,
            "opts": {"binary": True, "script_path": "/bin/true", "env": {"TERM": None},
                     **opts},
            "sge_o": {"HOME": "/home/sgeuser", "LOGNAME": "sgeuser", "PATH": PATH,
                      "SHELL": "/bin/bash", "WORKDIR": "/home/sgeuser", "HOST": "vm"},
            "script": None}


def _ids() -> list[list[int]]:
    return [[int(i) for i in line.split()] for line in (REF / "ids.txt").read_text().splitlines()]


def test_ja_ad_predecessor_and_successor_lines_as_captured() -> None:
    expected = (REF / "qstat-j-ad-both.out").read_text()
    pre_id, suc_id = _ids()[1]
    pre = _job(pre_id, _submitted(expected, pre_id), job_name="pre", array=[1, 3, 1])
    suc = _job(suc_id, _submitted(expected, suc_id), job_name="suc", array=[1, 3, 1],
               hold_jid_ad=[str(pre_id)])
    details = [job_detail(j, [], [pre, suc]) for j in (pre, suc)]
    assert details[0]["ja_ad_successor_list"] == [suc_id]
    assert details[1]["ja_ad_predecessor_list"] == [pre_id]
    assert rq.render_job_detail(details) == expected


def test_ja_ad_lines_by_name_and_of_a_finished_predecessor() -> None:
    pre = _job(1, 0.0, job_name="pre", array=[1, 3, 1])
    suc = _job(2, 0.0, job_name="suc", array=[1, 3, 1], hold_jid_ad=["pre", "99"])
    assert job_detail(suc, [], [pre, suc])["ja_ad_predecessor_list"] == [1]
    assert job_detail(suc, [], [suc])["ja_ad_predecessor_list"] == []
    other = {**pre, "owner": "someone"}  # a name stands for the owner's jobs only
    assert job_detail(suc, [], [other, suc])["ja_ad_predecessor_list"] == []


def test_checkpoint_lines_as_captured() -> None:
    expected = (REF / "qstat-j-submit-ckpt-c.out").read_text()
    [job_id] = _ids()[2]
    job = _job(job_id, _submitted(expected, job_id), job_name="true",
               checkpoint_name="c1", checkpoint_occasion="sx", checkpoint_interval=120)
    assert rq.render_job_detail([job_detail(job, [], [job])]) == expected
