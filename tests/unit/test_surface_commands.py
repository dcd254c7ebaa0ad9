"""The commands' part of the surface table (docs/compatibility.md, "The whole surface")
against Grid Engine 8.1.9's ``-help`` (tests/data/reference/help/) and against our commands.

- every option 8.1.9's ``-help`` lists has a row, and no row names an option it lacks;
- our ``-help`` lists what 8.1.9's lists;
- each command is walked in-process, option by option, with a sample argument from the help's
  glossary: the client is cut off where it would send its first request (``Reached``), so
  an option counts as *taken* when the command gets that far (or ends with 0 on its own),
  as *unknown* when the command answers with its unknown-option words, as *refused*
  otherwise. An option our help lists or the table calls ``as 8.1.9``/``differs`` must not
  be unknown, unless the table says ``refused`` (8.1.9's help lists a few options its
  commands refuse); one the table calls ``refused`` must not be taken.

qconf's own walk against captured answers is tests/unit/test_qconf_objects.py; here qconf
is walked like every other command, for the table.
"""
from __future__ import annotations

import contextlib
import importlib
import io
import re
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.surface_table import read_surface

HELP = Path(__file__).parents[1] / "data" / "reference" / "help"

# each command we provide: the module whose main() it runs
COMMANDS = {
    "qacct": "clients.qacct.main", "qalter": "clients.qalter", "qconf": "clients.qconf.main",
    "qdel": "clients.qdel", "qhold": "clients.qhold", "qhost": "clients.qhost",
    "qlogin": "clients.qrsh.main", "qmod": "clients.qmod.main", "qping": "clients.qping",
    "qquota": "clients.qquota", "qrdel": "clients.ar.qrdel", "qresub": "clients.qresub",
    "qrls": "clients.qrls", "qrsh": "clients.qrsh.main", "qrstat": "clients.ar.qrstat",
    "qrsub": "clients.ar.qrsub", "qselect": "clients.qselect", "qsh": "clients.qrsh.main",
    "qstat": "clients.qstat", "qsub": "clients.qsub.main",
    "sge_share_mon": "clients.share_mon", "qevent": "clients.qevent",
}
# 8.1.9's commands we do not provide: one row each, named as the command (help capture)
NOT_PROVIDED = {"qmake": "qmake_sge", "qtcsh": None, "qsched": None}
# sge_share_mon has no -help (8.1.9's getopt string, sge_share_mon(1))
SHARE_MON_8_1_9 = "c:d:f:hi:l:m:no:r:s:tux"

_OPTION = re.compile(r"(?:^|\s|\[)\[(-[A-Za-z_@]+)(\[j\]|\{m\|s\})?")
# qping's and qevent's lines: "   -tcp       : use TCP ...", "   -ts, -testsuite   run ..."
_LISTED = re.compile(r"^   (-[a-z_]+)(?:, +(-[a-z_]+))?(?: |$)")
_UNKNOWN = re.compile(r"invalid option argument|Unknown option|invalid option -- |"
                      r"^usage: ", re.M)


def help_options(text: str) -> list[str]:
    """The options a ``-help`` text lists, in its order (``[-ke[j] ...`` is -ke and -kej,
    ``[-k{m|s}]`` -km and -ks; qping lists its options on the usage line)."""
    found: list[str] = []
    for line in text.splitlines():
        for match in _OPTION.finditer(line):
            option, suffix = match.groups()
            names = ([option, option + "j"] if suffix == "[j]" else
                     ["-km", "-ks"] if suffix else [option])
            found += [name for name in names if name not in found]
        listed = _LISTED.match(line)
        if listed:
            found += [name for name in listed.groups() if name and name not in found]
    return found


def options_8_1_9(command: str) -> list[str]:
    if command == "sge_share_mon":
        return [f"-{letter}" for letter in SHARE_MON_8_1_9 if letter != ":"]
    return help_options((HELP / f"{command}-help.out").read_text())


