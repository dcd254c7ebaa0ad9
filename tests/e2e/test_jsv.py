"""Job submission verifiers on a live cell: the qmaster's ``jsv_url`` (a site script that
sources our jsv_include.sh) corrects one job and rejects another with 8.1.9's words, a
JSV that hangs is bounded by JSV_TIMEOUT while the qmaster answers others, qalter is held
to ``jsv_allowed_mod``; and ``qsub -jsv`` refuses as 8.1.9's qsub
(tests/data/reference/jsv/)."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

from clients.api import Client
from deploy.cell import LocalCell
from tests.commands import command

REPO = Path(__file__).resolve().parents[2]
REF = REPO / "tests" / "data" / "reference" / "jsv"

SITE_JSV = """#!/bin/sh
jsv_on_start()
{
   return
}

jsv_on_verify()
{
   case "`jsv_get_param N`" in
      rejectme) jsv_reject "not here" ;;
      fixme)
         jsv_set_param N fixed
         jsv_sub_add_param l_hard h_rt 100
         jsv_log_info "renamed"
         jsv_correct "renamed" ;;
      slow) sleep 60 ;;
      *) jsv_accept ;;
   esac
}

. "$SGE_ROOT/util/resources/jsv/jsv_include.sh"
jsv_main
"""


def qsub(*argv: str, wait: bool = True) -> subprocess.Popen[str] | tuple[str, str, int]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "SGE_JSV_TIMEOUT": "1"}
    proc = subprocess.Popen(command(argv[0]) + list(argv[1:]), env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if not wait:
        return proc
    out, err = proc.communicate(timeout=60)
    return out, err, proc.returncode


def reference(name: str) -> tuple[str, str, int]:
    return ((REF / f"{name}.out").read_text(), (REF / f"{name}.err").read_text(),
            int((REF / f"{name}.rc").read_text()))


def set_global(client: Client, **values: str) -> None:
    pairs = client.conf_get("conf")["global"]
    client.conf_put("conf", "global", [[k, values.get(k, v)] for k, v in pairs], "modify")


def test_server_and_client_jsv(live_cell: LocalCell, tmp_path: Path) -> None:
    script = tmp_path / "site_jsv.sh"
    script.write_text(SITE_JSV)
    os.chmod(tmp_path, 0o755)
    os.chmod(script, 0o755)
    with Client() as client:
        set_global(client, jsv_url=str(script), qmaster_params="JSV_TIMEOUT=1")
        job = ["-h", "-b", "y", "-o", "/dev/null", "-j", "y", "/bin/true"]
        # corrected: the new name and resource are what is submitted
        out, err, rc = qsub("qsub", "-N", "fixme", *job)
        assert (err, rc) == ("", 0)
        assert out.endswith('("fixed") has been submitted\n'), out
        job_id = int(out.split()[2])
        [listed] = client.jobs([job_id])["jobs"]
        assert listed["opts"]["job_name"] == "fixed"
        assert listed["opts"]["hard_resources"] == {"h_rt": "100"}
        # rejected, in 8.1.9's words (server_rejectme)
        assert qsub("qsub", "-N", "rejectme", *job) == reference("server_rejectme")
        # a JSV that hangs: the qmaster answers others meanwhile; the job is refused
        slow = qsub("qsub", "-N", "slow", *job, wait=False)
        assert isinstance(slow, subprocess.Popen)
        assert client.jobs([job_id])["jobs"]
        out, err = slow.communicate(timeout=60)
        assert (out, err, slow.returncode) == (
            "", f'Unable to run job: got no response from JSV script "{script}"\nExiting.\n',
            1)
        # the JSV was started anew: the next job is verified as before
        assert qsub("qsub", "-N", "rejectme", *job) == reference("server_rejectme")
        # qalter while a JSV is configured: only what jsv_allowed_mod lists
        out, err, rc = (lambda p: (p.stdout, p.stderr, p.returncode))(subprocess.run(
            command("qalter") + ["-l", "h_rt=5", str(job_id)], text=True,
            capture_output=True, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=30))
        assert (out, err, rc) == reference("server_qalter_l")
        set_global(client, jsv_url="none", qmaster_params="none")
        # the client side: qsub -jsv refuses as 8.1.9's qsub (captured)
        for name in ("reject", "reject_nomsg", "reject_wait", "badparam", "die"):
            got = qsub("qsub", "-jsv", str(REF / f"{name}.sh"), "-N", "capt", *job)
            want = reference(f"qsub_jsv_{name}")
            if name == "badparam":  # (8.1.9 adds a line of its own bug: see compatibility)
                want = (want[0], want[1].replace(
                    "unable to allocate memory for binding during JSV execution\n", ""),
                    want[2])
            if name == "die":
                want = (want[0], want[1].replace("/tmp/jsvcap/", f"{REF}/"), want[2])
            assert got == want, name
        # qrsh's too, in its own words
        assert qsub("qrsh", "-jsv", str(REF / "reject.sh"), "/bin/true") == \
            reference("qrsh_jsv_reject")
        out, err, rc = qsub("qsub", "-jsv", str(REF / "correct.sh"), "-N", "capt", *job)
        assert (out.splitlines()[0], err, rc) == ("corrected it", "", 0)
        assert '("renamed") has been submitted' in out
