"""Tests of clients.qsub.options against Grid Engine 8.1.9's texts and rules."""
from __future__ import annotations

import string
from datetime import datetime, timezone

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from clients.qsub.options import (QsubError, SubmitOptions, date_time_to_epoch,
                                  immediate_scheduled, job_name_default, parse_qsub,
                                  script_read_error, submitted_message, sync_report,
                                  unable_to_run, validate_job_name)

from tests.reference import REFERENCE
ENV = {"HOME": "/home/u", "TERM": "xterm", "PATH": "/bin"}


def reader(files: dict[str, str]):
    def read(path: str) -> str:
        if path not in files:
            raise FileNotFoundError(2, "No such file or directory")
        return files[path]
    return read


def qsub(*argv: str, script: str | None = None, files: dict[str, str] | None = None,
         defaults: tuple[str, ...] = (), environ: dict[str, str] | None = None) -> SubmitOptions:
    return parse_qsub(list(argv), script_text=script, cwd="/home/u/work",
                      environ=ENV if environ is None else environ, home="/home/u",
                      default_files=defaults, read_file=reader(files or {}))


def error(*argv: str, **kw) -> tuple[str, int]:
    with pytest.raises(QsubError) as info:
        qsub(*argv, **kw)
    return info.value.message, info.value.exit_code


def binary(*argv: str, **kw) -> SubmitOptions:
    return qsub("-b", "y", *argv, "/bin/true", **kw)


# ---------------------------------------------------------------- reference texts
def test_reference_unknown_option() -> None:
    assert error("-b", "y", "--bogus", "/bin/true") == ('qsub: invalid option argument "--bogus"', 2)


def test_reference_no_such_script() -> None:
    assert error("/nonexistent/script.sh") == (
        "Unable to read script file because of error: error opening "
        "/nonexistent/script.sh: No such file or directory", 14)


def test_script_read_error_helper() -> None:
    err = script_read_error("/x", FileNotFoundError(2, "No such file or directory"))
    assert (err.message, err.exit_code) == (
        "Unable to read script file because of error: error opening /x: "
        "No such file or directory", 14)


def test_reference_reversed_array_range_is_normalised() -> None:
    opts = binary("-t", "5-1")
    assert opts.array == (1, 5, 1)
    assert submitted_message(90, opts.job_name, opts.array) == \
        'Your job-array 90.1-5:1 ("true") has been submitted'


@pytest.mark.parametrize("args, line", [
    ((73, "true"), 'Your job 73 ("true") has been submitted'),
    ((75, "my_name"), 'Your job 75 ("my_name") has been submitted'),
    ((76, "true", (1, 3, 1)), 'Your job-array 76.1-3:1 ("true") has been submitted'),
])
def test_submitted_messages(args: tuple, line: str) -> None:
    assert submitted_message(*args) == line


def test_terse_messages() -> None:
    assert submitted_message(74, "true", terse=True) == "74"
    assert submitted_message(77, "true", (1, 10, 2), terse=True) == "77.1-10:2"


def test_reference_files_agree_with_the_literals() -> None:
    assert (REFERENCE / "qsub-err-unknown-option.err").read_text().strip() == \
        error("-b", "y", "--bogus", "/bin/true")[0]
    assert (REFERENCE / "qsub-success-array-terse.out").read_text().strip() == \
        submitted_message(77, "true", binary("-t", "1-10:2").array, terse=True)
    script = (REFERENCE / "job-script.sh").read_text()
    assert qsub("./job-script.sh", files={"./job-script.sh": script}).job_name == "from_script"


# ---------------------------------------------------------------- script, args, names
def test_script_directives_anywhere_and_name() -> None:
    text = "#!/bin/sh\necho a\n#$ -N late\n#PBS -N pbs\n  #$ -N indented\n"
    opts = qsub("job.sh", "a1", "a2", files={"job.sh": text})
    assert (opts.job_name, opts.script_path, opts.script_args) == ("late", "job.sh", ["a1", "a2"])
    assert opts.script_text == text


