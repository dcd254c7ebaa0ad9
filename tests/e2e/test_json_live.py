"""``-fmt json`` of the real console scripts against a live cell (one module cell): a
finished job, a running one and a held one; every command's document validates against
the shipped schema its ``$id`` names (tests/unit/test_json_output.py has the views in
detail), and the documents agree with the cell."""
from __future__ import annotations

import subprocess
import time

from clients.api import Client, job_request
from tests.commands import command
from tests.unit.test_json_output import validated


def _run(env: dict[str, str], *lines: str) -> list[subprocess.CompletedProcess[str]]:
    """Read-only commands at once (each costs an interpreter start)."""
    procs = [subprocess.Popen(command(line.split()[0]) + line.split()[1:], env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for line in lines]
    outputs = [p.communicate(timeout=60) for p in procs]
    return [subprocess.CompletedProcess(p.args, p.returncode, out, err)
            for p, (out, err) in zip(procs, outputs)]


def _running(client: Client, job_id: int) -> bool:
    return any(t["job_id"] == job_id and t["state"] == "running" for t in client.jobs()["tasks"])


def test_every_command_prints_a_valid_document(env: dict[str, str], client: Client) -> None:
    [done] = client.submit([job_request("/bin/true", [], binary=True, job_name="done")])
    client.wait([done], timeout=30)
    running, held = client.submit([
        job_request("/bin/sleep", ["60"], binary=True, job_name="runner"),
        job_request("/bin/sleep", ["60"], binary=True, job_name="held", hold=True)])
    deadline = time.monotonic() + 30
    while not _running(client, running) and time.monotonic() < deadline:
        time.sleep(0.1)
    try:
        results = _run(env, "qstat -u * -fmt json", "qstat -f -u * -fmt json",
                       f"qstat -j {running},{held} -fmt json", "qstat -g c -fmt json",
                       "qhost -q -j -fmt json", "qconf -fmt json -sq all.q", "qconf -sconf -fmt json",
                       f"qacct -j {done} -fmt json", "qquota -u * -fmt json", "qstat -fmt yaml")
        for result in results[:-1]:
            assert result.returncode == 0, (result.args, result.stderr)
        listing, full, details, cqueues, hosts, queue, conf, acct, quota = (
            validated(r.stdout) for r in results[:-1])
        states = {j["job_number"]: j["state"] for j in listing["jobs_running"] + listing["jobs_pending"]}
        assert states[running]["running"] and states[held]["hold"]
        assert any(j["job_number"] == running for q in full["queues"] for j in q["jobs"])
        assert [j["job_number"] for j in details["jobs"]] == [running, held]
        assert cqueues["cluster_queues"][0]["name"] == "all.q"
        assert any(j["job_number"] == running for h in hosts["hosts"] for j in h.get("jobs", []))
        assert queue["objects"][0]["attributes"]["qname"] == "all.q"
        assert conf["objects"][0]["name"] == "global"
        (record,) = acct["jobs"]
        assert record["job_number"] == done and record["exit_status"] == 0
        assert quota["rules"] == []
        refused = results[-1]
        assert refused.returncode == 1 and refused.stdout == "" and "-fmt" in refused.stderr
    finally:
        client.delete([{"job_id": running}, {"job_id": held}])


