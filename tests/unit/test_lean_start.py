"""The pieces that keep the commands' start-up small (issue 12) behave as what they replace:
``common.record.Record`` as a dataclass, ``common.cell.Cell`` as the frozen dataclass it
was (``posix_join`` as pathlib), the lazily built wire schemas, msgpack imported without
``datetime.py``, ``SyncReport`` as a NamedTuple, and the commands' launchers."""
from __future__ import annotations

import copy
import dataclasses
import pickle
import subprocess
import sys
import tomllib
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clients.qsub.messages import SyncReport, sync_report
from common.record import Record, as_dict, field
from common import wire
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

def _fresh(code: str) -> str:
    done = subprocess.run([sys.executable, "-S", "-c",
                           f"import sys; sys.path[:0] = {[p for p in sys.path if p]!r}\n"
                           + code], capture_output=True, text=True, timeout=60, check=True)
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
    assert not set(COMMANDS) & set(config["project"]["scripts"])