def test_directive_trailing_comment_quotes_and_no_space() -> None:
    opts = qsub(script="#$-l h_rt=5 # not -l foo\n#$ -N \"quoted\"\n")
    assert opts.hard_resources == {"h_rt": "5"}
    assert opts.job_name == "quoted"
    assert qsub(script="#$ -N crlf\r\necho\r\n").job_name == "crlf"


def test_stdin_script() -> None:
    opts = qsub(script="echo hi\n")
    assert (opts.job_name, opts.script_path, opts.script_text) == ("STDIN", None, "echo hi\n")
    assert qsub("-", "x", script="true\n").script_args == ["x"]


def test_stdin_is_read_through_the_reader_when_needed() -> None:
    assert qsub(files={"-": "#$ -N piped\n"}).job_name == "piped"
    assert qsub("-b", "y", "/bin/true", files={}).job_name == "true"


def test_empty_stdin() -> None:
    assert error(files={"-": ""}) == ("Unable to read script file because of error: "
                                      "no input read from stdin", 4)
    assert error(script="") == ("Unable to read script file because of error: "
                                "no input read from stdin", 4)


def test_binary_skips_script_and_needs_command() -> None:
    opts = qsub("-b", "y", "/bin/sleep", "300")
    assert (opts.binary, opts.job_name, opts.script_args, opts.script_text) == \
        (True, "sleep", ["300"], None)
    assert error("-b", "y") == ("qsub: command required for a binary job", 2)


def test_binary_from_defaults_skips_script_reading() -> None:
    assert qsub("/bin/true", defaults=("-b y\n",)).binary


def test_prefix_option() -> None:
    text = "#$ -N dollar\n#XX -N xx\n"
    assert qsub("-C", "#XX", "s.sh", files={"s.sh": text}).job_name == "xx"
    assert qsub("-C", "", "s.sh", files={"s.sh": text}).job_name == "s.sh"
    assert qsub("s.sh", files={"s.sh": "#$ -C XX\nXX -N no\n"}).job_name == "s.sh"
    # a '#' in a directive starts a comment, as in Grid Engine
    assert error("s.sh", files={"s.sh": "#$ -C #XX\n"}) == (
        "Unable to read script file because of error: -C option must have argument", 2)


def test_double_dash_job_arguments() -> None:
    assert error("-b", "y", "--") == ("qsub: -- option must be followed by job arguments", 2)


def test_job_name_default() -> None:
    assert job_name_default(None, False, None) == "STDIN"
    assert job_name_default("/a/b/run.sh") == "run.sh"
    assert job_name_default("x", True, "/bin/sleep") == "sleep"


@pytest.mark.parametrize("name, text", [
    ("1abc", 'denied: "1abc" is not a valid object name (cannot start with a digit)'),
    ("a:b", "Colon (':') not allowed in objectname"),
    ("a@b", "At ('@') not allowed in objectname"),
    ("a\\b", "Backslash ('\\') not allowed in objectname"),
    ("a*", "Asterisk ('*') not allowed in objectname"),
    ("a?", "Questionmark ('?') not allowed in objectname"),
    ("a\tb", "Tab not allowed in objectname"),
    ("none", 'Keyword ("NONE") not allowed as objectname'),
    ("ok_name.2", None),
])
def test_validate_job_name(name: str, text: str | None) -> None:
    assert validate_job_name(name) == text


def test_invalid_names_refused() -> None:
    assert error("-b", "y", "-N", "a/b", "/bin/true") == (
        "qsub: argument to -N option must not contain / ", 2)
    assert error("-b", "y", "-N", "", "/bin/true") == (
        "qsub: empty string argument to -N option invalid", 2)
    assert error("-b", "y", "-N", "9lives", "/bin/true") == (unable_to_run(
        'denied: "9lives" is not a valid object name (cannot start with a digit)'), 1)


