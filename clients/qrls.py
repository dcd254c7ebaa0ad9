"""``qrls``: release holds (see clients.qhold)."""
from __future__ import annotations

import sys

from clients.qhold import run


def main(argv: list[str] | None = None) -> int:
    return run("qrls", sys.argv[1:] if argv is None else argv, add=False)


if __name__ == "__main__":
    import clients  # (as the launcher, clients/scripts/)
    clients.run(main)
