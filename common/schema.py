"""Typed descriptions of data that crosses a boundary, and the one checker that applies them.

A schema is a small object whose ``check(value, path)`` returns the value in its canonical
shape (tuples become lists, a missing optional field gets its default) or raises
``SchemaError`` naming the field (``jobs[1].opts.hard_queues``) and what was wrong. The wire
module describes every message body with these, ``common.jobspec`` the job description, so
that nothing behind the boundary ever meets a value of an unexpected shape. Pure.
"""
from __future__ import annotations

import math

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Mapping

# types.MappingProxyType, which types.py itself defines this way: every command imports
# this module, and the types module (with what it loads) would be its only use of it
MappingProxyType = type(type.__dict__)

MAX_STRING = 1 << 20        # one string of a message (a job's environment value, a path)
MAX_ITEMS = 1 << 20         # entries of one list or map
MAX_INT = (1 << 63) - 1     # what SQLite and every consumer can hold


class SchemaError(Exception):
    """A value that does not fit its description; ``path`` names the field."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path or 'body'}: {message}")
        self.path = path
        self.message = message


def shown(value: Any, limit: int = 80) -> str:
    """A value as an error message may quote it: repr (no raw NUL or line break), cut
    short (a refusal must fit the protocol however large the refused value was)."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _type_name(value: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
            bytes: "bytes", list: "a list", tuple: "a list", dict: "a map",
            type(None): "nil"}.get(type(value), type(value).__name__)


class Schema:
    """Base of all schemas; ``describe`` is how the error text names the expected shape.

    A schema's parameters are its class's annotated attributes, in order, with the class
    attribute as the default: ``Str(64, nonempty=True)``. Plain classes rather than
    dataclasses, because qsub imports them and every dataclass costs its start-up about a
    millisecond to build."""

    describe = "a value"
    _params: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._params = tuple(cls.__dict__.get("__annotations__", {}))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        given = dict(zip(self._params, args), **kwargs)
        for name in self._params:
            setattr(self, name, given[name] if name in given else getattr(type(self), name))

    def __repr__(self) -> str:
        args = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._params)
        return f"{type(self).__name__}({args})"

    def check(self, value: Any, path: str = "") -> Any:
        raise NotImplementedError

    def wrong(self, value: Any, path: str) -> SchemaError:
        return SchemaError(path, f"expected {self.describe}, got {_type_name(value)}")


class Int(Schema):
    low: int = -MAX_INT
    high: int = MAX_INT
    describe = "an integer"

    def check(self, value: Any, path: str = "") -> int:
        if type(value) is not int:  # bool is an int subclass; True is no job number
            raise self.wrong(value, path)
        if not self.low <= value <= self.high:
            raise SchemaError(path, f"{value} is outside {self.low}..{self.high}")
        return value


class Float(Schema):
    """A finite number; integers are accepted and become floats."""

    low: float = -1e300
    high: float = 1e300
    describe = "a number"

    def check(self, value: Any, path: str = "") -> float:
        if type(value) not in (int, float):
            raise self.wrong(value, path)
        number = float(value)
        if not math.isfinite(number) or not self.low <= number <= self.high:
            raise SchemaError(path, f"{shown(value)} is outside {self.low}..{self.high}")
        return number


class Bool(Schema):
    describe = "a boolean"

    def check(self, value: Any, path: str = "") -> bool:
        if type(value) is not bool:
            raise self.wrong(value, path)
        return value


class Str(Schema):
    """Text without NUL (no path or name that reaches the system may carry one)."""

    max_len: int = MAX_STRING
    nonempty: bool = False
    choices: frozenset[str] | None = None
    rule: Callable[[str], str | None] | None = None  # returns the refusal, or None
    describe = "a string"

    def check(self, value: Any, path: str = "") -> str:
        if type(value) is not str:
            raise self.wrong(value, path)
        if len(value) > self.max_len:
            raise SchemaError(path, f"longer than {self.max_len} characters")
        if "\0" in value:
            raise SchemaError(path, "contains a NUL character")
        if self.nonempty and not value:
            raise SchemaError(path, "must not be empty")
        if self.choices is not None and value not in self.choices:
            raise SchemaError(path, f"{shown(value)} is not one of "
                                    f"{', '.join(sorted(self.choices))}")
        if self.rule is not None:
            refusal = self.rule(value)
            if refusal is not None:
                raise SchemaError(path, refusal)
        return value


class Bytes(Schema):
    max_len: int = 64 << 20
    describe = "bytes"

    def check(self, value: Any, path: str = "") -> bytes:
        if type(value) is not bytes:
            raise self.wrong(value, path)
        if len(value) > self.max_len:
            raise SchemaError(path, f"longer than {self.max_len} bytes")
        return value


class Optional(Schema):
    """``inner`` or nil."""

    inner: Schema

    @property
    def describe(self) -> str:  # type: ignore[override]
        return f"{self.inner.describe} or nil"

    def check(self, value: Any, path: str = "") -> Any:
        return None if value is None else self.inner.check(value, path)


class OneOf(Schema):
    """The first of ``options`` that accepts the value (for load values: text or number)."""

    options: tuple[Schema, ...]

    @property
    def describe(self) -> str:  # type: ignore[override]
        return " or ".join(o.describe for o in self.options)

    def check(self, value: Any, path: str = "") -> Any:
        for option in self.options:
            try:
                return option.check(value, path)
            except SchemaError:
                continue
        raise self.wrong(value, path)


class ListOf(Schema):
    item: Schema
    max_items: int = MAX_ITEMS
    min_items: int = 0
    describe = "a list"

    def check(self, value: Any, path: str = "") -> list[Any]:
        if type(value) not in (list, tuple):
            raise self.wrong(value, path)
        if not self.min_items <= len(value) <= self.max_items:
            raise SchemaError(path, f"needs {self.min_items} to {self.max_items} entries, "
                                    f"has {len(value)}")
        return [self.item.check(v, f"{path}[{i}]") for i, v in enumerate(value)]


