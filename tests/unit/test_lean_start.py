"""The pieces that keep the commands' start-up small (issue 12) behave as what they replace:
``common.record.Record`` as a dataclass, ``common.cell.Cell`` as the frozen dataclass it
was (``posix_join`` as pathlib), the lazily built wire schemas, msgpack imported without
``datetime.py``, ``SyncReport`` as a NamedTuple, ``common.task_letters`` as
``common.jobstate``'s enum, the commands' launchers and ``clients.run`` as the
interpreter's own exit, and the client's work while the qmaster answers."""
from __future__ import annotations

import copy
import dataclasses
import itertools
import os
import pickle
import socket
import subprocess
import sys
import tomllib
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clients import api
from clients.qsub.messages import SyncReport, sync_report
from common.record import Record, as_dict, field
from common import jobstate, task_letters, wire
from common.cell import Cell, cell_from_env, posix_join
from tests.commands import COMMANDS, ENTRY_MODULES

ROOT = Path(__file__).resolve().parents[2]


# ---- Record ----------------------------------------------------------------------------

class Rec(Record):
    name: str
    count: int = 0
    tags: list[str] = field(default_factory=list)
    pair: tuple[int, int] | None = None
    env: dict[str, list[int]] = field(default_factory=dict)


@dataclasses.dataclass
class Dat:
    name: str
    count: int = 0
    tags: list[str] = dataclasses.field(default_factory=list)
    pair: tuple[int, int] | None = None
    env: dict[str, list[int]] = dataclasses.field(default_factory=dict)


class Frozen(Record, frozen=True):
    option: str
    value: str = ""


def test_a_record_is_built_compared_and_shown_as_the_dataclass() -> None:
    args = ("a", 2, ["x"], (1, 2), {"k": [1]})
    rec, dat = Rec(*args), Dat(*args)
    assert repr(rec) == repr(dat).replace("Dat(", "Rec(")
    assert as_dict(rec) == dataclasses.asdict(dat)
    assert as_dict(rec)["env"]["k"] is not rec.env["k"]  # copied all the way down
    assert Rec("a") == Rec(name="a", count=0) != Rec("a", 1)
    assert Rec("a") != Dat("a") and Rec("a").tags is not Rec("a").tags
    assert not hasattr(Rec, "tags") and Rec.count == 0  # as a dataclass's class
    with pytest.raises(TypeError):
        hash(Rec("a"))  # mutable: unhashable, as an eq dataclass
    for bad in (lambda: Rec(), lambda: Rec("a", nope=1), lambda: Rec("a", name="b"),
                lambda: Rec(*args, 6)):
        with pytest.raises(TypeError):
            bad()
    rec.count = 5
    assert rec.count == 5


def test_a_frozen_record_is_immutable_and_hashable() -> None:
    req = Frozen("-aattr", "x")
    assert hash(req) == hash(Frozen("-aattr", "x")) and req == Frozen("-aattr", "x")
    with pytest.raises(AttributeError):
        req.value = "y"  # type: ignore[misc]


def test_sync_report_is_the_tuple_it_was() -> None:
    report = sync_report("5", exit_code=3)
    assert report == SyncReport("stderr", "Job 5 exited with exit code 3.", 3)
    assert tuple(report) == ("stderr", "Job 5 exited with exit code 3.", 3)
    assert (report.stream, report.exit_code) == ("stderr", 3)
    assert repr(report) == ("SyncReport(stream='stderr', text='Job 5 exited with exit code "
                            "3.', exit_code=3)")


# ---- Cell ------------------------------------------------------------------------------

@given(st.lists(st.text(alphabet="/.ab~", max_size=8), min_size=1, max_size=4))
def test_posix_join_is_what_pathlib_makes_of_the_parts(parts: list[str]) -> None:
    assert posix_join(*parts) == str(PurePosixPath(*parts))


def test_a_cell_is_the_frozen_dataclass_it_was(tmp_path: Path) -> None:
    cell = cell_from_env({"PYGE_ROOT": f"{tmp_path}//", "PYGE_CELL": "c"})
    same = Cell(tmp_path, "c")
    assert cell == same and hash(cell) == hash(same) and cell != Cell(tmp_path)
    assert repr(cell) == f"Cell(root={tmp_path!r}, name='c')"
    assert cell.root == tmp_path and cell.path == tmp_path / "c"
    assert cell.file("common", "qmaster.sock") == str(cell.qmaster_socket_path)
    assert cell.file("common", "act_qmaster") == str(cell.act_qmaster_path)
    assert pickle.loads(pickle.dumps(cell)) == cell == copy.deepcopy(cell)
    with pytest.raises(AttributeError):
        cell.name = "other"  # type: ignore[misc]


