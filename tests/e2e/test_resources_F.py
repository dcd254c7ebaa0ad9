"""qhost -F and qstat -F with global and host complex values on a live cell, against
the texts Grid Engine 8.1.9 printed for the same configuration (a JOB consumable lic=1
on the global host, slots=2,hfix=7 on the exec host), before and while a job holds
lic=1."""
from __future__ import annotations

import subprocess
import time
from typing import Any

from clients.api import Client, job_request
from deploy.cell import machine_name
from tests.commands import command

HOST = machine_name()
RULE = "-" * 94
QHOST_HEAD = ("HOSTNAME                ARCH         NCPU NSOC NCOR NTHR  LOAD  MEMTOT  MEMUSE  "
              "SWAPTO  SWAPUS")


def run(name: str, *args: str) -> str:
    cmd = command(name)
    done = subprocess.run(cmd + list(args), capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout


def resource_lines(text: str) -> list[str]:
    """The lines after the host lines (their load figures differ from run to run)."""
    return [line for line in text.splitlines() if line.startswith(" ")]


def configure(client: Client) -> None:
    for row in (["lic", "lic", "INT", "<=", "YES", "JOB", "0", "0"],
                ["hfix", "hfix", "INT", "<=", "YES", "NO", "0", "0"]):
        client.conf_put("complex", row[0], [row], "add")
    run("qconf", "-mattr", "exechost", "complex_values", "lic=1", "global")
    run("qconf", "-aattr", "exechost", "complex_values", "slots=2,hfix=7", HOST)


def test_qhost_and_qstat_F_show_global_and_host_values(live_cell: Any) -> None:
    with Client(live_cell.cell) as client:
        configure(client)
        qhost = run("qhost", "-F", "lic,slots,hfix")
        assert qhost.splitlines()[:3] == [QHOST_HEAD, RULE, "global" + " " * 18 + "-" +
                                          " " * 15 + "-    -    -    -     -       -"
                                          "       -       -       -"]
        assert resource_lines(qhost) == ["    Host Resource(s):      gc:lic=1.000000",
                                         "    Host Resource(s):      gc:lic=1.000000",
                                         "   hc:slots=2.000000", "   hf:hfix=7.000000"]
        full = run("qhost", "-F")
        assert "   gc:lic=1.000000\n" + HOST in full and "   hl:arch=" in full
        assert full.rstrip().endswith("   hc:slots=2.000000\n   hf:hfix=7.000000")
        assert run("qstat", "-F", "lic,slots,hfix").splitlines()[3:] == [
            "\tgc:lic=1", "\thc:slots=2", "\thf:hfix=7"]
        [job] = client.submit([job_request("/bin/sleep", ["30"], binary=True,
                                           hard_resources={"lic": "1"})])
        try:
            deadline = time.monotonic() + 20
            while client.jobs([job])["tasks"][0]["state"] != "running" and \
                    time.monotonic() < deadline:
                time.sleep(0.2)
            assert resource_lines(run("qhost", "-F", "lic,slots")) == [
                "    Host Resource(s):      gc:lic=0.000000",
                "    Host Resource(s):      gc:lic=0.000000", "   hc:slots=1.000000"]
            assert run("qstat", "-F", "lic,slots,hfix").splitlines()[3:6] == [
                "\tgc:lic=0", "\thc:slots=1", "\thf:hfix=7"]  # then the job's line
        finally:
            client.delete([{"job_id": job}])


def qsub(*args: str) -> tuple[str, str, int]:
    cmd = command("qsub")
    done = subprocess.run(cmd + list(args), capture_output=True, text=True, timeout=30)
    return done.stdout, done.stderr, done.returncode


def test_hostname_requests_must_name_a_host(live_cell: Any) -> None:
    """Grid Engine 8.1.9 (captured): `qsub -l hostname=nosuch` -> "Unable to run job:
    can't resolve hostname "nosuch"", exit 1. An execution host's name is always fine,
    resolvable or not (our test hosts may not be), and patterns are not resolved."""
    assert qsub("-b", "y", "-l", "hostname=nosuch.invalid", "/bin/true") == (
        "", 'Unable to run job: can\'t resolve hostname "nosuch.invalid"\nExiting.\n', 1)
    for value in (HOST, HOST.upper(), "nosuch*"):
        out, err, rc = qsub("-b", "y", "-terse", "-l", f"h={value}", "/bin/true")
        assert (err, rc) == ("", 0) and out.strip().isdigit()