# ---------------------------------------------------------------- every option
def test_output_options() -> None:
    opts = binary("-o", "/dev/null", "-e", "h1:/e1,/e2", "-i", ":/in", "-j", "yes")
    assert (opts.stdout_paths, opts.stderr_paths, opts.stdin_paths, opts.merge_output) == \
        (["/dev/null"], ["h1:/e1", "/e2"], ["/in"], True)


def test_path_lists_merge_by_host() -> None:
    opts = binary("-o", "/a,h:/b", "-o", "/c", "-S", "/bin/sh", "-S", "/bin/bash")
    assert (opts.stdout_paths, opts.shell) == (["/c", "h:/b"], ["/bin/bash"])


def test_working_directory() -> None:
    assert binary("-cwd").cwd == "/home/u/work"
    assert binary("-cwd", "-wd", "/tmp").cwd == "/tmp"
    opts = binary()
    assert (opts.cwd, opts.submit_cwd, opts.submit_home) == (None, "/home/u/work", "/home/u")


def test_environment() -> None:
    opts = binary("-v", "A=1,TERM,UNSET", "-v", "A=2")
    assert opts.env == {"A": "2", "TERM": "xterm", "UNSET": None}
    opts = binary("-V", "-v", "PATH=/x")
    assert opts.export_all_env and opts.env == {**ENV, "PATH": "/x"}
    assert error("-b", "y", "-v", "=x", "/bin/true") == (
        'qsub: Wrong variable list format -v "=x" or environment variable not set', 7)


def test_flags() -> None:
    opts = binary("-terse", "-h", "-notify", "-now", "y", "-r", "n", "-R", "y",
                  "-verify", "-pty", "no", "-shell", "n", "-sync", "y")
    assert (opts.terse, opts.hold, opts.notify, opts.now, opts.rerun, opts.reserve,
            opts.verify, opts.pty, opts.use_shell, opts.sync) == \
        (True, True, True, True, False, True, True, False, False, True)
    assert binary().rerun is None


def test_sync_any_yes_wins() -> None:
    assert binary("-sync", "y", "-sync", "n").sync


@pytest.mark.parametrize("switch", ["-j", "-now", "-sync", "-b", "-R", "-shell", "-r"])
def test_yes_no_errors(switch: str) -> None:
    assert error("-b", "y", switch, "maybe", "/bin/true") == (
        f'qsub: invalid option argument "{switch} maybe"', 7)


def test_array_ranges() -> None:
    assert binary("-t", "1-10:2").array == (1, 10, 2)
    assert binary("-t", "7").array == (7, 7, 1)
    assert error("-b", "y", "-t", "1-10:0", "/bin/true") == (
        "qsub: Negative or zero step in range is not allowed", 7)
    assert error("-b", "y", "-t", "x", "/bin/true") == ("qsub: Numerical value invalid!\n"
        'The initial portion of string "x" contains no decimal number', 7)
    assert error("-b", "y", "-t", "1-2,5", "/bin/true") == (
        "qsub: -t option only allows one range specification", 7)
    assert error("-b", "y", "-t", "0", "/bin/true")[1] == 1


def test_hold_jid_lists() -> None:
    opts = binary("-hold_jid", "5,job_a", "-hold_jid", "j*", "-hold_jid_ad", "7")
    assert (opts.hold_jid, opts.hold_jid_ad) == (["5", "job_a", "j*"], ["7"])
    assert error("-b", "y", "-hold_jid", ",", "/bin/true") == (
        'qsub: Wrong jid_hold list format "," specified to -hold_jid option', 7)


