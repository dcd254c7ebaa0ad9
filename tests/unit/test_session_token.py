"""An interactive job's session token (common.builtin_session) never leaves the qmaster
but in the start record to the job's execd: no job listing (qstat, qstat -j, a query
with the script), no event and no reply to its owner or anyone else carries it."""
from __future__ import annotations

from pathlib import Path

from common import wire
from tests.unit.test_qmaster_core import ALICE, BOB, ROOT, Harness

TOKEN = bytes(range(100, 132))
SESSION = {"kind": "qrsh", "host": "submithost", "port": 4242, "token": TOKEN}


def test_the_token_goes_to_the_execd_alone(tmp_path: Path) -> None:
    qm = Harness(tmp_path, auto_add_hosts=True, default_slots=2)
    qm.register("h1")
    job = qm.submit(session=SESSION)
    assert qm.dispatch(job)["accepted"] == 1
    for user in (ALICE, BOB, ROOT):
        for extra in ({}, {"with_script": True}, {"brief": True}, {"explain": True}):
            reply = qm.call("job_query", {"user": user.to_dict(), "job_ids": [job],
                                          "include_finished": True, **extra})
            shown = [j for j in reply["jobs"] if j["job_id"] == job]
            assert shown and TOKEN not in wire.encode("reply", reply, 1)
            if not extra.get("brief"):  # (the rest of the session is shown)
                assert shown[0]["opts"]["session"] == {k: v for k, v in SESSION.items()
                                                       if k != "token"}
    assert not any(TOKEN in frame for frames in qm.pub.sent for frame in frames)
    to_execd = [frames for frames in qm.router.sent if frames[0] == b"execd:h1"
                and TOKEN in frames[-1]]
    elsewhere = [frames for frames in qm.router.sent if frames[0] != b"execd:h1"
                 and any(TOKEN in frame for frame in frames)]
    assert len(to_execd) == 1 and wire.decode(to_execd[0][-1])[0] == "start_job"
    assert elsewhere == []
