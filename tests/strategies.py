"""Hypothesis strategies drawn from the boundary's own descriptions (``common.schema``):
``valid(schema)`` makes values the schema accepts, ``mutated(schema)`` values that are valid
except for one wrong part somewhere inside (a wrong type deep in a list or map, a missing or
unknown field, a value out of range). The wire tests and the attack suite share them."""
from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from common import schema as sc

packable_ints = st.integers(-(2**63), 2**64 - 1)  # what msgpack can carry
scalars = (st.none() | st.booleans() | packable_ints | st.floats(allow_nan=True)
           | st.text(max_size=12) | st.binary(max_size=12))
anything = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                        | st.dictionaries(st.text(max_size=8) | packable_ints, inner, max_size=3),
                        max_leaves=8)

_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"),
                max_size=12)


def valid(s: sc.Schema) -> st.SearchStrategy[Any]:
    """Values ``s`` accepts (its ``check`` may still refuse one for a rule, e.g. a job
    name; callers filter with ``accepted``)."""
    if isinstance(s, sc.Int):
        return st.integers(max(s.low, -(2**63)), min(s.high, 2**63 - 1))
    if isinstance(s, sc.Float):
        return st.floats(max(s.low, -1e12), min(s.high, 1e12), allow_nan=False)
    if isinstance(s, sc.Bool):
        return st.booleans()
    if isinstance(s, sc.Str):
        if s.choices is not None:
            return st.sampled_from(sorted(s.choices))
        text = _TEXT.filter(lambda t: len(t) <= s.max_len)
        return text.filter(bool) if s.nonempty else text
    if isinstance(s, sc.Bytes):
        return st.binary(max_size=40)
    if isinstance(s, sc.Optional):
        return st.none() | valid(s.inner)
    if isinstance(s, sc.OneOf):
        return st.one_of(*(valid(o) for o in s.options))
    if isinstance(s, sc.ListOf):
        return st.lists(valid(s.item), min_size=s.min_items, max_size=max(s.min_items, 3))
    if isinstance(s, sc.Tuple):
        return st.tuples(*(valid(i) for i in s.items)).map(list)
    if isinstance(s, sc.MapOf):
        return st.dictionaries(valid(s.key), valid(s.value), max_size=3)
    if isinstance(s, sc.Refined):
        return valid(s.inner)
    if isinstance(s, sc.AnyMap):
        return st.dictionaries(st.text(max_size=8), scalars, max_size=3)
    if isinstance(s, sc.Struct):
        return st.fixed_dictionaries({k: valid(v) for k, v in s.required.items()},
                                     optional={k: valid(v) for k, (v, _) in s.optional.items()})
    raise TypeError(f"no strategy for {s!r}")


def accepted(s: sc.Schema, value: Any) -> bool:
    try:
        s.check(value)
    except sc.SchemaError:
        return False
    return True


def mutated(s: sc.Schema, depth: int = 0) -> st.SearchStrategy[Any]:
    """A value built like a valid one, with one part (at any depth) replaced by
    something arbitrary: a wrong type, a missing or unknown field, any value at all."""
    if depth > 6:
        return anything
    here = anything
    if isinstance(s, sc.Struct) and (s.required or s.optional):
        names = sorted(s.required) + sorted(s.optional)
        return st.one_of(here, valid(s).flatmap(lambda base: st.sampled_from(names).flatmap(
            lambda name: st.one_of(
                st.just({k: v for k, v in base.items() if k != name}),
                mutated(_field(s, name), depth + 1).map(lambda bad: {**base, name: bad}),
                st.text(min_size=1, max_size=8).map(lambda extra: {**base, extra: 1})))))
    if isinstance(s, sc.ListOf):
        return st.one_of(here, st.lists(mutated(s.item, depth + 1), min_size=1, max_size=3))
    if isinstance(s, sc.Tuple):
        return st.one_of(here, st.tuples(*(st.one_of(valid(i), mutated(i, depth + 1))
                                           for i in s.items)).map(list))
    if isinstance(s, sc.MapOf):
        return st.one_of(here, st.dictionaries(valid(s.key), mutated(s.value, depth + 1),
                                               min_size=1, max_size=2))
    if isinstance(s, (sc.Optional, sc.Refined)):
        return mutated(s.inner, depth + 1)
    return here


def _field(s: sc.Struct, name: str) -> sc.Schema:
    return s.required[name] if name in s.required else s.optional[name][0]