# ---- the sample arguments of each option (the help's glossary) ---------------------------
SAMPLES: dict[str, list[str]] = {
    "-@": ["file"], "-a": ["202612312359"], "-A": ["acct"], "-ac": ["X=1"], "-Ap": ["file"],
    "-astnode": ["/x=1"], "-at": ["scheduler"], "-b": ["y"], "-binding": ["linear:1"],
    "-c": ["n"], "-C": ["#X"], "-dc": ["X"], "-dul": ["ul"], "-e": ["/tmp/e"], "-he": ["y"],
    "-hold_jid": ["1"], "-hold_jid_ad": ["1"], "-i": ["/dev/null"], "-j": ["y"], "-js": ["1"],
    "-jsv": ["file"], "-l": ["arch=x"], "-M": ["u@h"], "-m": ["e"], "-masterq": ["all.q"],
    "-mattr": ["queue", "slots", "1", "all.q"], "-N": ["name"], "-now": ["n"],
    "-o": ["/tmp/o"], "-ot": ["1"], "-P": ["prj"], "-p": ["1"], "-pe": ["smp", "1"],
    "-q": ["all.q"], "-r": ["y"], "-sc": ["X=1"], "-shell": ["y"], "-sync": ["n"],
    "-S": ["/bin/sh"], "-t": ["1-2"], "-v": ["X=1"], "-wd": ["/tmp"], "-R": ["y"],
    "-dl": ["202612312359"], "-tc": ["1"], "-w": ["n"], "-ar": ["1"], "-ckpt": ["ck"],
    "-display": [":0"], "-pty": ["n"], "-ackpt": ["ck"], "-u": ["root"], "-h": [],
}
_QCONF = {
    "-aattr": ["queue", "slots", "1", "all.q"], "-Aattr": ["queue", "file", "all.q"],
    "-acal": ["c"], "-aconf": ["h"], "-ah": ["h"], "-ahgrp": ["@g"], "-am": ["u"],
    "-ao": ["u"], "-ap": ["p"], "-as": ["h"], "-au": ["u", "l"], "-cq": ["all.q"],
    "-dattr": ["queue", "slots", "1", "all.q"], "-Dattr": ["queue", "file", "all.q"],
    "-dcal": ["c"], "-dckpt": ["ck"], "-dconf": ["h"], "-de": ["h"], "-dh": ["h"],
    "-dhgrp": ["@g"], "-drqs": ["r"], "-dm": ["u"], "-do": ["u"], "-dp": ["p"],
    "-dprj": ["p"], "-dq": ["q"], "-ds": ["h"], "-dstnode": ["/x"], "-du": ["u", "l"],
    "-duser": ["u"], "-ke": ["h"], "-kej": ["h"], "-kec": ["1"], "-kt": ["scheduler"],
    "-Mattr": ["queue", "file", "all.q"], "-mcal": ["c"], "-mckpt": ["ck"], "-me": ["h"],
    "-mhgrp": ["@g"], "-mp": ["p"], "-mprj": ["p"], "-mq": ["q"], "-mstnode": ["/x=1"],
    "-mu": ["l"], "-muser": ["u"], "-purge": ["queue", "slots", "all.q@h"],
    "-rattr": ["queue", "slots", "1", "all.q"], "-Rattr": ["queue", "file", "all.q"],
    "-rsstnode": ["/x"], "-scal": ["c"], "-sckpt": ["ck"], "-se": ["h"], "-shgrp": ["@g"],
    "-shgrp_tree": ["@g"], "-shgrp_resolved": ["@g"], "-sobjl": ["queue", "slots", "1"],
    "-sp": ["p"], "-sprj": ["p"], "-sstnode": ["/x"], "-su": ["l"], "-suser": ["u"],
    "-clear": [], "-sc": [], "-mc": [], "-sq": [], "-aq": [],
    "-e": [], "-m": [], "-P": [], "-p": [], "-q": [], "-r": [], "-t": [],
}
_QUERY = {"-explain": ["E"], "-F": [], "-g": ["c"], "-j": ["1"], "-pe": ["smp"], "-qs": ["a"],
          "-s": ["p"], "-U": ["root"], "-r": [], "-t": [], "-q": ["all.q"]}
