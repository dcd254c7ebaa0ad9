"""Checks a submission must pass before the qmaster accepts it, in Grid Engine's words."""
from __future__ import annotations

import fnmatch
from typing import Any

from qmaster.context import RequestError
from qmaster.store import Store


def check_submission(store: Store, opts: dict[str, Any]) -> None:
    _check_pe(store, opts.get("pe"))
    if opts.get("verify_mode") in ("e", "v"):
        _check_queues(store, list(opts.get("hard_queues") or []))


def _check_pe(store: Store, pe: Any) -> None:
    if not pe:
        return
    name = str(pe[0])
    if not any(fnmatch.fnmatchcase(existing, name) for existing in store.conf["pe"]):
        raise RequestError("rejected", "job rejected: the requested parallel environment "
                                       f"\"{name}\" does not exist")


def _check_queues(store: Store, queues: list[str]) -> None:
    for ref in queues:
        qname = ref.split("@", 1)[0] or "*"
        if not any(fnmatch.fnmatchcase(q, qname) for q in store.conf["queue"]):
            raise RequestError("rejected", "Job was rejected because job requests unknown "
                                           f"queue \"{ref}\"")
