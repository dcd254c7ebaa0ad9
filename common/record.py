"""Record classes for the commands' option and view objects: dataclasses without their cost.

A command starts for every job a workflow engine submits or polls, and ``dataclasses``
costs it about 6 ms before any work: it imports ``inspect`` (with ``ast``, ``dis``,
``tokenize``, ``re`` and ``enum``), and each ``@dataclass`` writes the source of its
methods and compiles it. A ``Record`` subclass declares its fields as a dataclass does
(annotated class attributes in order, a class attribute as the default,
``field(default_factory=list)`` for a fresh mutable one) and behaves as the dataclass
did: the same constructor (positional or keyword), ``==`` field by field, ``repr``,
unhashable unless ``frozen=True`` (then immutable and hashed by its fields); ``as_dict``
is ``dataclasses.asdict``. The methods are generic, written once here, so defining a
record costs what defining a plain class costs.
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, TypeVar, dataclass_transform

    _R = TypeVar("_R", bound="Record")
else:
    def dataclass_transform(**_: object) -> Callable[[type], type]:
        """Type checkers read records as dataclasses (PEP 681); at run time, nothing."""
        return lambda cls: cls


class _Factory:
    """A default made afresh for every record (``field(default_factory=...)``)."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


def field(*, default_factory: Callable[[], Any]) -> Any:
    """``dataclasses.field(default_factory=...)``, the only form the records use."""
    return _Factory(default_factory)


_REQUIRED = object()  # a field without a default


@dataclass_transform(field_specifiers=(field,))
class Record:
    """Base of the record classes (see the module's docstring)."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()
    _defaults: dict[str, Any] = {}
    _frozen = False

    def __init_subclass__(cls, frozen: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = tuple(cls.__dict__.get("__annotations__", {}))
        cls._fields = tuple(dict.fromkeys(cls._fields + own))
        cls._defaults = dict(cls._defaults)
        for name in own:
            cls._defaults[name] = cls.__dict__.get(name, _REQUIRED)
            if isinstance(cls._defaults[name], _Factory):
                delattr(cls, name)  # as dataclasses do: the class has no such attribute
        cls._frozen = frozen or cls._frozen
        if not cls._frozen:
            cls.__hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        name = type(self).__name__
        if len(args) > len(self._fields):
            raise TypeError(f"{name}() takes {len(self._fields)} positional arguments but "
                            f"{len(args)} were given")
        values = dict(zip(self._fields, args))
        for key, value in kwargs.items():
            if key not in self._defaults:
                raise TypeError(f"{name}() got an unexpected keyword argument {key!r}")
            if key in values:
                raise TypeError(f"{name}() got multiple values for argument {key!r}")
            values[key] = value
        for key in self._fields:
            if key in values:
                value = values[key]
            else:
                value = self._defaults[key]
                if value is _REQUIRED:
                    raise TypeError(f"{name}() missing required argument: {key!r}")
                if isinstance(value, _Factory):
                    value = value.make()
            object.__setattr__(self, key, value)

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, key) for key in self._fields)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined]

    def __hash__(self) -> int:  # frozen records only (the others set it to None)
        return hash(self._values())

    def __setattr__(self, key: str, value: Any) -> None:
        if self._frozen:
            raise AttributeError(f"cannot assign to field {key!r}")
        object.__setattr__(self, key, value)

    def __delattr__(self, key: str) -> None:
        if self._frozen:
            raise AttributeError(f"cannot delete field {key!r}")
        object.__delattr__(self, key)

    def __repr__(self) -> str:
        fields = ", ".join(f"{key}={getattr(self, key)!r}" for key in self._fields)
        return f"{type(self).__qualname__}({fields})"


def as_dict(record: Record) -> dict[str, Any]:
    """``dataclasses.asdict``: the fields as a new dict, containers copied all the way
    down (records inside become dicts too)."""
    return {key: _copied(getattr(record, key)) for key in record._fields}


def _copied(value: Any) -> Any:
    if isinstance(value, Record):
        return as_dict(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_copied(v) for v in value)
    if isinstance(value, dict):
        return type(value)((_copied(k), _copied(v)) for k, v in value.items())
    return value
