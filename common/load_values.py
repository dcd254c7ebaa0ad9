"""What a load value reported by an execd may look like (its load sensors' values, and
what they report for the global host): checked by the execd as it reads a sensor and
again by the qmaster, which trusts no execd with the global host's values."""
from __future__ import annotations

import re

MAX_NAME = 256
MAX_VALUE = 4096
_NAME = re.compile(r"^[^\s,=:]{1,%d}$" % MAX_NAME)
_VALUE = re.compile(r"^[^\s,=]{0,%d}$" % MAX_VALUE)


def clean_load_value(name: str, value: str) -> bool:
    """May ``name=value`` be a load value? Blanks, commas and ``=`` are refused: they
    would break the ``name=value,...`` lists of ``qconf -se`` (8.1.9 stores them as
    they come); names are at most 256 characters, values 4,096."""
    return bool(_NAME.match(name)) and bool(_VALUE.match(value))
