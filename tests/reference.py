"""Where the captured outputs of the real Grid Engine 8.1.9 live: ``shared/reference``
beside the checkout (the product's source documents are kept outside the repository)."""
from __future__ import annotations

from pathlib import Path

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference"
