"""``qhold`` and ``qrls``: add or remove user, operator or system holds."""
from __future__ import annotations

import sys
from typing import Any

from clients.jobctl import run_job_command, unknown_text
from clients.joblist import hold_denied, hold_modified

HOLD_TYPES = ("u", "o", "s")


def usage(prog: str) -> str:
    return (f"usage: {prog} [options] job_task_list\n"
            "   [-h {u|o|s},...]                   hold type(s)\n"
            "   [-help]                            print this help\n"
            "   [-u user_list]                     all jobs of the users in the list\n")


def _hold_types(argv: list[str], prog: str) -> tuple[list[str], list[str]] | None:
    types, rest, i = [], [], 0
    while i < len(argv):
        if argv[i] == "-h":
            value = argv[i + 1] if i + 1 < len(argv) else ""
            letters = [c for c in value.replace(",", "")]
            if not letters or any(c not in HOLD_TYPES for c in letters):
                sys.stderr.write(f"{prog}: invalid hold type \"{value}\"\n")
                return None
            types += letters
            i += 2
        else:
            rest.append(argv[i])
            i += 1
    return types or ["u"], rest


def run(prog: str, argv: list[str], *, add: bool) -> int:
    parsed = _hold_types(argv, prog)
    if parsed is None:
        return 1
    types, rest = parsed

    def act(client: Any, targets: list[dict[str, Any]]) -> list[dict[str, Any]]:
        method = client.hold if add else client.release
        results: list[dict[str, Any]] = []
        for hold_type in types:
            results += [dict(r, hold_type=hold_type) for r in method(targets, hold_type)]
        return results

    def describe(result: dict[str, Any], user: str) -> list[str]:
        if result["result"] == "unknown":
            return [unknown_text(result)]
        if result["result"] == "denied":
            return [hold_denied(user, result["job_id"], result["hold_type"], not add)]
        task_ids = result.get("task_ids")
        if task_ids:
            return [hold_modified(result["job_id"], t) for t in task_ids]
        return [hold_modified(result["job_id"])]

    return run_job_command(prog, rest, usage(prog), act, describe)


def main(argv: list[str] | None = None) -> int:
    return run("qhold", sys.argv[1:] if argv is None else argv, add=True)


if __name__ == "__main__":
    raise SystemExit(main())
