"""The letters of queue instances that ``qstat`` and ``qhost`` print: stored states, the
states column and queue types. Import-free, so that a command's start-up does not pay
for ``common.cluster`` (dataclasses, the configuration formats)."""
from __future__ import annotations

# the letters of the stored states of a queue instance: C suspended and D disabled by its
# calendar, d disabled, E error and s suspended by qmod, S suspended by subordination
# (qstat prints them with the alarms a/A and u in the order of state_string)
QI_STATES = "CDdESs"


def state_string(states: str, alive: bool = True) -> str:
    """qstat's states column in 8.1.9's order (``au``, ``Dd``): the stored letters, the
    alarms the qmaster works out (``a``, ``A``) and ``u`` when the execd is down."""
    letters = set(states) | (set() if alive else {"u"})
    return "".join(c for c in "aACDduESs" if c in letters)


def qtype_letters(qtype: str) -> str:
    """``BATCH INTERACTIVE`` -> ``BI``; ``P`` is added when the queue has a pe_list."""
    words = qtype.upper().split()
    return "".join(letter for word, letter in (("BATCH", "B"), ("INTERACTIVE", "I"))
                   if word in words)