_QMOD = {**{o: ["all.q"] for o in "-c -cq -d -e -r -rq -s -sq -us -usq".split()},
         **{o: ["1"] for o in "-cj -rj -sj -usj".split()}, "-f": ["-d", "all.q"]}
OVERRIDES: dict[str, dict[str, list[str]]] = {
    "qconf": _QCONF, "qstat": _QUERY, "qselect": _QUERY,
    "qacct": {"-b": ["202601010000"], "-d": ["1"], "-D": ["d"], "-e": ["202701010000"],
              "-f": ["file"], "-g": ["0"], "-h": ["h"], "-j": ["1"], "-o": ["root"],
              "-pe": ["smp"], "-P": ["p"], "-slots": ["1"], "-t": ["1", "-j", "1"],
              "-A": ["a"], "-m": [], "-q": ["all.q"]},
    "qhost": {"-F": [], "-h": ["localhost"], "-j": [], "-q": []},
    "qmod": _QMOD,
    "qquota": {"-h": ["localhost"], "-l": ["slots"], "-pe": ["smp"], "-P": ["p"]},
    "qrsub": {"-d": ["1:0:0"], "-e": ["202612312359"]},
    "qping": {"-i": ["1"], "-dump_tag": ["MSG"], "-f": []},
    "qhold": {"-h": ["u"]}, "qrls": {"-h": ["u"]}, "qresub": {"-h": ["u"]},
    "qevent": {"-trigger": ["JB_END", "/bin/true"]},
    "qalter": {"-h": ["u"], "-hard": ["-l", "arch=x"], "-soft": ["-q", "all.q"],
               "-u": ["root", "-N", "x"]},  # (-u names the jobs; a change must follow)
    "sge_share_mon": {**{f"-{c}": [] for c in "hntux"}, "-c": ["1"], "-d": [","],
                      "-f": ["shares"], "-i": ["1"], "-l": [","], "-m": ["a"],
                      "-o": ["out"], "-r": [","], "-s": ["%s"]},
}
# what follows the option (the job, the command, the endpoint)
TAILS: dict[str, list[str]] = {
    "qsub": ["-b", "y", "/bin/true"], "qalter": ["1"], "qdel": ["1"], "qhold": ["1"],
    "qrls": ["1"], "qresub": ["1"], "qrsh": ["true"], "qrdel": ["1"],
    "qping": ["localhost", "6444", "qmaster", "1"], "qrsub": ["-e", "202612312359"],
}


def argv_for(command: str, option: str) -> list[str]:
    default = SAMPLES.get(option, [])
    if command == "qconf" and option[1] in "AM":  # -Aq fname, -Mc fname, ...
        default = ["file"]
    args = OVERRIDES.get(command, {}).get(option, default)
    tail = [] if option == "-u" else TAILS.get(command, [])
    if command == "qrsh" and option == "-inherit":
        tail = ["localhost", "true"]
    return [option, *args, *tail]


# ---- running a command in-process ----------------------------------------------------------
class Reached(BaseException):
    """The command got as far as its first request to the qmaster."""


