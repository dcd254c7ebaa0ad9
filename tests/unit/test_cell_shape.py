"""The remembered shape of a local cell (deploy.shape): what ``pyge up`` restores, what
an explicit option changes, and a shape file that cannot be trusted."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deploy.shape import (SHAPE_FILE, Shape, ShapeError, host_names, read_shape, resolve,
                          shape_from_json, write_shape)

MADE = Shape(port=23999, event_port=24001, execds=("vm-1", "vm-2"), slots=4,
             load_interval=10.0)


def test_a_new_cell_takes_the_defaults_and_the_options() -> None:
    shape, changes = resolve(None, "vm", default_port=6444)
    assert shape == Shape(6444, 0, ("vm",), 0, 10.0) and changes == []
    shape, _ = resolve(None, "vm", execds=3, slots=2, port=7000, default_port=6444)
    assert shape == Shape(7000, 0, ("vm-1", "vm-2", "vm-3"), 2, 10.0)


def test_no_options_restore_the_stored_shape_exactly() -> None:
    assert resolve(MADE, "vm", default_port=6444) == (MADE, [])
    # the values it already has, or port 0 (any), change nothing either
    assert resolve(MADE, "vm", execds=2, slots=4, port=0, default_port=6444) == (MADE, [])


def test_explicit_options_change_the_shape_and_say_so() -> None:
    shape, changes = resolve(MADE, "vm", execds=1, port=25000, slots=0, load_interval=2,
                             default_port=6444)
    assert shape == Shape(25000, 0, ("vm",), 0, 2.0)
    assert changes == ["execds: vm-1 vm-2 -> vm", "slots: 4 -> CPUs",
                       "port: 23999 -> 25000", "load interval: 10 s -> 2 s"]


def test_host_names_of_one_and_of_several_execds() -> None:
    assert host_names(1, "node") == ("node",)
    assert host_names(3, "node") == ("node-1", "node-2", "node-3")
    with pytest.raises(ShapeError):
        host_names(0, "node")


def test_the_shape_file_round_trips(tmp_path: Path) -> None:
    assert read_shape(tmp_path) is None
    write_shape(tmp_path, MADE)
    assert read_shape(tmp_path) == MADE
    assert oct((tmp_path / SHAPE_FILE).stat().st_mode & 0o777) == "0o644"


@pytest.mark.parametrize("text", ["", "[]", "{}", '{"port": 1}', "not json",
                                  json.dumps({**json.loads('{"port": 70000}'),
                                              "event_port": 0, "execds": ["vm"], "slots": 0,
                                              "load_interval": 10})])
def test_a_malformed_shape_file_is_refused(tmp_path: Path, text: str) -> None:
    (tmp_path / SHAPE_FILE).write_text(text)
    with pytest.raises(ShapeError):
        read_shape(tmp_path)


@given(st.dictionaries(st.sampled_from(["port", "event_port", "execds", "slots",
                                        "load_interval", "x"]),
                       st.one_of(st.integers(-5, 70000), st.text(max_size=5),
                                 st.lists(st.text(max_size=4), max_size=3), st.none(),
                                 st.floats(allow_nan=True))))
def test_any_json_is_a_valid_shape_or_refused(data: dict[str, object]) -> None:
    try:
        shape = shape_from_json(data)
    except ShapeError:
        return
    assert 0 <= shape.port < 65536 and shape.execds and 0 < shape.load_interval < 1e308
    assert all(h[:1].isalnum() and "/" not in h and h.strip() == h for h in shape.execds)


@pytest.mark.parametrize("options", [{"slots": -1}, {"port": 70000}, {"port": -1},
                                     {"load_interval": 0}, {"load_interval": float("inf")},
                                     {"execds": 0}])
def test_options_no_cell_can_have_are_refused(options: dict[str, float]) -> None:
    with pytest.raises(ShapeError):
        resolve(MADE, "vm", default_port=6444, **options)  # type: ignore[arg-type]
