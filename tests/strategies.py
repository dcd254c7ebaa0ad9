"""Hypothesis strategies drawn from the boundary's own descriptions (``common.schema``):
``valid(schema)`` makes values the schema accepts, ``mutated(schema)`` values that are valid
except for one wrong part somewhere inside (a wrong type deep in a list or map, a missing or
unknown field, a value out of range). The wire tests and the attack suite share them."""
from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from common import schema as sc
from common.wire import MESSAGE_SCHEMAS

packable_ints = st.integers(-(2**63), 2**64 - 1)  # what msgpack can carry
scalars = (st.none() | st.booleans() | packable_ints | st.floats(allow_nan=True)
           | st.text(max_size=12) | st.binary(max_size=12))
anything = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                        | st.dictionaries(st.text(max_size=8) | packable_ints, inner, max_size=3),
                        max_leaves=8)

_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"),
                max_size=12)


# strategies built for a schema, by (function, id(schema), depth), with the schema kept
# so that its id stays its own: a strategy built anew for each draw is validated anew by
# hypothesis, which cost the attack suite about half of its drawing time (the values
# drawn are the same: a strategy is a description, the draws come from the same bytes)
_BUILT: dict[tuple[str, int, int], tuple[sc.Schema, st.SearchStrategy[Any]]] = {}


def _kept(kind: str, s: sc.Schema, depth: int,
          build: Any) -> st.SearchStrategy[Any]:
    key = (kind, id(s), depth)
    hit = _BUILT.get(key)
    if hit is None or hit[0] is not s:
        hit = _BUILT[key] = (s, build())
    return hit[1]


def valid(s: sc.Schema) -> st.SearchStrategy[Any]:
    """Values ``s`` accepts (its ``check`` may still refuse one for a rule, e.g. a job
    name; callers filter with ``accepted``)."""
    return _kept("valid", s, 0, lambda: _valid(s))


def _valid(s: sc.Schema) -> st.SearchStrategy[Any]:
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
    return _kept("mutated", s, depth, lambda: _mutated(s, depth))


def _mutated(s: sc.Schema, depth: int) -> st.SearchStrategy[Any]:
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


# ---- helpers for the live attack suites (tests/integration) ----------------------------
def prune(s: sc.Schema, value: Any) -> Any:
    """``value`` with the parts ``s`` refuses dropped where the schema lets them go
    (optional fields, list entries above the minimum, map entries), so that values drawn
    by ``valid`` that break a rule (a job name with a colon, a date that is none) become
    accepted more often; what cannot be dropped stays, and the caller filters with
    ``accepted``."""
    if isinstance(s, sc.Refined):
        inner = prune(s.inner, value)
        for _ in range(8):  # rules between fields: drop the field the refusal names
            try:
                s.check(inner)
                return inner
            except sc.SchemaError as err:
                name = err.path.rsplit(".", 1)[-1]
                if not (isinstance(inner, dict) and isinstance(s.inner, sc.Struct)):
                    return inner
                # the field named, or its family ("pe" also stands for "pe_ranges")
                drop = {k for k in inner if k in s.inner.optional and k.startswith(name)}
                if not drop:
                    return inner
                inner = {k: v for k, v in inner.items() if k not in drop}
        return inner
    if isinstance(s, sc.Optional):
        inner = None if value is None else prune(s.inner, value)
        return inner if accepted(s.inner, inner) else None
    if isinstance(s, sc.Struct) and type(value) is dict:
        out = {}
        for name, item in value.items():
            if name in s.required:
                out[name] = prune(s.required[name], item)
            elif name in s.optional:
                fixed = prune(s.optional[name][0], item)
                if accepted(s.optional[name][0], fixed):
                    out[name] = fixed
            elif s.open:
                out[name] = item
        return out
    if isinstance(s, sc.ListOf) and type(value) in (list, tuple):
        items = [prune(s.item, v) for v in value]
        good = [v for v in items if accepted(s.item, v)]
        return good if len(good) >= s.min_items else items
    if isinstance(s, sc.Tuple) and type(value) in (list, tuple) and len(value) == len(s.items):
        return [prune(i, v) for i, v in zip(s.items, value)]
    if isinstance(s, sc.MapOf) and type(value) is dict:
        pruned_items = {k: prune(s.value, v) for k, v in value.items()}
        return {k: v for k, v in pruned_items.items()
                if accepted(s.key, k) and accepted(s.value, v)}
    return value


def mostly_valid(s: sc.Schema) -> st.SearchStrategy[Any]:
    """``valid(s)`` with the parts that break a rule dropped (``prune``): most values are
    accepted, where a large description such as a submitted job is almost never accepted
    as ``valid`` draws it."""
    return _kept("mostly_valid", s, 0, lambda: valid(s).map(lambda v: prune(s, v)))


def minimal(s: sc.Schema) -> Any:
    """The smallest value ``s`` accepts, built without hypothesis: the template of the
    systematic cases (each field missing, each field of a wrong type)."""
    if isinstance(s, sc.Int):
        return min(max(s.low, 1), s.high)
    if isinstance(s, sc.Float):
        return min(max(s.low, 1.0), s.high)
    if isinstance(s, sc.Bool):
        return False
    if isinstance(s, sc.Str):
        return sorted(s.choices)[0] if s.choices else "x"
    if isinstance(s, sc.Bytes):
        return b""
    if isinstance(s, sc.Optional):
        return None
    if isinstance(s, sc.OneOf):
        return minimal(s.options[0])
    if isinstance(s, sc.ListOf):
        return [minimal(s.item)] * s.min_items
    if isinstance(s, sc.Tuple):
        return [minimal(i) for i in s.items]
    if isinstance(s, (sc.MapOf, sc.AnyMap)):
        return {}
    if isinstance(s, sc.Refined):
        return minimal(s.inner)
    if isinstance(s, sc.Struct):
        return {k: minimal(v) for k, v in s.required.items()}
    raise TypeError(f"no minimal value for {s!r}")


def refused(s: sc.Schema) -> st.SearchStrategy[Any]:
    """``mutated(s)`` values that ``s`` really refuses (a mutation may happen to be valid)."""
    return mutated(s).filter(lambda v: not accepted(s, v))


def wire_refusal(msg_type: str, body: Any) -> str | None:
    """The text of the ``malformed`` error that ``wire.decode`` answers a well-enveloped
    message of ``msg_type`` with, or None when it accepts the body."""
    try:
        MESSAGE_SCHEMAS[msg_type].check(body)
    except sc.SchemaError as err:
        return f"{msg_type}: {err}"
    return None


