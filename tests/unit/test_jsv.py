"""common.jsv: the JSV protocol against 8.1.9's captured exchanges (tests/data/reference/
jsv/), the translation between job options and JSV parameters, jsv_url and
jsv_allowed_mod; and our jsv_include.sh, driven as qsub and the qmaster drive it."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from common import jsv
from common.jobspec import check_job_options
from deploy.launchers import JSV_INCLUDE

REF = Path(__file__).resolve().parents[1] / "data" / "reference" / "jsv"


def opts(**kw: object) -> dict[str, object]:
    return check_job_options({"script_path": "/bin/sleep", "script_args": ["1"],
                              "binary": True, **kw})


def sent_lines(name: str) -> list[str]:
    return [line[4:] for line in (REF / name).read_text().splitlines()]


def test_client_params_as_8_1_9_sends_them() -> None:
    """qsub -jsv log.sh -N capt -l h_rt=100 -pe smp 2 -ac x=1 -b y -o /dev/null -j y
    /bin/sleep 1: the lines 8.1.9's qsub sent, but its default M (user@host), which our
    qsub does not add."""
    job = opts(job_name="capt", hard_resources={"h_rt": "100"}, pe=("smp", 2, 2),
               context={"x": "1"}, stdout_paths=["/dev/null"], merge_output=True)
    exchange = jsv.Exchange(jsv.job_params(job, context="client", client="qsub",
                                           user="sgeuser", group="sgeuser"), {})
    lines = exchange.opening() + exchange.feed("STARTED")
    want = [line for line in sent_lines("qsub_jsv_protocol.out")
            if not line.startswith("PARAM M ")]
    assert lines == want[:-1]  # (QUIT comes from the runner)


def test_server_params_as_8_1_9_sends_them() -> None:
    """The qmaster's: CONTEXT server, CLIENT qmaster; 8.1.9's JOB_ID when given; its
    defaults A sge and M user@host are not ours (docs/compatibility.md)."""
    job = opts(job_name="rejectme", stdout_paths=["/dev/null"], merge_output=True,
               script_args=[], script_path="/bin/true")
    params = jsv.job_params(job, context="server", client="qmaster", user="sgeuser",
                            group="sgeuser", job_id=25)
    want = [line for line in sent_lines("server_protocol.out")[:16]
            if not line.startswith(("PARAM A ", "PARAM M "))]
    assert ["START"] + [f"PARAM {n} {v}" for n, v in params] + ["BEGIN"] == want


def run(lines: list[str], params: list[tuple[str, str]] | None = None,
        env: dict[str, str | None] | None = None) -> tuple[jsv.Verdict | None, list[str]]:
    exchange = jsv.Exchange(params or [("N", "x")], env or {})
    sent = exchange.opening()
    for line in lines:
        sent += exchange.feed(line)
    return exchange.verdict, sent


@pytest.mark.parametrize("result, accepted, message", [
    ("RESULT STATE ACCEPT", True, ""),
    ("RESULT STATE CORRECT fixed", True, "fixed"),
    ("RESULT STATE REJECT no binaries here", False, "no binaries here"),
    ("RESULT STATE REJECT", False, "JSV rejected job"),
    ("RESULT STATE REJECT_WAIT come back later", False, "come back later"),
    ("RESULT STATE REJECT_WAIT", False, "JSV temporarily rejected job"),
    ("RESULT STATE MAYBE", False, 'JSV sent unknown result "MAYBE"'),
    ("HELLO there", False, 'master got unknown command from JSV: "HELLO"'),
    ("PARAM USER root", False, 'JSV tries to modify read-only parameter "USER"'),
    ("PARAM CMDARG0 x", False, 'JSV tries to modify read-only parameter "CMDARG0"'),
])
def test_results(result: str, accepted: bool, message: str) -> None:
    verdict, _ = run(["STARTED", result])
    assert verdict is not None and (verdict.accepted, verdict.message) == (accepted, message)


def test_captured_client_rejections_word_for_word() -> None:
    """What 8.1.9's qsub printed after "Unable to run job: " for each captured JSV."""
    for name, result in (("reject", "RESULT STATE REJECT no binaries here"),
                         ("reject_nomsg", "RESULT STATE REJECT"),
                         ("reject_wait", "RESULT STATE REJECT_WAIT come back later"),
                         ("badparam", "PARAM USER root")):
        verdict, _ = run(["STARTED", result])
        err = (REF / f"qsub_jsv_{name}.err").read_text().splitlines()[0]
        assert verdict is not None and f"Unable to run job: {verdict.message}" == err
    assert jsv.no_response("/tmp/jsvcap/die.sh") in (REF / "qsub_jsv_die.err").read_text()