class Tuple(Schema):
    """A list of fixed length whose entries have their own schemas."""

    items: tuple[Schema, ...]
    describe = "a list"

    def check(self, value: Any, path: str = "") -> list[Any]:
        if type(value) not in (list, tuple):
            raise self.wrong(value, path)
        if len(value) != len(self.items):
            raise SchemaError(path, f"needs {len(self.items)} entries, has {len(value)}")
        return [s.check(v, f"{path}[{i}]") for i, (s, v) in enumerate(zip(self.items, value))]


class MapOf(Schema):
    key: Schema
    value: Schema
    max_items: int = MAX_ITEMS
    describe = "a map"

    def check(self, value: Any, path: str = "") -> dict[Any, Any]:
        if type(value) is not dict:
            raise self.wrong(value, path)
        if len(value) > self.max_items:
            raise SchemaError(path, f"has more than {self.max_items} entries")
        out = {}
        for k, v in value.items():
            key = self.key.check(k, f"{path}.<key>")
            out[key] = self.value.check(v, f"{path}.{key}")
        return out


class AnyMap(Schema):
    """Any map, passed through unchecked: only for data whose sender is trusted and whose
    reader checks what it uses (replies from the qmaster)."""

    describe = "a map"

    def check(self, value: Any, path: str = "") -> dict[Any, Any]:
        if type(value) is not dict:
            raise self.wrong(value, path)
        return value


class Refined(Schema):
    """``inner``, then ``refine(value, path)``: rules between fields that a shape cannot
    say; it returns the final value or raises SchemaError."""

    inner: Schema
    refine: Callable[[Any, str], Any]

    @property
    def describe(self) -> str:  # type: ignore[override]
        return self.inner.describe

    def check(self, value: Any, path: str = "") -> Any:
        return self.refine(self.inner.check(value, path), path)


_MISSING = object()


class Struct(Schema):
    """A map with known fields. ``required`` fields must be present; the ``optional``
    ones get their default (a callable is called) when absent. Unknown fields are
    refused unless ``open`` (then they are dropped: nothing behind the boundary sees
    them). ``sparse``: absent optional fields stay absent (a change names only what it
    changes)."""

    required: Mapping[str, Schema] = MappingProxyType({})
    optional: Mapping[str, tuple[Schema, Any]] = MappingProxyType({})
    open: bool = False
    sparse: bool = False  # absent optional fields stay absent (no default)
    describe = "a map"

    _plan: tuple[Any, ...] | None = None  # (made on first use) the fields as tuples

    def _make_plan(self) -> tuple[Any, ...]:
        # every stored job is checked again at a restart: no per-call work that the
        # schema fixes once
        optional = {n: (s, d() if callable(d) else d) for n, (s, d) in self.optional.items()}
        # the defaults in declared order; a made one (a new list or map per call) is a
        # placeholder here that every call replaces
        template = {n: sample for n, (_, sample) in optional.items()}
        made = tuple((n, d) for n, (_, d) in self.optional.items() if callable(d))
        self._plan = (tuple(self.required.items()), optional, template, made,
                      frozenset(self.required) | frozenset(self.optional))
        return self._plan

    def check(self, value: Any, path: str = "") -> dict[str, Any]:
        if type(value) is not dict:
            raise self.wrong(value, path)
        required, optional, template, made, known = self._plan or self._make_plan()
        if not self.open and not known.issuperset(value):
            unknown = [k for k in value if k not in known]
            raise SchemaError(_join(path, _field_name(unknown[0])), "unknown field")
        out: dict[str, Any] = {}
        for name, schema in required:
            if name not in value:
                raise SchemaError(_join(path, name), "missing field")
            out[name] = schema.check(value[name], f"{path}.{name}" if path else name)
        if not self.sparse:  # every optional field, in declared order, at its default...
            out.update(template)
            for name, make in made:
                out[name] = make()
        try:
            self._check_given(value, optional, out, path)
        except SchemaError:
            # a body with several faults is refused for the first in declared order
            # (for a job, its name first: Grid Engine's wording), whatever the order of
            # its keys
            self._check_given({n: value[n] for n in optional if n in value}, optional, {},
                              path)
            raise
        return out

    @staticmethod
    def _check_given(value: dict[str, Any], optional: dict[str, tuple[Schema, Any]],
                     out: dict[str, Any], path: str) -> None:
        """The optional fields ``value`` gives, checked into ``out`` (in its order;
        a sparse struct's output follows the sender's order)."""
        for name, given in value.items():
            entry = optional.get(name)
            if entry is None:  # required (done already), or unknown to an open struct
                continue
            schema, sample = entry
            if given is sample or (type(given) is type(sample) and given == sample):
                # the value the schema itself fills in (a stored job carries most
                # options at their defaults): accepted as it is, unchecked
                out[name] = given
            else:
                out[name] = schema.check(given, f"{path}.{name}" if path else name)

    def sparse_copy(self, value: dict[str, Any]) -> dict[str, Any]:
        """``value`` (a result of ``check``) without the optional fields at their
        defaults: what ``check`` makes whole again (a spooled job is mostly defaults)."""
        optional = (self._plan or self._make_plan())[1]
        out = {}
        for name, given in value.items():
            entry = optional.get(name)
            if entry is not None and type(given) is type(entry[1]) and given == entry[1]:
                continue
            out[name] = given
        return out


def _field_name(name: Any) -> str:
    plain = isinstance(name, str) and name.isprintable() and 0 < len(name) <= 64
    return name if plain else shown(name, 64)


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name