def test_queues_resources_hard_soft() -> None:
    opts = binary("-q", "a.q,b.q@h", "-soft", "-q", "c.q", "-l", "mem=1G,x",
                  "-hard", "-l", "h_rt=1:00:00", "-masterq", "m.q")
    assert (opts.hard_queues, opts.soft_queues, opts.master_queues) == \
        (["a.q", "b.q@h"], ["c.q"], ["m.q"])
    assert opts.hard_resources == {"h_rt": "1:00:00"}
    assert opts.soft_resources == {"mem": "1G", "x": "TRUE"}
    assert binary("-l", "a=1", "-l", "a=2 b=3").hard_resources == {"a": "2", "b": "3"}
    assert error("-b", "y", "-l", "=5", "/bin/true") == (
        'qsub: Wrong resource list format "=5" specified to -l option', 7)
    assert error("-b", "y", "-q", ",", "/bin/true") == (
        'qsub: Wrong queue list format "," specified to -q option', 7)
    assert binary("-q", "a.q").script_args == [] and qsub("-b", "y", "/bin/true", "-q").script_args == ["-q"]
    assert error("-b", "y", "-q") == ("qsub: -q option must have queue list argument", 2)


def test_memory_syntax_is_left_to_the_resource_model() -> None:
    assert binary("-l", "h_vmem=12abc").hard_resources == {"h_vmem": "12abc"}


def test_priority() -> None:
    assert binary("-p", "-1023").priority == -1023
    assert binary("-p", "1024").priority == 1024
    for bad in ("1025", "-1024", "x", "1.5"):
        assert error("-b", "y", "-p", bad, "/bin/true") == (
            f'qsub: invalid priority "{bad}".  Must be an integer from -1023 to 1024', 7)


def test_parallel_environment() -> None:
    assert binary("-pe", "smp", "4").pe == ("smp", 4, 4)
    opts = binary("-pe", "mpi", "2-")
    assert (opts.pe, opts.pe_ranges) == (("mpi", 2, 9999999), [(2, 9999999)])
    assert binary("-pe", "mpi", "2,8-4").pe == ("mpi", 2, 8)
    assert error("-b", "y", "-pe") == ("qsub: -pe option must have pe_name argument", 2)
    assert error("-b", "y", "-pe", "smp") == ("qsub: -pe option must have range as 2nd argument", 2)
    assert error("-b", "y", "-pe", "smp", "2-4:2", "/bin/true") == (
        'qsub: Range specifier "4:2" has unknown trailer ":2"', 7)


def test_project_account_mail() -> None:
    opts = binary("-P", "proj", "-A", "acct", "-M", "a@h1,b", "-m", "be", "-m", "as")
    assert (opts.project, opts.account, opts.mail_list, opts.mail_options) == \
        ("proj", "acct", ["a@h1", "b"], "abes")
    assert binary("-m", "be", "-m", "n").mail_options == ""
    assert error("-b", "y", "-m", "b,e", "/bin/true") == (
        'qsub: Wrong mail options list format "b,e" specified to -m option', 7)


def test_verify_mode() -> None:
    assert binary().verify_mode == "n"
    assert binary("-w", "e").verify_mode == "e"
    assert error("-b", "y", "-w", "x", "/bin/true") == ('qsub: invalid option argument "-w x"', 7)


def test_dates() -> None:
    opts = binary("-a", "202611221530.45", "-dl", "11221530")
    assert (opts.start_time, opts.deadline) == ("202611221530.45", "11221530")
    assert error("-b", "y", "-a", "1399", "/bin/true") == (
        'qsub: Wrong date/time format "1399" specified to -a option', 7)
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    assert date_time_to_epoch("11221530", now) == \
        int(datetime(2026, 11, 22, 15, 30, tzinfo=timezone.utc).timestamp())
    assert date_time_to_epoch("2711221530.05", now) == \
        int(datetime(2027, 11, 22, 15, 30, 5, tzinfo=timezone.utc).timestamp())