def test_changes_env_and_logs() -> None:
    verdict, sent = run(["SEND ENV", "STARTED", "PARAM N renamed", "PARAM l_hard h_rt=50",
                         "ENV ADD NEW hello world", "ENV MOD OLD 2", "ENV DEL GONE",
                         "LOG INFO corrected it", "RESULT STATE CORRECT fixed"],
                        env={"OLD": "1", "GONE": "x", "TERM": None})
    assert sent == ["START", "PARAM N x", "ENV ADD OLD 1", "ENV ADD GONE x", "ENV ADD TERM ",
                    "BEGIN"]
    assert verdict is not None and verdict.accepted
    assert verdict.logs == [("INFO", "corrected it")]
    job = jsv.apply_changes(opts(env={"OLD": "1", "GONE": "x"}), verdict.params, verdict.env)
    assert job["job_name"] == "renamed" and job["hard_resources"] == {"h_rt": "50"}
    assert job["env"] == {"OLD": "2", "NEW": "hello world"}


def test_env_is_sent_only_when_asked() -> None:
    _, sent = run(["STARTED"], env={"A": "1"})
    assert sent == ["START", "PARAM N x", "BEGIN"]


def test_bounded_lines() -> None:
    verdict, _ = run(["STARTED", "LOG INFO " + "x" * jsv.MAX_LINE])
    assert verdict is not None and not verdict.accepted and verdict.restart
    verdict, _ = run(["STARTED"] + ["LOG INFO x"] * jsv.MAX_LINES)
    assert verdict is not None and not verdict.accepted


def test_apply_changes_of_each_kind() -> None:
    job = opts(pe=("smp", 2, 4), array=(1, 10, 1), hold=True, priority=-5)
    changed = jsv.apply_changes(job, {"pe_min": "4", "t_max": "20", "h": "", "p": "",
                                      "q_hard": "all.q,b.q", "ac": "a=1,b", "r": "y",
                                      "M": "a@b,c@d", "j": "y", "A": "acct"}, {})
    changed = check_job_options(changed)
    assert changed["pe"] == ["smp", 4, 4] or tuple(changed["pe"]) == ("smp", 4, 4)
    assert tuple(changed["array"]) == (1, 20, 1)
    assert not changed["hold"] and changed["priority"] == 0
    assert changed["hard_queues"] == ["all.q", "b.q"]
    assert changed["context"] == {"a": "1", "b": None}
    assert changed["rerun"] is True and changed["merge_output"] is True
    assert changed["mail_list"] == ["a@b", "c@d"] and changed["account"] == "acct"
    deleted = check_job_options(jsv.apply_changes(job, {"pe_name": ""}, {}))
    assert deleted["pe"] is None and deleted["pe_ranges"] == []
    with pytest.raises(jsv.JsvError, match='JSV tries to set "p" to "high"'):
        jsv.apply_changes(job, {"p": "high"}, {})
    with pytest.raises(jsv.JsvError, match='tries to set "nosuch"'):
        jsv.apply_changes(job, {"nosuch": "1"}, {})


@given(st.dictionaries(st.sampled_from(["N", "l_hard", "q_hard", "ac", "o", "e", "M", "p",
                                        "js", "tc", "pe_name", "pe_min", "pe_max", "t_min",
                                        "t_max", "t_step", "P", "A", "m", "j", "R", "b"]),
                       st.text(alphabet="ab1=,.", max_size=8), max_size=6))
def test_any_change_is_applied_or_refused_in_words(params: dict[str, str]) -> None:
    """Whatever a JSV sends: the options change or JsvError says why, never a crash; the
    caller then checks them as any submission (common.jobspec)."""
    try:
        changed = jsv.apply_changes(opts(), params, {})
    except jsv.JsvError as err:
        assert str(err).startswith("JSV tries to")
        return
    try:
        check_job_options(changed)
    except Exception as err:  # noqa: BLE001 - only the jobspec's refusal is expected
        assert type(err).__name__ == "JobSpecError", err


def test_params_round_trip() -> None:
    """What job_params shows, applied back, is the same job."""
    job = opts(job_name="n", hard_resources={"h_rt": "100", "mem": "1G"},
               soft_queues=["a.q"], pe=("mpi", 2, 8), array=(2, 20, 3), hold=True,
               mail_list=["u@h"], mail_options="be", notify=True, rerun=False,
               project="p", account="a", priority=-3, cwd="/tmp", reserve=True,
               task_concurrency=2, stdout_paths=["/o"], stderr_paths=["h:/e"])
    shown = dict(jsv.job_params(job, context="client", client="qsub", user="u", group="g"))
    again = {k: v for k, v in shown.items() if k in jsv.PARAMS}
    assert check_job_options(jsv.apply_changes(opts(), again, {})) == job


@pytest.mark.parametrize("text, url", [
    ("none", None), ("NONE", None), ("/a/b.sh", jsv.JsvUrl("/a/b.sh")),
    ("script:/a/b.sh", jsv.JsvUrl("/a/b.sh")),
    ("script:sgeadmin@/a/b.sh", jsv.JsvUrl("/a/b.sh", "sgeadmin")),
])
def test_urls(text: str, url: jsv.JsvUrl | None) -> None:
    assert jsv.parse_url(text, client=False) == url


@pytest.mark.parametrize("text, client, message", [
    ("java:/a.jar", False, 'type "java" in JSV URL is invalid'),
    ("script:u@/a.sh", True, "specifying user is not allowed in client JSV URLs"),
    ("relative.sh", False, 'JSV URL "relative.sh" is invalid'),
])
def test_bad_urls(text: str, client: bool, message: str) -> None:
    with pytest.raises(jsv.JsvError, match=message):
        jsv.parse_url(text, client=client)