@pytest.fixture
def walker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A function running one command line in-process: (stdout+stderr, rc, reached)."""
    from clients import api
    common = tmp_path / "default" / "common"
    common.mkdir(parents=True)
    (common / "accounting").write_text("")
    (tmp_path / "file").write_text("")
    for name, value in {"SGE_ROOT": str(tmp_path), "SGE_CELL": "default",
                        "HOME": str(tmp_path), "DISPLAY": ":0",
                        "EDITOR": "/bin/true"}.items():
        monkeypatch.setenv(name, value)
    for name in ("PYGE_ROOT", "PYGE_CELL", "JOB_ID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)

    def fake_init(self: Any, *args: Any, **kwargs: Any) -> None:
        from common.cell import cell_from_env
        self._cell, self.user, self._conn = cell_from_env(), api.current_user(), None
        # (the qmaster qping's samples name)
        self.socket_path, self.host, self.port, self.timeout = None, "localhost", 6444, 1.0

    def fake_request(self: Any, msg_type: str, *args: Any, **kwargs: Any) -> Any:
        raise Reached(msg_type)

    monkeypatch.setattr(api.Client, "__init__", fake_init)
    monkeypatch.setattr(api.Client, "request", fake_request)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))

    def run(command: str, argv: list[str]) -> tuple[str, int | None, bool]:
        main = importlib.import_module(COMMANDS[command]).main
        monkeypatch.setattr(sys, "argv", [command, *argv])
        text = io.StringIO()
        rc: int | None = None
        reached = False
        with contextlib.redirect_stdout(text), contextlib.redirect_stderr(text):
            try:
                rc = main(argv)
            except SystemExit as stop:
                rc = stop.code if isinstance(stop.code, int) else 1
            except Reached:
                reached = True
        return text.getvalue(), rc, reached
    yield run


def outcome(command: str, option: str, run: Any) -> tuple[str, str]:
    """("taken" | "unknown" | "refused", what the command printed)."""
    text, rc, reached = run(command, argv_for(command, option))
    if reached or (rc == 0 and not _UNKNOWN.search(text)):
        return "taken", text
    return ("unknown" if _UNKNOWN.search(text) else "refused"), text


# ---- the table against 8.1.9's help --------------------------------------------------------
TABLE = read_surface()
PROVIDED = sorted(set(COMMANDS))
CAPTURED = sorted(p.name[:-len("-help.out")] for p in HELP.glob("*-help.out"))


def rows(command: str) -> dict[str, Any]:
    return TABLE.get(("command", command), {})


def test_every_8_1_9_command_has_a_section() -> None:
    by_capture = {capture: name for name, capture in NOT_PROVIDED.items() if capture}
    named = {by_capture.get(c, c) for c in CAPTURED} | set(NOT_PROVIDED)
    assert {name for kind, name in TABLE if kind == "command"} == named | set(PROVIDED)


@pytest.mark.parametrize("command", sorted(NOT_PROVIDED))
def test_a_command_we_do_not_provide_is_one_refused_row(command: str) -> None:
    assert list(rows(command)) == [command]
    assert rows(command)[command].state == "refused"
    assert command not in COMMANDS


@pytest.mark.parametrize("command", PROVIDED)
def test_one_row_per_option_of_8_1_9s_help(command: str) -> None:
    listed = options_8_1_9(command)
    assert len(listed) == len(set(listed)) > 0
    assert list(rows(command)) == listed, "rows in 8.1.9's order, one per option"


@pytest.mark.parametrize("command", sorted(set(PROVIDED) - {"sge_share_mon"}))
def test_our_help_is_8_1_9s(command: str, walker: Any) -> None:
    """8.1.9's text, then perhaps lines of our own that name only options 8.1.9 lacks
    (``-fmt``)."""
    text, rc, reached = walker(command, ["-help"])
    assert (rc, reached) == (0, False)
    theirs = (HELP / f"{command}-help.out").read_text()
    assert text[:len(theirs)] == theirs
    assert not set(help_options(text[len(theirs):])) & set(options_8_1_9(command))


def test_sge_share_mon_s_usage_lists_8_1_9s_options() -> None:
    from clients.share_mon import USAGE
    listed = [line.split()[0] for line in USAGE.splitlines() if line.startswith("   -")]
    assert listed == options_8_1_9("sge_share_mon")


# ---- the table against our commands --------------------------------------------------------
WALKED = [(command, option) for command in PROVIDED for option in options_8_1_9(command)
          if option != "-help"]


@pytest.mark.parametrize("command,option", WALKED)
def test_the_option_does_what_the_table_says(command: str, option: str, walker: Any) -> None:
    row = rows(command).get(option)
    assert row is not None, f"{command} {option} has no row"
    seen, text = outcome(command, option, walker)
    if row.state == "refused":
        assert seen != "taken", f"{command} {option} is refused in the table but taken:\n{text}"
    else:
        assert seen != "unknown", f"{command} {option} is {row.state} in the table but " \
                                  f"refused as unknown:\n{text}"