def test_checkpoint_share_context_misc() -> None:
    opts = binary("-ckpt", "ck", "-c", "sx", "-js", "5", "-tc", "2", "-ar", "3",
                  "-ac", "a=1,b", "-dc", "b", "-ac", "c=3")
    assert (opts.checkpoint_name, opts.checkpoint_occasion, opts.job_share,
            opts.task_concurrency, opts.ar_id, opts.context) == \
        ("ck", "sx", 5, 2, 3, {"a": "1", "c": "3"})
    assert binary("-c", "1:00").checkpoint_interval == 60
    assert binary("-sc", "z=1", "-sc", "y").context == {"y": None}
    assert error("-b", "y", "-c", "q", "/bin/true") == ("qsub: -c specifier invalid", 2)
    assert error("-b", "y", "-js", "-1", "/bin/true") == (
        "qsub: invalid jobshare, must be an unsigned integer", 2)


@pytest.mark.parametrize("switch, text", [
    ("-N", "qsub: -N option must have argument"),
    ("-o", "qsub: -o option must have argument"),
    ("-S", "qsub: -S option must have path_name argument"),
    ("-t", "qsub: -t option must have a list of task id ranges"),
    ("-v", "qsub: -v option must have variable list argument"),
    ("-@", "qsub: -@ option must have file argument"),
    ("-ac", "qsub: -ac option must have a context_list list argument"),
])
def test_missing_arguments(switch: str, text: str) -> None:
    assert error(switch) == (text, 2)


def test_refused_rare_options() -> None:
    assert error("-b", "y", "-binding", "linear:1", "/bin/true") == (
        'qsub: Unsupported: "-binding" is not supported in this version', 5)
    assert error("-b", "y", "-noshell", "/bin/true") == ("qsub: Unknown option -noshell\n", 5)
    assert error("-b", "y", "-display", "h:0", "/bin/true") == (
        "qsub: Unknown option -display h:0\n", 5)


def test_help() -> None:
    assert qsub("-help").help
    assert error("-b", "y", "/bin/true", defaults=("-help\n",)) == (
        "qsub: -help not allowed in this context", 5)


def test_repeat_warning() -> None:
    assert binary("-N", "a", "-N", "b").warnings == [
        'qsub: warning: "-N" option has already been set, overriding previous setting']
    assert qsub("s", files={"s": "#$ -N a\n#$ -N b\n"}).warnings == [
        'warning: "-N" option has already been set, overriding previous setting']


# ---------------------------------------------------------------- precedence
def test_precedence_defaults_script_cmdline() -> None:
    defaults = ("# comment\n-N from_cell -P p0 -l a=0\n", "-N from_home\n", "-A acct\n")
    assert binary(defaults=defaults).job_name == "from_home"
    script = "#$ -N from_script -l a=1\n"
    opts = qsub("s.sh", files={"s.sh": script}, defaults=defaults)
    assert (opts.job_name, opts.project, opts.account, opts.hard_resources) == \
        ("from_script", "p0", "acct", {"a": "1"})
    assert qsub("-N", "cmd", "s.sh", files={"s.sh": script}, defaults=defaults).job_name == "cmd"


def test_option_file_is_inserted_where_it_appears() -> None:
    files = {"opts": "# c\n-N from_file -p -5\n-o /o\n"}
    assert binary("-N", "before", "-@", "opts", files=files).job_name == "from_file"
    opts = binary("-@", "opts", "-N", "after", files=files)
    assert (opts.job_name, opts.priority, opts.stdout_paths) == ("after", -5, ["/o"])
    files["s.sh"] = "#$ -N from_script\n"
    assert qsub("-@", "opts", "s.sh", files=files).job_name == "from_file"
    assert error("-@", "missing", "x") == (
        "qsub: error opening missing: No such file or directory", 14)


def test_queue_list_of_a_later_source_replaces_earlier() -> None:
    opts = qsub("-q", "c.q", "s.sh", files={"s.sh": "#$ -q s.q\n"}, defaults=("-q d.q\n",))
    assert opts.hard_queues == ["c.q"]
    assert qsub("s.sh", files={"s.sh": "#$ -q s.q\n"}, defaults=("-q d.q\n",)).hard_queues == ["s.q"]