def test_allowed_mod_as_8_1_9_answers_qalter() -> None:
    ref = (REF / "server_qalter_l.out").read_text().strip()
    assert jsv.alter_refusal("/a.sh", jsv.DEFAULT_ALLOWED_MOD, ["hard_resources"]) == ref
    assert jsv.alter_refusal("/a.sh", jsv.DEFAULT_ALLOWED_MOD, ["job_name"]) is None
    assert jsv.alter_refusal("none", jsv.DEFAULT_ALLOWED_MOD, ["hard_resources"]) is None
    assert jsv.alter_refusal("/a.sh", "none", ["job_name"]) == \
        "No job modification allowed due to jsv_allowed_mod configuration"
    assert jsv.alter_refusal("/a.sh", "N", ["pe", "pe_ranges", "job_name"]).endswith(
        "does not allow: pe_name,pe_min")


# ---- jsv_include.sh, driven as a client drives it ----------------------------------------
SITE = """
jsv_on_start() {{ {start}; }}
jsv_on_verify() {{
{verify}
}}
. {include}
jsv_main
"""


def drive(verify: str, lines: list[str], start: str = "return") -> list[str]:
    script = SITE.format(start=start, verify=verify, include=JSV_INCLUDE)
    proc = subprocess.run(["/bin/sh", "-c", script], input="\n".join(lines) + "\nQUIT\n",
                          text=True, capture_output=True, timeout=30,
                          env={"PATH": os.environ.get("PATH", "/bin:/usr/bin")})
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    return proc.stdout.splitlines()


JOB = ["START", "PARAM VERSION 1.0", "PARAM N my job", "PARAM l_hard h_vmem=1G,h_rt=100",
       "PARAM ac a=1,b", "BEGIN"]


def test_include_reads_and_corrects() -> None:
    out = drive("""
   jsv_log_info "name=`jsv_get_param N` vmem=`jsv_sub_get_param l_hard h_vmem`"
   jsv_log_info "has_b=`jsv_sub_is_param ac b` has_c=`jsv_sub_is_param ac c`"
   jsv_log_info "is=`jsv_is_param N` not=`jsv_is_param q_hard`"
   jsv_sub_del_param l_hard h_vmem
   jsv_sub_add_param ac a 2
   jsv_sub_add_param ac c
   jsv_set_param N renamed
   jsv_del_param ac
   jsv_correct "done it"
""", JOB)
    assert out == ["STARTED", "LOG INFO name=my job vmem=1G", "LOG INFO has_b=true has_c=false",
                   "LOG INFO is=true not=false", "PARAM l_hard h_rt=100",
                   "PARAM ac a=2,b", "PARAM ac a=2,b,c", "PARAM N renamed", "PARAM ac ",
                   "RESULT STATE CORRECT done it"]


def test_include_results_and_state() -> None:
    assert drive("jsv_reject 'no way'", JOB) == ["STARTED", "RESULT STATE REJECT no way"]
    assert drive("jsv_reject_wait", JOB) == ["STARTED", "RESULT STATE REJECT_WAIT"]
    assert drive("jsv_accept", JOB) == ["STARTED", "RESULT STATE ACCEPT"]
    # parameters of one job are gone at the next
    two = JOB + ["START", "BEGIN"]
    assert drive('jsv_log_info "N=`jsv_get_param N`"; jsv_accept', two) == [
        "STARTED", "LOG INFO N=my job", "RESULT STATE ACCEPT", "STARTED", "LOG INFO N=",
        "RESULT STATE ACCEPT"]
    # out of order: the script says so, as 8.1.9's does
    assert drive("jsv_accept", ["BEGIN"]) == [
        "ERROR JSV script got BEGIN command but is in state initialized"]


def test_include_environment() -> None:
    lines = ["START", "ENV ADD HOME /home/u", "ENV ADD ODD a b  $x `y`", "BEGIN"]
    out = drive("""
   jsv_log_info "home=`jsv_get_env HOME` odd=`jsv_get_env ODD` is=`jsv_is_env NOPE`"
   jsv_add_env NEW 'v w'
   jsv_mod_env HOME /x
   jsv_del_env ODD
   jsv_del_env NOPE
   jsv_accept
""", lines, start="jsv_send_env")
    assert out == ["SEND ENV", "STARTED", "LOG INFO home=/home/u odd=a b  $x `y` is=false",
                   "ENV ADD NEW v w", "ENV MOD HOME /x", "ENV DEL ODD", "RESULT STATE ACCEPT"]


def test_include_does_not_evaluate_what_it_is_sent() -> None:
    """A value (a user's job name, a path) is data: no command in it runs."""
    marker = Path("/nonexistent-jsv-marker")
    out = drive('jsv_log_info "N=`jsv_get_param N`"; jsv_accept',
                ["START", f"PARAM N $(touch {marker})`touch {marker}`;x", "BEGIN"])
    assert out[1] == f"LOG INFO N=$(touch {marker})`touch {marker}`;x"
