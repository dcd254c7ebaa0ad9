"""Task id range lists (common.task_ranges): a model check against plain sets of ids."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from common import task_ranges as tr

# an array range -t first-last:step and ids to take out of it
arrays = st.tuples(st.integers(1, 50), st.integers(0, 60), st.integers(1, 4)).map(
    lambda a: tr.normalized(a[0], a[0] + a[1], a[2]))


def ids_of(rng: list[int]) -> list[int]:
    return list(range(rng[0], rng[1] + 1, rng[2]))


@given(arrays, st.lists(st.integers(1, 120), max_size=30))
def test_taking_ids_out_keeps_a_sorted_list_of_the_rest(array: list[int], out: list[int]
                                                        ) -> None:
    ranges = [array]
    for task_id in out:
        ranges = tr.without(ranges, task_id)
    rest = [t for t in ids_of(array) if t not in set(out)]
    assert list(tr.ids(ranges)) == rest
    assert tr.count(ranges) == len(rest)
    assert tr.first_id(ranges) == (rest[0] if rest else None)
    assert all(tr.contains(ranges, t) == (t in rest) for t in range(0, 130))
    assert all(r[0] <= r[1] and (r[0] < r[1] or r[2] == 1) for r in ranges)
    assert [r[0] for r in ranges] == sorted(r[0] for r in ranges)
    assert tr.without_ids([array], out) == ranges


@given(arrays, st.lists(st.integers(1, 120), max_size=20),
       st.lists(st.tuples(st.integers(1, 120), st.integers(0, 40), st.integers(1, 5)),
                min_size=1, max_size=3))
def test_a_request_names_exactly_the_ids_it_covers(array: list[int], out: list[int],
                                                   wanted: list[tuple[int, int, int]]) -> None:
    ranges = tr.without_ids([array], out)
    request = [[a, a + b, s] for a, b, s in wanted]
    named = {t for a, b, s in request for t in range(a, b + 1, s)}
    have = list(tr.ids(ranges))
    assert list(tr.ids_in(ranges, request)) == [t for t in have if t in named]
    if tr.covered_by(ranges, request):  # may say no to a cover split over requests
        assert set(have) <= named


def test_a_whole_array_request_covers_it_at_once() -> None:
    ranges = tr.without([[1, 75000, 1]], 17)
    assert tr.covered_by(ranges, [[1, 75000, 1]])
    assert not tr.covered_by(ranges, [[2, 75000, 1]])
    assert tr.covered_by([[1, 99, 2]], [[1, 100, 1]])
    assert not tr.covered_by([[1, 99, 1]], [[1, 100, 2]])
    assert tr.normalized(1, 9, 3) == [1, 7, 3] and tr.normalized(4, 5, 3) == [4, 4, 1]


def test_joined_lists_stay_sorted() -> None:
    assert tr.joined([[5, 9, 1]], [[1, 3, 1]]) == [[1, 3, 1], [5, 9, 1]]
