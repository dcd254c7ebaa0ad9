"""qstat and qhost console scripts against a live cell (qmaster, scheduler, one 4-slot execd).

One cell per test: a running job, a held job and an array job whose last tasks have to
wait (4 slots), then the programs' text and XML outputs are checked as a user sees them.
"""
from __future__ import annotations

import re
import socket
import subprocess
import time
import xml.etree.ElementTree as ET
from typing import Any, Iterator

import pytest

from clients.api import Client, job_request
from tests.commands import command

HOST = socket.gethostname().split(".")[0]


def run_all(*commands: str) -> list[subprocess.CompletedProcess[str]]:
    """Several read-only commands at once (each costs an interpreter start)."""
    procs = [subprocess.Popen(command(c.split()[0]) + c.split()[1:], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for c in commands]
    outputs = [p.communicate(timeout=30) for p in procs]
    return [subprocess.CompletedProcess(p.args, p.returncode, out, err)
            for p, (out, err) in zip(procs, outputs)]


def _running(client: Client) -> int:
    return sum(t["state"] == "running" for t in client.jobs()["tasks"])


@pytest.fixture
def jobs(live_cell: Any) -> Iterator[dict[str, int]]:
    """Job ids: "run" (sleep 30), "held" (-h), "array" (-t 1-6, three tasks wait)."""
    client = Client()
    ids = client.submit([job_request("/bin/sleep", ["30"], binary=True, job_name="runner"),
                         job_request("/bin/sleep", ["30"], binary=True, job_name="held", hold=True),
                         job_request("/bin/sleep", ["30"], binary=True, job_name="arr",
                                     array=[1, 6, 1])])
    deadline = time.monotonic() + 15
    while _running(client) < 4 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _running(client) == 4
    try:
        yield dict(zip(("run", "held", "array"), ids))
    finally:
        client.delete([{"job_id": i} for i in ids])
        client.close()


def _line(text: str, job_id: int, extra: str = "") -> str:
    lines = [ln for ln in text.splitlines() if re.match(rf"\s*{job_id} .*{extra}", ln)]
    assert lines, text
    return lines[0]


def _check_tables(jobs: dict[str, int], plain: Any, pending: Any, nobody: Any, full: Any,
                  summary: Any) -> None:
    assert plain.returncode == 0 and plain.stderr == ""
    head, dashes, *rows = plain.stdout.splitlines()
    assert head.startswith("job-ID  prior   name") and set(dashes) == {"-"}
    runner = _line(plain.stdout, jobs["run"])
    assert re.search(rf"0\.50000 runner\s+\S+\s+r\s+.* all\.q@{HOST}\s+1\s*$", runner)
    assert re.search(r"0\.00000 held\s+\S+\s+hqw ", _line(plain.stdout, jobs["held"]))
    assert re.search(r" qw .* 1 4-6:1$", _line(plain.stdout, jobs["array"], " qw "))
    # running rows first, the held job (priority 0) last
    assert rows[-1].split()[0] == str(jobs["held"])
    assert len([r for r in rows if re.search(r"\s+r\s+", r)]) == 4
    assert " r " not in pending.stdout and "hqw" in pending.stdout
    assert (nobody.returncode, nobody.stdout) == (0, "")
    assert re.search(rf"^all\.q@{HOST}\s+BIP\s+0/4/4\s+\d+\.\d\d\s+\S+", full.stdout, re.M)
    assert "PENDING JOBS" in full.stdout
    summary_lines = summary.stdout.splitlines()
    assert summary_lines[0].startswith("CLUSTER QUEUE")
    assert re.match(r"all\.q\s+\S+\s+4\s+0\s+0\s+4 ", summary_lines[2])


def _check_details(jobs: dict[str, int], detail: Any, missing: Any) -> None:
    assert detail.returncode == 0
    fields = dict(re.match(r"(\S[^:]*):\s+(.*)", ln).groups()  # type: ignore[union-attr]
                  for ln in detail.stdout.splitlines()[1:] if re.match(r"\S[^:]*:\s", ln))
    assert fields["job_number"] == str(jobs["array"]) and fields["job_name"] == "arr"
    assert fields["script_file"] == "/bin/sleep" and fields["job_args"] == "30"
    assert fields["job-array tasks"] == "1-6:1" and fields["job_type"] == "binary"
    assert len(re.findall(r"^usage\s+\d+:", detail.stdout, re.M)) == 3
    assert (missing.returncode, missing.stdout) == (1, "")
    assert missing.stderr == "Following jobs do not exist: \n999999\n"


def _check_xml(jobs: dict[str, int], xml: Any, full_xml: Any, qhost_xml: Any) -> None:
    root = ET.fromstring(xml.stdout)
    states = {(j.findtext("JB_job_number"), j.get("state")) for j in root.iter("job_list")}
    assert (str(jobs["run"]), "running") in states and (str(jobs["held"]), "pending") in states
    queue = ET.fromstring(full_xml.stdout).find("queue_info/Queue-List")
    assert queue is not None and queue.findtext("name") == f"all.q@{HOST}"
    assert (queue.findtext("qtype"), queue.findtext("slots_total")) == ("BIP", "4")
    assert [h.get("name") for h in ET.fromstring(qhost_xml.stdout).iter("host")] == ["global", HOST]


def _check_qhost(qhost: Any, qhost_qj: Any) -> None:
    load = Client().cluster()["hosts"][0]["load"]
    lines = qhost.stdout.splitlines()
    assert lines[0].startswith("HOSTNAME                ARCH         NCPU NSOC NCOR NTHR")
    assert lines[2].split()[0] == "global"
    assert lines[3].split()[:6] == [HOST, load["arch"], load["num_proc"], load["m_socket"],
                                    load["m_core"], load["m_thread"]]
    assert re.search(r"^   all\.q\s+BIP\s+0/4/4", qhost_qj.stdout, re.M)
    assert len(re.findall(r" MASTER", qhost_qj.stdout)) == 4


def test_qstat_and_qhost_on_a_live_cell(jobs: dict[str, int]) -> None:
    out = run_all("qstat", "qstat -s p", "qstat -u nobody_at_all", "qstat -f", "qstat -g c",
                  f"qstat -j {jobs['array']}", "qstat -j 999999", "qstat -xml", "qstat -f -xml",
                  "qhost -xml", "qhost", "qhost -q -j")
    _check_tables(jobs, *out[:5])
    _check_details(jobs, *out[5:7])
    _check_xml(jobs, *out[7:10])
    _check_qhost(*out[10:])


def test_option_errors_and_help() -> None:
    """Refused options never reach the qmaster: no cell is needed."""
    bad, no_arg, bad_qhost = run_all("qstat -nonsense", "qstat -s", "qhost -x")
    assert bad.returncode == 1 and bad.stderr.startswith("SGE 8.1.9\nusage: qstat [options]\n")
    assert bad.stderr.endswith('invalid option argument "-nonsense"\n')
    assert (no_arg.returncode, no_arg.stderr) == (1, "-s option must have argument\n")
    assert bad_qhost.returncode == 1
    assert bad_qhost.stderr.endswith('error: invalid option argument "-x"\n')