def test_clear_drops_earlier_options() -> None:
    opts = qsub("-clear", "-o", "/x", "s.sh", files={"s.sh": "#$ -N n\n"},
                defaults=("-P p -l a=1\n",))
    assert (opts.job_name, opts.project, opts.hard_resources, opts.stdout_paths) == \
        ("s.sh", None, {}, ["/x"])


def test_errors_in_each_source_carry_their_prefix() -> None:
    assert error("-b", "y", "/bin/true", defaults=("-p 5000\n",)) == (
        'invalid priority "5000".  Must be an integer from -1023 to 1024', 7)
    assert error("s", files={"s": "#$ -bogus\n"}) == (
        'Unable to read script file because of error: invalid option argument "-bogus"', 2)


def test_to_dict_is_msgpack_round_trip() -> None:
    opts = binary("-t", "1-3", "-pe", "smp", "2-4", "-l", "a=1", "-v", "A")
    data = msgpack.unpackb(msgpack.packb(opts.to_dict()))
    assert SubmitOptions.from_dict(data) == opts
    job = qsub("s.sh", files={"s.sh": "true\n"}).job_opts()
    assert "script_text" not in job and job["script_path"] == "s.sh"
    assert SubmitOptions.from_dict(job).script_text is None


# ---------------------------------------------------------------- -sync messages
def test_sync_reports() -> None:
    assert sync_report("5", exit_code=3) == sync_report("5", exit_code=3, terse=True)
    assert sync_report("5", exit_code=3).text == "Job 5 exited with exit code 3."
    assert sync_report("5", exit_code=3).exit_code == 3
    ok = sync_report("5.2", exit_code=0)
    assert (ok.stream, ok.text, ok.exit_code) == ("stdout", "Job 5.2 exited with exit code 0.", 0)
    assert sync_report("5", exit_code=0, terse=True).text is None
    sig = sync_report("5", signal="SIGKILL")
    assert (sig.stream, sig.text, sig.exit_code) == (
        "stderr", "Job 5 exited because of signal SIGKILL", 1)
    assert sync_report("5", never_ran=True).text == "Unable to run job 5"
    assert sync_report("5").text == "No information available on job 5's exit status."
    assert immediate_scheduled("5") == "Your immediate job 5 has been successfully scheduled."


# ---------------------------------------------------------------- properties
names = st.text(string.ascii_letters + "_", min_size=1, max_size=12)
values = st.text(string.ascii_letters + string.digits + ":.*", min_size=1, max_size=8)


@given(st.dictionaries(names, values, min_size=1, max_size=5))
def test_resource_lists_round_trip(resources: dict[str, str]) -> None:
    text = ",".join(f"{k}={v}" for k, v in resources.items())
    assert binary("-l", text).hard_resources == resources


@given(st.integers(1, 10**6), st.integers(0, 10**6), st.integers(1, 1000))
def test_array_spec_round_trip(first: int, span: int, step: int) -> None:
    opts = binary("-t", f"{first + span}-{first}:{step}")
    assert opts.array == (first, first + span, step)
    assert submitted_message(9, "true", opts.array, terse=True) == f"9.{first}-{first + span}:{step}"


@given(st.lists(st.tuples(st.sampled_from(["", "h1", "h2"]), names), min_size=1, max_size=4))
def test_path_lists_keep_host_form(items: list[tuple[str, str]]) -> None:
    spec = ",".join(f"{h}:/{p}" if h else f"/{p}" for h, p in items)
    expected: dict[str, str] = {}
    for host, path in items:  # within one list Grid Engine keeps every entry
        expected.setdefault(host + str(len(expected)), f"{host}:/{path}" if host else f"/{path}")
    assert binary("-o", spec).stdout_paths == list(expected.values())


@given(st.integers(-1023, 1024))
def test_priority_range(priority: int) -> None:
    assert binary("-p", str(priority)).priority == priority
