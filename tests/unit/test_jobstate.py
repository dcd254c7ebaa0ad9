"""The job life-cycle table: every listed move works, every other move raises."""
from __future__ import annotations

import itertools

import pytest
from hypothesis import given, strategies as st

from common.jobstate import (ACTIVE_STATES, TRANSITIONS, Event, IllegalTransition, State,
                             allows, next_state, state_letters)


def test_table_moves() -> None:
    for (state, event), target in TRANSITIONS.items():
        assert next_state(state, event) is target


def test_everything_else_raises() -> None:
    for state, event in itertools.product(State, Event):
        if (state, event) in TRANSITIONS:
            continue
        with pytest.raises(IllegalTransition):
            next_state(state, event)
        assert not allows(state, event)


def test_finished_is_final() -> None:
    assert not any(s is State.FINISHED for s, _ in TRANSITIONS)


@given(st.lists(st.sampled_from(list(Event)), max_size=30))
def test_random_walks_stay_in_table(events: list[Event]) -> None:
    state = State.PENDING
    for event in events:
        if allows(state, event):
            state = next_state(state, event)
    assert state in State


def test_a_dispatched_job_can_always_end() -> None:
    for state in ACTIVE_STATES:
        assert allows(state, Event.EXITED)


@pytest.mark.parametrize("state,holds,letters", [
    (State.PENDING, set(), "qw"), (State.HOLD, {"u"}, "hqw"), (State.RUNNING, set(), "r"),
    (State.TRANSFERRING, set(), "t"), (State.ERROR, set(), "Eqw"), (State.DELETED, set(), "dr"),
    (State.SUSPENDED, set(), "s"), (State.RUNNING, {"u"}, "hr"),
])
def test_state_letters(state: State, holds: set[str], letters: str) -> None:
    assert state_letters(state, holds) == letters
