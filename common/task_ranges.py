"""Task id range lists: the tasks of an array job that are not objects of their own.

Grid Engine keeps the tasks of an array job that have not been dispatched or changed as
range lists (``1-75000:1``), not as one record each; so do we (``common.model.TaskRanges``).
A range list is a list of ``[first, last, step]`` with ``first <= last``, sorted by
``first``, the ranges not interleaving (they all come from one array range ``-t n-m:s`` by
taking ids out of it). A range of one id has step 1. Pure: lists in, lists out; nothing
here walks the ids of a range unless asked to (``ids``, ``ids_in``), so a 75,000-task
array costs the same as one task.
"""
from __future__ import annotations

from bisect import bisect_right
from typing import Iterable, Iterator, Sequence

Range = list[int]          # [first, last, step]
RangeList = list[list[int]]


def normalized(first: int, last: int, step: int) -> Range:
    """``[first, last, step]`` with ``last`` an id of the range (1-9:3 is 1-7:3)."""
    last = first + (last - first) // step * step
    return [first, last, step if last > first else 1]


def count(ranges: Sequence[Sequence[int]]) -> int:
    if len(ranges) == 1:  # (most jobs: a pass counts each job's ranges)
        first, last, step = ranges[0]
        return (last - first) // step + 1
    return sum((last - first) // step + 1 for first, last, step in ranges)


def first_id(ranges: Sequence[Sequence[int]]) -> int | None:
    return ranges[0][0] if ranges else None


def _index(ranges: Sequence[Sequence[int]], task_id: int) -> int:
    """The index of the range that may hold ``task_id`` (-1: none)."""
    return bisect_right(ranges, task_id, key=lambda r: r[0]) - 1


def _in_range(rng: Sequence[int], task_id: int) -> bool:
    first, last, step = rng
    return first <= task_id <= last and (task_id - first) % step == 0


def contains(ranges: Sequence[Sequence[int]], task_id: int) -> bool:
    i = _index(ranges, task_id)
    return i >= 0 and _in_range(ranges[i], task_id)


def without(ranges: Sequence[Sequence[int]], task_id: int) -> RangeList:
    """``ranges`` without ``task_id`` (a new list; unchanged copy when it is not there)."""
    out = [list(r) for r in ranges]
    i = _index(out, task_id)
    if i < 0 or not _in_range(out[i], task_id):
        return out
    first, last, step = out[i]
    pieces = []
    if task_id > first:
        pieces.append(normalized(first, task_id - step, step))
    if task_id < last:
        pieces.append(normalized(task_id + step, last, step))
    out[i:i + 1] = pieces
    return out


def without_ids(ranges: Sequence[Sequence[int]], task_ids: Iterable[int]) -> RangeList:
    out = [list(r) for r in ranges]
    for task_id in sorted(set(task_ids), reverse=True):  # later pieces first: indexes hold
        out = without(out, task_id)
    return out


def joined(a: Sequence[Sequence[int]], b: Sequence[Sequence[int]]) -> RangeList:
    """Both lists in one (they hold different ids: pieces of one array range)."""
    return sorted(([*r] for r in [*a, *b]), key=lambda r: r[0])


def ids(ranges: Sequence[Sequence[int]]) -> Iterator[int]:
    for first, last, step in ranges:
        yield from range(first, last + 1, step)


def ids_in(ranges: Sequence[Sequence[int]], wanted: Sequence[Sequence[int]]) -> Iterator[int]:
    """The ids of ``ranges`` that ``wanted`` (a request's ranges, which may interleave)
    names, in order, each once; the work is bounded by the overlap, not the array."""
    seen_up_to = 0
    for first, last, step in ranges:
        hits: set[int] = set()
        for w_first, w_last, w_step in wanted:
            low, high = max(first, w_first), min(last, w_last)
            if low > high:
                continue
            low += (first - low) % step  # the first id of ``ranges`` at or after low
            # walk the sparser of the two progressions across the overlap
            if step >= w_step:
                hits.update(t for t in range(low, high + 1, step)
                            if (t - w_first) % w_step == 0)
            else:
                start = w_first + -(-(low - w_first) // w_step) * w_step
                hits.update(t for t in range(start, high + 1, w_step)
                            if (t - first) % step == 0)
        for task_id in sorted(hits):
            if task_id > seen_up_to:
                seen_up_to = task_id
                yield task_id


def covered_by(ranges: Sequence[Sequence[int]], wanted: Sequence[Sequence[int]]) -> bool:
    """Whether ``wanted`` names every id of ``ranges`` (qdel -t 1-75000 on a whole array)."""
    return all(any(_range_within(r, w) for w in wanted) for r in ranges)


def _range_within(rng: Sequence[int], wanted: Sequence[int]) -> bool:
    first, last, step = rng
    w_first, w_last, w_step = wanted
    if first < w_first or last > w_last or (first - w_first) % w_step:
        return False
    return first == last or step % w_step == 0


# A request names its tasks as range lists (``qdel -t``, ``qhold -t``: one range per job
# from our commands). A hostile request may repeat or overlap ranges to multiply the
# qmaster's work per task (issue 26: 400 repeats of one range cost seconds): the qmaster
# merges them first (``merged``) and refuses a list that stays longer than this.
MAX_REQUEST_RANGES = 64


def merged(ranges: Iterable[Sequence[int]]) -> RangeList:
    """The ids that ``ranges`` (a request's, which may repeat, overlap or interleave) name,
    as few ranges as this finds cheaply: each normalized, repeats dropped, ranges of one
    step and phase that overlap or touch joined, single ids that extend a step-1 range
    joined, and a range whose every id another names dropped. Sorted by first id; the
    same ids, never more. O(n log n) in the list's length, plus a containment check over
    what is left."""
    groups: dict[tuple[int, int], list[Range]] = {}
    for first, last, step in ranges:
        rng = normalized(int(first), int(last), max(int(step), 1))
        key = (rng[2], rng[0] % rng[2])  # singletons (step 1) join step-1 runs
        groups.setdefault(key, []).append(rng)
    out: RangeList = []
    for (step, _phase), group in groups.items():
        group.sort()
        run = list(group[0])
        for first, last, _ in group[1:]:
            if first <= run[1] + step:  # overlapping or touching, same progression
                run[1] = max(run[1], last)
                run[2] = step if run[1] > run[0] else 1
            else:
                out.append(run)
                run = [first, last, step if last > first else 1]
        out.append(run)
    out.sort()
    if len(out) > 4 * MAX_REQUEST_RANGES:  # (the containment check is quadratic)
        return out
    kept = [r for i, r in enumerate(out)
            if not any(j != i and _range_within(r, w) and (r != w or j < i)
                       for j, w in enumerate(out))]
    return kept


def contains_any(ranges: Sequence[Sequence[int]], task_id: int) -> bool:
    """Whether any range of ``ranges`` (a request's: they may interleave) holds the id."""
    return any(_in_range(r, task_id) for r in ranges)


# ---- pending ids split by a request: holds on some pending ids stay range lists ---------
# A qhold -t of some of an array's pending ids keeps them as ranges (issue 26: qhold -t
# 2-75000 made 74,999 task records). The pending ids are pieces of one array range (one
# step, one phase); a request's range splits them exactly when it names every id of that
# progression within its bounds (its step divides the array's, in phase): then each piece
# is cut at two points. Any other request (qhold -t 1-100:3 of a 1-100:2 array) is left
# to the caller (None), which enrolls the ids it names as before.

def _cuts(rng: Sequence[int], wanted: Sequence[int]) -> tuple[RangeList, RangeList] | None:
    """(inside, outside) of one piece ``rng`` against one request range, or None when the
    request does not name every id of the piece within its bounds."""
    first, last, step = rng
    w_first, w_last, w_step = wanted
    if first == last:  # (a single id: step 1 by convention)
        return ([list(rng)], []) if _in_range(wanted, first) else ([], [list(rng)])
    low, high = max(first, w_first), min(last, w_last)
    if low > high:
        return [], [list(rng)]
    if step % w_step or (first - w_first) % w_step:
        return None
    low += (first - low) % step  # the first id of the piece at or after low
    high -= (high - first) % step  # the last one at or before high
    if low > high:
        return [], [list(rng)]
    outside = []
    if low > first:
        outside.append(normalized(first, low - step, step))
    if high < last:
        outside.append(normalized(high + step, last, step))
    return [normalized(low, high, step)], outside


def split(ranges: Sequence[Sequence[int]], wanted: Sequence[Sequence[int]]
          ) -> tuple[RangeList, RangeList] | None:
    """(the ids of ``ranges`` that ``wanted`` names, the others), both range lists, in
    work bounded by the lists' lengths; None when a request range cannot split a piece
    exactly (see above)."""
    outside: RangeList = [list(r) for r in ranges]
    inside: RangeList = []
    for want in wanted:
        rest: RangeList = []
        for rng in outside:
            cut = _cuts(rng, want)
            if cut is None:
                return None
            inside += cut[0]
            rest += cut[1]
        outside = rest
    return sorted(inside), sorted(outside)
