"""The shape of a local cell: what ``pyge up`` was told, remembered in the cell.

``pyge up --root DIR`` with no options brings back exactly the cell it made (its ports,
its execd host names, their slots, the load report interval); an option given explicitly
changes the shape, and ``resolve`` says what changed. The shape lives in
``<cell>/pyge-shape.json``; ``resolve`` is pure.
"""
from __future__ import annotations

import json
import math
import os
import re
import tempfile
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

SHAPE_FILE = "pyge-shape.json"
DEFAULT_LOAD_INTERVAL = 10.0
HOST_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,62}")


@dataclass(frozen=True)
class Shape:
    port: int                  # the qmaster's request port (0: any free one)
    event_port: int            # its event port (0: any free one)
    execds: tuple[str, ...]    # execd host names
    slots: int                 # slots of all.q per host (0: the host's CPUs)
    load_interval: float       # seconds between an execd's load reports


class ShapeError(Exception):
    """A shape file that cannot be used."""


def host_names(count: int, machine: str) -> tuple[str, ...]:
    """Execd host names: the machine's for one execd, ``<machine>-1`` ... for several."""
    if count < 1:
        raise ShapeError(f"--execds must be at least 1, not {count}")
    return (machine,) if count == 1 else tuple(f"{machine}-{i}" for i in range(1, count + 1))


def resolve(stored: Shape | None, machine: str, *, execds: int | None = None,
            slots: int | None = None, port: int | None = None,
            load_interval: float | None = None, default_port: int) -> tuple[Shape, list[str]]:
    """The shape to start: the stored one with the options given explicitly (None: not
    given), and what each given option changed. A port of 0 asks for any free port; on a
    cell that already has one it changes nothing. Raises ShapeError for values no cell
    can have."""
    if slots is not None and slots < 0:
        raise ShapeError(f"--slots must not be negative, not {slots}")
    if port is not None and not 0 <= port < 65536:
        raise ShapeError(f"--port must be a TCP port number, not {port}")
    if load_interval is not None and not 0 < load_interval < math.inf:
        raise ShapeError(f"--load-interval must be a positive number of seconds, "
                         f"not {load_interval:g}")
    if stored is None:
        shape = Shape(port=default_port if port is None else port, event_port=0,
                      execds=host_names(1 if execds is None else execds, machine),
                      slots=0 if slots is None else slots,
                      load_interval=DEFAULT_LOAD_INTERVAL if load_interval is None
                      else load_interval)
        return shape, []
    shape, changes = stored, []
    if execds is not None:
        names = host_names(execds, machine)
        if names != stored.execds:
            shape = replace(shape, execds=names)
            changes.append(f"execds: {' '.join(stored.execds)} -> {' '.join(names)}")
    if slots is not None and slots != stored.slots:
        shape = replace(shape, slots=slots)
        changes.append(f"slots: {stored.slots or 'CPUs'} -> {slots or 'CPUs'}")
    if port and port != stored.port:
        shape = replace(shape, port=port, event_port=0)
        changes.append(f"port: {stored.port} -> {port}")
    if load_interval is not None and load_interval != stored.load_interval:
        shape = replace(shape, load_interval=load_interval)
        changes.append(f"load interval: {stored.load_interval:g} s -> {load_interval:g} s")
    return shape, changes


def shape_from_json(data: Any) -> Shape:
    """A shape from its JSON form; raises ShapeError on anything else."""
    try:
        shape = Shape(port=int(data["port"]), event_port=int(data["event_port"]),
                      execds=tuple(str(h) for h in data["execds"]), slots=int(data["slots"]),
                      load_interval=float(data["load_interval"]))
    except (KeyError, TypeError, ValueError, OverflowError) as exc:
        raise ShapeError(f"malformed cell shape: {exc!r}") from None
    if not (0 <= shape.port < 65536 and 0 <= shape.event_port < 65536) or not shape.execds \
            or shape.slots < 0 or not 0 < shape.load_interval < math.inf \
            or not all(HOST_NAME.fullmatch(h) for h in shape.execds):
        raise ShapeError("malformed cell shape: a value is out of range")
    return shape


def read_shape(cell_path: Path) -> Shape | None:
    """The remembered shape (None: a cell ``pyge up`` has not made yet)."""
    try:
        text = (cell_path / SHAPE_FILE).read_text()
    except FileNotFoundError:
        return None
    try:
        return shape_from_json(json.loads(text))
    except json.JSONDecodeError as exc:
        raise ShapeError(f"malformed cell shape: {exc}") from None


def write_shape(cell_path: Path, shape: Shape) -> None:
    """Store the shape atomically."""
    data = asdict(shape)
    data["execds"] = list(shape.execds)
    fd, tmp = tempfile.mkstemp(dir=cell_path, prefix=".shape")
    try:
        with os.fdopen(fd, "w") as out:
            json.dump(data, out, indent=1)
            out.write("\n")
        os.chmod(tmp, 0o644)
        os.replace(tmp, cell_path / SHAPE_FILE)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
