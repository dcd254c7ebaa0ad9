"""Where the captured outputs of the real Grid Engine 8.1.9 live: ``tests/data/reference``,
copied into the repository so that a plain clone runs every test (see its README)."""
from __future__ import annotations

from pathlib import Path

REFERENCE = Path(__file__).resolve().parent / "data" / "reference"