# ---- wire ------------------------------------------------------------------------------

def _fresh(code: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run([sys.executable, "-S", "-c",
                           f"import sys; sys.path[:0] = {[p for p in sys.path if p]!r}\n"
                           + code], capture_output=True, text=True, timeout=60, check=True,
                          env={**os.environ, **(env or {})})
    return done.stdout.strip()


def test_importing_wire_builds_no_schema_and_loads_no_datetime() -> None:
    out = _fresh("from common import wire\n"
                 "print(len(wire.MESSAGE_SCHEMAS._built), 'common.jobspec' in sys.modules,"
                 " 'datetime' in sys.modules)\n"
                 "wire.decode(wire.encode('reply', {'a': 1}))\n"
                 "print(sorted(wire.MESSAGE_SCHEMAS._built))")
    assert out.split("\n") == ["0 False False", "['reply']"]


def test_msgpack_keeps_the_datetime_types_it_was_built_with() -> None:
    out = _fresh("from common import wire\n"
                 "import datetime\n"
                 "msgpack = wire._msgpack()\n"
                 "now = datetime.datetime.now(datetime.timezone.utc)\n"
                 "packed = msgpack.packb(now, datetime=True)\n"
                 "print(msgpack.unpackb(packed, timestamp=3) == now,"
                 " msgpack.Timestamp.from_datetime(now).to_datetime() == now)")
    assert out == "True True"


_LEAN_MSGPACK_PROBE = (
    "from common import wire\n"
    "wire.use_lean_msgpack()  # (as clients.run does)\n"
    "msgpack = wire._msgpack()\n"
    "print(msgpack.ext.__doc__.startswith(\"pygridengine's\"),"
    " msgpack.ExtType is sys.modules['msgpack.ext'].ExtType, 'collections' in sys.modules)\n"
    "big = {'jobs': [{'job_id': i, 'owner': 'alice', 't': 1.5, 'b': b'x'} for i in range(2000)]}\n"
    "print(wire.decode(wire.encode('reply', big))[2] == big)\n"
    "print(msgpack.packb(big).hex()[:80])\n"
    "for ext in (b'\\xd4\\x05\\x01', b'\\xd6\\xff\\x00\\x00\\x00\\x01'):\n"
    "    frame = msgpack.packb({'v': 1, 't': 'reply', 'id': 1, 'b': {}})[:-1]"
    " + b'\\x81\\xa1x' + ext\n"
    "    try:\n"
    "        wire.decode(frame)\n"
    "    except wire.WireError as err:\n"
    "        print(err.code, err.message)\n"
    "try:\n"
    "    msgpack.packb(object())\n"
    "except TypeError:\n"
    "    print('not packed')")


@pytest.mark.parametrize("pure_python", [False, True], ids=["C extension", "fallback"])
def test_a_command_imports_msgpack_without_its_extension_types(pure_python: bool) -> None:
    # (a command: it loaded neither datetime nor msgpack; the ext values fail to be made,
    # not the schema check, so an extension value is refused before it becomes one)
    out = _fresh(_LEAN_MSGPACK_PROBE, {"MSGPACK_PUREPYTHON": "1"} if pure_python else {})
    big = {"jobs": [{"job_id": i, "owner": "alice", "t": 1.5, "b": b"x"} for i in range(2000)]}
    import msgpack
    refused = "malformed undecodable message: _NoExtension"
    assert out.split("\n") == ["True True False", "True", msgpack.packb(big).hex()[:80],
                                refused, refused, "not packed"]


def test_a_program_of_the_client_api_gets_msgpack_whole() -> None:
    out = _fresh("from common import wire\n"
                 "msgpack = wire._msgpack()\n"
                 "value = msgpack.ExtType(5, b'x')\n"
                 "print(msgpack.unpackb(msgpack.packb(value)) == value, 'datetime' in sys.modules)")
    assert out == "True False"


def test_a_msgpack_that_wants_more_of_its_ext_module_gets_its_own(tmp_path: Path) -> None:
    package = tmp_path / "msgpack"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from .ext import ExtType, Timestamp, Later\n"
        "def unpackb(data, **kw):\n    return 'own'\n")
    (package / "ext.py").write_text("ExtType = Timestamp = Later = object\n")
    out = _fresh(f"sys.path.insert(0, {str(tmp_path)!r})\n"
                 "from common import wire\n"
                 "wire.use_lean_msgpack()\n"
                 "msgpack = wire._msgpack()\n"
                 "print(msgpack.__file__.startswith(sys.path[0]), msgpack.ext.Later is object,"
                 " 'datetime' in sys.modules)")
    assert out == "True True False"


def test_a_command_without_msgpack_is_told_once() -> None:
    # (msgpack not installed: its import fails as a missing module's does)
    done = subprocess.run(
        [sys.executable, "-S", "-c",
         f"import sys; sys.path[:0] = {[p for p in sys.path if p]!r}\n"
         "import builtins\n"
         "real = builtins.__import__\n"
         "def no_msgpack(name, *args, **kwargs):\n"
         "    if name == 'msgpack' or name.startswith('msgpack.'):\n"
         "        raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
         "    return real(name, *args, **kwargs)\n"
         "builtins.__import__ = no_msgpack\n"
         "from common import wire\n"
         "wire.use_lean_msgpack()\n"
         "try:\n"
         "    wire._msgpack()\n"
         "except ModuleNotFoundError as err:\n"
         "    print(err.name, err.__context__ is None, 'msgpack.ext' in sys.modules)"],
        capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "msgpack True False"


def test_every_message_schema_is_built_on_demand_and_kept() -> None:
    schemas = wire.MESSAGE_SCHEMAS
    assert list(schemas) == list(schemas.keys()) and len(schemas) == len(list(schemas))
    for msg_type in schemas:
        assert schemas[msg_type] is schemas[msg_type] is schemas.get(msg_type)
    assert dict(schemas.items()) == {t: schemas[t] for t in schemas}
    assert "nonsense" not in schemas and schemas.get("nonsense") is None
    with pytest.raises(KeyError):
        schemas["nonsense"]


# ---- the launchers ---------------------------------------------------------------------

def test_every_command_has_a_launcher_that_pip_installs() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    files = config["tool"]["setuptools"]["script-files"]
    assert sorted(Path(f).name for f in files) == sorted(COMMANDS)
    for name in COMMANDS:
        text = (ROOT / "clients" / "scripts" / name).read_text()
        assert text.startswith("#!python\n")  # pip puts the environment's python there
        assert f"from {ENTRY_MODULES[name]} import main\n" in text
        assert "import re" not in text
        # clients.run, and the same way under python -m
        collect = ", collect=False" if name in ("qstat", "qhost") else ""
        assert text.endswith(f"from clients import run\nfrom {ENTRY_MODULES[name]} import "
                             f"main\n\nrun(main{collect})\n")
        module = ROOT / (ENTRY_MODULES[name].replace(".", "/") + ".py")
        assert module.read_text().endswith(f"\n    clients.run(main{collect})\n")
    assert not set(COMMANDS) & set(config["project"]["scripts"])


# ---- clients.run -------------------------------------------------------------------------

def _ran(body: str, ending: str, stdout: Any = subprocess.PIPE) -> subprocess.CompletedProcess[str]:
    """A command whose main() is ``body``, ended by ``ending``: the interpreter's own
    way (``sys.exit(main())``) or ``run(main)``; stdout buffered, as a user's."""
    code = (f"import sys\nsys.path[:0] = {[p for p in sys.path if p]!r}\n"
            "def main():\n" + "".join(f"    {line}\n" for line in body.splitlines())
            + ending + "\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    return subprocess.run([sys.executable, "-c", code], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, timeout=60, env=env)


PLAIN, RUN = "sys.exit(main())", "from clients import run\nrun(main)"


@pytest.mark.parametrize("body", [
    "sys.stdout.write('out'); sys.stderr.write('err'); return 3",  # flushed, then the status
    "print('x')",                                                 # None: 0
    "raise SystemExit(4)", "raise SystemExit('why')", "return 'text'",
    "raise ValueError('boom')",
])
def test_run_ends_as_the_interpreter_would(body: str) -> None:
    plain, ran = _ran(body, PLAIN), _ran(body, RUN)
    assert (ran.returncode, ran.stdout) == (plain.returncode, plain.stdout)
    last = plain.stderr.strip().splitlines()[-1:]  # (a traceback's frames differ)
    assert ran.stderr.strip().splitlines()[-1:] == last


@pytest.mark.parametrize("target", ["/dev/full", "closed pipe"])
def test_run_reports_an_unwritable_stdout_as_the_interpreter_does(target: str) -> None:
    body = "sys.stdout.write('small'); return 3"  # buffered: the flush at the end fails
    results = []
    for ending in (PLAIN, RUN):
        if target == "/dev/full":
            with open("/dev/full", "w") as full:
                results.append(_ran(body, ending, stdout=full))
        else:
            read, write = os.pipe()
            os.close(read)
            try:
                results.append(_ran(body, ending, stdout=write))
            finally:
                os.close(write)
    plain, ran = results
    assert plain.returncode == ran.returncode == 120
    assert ran.stderr == plain.stderr and "Exception ignored" in ran.stderr


def test_run_collects_no_cycles_only_when_asked() -> None:
    body = "import gc; print(gc.isenabled())"
    assert _ran(body, RUN).stdout == "True\n"
    assert _ran(body, "from clients import run\nrun(main, collect=False)").stdout == "False\n"


# ---- the task states without the enum ------------------------------------------------------

def test_the_task_letters_are_the_enums_values() -> None:
    assert task_letters.STATES == {state.value for state in jobstate.State}
    assert task_letters.ACTIVE == {state.value for state in jobstate.ACTIVE_STATES}
    assert task_letters.WAITING == {state.value for state in jobstate.WAITING_STATES}
    assert jobstate.state_letters is task_letters.state_letters
    reasons = ["queue", "job", "threshold", "calendar", "subordinate", "slot-subordinate"]
    for state, holds, queue, restarted, n in itertools.product(
            jobstate.State, ([], ["u"]), (False, True), (False, True), range(3)):
        for chosen in itertools.combinations(reasons, n):
            args = (holds, queue)
            kwargs = {"suspend_reasons": list(chosen), "restarted": restarted}
            assert task_letters.state_letters(state.value, *args, **kwargs) == \
                task_letters.state_letters(state, *args, **kwargs)


# ---- while the qmaster answers -----------------------------------------------------------

def test_a_peek_tells_whether_the_answer_has_begun() -> None:
    class Local:  # common.zmtp.Dealer's socket, as _answer_begun reads it
        def __init__(self, sock: socket.socket) -> None:
            self.sock = sock

    ours, theirs = socket.socketpair()
    with ours, theirs:
        assert not api._answer_begun(Local(ours), 0.01)
        theirs.sendall(b"x")
        assert api._answer_begun(Local(ours), 0.01)
        assert ours.recv(8) == b"x"  # nothing was taken
        theirs.close()
        assert api._answer_begun(Local(ours), 0.01)  # closed: recv reports it


class _Conn:
    """A connection that answers every request with an empty reply; ``begun`` says
    whether the answer is there when asked; ``log`` what happened, in order."""

    def __init__(self, begun: bool, log: list[str]) -> None:
        self.begun, self.log, self.last = begun, log, b""

    def send(self, payload: bytes) -> None:
        self.log.append("send")
        self.last = payload

    def answered(self, timeout: float) -> bool:
        self.log.append("peek")
        return self.begun

    def recv(self, timeout: float) -> bytes:
        self.log.append("recv")
        return wire.encode("reply", {}, wire.decode(self.last)[1])

    def close(self) -> None:
        pass


@pytest.mark.parametrize("large, begun, loads", [(True, False, True), (True, True, False),
                                                 (False, False, False)])
def test_the_client_works_while_the_qmaster_answers(
        monkeypatch: pytest.MonkeyPatch, large: bool, begun: bool, loads: bool) -> None:
    log: list[str] = []
    monkeypatch.setattr(wire, "msgpack_loaded", lambda: False)
    monkeypatch.setattr(wire, "load_msgpack", lambda: log.append("msgpack"))
    client = api.Client(host="qmaster", port=1)
    monkeypatch.setattr(client, "_connection", lambda timeout: _Conn(begun, log))
    reply = client.request("ping", {}, large=large, while_waiting=lambda: log.append("work"))
    assert reply == {}
    assert log == ["send", "work"] + (["peek"] if large else []) + \
        (["msgpack"] if loads else []) + ["recv"]
    log.clear()
    client.jobs(while_waiting=lambda: log.append("work"))  # a listing: large
    assert log[:3] == ["send", "work", "peek"]


def test_a_remote_connection_asked_whether_answered_after_its_time_says_no_at_once() -> None:
    """``Client.request`` asks how the answer stands QUICK_ANSWER_SECONDS after sending,
    less the time its own work took: that may be below zero, which must not make zmq's
    poll wait for ever."""
    import time
    import zmq
    from clients.remote import RemoteDealer
    ctx = zmq.Context.instance()
    sock = ctx.socket(zmq.DEALER)
    try:
        dealer = RemoteDealer.__new__(RemoteDealer)
        dealer._sock = sock
        start = time.monotonic()
        assert dealer.answered(-0.5) is False
        assert time.monotonic() - start < 1.0
    finally:
        sock.close(0)
